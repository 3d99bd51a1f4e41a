//! A match of GDL-II played from beliefs, turn by turn, in the texts of the match protocol:
//! our move as the manager names it and the percepts as it sends them. One [`Beliefs`] serves
//! the HTTP engine of a game (a PLAY with percepts at a time), the engine in another process
//! (`percepts` and `choose` requests), and the universal player, which hands a match from one
//! engine to a better one by replaying the turns seen so far ([`Beliefs::catch_up`]).

use std::time::Instant;

use super::{BeliefOptions, BeliefPlayer};
use crate::time_control::{equal_shares, halfway};
use gdl_runtime::{Game, RoleIndex};

/// One turn as our role saw it: the move played for it and the percepts that followed (GDL
/// text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    pub ours: String,
    pub percepts: Vec<String>,
}

/// How our moves named by the manager are matched against the game's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spelling {
    /// As the game spells them.
    #[default]
    Exact,
    /// Without regard to case (a manager that upper-cases its messages).
    AnyCase,
}

/// The beliefs of one role in one match: made at the first turn that uses them, then
/// updated with each turn observed.
pub struct Beliefs<G: Game> {
    belief: Option<BeliefPlayer<G>>,
    spelling: Spelling,
    /// The turns observed so far.
    observed: usize,
    /// Whether a turn was observed or a move chosen from them.
    used: bool,
}

impl<G: Game> Beliefs<G> {
    /// No beliefs yet: they are made at the first turn.
    pub fn new(spelling: Spelling) -> Self {
        Beliefs {
            belief: None,
            spelling,
            observed: 0,
            used: false,
        }
    }

    /// Whether the beliefs are in use (a turn of the match was observed or chosen from them).
    pub fn used(&self) -> bool {
        self.used
    }

    /// The turns observed so far.
    pub fn observed(&self) -> usize {
        self.observed
    }

    /// What the last choice did.
    pub fn stats(&self) -> Option<String> {
        self.belief
            .as_ref()
            .filter(|_| self.used)
            .map(|b| b.stats().to_string())
    }

    fn player(&mut self, game: &G, role: RoleIndex) -> &mut BeliefPlayer<G> {
        self.used = true;
        self.belief.get_or_insert_with(|| {
            BeliefPlayer::new(
                game,
                role,
                BeliefOptions {
                    seed: 0x5EED,
                    ..BeliefOptions::default()
                },
            )
        })
    }

    /// The next turn: our move (its text) and what we saw after it, the beliefs updated by
    /// `until` at most. `Err` when the move is not one of ours.
    pub fn observe(
        &mut self,
        game: &G,
        role: RoleIndex,
        turn: &Observed,
        until: Instant,
    ) -> Result<(), String> {
        let spelling = self.spelling;
        let belief = self.player(game, role);
        let ours = game
            .parse_move(role, &turn.ours)
            .or_else(|| match spelling {
                Spelling::AnyCase => belief.move_like(game, &turn.ours),
                Spelling::Exact => None,
            })
            .ok_or_else(|| format!("`{}` is not a move of ours", turn.ours))?;
        belief.observe(game, ours, &turn.percepts, until);
        self.observed += 1;
        Ok(())
    }

    /// Observes the turns of `turns` past those observed already ([`Beliefs::observed`]),
    /// each with an equal share of the time until `until`.
    pub fn catch_up(
        &mut self,
        game: &G,
        role: RoleIndex,
        turns: &[Observed],
        until: Instant,
    ) -> Result<(), String> {
        let missing = turns.get(self.observed..).unwrap_or_default();
        for (turn, until) in missing.iter().zip(equal_shares(until, missing.len())) {
            self.observe(game, role, turn, until)?;
        }
        Ok(())
    }

    /// Our move's text, chosen from the beliefs by `deadline`.
    pub fn choose(
        &mut self,
        game: &G,
        role: RoleIndex,
        deadline: Instant,
    ) -> Result<String, String> {
        match self.player(game, role).choose(game, deadline) {
            Some(m) => Ok(game.move_text(role, m)),
            None => Err("no legal move in any state we believe possible".to_string()),
        }
    }

    /// A PLAY with percepts of `turn` (GDL-II: our last move, `None` at turn 0, and what we
    /// saw after it): the beliefs updated in half the time left at most, then our move.
    pub fn play(
        &mut self,
        game: &G,
        role: RoleIndex,
        turn: u64,
        last_move: Option<&str>,
        percepts: &[String],
        deadline: Instant,
    ) -> Result<String, String> {
        match last_move {
            None if turn > 0 => return Err(format!("turn {turn} without our last move")),
            None => {
                self.player(game, role);
            }
            Some(text) => {
                let update = halfway(deadline);
                let seen = Observed {
                    ours: text.to_string(),
                    percepts: percepts.to_vec(),
                };
                self.observe(game, role, &seen, update)?;
            }
        }
        self.choose(game, role, deadline)
    }
}
