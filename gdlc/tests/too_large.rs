//! Descriptions too large to ground in full: the plain attempt gives up early on a dynamic
//! relation past half the atom limit (and grounding on demand follows), and a hybrid module
//! (rules joined at run time) is raced against the interpreter, which is embedded instead
//! when the network is slower.

use std::time::Duration;

use gdlc::codegen::Backend;
use gdlc::compile;
use gdlc::ground::GroundOptions;
use gdlc::pipeline::{CompileOptions, Pass, run};

/// A counter to 14 and `pair`, 15 x 15 atoms of which `terminal` reads one (`(distinct ?y
/// 15)`, always true, keeps `?y` from being an inert position, which `src/inert.rs` would
/// drop: `pair` would be 15 atoms).
fn counter() -> String {
    let mut text = String::from(
        "(role p) (init (c 0)) (<= (legal p go) (true (c ?x))) \
         (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) \
         (<= (pair ?x ?y) (true (c ?x)) (n ?y) (distinct ?y 15)) \
         (<= terminal (true (c 14)) (pair 14 3)) (goal p 100)",
    );
    for i in 0..15 {
        text.push_str(&format!(" (n {i})"));
        if i < 14 {
            text.push_str(&format!(" (succ {i} {})", i + 1));
        }
    }
    text
}

#[test]
fn the_plain_attempt_stops_at_a_dynamic_relation_past_half_the_atom_limit() {
    let text = counter();
    let full = run(text.as_str(), &CompileOptions::default(), Pass::Ground).expect("grounds");
    let full = full.ground.expect("ground program").stats;
    assert!(!full.demand_driven, "{full:?}");
    assert!(full.dynamic_atoms > 225, "{full:?}");
    // 400 atoms allowed: the whole program (about 250 atoms) fits, but `pair` (225) passes
    // half of them, so the plain attempt stops there and grounding on demand asks for the
    // one atom of `pair` that `terminal` reads.
    let mut options = CompileOptions::default();
    options.ground.max_atoms = 400;
    let on_demand = run(text.as_str(), &options, Pass::Ground).expect("grounds on demand");
    let on_demand = on_demand.ground.expect("ground program").stats;
    assert!(on_demand.demand_driven, "{on_demand:?}");
    assert!(on_demand.dynamic_atoms < 100, "{on_demand:?}");
}

/// `far` (static, too large under the test's limits) becomes lazy; `hop` reads it, and its
/// head would have too many atoms: deferred (as in `deferred.rs`).
const HOPS: &str = include_str!("fixtures/hops.kif");

/// A game's options with limits small enough that HOPS compiles to a hybrid module.
fn hops_options() -> CompileOptions {
    let mut options = CompileOptions::for_game("hops");
    options.ground = GroundOptions {
        max_atoms: 200,
        max_join_heads: 100,
        ..options.ground
    };
    // Generous for a loaded machine: the race ends when both have spent their budget.
    options.race.wall_limit = Duration::from_secs(60);
    options.race.budget = Duration::from_millis(100);
    options
}

#[test]
fn a_hybrid_network_raced_and_fast_enough_is_generated() {
    // HOPS's network is raced; with no speed required of it (any state visited will do) it is
    // generated. (With its few gates and its joins at run time it is in fact slower than the
    // interpreter: 13,000 states per CPU second against 39,000 at load 9.)
    let mut options = hops_options();
    options.race.min_ratio = 0.0;
    let c = compile(HOPS, &options).expect("compiles");
    let race = c.stats.race.expect("a hybrid module is raced");
    assert!(!c.stats.embedded_interpreter, "{race:?}");
    assert!(!race.embed_interpreter, "{race:?}");
    assert_eq!(c.stats.backend, Backend::Propnet);
    assert!(
        race.network.finished && race.interpreter.finished,
        "{race:?}"
    );
    assert!(
        race.network.states > 0 && race.interpreter.states > 0,
        "{race:?}"
    );
}

#[test]
fn a_hybrid_network_slower_than_required_embeds_the_interpreter_and_says_why() {
    // No network can be a billion times faster than the interpreter: embedded, whatever the
    // load of the machine.
    let mut options = hops_options();
    options.race.min_ratio = 1e9;
    let c = compile(HOPS, &options).expect("compiles");
    let race = c.stats.race.expect("a hybrid module is raced");
    assert!(race.embed_interpreter, "{race:?}");
    assert!(c.stats.embedded_interpreter);
    assert!(c.rust.contains("embedded_game!"), "{}", c.rust);
    assert!(
        c.rust.contains("the interpreter") && c.rust.contains("states per CPU second"),
        "{}",
        c.rust
    );
    assert!(
        c.warnings
            .iter()
            .any(|d| d.code == "hybrid-slower" && d.message.contains("states per CPU second")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn no_race_without_the_interpreter_as_last_resort_nor_for_a_ground_game() {
    // Without the last resort (the `gdl!` macro's default) the network is generated.
    let mut options = hops_options();
    options.last_resort = gdlc::pipeline::LastResort::Fail;
    let c = compile(HOPS, &options).expect("compiles");
    assert!(c.stats.race.is_none());
    assert_eq!(c.stats.backend, Backend::Propnet);
    // Disabled.
    let mut options = hops_options();
    options.race.enabled = false;
    let c = compile(HOPS, &options).expect("compiles");
    assert!(c.stats.race.is_none() && !c.stats.embedded_interpreter);
    // Ground in full: no joins, nothing to race.
    let c = compile(counter().as_str(), &CompileOptions::for_game("counter")).expect("compiles");
    assert!(c.stats.race.is_none() && !c.stats.embedded_interpreter);
}
