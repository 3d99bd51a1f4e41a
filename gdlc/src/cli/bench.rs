//! `gdlc bench`: the benchmark loop of [`gdl_tools::bench`] (random playouts for T seconds,
//! on one thread or `--threads N`) on the interpreter or on the compiled game.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use gdl_tools::bench::{self, BenchOptions};

use super::cache::{self, CompileArgs, Engine};

/// Printed after the options by `gdlc bench --help`.
const AFTER_HELP: &str = "Prints one line:

    game=G engine=E seconds=S playouts=N playouts_per_sec=P states_per_sec=Q [cpu_seconds=C playouts_per_cpu_sec=R] avg_goal R1=A1 R2=A2

(states are steps + 1 per playout; A is the average goal value of role R, `undef` if it never had \
one; the CPU fields, where the system tells the CPU time of the playing threads, give the rate per second of it, which moves less with the machine's load). Setting up the engine is not timed.

With --engine compiled the description is compiled into a cargo crate under the cache directory \
($GDLC_CACHE, else $XDG_CACHE_HOME/gdlc, else ~/.cache/gdlc), keyed by a hash of the description \
and the compiler build, and built with `cargo build --release` into a target directory shared by \
all cached games; a second run with the same description starts at once.";

/// The arguments of `gdlc bench`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The game description (KIF).
    pub file: PathBuf,
    /// How long to play, in seconds.
    #[arg(long, default_value_t = 10.0, value_parser = super::seconds_value)]
    pub seconds: f64,
    /// Seed of the SplitMix64 move chooser.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A playout longer than this is an error.
    #[arg(long, default_value_t = 100_000)]
    pub max_steps: usize,
    /// Threads playing at once (each with its own seed: S, S+1, ...; the counts are summed).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: u16,
    /// The engine that plays.
    #[arg(long, value_enum, default_value_t = Engine::Interpreted)]
    pub engine: Engine,
    #[command(flatten)]
    pub compile: CompileArgs,
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// Runs `gdlc bench`: exit 0 with the summary line printed, 1 when the game does not compile or
/// cannot be played to the end, 2 on usage or I/O problems.
pub fn run(args: Args) -> ExitCode {
    let loaded = match super::Loaded::read(&args.file) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let name = &loaded.name;
    let stem = loaded.stem();
    if args.engine == Engine::Compiled {
        return match cache::compiled_binary(&loaded, &args.compile) {
            Ok(binary) => cache::run_binary(
                &binary,
                &[
                    "bench".to_string(),
                    format!("--seconds={}", args.seconds),
                    format!("--seed={}", args.seed),
                    format!("--max-steps={}", args.max_steps),
                    format!("--threads={}", args.threads),
                ],
            ),
            Err(code) => code,
        };
    }
    let game = match loaded.interpreter(&args.limits) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let options = BenchOptions {
        duration: Duration::from_secs_f64(args.seconds),
        seed: args.seed,
        max_steps: args.max_steps,
        threads: usize::from(args.threads),
    };
    if options.threads > 1 {
        // The interpreter is not shared between threads: each makes its own.
        let limits = args.limits.limits();
        let make = || {
            gdlc::frontend::load(loaded.source(), &gdlc::CheckOptions::default())
                .and_then(|checked| gdlc::interp::Interpreter::from_checked(&checked, limits))
                .map(Box::new)
                .map_err(|_| "the description does not check".to_string())
        };
        return match bench::run_each(&make, &options) {
            Ok(r) => super::finish_out(&format!("{}\n", r.line(&stem, "interpreted"))),
            Err(e) => {
                eprintln!("gdlc bench: {name}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match bench::run(&game, &options) {
        Ok(r) => super::finish_out(&format!("{}\n", r.line(&stem, "interpreted"))),
        Err(e) => {
            eprintln!("gdlc bench: {name}: {e}");
            match game.fault_diagnostic() {
                Some(d) => loaded.report(&[d]),
                None => ExitCode::FAILURE,
            }
        }
    }
}
