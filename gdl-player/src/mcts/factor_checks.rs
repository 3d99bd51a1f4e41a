//! Tactical checks in the trees of a factored game ([`super::factored`]), with decisive
//! expansion ([`crate::Expansion::Decisive`], and [`crate::Expansion::Auto`], the default): when an iteration first descends from a node
//! where one role chooses, each of its moves is tried once. A move after which the game is
//! over with the mover's win is marked a *win*; a move after which a role choosing in the same
//! factor at the next step can end the game with its own win is marked a *loss*. UCB1 then
//! picks among the wins when there are some, else among the moves not marked a loss when there
//! are some. So a board's tree plays the immediate win and blocks the immediate threat that
//! uniform playouts miss, at a cost per node visited twice, not per playout step.
//!
//! The roles choosing in other factors play their first legal move in the checks: a factor's
//! ends depend on its own facts only (that is what made it a factor), so their moves change
//! a check only when they end the game at the same step.

use super::factors::Factors;
use super::move_ids::MoveIds;
use gdl_runtime::{Game, RoleIndex};

/// What a check found of a move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Mark {
    /// A role choosing in the factor at the next step can win at once.
    Loss,
    /// Nothing found (or not checked).
    #[default]
    Open,
    /// The game ends at once with the mover's win.
    Win,
}

/// The buffers of the checks.
pub(super) struct Checker<G: Game> {
    after: G::State,
    reply: G::State,
    legal: Vec<Vec<G::Move>>,
    joint: Vec<G::Move>,
}

impl<G: Game> Checker<G> {
    pub(super) fn new(state: &G::State, roles: usize) -> Self {
        Checker {
            after: state.clone(),
            reply: state.clone(),
            legal: vec![Vec::new(); roles],
            joint: Vec::with_capacity(roles),
        }
    }

    /// The mark of role `r`'s move `mv` in factor `f` at `state`, where the roles' legal
    /// moves are `legal`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mark(
        &mut self,
        game: &G,
        factors: &Factors,
        ids: &MoveIds<G>,
        state: &G::State,
        legal: &[Vec<G::Move>],
        (r, f): (RoleIndex, usize),
        mv: G::Move,
    ) -> Mark {
        first_moves(legal, &mut self.joint);
        self.joint[r] = mv;
        game.next_state(state, &self.joint, &mut self.after);
        if game.is_terminal(&self.after) {
            return if wins(game, &self.after, r) {
                Mark::Win
            } else {
                Mark::Open
            };
        }
        for (o, moves) in self.legal.iter_mut().enumerate() {
            moves.clear();
            game.legal_moves(&self.after, o, moves);
            if moves.is_empty() {
                return Mark::Open;
            }
        }
        for o in 0..self.legal.len() {
            let rival = o != r && factors.of_choice(ids, game, o, &self.legal[o]) == Some(f);
            if !rival {
                continue;
            }
            first_moves(&self.legal, &mut self.joint);
            for i in 0..self.legal[o].len() {
                self.joint[o] = self.legal[o][i];
                game.next_state(&self.after, &self.joint, &mut self.reply);
                if game.is_terminal(&self.reply) && wins(game, &self.reply, o) {
                    return Mark::Loss;
                }
            }
        }
        Mark::Open
    }
}

/// Sets `joint` to every role's first legal move.
fn first_moves<M: Copy>(legal: &[Vec<M>], joint: &mut Vec<M>) {
    joint.clear();
    joint.extend(legal.iter().map(|moves| moves[0]));
}

/// Whether terminal `state` is `r`'s win: its goal above half and above every other role's.
fn wins<G: Game>(game: &G, state: &G::State, r: RoleIndex) -> bool {
    let Some(g) = game.goal(state, r) else {
        return false;
    };
    g > 50
        && (0..game.role_count())
            .filter(|&o| o != r)
            .all(|o| game.goal(state, o).is_none_or(|h| h < g))
}
