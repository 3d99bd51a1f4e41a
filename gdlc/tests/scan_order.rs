//! The order in which a rule evaluated at run time scans its literals (see
//! `gdlc::ground::hybrid`): a state fact that holds once in a state (a marker's position) is
//! scanned before a relation whose rows mostly hold, even when that relation has more
//! variables bound at that point. Scanning the moves from every square first and testing the
//! marker last made mummymaze1p's run-time join a hundred times slower than the interpreter.

use gdl_propnet::{ALWAYS, Step};
use gdlc::ground::GroundOptions;
use gdlc::pipeline::{CompileOptions, Pass, run};

/// `next (pos ..)` reads the marker `pos`, the move, `step` (static, five columns) and `far`
/// (static, too large under the test's limits: lazy); its instances are too many under the
/// test's limits, so it is evaluated at run time. `step` has the direction bound once the move
/// is scanned; the marker has no variable bound, but only one of its atoms holds.
const MAZE: &str = "
    (role p)
    (dir n) (dir e)
    (num 0) (num 1) (num 2) (num 3) (num 4) (num 5) (num 6) (num 7)
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
    (<= (far ?a ?b ?c ?d) (num ?a) (num ?b) (num ?c) (num ?d) (distinct ?a ?c))
    (<= (far ?a ?b ?c ?d) (num ?a) (num ?b) (num ?c) (num ?d) (distinct ?b ?d))
    (init (pos 0 0))
    (init (clock 0))
    (<= (step ?x ?y n ?x ?z) (num ?x) (succ ?y ?z))
    (<= (step ?x ?y e ?z ?y) (num ?y) (succ ?x ?z))
    (<= (legal p (move ?d)) (dir ?d))
    (<= (next (pos ?u ?v)) (does p (move ?d)) (step ?x ?y ?d ?u ?v) (true (pos ?x ?y))
        (far ?x ?y ?u ?v))
    (<= (next (clock ?m)) (true (clock ?n)) (succ ?n ?m))
    (<= terminal (true (clock 7)))
    (<= (goal p 100) (true (pos 7 7)))
    (<= (goal p 0) (not (true (pos 7 7))))";

#[test]
fn a_marker_that_holds_once_is_scanned_before_a_relation_that_mostly_holds() {
    let mut options = CompileOptions::for_game("maze");
    options.ground = GroundOptions {
        max_atoms: 600,
        max_rule_instances: 300,
        max_join_heads: 100,
        ..GroundOptions::default()
    };
    let a = match run(MAZE, &options, Pass::Ground) {
        Ok(a) => a,
        Err(e) => panic!("{e:?}"),
    };
    let g = a.ground.expect("a ground program");
    assert!(!g.joins.joins.is_empty(), "no rule left to run time");
    let scanned: Vec<String> = g
        .joins
        .joins
        .iter()
        .flat_map(|j| &j.rule.steps)
        .filter_map(|s| match s {
            Step::Scan { table, .. } => g.joins.tables.get(*table as usize),
            _ => None,
        })
        .map(|t| match t.signals.iter().find(|&&s| s != ALWAYS) {
            Some(&s) => g.text(s),
            None => format!("static, {} columns", t.width),
        })
        .collect();
    let at = |prefix: &str| scanned.iter().position(|t| t.starts_with(prefix));
    let (Some(pos), Some(step)) = (at("(true (pos"), at("static, 5 columns")) else {
        panic!("the join scans {scanned:?}");
    };
    assert!(pos < step, "the join scans {scanned:?}");
}
