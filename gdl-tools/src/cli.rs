//! The command line of a compiled game's binary, so that a generated `main` is one call:
//!
//! ```ignore
//! fn main() -> std::process::ExitCode {
//!     gdl_tools::cli::main_for(&my_game::TicTacToe, "ticTacToe")
//! }
//! ```
//!
//! Sub-commands (`BIN help` prints them):
//!
//! - `trace [--seed S] [--max-steps N] [--percepts]`: one seeded random playout in the
//!   reference trace format ([`crate::trace`]), as `gdlc trace` prints it; with
//!   `--percepts`, also GDL-II's random roles and percepts ([`TraceExtras`]).
//! - `bench [--seconds T] [--seed S] [--max-steps N] [--threads N]`: the benchmark loop of
//!   [`crate::bench`] (on N threads at once: [`crate::bench::run_shared`]); prints one line
//!   (see [`crate::bench::BenchResult::line`]) with `engine=compiled`.
//! - `traces [--seeds A..B] [--max-steps N]`: the records of the playouts of seeds `A` to `B`
//!   (inclusive), one after the other, for differential testing ([`crate::compare`]).
//! - `roles`: the roles, one a line.
//! - `validate [--max-states N] [--seconds T] [--threads N] [--seed S] [--max-steps N] [--json]
//!   [--progress]`: [`crate::validate`], the report as text or JSON; with `--progress`, a line
//!   `progress PHASE STATES DEPTH PLAYOUTS SAMPLED_STATES MILLISECONDS` on standard error
//!   about ten times a second (what `gdlc validate` draws its progress bar from). Exit status
//!   0 when the game is well-formed, 1 when an error was found, 2 when undecided.
//!
//! Exit status: 0 on success, 1 when the game cannot be played to the end (no legal move, step
//! limit), 2 on a usage error.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use crate::bench::{self, BenchError, BenchOptions, BenchResult};
use crate::compare::{DEFAULT_MAX_STEPS, RECORD_EXTRAS, playout_record_with};
use crate::trace::{TraceError, TraceExtras, TraceOptions, write_trace_to};
use crate::validate::{self, Phase, Progress, Report, ValidateOptions};
use gdl_runtime::Game;

/// Exit status of a usage error.
pub const EXIT_USAGE: u8 = 2;

/// The usage text of a one-game binary.
pub const USAGE: &str = "usage:
  BIN trace [--seed S] [--max-steps N] [--percepts]
                                           one seeded random playout, reference trace format
                                           (--percepts: also GDL-II random roles and percepts)
  BIN bench [--seconds T] [--seed S] [--max-steps N] [--threads N]
                                           random playouts for T seconds (default 10), on N
                                           threads (default 1); one line
  BIN traces [--seeds A..B] [--max-steps N]
                                           the traces of seeds A to B (default 1..100)
  BIN roles                                the roles, one a line
  BIN validate [--max-states N] [--seconds T] [--threads N] [--seed S] [--max-steps N]
               [--json] [--progress]       explore the game for what makes it ill-formed
                                           (exhaustive within N states, else sampled)";

/// Runs the command line of `std::env::args()` on `game`, named `name` in outputs.
pub fn main_for<G: Game + Sync>(game: &G, name: &str) -> ExitCode
where
    G::State: Send + Sync,
{
    let args: Vec<String> = std::env::args().skip(1).collect();
    run_game(game, name, &args)
}

/// The `main` of a binary holding several games: the first argument names the game, the rest
/// goes to [`run_game`] through `dispatch`, which returns `None` for a name it does not know.
/// `BIN list` prints the names.
pub fn main_multi(
    names: &[&str],
    dispatch: impl Fn(&str, &[String]) -> Option<ExitCode>,
) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("list") => {
            let mut out = std::io::stdout().lock();
            for n in names {
                let _ = writeln!(out, "{n}");
            }
            ExitCode::SUCCESS
        }
        Some(name) => dispatch(name, &args[1..]).unwrap_or_else(|| {
            eprintln!("unknown game {name} (`list` prints the games of this binary)");
            ExitCode::from(EXIT_USAGE)
        }),
        None => {
            eprintln!("usage: BIN GAME COMMAND ... | BIN list\n\n{USAGE}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Trace {
        seed: u64,
        max_steps: usize,
        extras: TraceExtras,
    },
    Bench(BenchOptions),
    Traces {
        first: u64,
        last: u64,
        max_steps: usize,
    },
    Roles,
    Validate {
        options: ValidateOptions,
        output: ValidateOutput,
    },
    Help,
}

/// What `validate` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValidateOutput {
    /// The report as JSON rather than text.
    pub json: bool,
    /// Progress lines on standard error.
    pub progress: bool,
}

