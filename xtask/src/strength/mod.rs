//! `cargo xtask strength`: two player variants against each other at equal time per move on a
//! set of corpus games, with real HTTP players and `gdlc tournament`; the "Strength" section of
//! BENCHMARKS.md.
//!
//! A variant is a name and the extra flags of its player's command line (`--variant
//! base="--search baseline"`), passed through unread: each seat is a `gdlc play GAME --port P
//! --threads 1 COMMON FLAGS` process (`players.rs`), pinned to a core with `taskset` when it
//! can be (when a match has more roles than the machine has cores, its players share all the
//! cores equally instead). Every game's player is built (through the build cache) before any
//! match is played. Two-role games: one tournament of N matches, the seats rotated each match. Three roles or
//! more: the seats alternate between the variants (A B A, then B A B for the second half of
//! the matches), and each match counts every seat of A against every seat of B. One role (a
//! puzzle): each variant plays N matches alone, alternating, and the score reached is
//! compared. The records of `--out` (`records.rs`) give the goals and the errors; `stats.rs`
//! the score, its interval and the Elo difference; `report.rs` the Markdown.

mod players;
mod records;
mod report;
mod stats;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gdl_runtime::Game;
use gdl_tests::{CorpusGame, try_corpus_games};

use crate::common;
use players::{Launch, Pinning, Player};
use records::{Errors, MatchResult};
use stats::{Mean, Pairwise, Score};

/// The default games and what kind of game each stands for.
pub const DEFAULT_GAMES: &[(&str, &str)] = &[
    ("connectFour", "connection"),
    ("breakthrough", "race"),
    ("englishDraughts", "capture"),
    ("reversi", "board filling"),
    ("hex", "connection, board filling"),
    ("connectFourSimultaneous", "simultaneous moves"),
    ("3pConnectFour", "three roles"),
    ("eightPuzzle", "single-player puzzle"),
];

/// The default number of matches per game.
pub const DEFAULT_MATCHES: usize = 20;

/// The arguments of `cargo xtask strength`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A player variant, `NAME=FLAGS`: the name in the report and the extra flags of its
    /// `gdlc play` command line (split at spaces, passed through as they are). Exactly two;
    /// the first is A, whose score against B is reported. [default: `baseline=--search
    /// baseline` and `current=`]
    #[arg(long = "variant", value_name = "NAME=FLAGS")]
    pub variants: Vec<String>,
    /// Flags given to every variant's player, before the variant's own (split at spaces).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub common: String,
    /// Comma-separated games, each a name (the ggp-repository's when both collections have
    /// it) or `collection/name` [default: connectFour, breakthrough, englishDraughts, reversi,
    /// hex, connectFourSimultaneous, 3pConnectFour, eightPuzzle]. Exact names: a substring
    /// would take in every variant of a game (connectFourSimultaneous for connectFour).
    #[arg(long, value_name = "NAMES")]
    pub games: Option<String>,
    /// Matches per game (per variant for single-player games).
    #[arg(long, default_value_t = DEFAULT_MATCHES)]
    pub matches: usize,
    /// Seconds for START.
    #[arg(long, default_value_t = 10.0)]
    pub startclock: f64,
    /// Seconds per move.
    #[arg(long, default_value_t = 2.0)]
    pub playclock: f64,
    /// Write (or replace) the "Strength" section of this Markdown file (it is printed anyway).
    #[arg(long, value_name = "BENCHMARKS.md")]
    pub out: Option<PathBuf>,
    /// The gdlc command [default: built with `cargo build --release -p gdlc`, from the target
    /// directory].
    #[arg(long)]
    pub gdlc: Option<PathBuf>,
    /// Seconds a player may take to listen the first time (its build included).
    #[arg(long, default_value_t = 1800)]
    pub build_timeout: u64,
    /// The directory of the match records and the players' logs (default:
    /// `target/gdlc-scratch/strength/<time>`).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// A player variant: its name and the extra flags of its command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    pub flags: Vec<String>,
}

/// Reads `NAME=FLAGS`.
pub fn parse_variant(text: &str) -> Result<Variant, String> {
    let (name, flags) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: a variant is NAME=FLAGS"))?;
    let name = name.trim();
    if name.is_empty() || name.contains(['|', '`']) || name.chars().any(char::is_whitespace) {
        return Err(format!(
            "`{text}`: a variant's name is one word without `|` or backquotes"
        ));
    }
    Ok(Variant {
        name: name.to_string(),
        flags: flags.split_whitespace().map(str::to_string).collect(),
    })
}

