//! The inline backend's per-move arms (`played_<r>`, `src/codegen/inline/played.rs`) on the
//! fixture `tests/fixtures/playedArms.kif`, compiled in shared-chunk mode (the options of the
//! `@shared` modules of `tests/tests/compiled.rs`, which plays the same fixture against the
//! interpreter). In the fixture, x's move decides `hit` (one state literal once the move is
//! known: substituted into its readers; false for x's other moves: not computed), `flip`
//! (reads `hit`) and `flip2` (reads `flip`: a local of the arm); `next` reads all three.
//!
//! Bless a change of the generated arms with `INSTA_UPDATE=always cargo test -p gdlc --test
//! played_arms`, then read the diff.

mod inline_module;

const SOURCE: &str = include_str!("fixtures/playedArms.kif");

/// The fixture's Rust module, its props in shared chunks.
fn shared_rust() -> String {
    inline_module::inline_rust("playedArms", SOURCE, |c| {
        c.inline_props = 0;
        c.chunk_props = 16;
    })
}

/// The item `fn NAME` of `rust` with the doc comment and attributes above it, up to its
/// closing brace (the generated module is formatted: the item's lines start at column 0).
fn item(rust: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = rust.lines().collect();
    let head = format!("fn {name}(");
    let at = lines.iter().position(|l| l.starts_with(&head))?;
    let mut start = at;
    while start > 0 && {
        let l = lines[start - 1];
        l.starts_with("///") || l.starts_with("#[") || l.starts_with("    ") || l == ")]"
    } {
        start -= 1;
    }
    let end = at + lines[at..].iter().position(|l| *l == "}")?;
    Some(lines[start..=end].join("\n"))
}

/// What the masks `code` reads stand for: a line `// MASK_n: ATOMS` per mask, from the doc
/// comments of their definitions in `rust`.
fn masks(rust: &str, code: &str) -> String {
    let lines: Vec<&str> = rust.lines().collect();
    let mut names: Vec<&str> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("MASK_"))
        .collect();
    names.sort();
    names.dedup();
    let mut out = String::new();
    for name in names {
        let def = format!("const {name}: ");
        let at = lines.iter().position(|l| l.starts_with(&def));
        let doc = at.and_then(|i| lines[..i].iter().rev().find(|l| l.starts_with("///")));
        let doc = doc.map_or("(no doc comment)", |d| d.trim_start_matches("///").trim());
        out.push_str(&format!("\n// {name}: {doc}"));
    }
    out
}

/// x's arms: one per mark, holding only the props that may hold after it.
#[test]
fn arms_of_x() {
    let rust = shared_rust();
    let mut played = item(&rust, "played_0").expect("a played_0 function for x");
    played.push_str(&masks(&rust, &played));
    insta::assert_snapshot!("playedArms.played_0", played);
}

/// o's move decides no prop that reads only o's move: o has no arms.
#[test]
fn no_arms_for_o() {
    let rust = shared_rust();
    assert!(item(&rust, "played_1").is_none());
    assert!(rust.contains("played_0(state, joint, &mut scratch);"));
}