/// Parses the arguments after the program name (and after the game name, for several games).
pub fn parse_args(args: &[String]) -> Result<Command, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("no command given".into());
    };
    let mut seed = None;
    let mut max_steps = None;
    let mut seconds = None;
    let mut seeds = None;
    let mut threads = None;
    let mut max_states = None;
    let mut extras = TraceExtras::default();
    let mut output = ValidateOutput::default();
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        match (flag.as_str(), command.as_str()) {
            ("--percepts", "trace") => extras.percepts = true,
            ("--json", "validate") => output.json = true,
            ("--progress", "validate") => output.progress = true,
            _ => {}
        }
        if ["--percepts", "--json", "--progress"].contains(&flag.as_str()) {
            if command == "trace" || command == "validate" {
                continue;
            }
            return Err(format!("`{command}` takes no {flag} option"));
        }
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (flag.as_str(), None),
        };
        let value = match inline.or_else(|| it.next().cloned()) {
            Some(v) => v,
            None => return Err(format!("{flag} needs a value")),
        };
        let bad = |what: &str| format!("{flag}: `{value}` is not {what}");
        match flag {
            "--seed" => seed = Some(value.parse::<u64>().map_err(|_| bad("a seed"))?),
            "--max-steps" => {
                max_steps = Some(value.parse::<usize>().map_err(|_| bad("a step count"))?)
            }
            "--seconds" => match value.parse::<f64>() {
                Ok(s) if (0.0..1e9).contains(&s) => seconds = Some(s),
                _ => return Err(bad("a number of seconds")),
            },
            "--max-states" => match value.parse::<usize>() {
                Ok(n) if n >= 1 => max_states = Some(n),
                _ => return Err(bad("a number of states")),
            },
            "--seeds" => seeds = Some(parse_seeds(&value).ok_or_else(|| bad("a range A..B"))?),
            "--threads" => match value.parse::<usize>() {
                Ok(t) if (1..=4096).contains(&t) => threads = Some(t),
                _ => return Err(bad("a number of threads (1 to 4096)")),
            },
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    let allowed: &[&str] = match command.as_str() {
        "trace" => &["seed", "max"],
        "bench" => &["seed", "max", "seconds", "threads"],
        "traces" => &["max", "seeds"],
        "validate" => &["seed", "max", "seconds", "threads", "states"],
        _ => &[],
    };
    for (given, name) in [
        (seed.is_some(), "seed"),
        (max_steps.is_some(), "max"),
        (seconds.is_some(), "seconds"),
        (seeds.is_some(), "seeds"),
        (threads.is_some(), "threads"),
        (max_states.is_some(), "states"),
    ] {
        if given && !allowed.contains(&name) {
            return Err(format!("`{command}` takes no --{name} option"));
        }
    }
    Ok(match command.as_str() {
        "trace" => Command::Trace {
            seed: seed.unwrap_or(1),
            max_steps: max_steps.unwrap_or(TraceOptions::default().max_steps),
            extras,
        },
        "bench" => {
            let d = BenchOptions::default();
            Command::Bench(BenchOptions {
                duration: seconds.map_or(d.duration, Duration::from_secs_f64),
                seed: seed.unwrap_or(d.seed),
                max_steps: max_steps.unwrap_or(d.max_steps),
                threads: threads.unwrap_or(d.threads),
            })
        }
        "traces" => {
            let (first, last) = seeds.unwrap_or((1, 100));
            Command::Traces {
                first,
                last,
                max_steps: max_steps.unwrap_or(DEFAULT_MAX_STEPS),
            }
        }
        "roles" => Command::Roles,
        "validate" => {
            let d = ValidateOptions::default();
            Command::Validate {
                options: ValidateOptions {
                    max_states: max_states.unwrap_or(d.max_states),
                    duration: seconds.map_or(d.duration, Duration::from_secs_f64),
                    threads: threads.unwrap_or(d.threads),
                    seed: seed.unwrap_or(d.seed),
                    max_playout_steps: max_steps.unwrap_or(d.max_playout_steps),
                },
                output,
            }
        }
        "help" | "--help" | "-h" => Command::Help,
        other => return Err(format!("unknown command `{other}`")),
    })
}

/// `A..B` (inclusive, as `A..=B` also reads) or a single seed `A`.
fn parse_seeds(s: &str) -> Option<(u64, u64)> {
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (a, b.strip_prefix('=').unwrap_or(b)),
        None => (s, s),
    };
    let (a, b) = (a.parse().ok()?, b.parse().ok()?);
    (a <= b).then_some((a, b))
}

