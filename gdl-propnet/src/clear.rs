//! Whether a random playout lets go of its joint move once the next state is read.
//!
//! The engine holds the last joint move until the next one is set, so the change to the next
//! state is propagated with the old move still in: the gates that read both a move and the
//! state (what the move does to a cell) may change with the state and change back when the
//! moves change (hex, where a move's effect is read through the board's connectivity). Letting
//! go of the move after each step (no move held while the state changes) avoids that, but in
//! a game whose move sets are built as "none of the other moves" it costs twice the move's
//! changes. Which is cheaper is measured: the first steps alternate (in pairs) between the two,
//! and the one that cost less per step is kept.
//!
//! A step that lets go of a move set from none held undoes the move's propagation from a log
//! rather than propagating it back (`joint.rs`), and the trial counts each edge undone at a
//! quarter of one visited ([`UNDO_COST`], fitted, not measured apart: with it, the trial lets go
//! on connectFour (propnet; 15-22% faster per CPU s than keeping, though its visits say keeping
//! is 11% cheaper when the undone edges are counted as visited) and still keeps the move on
//! checkers and skirmish, where letting go always ran 35% slower). Letting go needs only to
//! cost less: its cost is now counted as it runs.
//!
//! The choice is measured again every [`RETRIAL`] steps: what an engine's steps do changes
//! over a process's life (a player's start clock tries single moves from one state, its
//! search plays whole playouts; the board fills up), and a choice measured on the first kind
//! of work is not the cheaper one for the second.

/// Steps of the trial (in pairs, every other pair letting go of the move).
const TRIAL: u64 = 512;

/// Steps between a choice and the next trial (the trial costs at most half of its steps
/// played the dearer way: under 1% of the steps).
const RETRIAL: u64 = 1 << 15;

/// What an edge undone from the log costs (see `joint.rs`), against one visited by a
/// propagation.
const UNDO_COST: f64 = 0.25;

/// The policy and the trial that chooses it.
///
/// What letting go after step `k` costs is the edges visited from the end of step `k` to the
/// end of step `k + 1` (letting go, the change to the next state, the next joint move), with
/// the edges undone from the log at [`UNDO_COST`]: at the end of every step the engine holds
/// its state and joint move whatever the steps before did, but a move is undone from the log
/// only when it was set from none held, so when step `k - 1` let go too. So the trial
/// alternates pairs of steps and counts only the second step of each pair.
#[derive(Clone, Debug, Default)]
pub(super) struct Clear {
    /// Steps ended since the trial began (counting on past the choice, to the next trial).
    steps: u64,
    /// The engine's visits when the previous step ended.
    at: u64,
    /// Whether the previous step let go of its move, and the step before it.
    cleared: [bool; 2],
    /// The edges undone from the log since the previous step ended.
    undone: u64,
    /// Per policy (keep, let go): the cost counted and steps counted in the trial.
    sums: [(f64, u64); 2],
    /// Once decided: whether to let go.
    decided: Option<bool>,
}

impl Clear {
    /// Whether the step about to be taken may let go of its move (its move's propagation is
    /// then logged, see `joint.rs`).
    pub(super) fn may_let_go(&self) -> bool {
        self.decided != Some(false)
    }

    /// Counts `edges` undone from the log, in the trial.
    pub(super) fn undone(&mut self, edges: u64) {
        self.undone += edges;
    }

    /// Called when a step has set its joint move and read the next state, with the engine's
    /// visits: counts the visits since the previous step ended against what that step did,
    /// and says whether to let go of the move now.
    pub(super) fn end(&mut self, visits: u64) -> bool {
        let [last, before] = self.cleared;
        if self.decided.is_none() && self.steps > 1 && last == before {
            let s = &mut self.sums[usize::from(last)];
            s.0 += visits.saturating_sub(self.at) as f64 + UNDO_COST * self.undone as f64;
            s.1 += 1;
        }
        self.undone = 0;
        self.at = visits;
        self.steps += 1;
        if self.steps > TRIAL + RETRIAL {
            // A new trial, from its first step.
            self.steps = 1;
            self.sums = [(0.0, 0); 2];
            self.decided = None;
        }
        let clear = match self.decided {
            Some(d) => d,
            None if self.steps <= TRIAL => self.steps / 2 % 2 == 1,
            None => {
                let per = |(v, n): (f64, u64)| v / n.max(1) as f64;
                let d = per(self.sums[1]) < per(self.sums[0]);
                self.decided = Some(d);
                d
            }
        };
        self.cleared = [clear, last];
        clear
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps whose visits (since the previous step ended) are `keep` after a step that kept
    /// its move and `clear` after one that let go, `undone` of which undone from the log after
    /// a pair that let go: the policy chosen, once decided.
    fn decide(keep: u64, clear: u64, undone: u64) -> bool {
        let mut c = Clear::default();
        let mut visits = 0;
        let mut last = [false; 2];
        for _ in 0..TRIAL + 10 {
            visits += match last {
                [true, true] => {
                    c.undone(undone);
                    clear - undone
                }
                [true, false] => clear,
                _ => keep,
            };
            last = [c.end(visits), last[0]];
        }
        assert_eq!(c.decided, Some(last[0]));
        last[0]
    }

    /// The choice follows the work: steps that cost less kept, then steps that cost less let
    /// go of, each for a trial and its choice's span.
    #[test]
    fn the_choice_is_measured_again_as_the_work_changes() {
        let mut c = Clear::default();
        let mut visits = 0;
        let mut last = [false; 2];
        let mut choices = Vec::new();
        for (keep, clear) in [(100, 160), (100, 60), (100, 160)] {
            for _ in 0..TRIAL + RETRIAL {
                visits += if last[0] { clear } else { keep };
                last = [c.end(visits), last[0]];
            }
            choices.push(c.decided);
        }
        assert_eq!(choices, [Some(false), Some(true), Some(false)]);
    }

    #[test]
    fn the_cheaper_policy_is_kept() {
        assert!(decide(100, 60, 0));
        assert!(!decide(100, 160, 0));
        assert!(!decide(100, 101, 0));
        // An edge undone costs a quarter of one visited.
        assert!(decide(100, 120, 40));
        assert!(!decide(100, 140, 40));
    }
}
