//! The arms of the inline backend's `next` (`src/codegen/inline/next.rs`) on the fixture
//! `tests/fixtures/jumpOver.kif`: the disjuncts of a set of moves (the jumps over a cell,
//! both ways) under a test of the state (the cell keeps its piece unless it is captured) are
//! computed in the arms of those moves, not for every move, and the bits a move keeps under
//! one condition are one masked copy of their state word.

mod inline_module;

use inline_module::item;

const SOURCE: &str = include_str!("fixtures/jumpOver.kif");

fn inline_rust() -> String {
    inline_module::inline_rust("jumpOver", SOURCE, |_| {})
}

#[test]
fn move_sets_are_read_in_the_arms_only() {
    let rust = inline_rust();
    let next = item(&rust, "next").expect("next");
    let at = next.find("match joint[").expect("a move match");
    assert!(!next[..at].contains("MOVE_SETS"), "{next}");
}

#[test]
fn a_jump_keeps_the_cell_it_jumps_unless_it_captures() {
    let rust = inline_rust();
    let next = item(&rust, "next").expect("next");
    let doc = "/// (jump 1 2 3)";
    let at = next.find(doc).unwrap_or_else(|| panic!("{doc} in {next}"));
    let arm = &next[at..at + next[at..].find("\n        }").expect("the arm's end")];
    // Cell 2's three bits, kept unless b's piece is there (a captures it).
    assert!(arm.contains("state.0[0] & MASK_"), "{arm}");
    assert!(arm.contains("BIT_CELL_2_B == 0"), "{arm}");
    assert!(arm.contains(".wrapping_neg()"), "{arm}");
}
