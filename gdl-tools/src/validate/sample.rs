//! Random playouts, for games too large to explore: each state of a playout checked as the
//! breadth-first search checks it, the shortest playout prefix that shows each finding kept.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::checks::{Declarations, NO_MOVE, goal_detail, goal_finding, goal_of};
use super::{Finding, JointText, Kind, Phase, Progress, ValidateOptions};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// How long sampling may go on.
pub(super) struct Budget<'a> {
    pub deadline: Instant,
    /// Set when the validation is cancelled: the playouts stop as at the deadline.
    pub cancel: &'a AtomicBool,
    pub start: Instant,
    /// States the breadth-first search reached before (for the progress line).
    pub states_before: u64,
}

/// What the playouts found.
pub(super) struct Outcome {
    pub playouts: u64,
    pub states: u64,
    pub longest: u64,
    /// Per role: some playout ended with 100 for it.
    pub wins: Vec<bool>,
    pub fault: Option<String>,
    pub findings: Vec<Finding>,
}

impl Outcome {
    fn new(roles: usize) -> Self {
        Outcome {
            playouts: 0,
            states: 0,
            longest: 0,
            wins: vec![false; roles],
            fault: None,
            findings: Vec::new(),
        }
    }

    /// Adds `other` (another thread's) to this one.
    fn merge(&mut self, other: Outcome) {
        self.playouts += other.playouts;
        self.states += other.states;
        self.longest = self.longest.max(other.longest);
        for (w, o) in self.wins.iter_mut().zip(other.wins) {
            *w |= o;
        }
        self.fault = self.fault.take().or(other.fault);
        for f in other.findings {
            let len = f.path.len();
            self.add(f.kind, f.role, f.count, len, || (f.detail, f.path));
        }
    }

    /// Counts a finding; keeps its shortest path (`shown` is asked only for a path of
    /// `len` steps shorter than the one kept).
    fn add(
        &mut self,
        kind: Kind,
        role: Option<RoleIndex>,
        count: u64,
        len: usize,
        shown: impl FnOnce() -> (String, Vec<JointText>),
    ) {
        match self
            .findings
            .iter_mut()
            .find(|f| f.kind == kind && f.role == role)
        {
            Some(f) => {
                f.count += count;
                if len < f.path.len() {
                    (f.detail, f.path) = shown();
                }
            }
            None => {
                let (detail, path) = shown();
                self.findings.push(Finding {
                    kind,
                    role,
                    detail,
                    path,
                    cycle: Vec::new(),
                    count,
                });
            }
        }
    }
}

/// Samples on one thread, telling progress.
pub(super) fn sample<G: Game>(
    game: &G,
    options: &ValidateOptions,
    seed: u64,
    budget: &Budget,
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let mut last = Instant::now();
    let mut tick = |playouts: u64, states: u64| {
        if last.elapsed() >= Duration::from_millis(100) {
            last = Instant::now();
            progress(&sampling(budget, playouts, states));
        }
    };
    playouts(game, options, seed, budget, None, &mut tick)
}

fn sampling(budget: &Budget, playouts: u64, states: u64) -> Progress {
    Progress {
        phase: Phase::Sampling,
        states: budget.states_before,
        depth: 0,
        playouts,
        sampled_states: states,
        elapsed: budget.start.elapsed(),
    }
}

/// Samples on [`ValidateOptions::threads`] threads (thread `t` with seed `seed + t`); this
/// thread tells progress.
pub(super) fn sample_threads<G: Game + Sync>(
    game: &G,
    options: &ValidateOptions,
    budget: &Budget,
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let threads = options.threads.max(1);
    if threads == 1 {
        return sample(game, options, options.seed, budget, progress);
    }
    let counters = Counters::default();
    let mut total = Outcome::new(game.role_count());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let counters = &counters;
                scope.spawn(move || {
                    let seed = options.seed.wrapping_add(t as u64);
                    let mut tick = |_: u64, _: u64| {};
                    playouts(game, options, seed, budget, Some(counters), &mut tick)
                })
            })
            .collect();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(50));
            let (p, s) = counters.read();
            progress(&sampling(budget, p, s));
        }
        for h in handles {
            match h.join() {
                Ok(o) => total.merge(o),
                Err(_) => total.fault = Some("a sampling thread panicked".to_string()),
            }
        }
    });
    total
}

