//! Nested Monte Carlo search (Cazenave, 2009) for puzzles: lines to offer the best line
//! ([`super::puzzle::BestLine`]) that the tree's statistics would not find, where a good goal
//! takes a long line of good moves (placing knights, sliding tiles).
//!
//! A search of level 1 from a state tries each legal move with one uniform playout, follows
//! the move of the best line found so far, and repeats until the end: its result is the best
//! line it met. A search of level 2 does the same with a search of level 1 in place of each
//! playout. [`Nested`] runs searches of level 2 from the tree's root one after the other, a
//! playout at a time (so that it works in slices of any length), and starts again when the
//! root changes.

use std::time::Instant;

use crate::scaled_goal;
use gdl_runtime::{Game, SplitMix64};

/// A line of moves from a state and the goal (0..1) it reaches.
#[derive(Clone, Debug, Default)]
pub(super) struct Line<M> {
    /// The goal reached at the end of `moves`.
    pub(super) goal: f64,
    pub(super) moves: Vec<M>,
}

/// A search of level 1 under way: from the state after the level-2 move `first`.
struct LevelOne<G: Game> {
    first: G::Move,
    /// The state after `seq`.
    at: G::State,
    /// The moves followed from the state after `first`.
    seq: Vec<G::Move>,
    /// The legal moves at `at`, and the next of them to try with a playout.
    moves: Vec<G::Move>,
    next: usize,
    /// The best line from the state after `first` (`goal` < 0: none yet).
    best: Line<G::Move>,
}

/// The state of a search of level 2, resumed slice after slice, a playout at a time.
pub(super) struct Nested<G: Game> {
    /// The state the search started from (`None`: none started).
    root: Option<G::State>,
    /// The state after `prefix`.
    state: G::State,
    /// The moves the search has followed from `root`.
    prefix: Vec<G::Move>,
    /// The legal moves at `state`, and the next of them to try with a search of level 1.
    moves: Vec<G::Move>,
    next: usize,
    /// The search of level 1 under way, if any.
    one: Option<LevelOne<G>>,
    /// The best line from `root` of this search (`goal` < 0: none yet).
    best: Line<G::Move>,
    /// The best goal offered from `root` by any search.
    offered: f64,
    rng: SplitMix64,
    /// At most this many moves in a line.
    max_steps: usize,
    /// Buffers.
    legal: Vec<G::Move>,
    line: Vec<G::Move>,
    after: G::State,
}

impl<G: Game> Nested<G> {
    pub(super) fn new(state: &G::State, seed: u64, max_steps: usize) -> Self {
        Nested {
            root: None,
            state: state.clone(),
            prefix: Vec::new(),
            moves: Vec::new(),
            next: 0,
            one: None,
            best: Line {
                goal: -1.0,
                moves: Vec::new(),
            },
            offered: -1.0,
            rng: SplitMix64::new(seed ^ 0x6e65_7374),
            max_steps: max_steps.max(1),
            legal: Vec::new(),
            line: Vec::new(),
            after: state.clone(),
        }
    }

    /// Searches from `root` until `deadline` (a playout at a time), handing `offer` each line
    /// better than every line offered from `root` before.
    pub(super) fn work(
        &mut self,
        game: &G,
        root: &G::State,
        deadline: Instant,
        mut offer: impl FnMut(&Line<G::Move>),
    ) {
        if self.root.as_ref() != Some(root) {
            self.offered = -1.0;
            self.restart(game, root);
        }
        while Instant::now() < deadline {
            if self.one.is_some() {
                if let Some(found) = self.step_one(game) {
                    self.level_one_found(found, &mut offer);
                }
                continue;
            }
            if self.prefix.len() >= self.max_steps || self.moves.is_empty() {
                // This search is over: the next one starts (other playouts, other lines).
                self.restart(game, root);
                if self.moves.is_empty() {
                    return;
                }
            } else if self.next < self.moves.len() {
                let first = self.moves[self.next];
                let mut at = self.state.clone();
                game.next_state(&self.state, &[first], &mut at);
                let mut moves = Vec::new();
                if !game.is_terminal(&at) {
                    game.legal_moves(&at, 0, &mut moves);
                }
                self.one = Some(LevelOne {
                    first,
                    at,
                    seq: Vec::new(),
                    moves,
                    next: 0,
                    best: Line {
                        goal: -1.0,
                        moves: Vec::new(),
                    },
                });
            } else if let Some(&mv) = self.best.moves.get(self.prefix.len()) {
                // Every move tried: follow the best line one move further.
                game.next_state(&self.state, &[mv], &mut self.after);
                std::mem::swap(&mut self.state, &mut self.after);
                self.prefix.push(mv);
                self.load_moves(game);
            } else {
                self.moves.clear();
            }
        }
    }

