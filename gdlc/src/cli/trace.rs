//! `gdlc trace`: one seeded random playout in the reference trace format.

use std::path::PathBuf;
use std::process::ExitCode;

use gdl_runtime::trace::{TraceOptions, write_trace};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description (KIF).
    pub file: PathBuf,
    /// Seed of the SplitMix64 move chooser.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Give up after this many steps.
    #[arg(long, default_value_t = 100_000)]
    pub max_steps: usize,
}

pub fn run(args: Args) -> ExitCode {
    let source = match super::read_source(&args.file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let name = args.file.display().to_string();
    let game = match super::load_interpreter(&name, &source) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let mut out = String::new();
    let result = write_trace(
        &game,
        &TraceOptions {
            seed: args.seed,
            max_steps: args.max_steps,
        },
        &mut out,
    );
    print!("{out}");
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gdlc trace: {name}: {e}");
            ExitCode::from(1)
        }
    }
}