/// The two variants of the command line, or the defaults.
pub fn variants_of(args: &[String]) -> Result<[Variant; 2], String> {
    let texts: Vec<&str> = if args.is_empty() {
        vec!["baseline=--search baseline", "current="]
    } else {
        args.iter().map(String::as_str).collect()
    };
    let v = texts
        .iter()
        .map(|t| parse_variant(t))
        .collect::<Result<Vec<_>, _>>()?;
    match <[Variant; 2]>::try_from(v) {
        Ok([a, b]) if a.name == b.name => Err(format!("two variants named `{}`", a.name)),
        Ok(pair) => Ok(pair),
        Err(v) => Err(format!("{} variants: give exactly two", v.len())),
    }
}

/// A game to play: its description and its roles (the manager's `random` left out).
struct Setup {
    game: CorpusGame,
    kind: String,
    roles: usize,
}

/// What the matches of one game gave.
pub struct GameResult {
    pub name: String,
    pub kind: String,
    pub roles: usize,
    pub seconds: f64,
    /// How the players were placed.
    pub pinning: String,
    pub outcome: Result<Outcome, String>,
}

/// The figures of one game.
pub enum Outcome {
    /// Two roles or more: A against B.
    Versus {
        /// Pairwise wins, draws and losses of A's seats against B's, summed over the matches.
        total: Pairwise,
        /// Each completed match's score for A.
        scores: Vec<f64>,
        /// Per variant, the mean goal of its seats.
        goals: [Option<Mean>; 2],
        errors: [Errors; 2],
        /// Matches that did not complete (aborted).
        incomplete: usize,
        /// Two roles: A's pairwise outcomes in the matches where it played the first role,
        /// then the second (where a seat wins whoever plays it, these show it).
        by_seat: Option<[Pairwise; 2]>,
    },
    /// One role: the score each variant reached.
    Solo {
        goals: [Option<Mean>; 2],
        errors: [Errors; 2],
        incomplete: usize,
    },
}

