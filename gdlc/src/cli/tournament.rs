//! `gdlc tournament`: N matches of one game between the same players, the player list rotated
//! by one role each match (so that with N a multiple of the number of players, every player
//! plays every role equally often), up to `--parallel` matches at once, each match played by
//! the manager's one match function ([`super::manager::runner::play_match`]) and its record
//! written to `--out DIR/<matchId>.json`. At the end, a score table on standard output: per
//! player the matches, wins (the strictly highest goal of the match), draws (a tie for the
//! highest), losses, the mean goal and how often it played each role. The manager's own role
//! `random` is nobody's.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use gdl_runtime::Game;

use super::manager::progress::{Progress, note};
use super::manager::runner::{self, MatchSetup, Outcome};
use super::manager::seats::PlayerSpec;
use super::manager::{self, Prepared, clock, interrupt, record};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description.
    pub file: PathBuf,
    /// A player, once per role in role order (roles named `random` excepted), as for `gdlc
    /// match`: `HOST:PORT`, `random`, `mcts` or `human`. Match k (from 0) rotates the list by
    /// k roles.
    #[arg(long = "player", required = true)]
    pub players: Vec<String>,
    /// How many matches.
    #[arg(long)]
    pub matches: usize,
    /// Matches played at once. A remote player plays one match at a time (it answers `busy` to
    /// a second START), so when a remote player takes part the matches run one after another
    /// whatever this says; a `human` plays one at a time too.
    #[arg(long, default_value_t = 1)]
    pub parallel: usize,
    #[command(flatten)]
    pub clocks: clock::ClockArgs,
    /// A directory for the match records (`<matchId>.json`, each written after every step).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the manager's moves and of the players in this process (match k adds k).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub dialect: manager::DialectArgs,
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// One match's result: which player (index into the list) played each played role, and how
/// it ended.
struct Played {
    order: Vec<usize>,
    outcome: Outcome,
}

/// One player's line of the table.
#[derive(Default, Clone)]
struct Score {
    matches: usize,
    wins: usize,
    draws: usize,
    losses: usize,
    goals: i64,
    /// How often it played each played role.
    roles: Vec<usize>,
}

/// The scores of the completed matches. `played[i]` is the role index of the i-th played role.
fn scores(results: &[Played], players: usize, played: &[usize]) -> Vec<Score> {
    let mut table = vec![
        Score {
            roles: vec![0; played.len()],
            ..Score::default()
        };
        players
    ];
    for p in results {
        let Outcome::Completed(goals) = &p.outcome else {
            continue;
        };
        let mine: Vec<i32> = played.iter().map(|&r| goals[r]).collect();
        let best = mine.iter().copied().max().unwrap_or(0);
        let tied = mine.iter().filter(|&&g| g == best).count();
        for (i, &who) in p.order.iter().enumerate() {
            let s = &mut table[who];
            s.matches += 1;
            s.goals += i64::from(mine[i]);
            s.roles[i] += 1;
            match (mine[i] == best, tied) {
                (true, 1) => s.wins += 1,
                (true, _) => s.draws += 1,
                (false, _) => s.losses += 1,
            }
        }
    }
    table
}

/// The table: a header line, then one line per player (`1:random`, `2:mcts`, ...).
fn table(scores: &[Score], labels: &[String], roles: &[String]) -> String {
    let names: Vec<String> = labels
        .iter()
        .enumerate()
        .map(|(k, l)| format!("{}:{l}", k + 1))
        .collect();
    let width = names.iter().map(String::len).max().unwrap_or(0).max(6);
    let mut out = format!(
        "{:<width$}  {:>7}  {:>4}  {:>5}  {:>6}  {:>9}",
        "player", "matches", "wins", "draws", "losses", "mean-goal"
    );
    for r in roles {
        out.push_str(&format!("  {r:>4}"));
    }
    out.push('\n');
    for (name, s) in names.iter().zip(scores) {
        let mean = if s.matches == 0 {
            0.0
        } else {
            s.goals as f64 / s.matches as f64
        };
        out.push_str(&format!(
            "{name:<width$}  {:>7}  {:>4}  {:>5}  {:>6}  {mean:>9.2}",
            s.matches, s.wins, s.draws, s.losses
        ));
        for (r, count) in roles.iter().zip(&s.roles) {
            out.push_str(&format!("  {count:>w$}", w = r.len().max(4)));
        }
        out.push('\n');
    }
    out
}

pub fn run(args: Args) -> ExitCode {
    match run_tournament(args) {
        Ok(code) | Err(code) => code,
    }
}

