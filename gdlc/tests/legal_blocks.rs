//! The blocks of the inline backend's legal moves (`src/codegen/inline/guards.rs`) on the
//! fixture `tests/fixtures/pieceBlocks.kif`: the moves of one piece from one cell (its steps
//! and its jumps over an opponent's man or king) are computed under one test of the state bit
//! of that piece on that cell, skipped when it is clear; in the block, the bit is known set.

mod inline_module;

const SOURCE: &str = include_str!("fixtures/pieceBlocks.kif");

fn inline_rust() -> String {
    inline_module::inline_rust("pieceBlocks", SOURCE, |_| {})
}

/// The block under the test of `bit` (a state mask's name), up to its closing brace.
fn block<'a>(rust: &'a str, bit: &str) -> Option<&'a str> {
    let at = rust.find(&format!("let guard = (state.0[0] & {bit} != 0);\n"))?;
    let end = at + rust[at..].find("\n    }\n")?;
    Some(&rust[at..end])
}

#[test]
fn the_moves_of_a_piece_on_a_cell_are_one_block() {
    let rust = inline_rust();
    let b = block(&rust, "BIT_CELL_10_WK").unwrap_or_else(|| panic!("no block of (cell 10 wk)"));
    // Its jumps and its leaps (an or of two bits each: not a family of shifts).
    for m in [
        "(jump wk 10 9 8)",
        "(jump wk 10 11 12)",
        "(leap wk 10 9 8 7)",
        "(leap wk 10 11 12 13)",
    ] {
        assert!(b.contains(&format!("(legal white {m})")), "{m} in {b}");
    }
    assert!(
        rust.contains("/// The moves below need (cell 10 wk): their props are false without it."),
        "the block says what it needs"
    );
}

#[test]
fn every_block_holds_the_moves_of_its_piece_and_cell() {
    let rust = inline_rust();
    let mut blocks = 0;
    for (at, _) in rust.match_indices("let guard = (state.0[") {
        let b = &rust[at..at + rust[at..].find("\n    }\n").expect("the block's end")];
        let need = &rust[rust[..at].rfind("need (cell ").expect("its doc") + 11..];
        let need = &need[..need.find(')').expect("the fact's end")];
        let (cell, piece) = need.split_once(' ').expect("a cell and a piece");
        let moves: Vec<&str> = b.lines().filter(|l| l.contains("/// (legal ")).collect();
        assert!(moves.len() >= 3, "{b}");
        // The moves of a piece with two moves only (a jump and a leap from a cell next to an
        // end) are grouped by the empty cell they land on (or leap over).
        if piece == "e" {
            for m in moves {
                let on = |end: char| m.contains(&format!(" {cell}{end}"));
                assert!(on(' ') || on(')'), "{m} under (cell {cell} e)");
            }
            continue;
        }
        for m in moves {
            assert!(
                m.contains(&format!(" {piece} {cell} ")),
                "{m} under (cell {cell} {piece})"
            );
        }
        blocks += 1;
    }
    // Two pieces on cells 3 to 22, of each role (on the others, a piece has two moves), but
    // on the cells where the piece starts and mostly stays in the sampled playouts (its bit
    // held in more than a quarter of the states): its moves there are grouped by a bit held
    // less often, such as the empty cell they land on (`guards::RARE_HELD`).
    assert_eq!(blocks, 72, "{rust}");
}

#[test]
fn a_block_does_not_test_its_bit_again() {
    let rust = inline_rust();
    let b = block(&rust, "BIT_CELL_10_WK").unwrap_or_else(|| panic!("no block of (cell 10 wk)"));
    let body = &b[b.find("if guard {").expect("the test")..];
    assert!(!body.contains("BIT_CELL_10_WK"), "{body}");
    // Nor through a mask of several bits (`MASK_k`, its doc lists its facts).
    for (at, _) in body.match_indices("MASK_") {
        let name: String = body[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let def = rust
            .find(&format!("const {name}: u64"))
            .unwrap_or_else(|| panic!("{name} defined"));
        let doc = &rust[rust[..def].rfind("/// ").expect("its doc")..def];
        assert!(!doc.contains("(cell 10 wk)"), "{name}: {doc}");
    }
}
