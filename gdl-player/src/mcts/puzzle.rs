//! Single-role games (puzzles): the best line found.
//!
//! With one role and a deterministic game, a sequence of moves reaches the same state every
//! time it is played: the best goal any iteration reached is a goal the player can be sure
//! of, by playing the iteration's moves (the tree's, then the playout's) one after the
//! other. [`BestLine`] keeps the line of the highest goal reached from the state it starts at,
//! checked by replaying it (a line that ends past the playout limit, not terminal, is not
//! kept unless its last state is a proven node); the player plays the line's next move
//! unless a move is proven at least as good ([`prefer`]), and the line shortens as its moves
//! are played ([`BestLine::advance`]). A line that ends at a proven node that is not terminal
//! is followed to that node, where the proof takes over.
//!
//! A timed search of a puzzle gives part of each [`TURN`] to two searches that offer their
//! lines to the best line: the exact search ([`super::solve`]) while it searches, and nested
//! Monte Carlo search ([`super::nested`]).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::nested::{Line, Nested};
use super::solve::{Progress, Solver};
use super::store::{Store, state_hash};
use super::{MctsOptions, Scratch};
use crate::root::RootMove;
use crate::scaled_goal;
use crate::time_control::share_of_time;
use gdl_runtime::Game;

/// The share of a puzzle's search time given to the searches beside the tree: half of it to
/// the exact search while it searches.
const SHARE: f64 = 0.5;

/// How long a turn of the searches and the tree lasts in a puzzle.
const TURN: Duration = Duration::from_millis(20);

/// In a timed search of a puzzle: the next turn of the exact search and nested Monte Carlo
/// search (their lines offered to the best line from the root), then the instant the tree's
/// share of the turn ends ([`TURN`], not past `deadline`).
pub(super) fn turn<G: Game>(
    game: &G,
    store: &Store<G>,
    root: u32,
    scratch: &mut Scratch<G>,
    options: &MctsOptions,
    deadline: Instant,
) -> Instant {
    let end = deadline.min(Instant::now() + TURN);
    if store.nodes[root as usize].proven {
        return end;
    }
    let split = share_of_time(end, SHARE);
    let Scratch {
        nested,
        solver,
        best,
        ..
    } = scratch;
    let state = &store.states[root as usize];
    let mut offer = |line: &Line<G::Move>| {
        best.offer(
            game,
            store,
            state,
            std::iter::empty(),
            &line.moves,
            line.goal,
        )
    };
    let solver = solver.get_or_insert_with(|| Solver::new(state, options.max_playout_steps));
    if solver.progress() == Progress::Searching {
        solver.work(game, state, share_of_time(split, 0.5), &mut offer);
    }
    nested
        .get_or_insert_with(|| Nested::new(state, options.seed, options.max_playout_steps))
        .work(game, state, split, &mut offer);
    end
}

/// The best line found from a state.
pub(super) struct BestLine<G: Game> {
    /// The state the line starts from (`None`: no line).
    from: Option<G::State>,
    moves: VecDeque<G::Move>,
    /// The goal (0..1) the line reaches.
    goal: f64,
    /// A buffer for replays.
    state: Option<(G::State, G::State)>,
}

impl<G: Game> BestLine<G> {
    pub(super) fn new() -> Self {
        BestLine {
            from: None,
            moves: VecDeque::new(),
            goal: 0.0,
            state: None,
        }
    }

    /// The line's next move from `root` and the goal it reaches, if there is a line from
    /// `root`.
    pub(super) fn next_move(&self, root: &G::State) -> Option<(G::Move, f64)> {
        match &self.from {
            Some(from) if from == root => self.moves.front().map(|&m| (m, self.goal)),
            _ => None,
        }
    }

    /// The iteration that just ran from `root` (node `root_node`) took `tree` moves in the
    /// tree and then `playout` moves, and scored `goal` (0..1): kept when it is better than
    /// the line from `root` and the replay confirms it.
    pub(super) fn offer(
        &mut self,
        game: &G,
        store: &Store<G>,
        root: &G::State,
        tree: impl Iterator<Item = G::Move> + Clone,
        playout: &[G::Move],
        goal: f64,
    ) {
        let current = self.from.as_ref().is_some_and(|f| f == root);
        if current && goal <= self.goal || goal <= 0.0 {
            return;
        }
        let (state, next) = self
            .state
            .get_or_insert_with(|| (root.clone(), root.clone()));
        state.clone_from(root);
        for mv in tree.clone().chain(playout.iter().copied()) {
            if game.is_terminal(state) {
                return;
            }
            game.next_state(state, &[mv], next);
            std::mem::swap(state, next);
        }
        let reached = if game.is_terminal(state) {
            scaled_goal(game.goal(state, 0))
        } else {
            // The end of a line not terminal counts only when it is a proven node.
            let node = store.find(state_hash(&*state), state);
            match node.map(|n| (store.nodes[n as usize].proven, store.goals(n))) {
                Some((true, goals)) => goals.first().copied().unwrap_or(0.0),
                _ => return,
            }
        };
        if reached < goal || current && reached <= self.goal {
            return;
        }
        self.from = Some(root.clone());
        self.moves.clear();
        self.moves.extend(tree.chain(playout.iter().copied()));
        self.goal = reached;
    }

    /// The match moved on by `joint` to `next`: the line goes on from `next` when its first
    /// move was played, else it is dropped.
    pub(super) fn advance(&mut self, joint: &[G::Move], next: &G::State) {
        if self.from.is_some() && self.moves.front() == joint.first() && joint.len() == 1 {
            self.moves.pop_front();
            self.from = Some(next.clone());
            if self.moves.is_empty() {
                self.from = None;
            }
        } else {
            self.from = None;
            self.moves.clear();
        }
    }
}

/// The index among the root's `moves` of the line's move (`line`: the move and the goal it
/// reaches), when the line is to be played: no move is proven to reach as much.
pub(super) fn prefer<M: PartialEq>(line: Option<(M, f64)>, moves: &[RootMove<M>]) -> Option<usize> {
    let (mv, goal) = line?;
    let proven = moves
        .iter()
        .filter_map(|m| m.proven)
        .fold(f64::NEG_INFINITY, f64::max);
    if proven >= goal {
        return None;
    }
    moves.iter().position(|m| m.mv == mv)
}

/// Offers the iteration that just ran from node `root` to the best line.
pub(super) fn offer_iteration<G: Game>(
    game: &G,
    store: &Store<G>,
    root: u32,
    scratch: &mut super::Scratch<G>,
) {
    let goal = scratch.goals.first().copied().unwrap_or(0.0);
    let tree = scratch
        .path
        .iter()
        .zip(&scratch.keys)
        .map(|(&n, &k)| store.moves(n, 0)[k as usize].mv);
    let playout = scratch.playout.line().unwrap_or(&[]);
    let root_state = &store.states[root as usize];
    scratch
        .best
        .offer(game, store, root_state, tree, playout, goal);
}
