//! Tests of the AMAF statistics and of RAVE / GRAVE selection on Nim.

use std::time::Instant;

use super::super::store::{Store, state_hash};
use super::*;
use crate::tests::{Nim, far};
use crate::{Mcts, MctsOptions, Player};
use gdl_runtime::SplitMix64;

/// Nim's moves: 0 noop, 1 take 1, 2 take 2.
fn store_with(game: &Nim, states: &[(u32, usize)]) -> (Store<Nim>, Vec<u32>) {
    let mut store = Store::new(2, 100, usize::MAX);
    store.keep_amaf(game);
    let nodes = states
        .iter()
        .map(|s| store.add(game, s, state_hash(s), 1, 0).expect("room"))
        .collect();
    (store, nodes)
}

/// Role `r`'s AMAF (visits, sum) per move in node `n`, by move.
fn amaf_of(store: &Store<Nim>, n: u32, r: usize) -> Vec<(u8, u32, f64)> {
    let (start, len) = store.range(n, r);
    let table = store.amaf.as_ref().expect("kept");
    store
        .moves(n, r)
        .iter()
        .zip(table.stats.block(start as u32, len))
        .map(|(m, s)| (m.mv, s.visits, s.sum))
        .collect()
}

fn grave() -> AmafOptions {
    AmafOptions {
        mode: AmafMode::Grave,
        ..AmafOptions::default()
    }
}

#[test]
fn amaf_counts_the_moves_of_the_same_role_at_a_node_or_below() {
    let game = Nim { pile: 10 };
    // The path: first takes 1 at pile 10, second takes 2 at pile 9; the playout from pile 7:
    // first takes 1, second takes 2, ... (only the first joint move matters here).
    let (mut store, nodes) = store_with(&game, &[(10, 0), (9, 1)]);
    let (root, child) = (nodes[0], nodes[1]);
    let mut amaf = Amaf::new(grave()).expect("on");
    let goals = [1.0, 0.0];
    amaf.played_out(&mut store, &game, Some(&[1, 0, 0, 2]));
    // Role 1's move "take 2" is index 1 in the child (moves 1 and 2).
    amaf.update(&mut store, child, &[0, 1], &goals);
    amaf.update(&mut store, root, &[0, 0], &goals);
    // At the root, first played "take 1" (there and in the playout); "take 2" only by
    // second, which does not count for first.
    assert_eq!(amaf_of(&store, root, 0), vec![(1, 1, 1.0), (2, 0, 0.0)]);
    // At the child, second played "take 2" (there and in the playout); first's "take 1"
    // below it does not count for second, nor does first's move above it.
    assert_eq!(amaf_of(&store, child, 1), vec![(1, 0, 0.0), (2, 1, 0.0)]);
    // A role with one move keeps no statistics worth reading: its only move is counted or not,
    // but it is never chosen by them.
    assert_eq!(amaf_of(&store, root, 1).len(), 1);
    // A new iteration starts from nothing played.
    amaf.played_out(&mut store, &game, None);
    amaf.update(&mut store, child, &[0, 0], &goals);
    assert_eq!(amaf_of(&store, child, 1), vec![(1, 1, 0.0), (2, 1, 0.0)]);
}

