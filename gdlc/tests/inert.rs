//! Inert argument positions (`src/inert.rs`) on the fixture `tests/fixtures/bitDepth.kif`,
//! ruleDepthExponential's shape at depth 6: `(prereq6 ?b5 .. ?b0)` is grounded as one atom,
//! not one per value of its six bits (2^6, and 2^20 in ruleDepthExponential). That the game
//! still plays as the interpreter does is checked by the compiled corpus tests
//! (`tests/tests/compiled.rs`, its fixture games).

use gdlc::pipeline::{self, CompileOptions, Pass};

const SOURCE: &str = include_str!("fixtures/bitDepth.kif");

#[test]
fn a_relation_of_inert_bits_grounds_to_one_atom() {
    let options = CompileOptions::for_game("bitDepth");
    let a = pipeline::run(SOURCE, &options, Pass::Ground).expect("bitDepth grounds");
    let text = a.render(Pass::Ground);
    let ground = a.ground.as_ref().expect("a ground program");
    // Each `prereqK` is one atom of no arguments (the bits dropped).
    assert!(text.contains("(<= prereq6 ~6 (true (step 6)))"), "{text}");
    assert!(!text.contains("(prereq6 0"), "{text}");
    // Before: 2 + 4 + .. + 64 atoms of `prereqK` (126) and the others (45).
    assert!(
        ground.stats.dynamic_atoms < 60,
        "{} dynamic atoms",
        ground.stats.dynamic_atoms
    );
}
