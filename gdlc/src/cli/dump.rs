//! `gdlc dump`: prints one stage of the compiler pipeline for a description.

use std::path::PathBuf;
use std::process::ExitCode;

use gdlc::pipeline::{self, Stage};

/// Which stage to print.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The syntax tree, as KIF.
    Ast,
    /// The relation strata, in evaluation order.
    Strata,
    /// The ground rules.
    Ground,
    /// The optimised propositional IR.
    Ir,
    /// The generated Rust module.
    Rust,
}

/// The arguments of `gdlc dump`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description (KIF or infix).
    pub file: PathBuf,
    /// The stage to print.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    pub emit: Emit,
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
    let stop = match args.emit {
        Emit::Ast => Stage::Ast,
        Emit::Strata => Stage::Strata,
        Emit::Ground => Stage::Ground,
        Emit::Ir => Stage::Ir,
        Emit::Rust => Stage::Rust,
    };
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