    /// The search of level 1 from the level-2 move `first` found `found`: the best line of
    /// this search when better, offered when better than every line offered.
    fn level_one_found(
        &mut self,
        (first, found): (G::Move, Line<G::Move>),
        offer: &mut impl FnMut(&Line<G::Move>),
    ) {
        self.next += 1;
        if found.goal <= self.best.goal {
            return;
        }
        self.best.goal = found.goal;
        self.best.moves.clear();
        self.best.moves.extend_from_slice(&self.prefix);
        self.best.moves.push(first);
        self.best.moves.extend_from_slice(&found.moves);
        if self.best.goal > self.offered {
            self.offered = self.best.goal;
            offer(&self.best);
        }
    }

    /// One step of the search of level 1 under way: a playout, or a move followed. Its
    /// result (the level-2 move and the best line after it) when it is over.
    fn step_one(&mut self, game: &G) -> Option<(G::Move, Line<G::Move>)> {
        let one = self.one.as_mut()?;
        let over = one.moves.is_empty() || one.seq.len() >= self.max_steps;
        if !over && one.next < one.moves.len() {
            let mv = one.moves[one.next];
            one.next += 1;
            game.next_state(&one.at, &[mv], &mut self.after);
            let goal = playout(
                game,
                &self.after,
                &mut self.rng,
                self.max_steps,
                &mut self.legal,
                &mut self.line,
            );
            if goal > one.best.goal {
                one.best.goal = goal;
                one.best.moves.clear();
                one.best.moves.extend_from_slice(&one.seq);
                one.best.moves.push(mv);
                one.best.moves.extend_from_slice(&self.line);
            }
            return None;
        }
        if !over && let Some(&mv) = one.best.moves.get(one.seq.len()) {
            game.next_state(&one.at, &[mv], &mut self.after);
            std::mem::swap(&mut one.at, &mut self.after);
            one.seq.push(mv);
            one.next = 0;
            one.moves.clear();
            if !game.is_terminal(&one.at) {
                game.legal_moves(&one.at, 0, &mut one.moves);
            }
            return None;
        }
        let mut one = self.one.take()?;
        if one.best.goal < 0.0 {
            // Nothing was tried: the line ends where it is.
            one.best.goal = match game.is_terminal(&one.at) {
                true => scaled_goal(game.goal(&one.at, 0)),
                false => 0.0,
            };
            one.best.moves = one.seq;
        }
        Some((one.first, one.best))
    }

    /// Starts a search of level 2 from `root`.
    fn restart(&mut self, game: &G, root: &G::State) {
        self.root = Some(root.clone());
        self.state.clone_from(root);
        self.prefix.clear();
        self.one = None;
        self.best.goal = -1.0;
        self.best.moves.clear();
        self.load_moves(game);
    }

    /// The moves to try at `state` (none at the end).
    fn load_moves(&mut self, game: &G) {
        self.moves.clear();
        self.next = 0;
        if !game.is_terminal(&self.state) {
            game.legal_moves(&self.state, 0, &mut self.moves);
        }
    }
}

/// A uniform playout from `state`: its goal, its moves in `line`. A playout stopped at
/// `max_steps` scores 0.
fn playout<G: Game>(
    game: &G,
    state: &G::State,
    rng: &mut SplitMix64,
    max_steps: usize,
    legal: &mut Vec<G::Move>,
    line: &mut Vec<G::Move>,
) -> f64 {
    line.clear();
    let mut at = state.clone();
    let mut after = state.clone();
    while !game.is_terminal(&at) {
        if line.len() >= max_steps {
            return 0.0;
        }
        game.legal_moves(&at, 0, legal);
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.below(legal.len())];
        game.next_state(&at, &[mv], &mut after);
        std::mem::swap(&mut at, &mut after);
        line.push(mv);
    }
    scaled_goal(game.goal(&at, 0))
}

#[cfg(test)]
mod tests {
    use super::Nested;
    use gdl_runtime::Game;
    use gdl_runtime::toy::Lock;
    use std::time::{Duration, Instant};

    #[test]
    fn nested_search_opens_the_lock_and_offers_better_lines_only() {
        // The lock's 100 takes its first 8 choices all `(1)`: one playout in 256 of the
        // lock's. Level 1 follows the playouts' best move at each step; level 2 finds it.
        let game = Lock {
            digits: 8,
            steps: 12,
        };
        let root = game.initial_state();
        let mut nested = Nested::new(&root, 7, 100);
        let mut offered: Vec<f64> = Vec::new();
        let mut best_line = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        while offered.last() != Some(&1.0) && Instant::now() < deadline {
            let slice = Instant::now() + Duration::from_millis(5);
            nested.work(&game, &root, slice.min(deadline), |line| {
                offered.push(line.goal);
                best_line.clone_from(&line.moves);
            });
        }
        assert_eq!(offered.last(), Some(&1.0), "{offered:?}");
        assert!(offered.windows(2).all(|w| w[0] < w[1]), "{offered:?}");
        // The line replays to the goal it claims.
        let state = game.after(&best_line);
        assert!(game.is_terminal(&state));
        assert_eq!(game.goal(&state, 0), Some(100));
    }
}
