//! The exploration constant set at the start clock from the game's length
//! ([`Exploration::Length`]): the mean number of choices in random games from the initial state,
//! `L`, gives `15 / L` (the length term of Sancho's rule, whose exploration term is on the same
//! scale as this search's), kept within [`FLOOR`]..[`CEILING`]. A step counts one choice for
//! each role with more than one legal move (at least one a step): a turn-taking game's length
//! is its number of steps, a step where two roles choose at once counts twice. Short games get
//! more exploration than long ones: connectFour (about 24 choices) 0.63, where 0.6 won against
//! 0.3; breakthrough (about 63) and longer games keep 0.3, where 0.6 lost; the two boards of
//! connectFourSimultaneous (about 18 steps, 36 choices) 0.42, where 0.5 and 0.3 each won
//! against the 0.82 of its steps.

use std::time::Instant;

use crate::Exploration;
use gdl_runtime::{Game, SplitMix64};

/// The least constant: the one measured best on breakthrough, the search's default.
const FLOOR: f64 = Exploration::BASELINE;

/// The greatest constant (Sancho's).
const CEILING: f64 = 1.2;

/// Random games measured at most.
const GAMES: u32 = 20;

/// Steps past which a random game is cut (and counted as this long).
const MAX_STEPS: u32 = 1000;

/// The constant chosen and the length it was chosen from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Chosen {
    pub(super) constant: f64,
    /// The mean length measured (`None`: a fixed constant was asked for).
    pub(super) length: Option<f64>,
}

impl std::fmt::Display for Chosen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.length {
            Some(l) => write!(
                f,
                "exploration {:.2} (games of {l:.0} steps)",
                self.constant
            ),
            None => write!(f, "exploration {}", self.constant),
        }
    }
}

/// The constant for `asked`: measured on `game` (up to [`GAMES`] random games while
/// `deadline` allows) for [`Exploration::Length`]; with no time for a game, the baseline's.
pub(super) fn at_start<G: Game>(
    game: &G,
    asked: Exploration,
    seed: u64,
    deadline: Instant,
) -> Chosen {
    match asked {
        Exploration::Fixed(c) => Chosen {
            constant: c,
            length: None,
        },
        Exploration::Length if Instant::now() >= deadline => Chosen {
            constant: asked.constant_or_baseline(),
            length: None,
        },
        Exploration::Length => {
            let length = mean_length(game, seed ^ 0x9e37_79b9, deadline, 1);
            Chosen {
                constant: for_length(length),
                length: Some(length),
            }
        }
    }
}

/// The constant for games of `length` choices on average.
pub(super) fn for_length(length: f64) -> f64 {
    (15.0 / length.max(1.0)).clamp(FLOOR, CEILING)
}

/// The mean number of choices (see the module) of uniform random games from the initial state
/// (at most [`MAX_STEPS`] steps each): `at_least` games, then up to [`GAMES`] while `deadline`
/// allows.
pub(super) fn mean_length<G: Game>(game: &G, seed: u64, deadline: Instant, at_least: u32) -> f64 {
    let mut rng = SplitMix64::new(seed);
    let (mut legal, mut joint) = (Vec::new(), Vec::new());
    let initial = game.initial_state();
    let (mut state, mut next) = (initial.clone(), initial.clone());
    let (mut choices, mut games) = (0u64, 0u32);
    'games: while games < GAMES && (games < at_least || Instant::now() < deadline) {
        games += 1;
        state.clone_from(&initial);
        for _ in 0..MAX_STEPS {
            if game.is_terminal(&state) {
                continue 'games;
            }
            joint.clear();
            let mut choosing = 0;
            for r in 0..game.role_count() {
                game.legal_moves(&state, r, &mut legal);
                if legal.len() > 1 {
                    choosing += 1;
                }
                match legal.get(rng.below(legal.len().max(1))) {
                    Some(&m) => joint.push(m),
                    None => continue 'games,
                }
            }
            game.next_state(&state, &joint, &mut next);
            std::mem::swap(&mut state, &mut next);
            choices += choosing.max(1);
        }
    }
    choices as f64 / f64::from(games.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl_runtime::toy::{Countdown, MatrixGame};

    #[test]
    fn short_games_explore_more_than_long_ones_within_the_bounds() {
        assert!(for_length(24.0) > for_length(63.0));
        assert_eq!(for_length(1.0), CEILING);
        assert_eq!(for_length(63.0), FLOOR);
        assert_eq!(for_length(0.0), CEILING);
    }

    #[test]
    fn a_fixed_constant_is_kept_and_a_length_is_measured_while_there_is_time() {
        let past = Instant::now();
        let fixed = at_start(&Countdown::new(10), Exploration::Fixed(0.7), 1, past);
        assert_eq!(
            fixed,
            Chosen {
                constant: 0.7,
                length: None
            }
        );
        // Past the deadline no game is played: the baseline's constant.
        assert_eq!(
            at_start(&Countdown::new(10), Exploration::Length, 1, past),
            Chosen {
                constant: Exploration::Length.constant_or_baseline(),
                length: None
            }
        );
        let soon = Instant::now() + std::time::Duration::from_millis(50);
        let measured = at_start(&Countdown::new(10), Exploration::Length, 1, soon);
        let length = measured.length.expect("measured");
        // Countdown from 10 by 1 or 2: 5 to 10 steps.
        assert!((5.0..=10.0).contains(&length), "{length}");
        assert_eq!(measured.constant, for_length(length));
    }

    #[test]
    fn a_step_where_two_roles_choose_counts_two_choices_and_a_forced_step_one() {
        let past = Instant::now();
        // One step, both roles choosing among three moves.
        let pennies = mean_length(&MatrixGame::rock_paper_scissors(), 7, past, 5);
        assert_eq!(pennies, 2.0);
        // From 1 the only move is `(minus 1)`: a forced step counts one.
        assert_eq!(mean_length(&Countdown::new(1), 7, past, 5), 1.0);
        // One role choosing at each step: the steps themselves.
        let countdown = mean_length(&Countdown::new(10), 7, past, 5);
        assert!((5.0..=10.0).contains(&countdown), "{countdown}");
    }
}
