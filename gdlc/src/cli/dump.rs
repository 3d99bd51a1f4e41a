//! `gdlc dump`: prints the output of one pass of the compiler pipeline for a description.

use std::path::PathBuf;
use std::process::ExitCode;

use gdlc::pipeline::{self, Pass};

/// The arguments of `gdlc dump`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description (KIF or infix).
    pub file: PathBuf,
    /// The output of which pass to print.
    #[arg(long, value_enum, default_value_t = Pass::Optimise)]
    pub emit: Pass,
    /// Print pass times, sizes and peak memory on standard error (`--timings` too).
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub codegen: super::CodegenArgs,
}

pub fn run(args: Args) -> ExitCode {
    let loaded = match super::Loaded::read(&args.file) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut options = super::options_for(&args.file, &args.codegen);
    let bar =
        super::progress::CompileProgress::new(&loaded.stem(), super::progress::Show::OnTerminal);
    bar.attach(&mut options);
    let stop = args.emit;
    let a = pipeline::run(loaded.source(), &options, stop);
    bar.finish();
    let a = match a {
        Ok(a) => a,
        Err(errors) => return loaded.report(&errors),
    };
    if let Err(code) = super::print_out(&a.render(stop)) {
        return code;
    }
    if args.stats || args.codegen.timings {
        for (pass, t) in &a.timings {
            eprintln!("{pass}: {:.3}s", t.as_secs_f64());
        }
        if let Some(g) = &a.ground {
            eprintln!("ground: {:?}", g.stats);
        }
        if let Some(s) = a.ir_lowered {
            eprintln!("ir lowered: {s:?}");
        }
        if let Some(ir) = &a.ir {
            eprintln!("ir optimised: {:?}", ir.stats());
        }
        eprint!("{}", super::progress::peak_memory_line());
    }
    ExitCode::SUCCESS
}