fn run_tournament(args: Args) -> Result<ExitCode, ExitCode> {
    let usage = |text: String| {
        note(&format!("gdlc tournament: {text}"));
        ExitCode::from(super::EXIT_USAGE)
    };
    let clocks = args.clocks.clocks().map_err(|e| usage(e.to_string()))?;
    if args.matches == 0 || args.parallel == 0 {
        return Err(usage("--matches and --parallel must be at least 1".into()));
    }
    let prepared = Prepared::read(&args.file, &args.limits)?;
    let game = prepared
        .interpreter()
        .map_err(|_| ExitCode::from(super::EXIT_ERRORS))?;
    let specs = manager::player_specs("tournament", &args.players, &game)?;
    let mut parallel = args.parallel.min(args.matches);
    if parallel > 1 && specs.contains(&PlayerSpec::Human) {
        return Err(usage(
            "a human plays one match at a time: use --parallel 1".into(),
        ));
    }
    if parallel > 1 && specs.iter().any(|s| matches!(s, PlayerSpec::Remote(_))) {
        note(
            "gdlc tournament: a remote player plays one match at a time: the matches run one \
             after another",
        );
        parallel = 1;
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| usage(format!("cannot create {}: {e}", dir.display())))?;
    }
    let runtime = manager::runtime_with_interrupts("tournament")?;
    let played = Prepared::played_roles(&game);
    let roles: Vec<String> = played
        .iter()
        .map(|&r| game.role_name(r).to_string())
        .collect();
    let dialect = args.dialect.dialect(&prepared.rules);
    let stamp = record::now_ms();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Played>> = Mutex::new(Vec::new());
    let failed = Mutex::new(None::<ExitCode>);
    let p = specs.len();

    let play_one = |k: usize| {
        let order: Vec<usize> = (0..p).map(|i| (i + k) % p).collect();
        let rotated: Vec<PlayerSpec> = order.iter().map(|&j| specs[j].clone()).collect();
        let seed = args.seed.wrapping_add(k as u64);
        let match_id = format!("gdlc.{}.{stamp}.{}", prepared.stem, k + 1);
        let setup = MatchSetup {
            out: args
                .out
                .as_ref()
                .map(|d| d.join(format!("{match_id}.json"))),
            match_id,
            rules: &prepared.rules,
            dialect,
            clocks,
            seed,
            progress: if parallel == 1 {
                Progress::Steps
            } else {
                Progress::Quiet
            },
        };
        let outcome = prepared
            .interpreter()
            .map_err(|_| runner::MatchError::Engine("the interpreter refused the game".into()))
            .and_then(|game| {
                let mut seats = manager::seats_for(&game, &rotated, seed);
                runner::play_match(&game, &setup, &mut seats, &runtime)
            });
        match outcome {
            Ok(outcome) => {
                let what = match &outcome {
                    Outcome::Completed(goals) => played
                        .iter()
                        .enumerate()
                        .zip(&order)
                        .map(|((i, &r), &j)| {
                            format!("{} {}:{} {}", roles[i], j + 1, specs[j].label(), goals[r])
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    Outcome::Aborted { steps } => format!("aborted after {steps} steps"),
                };
                note(&format!(
                    "match {}/{} {}: {what}",
                    k + 1,
                    args.matches,
                    setup.match_id
                ));
                if let Ok(mut r) = results.lock() {
                    r.push(Played { order, outcome });
                }
            }
            Err(e) => {
                note(&format!("gdlc tournament: match {}: {e}", setup.match_id));
                if let Ok(mut f) = failed.lock() {
                    *f = Some(match e {
                        runner::MatchError::Write { .. } => ExitCode::from(super::EXIT_USAGE),
                        _ => ExitCode::FAILURE,
                    });
                }
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 0..parallel {
            s.spawn(|| {
                loop {
                    if interrupt::requested() {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    if k >= args.matches {
                        break;
                    }
                    play_one(k);
                }
            });
        }
    });

    let results = results.into_inner().unwrap_or_default();
    let completed = results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Completed(_)))
        .count();
    note(&format!(
        "{completed} of {} matches completed",
        args.matches
    ));
    let labels: Vec<String> = specs.iter().map(|s| s.label().to_string()).collect();
    let text = table(&scores(&results, p, &played), &labels, &roles);
    let shown = super::finish_out(&text);
    if interrupt::requested() {
        return Ok(ExitCode::from(interrupt::EXIT_INTERRUPTED));
    }
    Ok(failed.into_inner().ok().flatten().unwrap_or(shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wins_draws_and_losses_count_the_highest_goal() {
        let results = [
            Played {
                order: vec![0, 1],
                outcome: Outcome::Completed(vec![100, 0]),
            },
            Played {
                order: vec![1, 0],
                outcome: Outcome::Completed(vec![50, 50]),
            },
            Played {
                order: vec![0, 1],
                outcome: Outcome::Aborted { steps: 3 },
            },
        ];
        let s = scores(&results, 2, &[0, 1]);
        assert_eq!(
            (s[0].matches, s[0].wins, s[0].draws, s[0].losses),
            (2, 1, 1, 0)
        );
        assert_eq!(
            (s[1].matches, s[1].wins, s[1].draws, s[1].losses),
            (2, 0, 1, 1)
        );
        assert_eq!(s[0].goals, 150);
        assert_eq!(s[1].roles, vec![1, 1]);
        let t = table(
            &s,
            &["random".into(), "mcts".into()],
            &["x".into(), "o".into()],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            ["1:random", "2", "1", "1", "0", "75.00", "1", "1"]
        );
    }
}
