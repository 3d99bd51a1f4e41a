//! `gdlc emit` is deterministic: the same description and options give the same bytes. Each run
//! is a separate process, so hash maps get different random seeds; any iteration over one that
//! reaches the output shows up as a difference here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// How many processes emit each game.
const RUNS: usize = 3;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// A game of the corpus, when `$GDL_CORPUS` is set and holds it.
fn corpus_game(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("GDL_CORPUS")?)
        .join("games/ggp-repository")
        .join(name);
    path.is_file().then_some(path)
}

fn emit(kif: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .arg("emit")
        .arg(kif)
        .args(args)
        .output()
        .expect("spawn gdlc");
    assert!(
        out.status.success(),
        "gdlc emit {} {args:?}: {}",
        kif.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The first line where `a` and `b` differ, for the failure message.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    match a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
    {
        Some((i, (x, y))) => format!("line {}:\n  {x}\n  {y}", i + 1),
        None => format!("lengths {} and {}", a.len(), b.len()),
    }
}

fn assert_deterministic(kif: &Path, args: &[&str]) {
    let first = emit(kif, args);
    assert!(!first.is_empty());
    for _ in 1..RUNS {
        let again = emit(kif, args);
        assert!(
            first == again,
            "gdlc emit {} {args:?} differs between runs at {}",
            kif.display(),
            first_difference(&first, &again)
        );
    }
}

#[test]
fn fixture_emits_the_same_bytes_every_time() {
    let kif = fixture("ticTacToe.kif");
    assert_deterministic(&kif, &["--backend", "inline"]);
    assert_deterministic(&kif, &["--backend", "propnet"]);
}

#[test]
fn corpus_games_emit_the_same_bytes_every_time() {
    // connectFour grounds plainly; sudokuGrade1 splits rules (auxiliary relations) and has
    // move sets.
    for name in ["connectFour.kif", "sudokuGrade1.kif"] {
        let Some(kif) = corpus_game(name) else {
            eprintln!("{name}: not in $GDL_CORPUS, skipped");
            continue;
        };
        for backend in ["inline", "propnet"] {
            assert_deterministic(&kif, &["--backend", backend]);
        }
    }
}
