//! Helpers of the checker's unit tests.

use crate::diag::{Diagnostic, line_col};

/// Parses (asserting no syntax error) and checks `src`.
pub fn diagnostics(src: &str) -> Vec<Diagnostic> {
    let (program, parse) = crate::parse::parse_kif(src);
    assert!(
        parse.iter().all(|d| !d.is_error()),
        "syntax errors: {parse:?}"
    );
    super::check(&program).diagnostics
}

/// `line:col` of every diagnostic with `code`, in span order.
pub fn at(src: &str, code: &str) -> Vec<String> {
    diagnostics(src)
        .iter()
        .filter(|d| d.code == code)
        .map(|d| {
            let (l, c) = line_col(src, d.span.start);
            format!("{l}:{c}")
        })
        .collect()
}

/// The codes of the errors of `src`, in span order.
pub fn error_codes(src: &str) -> Vec<&'static str> {
    diagnostics(src)
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect()
}

/// The diagnostics of `src` with `code`.
pub fn with_code(src: &str, code: &str) -> Vec<Diagnostic> {
    diagnostics(src)
        .into_iter()
        .filter(|d| d.code == code)
        .collect()
}

/// A minimal complete game, to which tests append the rules under test.
pub const GAME: &str =
    "(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n";
