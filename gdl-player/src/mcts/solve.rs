//! Exact search for puzzles: a line to the highest goal (100), where the game is small enough
//! to search every state.
//!
//! [`Solver`] searches depth first from the tree's root with iterative deepening, its
//! horizons 1, 2, 4, 8, ... moves counted from the state it first searched from, and keeps
//! a table of what it searched: a state searched to `n` moves below it without a line to
//! 100 is not searched again to `n` or fewer. That fact does not depend on the root, so the
//! table is kept when the match moves on, and the horizons, counted from the first root,
//! stay where they were: the search from the next root finds its work done. Each line that
//! reaches a terminal state with a better goal than those offered before is offered to the
//! best line ([`super::puzzle::BestLine`]); a line to 100 ends the search, and so does a
//! horizon that cut no line (every line searched). A game whose table outgrows
//! [`MAX_ENTRIES`] is not small: the solver gives up and leaves its time to the others.
//!
//! It works a move at a time (a frame per state on its stack), so it can be given slices of
//! any length.

use std::time::Instant;

use super::nested::Line;
use super::store::{HashTable, state_hash};
use crate::scaled_goal;
use gdl_runtime::Game;

/// The states the table holds at most: beyond, the game is not small.
pub(super) const MAX_ENTRIES: usize = 1 << 21;

/// How many moves the solver makes between two looks at the clock.
const MOVES_PER_CLOCK: u32 = 64;

/// Where the solver is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Progress {
    /// Searching.
    Searching,
    /// A line to 100 was found, or every line from the root was searched.
    Solved,
    /// The table outgrew [`MAX_ENTRIES`], or the horizon the playout limit.
    GaveUp,
}

/// A state on the search's stack.
struct Frame<G: Game> {
    state: G::State,
    /// The move that led here from the frame below (none at the root).
    via: Option<G::Move>,
    moves: Vec<G::Move>,
    next: usize,
    /// How many moves may still be made below this state.
    left: usize,
}

/// The exact search of a puzzle, resumed slice after slice.
pub(super) struct Solver<G: Game> {
    root: Option<G::State>,
    /// The moves the match made since the first root.
    played: usize,
    /// The horizon of the deepening under way, in moves from the first root.
    horizon: usize,
    /// The frames in use are `frames[..depth]`; the others keep their buffers.
    frames: Vec<Frame<G>>,
    depth: usize,
    /// Whether the deepening under way cut a line at its horizon.
    cut: bool,
    /// Whether no deepening started from the root yet.
    fresh: bool,
    /// State hash → moves searched below it without a line to 100.
    searched: HashTable<u16>,
    /// The best goal offered from the root.
    offered: f64,
    progress: Progress,
    max_steps: usize,
    max_entries: usize,
    /// Buffers.
    after: G::State,
    line: Line<G::Move>,
}

impl<G: Game> Solver<G> {
    /// A solver whose lines are at most `max_steps` moves long.
    pub(super) fn new(state: &G::State, max_steps: usize) -> Self {
        Solver {
            root: None,
            played: 0,
            horizon: 1,
            frames: Vec::new(),
            depth: 0,
            cut: false,
            fresh: true,
            searched: HashTable::default(),
            offered: -1.0,
            progress: Progress::Searching,
            max_steps: max_steps.clamp(1, u16::MAX as usize),
            max_entries: MAX_ENTRIES,
            after: state.clone(),
            line: Line {
                goal: 0.0,
                moves: Vec::new(),
            },
        }
    }

