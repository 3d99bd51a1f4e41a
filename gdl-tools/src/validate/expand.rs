//! The expansion of one state for the breadth-first search: its terminal test, goals, legal
//! moves, the findings of the state alone, and its successors, one per joint move, each
//! hashed and looked up in the table of states seen. The search expands states in batches, on
//! one thread or, for a `Sync` game, split over several ([`expand_parallel`]), the table only
//! read meanwhile; either way it then numbers the successors not found in the order of the
//! batch, so the graph (and every finding's path) is the same on any number of threads.

use std::ops::Range;

use super::Kind;
use super::checks::{Declarations, NO_MOVE, goal_detail, goal_finding, goal_of};
use super::table::{StateTable, hash_of};
use gdl_runtime::{Game, RoleIndex};

/// In [`Expansion::known`]: a successor not in the table when the batch was expanded.
pub(super) const UNKNOWN: u32 = u32::MAX;

/// What the search records of one state.
pub(super) struct Expansion<S> {
    pub terminal: bool,
    /// Per role, as [`goal_of`] tells it.
    pub goals: Vec<i32>,
    /// Per role, its number of legal moves (0 in a terminal state).
    pub counts: Vec<u32>,
    /// The findings of the state: kind, role, detail.
    pub findings: Vec<(Kind, Option<RoleIndex>, String)>,
    /// The number of joint moves (0 in a terminal state).
    pub total: u64,
    /// The successor of each joint move, in enumeration order (mixed radix over the roles'
    /// legal moves, the last role fastest); empty when `total` was over the bound.
    pub successors: Vec<S>,
    /// Per successor: its hash, and its number in the table of states seen, or [`UNKNOWN`].
    pub hashes: Vec<u64>,
    pub known: Vec<u32>,
    pub fault: Option<String>,
}

impl<S> Default for Expansion<S> {
    fn default() -> Self {
        Expansion {
            terminal: false,
            goals: Vec::new(),
            counts: Vec::new(),
            findings: Vec::new(),
            total: 0,
            successors: Vec::new(),
            hashes: Vec::new(),
            known: Vec::new(),
            fault: None,
        }
    }
}

/// The buffers of one thread's expansions.
pub(super) struct Expander<G: Game> {
    legal: Vec<Vec<G::Move>>,
    joint: Vec<G::Move>,
    digits: Vec<usize>,
    values: Vec<Option<i32>>,
    declarations: Declarations,
}

impl<G: Game> Expander<G> {
    pub fn new(game: &G) -> Self {
        let n = game.role_count();
        Expander {
            legal: vec![Vec::new(); n],
            joint: Vec::with_capacity(n),
            digits: vec![0; n],
            values: Vec::new(),
            declarations: Declarations::of(game),
        }
    }

    /// Expands the states numbered `range` of `table` into `out` (one expansion each), each
    /// state's successors only when there are at most `max_total`, and looked up in `table`.
    pub fn expand_all(
        &mut self,
        game: &G,
        table: &StateTable<G::State>,
        range: Range<u32>,
        max_total: u64,
        out: &mut [Expansion<G::State>],
    ) where
        G::State: std::hash::Hash,
    {
        for (k, e) in range.zip(out) {
            self.expand(game, table.get(k), max_total, e);
            e.hashes.clear();
            e.known.clear();
            for next in &e.successors {
                let hash = hash_of(next);
                e.hashes.push(hash);
                e.known.push(table.find(next, hash).unwrap_or(UNKNOWN));
            }
        }
    }

    /// Expands `s` into `out`, its successors only when there are at most `max_total`.
    fn expand(&mut self, game: &G, s: &G::State, max_total: u64, out: &mut Expansion<G::State>) {
        let n = game.role_count();
        out.goals.clear();
        out.counts.clear();
        out.findings.clear();
        out.fault = None;
        let terminal = game.is_terminal(s);
        out.terminal = terminal;
        for r in 0..n {
            game.goal_values(s, r, &mut self.values);
            if let Some(kind) = goal_finding(terminal, &self.values) {
                out.findings
                    .push((kind, Some(r), goal_detail(terminal, &self.values)));
            }
            out.goals.push(goal_of(&self.values));
        }
        let mut total = u64::from(!terminal);
        for (r, moves) in self.legal.iter_mut().enumerate() {
            if terminal {
                moves.clear();
            } else {
                game.legal_moves(s, r, moves);
            }
            if moves.is_empty() && !terminal {
                out.findings
                    .push((Kind::NoLegalMove, Some(r), NO_MOVE.into()));
            }
            total = total.saturating_mul(moves.len() as u64);
            out.counts.push(moves.len() as u32);
        }
        out.total = total;
        let findings = &mut out.findings;
        self.declarations
            .check(game, s, &self.legal, &mut |kind, role, detail| {
                findings.push((kind, role, detail));
            });
        out.fault = game.fault();
        if out.fault.is_some() || total > max_total {
            out.successors.clear();
            return;
        }
        out.successors.resize_with(total as usize, || s.clone());
        self.digits.fill(0);
        for next in &mut out.successors {
            self.joint.clear();
            let chosen = self.legal.iter().zip(&self.digits).map(|(m, &d)| m[d]);
            self.joint.extend(chosen);
            game.next_state(s, &self.joint, next);
            for r in (0..n).rev() {
                self.digits[r] += 1;
                if self.digits[r] < self.legal[r].len() {
                    break;
                }
                self.digits[r] = 0;
            }
        }
        out.fault = game.fault();
    }
}

/// Expands the states numbered `range` of `table` on `threads` threads (contiguous shares),
/// into `out` in their order ([`Expander::expand_all`]).
pub(super) fn expand_parallel<G: Game + Sync>(
    game: &G,
    table: &StateTable<G::State>,
    range: Range<u32>,
    threads: usize,
    max_total: u64,
    out: &mut Vec<Expansion<G::State>>,
) where
    G::State: Send + Sync + std::hash::Hash,
{
    let len = range.len();
    if out.len() < len {
        out.resize_with(len, Expansion::default);
    }
    let share = len.div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        for (t, outs) in out[..len].chunks_mut(share).enumerate() {
            let first = range.start + (t * share) as u32;
            let part = first..first + outs.len() as u32;
            scope.spawn(move || {
                Expander::new(game).expand_all(game, table, part, max_total, outs);
            });
        }
    });
}