pub fn run(args: Args) -> ExitCode {
    match strength(&args) {
        Ok(Played::All) => ExitCode::SUCCESS,
        Ok(Played::SomeFailed) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("cargo xtask strength: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Whether every game was played (the section is written either way).
enum Played {
    All,
    SomeFailed,
}

fn strength(args: &Args) -> Result<Played, String> {
    let started = Instant::now();
    let commit = report::commit();
    let variants = variants_of(&args.variants)?;
    let common: Vec<String> = args.common.split_whitespace().map(str::to_string).collect();
    if args.matches == 0 {
        return Err("--matches must be at least 1".into());
    }
    if !(args.startclock >= 1.0 && args.playclock > 0.0 && args.playclock.is_finite()) {
        return Err("--startclock must be >= 1 and --playclock > 0 seconds".into());
    }
    let setups = setups(args.games.as_deref())?;
    let gdlc = match &args.gdlc {
        Some(g) => g.clone(),
        None => build_gdlc()?,
    };
    let dir = args.dir.clone().unwrap_or_else(|| {
        common::target_dir()
            .join("gdlc-scratch/strength")
            .join(gdlc_stamp())
    });
    let pinning = Pinning::detect();
    let load_before = common::load_average();
    eprintln!(
        "[strength] {} games, {} matches each, clocks {} s / {} s; records in {}",
        setups.len(),
        args.matches,
        args.startclock,
        args.playclock,
        dir.display()
    );

    // Every game's player built (and started once) before any match.
    let build_start = Instant::now();
    let mut built: HashMap<String, Result<(), String>> = HashMap::new();
    for s in &setups {
        let logs = dir.join(&s.game.name).join("logs");
        let r = std::fs::create_dir_all(&logs)
            .map_err(|e| format!("cannot create {}: {e}", logs.display()))
            .and_then(|()| {
                let launch = Launch {
                    gdlc: &gdlc,
                    kif: &s.game.kif,
                    common: &common,
                    logs: &logs,
                    ready_timeout: Duration::from_secs(args.build_timeout),
                };
                for (k, v) in variants.iter().enumerate() {
                    let t = Instant::now();
                    drop(players::start(
                        &launch,
                        v,
                        k,
                        None,
                        &format!("build-{}", v.name),
                    )?);
                    eprintln!(
                        "[strength] {}: player `{}` ready ({:.1} s)",
                        s.game.name,
                        v.name,
                        t.elapsed().as_secs_f64()
                    );
                }
                Ok(())
            });
        if let Err(e) = &r {
            eprintln!("[strength] {}: {e}", s.game.name);
        }
        built.insert(s.game.name.clone(), r);
    }
    let build_seconds = build_start.elapsed().as_secs_f64();

    let play_start = Instant::now();
    let mut results = Vec::new();
    for s in &setups {
        if INTERRUPTED.load(Ordering::SeqCst) {
            eprintln!("[strength] interrupted: the games left are not played");
            break;
        }
        let t = Instant::now();
        let outcome = match &built[&s.game.name] {
            Err(e) => Err(e.clone()),
            Ok(()) => play_game(s, &variants, &common, &gdlc, &dir, &pinning, args),
        };
        let result = GameResult {
            name: s.game.name.clone(),
            kind: s.kind.clone(),
            roles: s.roles,
            seconds: t.elapsed().as_secs_f64(),
            pinning: pinning.describe(s.roles),
            outcome,
        };
        eprintln!("[strength] {}", report::summary_line(&result, &variants));
        results.push(result);
    }
    let run = report::Run {
        variants: &variants,
        common: &common,
        args,
        commit,
        load_before,
        load_after: common::load_average(),
        build_seconds,
        play_seconds: play_start.elapsed().as_secs_f64(),
        total_seconds: started.elapsed().as_secs_f64(),
    };
    let section = report::section(&results, &run);
    print!("{section}");
    if let Some(path) = &args.out {
        let old = std::fs::read_to_string(path).unwrap_or_default();
        std::fs::write(path, report::replace_section(&old, &section))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!(
            "[strength] wrote the Strength section of {}",
            path.display()
        );
    }
    let interrupted = INTERRUPTED.load(Ordering::SeqCst);
    Ok(
        match !interrupted && results.iter().all(|r| r.outcome.is_ok()) {
            true => Played::All,
            false => Played::SomeFailed,
        },
    )
}

/// A name for this run's directory: seconds since the epoch.
fn gdlc_stamp() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        .to_string()
}

/// `cargo build --release -p gdlc --bin gdlc`; the binary's path.
fn build_gdlc() -> Result<PathBuf, String> {
    eprintln!("[strength] cargo build --release -p gdlc --bin gdlc");
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--release", "-p", "gdlc", "--bin", "gdlc"])
        .current_dir(common::repo_root())
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build -p gdlc: {status}"));
    }
    Ok(common::target_dir().join("release").join("gdlc"))
}

/// The games of `--games` (or the defaults), with their kinds and roles.
fn setups(games: Option<&str>) -> Result<Vec<Setup>, String> {
    let all = try_corpus_games().map_err(|e| e.0)?;
    let names: Vec<(String, String)> = match games {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| {
                // `collection/name` or a name.
                let bare = n.rsplit_once('/').map_or(n, |(_, name)| name);
                let kind = DEFAULT_GAMES
                    .iter()
                    .find(|(g, _)| *g == bare)
                    .map_or("", |(_, k)| k);
                (n.to_string(), kind.to_string())
            })
            .collect(),
        None => DEFAULT_GAMES
            .iter()
            .map(|(g, k)| (g.to_string(), k.to_string()))
            .collect(),
    };
    if names.is_empty() {
        return Err("--games names no game".into());
    }
    names
        .into_iter()
        .map(|(name, kind)| {
            // The collection's if named, else the ggp-repository's when both have it.
            let (collection, bare) = match name.rsplit_once('/') {
                Some((c, n)) => (Some(c), n),
                None => (None, name.as_str()),
            };
            let mut found: Vec<&CorpusGame> = all
                .iter()
                .filter(|g| g.name == bare && collection.is_none_or(|c| g.collection == c))
                .collect();
            found.sort_by_key(|g| g.collection != "ggp-repository");
            let game = found
                .first()
                .map(|g| (*g).clone())
                .ok_or_else(|| format!("no game `{name}` in the corpus"))?;
            let roles = played_roles(&game.kif)?;
            let kind = match (kind.is_empty(), roles) {
                (false, _) => kind,
                (true, 1) => "single-player puzzle".into(),
                (true, r) => format!("{r} roles"),
            };
            Ok(Setup { game, kind, roles })
        })
        .collect()
}

