//! Whether a random playout lets go of its joint move once the next state is read.
//!
//! The engine holds the last joint move until the next one is set, so the change to the next
//! state is propagated with the old move still in: the gates that read both a move and the
//! state (what the move does to a cell) may change with the state and change back when the
//! moves change (hex, where a move's effect is read through the board's connectivity). Letting
//! go of the move after each step (no move held while the state changes) avoids that, but in
//! a game whose move sets are built as "none of the other moves" it costs twice the move's
//! changes. Which is cheaper is measured: the first steps alternate between the two, and the one
//! that visited fewer edges per step is kept.
//!
//! Once letting go is chosen, each step's move is set from none held and its propagation
//! logged, so that letting go undoes it from the log rather than propagating it back
//! (`joint.rs`: hex 23% faster). The trial still measures letting go propagated (a step that
//! lets go follows one that kept its move, so its move was not set from none), so it chooses as
//! before; counting the undo instead (a loop of stores per edge) would not change the choice of
//! checkers, skirmish, speedChess or chess_200, and letting go always ran 35% slower on
//! checkers and skirmish though 16% faster on connectFour, whose trial keeps its move (its
//! visits say keeping is 11% cheaper): the edges visited are not all of the cost.

/// Steps of the trial (every other one letting go of the move).
const TRIAL: u64 = 512;

/// The policy and the trial that chooses it.
///
/// What letting go after step `k` costs is exactly the edges visited from the end of step `k`
/// to the end of step `k + 1` (letting go, the change to the next state, the next joint move):
/// at the end of every step the engine holds its state and joint move whatever the steps
/// before did. So the trial alternates step by step.
#[derive(Clone, Debug, Default)]
pub(super) struct Clear {
    /// Steps ended so far.
    steps: u64,
    /// The engine's visits when the previous step ended.
    at: u64,
    /// Whether the previous step let go of its move.
    cleared: bool,
    /// Per policy (keep, let go): edges visited and steps counted in the trial.
    sums: [(u64, u64); 2],
    /// Once decided: whether to let go.
    decided: Option<bool>,
}

impl Clear {
    /// Whether the step about to be taken may let go of its move (its move's propagation is
    /// then logged, see `joint.rs`).
    pub(super) fn may_let_go(&self) -> bool {
        self.decided != Some(false)
    }

    /// Called when a step has set its joint move and read the next state, with the engine's
    /// visits: counts the visits since the previous step ended against what that step did,
    /// and says whether to let go of the move now.
    pub(super) fn end(&mut self, visits: u64) -> bool {
        if self.decided.is_none() && self.steps > 0 {
            let s = &mut self.sums[usize::from(self.cleared)];
            s.0 += visits.saturating_sub(self.at);
            s.1 += 1;
        }
        self.at = visits;
        self.steps += 1;
        let clear = match self.decided {
            Some(d) => d,
            None if self.steps <= TRIAL => self.steps % 2 == 0,
            None => {
                let per = |(v, n): (u64, u64)| v as f64 / n.max(1) as f64;
                // Letting go must win clearly: it is the change of behaviour.
                let d = per(self.sums[1]) < 0.95 * per(self.sums[0]);
                self.decided = Some(d);
                d
            }
        };
        self.cleared = clear;
        clear
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps whose visits (since the previous step ended) are `keep` after a step that kept
    /// its move and `clear` after one that let go: the policy chosen, once decided.
    fn decide(keep: u64, clear: u64) -> bool {
        let mut c = Clear::default();
        let mut visits = 0;
        let mut last = false;
        for _ in 0..TRIAL + 10 {
            visits += if last { clear } else { keep };
            last = c.end(visits);
        }
        assert_eq!(c.decided, Some(last));
        last
    }

    #[test]
    fn the_cheaper_policy_is_kept() {
        assert!(decide(100, 60));
        assert!(!decide(100, 160));
        // Letting go must win clearly.
        assert!(!decide(100, 99));
    }
}
