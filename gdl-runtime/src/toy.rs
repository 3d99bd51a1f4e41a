//! A tiny hand-written game for the runtime's own tests.

use crate::{Game, RoleIndex, SplitMix64};

/// One role, `only`, counts down from `start` by 1 or 2 (`(minus 1)`, `(minus 2)`); the game
/// ends at 0 with goal 100. With `bug_at = Some(n)`, `(minus 2)` is not legal at `n`: a
/// different game for the differential tests. With `draws_first`, `random_legal_move` always
/// answers the first legal move (a broken override); with `steps_by_one`, `random_step`
/// draws as it should but plays `(minus 1)` (another broken override).
#[derive(Clone, Copy, Debug)]
pub struct Countdown {
    pub start: u32,
    pub bug_at: Option<u32>,
    pub draws_first: bool,
    pub steps_by_one: bool,
}

impl Countdown {
    pub fn new(start: u32) -> Self {
        Countdown {
            start,
            bug_at: None,
            draws_first: false,
            steps_by_one: false,
        }
    }
}

impl Game for Countdown {
    type State = u32;
    type Move = u8;

    fn role_count(&self) -> usize {
        1
    }

    fn role_name(&self, _role: RoleIndex) -> &str {
        "only"
    }

    fn initial_state(&self) -> u32 {
        self.start
    }

    fn is_terminal(&self, state: &u32) -> bool {
        *state == 0
    }

    fn legal_moves(&self, state: &u32, _role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        out.push(1);
        if *state >= 2 && self.bug_at != Some(*state) {
            out.push(2);
        }
    }

    fn random_legal_move(
        &self,
        state: &u32,
        role: RoleIndex,
        rng: &mut SplitMix64,
        scratch: &mut Vec<u8>,
    ) -> Option<u8> {
        self.legal_moves(state, role, scratch);
        let n = scratch.len();
        let k = if n == 0 { return None } else { rng.below(n) };
        Some(if self.draws_first {
            scratch[0]
        } else {
            scratch[k]
        })
    }

    fn random_step(
        &self,
        state: &u32,
        rng: &mut SplitMix64,
        scratch: &mut Vec<u8>,
        joint: &mut Vec<u8>,
        next: &mut u32,
    ) -> Result<(), RoleIndex> {
        let m = self
            .random_legal_move(state, 0, rng, scratch)
            .ok_or(0usize)?;
        joint.clear();
        joint.push(if self.steps_by_one { 1 } else { m });
        self.next_state(state, joint, next);
        Ok(())
    }

    fn next_state(&self, state: &u32, joint: &[u8], next: &mut u32) {
        *next = state.saturating_sub(u32::from(joint[0]));
    }

    fn goal(&self, _state: &u32, _role: RoleIndex) -> Option<i32> {
        Some(100)
    }

    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(if mv == 1 { "(minus 1)" } else { "(minus 2)" });
    }

    fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<u8> {
        match text {
            "(minus 1)" => Some(1),
            "(minus 2)" => Some(2),
            _ => None,
        }
    }

    fn write_state(&self, state: &u32, out: &mut Vec<String>) {
        out.push(format!("(count {state})"));
    }
}
