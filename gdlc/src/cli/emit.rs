//! `gdlc emit`: prints the Rust module compiled from a description.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{CodegenArgs, Loaded};

/// The arguments of `gdlc emit`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description (KIF or infix).
    pub file: PathBuf,
    /// The name of the game struct (default: from the file name, `ticTacToe` -> `TicTacToe`).
    #[arg(long)]
    pub type_name: Option<String>,
    /// Print pass times and sizes on standard error.
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub codegen: CodegenArgs,
}

pub fn run(args: Args) -> ExitCode {
    let loaded = match Loaded::read(&args.file) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut options = super::options_for(&args.file, &args.codegen);
    if let Some(t) = args.type_name {
        options.codegen.type_name = t;
    }
    let shown = super::Shown {
        timings: args.codegen.timings,
        ..super::Shown::default()
    };
    match loaded.compile(&options, shown) {
        Ok(c) => {
            if let Err(code) = super::print_out(&c.rust) {
                return code;
            }
            if args.stats {
                for (pass, t) in &c.stats.timings {
                    eprintln!("{pass}: {:.3}s", t.as_secs_f64());
                }
                eprintln!("ground: {:?}", c.stats.ground);
                eprintln!("ir lowered: {:?}", c.stats.ir_lowered);
                eprintln!("ir optimised: {:?}", c.stats.ir);
                eprintln!("rust: {} bytes", c.stats.rust_bytes);
                eprint!("{}", super::progress::peak_memory_line());
            }
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}
