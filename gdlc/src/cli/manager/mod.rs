//! `gdlc match`: a game manager. Runs one match of a description between players in role
//! order — remote players (`HOST:PORT`, spoken to over HTTP as `protocol.md` says), players
//! in this process (`random`, `mcts`) or a person at the terminal (`human`) — with the game's
//! rules played by the interpreter. A role named `random` is played by the manager. The match
//! record (the ggp.org JSON) is written atomically after every step; the goals are printed at
//! the end; Ctrl-C aborts the match (exit code 130). `gdlc tournament` plays many matches with
//! the same parts.
//!
//! - [`clock`] — the clocks and how long each message may take;
//! - [`messages`] — START / PLAY / STOP / ABORT as ggp-base's manager spells them, GDL-I or
//!   GDL-II;
//! - [`client`] — the HTTP/1.0 requests to remote players;
//! - [`seats`] — who plays each role;
//! - [`human`] — a person at the terminal;
//! - [`runner`] — one match, from START to STOP (`runner::play_match`);
//! - [`record`] — the match record and its file;
//! - [`progress`] — the lines on standard error while a match runs;
//! - [`interrupt`] — Ctrl-C.

pub mod client;
pub mod clock;
pub mod human;
pub mod interrupt;
pub mod messages;
pub mod progress;
pub mod record;
pub mod runner;
pub mod seats;

use std::path::PathBuf;
use std::process::ExitCode;

use gdl_runtime::Game;
use gdlc::CheckOptions;
use gdlc::interp::Interpreter;

use messages::{Dialect, Rules};
use progress::{Progress, note};
use runner::{MatchSetup, Outcome};
use seats::{PlayerSpec, Seat};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description.
    pub file: PathBuf,
    /// A player, once per role in role order (roles named `random` excepted): `HOST:PORT`, or
    /// `random`, `mcts` (played in this process) or `human` (you, at this terminal: choose
    /// among the numbered legal moves).
    #[arg(long = "player", required = true)]
    pub players: Vec<String>,
    #[command(flatten)]
    pub clocks: clock::ClockArgs,
    /// Where to write the match record (JSON), after every step.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the moves the manager draws (for the `random` role and substituted moves) and
    /// of the players in this process.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub dialect: DialectArgs,
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// GDL-I or GDL-II messages: nothing in a message says which, so the manager decides.
#[derive(clap::Args, Debug, Clone)]
pub struct DialectArgs {
    /// Send GDL-II messages (PLAY and STOP with the turn, the player's last move and its
    /// percepts) [default: when the rules have `sees`].
    #[arg(long, conflicts_with = "gdl1")]
    pub gdl2: bool,
    /// Send GDL-I messages (PLAY and STOP with the joint move), even when the rules have
    /// `sees`.
    #[arg(long)]
    pub gdl1: bool,
}

impl DialectArgs {
    pub fn dialect(&self, rules: &Rules) -> Dialect {
        if self.gdl2 || (rules.has_sees && !self.gdl1) {
            Dialect::Gdl2
        } else {
            Dialect::Gdl1
        }
    }
}

/// A description ready for matches: its rules as START sends them, and the checked program
/// (an interpreter is made from it for each match).
pub struct Prepared {
    pub stem: String,
    pub rules: Rules,
    pub checked: gdlc::Checked,
    pub limits: gdlc::interp::Limits,
}

impl Prepared {
    /// Reads and checks `file`; problems are reported (exit code 1 or 2).
    pub fn read(file: &std::path::Path, limits: &super::LimitArgs) -> Result<Prepared, ExitCode> {
        let loaded = super::Loaded::read(file)?;
        let checked = gdlc::frontend::load(loaded.source(), &CheckOptions::default())
            .map_err(|errors| loaded.report(&errors))?;
        let prepared = Prepared {
            stem: loaded.stem(),
            rules: Rules::of(&checked.program),
            checked,
            limits: limits.limits(),
        };
        // A description the interpreter refuses is reported once, here.
        prepared
            .interpreter()
            .map_err(|errors| loaded.report(&errors))?;
        Ok(prepared)
    }

    /// An interpreter for one match.
    pub fn interpreter(&self) -> Result<Interpreter, Vec<gdlc::Diagnostic>> {
        Interpreter::from_checked(&self.checked, self.limits)
    }

    /// The roles that players play (all but `random`), by index.
    pub fn played_roles(game: &Interpreter) -> Vec<usize> {
        (0..game.role_count())
            .filter(|&r| !game.is_random_role(r))
            .collect()
    }
}