#[test]
fn grave_reads_the_closest_ancestor_with_enough_iterations() {
    let game = Nim { pile: 10 };
    let (mut store, nodes) = store_with(&game, &[(10, 0), (9, 1), (7, 0)]);
    let (root, child, grandchild) = (nodes[0], nodes[1], nodes[2]);
    // Root: 60 iterations (enough), AMAF of first's "take 2": 40 visits, all won.
    store.nodes[root as usize].total = 60;
    store.nodes[child as usize].total = 60;
    store.nodes[grandchild as usize].total = 3;
    let (start, len) = store.range(root, 0);
    let table = store.amaf.as_mut().expect("kept");
    table.stats.block_mut(start as u32, len)[1].visits = 40;
    table.stats.block_mut(start as u32, len)[1].sum = 40.0;
    let mut amaf = Amaf::new(grave()).expect("on");
    amaf.begin();
    for n in [root, child, grandchild] {
        amaf.enter(&store, n);
        amaf.prepare(&store, n, 0);
    }
    // The grandchild (3 iterations) reads the root's statistics for first: the child has
    // enough iterations but no choice for first.
    let prior = amaf.prior(&store, grandchild, 0).expect("on");
    assert_eq!(prior.get(1), (40, 40.0), "the root is the reference");
    assert_eq!(prior.value(1, 0, 0.0), Some(1.0));
    // Its own visits weigh in: 40 AMAF visits at 1.0, 40 visits at 0.0, mixed by beta.
    let v = prior.value(1, 40, 0.0).expect("visited");
    let beta = 40.0 / (80.0 + grave().bias * 1600.0);
    assert!((v - beta).abs() < 1e-9 && v < 0.5, "{v} {beta}");
    // With enough iterations of its own, the grandchild is its own reference.
    store.nodes[grandchild as usize].total = 50;
    let mut few = Amaf::new(grave()).expect("on");
    few.begin();
    for n in [root, child, grandchild] {
        few.enter(&store, n);
        few.prepare(&store, n, 0);
    }
    assert_eq!(
        few.prior(&store, grandchild, 0).expect("on").get(1),
        (0, 0.0)
    );
    // RAVE reads the node's own (none).
    let mut rave = Amaf::new(AmafOptions {
        mode: AmafMode::Rave,
        ..AmafOptions::default()
    })
    .expect("on");
    rave.begin();
    rave.enter(&store, grandchild);
    rave.prepare(&store, grandchild, 0);
    let prior = rave.prior(&store, grandchild, 0).expect("on");
    assert_eq!(prior.get(1), (0, 0.0));
}

#[test]
fn a_move_proven_lost_is_never_taken_whatever_its_amaf() {
    let game = Nim { pile: 10 };
    let (mut store, nodes) = store_with(&game, &[(10, 0)]);
    let n = nodes[0];
    store.nodes[n as usize].total = 100;
    // "take 1" proven lost; its AMAF all wins, "take 2"'s all losses.
    store.solved_mut(n, 0).expect("room")[0] = 0.0;
    store.nodes[n as usize].proof_count = 1;
    let (start, len) = store.range(n, 0);
    let table = store.amaf.as_mut().expect("kept");
    table.stats.block_mut(start as u32, len)[0].visits = 1000;
    table.stats.block_mut(start as u32, len)[0].sum = 1000.0;
    table.stats.block_mut(start as u32, len)[1].visits = 1000;
    let mut amaf = Amaf::new(grave()).expect("on");
    amaf.begin();
    amaf.enter(&store, n);
    amaf.prepare(&store, n, 0);
    let prior = amaf.prior(&store, n, 0).expect("on");
    let mut rng = SplitMix64::new(3);
    for _ in 0..20 {
        assert_eq!(pick(&store, &mut rng, 0.3, n, 0, &prior), 1);
    }
}

#[test]
fn grave_and_rave_still_prove_the_won_moves_of_nim() {
    let game = Nim { pile: 12 };
    for mode in [AmafMode::Grave, AmafMode::Rave] {
        for pile in [4u32, 7, 8, 11] {
            let mut p = Mcts::new(MctsOptions {
                max_iterations: Some(100_000),
                seed: u64::from(pile),
                amaf: AmafOptions {
                    mode,
                    ..AmafOptions::default()
                },
                ..MctsOptions::default()
            });
            p.start(&game, 0, Instant::now());
            let mv = p.choose(&game, &(pile, 0), far());
            assert_eq!(mv, Some((pile % 3) as u8), "{mode:?} pile {pile}");
            assert_eq!(
                p.root_proven(),
                Some(&[1.0, 0.0][..]),
                "{mode:?} pile {pile}"
            );
        }
    }
}
