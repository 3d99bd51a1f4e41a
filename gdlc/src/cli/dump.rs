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
    /// Print pass times and sizes on standard error.
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
    let options = super::options_for(&args.file, &args.codegen);
    let stop = match args.emit {
        Emit::Ast => Stage::Ast,
        Emit::Strata => Stage::Strata,
        Emit::Ground => Stage::Ground,
        Emit::Ir => Stage::Ir,
        Emit::Rust => Stage::Rust,
    };
    let a = match pipeline::run(loaded.source(), &options, stop) {
        Ok(a) => a,
        Err(errors) => return loaded.report(&errors),
    };
    if let Err(code) = super::print_out(&a.render(stop)) {
        return code;
    }
    if args.stats {
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
    }
    ExitCode::SUCCESS
}