    /// The same with a smaller table, for tests.
    #[cfg(test)]
    fn with_max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = max_entries;
        self
    }

    pub(super) fn progress(&self) -> Progress {
        self.progress
    }

    /// How many states the table holds.
    #[cfg(test)]
    fn entries(&self) -> usize {
        self.searched.len()
    }

    /// Searches from `root` until `deadline`, handing `offer` each line better than every
    /// line offered from `root` before. A new root is taken for the state one move after the
    /// last.
    pub(super) fn work(
        &mut self,
        game: &G,
        root: &G::State,
        deadline: Instant,
        mut offer: impl FnMut(&Line<G::Move>),
    ) {
        if self.root.as_ref() != Some(root) {
            if self.root.is_some() {
                self.played += 1;
            }
            self.root = Some(root.clone());
            self.depth = 0;
            self.fresh = true;
            self.offered = -1.0;
            if self.progress == Progress::Solved {
                // Solved from the root before: the line found goes on from here, or the
                // root was searched through; from a new root, the search starts again
                // (what it searched is in the table).
                self.progress = Progress::Searching;
            }
        }
        let mut until_clock = 0;
        while self.progress == Progress::Searching {
            if until_clock == 0 {
                if Instant::now() >= deadline {
                    return;
                }
                until_clock = MOVES_PER_CLOCK;
            }
            until_clock -= 1;
            self.step(game, root, &mut offer);
        }
    }

    /// One move of the search (or the start of a deepening, or a frame popped).
    fn step(&mut self, game: &G, root: &G::State, offer: &mut impl FnMut(&Line<G::Move>)) {
        if self.depth == 0 {
            self.deepen(game, root);
            return;
        }
        let top = self.depth - 1;
        let frame = &mut self.frames[top];
        let Some(&mv) = frame.moves.get(frame.next) else {
            // Every move searched below this state.
            let left = frame.left as u16;
            let hash = state_hash(&frame.state);
            self.depth -= 1;
            if self.searched.len() >= self.max_entries {
                self.progress = Progress::GaveUp;
                return;
            }
            let entry = self.searched.entry(hash).or_insert(0);
            *entry = (*entry).max(left);
            return;
        };
        frame.next += 1;
        let left = frame.left - 1;
        game.next_state(&frame.state, &[mv], &mut self.after);
        if game.is_terminal(&self.after) {
            let goal = scaled_goal(game.goal(&self.after, 0));
            if goal > self.offered {
                self.offered = goal;
                self.line.goal = goal;
                self.line.moves.clear();
                let vias = self.frames[1..self.depth].iter().filter_map(|f| f.via);
                self.line.moves.extend(vias);
                self.line.moves.push(mv);
                offer(&self.line);
            }
            if goal >= 1.0 {
                self.progress = Progress::Solved;
            }
            return;
        }
        if left == 0 {
            self.cut = true;
            return;
        }
        if self
            .searched
            .get(&state_hash(&self.after))
            .is_some_and(|&n| n as usize >= left)
        {
            return;
        }
        let state = self.after.clone();
        self.push(game, state, Some(mv), left);
    }

    /// Starts the next deepening from `root` (or the first, or the same again from a new
    /// root).
    fn deepen(&mut self, game: &G, root: &G::State) {
        if !std::mem::replace(&mut self.fresh, false) {
            // A deepening from this root ended.
            if !self.cut {
                self.progress = Progress::Solved;
                return;
            }
            self.horizon *= 2;
        }
        while self.horizon <= self.played {
            self.horizon *= 2;
        }
        let left = self.horizon - self.played;
        if left > self.max_steps {
            self.progress = Progress::GaveUp;
            return;
        }
        self.cut = false;
        self.push(game, root.clone(), None, left);
    }

    fn push(&mut self, game: &G, state: G::State, via: Option<G::Move>, left: usize) {
        if self.depth == self.frames.len() {
            self.frames.push(Frame {
                state,
                via,
                moves: Vec::new(),
                next: 0,
                left,
            });
        } else {
            let f = &mut self.frames[self.depth];
            f.state = state;
            f.via = via;
            f.next = 0;
            f.left = left;
        }
        let f = &mut self.frames[self.depth];
        game.legal_moves(&f.state, 0, &mut f.moves);
        self.depth += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{Progress, Solver};
    use gdl_runtime::Game;
    use gdl_runtime::toy::Lock;
    use std::time::{Duration, Instant};

    /// Works from `root` in slices until the solver stops searching (at most 5 s): the goals
    /// offered and the last line.
    fn solve(
        game: &Lock,
        solver: &mut Solver<Lock>,
        root: &<Lock as Game>::State,
    ) -> (Vec<f64>, Vec<u8>) {
        let mut offered = Vec::new();
        let mut line = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        while solver.progress() == Progress::Searching && Instant::now() < deadline {
            let slice = Instant::now() + Duration::from_millis(1);
            solver.work(game, root, slice.min(deadline), |l| {
                offered.push(l.goal);
                line.clone_from(&l.moves);
            });
        }
        (offered, line)
    }

    #[test]
    fn the_solver_opens_the_lock_and_offers_better_lines_only() {
        let game = Lock {
            digits: 8,
            steps: 12,
        };
        let root = game.initial_state();
        let mut solver = Solver::new(&root, 100);
        let (offered, line) = solve(&game, &mut solver, &root);
        assert_eq!(solver.progress(), Progress::Solved);
        assert_eq!(offered.last(), Some(&1.0), "{offered:?}");
        assert!(offered.windows(2).all(|w| w[0] < w[1]), "{offered:?}");
        // The line replays to the goal it claims.
        let end = game.after(&line);
        assert!(game.is_terminal(&end));
        assert_eq!(game.goal(&end, 0), Some(100));
    }

    #[test]
    fn a_search_through_every_line_ends_with_the_best_and_is_not_done_again() {
        // On the open road the best goal is 90, every choice `(1)`: no line reaches 100.
        let game = Lock {
            digits: 3,
            steps: 6,
        };
        let road = game.after(&[0]);
        let mut solver = Solver::new(&road, 100);
        let (offered, line) = solve(&game, &mut solver, &road);
        assert_eq!(solver.progress(), Progress::Solved);
        assert_eq!(offered.last(), Some(&0.9), "{offered:?}");
        assert_eq!(line, vec![1; 6]);
        // From the next root, everything below it is in the table already.
        let entries = solver.entries();
        let next = game.after(&[0, 1]);
        let (offered, _) = solve(&game, &mut solver, &next);
        assert_eq!(solver.progress(), Progress::Solved);
        assert!(offered.is_empty(), "{offered:?}");
        assert_eq!(solver.entries(), entries);
    }

    #[test]
    fn a_game_too_large_for_the_table_is_given_up() {
        let game = Lock {
            digits: 8,
            steps: 12,
        };
        let root = game.initial_state();
        let mut solver = Solver::new(&root, 100).with_max_entries(8);
        solve(&game, &mut solver, &root);
        assert_eq!(solver.progress(), Progress::GaveUp);
        assert!(solver.entries() <= 8);
        // So is one whose lines are longer than the playout limit.
        let mut solver = Solver::new(&root, 4);
        solve(&game, &mut solver, &root);
        assert_eq!(solver.progress(), Progress::GaveUp);
    }
}
