//! The choice of the search's settings for a match by a measurement at the start clock.
//!
//! A [`Candidate`] is a named [`MctsOptions`]; the first of the list is the default. The
//! measurement first times each candidate's search from the initial state (its iterations a
//! second), then plays short games between searches at a small equal time per move, given as
//! an iteration budget per move (the time times the candidate's speed: the games do not
//! depend on the load of the machine, and a search twice as slow gets half the iterations):
//! each other
//! candidate in one seat (the seats taken in turn) against the default in every other seat,
//! the candidates in turn, as many games as fit in the time given (a candidate that has lost
//! [`TuningOptions::drop_after`] games more than it won is measured no more; when none is
//! left, the measurement ends early). A game scores the
//! candidate's goal less the mean goal of the other seats (in -1..1; with one role, the goal,
//! compared with the default's games alone). A candidate is chosen only when its mean score is
//! above the default's by more than [`TuningOptions::confidence`] standard errors after at
//! least [`TuningOptions::min_games`] games; else the default stays. A game still running at
//! the deadline is dropped: the measurement never runs past it.
//!
//! [`auto_playout`] chooses the playouts of [`PlayoutPolicy::Auto`]: checked ones (anti-decisive
//! with up to two roles, decisive with more) when a timed search shows their checks change
//! enough playouts at a bearable cost ([`DecisiveRule`]), else uniform ones; in NST's order
//! when two roles take turns ([`NstRule`]). MAST playouts are not a candidate there: the
//! short games chose them on breakthrough, where they then lost to uniform playouts at a
//! match's clock (BENCHMARKS.md). [`tune`] measures any other list of candidates.

use std::time::{Duration, Instant};

use super::Mcts;
use super::decisive::Counts;
use super::factors::{self, Found};
use crate::time_control::share_of_time;
use crate::{
    Factoring, HeuristicMode, HeuristicOptions, MctsOptions, Player, PlayoutPolicy, scaled_goal,
};
use gdl_runtime::{Game, SplitMix64};

/// A setting measured at the start clock.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub name: String,
    pub options: MctsOptions,
}

/// How the measurement runs.
#[derive(Clone, Debug)]
pub struct TuningOptions {
    /// The share of the time to the deadline the measurement may use (the rest is left to
    /// search the first move).
    pub share: f64,
    /// The games each candidate other than the default should get: the time per move is set
    /// so that about this many fit.
    pub games: u32,
    /// Bounds of the time per move of a measuring game.
    pub min_move_time: Duration,
    pub max_move_time: Duration,
    /// Fewer games than this for a candidate choose nothing.
    pub min_games: u32,
    /// How many standard errors a candidate's mean score must be above the default's.
    pub confidence: f64,
    /// The least variance of a game's score taken for a standard error (a few games all
    /// won have none).
    pub min_variance: f64,
    /// A candidate whose scores sum to this many games lost or less is no longer measured,
    /// leaving the time to the others.
    pub drop_after: f64,
    /// The node budget of each measuring search.
    pub max_nodes: usize,
    /// How long each candidate's search is timed for its speed.
    pub timing: Duration,
    /// The fewest iterations a move of a measuring game gets.
    pub min_iterations: u64,
}

impl Default for TuningOptions {
    fn default() -> Self {
        TuningOptions {
            share: 0.5,
            games: 24,
            min_move_time: Duration::from_millis(1),
            max_move_time: Duration::from_millis(50),
            min_games: 4,
            confidence: 1.5,
            min_variance: 0.25,
            drop_after: 4.0,
            max_nodes: 200_000,
            timing: Duration::from_millis(50),
            min_iterations: 8,
        }
    }
}

/// The result of a measurement.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The options chosen (the default's, unless a candidate was clearly better).
    pub options: MctsOptions,
    /// The candidate's name chosen.
    pub chosen: String,
    /// What was measured, for a log line: each candidate's mean score, its standard error and
    /// its games.
    pub summary: String,
}

/// Per candidate: the scores of its games.
#[derive(Clone, Debug, Default)]
struct Scores {
    sum: f64,
    squares: f64,
    games: u32,
}

