//! Decisive expansion ([`crate::Expansion::Decisive`]): when a turn or chance node is made,
//! the state after each of the mover's moves is computed and, when it is terminal, recorded
//! at once as that move's proof ([`select::child_proven`]), as a playout reaching it would.
//! A node whose mover can end the game with goal 100 is then proven when it is made, and so
//! is its parent's move into it one ply before a playout could find it (MCTS-Solver with the
//! terminal children seen at expansion, as Sancho does). It costs a [`Game::next_state`] per
//! move of the mover once per node made, not per playout step.

use super::select;
use super::store::{Kind, Store};
use crate::scaled_goal;
use gdl_runtime::Game;

/// The buffers of the look at a new node's children.
pub(super) struct Expander<G: Game> {
    /// Nodes are looked at when made (else at their first descent).
    at_once: bool,
    next: G::State,
    joint: Vec<G::Move>,
    key: Vec<u32>,
    goals: Vec<f64>,
}

impl<G: Game> Expander<G> {
    pub(super) fn new(state: &G::State, at_once: bool) -> Self {
        Expander {
            at_once,
            next: state.clone(),
            joint: Vec::new(),
            key: Vec::new(),
            goals: Vec::new(),
        }
    }

    /// Whether nodes are looked at when made (else at their first descent).
    pub(super) fn at_once(&self) -> bool {
        self.at_once
    }

    /// Records the terminal children of node `n` (a turn or chance node) as proven; whether
    /// `n` is proven then.
    pub(super) fn check(&mut self, game: &G, store: &mut Store<G>, n: u32) -> bool {
        let node = store.nodes[n as usize];
        let (Kind::Turn(m) | Kind::Chance(m)) = node.kind else {
            return node.proven;
        };
        if node.proven {
            return true;
        }
        let m = m as usize;
        let roles = store.roles();
        self.joint.clear();
        self.joint
            .extend((0..roles).filter_map(|r| store.moves(n, r).first().map(|s| s.mv)));
        if self.joint.len() != roles {
            return false;
        }
        self.key.clear();
        self.key.resize(roles, 0);
        let count = store.moves(n, m).len();
        for i in 0..count {
            self.joint[m] = store.moves(n, m)[i].mv;
            game.next_state(&store.states[n as usize], &self.joint, &mut self.next);
            if !game.is_terminal(&self.next) {
                continue;
            }
            self.goals.clear();
            self.goals
                .extend((0..roles).map(|r| scaled_goal(game.goal(&self.next, r))));
            self.key[m] = i as u32;
            if select::child_proven(store, n, &self.key, &self.goals) {
                return true;
            }
        }
        false
    }
}
