//! `gdlc trace`: one seeded random playout in the reference trace format, by the interpreter
//! or by the compiled game.

use std::path::PathBuf;
use std::process::ExitCode;

use gdl_tools::trace::{TraceError, TraceExtras, TraceOptions, write_trace_to};

use super::cache::{self, CompileArgs, Engine};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description (KIF or infix).
    pub file: PathBuf,
    /// Seed of the SplitMix64 move chooser.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop the playout with an error (exit code 1) when it has not ended after this many
    /// steps. The trace is written step by step as it is played.
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
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

pub fn run(args: Args) -> ExitCode {
    let loaded = match super::Loaded::read(&args.file) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if args.engine == Engine::Compiled {
        return match cache::compiled_binary(&loaded, &args.compile) {
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
    let game = match loaded.interpreter(&args.limits) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let options = TraceOptions {
        seed: args.seed,
        max_steps: args.max_steps,
    };
    let extras = TraceExtras {
        percepts: args.percepts,
        ..TraceExtras::default()
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match write_trace_to(&game, &options, &extras, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(TraceError::Output(kind)) => super::output_error(&kind.into()),
        Err(TraceError::Fault { step, .. }) => {
            drop(out);
            eprintln!("gdlc trace: {}: stopped at step {step}", loaded.name);
            loaded.report(&game.fault_diagnostic().into_iter().collect::<Vec<_>>())
        }
        Err(e) => {
            eprintln!("gdlc trace: {}: {e}", loaded.name);
            ExitCode::from(super::EXIT_ERRORS)
        }
    }
}
