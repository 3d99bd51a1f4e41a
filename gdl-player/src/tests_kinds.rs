//! Tests of the search on kinds of games: simultaneous moves (regret matching, Exp3),
//! single-player puzzles, three roles.

use std::time::Instant;

use super::tests::{Pos, Table, TableState, To, far};
use super::*;
use gdl_runtime::toy::{Lock, MatrixGame};

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

/// Plays `game` to its end with `p` searching `iterations` a move; the goal reached and the
/// first move played.
fn solve(game: &Lock, best_line: bool, iterations: u64, seed: u64) -> (i32, u8) {
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(iterations),
        exploration: Exploration::Fixed(1.0),
        seed,
        best_line,
        ..MctsOptions::default()
    });
    p.start(game, 0, Instant::now());
    let mut state = game.initial_state();
    let mut first = None;
    while !game.is_terminal(&state) {
        let mv = p.choose(game, &state, far()).expect("a move");
        first.get_or_insert(mv);
        let mut next = state;
        game.next_state(&state, &[mv], &mut next);
        p.observe(game, &[mv], &next);
        state = next;
    }
    (game.goal(&state, 0).unwrap_or(0), first.unwrap_or(0))
}

#[test]
fn a_puzzle_plays_the_best_line_found() {
    // The lock's 100 is one line in 16 of the lock's playouts, which average about 6: with
    // 800 iterations a move the open road (90 at best) is the most visited first move, and
    // it never reaches 100. A search that met the lock's line in a playout plays it to the
    // end.
    let game = Lock {
        digits: 4,
        steps: 24,
    };
    let mut rescued = 0;
    for seed in 0..20 {
        let (plain, plain_first) = solve(&game, false, 800, seed);
        let (best, best_first) = solve(&game, true, 800, seed);
        assert!(best >= plain, "seed {seed}: {best} < {plain}");
        if plain_first == 0 {
            assert!(plain < 100, "seed {seed}");
            if best == 100 {
                assert_eq!(best_first, 1, "seed {seed}");
                rescued += 1;
            }
        }
    }
    assert!(rescued >= 2, "{rescued} games won by the line alone");
}

#[test]
fn a_proven_puzzle_stops_the_search_and_is_played() {
    // Small enough to prove: the lock's line is found by the solver, which ends the search.
    let game = Lock {
        digits: 2,
        steps: 3,
    };
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(100_000),
        exploration: Exploration::Fixed(1.0),
        ..MctsOptions::default()
    });
    p.start(&game, 0, Instant::now());
    assert_eq!(p.choose(&game, &game.initial_state(), far()), Some(1));
    assert!(p.stats().proven, "{:?}", p.stats());
    assert!(p.stats().iterations < 100_000, "{:?}", p.stats());
    assert_eq!(p.root_proven(), Some(&[1.0][..]));
}

#[test]
fn a_timed_puzzle_search_ends_with_its_proof() {
    // Nested Monte Carlo search takes turns with the tree (half of each 20 ms), so a puzzle
    // proven at once ends a long search at once, its line played.
    let game = Lock {
        digits: 2,
        steps: 3,
    };
    let mut p = Mcts::new(MctsOptions {
        exploration: Exploration::Fixed(1.0),
        ..MctsOptions::default()
    });
    p.start(&game, 0, Instant::now());
    let began = Instant::now();
    let deadline = began + std::time::Duration::from_secs(60);
    assert_eq!(p.choose(&game, &game.initial_state(), deadline), Some(1));
    assert!(p.stats().proven, "{:?}", p.stats());
    assert!(began.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn a_puzzle_search_looks_past_a_proven_line() {
    // The road's lines are proven early (its best is 90), and scored at their exact goal
    // they drew every iteration of the nodes where they were proven, leaving the lock's
    // 100 unproven. Proven moves are left alone while another is open: the whole puzzle is
    // proven, and the lock played.
    let game = Lock {
        digits: 6,
        steps: 10,
    };
    for seed in 0..5 {
        let mut p = Mcts::new(MctsOptions {
            max_iterations: Some(20_000),
            exploration: Exploration::Fixed(1.0),
            best_line: false,
            seed,
            ..MctsOptions::default()
        });
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &game.initial_state(), far()), Some(1));
        assert_eq!(
            p.root_proven(),
            Some(&[1.0][..]),
            "seed {seed}: {:?}",
            p.stats()
        );
    }
}

#[test]
fn each_of_three_roles_maximises_its_own_goal() {
    // Role 0 either ends the game at once (50 each) or hands the choice to role 1, which
    // picks between (100, 70, 0) and (0, 60, 100). Role 1 takes its 70, so handing over gives
    // role 0 100: max^n hands over, where a paranoid search (the others against role 0) would
    // end the game, and role 2's wish (100) counts for nothing.
    let game = Table {
        roles: vec!["first", "second", "third"],
        positions: vec![
            Pos::Moves(vec![2, 1, 1], vec![To::At(1), To::At(2)]),
            Pos::Moves(vec![1, 2, 1], vec![To::At(3), To::At(4)]),
            Pos::End(vec![50, 50, 50]),
            Pos::End(vec![100, 70, 0]),
            Pos::End(vec![0, 60, 100]),
        ],
        long: 0,
    };
    for seed in 0..5 {
        let mut p = Mcts::new(MctsOptions {
            max_iterations: Some(1000),
            seed,
            ..MctsOptions::default()
        });
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(0));
        assert_eq!(p.root_proven(), Some(&[1.0, 0.7, 0.0][..]));
        let mut q = Mcts::new(MctsOptions {
            max_iterations: Some(1000),
            seed,
            ..MctsOptions::default()
        });
        q.start(&game, 1, Instant::now());
        assert_eq!(q.choose(&game, &TableState::At(1), far()), Some(0));
    }
}

