//! Snapshots of the output of each pass of the pipeline on the small games of
//! `tests/fixtures/`: the text `gdlc dump --emit OUTPUT FILE` prints ([`Artifacts::render`]),
//! compared with `tests/snapshots/stages__GAME.OUTPUT.snap`. The pipeline checks the
//! invariants of the ground program and the IR as it goes ([`CompileOptions::verify`]). They
//! need no corpus and run in seconds.
//!
//! A change to a pass shows here as a diff. When the new text is right, bless it:
//!
//! ```text
//! INSTA_UPDATE=always cargo test -p gdlc --test stages
//! ```
//!
//! (or `cargo insta review` with cargo-insta installed), then review the snapshot diffs in
//! git. The Rust snapshots change with every change to code generation; that is expected.

use gdlc::pipeline::{self, Artifacts, CompileOptions, Pass};

/// The fixture `name`, run through the pipeline up to `stage`, its invariants checked.
fn artifacts(name: &str, source: &str, stage: Pass) -> Artifacts {
    let options = CompileOptions {
        verify: true,
        ..CompileOptions::for_game(name)
    };
    pipeline::run(source, &options, stage).unwrap_or_else(|errors| {
        let messages: Vec<String> = errors
            .iter()
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect();
        panic!("{name} does not compile: {}", messages.join("; "))
    })
}

/// Every `static` and `const` item of the generated code is read somewhere in it (rustc warns
/// of a dead table, and building one costs compile time for nothing).
fn assert_tables_read(name: &str, rust: &str) {
    let words = |line: &str| -> Vec<String> {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut uses = std::collections::HashMap::<String, usize>::new();
    for line in rust.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for w in words(line) {
            *uses.entry(w).or_default() += 1;
        }
    }
    let mut defined = 0;
    for line in rust.lines() {
        let ws = words(line.trim_start());
        let item = match ws.as_slice() {
            [kw, item, ..] if kw == "static" || kw == "const" => item,
            [vis, kw, item, ..] if vis == "pub" && (kw == "static" || kw == "const") => item,
            _ => continue,
        };
        if item == "fn" {
            continue;
        }
        defined += 1;
        let n = uses.get(item.as_str()).copied().unwrap_or(0);
        assert!(n >= 2, "{name}: `{item}` is defined but never read");
    }
    assert!(defined > 0, "{name}: no table found in the generated code");
}

fn snapshot(name: &str, source: &str, stage: Pass) {
    let label = stage.output_name();
    let text = artifacts(name, source, stage).render(stage);
    assert!(!text.is_empty(), "{name}: {label} printed nothing");
    insta::assert_snapshot!(format!("{name}.{label}"), text);
}

/// Tests per fixture: one per pass's output, one that every emitted table is read, and one
/// that runs the pipeline again.
macro_rules! fixture {
    ($module:ident, $name:literal) => {
        mod $module {
            use super::*;
            const SOURCE: &str = include_str!(concat!("fixtures/", $name, ".kif"));

            #[test]
            fn strata() {
                snapshot($name, SOURCE, Pass::Check);
            }
            #[test]
            fn normalised() {
                snapshot($name, SOURCE, Pass::Normalise);
            }
            #[test]
            fn projected() {
                snapshot($name, SOURCE, Pass::Project);
            }
            #[test]
            fn ground() {
                snapshot($name, SOURCE, Pass::Ground);
            }
            #[test]
            fn ir() {
                snapshot($name, SOURCE, Pass::Lower);
            }
            #[test]
            fn optimised() {
                snapshot($name, SOURCE, Pass::Optimise);
            }
            #[test]
            fn rust() {
                snapshot($name, SOURCE, Pass::Generate);
            }
            #[test]
            fn every_table_is_read() {
                let rust = artifacts($name, SOURCE, Pass::Generate).render(Pass::Generate);
                assert_tables_read($name, &rust);
            }
            /// The compiler's output does not depend on the run (hash seeds, threads).
            #[test]
            fn same_on_every_run() {
                let first = artifacts($name, SOURCE, Pass::Generate);
                for _ in 0..4 {
                    let again = artifacts($name, SOURCE, Pass::Generate);
                    for stage in [
                        Pass::Normalise,
                        Pass::Ground,
                        Pass::Optimise,
                        Pass::Generate,
                    ] {
                        assert_eq!(first.render(stage), again.render(stage), "{stage:?}");
                    }
                }
            }
        }
    };
}

// Two rules of play and a button: the smallest game.
fixture!(toy, "toy");
// Tic-tac-toe on a line: two roles, turns, distinct, a static successor relation.
fixture!(line_of_three, "lineOfThree");
// A recursive relation (`connected`) over the state: a recursive group in the IR.
fixture!(bridges, "bridges");
// Negation and distinct.
fixture!(pairs, "pairs");
// `or` in rule bodies, nested with `and`.
fixture!(either, "either");
// A prop that always holds and a state bit that never changes.
fixture!(constants, "constants");
