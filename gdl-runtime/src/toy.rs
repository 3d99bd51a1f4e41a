//! A tiny hand-written game for the runtime's own tests.

use crate::{Game, RoleIndex};

/// One role, `only`, counts down from `start` by 1 or 2 (`(minus 1)`, `(minus 2)`); the game
/// ends at 0 with goal 100. With `bug_at = Some(n)`, `(minus 2)` is not legal at `n`: a
/// different game for the differential tests.
#[derive(Clone, Copy, Debug)]
pub struct Countdown {
    pub start: u32,
    pub bug_at: Option<u32>,
}

impl Countdown {
    pub fn new(start: u32) -> Self {
        Countdown {
            start,
            bug_at: None,
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