#[test]
fn a_role_seen_playing_at_random_is_searched_as_chance() {
    // At 0 the second role keeps the game going (a long game that it wins half the time) or
    // ends it with nothing for anyone. At 1 the first role ends the game (50 each) or hands
    // the choice to the second, which picks between (100, 0, 0) and (20, 40, 100).
    let game = Table {
        roles: vec!["first", "second", "third"],
        positions: vec![
            Pos::Moves(
                vec![1, 4, 1],
                vec![To::Long, To::At(3), To::At(3), To::At(3)],
            ),
            Pos::Moves(vec![2, 1, 1], vec![To::At(4), To::At(2)]),
            Pos::Moves(vec![1, 2, 1], vec![To::At(5), To::At(6)]),
            Pos::End(vec![0, 0, 0]),
            Pos::End(vec![50, 50, 50]),
            Pos::End(vec![100, 0, 0]),
            Pos::End(vec![20, 40, 100]),
        ],
        long: 200,
    };
    let options = MctsOptions {
        max_iterations: Some(3000),
        seed: 5,
        ..MctsOptions::default()
    };
    // Who expects the second role to play its best keeps the choice from it (50 against 20).
    let mut p = Mcts::new(options.clone());
    p.start(&game, 0, Instant::now());
    assert_eq!(p.choose(&game, &TableState::At(1), far()), Some(0));
    // Seen ending the game for nothing, again and again, the second role plays at random:
    // handing it the choice is worth 60.
    // Six moves of the second role, each ending the game (`[0, 2, 0]`) or keeping it going.
    let watch = |p: &mut dyn Player<Table>, joint: [u8; 3], next: TableState| {
        p.start(&game, 0, Instant::now());
        for _ in 0..6 {
            p.choose(&game, &TableState::At(0), far());
            p.observe(&game, &joint, &next);
        }
    };
    let mut q = Mcts::new(options.clone());
    watch(&mut q, [0, 2, 0], TableState::At(3));
    let report = q.report().unwrap_or_default();
    assert!(report.contains("searched as random: second"), "{report}");
    assert_eq!(q.choose(&game, &TableState::At(1), far()), Some(1));
    // Handed to a player that takes the match over (the compiled game after the network),
    // the judgment stays: its next choice hands the second role the choice too; a player
    // without the model ignores it.
    let judged = q.judgments(&game).expect("the evidence");
    assert!(judged.starts_with("second:"), "{judged}");
    let mut next = Mcts::new(options.clone());
    next.start(&game, 0, Instant::now());
    next.choose(&game, &TableState::At(0), far());
    assert_eq!(next.adopt_judgments(&game, &judged), Ok(()));
    let report = next.report().unwrap_or_default();
    assert!(report.contains("searched as random: second"), "{report}");
    assert_eq!(next.choose(&game, &TableState::At(1), far()), Some(1));
    let mut parallel = ParallelMcts::new(options.clone(), 2);
    parallel.start(&game, 0, Instant::now());
    assert_eq!(parallel.adopt_judgments(&game, &judged), Ok(()));
    assert!(
        parallel
            .report()
            .unwrap_or_default()
            .contains("searched as random: second")
    );
    assert!(next.adopt_judgments(&game, "fourth:-3:5").is_err());
    let mut ignores = Mcts::new(MctsOptions {
        opponents: OpponentModel::Off,
        ..options.clone()
    });
    ignores.start(&game, 0, Instant::now());
    assert_eq!(ignores.adopt_judgments(&game, &judged), Ok(()));
    assert!(!ignores.report().unwrap_or_default().contains("random"));
    // Without the model (`--opponents off`) it is still searched as a player.
    let mut off = Mcts::new(MctsOptions {
        opponents: OpponentModel::Off,
        ..options.clone()
    });
    watch(&mut off, [0, 2, 0], TableState::At(3));
    assert!(!off.report().unwrap_or_default().contains("random"));
    assert_eq!(off.choose(&game, &TableState::At(1), far()), Some(0));
    // Through the parallel player's report too.
    let mut parallel = ParallelMcts::new(options.clone(), 1);
    watch(&mut parallel, [0, 2, 0], TableState::At(3));
    let report = parallel.report().unwrap_or_default();
    assert!(report.contains("searched as random: second"), "{report}");
    // Playing its best, it is not judged random.
    let mut r = Mcts::new(options);
    watch(&mut r, [0, 0, 0], TableState::Long { left: 200, sum: 0 });
    assert!(!r.report().unwrap_or_default().contains("random"));
}
