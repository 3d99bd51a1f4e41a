//! The inline backend's `legal_<r>_turn` (`src/codegen/inline/legal.rs`) on the fixture
//! `tests/fixtures/turnMarks.kif`, split into chunks of two props: called only where whose
//! turn it is holds, its code does not test that bit again (each move is "the cell is blank
//! or holds a pebble"), and each move's prop is stored at its move's bit of the scratch
//! words, so that the tail reads whole words of legal bits.

mod inline_module;

use inline_module::item;

const SOURCE: &str = include_str!("fixtures/turnMarks.kif");

/// The fixture's Rust module, inline, each output's props in chunks of two.
fn chunked_rust() -> String {
    inline_module::inline_rust("turnMarks", SOURCE, |c| c.chunk_props = 2)
}

/// `legal_0_turn`'s chunks and its tail.
fn turn_code(rust: &str) -> String {
    (0..16)
        .filter_map(|c| item(rust, &format!("legal_0_turn_{c}")))
        .chain(item(rust, "legal_0_turn"))
        .collect()
}

#[test]
fn the_turn_is_not_tested_again() {
    let rust = chunked_rust();
    let turn = turn_code(&rust);
    assert!(
        turn.contains("fn legal_0_turn_1("),
        "split into chunks: {turn}"
    );
    assert!(!turn.contains("CONTROL_X"), "{turn}");
    // The dispatch tests it once.
    let legal = item(&rust, "legal_0").expect("legal_0");
    assert!(legal.contains("BIT_CONTROL_X"), "{legal}");
}

#[test]
fn moves_are_stored_at_their_bits() {
    let rust = chunked_rust();
    let turn = turn_code(&rust);
    // x's moves `(mark 1)` and `(mark 8)` (moves 0 and 7) are `(open 1)` and `(open 8)`
    // where it is x's turn.
    for (m, open) in [(0, "(open 1)"), (7, "(open 8)")] {
        let doc = format!("/// {open} ");
        let at = turn.find(&doc).unwrap_or_else(|| panic!("{doc} in {turn}"));
        let store = turn[at..].lines().nth(2).unwrap_or_default();
        assert!(
            store.trim().starts_with("scratch[0] |=") && store.ends_with(&format!(" << {m};")),
            "{store}"
        );
    }
}