/// Reads the `--player` arguments: one per role that players play; a remote address at most
/// once. Problems are reported (exit code 2).
pub fn player_specs(
    command: &str,
    players: &[String],
    game: &Interpreter,
) -> Result<Vec<PlayerSpec>, ExitCode> {
    let usage = |text: String| {
        note(&format!("gdlc {command}: {text}"));
        ExitCode::from(super::EXIT_USAGE)
    };
    let played = Prepared::played_roles(game);
    if players.len() != played.len() {
        let names: Vec<&str> = played.iter().map(|&r| game.role_name(r)).collect();
        return Err(usage(format!(
            "{} players given for the {} roles {}",
            players.len(),
            played.len(),
            names.join(", ")
        )));
    }
    let specs: Vec<PlayerSpec> = players
        .iter()
        .map(|p| p.parse())
        .collect::<Result<_, seats::SpecError>>()
        .map_err(|e| usage(e.to_string()))?;
    if let Some(address) = seats::repeated_remote(&specs) {
        return Err(usage(format!(
            "{address} is given twice: a remote player plays one role of one match at a time"
        )));
    }
    Ok(specs)
}

/// The seats of one match: `specs[k]` plays the k-th role that players play; the manager plays
/// `random`.
pub fn seats_for(game: &Interpreter, specs: &[PlayerSpec], seed: u64) -> Vec<Seat> {
    let mut specs = specs.iter();
    (0..game.role_count())
        .map(|r| {
            if game.is_random_role(r) {
                return Seat::manager();
            }
            specs.next().map_or_else(Seat::manager, |spec| {
                spec.seat(seed.wrapping_add(r as u64 + 1))
            })
        })
        .collect()
}

/// A tokio runtime with Ctrl-C caught; problems are reported (exit code 1).
pub fn runtime_with_interrupts(command: &str) -> Result<tokio::runtime::Runtime, ExitCode> {
    let fail = |e: std::io::Error| {
        note(&format!("gdlc {command}: cannot start: {e}"));
        ExitCode::FAILURE
    };
    let runtime = gdl_player::http::runtime().map_err(fail)?;
    interrupt::install(&runtime).map_err(fail)?;
    Ok(runtime)
}

pub fn run(args: Args) -> ExitCode {
    match run_match(args) {
        Ok(code) | Err(code) => code,
    }
}

fn run_match(args: Args) -> Result<ExitCode, ExitCode> {
    let clocks = args.clocks.clocks().map_err(|e| {
        note(&format!("gdlc match: {e}"));
        ExitCode::from(super::EXIT_USAGE)
    })?;
    // A record that cannot be written is found out before the players are started.
    if let Some(dir) = args.out.as_ref().and_then(|o| o.parent()) {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            note(&format!(
                "gdlc match: no directory {} for --out",
                dir.display()
            ));
            return Err(ExitCode::from(super::EXIT_USAGE));
        }
    }
    let prepared = Prepared::read(&args.file, &args.limits)?;
    let game = prepared
        .interpreter()
        .map_err(|_| ExitCode::from(super::EXIT_ERRORS))?;
    let specs = player_specs("match", &args.players, &game)?;
    let runtime = runtime_with_interrupts("match")?;
    let setup = MatchSetup {
        match_id: format!("gdlc.{}.{}", prepared.stem, record::now_ms()),
        rules: &prepared.rules,
        dialect: args.dialect.dialect(&prepared.rules),
        clocks,
        out: args.out.clone(),
        seed: args.seed,
        progress: Progress::Steps,
    };
    let mut seats = seats_for(&game, &specs, args.seed);
    match runner::play_match(&game, &setup, &mut seats, &runtime) {
        Ok(Outcome::Completed(goals)) => {
            let line: Vec<String> = (0..game.role_count())
                .map(|r| format!("{}={}", game.role_name(r), goals[r]))
                .collect();
            Ok(super::finish_out(&format!("goals {}\n", line.join(" "))))
        }
        Ok(Outcome::Aborted { .. }) => {
            if let Some(out) = &args.out {
                note(&format!("the record so far is in {}", out.display()));
            }
            Ok(ExitCode::from(interrupt::EXIT_INTERRUPTED))
        }
        Err(e) => {
            note(&format!("gdlc match: {e}"));
            Ok(match e {
                runner::MatchError::Write { .. } => ExitCode::from(super::EXIT_USAGE),
                _ => ExitCode::FAILURE,
            })
        }
    }
}