/// The roles of a game a player plays (all but one named `random`).
fn played_roles(kif: &Path) -> Result<usize, String> {
    let source = std::fs::read(kif).map_err(|e| format!("cannot read {}: {e}", kif.display()))?;
    let game = gdlc::interp::Interpreter::from_source(
        &*String::from_utf8_lossy(&source),
        &gdlc::CheckOptions::default(),
    )
    .map_err(|errors| {
        format!(
            "{}: {}",
            kif.display(),
            errors.first().map_or("", |d| d.message.as_str())
        )
    })?;
    let roles = (0..game.role_count())
        .filter(|&r| game.role_name(r) != "random")
        .count();
    if roles == 0 {
        return Err(format!("{}: no role to play", kif.display()));
    }
    Ok(roles)
}

/// The exit status of an interrupted `gdlc tournament` (128 + SIGINT).
const EXIT_INTERRUPTED: i32 = 130;

/// Set when a tournament was interrupted (Ctrl-C while this process ignores it, as a
/// background job does): no further game is played.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// One tournament: its players (addresses, in seat order), matches and seed.
struct Tournament {
    seats: Vec<String>,
    matches: usize,
    seed: u64,
}

/// The tournaments of a game with `roles` roles between the players `a` and `b` (each a list
/// of addresses): the seats alternate A B A ... in the first half of the matches and B A B ...
/// in the second (one tournament with two roles, whose rotation already swaps the seats); with
/// one role, one match of each variant in turn.
fn tournaments(roles: usize, matches: usize, a: &[String], b: &[String]) -> Vec<Tournament> {
    let seats = |first: &[String], second: &[String]| -> Vec<String> {
        (0..roles)
            .map(|i| match i % 2 {
                0 => first[i / 2].clone(),
                _ => second[i / 2].clone(),
            })
            .collect()
    };
    match roles {
        1 => (0..matches)
            .flat_map(|k| {
                [a, b].map(|p| Tournament {
                    seats: vec![p[0].clone()],
                    matches: 1,
                    seed: 1 + k as u64,
                })
            })
            .collect(),
        2 => vec![Tournament {
            seats: seats(a, b),
            matches,
            seed: 1,
        }],
        _ => {
            let first = matches.div_ceil(2);
            let mut t = vec![Tournament {
                seats: seats(a, b),
                matches: first,
                seed: 1,
            }];
            if matches > first {
                t.push(Tournament {
                    seats: seats(b, a),
                    matches: matches - first,
                    seed: 1 + first as u64,
                });
            }
            t
        }
    }
}

/// Plays one game's matches and reads their records.
fn play_game(
    s: &Setup,
    variants: &[Variant; 2],
    common: &[String],
    gdlc: &Path,
    dir: &Path,
    pinning: &Pinning,
    args: &Args,
) -> Result<Outcome, String> {
    let game_dir = dir.join(&s.game.name);
    let logs = game_dir.join("logs");
    let records = game_dir.join("records");
    std::fs::create_dir_all(&records)
        .map_err(|e| format!("cannot create {}: {e}", records.display()))?;
    let launch = Launch {
        gdlc,
        kif: &s.game.kif,
        common,
        logs: &logs,
        ready_timeout: Duration::from_secs(120),
    };
    // Instances per variant; started A, B, A, B ... so that A and B alternate over the cores.
    let per_variant = s.roles.div_ceil(2);
    let mut running: Vec<Player> = Vec::new();
    for i in 0..per_variant {
        for (k, v) in variants.iter().enumerate() {
            let cores = pinning.cores(running.len(), s.roles);
            running.push(players::start(
                &launch,
                v,
                k,
                cores,
                &format!("{}-{i}", v.name),
            )?);
        }
    }
    let addresses = |k: usize| -> Vec<String> {
        running
            .iter()
            .filter(|p| p.variant == k)
            .map(Player::address)
            .collect()
    };
    let variant_of: HashMap<String, usize> =
        running.iter().map(|p| (p.address(), p.variant)).collect();
    let log = logs.join("tournament.log");
    let list = tournaments(s.roles, args.matches, &addresses(0), &addresses(1));
    eprintln!(
        "[strength] {}: {} matches ({} role{}), {}",
        s.game.name,
        args.matches * if s.roles == 1 { 2 } else { 1 },
        s.roles,
        if s.roles == 1 { "" } else { "s" },
        pinning.describe(s.roles)
    );
    let mut failures = Vec::new();
    for t in &list {
        if let Err(e) = tournament(gdlc, &s.game.kif, t, args, &records, &log) {
            failures.push(e);
        }
        if INTERRUPTED.load(Ordering::SeqCst) {
            break;
        }
    }
    drop(running);
    let results = records::read_dir(&records, &variant_of, 2)?;
    if results.is_empty() {
        return Err(failures
            .first()
            .cloned()
            .unwrap_or_else(|| "no match records".into()));
    }
    Ok(outcome(s.roles, &results))
}

