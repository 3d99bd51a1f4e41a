//! Players of GDL games and the GGP match protocol, over any [`Game`] of `gdl-runtime` (a
//! crate apart, so that embedding a game compiles none of this).
//!
//! Search players: [`RandomPlayer`], [`FlatMonteCarlo`] and [`Mcts`] (UCT with
//! decoupled statistics per role, for any number of roles and simultaneous moves, with proven
//! values, over a node store with transpositions and recycling; uniform, MAST or decisive
//! playouts, or the one measured best at the start clock),
//! with [`ParallelMcts`] over several threads. [`BaselineMcts`] and [`ParallelBaseline`] are
//! the search as it was before the node store, kept to measure against.
//!
//! Every player answers [`Player::choose`] before the deadline it is given: the search checks
//! the clock between iterations, and a player that has searched nothing still returns a legal
//! move. Goals are scaled from 0..100 to 0..1; a role that [`Game::is_random_role`] says is
//! GDL-II's `random` is drawn uniformly, never searched as an opponent. [`BeliefPlayer`] plays
//! GDL-II's imperfect information from what its role sees.
//!
//! - [`protocol`]: the messages of the GGP match protocol and the replies.
//! - [`subprocess`]: a player in another process over its standard input and output (how the
//!   universal player hands a match to the compiled game).
//! - [`time_control`]: the deadlines of a request, from its arrival, and the shares of its
//!   time.
//! - `http` (feature `http`): the HTTP player, with tokio and hyper, and the `play` and
//!   `engine` sub-commands of a compiled game's binary.
//!
//! A move chosen by MCTS within a tenth of a second:
//!
//! ```
//! use std::time::{Duration, Instant};
//!
//! use gdl_player::{Mcts, MctsOptions, Player};
//! use gdl_runtime::Game;
//! # use gdl_runtime::toy::Countdown as MyGame; // a toy game of the tests
//! # let game = MyGame::new(5);
//! // `game`: any `Game`, such as a module compiled by `gdl!` or `gdlc`.
//! let mut player = Mcts::new(MctsOptions::default());
//! let deadline = Instant::now() + Duration::from_millis(100);
//! player.start(&game, 0, deadline);
//! let state = game.initial_state();
//! let chosen = player.choose(&game, &state, Instant::now() + Duration::from_millis(100));
//! assert!(chosen.is_some());
//! ```

mod baseline;
mod belief;
#[cfg(feature = "http")]
pub mod http;
mod mcts;
mod options;
pub mod protocol;
mod root;
pub mod subprocess;
pub mod time_control;

pub use baseline::{BaselineMcts, ParallelBaseline};
pub use belief::{
    BeliefOptions, BeliefPlayer, BeliefSearch, BeliefStats, Beliefs, Observed, Spelling,
};
pub use mcts::{Feature, Heuristic, Mcts, ParallelMcts, Whole, candidate_features, tuning};
pub use options::{
    AmafMode, AmafOptions, DEFAULT_MAX_MEMORY, Expansion, Exploration, Factoring, HeuristicMode,
    HeuristicOptions, MctsOptions, OpponentModel, PlayoutPolicy, Search, SearchStats,
    SimultaneousRule,
};
pub use root::RootMove;

use std::time::Instant;

use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// A player of one role of a game.
pub trait Player<G: Game> {
    /// A short name for logs and the match record (`random`, `mcts`, ...).
    fn name(&self) -> &str;

    /// Prepares for a match in which it plays `role`, from the initial state (the start clock
    /// runs until `deadline`; a player may search then).
    fn start(&mut self, game: &G, role: RoleIndex, deadline: Instant) {
        let _ = (game, role, deadline);
    }

    /// A legal move of the player's role in `state`, chosen before `deadline`; `None` only when
    /// the role has no legal move.
    fn choose(&mut self, game: &G, state: &G::State, deadline: Instant) -> Option<G::Move>;

    /// The joint move played in the state of the last `choose` (in role order) and the state
    /// it led to: a player that keeps a tree keeps the part that is still reachable.
    fn observe(&mut self, game: &G, joint: &[G::Move], next: &G::State) {
        let _ = (game, joint, next);
    }

    /// Searches on the opponents' time, from the state of the last `choose` (or the initial
    /// state after `start`), until `deadline`: called between requests while the manager waits
    /// for the other players, so that the next `choose` finds a larger tree. Returns the
    /// iterations run (0 for a player that does not search).
    fn ponder(&mut self, game: &G, deadline: Instant) -> u64 {
        let _ = (game, deadline);
        0
    }

    /// What the last `choose` did, for a log line (e.g. `1200 iterations, 5000 nodes, value
    /// 0.63`); `None` when the player has nothing to say.
    fn report(&self) -> Option<String> {
        None
    }

    /// What the match showed so far of the other roles (the opponent model of
    /// [`OpponentModel::Auto`]), as one line for another player that takes the match over
    /// ([`Player::adopt_judgments`]); `None` when there is nothing to hand over.
    fn judgments(&self, _game: &G) -> Option<String> {
        None
    }

