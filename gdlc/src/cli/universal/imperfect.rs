//! GDL-II matches of the universal player: played from beliefs ([`gdl_player::Beliefs`]) by
//! the best engine ready — the compiled game (told `beliefs`, then our moves and percepts,
//! over the engine protocol), else the network, else the interpreter. The turns seen so far
//! are kept, so that an engine that becomes ready in the middle of a match catches up with
//! them (the particles are drawn afresh from the whole history) and takes over.

use std::time::Instant;

use gdl_player::Observed;
use gdl_player::subprocess::EngineError;
use gdl_player::time_control::{equal_shares, halfway};
use gdl_runtime::Game;

use super::network::Network;
use super::takeover::Clock;
use super::{Compiled, SLACK, Universal};

impl Universal {
    /// A PLAY with percepts: records our last move and what we saw after it, then chooses
    /// from the beliefs of the best engine ready (which catches up with the turns first).
    pub(super) fn play_from_beliefs(
        &mut self,
        turn: u64,
        last_move: Option<&str>,
        percepts: &[String],
        deadline: Instant,
    ) -> Result<String, String> {
        self.imperfect = true;
        match last_move {
            None if turn > 0 => return Err(format!("turn {turn} without our last move")),
            None => {}
            Some(ours) => self.turns.push(Observed {
                ours: ours.to_string(),
                percepts: percepts.to_vec(),
            }),
        }
        self.poll_build(Clock::Play(deadline));
        if let Some(text) = self.compiled_belief_move(deadline) {
            self.played_by = Some("compiled");
            return Ok(text);
        }
        self.poll_network(Clock::Play(deadline));
        let update = halfway(deadline);
        if let Network::Beliefs(net) = &self.network {
            self.played_by = Some("propnet");
            self.net_beliefs
                .catch_up(net, self.role, &self.turns, update)?;
            return self.net_beliefs.choose(net, self.role, deadline);
        }
        self.played_by = Some("interpreted");
        self.beliefs
            .catch_up(&self.game, self.role, &self.turns, update)?;
        self.beliefs.choose(&self.game, self.role, deadline)
    }

    /// The compiled engine's move from its beliefs, when it plays: told `beliefs` if it was
    /// not yet, and the turns it has not been told (in half the time left), then asked. A
    /// late move leaves this one to the engine in this process; any other failure, or
    /// [`super::MAX_LATE`] late moves in a row, leave it the match (an engine that may have
    /// missed a turn is not trusted with the next).
    fn compiled_belief_move(&mut self, deadline: Instant) -> Option<String> {
        let Compiled::Running {
            engine,
            late,
            believed,
        } = &mut self.compiled
        else {
            return None;
        };
        let told = (|| {
            if believed.is_none() {
                engine.beliefs(SLACK)?;
                *believed = Some(0);
            }
            let from = believed.unwrap_or(0);
            let missing = self.turns.get(from..).unwrap_or_default();
            let deadlines = equal_shares(halfway(deadline), missing.len());
            for (turn, until) in missing.iter().zip(deadlines) {
                engine.percepts(turn, until, SLACK)?;
                *believed = Some(believed.unwrap_or(0) + 1);
            }
            Ok::<(), EngineError>(())
        })();
        let failure = match told.and_then(|()| engine.choose(deadline, SLACK)) {
            Ok(chosen) if self.game.parse_move(self.role, &chosen.text).is_some() => {
                *late = 0;
                self.report = Some(chosen.report);
                return Some(chosen.text);
            }
            Ok(chosen) => format!("its move `{}` is not a move of ours", chosen.text),
            // Only `choose` may be late without leaving the engine behind the match.
            Err(EngineError::Timeout)
                if *late + 1 < super::MAX_LATE && *believed == Some(self.turns.len()) =>
            {
                *late += 1;
                return None;
            }
            Err(e) => e.to_string(),
        };
        self.give_up_compiled(failure);
        None
    }
}
