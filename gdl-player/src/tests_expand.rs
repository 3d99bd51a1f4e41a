//! Tests of decisive expansion ([`Expansion::Decisive`], `mcts/expand.rs`): terminal
//! children are proven when their parent is made, without a playout.

use std::time::Instant;

use super::tests::{Pos, Table, TableState, To, far, trap, turn_of_first};
use super::*;

const EXPANSIONS: [Expansion; 2] = [Expansion::Decisive, Expansion::DecisiveAtOnce];

fn expanding(iterations: u64, seed: u64, expansion: Expansion) -> Mcts<Table> {
    Mcts::new(MctsOptions {
        max_iterations: Some(iterations),
        seed,
        expansion,
        ..MctsOptions::default()
    })
}

#[test]
fn a_root_with_a_win_in_one_is_proven_without_an_iteration() {
    // Move 13 of 20 wins; every other leads to the long game.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(20, |i| if i == 13 { To::At(1) } else { To::Long }),
            Pos::End(vec![100, 0]),
        ],
        long: 200,
    };
    for (seed, expansion) in (0..6).zip(EXPANSIONS.iter().cycle()) {
        let mut p = expanding(10_000, seed, *expansion);
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(13));
        let stats = p.stats();
        assert!(stats.proven && stats.iterations == 0, "{stats:?}");
        assert_eq!(p.root_proven(), Some(&[1.0, 0.0][..]));
    }
    // Without it, the win is found by trying the moves (at most 20 iterations).
    let mut plain = Mcts::new(MctsOptions {
        max_iterations: Some(10_000),
        ..MctsOptions::default()
    });
    plain.start(&game, 0, Instant::now());
    assert_eq!(plain.choose(&game, &TableState::At(0), far()), Some(13));
    assert!(plain.stats().iterations >= 1, "{:?}", plain.stats());
}

#[test]
fn auto_expands_decisively_with_three_roles_only() {
    // Move 13 of 20 wins for the first role; every other leads to the long game.
    let game = |roles: Vec<&'static str>| {
        let mut counts = vec![1; roles.len()];
        counts[0] = 20;
        let mut end = vec![0; roles.len()];
        end[0] = 100;
        let to = (0..20).map(|i| if i == 13 { To::At(1) } else { To::Long });
        Table {
            roles,
            positions: vec![Pos::Moves(counts, to.collect()), Pos::End(end)],
            long: 200,
        }
    };
    let iterations = |game: &Table| {
        let mut p = expanding(10_000, 3, Expansion::Auto);
        p.start(game, 0, Instant::now());
        assert_eq!(p.choose(game, &TableState::At(0), far()), Some(13));
        p.stats().iterations
    };
    assert_eq!(iterations(&game(vec!["first", "second", "third"])), 0);
    assert!(iterations(&game(vec!["first", "second"])) >= 1);
}

#[test]
fn a_move_into_a_loss_in_one_is_proven_on_its_first_visit() {
    // Role 0 has 8 moves; after each but move 5, role 1 has 8 replies of which one wins for
    // it at once (reply 3); move 5 leads to the long game.
    let game = trap(0);
    for (seed, &expansion) in (0..20).zip(EXPANSIONS.iter().cycle()) {
        // The default exploration: without decisive expansion some traps stay unproven
        // (`a_loss_in_one_is_avoided`); with it, the trap's node is proven when made (by
        // the one iteration that made it), or at its first descent (the second visit).
        let mut p = expanding(400, seed, expansion);
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(5));
        let moves = p.root_moves();
        let most = match expansion {
            Expansion::DecisiveAtOnce => 1,
            _ => 2,
        };
        for m in &moves {
            let expected = (m.mv != 5).then_some(0.0);
            assert_eq!(m.proven, expected, "{expansion:?} {seed}: {moves:?}");
            assert!(
                m.mv == 5 || m.visits <= most,
                "{expansion:?} {seed}: {moves:?}"
            );
        }
    }
}

#[test]
fn simultaneous_nodes_are_left_to_the_iterations() {
    // Both roles choose at once; joint move (1, 1) ends with a win for the first: a node
    // where two roles choose is proven only when terminal.
    let game = Table {
        roles: vec!["a", "b"],
        positions: vec![
            Pos::Moves(vec![2, 2], vec![To::Long, To::Long, To::Long, To::At(1)]),
            Pos::End(vec![100, 0]),
        ],
        long: 200,
    };
    let mut p = expanding(200, 1, Expansion::Decisive);
    p.start(&game, 0, Instant::now());
    assert!(p.choose(&game, &TableState::At(0), far()).is_some());
    assert!(!p.stats().proven, "{:?}", p.stats());
    assert_eq!(p.stats().iterations, 200);
}

#[test]
fn expansion_names_read_back() {
    for e in [
        Expansion::Plain,
        Expansion::Decisive,
        Expansion::DecisiveAtOnce,
    ] {
        assert_eq!(Expansion::parse(e.name()), Some(e));
    }
    assert_eq!(Expansion::parse("eager"), None);
}
