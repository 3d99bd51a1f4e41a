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

/// A one-shot two-role game in which both roles choose at once: `payoff[a][b]` is the first
/// role's goal when it plays `a` and the second `b`; the second's is 100 minus it (a zero-sum
/// matrix game: rock-paper-scissors, matching pennies).
#[derive(Clone, Debug)]
pub struct MatrixGame {
    pub payoff: Vec<Vec<i32>>,
}

impl MatrixGame {
    /// Rock (0), paper (1), scissors (2): a win 100, a draw 50.
    pub fn rock_paper_scissors() -> Self {
        MatrixGame {
            payoff: vec![vec![50, 0, 100], vec![100, 50, 0], vec![0, 100, 50]],
        }
    }

    /// The first role wins when both show the same side.
    pub fn matching_pennies() -> Self {
        MatrixGame {
            payoff: vec![vec![100, 0], vec![0, 100]],
        }
    }
}

impl Game for MatrixGame {
    /// `None` before the moves, then the moves played.
    type State = Option<(u8, u8)>;
    type Move = u8;

    fn role_count(&self) -> usize {
        2
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        ["row", "column"][role]
    }

    fn initial_state(&self) -> Self::State {
        None
    }

    fn is_terminal(&self, state: &Self::State) -> bool {
        state.is_some()
    }

    fn legal_moves(&self, state: &Self::State, role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        if state.is_none() {
            let count = match role {
                0 => self.payoff.len(),
                _ => self.payoff.first().map_or(0, Vec::len),
            };
            out.extend(0..count as u8);
        }
    }

    fn next_state(&self, _state: &Self::State, joint: &[u8], next: &mut Self::State) {
        *next = Some((joint[0], joint[1]));
    }

    fn goal(&self, state: &Self::State, role: RoleIndex) -> Option<i32> {
        let (a, b) = (*state)?;
        let first = *self.payoff.get(a as usize)?.get(b as usize)?;
        Some(if role == 0 { first } else { 100 - first })
    }

    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(&format!("(show {mv})"));
    }

    fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<u8> {
        text.strip_prefix("(show ")?.strip_suffix(')')?.parse().ok()
    }

    fn write_state(&self, state: &Self::State, out: &mut Vec<String>) {
        if let Some((a, b)) = state {
            out.push(format!("(shown {a} {b})"));
        }
    }
}

/// A puzzle of one role: first `(0)` (the open road) or `(1)` (the lock), then `steps` binary
/// choices. On the open road the goal is 50 plus 40 times the share of `(1)`s chosen (at
/// most 90); through the lock it is 100 when the first `digits` choices are all `(1)`, else
/// 0. Random play rates the road far above the lock, whose only 100 is one narrow line.
#[derive(Clone, Copy, Debug)]
pub struct Lock {
    pub digits: u8,
    pub steps: u8,
}

impl Lock {
    /// The state after `moves` from the initial state.
    pub fn after(&self, moves: &[u8]) -> LockState {
        let mut state = self.initial_state();
        for &mv in moves {
            let mut next = state;
            self.next_state(&state, &[mv], &mut next);
            state = next;
        }
        state
    }
}

/// A state of [`Lock`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LockState {
    /// Choices made (the first one included).
    pub made: u8,
    /// The lock was taken.
    pub lock: bool,
    /// `(1)`s chosen after the first choice.
    pub ones: u8,
    /// Every choice after the first was `(1)` so far.
    pub open: bool,
}

impl Game for Lock {
    type State = LockState;
    type Move = u8;

    fn role_count(&self) -> usize {
        1
    }

    fn role_name(&self, _role: RoleIndex) -> &str {
        "solver"
    }

    fn initial_state(&self) -> LockState {
        LockState {
            open: true,
            ..LockState::default()
        }
    }

    fn is_terminal(&self, s: &LockState) -> bool {
        s.made > self.steps
    }

    fn legal_moves(&self, s: &LockState, _role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        if !self.is_terminal(s) {
            out.extend([0, 1]);
        }
    }

    fn next_state(&self, s: &LockState, joint: &[u8], next: &mut LockState) {
        let mv = joint[0];
        *next = *s;
        next.made += 1;
        if s.made == 0 {
            next.lock = mv == 1;
        } else {
            next.ones += mv;
            if s.made <= self.digits && mv == 0 {
                next.open = false;
            }
        }
    }

    fn goal(&self, s: &LockState, _role: RoleIndex) -> Option<i32> {
        Some(match s.lock {
            true if s.open => 100,
            true => 0,
            false => 50 + 40 * i32::from(s.ones) / i32::from(self.steps.max(1)),
        })
    }

    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(&format!("({mv})"));
    }

    fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<u8> {
        text.strip_prefix('(')?.strip_suffix(')')?.parse().ok()
    }

    fn write_state(&self, s: &LockState, out: &mut Vec<String>) {
        out.push(format!("(made {}) (ones {})", s.made, s.ones));
    }
}