impl Scores {
    fn add(&mut self, x: f64) {
        self.sum += x;
        self.squares += x * x;
        self.games += 1;
    }

    fn mean(&self) -> f64 {
        self.sum / f64::from(self.games.max(1))
    }

    /// The variance of the scores (0 below two games).
    fn variance(&self) -> f64 {
        if self.games < 2 {
            return 0.0;
        }
        let n = f64::from(self.games);
        ((self.squares - self.sum * self.sum / n) / (n - 1.0)).max(0.0)
    }
}

/// Measures `candidates` (the first the default) on `game` until `deadline` (its share of
/// the time left), and returns the one chosen. With fewer than two candidates, or no time,
/// the default without a game.
pub fn tune<G: Game>(
    game: &G,
    candidates: &[Candidate],
    tuning: &TuningOptions,
    deadline: Instant,
) -> Tuned {
    let began = Instant::now();
    if candidates.is_empty() {
        return Tuned {
            options: MctsOptions::default(),
            chosen: "default".into(),
            summary: "no candidate".into(),
        };
    }
    let roles = game.role_count();
    // The seats a candidate takes: GDL-II's `random` is drawn uniformly, never searched.
    let seats: Vec<usize> = (0..roles).filter(|&r| !game.is_random_role(r)).collect();
    let until = share_of_time(deadline, tuning.share);
    // One role: the default plays its own games to compare with.
    let measured: Vec<usize> = match roles {
        1 => (0..candidates.len()).collect(),
        _ => (1..candidates.len()).collect(),
    };
    let mut scores = vec![Scores::default(); candidates.len()];
    let mut move_time = Duration::ZERO;
    let mut speeds = Vec::new();
    let mut counts: Vec<Option<Counts>> = Vec::new();
    if candidates.len() >= 2 && !seats.is_empty() {
        let length = super::exploration::mean_length(game, 7, until, 0);
        let timed: Vec<Timing> = candidates
            .iter()
            .map(|c| speed(game, &c.options, tuning, until, None))
            .collect();
        speeds = timed.iter().map(|t| t.speed).collect();
        counts = timed.iter().map(|t| t.counts).collect();
        let games = f64::from(tuning.games.max(1)) * measured.len() as f64;
        move_time = until
            .saturating_duration_since(Instant::now())
            .div_f64(games * length.max(1.0))
            .clamp(tuning.min_move_time, tuning.max_move_time);
        // The candidates still measured, and the next of them to play in this round.
        let mut live = measured.clone();
        let mut turn = 0usize;
        for k in 0u64.. {
            if turn == live.len() {
                turn = 0;
                live.retain(|&c| c == 0 || scores[c].sum > -tuning.drop_after);
                if live.is_empty() {
                    break;
                }
            }
            let c = live[turn];
            turn += 1;
            let seat = seats[scores[c].games as usize % seats.len()];
            let budget =
                |speed: f64| ((move_time.as_secs_f64() * speed) as u64).max(tuning.min_iterations);
            let setup = Match {
                default: &candidates[0].options,
                candidate: &candidates[c].options,
                seat,
                budgets: [budget(speeds[0]), budget(speeds[c])],
                max_nodes: tuning.max_nodes,
                seed: k,
            };
            match play(game, &setup, until) {
                Some(goals) => scores[c].add(score(&goals, seat)),
                None => break,
            }
        }
    }
    let variance = |s: &Scores| s.variance().max(tuning.min_variance) / f64::from(s.games.max(1));
    let baseline = match roles {
        1 => (scores[0].mean(), variance(&scores[0])),
        _ => (0.0, 0.0),
    };
    let mut chosen = 0;
    let mut best = f64::NEG_INFINITY;
    for &c in measured.iter().filter(|&&c| c != 0) {
        let s = &scores[c];
        let margin = s.mean() - baseline.0;
        let error = (variance(s) + baseline.1).sqrt();
        if s.games >= tuning.min_games
            && scores[0].games.max(s.games) >= tuning.min_games
            && margin > tuning.confidence * error
            && margin > best
        {
            best = margin;
            chosen = c;
        }
    }
    let summary = (0..candidates.len())
        .filter(|&i| i == 0 || scores[i].games > 0)
        .map(|i| {
            let (c, s) = (&candidates[i], &scores[i]);
            let error = (s.variance() / f64::from(s.games)).sqrt();
            let found = match counts.get(i).copied().flatten() {
                Some(n) => format!(" ({})", n.describe()),
                None => String::new(),
            };
            format!(
                "{}{} {:+.2}±{:.2}/{} at {:.0}k it/s{found}",
                c.name,
                if i == 0 { " (default)" } else { "" },
                s.mean(),
                error,
                s.games,
                speeds.get(i).copied().unwrap_or(0.0) / 1000.0
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    Tuned {
        options: candidates[chosen].options.clone(),
        chosen: candidates[chosen].name.clone(),
        summary: format!(
            "{} chosen in {:.2} s, {:.1} ms a move ({summary})",
            candidates[chosen].name,
            began.elapsed().as_secs_f64(),
            move_time.as_secs_f64() * 1000.0
        ),
    }
}

/// Playout policies for [`tune`] to measure: uniform (the default), MAST and anti-decisive,
/// with `options`' other settings. ([`PlayoutPolicy::Auto`] does not play measuring games:
/// see the module's documentation.)
pub fn playout_candidates(options: &MctsOptions) -> Vec<Candidate> {
    [
        PlayoutPolicy::Uniform,
        PlayoutPolicy::Mast,
        PlayoutPolicy::AntiDecisive,
    ]
    .into_iter()
    .map(|playout| playout_candidate(options, playout))
    .collect()
}

/// `options` with `playout`, as a candidate measured at the start clock.
fn playout_candidate(options: &MctsOptions, playout: PlayoutPolicy) -> Candidate {
    Candidate {
        name: playout.name().to_string(),
        // The measuring searches run without the evaluation learnt at the start clock (each
        // would learn it again): the playout policies are compared as they are.
        options: MctsOptions {
            playout,
            heuristic: HeuristicOptions {
                mode: HeuristicMode::Off,
                ..options.heuristic
            },
            ..options.clone()
        },
    }
}

/// What the timing of a candidate's search showed: its iterations a second from the initial
/// state, and what its decisive steps found (decisive and anti-decisive playouts).
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub speed: f64,
    counts: Option<Counts>,
}

impl Timing {
    /// The share of playouts with a turn whose move decisive checks changed (`None` without
    /// them, or without a playout).
    pub fn changed(&self) -> Option<f64> {
        self.counts.and_then(|c| c.changed_share())
    }
}

/// When [`auto_playout`] plays checked playouts: anti-decisive ones in a game of at most
/// [`DecisiveRule::max_anti_players`] roles (not counting `random`), decisive ones (the mover
/// takes a win in one, no check of the replies) with more; either when their checks change
/// at least [`DecisiveRule::min_changed`] of the playouts (a playout with a turn where a win was
/// taken, or a move that gave the next mover a win avoided), at a speed of at least
/// [`DecisiveRule::min_speed`] times uniform playouts' (both timed from the initial state).
/// Measured shares: ticTacToe 81%, connectFour 100%, breakthrough 97% (though only 2.9% of its
/// turns), connectFourSimultaneous 100% (in its parts' trees), englishDraughts 2%, reversi 0%;
/// hex 25% to 39% (0.4% to 0.7% of its turns) at 0.1 to 0.12 of uniform playouts' speed, in
/// 50 or so playouts: there a quarter of the playouts chose anti-decisive ones in half the
/// matches, at a tenth of the iterations, and lost (baseline against today's player 18-0-7
/// in the first 25 matches of a run).
/// Short measuring games cannot tell this: at a few milliseconds a move the faster policy wins
/// them (on connectFour uniform playouts win them), where at a match's clock the better
/// playouts do (anti-decisive ones won 17-0-3 at 0.25 s a move on connectFour, 15-0-5 at 0.5 s
/// on breakthrough, 8-1-1 at 2 s on connectFourSimultaneous). Their speed against uniform
/// playouts': connectFour 0.25, breakthrough 0.27, connectFourSimultaneous 0.14 to 0.18, where
/// they pay. Anti-decisive checks look at the next mover only, which with three roles or more
/// leaves the others' wins unchecked, at the cost of the next mover's replies: on
/// 3pConnectFour uniform playouts won 13-0-7 against them at a speed of 0.11 and 14-0-6 at
/// 0.17 (2 s a move), where decisive ones won 75-0-45 against uniform ones (pairs of seats, at
/// 0.25 s a move; BENCHMARKS.md).
#[derive(Clone, Copy, Debug)]
pub struct DecisiveRule {
    pub max_anti_players: usize,
    pub min_changed: f64,
    pub min_speed: f64,
}

impl Default for DecisiveRule {
    fn default() -> Self {
        DecisiveRule {
            max_anti_players: super::MANY_PLAYERS - 1,
            min_changed: 0.5,
            min_speed: 0.1,
        }
    }
}

impl DecisiveRule {
    /// The checked playouts timed in a game of `players` roles (not counting `random`).
    pub fn checked(&self, players: usize) -> PlayoutPolicy {
        if players <= self.max_anti_players {
            PlayoutPolicy::AntiDecisive
        } else {
            PlayoutPolicy::Decisive
        }
    }

    /// Whether checked playouts timed as `checked` pay against uniform ones timed as
    /// `uniform`.
    pub fn pays(&self, uniform: &Timing, checked: &Timing) -> bool {
        checked.changed().is_some_and(|c| c >= self.min_changed)
            && checked.speed >= self.min_speed * uniform.speed
    }
}

/// When [`auto_playout`] orders playouts by NST ([`PlayoutPolicy::Nst`], or
/// [`PlayoutPolicy::AntiDecisiveNst`] where [`DecisiveRule`] chose anti-decisive ones): in a
/// game of [`NstRule::players`] roles (not counting `random`) that take turns, where at most
/// [`NstRule::max_together`] of the steps of the timed anti-decisive search had both roles
/// with a choice. NST's pairs are a move and the reply to it: with both roles moving at once
/// the "move before" is one the other role chose without seeing this one's, and NST lost
/// there (connectFourSimultaneous 14-1-25 at 0.25 s a move against uniform playouts, where
/// it won on breakthrough, reversi and hexPie; BENCHMARKS.md). With one role, it is MAST's
/// own move before; with three roles it did not pay (3pConnectFour: 57-0-63 against uniform
/// playouts at 0.25 s a move, 23-0-17 at a match's clock).
#[derive(Clone, Copy, Debug)]
pub struct NstRule {
    pub players: usize,
    pub max_together: f64,
}

impl Default for NstRule {
    fn default() -> Self {
        NstRule {
            players: 2,
            max_together: 0.01,
        }
    }
}

impl NstRule {
    /// Whether NST orders the playouts in a game of `players` roles (not counting `random`)
    /// whose anti-decisive search was timed as `anti`.
    pub fn pays(&self, players: usize, anti: &Timing) -> bool {
        players == self.players
            && anti
                .counts
                .and_then(|c| c.turn_taking(self.max_together))
                .unwrap_or(false)
    }
}

/// With [`PlayoutPolicy::Auto`] in `options`: the playout policy for the match on `game`,
/// chosen before `deadline`; `None` for another policy. Checked playouts (anti-decisive or
/// decisive) when [`DecisiveRule`] says so; else uniform playouts (the module's documentation
/// says why not MAST); ordered by NST when [`NstRule`] says so. In a game the options let the
/// start clock factor, both are timed in the search of the parts found, as a match plays
/// them.
pub fn auto_playout<G: Game>(
    game: &G,
    options: &MctsOptions,
    tuning: &TuningOptions,
    deadline: Instant,
) -> Option<Tuned> {
    if options.playout != PlayoutPolicy::Auto {
        return None;
    }
    let parts = (options.factoring != Factoring::Off && game.role_count() > 1)
        .then(|| factors::detect_for_play(game, options.seed, deadline))
        .flatten();
    auto_playout_in_parts(game, options, tuning, deadline, parts.as_ref())
}

/// [`auto_playout`] with the parts the start clock found (`None`: one tree over the whole
/// state).
pub(super) fn auto_playout_in_parts<G: Game>(
    game: &G,
    options: &MctsOptions,
    tuning: &TuningOptions,
    deadline: Instant,
    parts: Option<&Found<G>>,
) -> Option<Tuned> {
    if options.playout != PlayoutPolicy::Auto {
        return None;
    }
    let began = Instant::now();
    let uniform = playout_candidate(options, PlayoutPolicy::Uniform);
    let rule = DecisiveRule::default();
    let players = super::players(game);
    let until = share_of_time(deadline, tuning.share);
    // Each gets half the time when it is short.
    let half = share_of_time(until, 0.5);
    let checked_policy = rule.checked(players);
    let checked = playout_candidate(options, checked_policy);
    let uniform_speed = speed(game, &uniform.options, tuning, half, parts);
    let checked_speed = speed(game, &checked.options, tuning, until, parts);
    let figures = format!(
        "{} at {:.0}k it/s, uniform at {:.0}k it/s{}",
        checked.name,
        checked_speed.speed / 1000.0,
        uniform_speed.speed / 1000.0,
        checked_speed
            .counts
            .map_or(String::new(), |c| format!(", {}", c.describe()))
    );
    let nst = NstRule::default().pays(players, &checked_speed);
    let (playout, why) = match (rule.pays(&uniform_speed, &checked_speed), nst) {
        (true, true) if checked_policy == PlayoutPolicy::AntiDecisive => {
            (PlayoutPolicy::AntiDecisiveNst, figures)
        }
        (true, _) => (checked_policy, figures),
        (false, true) => (PlayoutPolicy::Nst, format!("not {figures}")),
        (false, false) => (PlayoutPolicy::Uniform, format!("not {figures}")),
    };
    let chosen = playout_candidate(options, playout);
    Some(Tuned {
        summary: format!(
            "{} chosen in {:.2} s ({why})",
            chosen.name,
            began.elapsed().as_secs_f64()
        ),
        options: chosen.options,
        chosen: chosen.name,
    })
}

/// One measuring game: the candidate's seat and the settings of the searches.
struct Match<'a> {
    default: &'a MctsOptions,
    candidate: &'a MctsOptions,
    seat: usize,
    /// The iterations a move of the default's and of the candidate's searches.
    budgets: [u64; 2],
    max_nodes: usize,
    seed: u64,
}

/// The iterations a second of a search with `options` from the initial state of `game`,
/// timed for [`TuningOptions::timing`] (not past `until`), and what its decisive steps found;
/// a tree per part of `parts`, when given.
fn speed<G: Game>(
    game: &G,
    options: &MctsOptions,
    tuning: &TuningOptions,
    until: Instant,
    parts: Option<&Found<G>>,
) -> Timing {
    let mut p = Mcts::new(MctsOptions {
        max_iterations: None,
        max_nodes: tuning.max_nodes,
        ..options.clone()
    });
    p.start(game, 0, Instant::now());
    if parts.is_some() {
        p.set_factors(game, parts.cloned());
    }
    let began = Instant::now();
    let state = game.initial_state();
    p.choose(game, &state, (began + tuning.timing).min(until));
    let speed = p.stats().iterations as f64 / began.elapsed().as_secs_f64().max(1e-6);
    Timing {
        speed,
        counts: p.decisive_counts(),
    }
}

/// The candidate's score in a game that ended with `goals` (0..1) from `seat`: its goal less
/// the others' mean (its goal with one role).
fn score(goals: &[f64], seat: usize) -> f64 {
    let others: Vec<f64> = (0..goals.len())
        .filter(|&r| r != seat)
        .map(|r| goals[r])
        .collect();
    let mine = goals.get(seat).copied().unwrap_or(0.0);
    match others.len() {
        0 => mine,
        n => mine - others.iter().sum::<f64>() / n as f64,
    }
}

/// Plays one game of `setup` to its end; every role's goal in 0..1, or `None` when `until`
/// came first (or the game went on past 10,000 steps).
fn play<G: Game>(game: &G, setup: &Match, until: Instant) -> Option<Vec<f64>> {
    if Instant::now() >= until {
        return None;
    }
    let roles = game.role_count();
    let mut players: Vec<Mcts<G>> = (0..roles)
        .map(|r| {
            let (options, budget) = if r == setup.seat {
                (setup.candidate, setup.budgets[1])
            } else {
                (setup.default, setup.budgets[0])
            };
            Mcts::new(MctsOptions {
                max_iterations: Some(budget),
                max_nodes: setup.max_nodes,
                seed: setup.seed.wrapping_mul(0x9E37_79B9).wrapping_add(r as u64),
                ..options.clone()
            })
        })
        .collect();
    for (r, p) in players.iter_mut().enumerate() {
        p.start(game, r, Instant::now());
    }
    let mut state = game.initial_state();
    let mut next = state.clone();
    let (mut joint, mut moves) = (Vec::new(), Vec::new());
    let mut rng = SplitMix64::new(setup.seed);
    for _ in 0..10_000 {
        if game.is_terminal(&state) {
            return Some(
                (0..roles)
                    .map(|r| scaled_goal(game.goal(&state, r)))
                    .collect(),
            );
        }
        joint.clear();
        for (r, p) in players.iter_mut().enumerate() {
            game.legal_moves(&state, r, &mut moves);
            let mv = match moves.len() {
                0 => return None,
                1 => moves[0],
                n if game.is_random_role(r) => moves[rng.below(n)],
                _ => {
                    let now = Instant::now();
                    if now >= until {
                        return None;
                    }
                    p.choose(game, &state, until)?
                }
            };
            joint.push(mv);
        }
        game.next_state(&state, &joint, &mut next);
        for p in &mut players {
            p.observe(game, &joint, &next);
        }
        std::mem::swap(&mut state, &mut next);
    }
    None
}

/// What the start clock's measurement of independent parts finds in `game` (with the same
/// options as [`super::Mcts`]), described ("2 factors (96, 96 facts; 64 shared)"); `None` when
/// it finds one part.
pub fn factors<G: Game>(game: &G, seed: u64, deadline: Instant) -> Option<String> {
    super::factors::detect_for_play(game, seed, deadline).map(|f| f.factors.describe())
}

#[cfg(test)]
mod tests {
    use super::{Counts, DecisiveRule, Timing};
    use crate::PlayoutPolicy;

    /// A timing at `speed` iterations a second whose checks changed `changed` of 100
    /// playouts.
    fn timed(speed: f64, changed: u64) -> Timing {
        let counts = Counts {
            playouts: 100,
            changed_playouts: changed,
            ..Counts::default()
        };
        Timing {
            speed,
            counts: Some(counts),
        }
    }

    #[test]
    fn anti_decisive_playouts_pay_where_their_checks_change_most_playouts() {
        let rule = DecisiveRule::default();
        let uniform = Timing {
            speed: 100_000.0,
            counts: None,
        };
        // connectFour, breakthrough, connectFourSimultaneous (as measured).
        assert!(rule.pays(&uniform, &timed(25_000.0, 100)));
        assert!(rule.pays(&uniform, &timed(27_000.0, 97)));
        assert!(rule.pays(&uniform, &timed(14_000.0, 100)));
        // hex: a third of the playouts, at a ninth of the speed.
        assert!(!rule.pays(&uniform, &timed(11_000.0, 39)));
        // englishDraughts; too slow.
        assert!(!rule.pays(&uniform, &timed(30_000.0, 2)));
        assert!(!rule.pays(&uniform, &timed(5_000.0, 100)));
        // No playout timed: no evidence.
        let none = Timing {
            speed: 50_000.0,
            counts: None,
        };
        assert!(!rule.pays(&uniform, &none));
    }

    #[test]
    fn three_roles_or_more_check_the_movers_wins_only() {
        let rule = DecisiveRule::default();
        assert_eq!(rule.checked(1), PlayoutPolicy::AntiDecisive);
        assert_eq!(rule.checked(2), PlayoutPolicy::AntiDecisive);
        assert_eq!(rule.checked(3), PlayoutPolicy::Decisive);
        assert_eq!(rule.checked(6), PlayoutPolicy::Decisive);
    }
}
