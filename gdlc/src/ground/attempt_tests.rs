//! Which attempts grounding makes after the plain one stops at a large dynamic relation.

use crate::ground::{GroundOptions, ground};

/// A counter to 14, `(n 0)` .. `(n 9)`, `r` (a counter value and an `n`: 150 atoms once every
/// value is reached), `l` (an `r` and an `n`: 1,500), both read by legal moves, and `w`
/// (15 atoms) that `goal` reads in full.
fn description(legal_l: &str) -> crate::normalize::NProgram {
    let mut text = format!(
        "(role p) (init (c 0)) \
         (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) \
         (<= (r ?x ?y) (true (c ?x)) (n ?y)) \
         (<= (l ?x ?y ?z) (r ?x ?y) (n ?z)) \
         (<= (legal p (go ?y)) (true (c ?x)) (r ?x ?y)) \
         (<= (legal p (pick ?y)) (true (c ?x)) {legal_l}) \
         (<= (w ?x) (true (c ?x)) (n ?a) (n ?b) (n ?d) (distinct ?a ?b) (distinct ?b ?d)) \
         (<= (goal p 100) (w ?x)) (<= terminal (true (c 14)))"
    );
    for i in 0..15 {
        if i < 10 {
            text.push_str(&format!(" (n {i})"));
        }
        if i < 14 {
            text.push_str(&format!(" (succ {i} {})", i + 1));
        }
    }
    crate::ground::test_support::normalised(&text)
}

/// 4,000 atoms: the plain attempt stops at `l` past 1,000; a hybrid attempt at a dynamic
/// relation past 125 (`r` reaches 150).
fn small() -> GroundOptions {
    GroundOptions {
        max_atoms: 4_000,
        ..GroundOptions::default()
    }
}

/// A counter to 14, `l` (a counter value and two of `(n 0)` .. `(n 7)`: 960 atoms) of which
/// legal moves read one per state, and `w`, 8,000 join steps for each of the last three values
/// of the counter and one atom each, which `goal` reads.
fn late_work() -> crate::normalize::NProgram {
    let mut text = String::from(
        "(role p) (init (c 0)) \
         (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) \
         (<= (l ?x ?y ?z) (true (c ?x)) (n ?y) (n ?z)) \
         (<= (legal p pick) (true (c ?x)) (l ?x 3 3)) \
         (<= (w ?x) (true (c ?x)) (late ?x) (m ?a) (m ?b) (m ?d) (distinct ?a ?b) (distinct ?b ?d)) \
         (<= (goal p 100) (w ?x)) (<= terminal (true (c 14))) (late 12) (late 13) (late 14)",
    );
    for i in 0..20 {
        text.push_str(&format!(" (m {i})"));
        if i < 8 {
            text.push_str(&format!(" (n {i})"));
        }
        if i < 14 {
            text.push_str(&format!(" (succ {i} {})", i + 1));
        }
    }
    crate::ground::test_support::normalised(&text)
}

#[test]
fn the_attempt_on_demand_spends_no_more_than_the_plain_attempt_that_stopped_early() {
    let nprog = late_work();
    // Within the default limits: ground in full.
    let full = ground(&nprog, &GroundOptions::default()).expect("grounds");
    assert!(!full.stats.demand_driven, "{:?}", full.stats);
    assert_eq!(full.stats.join_rules, 0, "{:?}", full.stats);
    // With 3,000 atoms the plain attempt stops at `l` (past 750 atoms) in 1,771 join steps.
    // On demand, `l` has 15 atoms, but `w` takes 46,175 steps: the attempt is stopped at
    // 1,771 and the hybrid one follows, with `l` asked at run time.
    let options = GroundOptions {
        max_atoms: 3_000,
        ..GroundOptions::default()
    };
    let g = ground(&nprog, &options).expect("grounds with joins at run time");
    let stats = g.stats;
    assert!(stats.plain_work > 0, "{stats:?}");
    assert_eq!(stats.on_demand_work, stats.plain_work, "{stats:?}");
    assert!(!stats.demand_driven, "{stats:?}");
    assert_eq!(stats.hybrid_attempts, 1, "{stats:?}");
    assert_eq!(stats.join_rules, 1, "{stats:?}");
}

#[test]
fn hybrid_grounding_starts_with_the_large_relations_a_relation_too_large_reads_deferred() {
    // Legal moves read every `l`: on demand it is as large, and its attempt fails. When the
    // plain attempt stops at `l`, `r` (which `l` reads) has more than 4,000 / 128 atoms: the
    // hybrid attempt defers it with `l` from the start, rather than stopping at it (150 atoms
    // > 4,000 / 32) and trying again.
    let nprog = description("(l ?x ?y ?z)");
    let full = ground(&nprog, &GroundOptions::default()).expect("grounds");
    assert_eq!(full.stats.join_rules, 0, "{:?}", full.stats);
    let g = ground(&nprog, &small()).expect("grounds with joins at run time");
    let stats = g.stats;
    assert!(!stats.demand_driven, "{stats:?}");
    assert!(stats.on_demand_work > 0, "{stats:?}");
    assert_eq!(stats.hybrid_attempts, 1, "{stats:?}");
    assert_eq!(stats.lazy_relations, 2, "{stats:?}");
    assert_eq!(stats.join_rules, 2, "{stats:?}");
}