/// Runs `gdlc tournament` for `t`, its output appended to `log`.
fn tournament(
    gdlc: &Path,
    kif: &Path,
    t: &Tournament,
    args: &Args,
    records: &Path,
    log: &Path,
) -> Result<(), String> {
    let mut cmd = Command::new(gdlc);
    cmd.arg("tournament").arg(kif);
    for p in &t.seats {
        cmd.arg("--player").arg(p);
    }
    cmd.args([
        "--matches".to_string(),
        t.matches.to_string(),
        "--startclock".into(),
        args.startclock.to_string(),
        "--playclock".into(),
        args.playclock.to_string(),
        "--seed".into(),
        t.seed.to_string(),
    ])
    .arg("--out")
    .arg(records);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err))
        .status()
        .map_err(|e| format!("cannot run {}: {e}", gdlc.display()))?;
    if status.code() == Some(EXIT_INTERRUPTED) {
        INTERRUPTED.store(true, Ordering::SeqCst);
    }
    if status.success() {
        Ok(())
    } else {
        Err(format!("gdlc tournament: {status} (see {})", log.display()))
    }
}

/// The figures of a game's match results.
fn outcome(roles: usize, results: &[MatchResult]) -> Outcome {
    let mut errors = [Errors::default(); 2];
    for r in results {
        for (k, e) in r.errors.iter().enumerate().take(2) {
            errors[k].add(*e);
        }
    }
    let incomplete = results.iter().filter(|r| !r.completed).count();
    let completed: Vec<&MatchResult> = results.iter().filter(|r| r.completed).collect();
    let goals = [0, 1].map(|k| {
        let values: Vec<f64> = completed
            .iter()
            .flat_map(|r| r.goals[k].iter().map(|&g| g as f64))
            .collect();
        Mean::of(&values)
    });
    if roles == 1 {
        return Outcome::Solo {
            goals,
            errors,
            incomplete,
        };
    }
    let mut total = Pairwise::default();
    let mut scores = Vec::new();
    let mut by_seat = [Pairwise::default(); 2];
    for r in &completed {
        let p = Pairwise::of(&r.goals[0], &r.goals[1]);
        total.add(p);
        scores.extend(p.score());
        if let Some(k) = r.first {
            by_seat[k.min(1)].add(p);
        }
    }
    Outcome::Versus {
        total,
        scores,
        goals,
        errors,
        incomplete,
        by_seat: (roles == 2).then_some(by_seat),
    }
}

