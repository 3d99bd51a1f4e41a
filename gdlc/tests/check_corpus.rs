//! The checker over the corpus: every game but the invalid ggp-base tests passes (one trial per
//! game, `COLLECTION/NAME`), the invalid ones fail with the right codes, edge cases warn, and
//! mangled games never make it panic. All ignored, after one line saying so, when the corpus
//! is absent.
use std::path::PathBuf;
use std::time::Duration;

use gdl_tests::{
    CorpusGame, Trial, absent_trial, corpus_dir, corpus_or_notice, game_trial, read_game,
    run_trials,
};
use gdlc::diag::Severity;
use gdlc::{Diagnostic, check};

/// The parser's and the checker's diagnostics of one description.
fn diagnostics(text: &str) -> Vec<Diagnostic> {
    let (program, mut diags) = parse_kif(text);
    diags.extend(check(&program).diagnostics);
    diags
}

/// The diagnostics of the ggp-base test `name`.
fn base_test(name: &str) -> Vec<Diagnostic> {
    let path: PathBuf = corpus_dir()
        .join("games/ggp-base-tests")
        .join(format!("{name}.kif"));
    diagnostics(&read_game(&path))
}

fn errors(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

fn has_no_errors(game: &CorpusGame) -> Result<(), String> {
    let errs = errors(&diagnostics(&read_game(&game.kif)));
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

fn arities_that_differ_are_errors() {
    let f = base_test("test_invalid_function_arities_differ");
    assert!(
        f.iter().any(|d| d.is_error() && d.code == "function-arity"),
        "{f:?}"
    );
    let s = base_test("test_invalid_sentence_arities_differ");
    assert!(
        s.iter().any(|d| d.is_error() && d.code == "relation-arity"),
        "{s:?}"
    );
}

fn unsafe_rules_the_game_does_not_need_are_not_errors() {
    for name in ["test_case_3b", "test_case_3e", "test_case_3f"] {
        let d = base_test(name);
        assert!(errors(&d).is_empty(), "{name}: {:?}", errors(&d));
        assert!(
            d.iter().any(|d| d.severity == Severity::Warning),
            "{name}: no warning"
        );
    }
}

fn edge_cases_warn() {
    for (name, code) in [
        ("test_case_1a", "empty-body"),
        ("test_case_3a", "empty-parentheses"),
    ] {
        let d = base_test(name);
        assert!(errors(&d).is_empty(), "{name}: {:?}", errors(&d));
        assert!(d.iter().any(|d| d.code == code), "{name}: {d:?}");
    }
}

/// Cuts and splices of real games: whatever the text, the checker reports and never panics.
fn mangled_games_do_not_panic() {
    let text = read_game(&corpus_dir().join("games/ggp-base-tests/ticTacToe.kif"));
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

fn main() {
    let games = corpus_or_notice("check_corpus");
    let named: [(&str, fn()); 4] = [
        (
            "arities_that_differ_are_errors",
            arities_that_differ_are_errors,
        ),
        (
            "unsafe_rules_the_game_does_not_need_are_not_errors",
            unsafe_rules_the_game_does_not_need_are_not_errors,
        ),
        ("edge_cases_warn", edge_cases_warn),
        ("mangled_games_do_not_panic", mangled_games_do_not_panic),
    ];
    let mut trials: Vec<Trial> = named
        .into_iter()
        .map(|(name, test)| {
            Trial::test(name, move || {
                test();
                Ok(())
            })
            .with_ignored_flag(games.is_none())
        })
        .collect();
    match &games {
        Some(games) => trials.extend(
            games
                .iter()
                .filter(|g| !g.name.starts_with("test_invalid"))
                .map(|g| game_trial(g, Duration::from_secs(60), has_no_errors)),
        ),
        None => trials.push(absent_trial("check_corpus")),
    }
    run_trials(trials);
}

/// The KIF reader of the front end.
fn parse_kif(text: &str) -> (gdlc::Program, Vec<Diagnostic>) {
    gdlc::Syntax::Kif.parse(text)
}