/// Playouts and states of all threads so far, and a flag that stops them all.
#[derive(Default)]
struct Counters {
    playouts: AtomicU64,
    states: AtomicU64,
    stop: AtomicBool,
}

impl Counters {
    fn read(&self) -> (u64, u64) {
        (
            self.playouts.load(Ordering::Relaxed),
            self.states.load(Ordering::Relaxed),
        )
    }
}

/// Plays random playouts until the budget's deadline or cancellation (or another thread's
/// fault).
fn playouts<G: Game>(
    game: &G,
    options: &ValidateOptions,
    seed: u64,
    budget: &Budget<'_>,
    shared: Option<&Counters>,
    tick: &mut dyn FnMut(u64, u64),
) -> Outcome {
    let n = game.role_count();
    let mut out = Outcome::new(n);
    let mut rng = SplitMix64::new(seed);
    let init = game.initial_state();
    let (mut state, mut next) = (init.clone(), init.clone());
    let mut legal: Vec<Vec<G::Move>> = vec![Vec::new(); n];
    let mut moves: Vec<G::Move> = Vec::new();
    let mut values = Vec::new();
    let mut declarations = Declarations::of(game);
    let path = |moves: &[G::Move]| -> Vec<JointText> {
        moves
            .chunks(n.max(1))
            .map(|j| {
                j.iter()
                    .enumerate()
                    .map(|(r, &m)| game.move_text(r, m))
                    .collect()
            })
            .collect()
    };
    let stopped = || {
        Instant::now() >= budget.deadline
            || budget.cancel.load(Ordering::Relaxed)
            || shared.is_some_and(|c| c.stop.load(Ordering::Relaxed))
    };
    while !stopped() {
        state.clone_from(&init);
        moves.clear();
        let mut steps = 0u64;
        loop {
            let terminal = game.is_terminal(&state);
            for r in 0..n {
                game.goal_values(&state, r, &mut values);
                if let Some(kind) = goal_finding(terminal, &values) {
                    let len = moves.len() / n.max(1);
                    let shown = || (goal_detail(terminal, &values), path(&moves));
                    out.add(kind, Some(r), 1, len, shown);
                }
                out.wins[r] |= terminal && goal_of(&values) == 100;
            }
            if terminal {
                let len = moves.len() / n.max(1);
                declarations.check(game, &state, &[], &mut |kind, role, detail| {
                    out.add(kind, role, 1, len, || (detail, path(&moves)));
                });
                break;
            }
            let mut stuck = false;
            for (r, m) in legal.iter_mut().enumerate() {
                game.legal_moves(&state, r, m);
                if m.is_empty() {
                    stuck = true;
                    let len = moves.len() / n.max(1);
                    out.add(Kind::NoLegalMove, Some(r), 1, len, || {
                        (NO_MOVE.to_string(), path(&moves))
                    });
                }
            }
            let len = moves.len() / n.max(1);
            declarations.check(game, &state, &legal, &mut |kind, role, detail| {
                out.add(kind, role, 1, len, || (detail, path(&moves)));
            });
            if stuck || game.fault().is_some() {
                break;
            }
            if steps >= options.max_playout_steps as u64 {
                out.add(Kind::LongPlayout, None, 1, 0, || {
                    let seen = format!("no terminal state after {steps} random steps");
                    (seen, Vec::new())
                });
                break;
            }
            let start = moves.len();
            moves.extend(legal.iter().map(|m| m[rng.below(m.len())]));
            game.next_state(&state, &moves[start..], &mut next);
            std::mem::swap(&mut state, &mut next);
            steps += 1;
        }
        out.playouts += 1;
        out.states += steps + 1;
        out.longest = out.longest.max(steps);
        if let Some(f) = game.fault() {
            out.fault = Some(f);
            if let Some(c) = shared {
                c.stop.store(true, Ordering::Relaxed);
            }
            break;
        }
        if let Some(c) = shared {
            c.playouts.fetch_add(1, Ordering::Relaxed);
            c.states.fetch_add(steps + 1, Ordering::Relaxed);
        }
        tick(out.playouts, out.states);
    }
    out
}
