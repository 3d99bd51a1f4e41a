//! What [`Mcts`] measures and chooses at the start clock: the AMAF mode, the exploration
//! constant, the evaluation, the factors and the playout policy, each as its options leave it
//! to the start clock, then the first search of the initial state.

use std::time::Instant;

use super::policy::Playout;
use super::{Heuristic, Mcts, amaf, exploration, factored, factors, heuristic, opponents, tuning};
use crate::time_control::halfway;
use crate::{Expansion, MctsOptions};
use gdl_runtime::{Game, RoleIndex};

impl<G: Game> Mcts<G> {
    /// The exploration constant, as the options say ([`exploration::at_start`]).
    pub(super) fn explore(&self, game: &G, deadline: Instant) -> exploration::Chosen {
        exploration::at_start(game, self.options.exploration, self.options.seed, deadline)
    }

    /// The AMAF mode chosen at the start clock, as the options say ([`amaf::at_start`]).
    pub(super) fn choose_amaf(&self, game: &G, deadline: Instant) -> Option<amaf::Chosen> {
        amaf::at_start(game, self.amaf_asked, self.options.seed, deadline)
    }

    /// Plays the match with the AMAF mode chosen (with `None`, as asked).
    pub(super) fn set_amaf(&mut self, chosen: Option<amaf::Chosen>) {
        self.options.amaf.mode = chosen.map_or(self.amaf_asked, |c| c.mode);
        self.amaf_chosen = chosen;
    }

    /// The evaluation learnt at the start clock, as the options say ([`heuristic::at_start`]).
    pub(super) fn learn(&self, game: &G, deadline: Instant) -> Option<Heuristic> {
        heuristic::at_start(game, self.options.heuristic, self.options.seed, deadline)
    }

    /// The measurement at the start clock of what the options leave to it ([`tuning`]).
    pub(super) fn tune(
        &self,
        game: &G,
        deadline: Instant,
        parts: Option<&factors::Found<G>>,
    ) -> Option<tuning::Tuned> {
        let asked = MctsOptions {
            playout: self.asked,
            ..self.options.clone()
        };
        let tuning = tuning::TuningOptions::default();
        tuning::auto_playout_in_parts(game, &asked, &tuning, deadline, parts)
    }

    /// The factors of the game when the options leave it to the start clock and its
    /// measurement finds them, in a game of two or more roles (a puzzle keeps its best line
    /// in the one tree).
    pub(super) fn find_factors(&self, game: &G, deadline: Instant) -> Option<factors::Found<G>> {
        if self.options.factoring == crate::Factoring::Off || game.role_count() < 2 {
            return None;
        }
        // At most half the time left: the playouts are timed in the parts found after it.
        factors::detect_for_play(game, self.options.seed, halfway(deadline))
    }

    /// Searches the match with a tree per factor of `found` (with `None`, one tree).
    pub(super) fn set_factors(&mut self, game: &G, found: Option<factors::Found<G>>) {
        self.factored = found.map(|found| {
            let initial = game.initial_state();
            let playout = Playout::new(game, &initial, self.options.playout)
                .with_decisive_steps(self.options.decisive_steps)
                .with_heuristic(self.heuristic.clone())
                .with_parts(&found);
            let checks = self.options.expansion != Expansion::Plain;
            factored::Factored::new(
                game,
                found,
                self.options.max_nodes,
                self.options.max_memory,
                playout,
                checks,
            )
        });
    }

    /// Plays the match with what the measurement chose (with `None`, as asked).
    pub(super) fn set_tuned(&mut self, tuned: Option<&tuning::Tuned>) {
        self.options.playout = tuned.map_or(self.asked, |t| t.options.playout);
        self.tuned = tuned.map(|t| t.summary.clone());
    }

    /// [`Player::start`] after the measurement: the tree of the initial state, searched until
    /// `deadline` (without an iteration budget).
    pub(super) fn begin(&mut self, game: &G, role: RoleIndex, deadline: Instant) {
        self.role = role;
        self.store = None;
        self.scratch = None;
        self.opponents = opponents::Opponents::default();
        self.tick = 0;
        let initial = game.initial_state();
        self.set_root(game, &initial);
        if self.options.max_iterations.is_none() {
            self.search(game, deadline);
        }
    }
}
