//! `gdlc trace`: one seeded random playout in the reference trace format, by the interpreter
//! or by the compiled game.

use std::path::PathBuf;
use std::process::ExitCode;

use gdl_runtime::trace::{TraceExtras, TraceOptions, write_trace_with};

use super::cache::{self, CompileArgs, Engine};

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
    /// GDL-II: also print a line `random R` for each random role, and after each joint move
    /// a line `sees R K: p1 p2 ...` for each role that sees something (not in the reference
    /// format).
    #[arg(long)]
    pub percepts: bool,
    /// The engine that plays: the interpreter, or the compiled game (built with cargo and
    /// cached; see `gdlc bench --help`).
    #[arg(long, value_enum, default_value_t = Engine::Interpreted)]
    pub engine: Engine,
    #[command(flatten)]
    pub compile: CompileArgs,
}

pub fn run(args: Args) -> ExitCode {
    let source = match super::read_source(&args.file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let name = args.file.display().to_string();
    if args.engine == Engine::Compiled {
        return match cache::compiled_binary(&args.file, &source, &args.compile) {
            Ok(binary) => {
                let mut binary_args = vec![
                    "trace".to_string(),
                    format!("--seed={}", args.seed),
                    format!("--max-steps={}", args.max_steps),
                ];
                if args.percepts {
                    binary_args.push("--percepts".to_string());
                }
                cache::run_binary(&binary, &binary_args)
            }
            Err(code) => code,
        };
    }
    let game = match super::load_interpreter(&name, &source) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let mut out = String::new();
    let options = TraceOptions {
        seed: args.seed,
        max_steps: args.max_steps,
    };
    let extras = TraceExtras {
        percepts: args.percepts,
    };
    let result = write_trace_with(&game, &options, &extras, &mut out);
    print!("{out}");
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gdlc trace: {name}: {e}");
            ExitCode::from(1)
        }
    }
}