/// Runs one command line on the compiled `game`; prints on standard output, errors on standard
/// error.
pub fn run_game<G: Game + Sync>(game: &G, name: &str, args: &[String]) -> ExitCode
where
    G::State: Send + Sync,
{
    if let Ok(Command::Validate { options, output }) = parse_args(args) {
        return run_validate(name, output, &mut |progress| {
            validate::validate_shared(game, &options, progress)
        });
    }
    run_command(
        game,
        name,
        "compiled",
        args,
        Some(&|o| bench::run_shared(game, o)),
    )
}

/// [`run_game`] for any engine: `engine` names it in the `bench` line (`engine=...`). A game
/// threads cannot share benchmarks on one thread (`bench --threads` is refused).
pub fn run_game_as<G: Game>(game: &G, name: &str, engine: &str, args: &[String]) -> ExitCode {
    if let Ok(Command::Validate { options, output }) = parse_args(args) {
        if options.threads > 1 {
            eprintln!("{name}: the {engine} engine validates on one thread only");
            return ExitCode::from(EXIT_USAGE);
        }
        return run_validate(name, output, &mut |progress| {
            validate::validate(game, &options, progress)
        });
    }
    run_command(game, name, engine, args, None)
}

/// A validation run, given what to tell progress to.
pub type Validation<'a> = dyn FnMut(&mut dyn FnMut(&Progress)) -> Report + 'a;

