//! Tests of the search on kinds of games: simultaneous moves (regret matching, Exp3),
//! single-player puzzles, three roles.

use std::time::Instant;

use super::tests::far;
use super::*;
use crate::toy::MatrixGame;

fn mixed(rule: SimultaneousRule, iterations: u64, seed: u64) -> Mcts<MatrixGame> {
    Mcts::new(MctsOptions {
        max_iterations: Some(iterations),
        seed,
        simultaneous: rule,
        ..MctsOptions::default()
    })
}

/// The average strategy of `role` at the root after a search of `iterations`.
fn root_strategy(game: &MatrixGame, rule: SimultaneousRule, role: usize, seed: u64) -> Vec<f64> {
    let mut p = mixed(rule, 20_000, seed);
    p.start(game, role, Instant::now());
    assert!(p.choose(game, &None, far()).is_some());
    p.root_strategy()
        .expect("a simultaneous root has a strategy")
}

fn assert_near(strategy: &[f64], expected: &[f64], tolerance: f64) {
    assert_eq!(strategy.len(), expected.len());
    for (s, e) in strategy.iter().zip(expected) {
        assert!(
            (s - e).abs() < tolerance,
            "{strategy:?} against {expected:?}"
        );
    }
}

#[test]
fn the_average_strategy_approaches_the_equilibrium_of_rock_paper_scissors() {
    let game = MatrixGame::rock_paper_scissors();
    let third = 1.0 / 3.0;
    for rule in [SimultaneousRule::RegretMatching, SimultaneousRule::Exp3] {
        for role in 0..2 {
            let s = root_strategy(&game, rule, role, 3 + role as u64);
            assert_near(&s, &[third; 3], 0.1);
        }
    }
}

#[test]
fn the_average_strategy_finds_an_uneven_equilibrium() {
    // The row role gets 100 for (0, 0), 50 for (1, 1), 0 otherwise: both roles play move 0
    // a third of the time at equilibrium.
    let game = MatrixGame {
        payoff: vec![vec![100, 0], vec![0, 50]],
    };
    for rule in [SimultaneousRule::RegretMatching, SimultaneousRule::Exp3] {
        for role in 0..2 {
            let s = root_strategy(&game, rule, role, 11);
            assert_near(&s, &[1.0 / 3.0, 2.0 / 3.0], 0.1);
        }
    }
    let pennies = MatrixGame::matching_pennies();
    let s = root_strategy(&pennies, SimultaneousRule::RegretMatching, 1, 5);
    assert_near(&s, &[0.5, 0.5], 0.1);
}

#[test]
fn the_move_played_is_drawn_not_pure() {
    // Each search ends on a move drawn from its average strategy: over searches, every move
    // of rock-paper-scissors is played about a third of the time, so no fixed answer beats
    // the player.
    let game = MatrixGame::rock_paper_scissors();
    for rule in [SimultaneousRule::RegretMatching, SimultaneousRule::Exp3] {
        let mut counts = [0; 3];
        for seed in 0..90 {
            let mut p = mixed(rule, 2000, seed);
            p.start(&game, 0, Instant::now());
            let mv = p.choose(&game, &None, far()).expect("a move");
            counts[mv as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c >= 15), "{rule:?}: {counts:?}");
    }
}

#[test]
fn decoupled_uct_keeps_no_strategy() {
    let game = MatrixGame::rock_paper_scissors();
    let mut p = mixed(SimultaneousRule::Duct, 1000, 1);
    p.start(&game, 0, Instant::now());
    assert!(p.choose(&game, &None, far()).is_some());
    assert_eq!(p.root_strategy(), None);
}
