//! `gdlc validate`: the reachable game graph explored for what makes a description ill-formed
//! ([`gdl_tools::validate`]), on the compiled game (its binary's `validate` sub-command,
//! built through the cache) or on the interpreter, with a progress bar on a terminal.

use std::io::{BufRead, BufReader, IsTerminal};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use gdl_tools::cli::{ValidateOutput, parse_progress_line, run_validate};
use gdl_tools::validate::{self, Phase, Progress, ValidateOptions};
use indicatif::{ProgressBar, ProgressStyle};

use super::cache::{self, CompileArgs, Engine};

/// Printed after the options by `gdlc validate --help`.
const AFTER_HELP: &str = "Explores the game breadth-first from the initial state, every state \
kept in a hash set, while it fits in --max-states and three quarters of --seconds: then it is \
exhaustive, and the whole graph is analysed (cycles; which roles can force a win; the value of a \
two-player zero-sum turn-taking game). Past the limits it plays random playouts for the rest of \
the time (on --threads threads with the compiled engine) and says so.

Errors: a non-terminal state where a role has no legal move; a terminal state where a role has \
no goal value, several, or one outside 0..100; several goal values in any state; a cycle; a role \
that no reachable terminal state gives 100 (exhaustive only). Warnings: a playout longer than \
--max-steps; a goal value that decreases along a move; a single-player game that cannot be won \
by force. Each finding comes with the shortest joint-move sequence from the initial state that \
shows it (breadth-first), or the shortest playout that did; or it says that it shows in the \
initial state, that it is a property of the whole graph (winnability), or that the playout was \
too long to keep. With --json a description that does not compile gives \
{\"game\", \"rejected\": [{\"code\", \"severity\", \"message\"}], \"exit_status\": 1}.

Exit status: 0 well-formed (explored exhaustively, no error), 1 an error found (or the \
description does not compile), 2 undecided (sampled, or the engine gave up) or a usage error.";

/// The arguments of `gdlc validate`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The game description (KIF or infix).
    pub file: PathBuf,
    /// The breadth-first search stops (and sampling takes over) past this many states.
    #[arg(long, default_value_t = ValidateOptions::default().max_states,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_states: usize,
    /// The time of the whole validation, in seconds (not counting the build).
    #[arg(long, default_value_t = 60.0, value_parser = super::seconds_value)]
    pub seconds: f64,
    /// Threads that expand states (batches of the breadth-first search) and sample at once
    /// (compiled engine only).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: u16,
    /// Seed of the playouts' move chooser.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A playout not over after this many steps is reported (as a warning).
    #[arg(long, default_value_t = ValidateOptions::default().max_playout_steps)]
    pub max_steps: usize,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// The engine that explores.
    #[arg(long, value_enum, default_value_t = Engine::Compiled)]
    pub engine: Engine,
    #[command(flatten)]
    pub compile: CompileArgs,
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

pub fn run(args: Args) -> ExitCode {
    let loaded = match super::Loaded::read(&args.file) {
        Ok(l) => super::Loaded {
            json_rejection: args.json,
            ..l
        },
        Err(code) => return code,
    };
    let stem = loaded.stem();
    let options = ValidateOptions {
        max_states: args.max_states,
        duration: Duration::from_secs_f64(args.seconds),
        threads: usize::from(args.threads),
        seed: args.seed,
        max_playout_steps: args.max_steps,
    };
    let bar = Bar::new(&stem);
    if args.engine == Engine::Compiled {
        let binary = match cache::compiled_binary(&loaded, &args.compile) {
            Ok(b) => b,
            Err(code) => return code,
        };
        return run_compiled(&binary, &options, args.json, &bar);
    }
    if options.threads > 1 {
        eprintln!("gdlc validate: the interpreter validates on one thread only");
        return ExitCode::from(super::EXIT_USAGE);
    }
    let game = match loaded.interpreter(&args.limits) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let output = ValidateOutput {
        json: args.json,
        progress: false,
    };
    run_validate(&stem, output, &mut |_| {
        let report = validate::validate(&game, &options, &mut |p| bar.show(p));
        bar.finish();
        report
    })
}

/// Runs the compiled game's `validate`, its report going to standard output, its progress
/// lines to the bar (its other lines of standard error passed on).
fn run_compiled(
    binary: &std::path::Path,
    options: &ValidateOptions,
    json: bool,
    bar: &Bar,
) -> ExitCode {
    let mut argv = vec![
        "validate".to_string(),
        format!("--max-states={}", options.max_states),
        format!("--seconds={}", options.duration.as_secs_f64()),
        format!("--threads={}", options.threads),
        format!("--seed={}", options.seed),
        format!("--max-steps={}", options.max_playout_steps),
    ];
    if json {
        argv.push("--json".to_string());
    }
    if bar.drawn() {
        argv.push("--progress".to_string());
    }
    let mut child = match Command::new(binary)
        .args(&argv)
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("gdlc: cannot run {}: {e}", binary.display());
            return ExitCode::FAILURE;
        }
    };
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            match parse_progress_line(&line) {
                Some(p) => bar.show(&p),
                None => bar.println(&line),
            }
        }
    }
    bar.finish();
    match child.wait() {
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| u8::try_from(c).unwrap_or(1))),
        Err(e) => {
            eprintln!("gdlc: {} did not finish: {e}", binary.display());
            ExitCode::FAILURE
        }
    }
}

/// The progress bar of a validation: a spinner with the phase, states, depth and playouts,
/// drawn only when standard error is a terminal.
struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    fn new(name: &str) -> Bar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            let style = ProgressStyle::with_template("{spinner} {prefix}: {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.set_prefix(name.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Bar { bar }
    }

    fn drawn(&self) -> bool {
        self.bar.is_some()
    }

    fn show(&self, p: &Progress) {
        let Some(bar) = &self.bar else { return };
        let secs = p.elapsed.as_secs_f64().max(1e-3);
        bar.set_message(match p.phase {
            Phase::Exploring => format!(
                "exploring: {} states, depth {} ({:.0} states/s)",
                p.states,
                p.depth,
                p.states as f64 / secs
            ),
            Phase::Analysing => format!("analysing {} states", p.states),
            Phase::Sampling => format!(
                "sampling: {} playouts, {} states (after {} breadth-first)",
                p.playouts, p.sampled_states, p.states
            ),
        });
    }

    fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