/// Runs `validate` (given the progress callback), prints the report as `output` says and
/// returns the report's exit status.
pub fn run_validate(name: &str, output: ValidateOutput, validate: &mut Validation<'_>) -> ExitCode {
    let mut progress = |p: &Progress| {
        if output.progress {
            eprintln!("{}", progress_line(p));
        }
    };
    let report = validate(&mut progress);
    let text = if output.json {
        format!("{}\n", validate::json(&report, name))
    } else {
        validate::text(&report, name)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::from(report.exit_status()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(report.exit_status())
        }
        Err(e) => {
            eprintln!("{name}: cannot write the output: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The progress line of `validate --progress`: `progress PHASE STATES DEPTH PLAYOUTS
/// SAMPLED_STATES MILLISECONDS`.
pub fn progress_line(p: &Progress) -> String {
    let phase = match p.phase {
        Phase::Exploring => "exploring",
        Phase::Analysing => "analysing",
        Phase::Sampling => "sampling",
    };
    format!(
        "progress {phase} {} {} {} {} {}",
        p.states,
        p.depth,
        p.playouts,
        p.sampled_states,
        p.elapsed.as_millis()
    )
}

/// Reads a line of [`progress_line`] back; `None` for any other line.
pub fn parse_progress_line(line: &str) -> Option<Progress> {
    let mut words = line.strip_prefix("progress ")?.split(' ');
    let phase = match words.next()? {
        "exploring" => Phase::Exploring,
        "analysing" => Phase::Analysing,
        "sampling" => Phase::Sampling,
        _ => return None,
    };
    let mut n = || words.next()?.parse::<u64>().ok();
    let (states, depth, playouts, sampled_states, ms) = (n()?, n()?, n()?, n()?, n()?);
    Some(Progress {
        phase,
        states,
        depth,
        playouts,
        sampled_states,
        elapsed: Duration::from_millis(ms),
    })
}

/// How `bench` runs on several threads, when it can.
type Parallel<'a> = Option<&'a (dyn Fn(&BenchOptions) -> Result<BenchResult, BenchError> + 'a)>;

fn run_command<G: Game>(
    game: &G,
    name: &str,
    engine: &str,
    args: &[String],
    parallel: Parallel<'_>,
) -> ExitCode {
    let command = match parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{name}: {e}\n\n{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = execute_with(game, name, engine, &command, &mut out, parallel);
    let flushed = out.flush().map_err(|e| RunError::Output(e.kind()));
    match result.and(flushed) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`BIN trace | head`): nothing more to say.
        Err(RunError::Output(std::io::ErrorKind::BrokenPipe)) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why a command of [`execute`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The game could not be played to the end (no legal move, step limit, ...).
    Game(String),
    /// The output could not be written.
    Output(std::io::ErrorKind),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Game(e) => f.write_str(e),
            RunError::Output(kind) => write!(f, "cannot write the output: {kind}"),
        }
    }
}

/// Runs a parsed command on `game` (named `name`, played by `engine`), writing to `out`. The
/// error is the reason the game could not be played (or the output written); whatever was
/// played before it has been written.
pub fn execute<G: Game>(
    game: &G,
    name: &str,
    engine: &str,
    command: &Command,
    out: &mut dyn Write,
) -> Result<(), RunError> {
    execute_with(game, name, engine, command, out, None)
}

fn execute_with<G: Game>(
    game: &G,
    name: &str,
    engine: &str,
    command: &Command,
    out: &mut dyn Write,
    parallel: Parallel<'_>,
) -> Result<(), RunError> {
    let io = |e: std::io::Error| RunError::Output(e.kind());
    match command {
        Command::Trace {
            seed,
            max_steps,
            extras,
        } => {
            let options = TraceOptions {
                seed: *seed,
                max_steps: *max_steps,
            };
            write_trace_to(game, &options, extras, out).map_err(|e| match e {
                TraceError::Output(kind) => RunError::Output(kind),
                e => RunError::Game(e.to_string()),
            })
        }
        Command::Bench(options) => {
            let r = match parallel {
                Some(run) => run(options),
                None if options.threads > 1 => {
                    return Err(RunError::Game(format!(
                        "the {engine} engine benchmarks on one thread only"
                    )));
                }
                None => bench::run(game, options),
            }
            .map_err(|e| RunError::Game(e.to_string()))?;
            writeln!(out, "{}", r.line(name, engine)).map_err(io)
        }
        Command::Traces {
            first,
            last,
            max_steps,
        } => {
            for seed in *first..=*last {
                out.write_all(
                    playout_record_with(
                        game,
                        seed,
                        *max_steps,
                        &TraceExtras {
                            random_moves: true,
                            ..RECORD_EXTRAS
                        },
                    )
                    .as_bytes(),
                )
                .map_err(io)?;
            }
            Ok(())
        }
        Command::Roles => {
            for r in 0..game.role_count() {
                writeln!(out, "{}", game.role_name(r)).map_err(io)?;
            }
            Ok(())
        }
        Command::Validate { options, .. } => {
            let report = validate::validate(game, options, &mut |_| {});
            write!(out, "{}", validate::text(&report, name)).map_err(io)
        }
        Command::Help => writeln!(out, "{USAGE}").map_err(io),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl_runtime::toy::Countdown;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn parses_the_commands() {
        assert_eq!(
            parse_args(&args("trace --seed 7")),
            Ok(Command::Trace {
                seed: 7,
                max_steps: 100_000,
                extras: TraceExtras::default(),
            })
        );
        assert_eq!(
            parse_args(&args("trace --percepts --seed=2")),
            Ok(Command::Trace {
                seed: 2,
                max_steps: 100_000,
                extras: TraceExtras {
                    percepts: true,
                    ..TraceExtras::default()
                },
            })
        );
        assert_eq!(
            parse_args(&args("traces --seeds 3..=5 --max-steps=9")),
            Ok(Command::Traces {
                first: 3,
                last: 5,
                max_steps: 9
            })
        );
        let Ok(Command::Bench(b)) = parse_args(&args("bench --seconds 0.5")) else {
            panic!("bench");
        };
        assert_eq!(b.duration, Duration::from_millis(500));
        let Ok(Command::Validate { options, output }) = parse_args(&args(
            "validate --json --max-states=7 --seconds 2 --threads 3",
        )) else {
            panic!("validate");
        };
        assert_eq!((options.max_states, options.threads), (7, 3));
        assert_eq!(options.duration, Duration::from_secs(2));
        assert_eq!(
            output,
            ValidateOutput {
                json: true,
                progress: false
            }
        );
        for bad in [
            "",
            "trace --seed",
            "trace --seed x",
            "trace --seconds 1",
            "bench --seconds -1",
            "bench --seconds NaN",
            "traces --seeds 5..3",
            "fly",
            "trace --colour red",
            "traces --percepts",
            "bench --json",
            "validate --max-states 0",
            "trace --max-states 5",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn progress_lines_read_back() {
        let p = Progress {
            phase: Phase::Sampling,
            states: 12,
            depth: 3,
            playouts: 40,
            sampled_states: 500,
            elapsed: Duration::from_millis(1234),
        };
        assert_eq!(progress_line(&p), "progress sampling 12 3 40 500 1234");
        assert_eq!(parse_progress_line(&progress_line(&p)), Some(p));
        assert_eq!(parse_progress_line("progress sampling 1 2"), None);
        assert_eq!(parse_progress_line("x: error"), None);
    }

    #[test]
    fn executes_trace_and_traces() {
        let g = Countdown::new(2);
        let mut out = Vec::new();
        execute(
            &g,
            "countdown",
            "toy",
            &parse_args(&args("traces --seeds 1..2")).unwrap(),
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(crate::compare::split_records(&text).len(), 2);
        let mut out = Vec::new();
        execute(&g, "countdown", "toy", &Command::Roles, &mut out).unwrap();
        assert_eq!(out, b"only\n");
        let mut out = Vec::new();
        let e = execute(
            &Countdown::new(50),
            "c",
            "toy",
            &parse_args(&args("trace --max-steps 3")).unwrap(),
            &mut out,
        );
        assert!(
            e.unwrap_err()
                .to_string()
                .contains("no terminal state after 3 steps")
        );
        assert!(
            String::from_utf8(out)
                .unwrap()
                .starts_with("roles only\nseed 1\n")
        );
    }
}
