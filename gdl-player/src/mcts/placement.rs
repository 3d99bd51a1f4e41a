//! Whether a game's moves are placements, measured in random games at the start clock: the
//! test of [`crate::AmafMode::Auto`]. A move is a placement when, once a role has played it,
//! it is never legal for that role again in the game: a stone placed on a cell of hex or
//! reversi, a mark in tic-tac-toe. There a move's id names what it claims for good, whatever
//! the step it is played at, which is what AMAF statistics (RAVE, GRAVE) assume. Dropping a
//! disc in a column of connectFour or moving a piece of breakthrough from one cell to another
//! are not placements: the same move comes back, and means something else then.

use std::time::Instant;

use gdl_runtime::{Game, SplitMix64};

/// Random games played at most.
const GAMES: u32 = 30;
/// Steps past which a random game is cut.
const MAX_STEPS: usize = 400;

/// What the measurement found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Placements {
    /// The choices of the random games looked at (a role's move among two or more, in a game
    /// that ended).
    pub(super) choices: u32,
    /// Those whose move was never legal for the role again in the game.
    pub(super) placements: u32,
}

impl Placements {
    /// The share of choices that were placements (0 without a choice).
    pub(super) fn rate(&self) -> f64 {
        f64::from(self.placements) / f64::from(self.choices.max(1))
    }
}

impl std::fmt::Display for Placements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.0}% of {} moves never legal again",
            self.rate() * 100.0,
            self.choices
        )
    }
}

/// Measures `game` in random games from the initial state: up to [`GAMES`] games while
/// `deadline` allows (checked at each step; a game cut short is not counted).
pub(super) fn measure<G: Game>(game: &G, seed: u64, deadline: Instant) -> Placements {
    let mut rng = SplitMix64::new(seed ^ 0x91ac_e5e7);
    let mut found = Placements::default();
    let roles = game.role_count();
    // Per step of the game, per role: its legal moves.
    let mut legal: Vec<Vec<G::Move>> = Vec::new();
    let mut joints: Vec<G::Move> = Vec::new();
    let mut next = game.initial_state();
    'games: for _ in 0..GAMES {
        let mut state = game.initial_state();
        joints.clear();
        let mut steps = 0;
        loop {
            if Instant::now() >= deadline || steps == MAX_STEPS {
                break 'games;
            }
            if game.is_terminal(&state) {
                break;
            }
            for r in 0..roles {
                let k = steps * roles + r;
                if legal.len() <= k {
                    legal.push(Vec::new());
                }
                game.legal_moves(&state, r, &mut legal[k]);
                match legal[k].get(rng.below(legal[k].len().max(1))) {
                    Some(&m) => joints.push(m),
                    None => continue 'games,
                }
            }
            game.next_state(&state, &joints[steps * roles..], &mut next);
            std::mem::swap(&mut state, &mut next);
            steps += 1;
        }
        for (k, mv) in joints.iter().enumerate() {
            if legal[k].len() < 2 || game.is_random_role(k % roles) {
                continue;
            }
            found.choices += 1;
            let later = (k + roles..steps * roles).step_by(roles);
            if later.into_iter().all(|l| !legal[l].contains(mv)) {
                found.placements += 1;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AmafMode;
    use crate::mcts::amaf;
    use gdl_runtime::RoleIndex;
    use gdl_runtime::toy::Countdown;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    /// One role marks the cells 0 to 8 one by one, in any order, until all are marked: every
    /// move is a placement.
    struct Marks;

    impl Game for Marks {
        type State = u16;
        type Move = u8;
        fn role_count(&self) -> usize {
            1
        }
        fn role_name(&self, _role: RoleIndex) -> &str {
            "only"
        }
        fn initial_state(&self) -> u16 {
            0
        }
        fn is_terminal(&self, s: &u16) -> bool {
            *s == 0x1ff
        }
        fn legal_moves(&self, s: &u16, _role: RoleIndex, out: &mut Vec<u8>) {
            out.clear();
            out.extend((0..9).filter(|&c| s >> c & 1 == 0));
        }
        fn next_state(&self, s: &u16, joint: &[u8], next: &mut u16) {
            *next = s | 1 << joint[0];
        }
        fn goal(&self, _s: &u16, _role: RoleIndex) -> Option<i32> {
            Some(100)
        }
        fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
            out.push_str(&mv.to_string());
        }
        fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<u8> {
            text.parse().ok()
        }
        fn write_state(&self, s: &u16, out: &mut Vec<String>) {
            out.push(format!("(marked {s})"));
        }
    }

    #[test]
    fn marking_cells_is_placing_and_counting_down_is_not() {
        let marks = measure(&Marks, 3, far());
        // 30 games of 8 choices (the last cell is forced).
        assert_eq!(marks.choices, 30 * 8, "{marks:?}");
        assert_eq!(marks.placements, marks.choices, "{marks}");
        // Countdown takes 1 or 2 from a pile: both stay legal until the pile is small, so
        // only the last choices of a game are never legal again.
        let pile = measure(&Countdown::new(30), 3, far());
        assert!(pile.choices > 200, "{pile:?}");
        assert!(pile.rate() < 0.2, "{pile}");
    }

    #[test]
    fn auto_plays_grave_where_moves_are_placements_and_no_amaf_elsewhere_or_without_time() {
        let marks = amaf::at_start(&Marks, AmafMode::Auto, 1, far()).unwrap();
        assert_eq!(marks.mode, AmafMode::Grave, "{marks}");
        assert_eq!(
            marks.to_string(),
            "grave (100% of 240 moves never legal again)"
        );
        let pile = amaf::at_start(&Countdown::new(30), AmafMode::Auto, 1, far()).unwrap();
        assert_eq!(pile.mode, AmafMode::Off, "{pile}");
        assert!(pile.to_string().starts_with("no AMAF ("), "{pile}");
        // No time: no game, and nothing decided on none.
        let late = amaf::at_start(&Marks, AmafMode::Auto, 1, Instant::now());
        assert_eq!(
            late.map(|c| (c.mode, c.placements.choices)),
            Some((AmafMode::Off, 0))
        );
        // Another mode is kept as asked, unmeasured.
        assert!(amaf::at_start(&Marks, AmafMode::Rave, 1, far()).is_none());
    }
}