    /// Takes over what [`Player::judgments`] of the player that played before said, after
    /// the match's moves were observed; a player without such a model ignores it. `Err` says
    /// what in `text` is not understood.
    fn adopt_judgments(&mut self, _game: &G, _text: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Plays a uniformly random legal move.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    role: RoleIndex,
    rng: SplitMix64,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            role: 0,
            rng: SplitMix64::new(seed),
        }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn name(&self) -> &str {
        "random"
    }

    fn start(&mut self, _game: &G, role: RoleIndex, _deadline: Instant) {
        self.role = role;
    }

    fn choose(&mut self, game: &G, state: &G::State, _deadline: Instant) -> Option<G::Move> {
        let mut moves = Vec::new();
        game.legal_moves(state, self.role, &mut moves);
        (!moves.is_empty()).then(|| moves[self.rng.below(moves.len())])
    }
}

/// Flat Monte Carlo: random playouts after each of its legal moves (the other roles random
/// too), round robin until the deadline or the playout budget; plays the best mean goal.
#[derive(Clone, Debug)]
pub struct FlatMonteCarlo {
    role: RoleIndex,
    rng: SplitMix64,
    /// Playouts per decision at most (`None`: until the deadline).
    pub max_playouts: Option<u64>,
    /// Playouts longer than this are scored as a draw of 50.
    pub max_playout_steps: usize,
}

impl FlatMonteCarlo {
    pub fn new(seed: u64) -> Self {
        FlatMonteCarlo {
            role: 0,
            rng: SplitMix64::new(seed),
            max_playouts: None,
            max_playout_steps: 10_000,
        }
    }
}

impl<G: Game> Player<G> for FlatMonteCarlo {
    fn name(&self) -> &str {
        "flat-mc"
    }

    fn start(&mut self, _game: &G, role: RoleIndex, _deadline: Instant) {
        self.role = role;
    }

    fn choose(&mut self, game: &G, state: &G::State, deadline: Instant) -> Option<G::Move> {
        let roles = game.role_count();
        let mut ours = Vec::new();
        game.legal_moves(state, self.role, &mut ours);
        if ours.len() <= 1 {
            return ours.first().copied();
        }
        let mut sums = vec![0.0f64; ours.len()];
        let mut counts = vec![0u64; ours.len()];
        let mut joint = Vec::with_capacity(roles);
        let mut moves = Vec::new();
        let mut next = state.clone();
        let mut scratch = Playout::new(state);
        let mut done = 0u64;
        while Instant::now() < deadline && self.max_playouts.is_none_or(|m| done < m) {
            let i = (done % ours.len() as u64) as usize;
            joint.clear();
            for r in 0..roles {
                if r == self.role {
                    joint.push(ours[i]);
                } else {
                    game.legal_moves(state, r, &mut moves);
                    if moves.is_empty() {
                        return Some(ours[0]);
                    }
                    joint.push(moves[self.rng.below(moves.len())]);
                }
            }
            game.next_state(state, &joint, &mut next);
            let goals = scratch.run(game, &next, &mut self.rng, self.max_playout_steps);
            sums[i] += goals[self.role];
            counts[i] += 1;
            done += 1;
        }
        let best = (0..ours.len()).max_by(|&a, &b| {
            let mean = |k: usize| sums[k] / counts[k].max(1) as f64;
            mean(a).total_cmp(&mean(b))
        })?;
        Some(ours[best])
    }
}

/// A random playout's buffers, kept between playouts.
struct Playout<G: Game> {
    state: G::State,
    next: G::State,
    moves: Vec<G::Move>,
    joint: Vec<G::Move>,
    goals: Vec<f64>,
}

impl<G: Game> Playout<G> {
    fn new(state: &G::State) -> Self {
        Playout {
            state: state.clone(),
            next: state.clone(),
            moves: Vec::new(),
            joint: Vec::new(),
            goals: Vec::new(),
        }
    }

    /// Plays uniformly random joint moves from `from` to the end; each role's goal in 0..1
    /// (0.5 for a playout past `max_steps` or a role without a legal move or goal).
    fn run(&mut self, game: &G, from: &G::State, rng: &mut SplitMix64, max_steps: usize) -> &[f64] {
        let roles = game.role_count();
        self.state.clone_from(from);
        let mut steps = 0;
        self.goals.clear();
        while !game.is_terminal(&self.state) {
            if steps == max_steps {
                self.goals.resize(roles, 0.5);
                return &self.goals;
            }
            self.joint.clear();
            for r in 0..roles {
                game.legal_moves(&self.state, r, &mut self.moves);
                if self.moves.is_empty() {
                    self.goals.resize(roles, 0.5);
                    return &self.goals;
                }
                self.joint.push(self.moves[rng.below(self.moves.len())]);
            }
            game.next_state(&self.state, &self.joint, &mut self.next);
            std::mem::swap(&mut self.state, &mut self.next);
            steps += 1;
        }
        self.goals
            .extend((0..roles).map(|r| scaled_goal(game.goal(&self.state, r))));
        &self.goals
    }
}

/// A goal value in 0..1 (an undefined goal counts as 0).
fn scaled_goal(goal: Option<i32>) -> f64 {
    f64::from(goal.unwrap_or(0).clamp(0, 100)) / 100.0
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_expand;
#[cfg(test)]
mod tests_kinds;
#[cfg(test)]
mod tests_mcts;
#[cfg(test)]
mod tests_tuning;
