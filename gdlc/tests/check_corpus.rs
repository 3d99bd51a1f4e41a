//! The checker over the corpus: every repository game passes, the invalid ggp-base tests fail.
use std::path::{Path, PathBuf};

use gdlc::diag::Severity;
use gdlc::{Diagnostic, check, parse_kif};

fn corpus() -> PathBuf {
    PathBuf::from(std::env::var("GDL_CORPUS").unwrap_or_else(|_| "../../shared".into()))
}

fn read(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The parser's and the checker's diagnostics of one file.
fn diagnostics(path: &Path) -> Vec<Diagnostic> {
    let (program, mut diags) = parse_kif(&read(path));
    diags.extend(check(&program).diagnostics);
    diags
}

fn base_test(name: &str) -> PathBuf {
    corpus()
        .join("games/ggp-base-tests")
        .join(format!("{name}.kif"))
}

fn errors(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

#[test]
fn every_repository_game_has_no_errors() {
    let mut games = 0;
    let mut failures = Vec::new();
    let dir = corpus().join("games/ggp-repository");
    for entry in std::fs::read_dir(&dir).expect("corpus present") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_none_or(|e| e != "kif") {
            continue;
        }
        games += 1;
        let errs = errors(&diagnostics(&path));
        if !errs.is_empty() {
            failures.push(format!("{}: {errs:?}", path.display()));
        }
    }
    assert!(games > 250, "only {games} games in {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn arities_that_differ_are_errors() {
    let f = diagnostics(&base_test("test_invalid_function_arities_differ"));
    assert!(
        f.iter().any(|d| d.is_error() && d.code == "function-arity"),
        "{f:?}"
    );
    let s = diagnostics(&base_test("test_invalid_sentence_arities_differ"));
    assert!(
        s.iter().any(|d| d.is_error() && d.code == "relation-arity"),
        "{s:?}"
    );
}

#[test]
fn unsafe_rules_the_game_does_not_need_are_not_errors() {
    for name in ["test_case_3b", "test_case_3e", "test_case_3f"] {
        let d = diagnostics(&base_test(name));
        assert!(errors(&d).is_empty(), "{name}: {:?}", errors(&d));
        assert!(
            d.iter().any(|d| d.severity == Severity::Warning),
            "{name}: no warning"
        );
    }
}

#[test]
fn edge_cases_warn() {
    for (name, code) in [
        ("test_case_1a", "empty-body"),
        ("test_case_3a", "empty-parentheses"),
    ] {
        let d = diagnostics(&base_test(name));
        assert!(errors(&d).is_empty(), "{name}: {:?}", errors(&d));
        assert!(d.iter().any(|d| d.code == code), "{name}: {d:?}");
    }
}

#[test]
fn every_valid_base_test_has_no_errors() {
    for entry in std::fs::read_dir(corpus().join("games/ggp-base-tests")).expect("corpus present") {
        let path = entry.expect("directory entry").path();
        let invalid = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("test_invalid"));
        if !invalid {
            let errs = errors(&diagnostics(&path));
            assert!(errs.is_empty(), "{}: {errs:?}", path.display());
        }
    }
}

/// Cuts and splices of real games: whatever the text, the checker reports and never panics.
#[test]
fn mangled_games_do_not_panic() {
    let text = read(&base_test("ticTacToe"));
    let cuts: Vec<usize> = (1..40)
        .map(|i| i * text.len() / 40)
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    for &cut in &cuts {
        for variant in [
            text[..cut].to_string(),
            text[cut..].to_string(),
            format!("{}{}", &text[cut..], &text[..cut]),
            text[..cut].replace("true", "next").replace("?", ""),
            format!("(<= {} {})", &text[..cut], &text[cut..]),
        ] {
            let (program, _) = parse_kif(&variant);
            let report = check(&program);
            assert!(
                report
                    .diagnostics
                    .windows(2)
                    .all(|w| w[0].span <= w[1].span)
            );
        }
    }
}