/// The score of A over every two-or-more-role game's completed matches.
pub fn overall(results: &[GameResult]) -> Option<(Pairwise, Score)> {
    let mut total = Pairwise::default();
    let mut scores = Vec::new();
    for r in results {
        if let Ok(Outcome::Versus {
            total: t,
            scores: s,
            ..
        }) = &r.outcome
        {
            total.add(*t);
            scores.extend(s);
        }
    }
    Score::of(&scores).map(|s| (total, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game is named alone (the ggp-repository's) or with its collection; names are exact.
    #[test]
    fn games_are_named_alone_or_with_their_collection() {
        let picked = setups(Some("connectFour, ggp-base-tests/connectFour")).expect("the corpus");
        let seen: Vec<(&str, &str, &str)> = picked
            .iter()
            .map(|s| {
                (
                    s.game.collection.as_str(),
                    s.game.name.as_str(),
                    s.kind.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("ggp-repository", "connectFour", "connection"),
                ("ggp-base-tests", "connectFour", "connection")
            ]
        );
        assert!(setups(Some("nowhere/connectFour")).is_err());
        assert!(setups(Some("connectFou")).is_err());
    }

    #[test]
    fn variants_are_read_from_name_equals_flags() {
        assert_eq!(
            parse_variant("base=--search baseline  --max-nodes 5").unwrap(),
            Variant {
                name: "base".into(),
                flags: vec![
                    "--search".into(),
                    "baseline".into(),
                    "--max-nodes".into(),
                    "5".into()
                ]
            }
        );
        assert_eq!(parse_variant("new=").unwrap().flags, Vec::<String>::new());
        // The flags may hold `=` themselves.
        assert_eq!(
            parse_variant("x=--exploration=0.7").unwrap().flags,
            ["--exploration=0.7"]
        );
        assert!(parse_variant("noequals").is_err());
        assert!(parse_variant("=--flag").is_err());
        assert!(parse_variant("two words=").is_err());
        assert!(parse_variant("a|b=").is_err());
    }

    #[test]
    fn exactly_two_variants_with_distinct_names() {
        let [a, b] = variants_of(&[]).unwrap();
        assert_eq!((a.name.as_str(), b.name.as_str()), ("baseline", "current"));
        assert_eq!(a.flags, ["--search", "baseline"]);
        assert!(b.flags.is_empty());
        assert!(variants_of(&["a=".into()]).is_err());
        assert!(variants_of(&["a=".into(), "b=".into(), "c=".into()]).is_err());
        assert!(variants_of(&["a=".into(), "a=--x".into()]).is_err());
        assert!(variants_of(&["a=".into(), "b=--x 1".into()]).is_ok());
    }

    #[test]
    fn seats_alternate_between_the_variants() {
        let a = vec!["a0".to_string(), "a1".to_string()];
        let b = vec!["b0".to_string(), "b1".to_string()];
        let t = tournaments(2, 20, &a, &b);
        assert_eq!(t.len(), 1);
        assert_eq!(
            (t[0].seats.clone(), t[0].matches),
            (vec!["a0".into(), "b0".into()], 20)
        );
        let t = tournaments(3, 5, &a, &b);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].seats, ["a0", "b0", "a1"]);
        assert_eq!(t[1].seats, ["b0", "a0", "b1"]);
        assert_eq!((t[0].matches, t[1].matches), (3, 2));
        assert_eq!(t[1].seed, 4);
        let t = tournaments(3, 1, &a, &b);
        assert_eq!(t.len(), 1, "one match: no second half");
        let t = tournaments(1, 2, &a, &b);
        let seats: Vec<&str> = t.iter().map(|t| t.seats[0].as_str()).collect();
        assert_eq!(seats, ["a0", "b0", "a0", "b0"]);
        assert!(t.iter().all(|t| t.matches == 1));
    }

    #[test]
    fn outcomes_count_pairs_and_skip_incomplete_matches() {
        let m = |a: Vec<i64>, b: Vec<i64>, completed: bool, first: usize| MatchResult {
            goals: vec![a, b],
            completed,
            first: Some(first),
            errors: vec![
                Errors {
                    timeouts: 1,
                    ..Errors::default()
                },
                Errors::default(),
            ],
        };
        let results = [
            m(vec![100], vec![0], true, 0),
            m(vec![50], vec![50], true, 1),
            m(vec![0], vec![100], true, 0),
            m(vec![], vec![], false, 1),
        ];
        let Outcome::Versus {
            total,
            scores,
            goals,
            errors,
            incomplete,
            by_seat,
        } = outcome(2, &results)
        else {
            panic!("two roles: A against B");
        };
        assert_eq!((total.wins, total.draws, total.losses), (1, 1, 1));
        assert_eq!(scores, [1.0, 0.5, 0.0]);
        assert_eq!(goals[0].map(|g| g.mean), Some(50.0));
        assert_eq!(errors[0].timeouts, 4);
        assert_eq!(incomplete, 1);
        let [first, second] = by_seat.expect("two roles: by seat");
        assert_eq!((first.wins, first.draws, first.losses), (1, 0, 1));
        assert_eq!((second.wins, second.draws, second.losses), (0, 1, 0));
        let Outcome::Versus { by_seat, .. } = outcome(3, &results) else {
            panic!("three roles: A against B");
        };
        assert_eq!(by_seat, None, "seats are told apart in two-role games only");
        let solo = [m(vec![100], vec![], true, 0), m(vec![], vec![40], true, 1)];
        let Outcome::Solo { goals, .. } = outcome(1, &solo) else {
            panic!("one role: alone");
        };
        assert_eq!(goals[0].map(|g| g.mean), Some(100.0));
        assert_eq!(goals[1].map(|g| g.mean), Some(40.0));
    }
}
