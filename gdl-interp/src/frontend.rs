//! The front end: a named source text to a checked program, or every error.
//!
//! Every entry goes through here — `gdlc::compile`, `gdlc::pipeline::run`, the
//! interpreter ([`crate::interp::Interpreter::from_source`]), the `gdl!` macro and every
//! `gdlc` command — so that they all read the same syntax the same way and reject the same
//! descriptions.
//!
//! - The *name* of a [`Source`] decides its syntax ([`Syntax::of`]): `.kif` and `.gdl` are KIF,
//!   `.hrf`, `.gdli` and `.infix` infix; any other name (or none) goes by the first token after
//!   comments (`(` is KIF).
//! - When the text does not parse, only the syntax errors are reported: the checker would see
//!   a program cut short and report what follows from it (no `terminal`, no roles), burying the
//!   real error.

use crate::ast::Program;
use crate::check::{CheckOptions, check_with};
use crate::diag::Diagnostic;
use crate::stratify::Strata;

/// The two syntaxes of GDL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// KIF (prefix): `(<= (q ?y) (p a ?y))`.
    Kif,
    /// Infix ("HRF"): `q(Y) :- p(a,Y)`.
    Infix,
}

impl Syntax {
    /// The syntax of a text named `name`: from its extension if known, else from its first
    /// token after comments (KIF if it is `(` or there is none).
    pub fn of(name: &str, text: &str) -> Syntax {
        Syntax::from_name(name).unwrap_or_else(|| Syntax::from_content(text))
    }

    /// The syntax a file name's extension says, if it says one (case-insensitive).
    pub fn from_name(name: &str) -> Option<Syntax> {
        let ext = std::path::Path::new(name)
            .extension()?
            .to_str()?
            .to_ascii_lowercase();
        match ext.as_str() {
            "kif" | "gdl" => Some(Syntax::Kif),
            "hrf" | "gdli" | "infix" => Some(Syntax::Infix),
            _ => None,
        }
    }

    /// The syntax of a text by its first token after comments.
    pub fn from_content(text: &str) -> Syntax {
        let mut rest = text.trim_start();
        while let Some(comment) = ["%", ";", "//"].iter().find(|c| rest.starts_with(**c)) {
            let after = &rest[comment.len()..];
            rest = after.find('\n').map_or("", |i| after[i..].trim_start());
        }
        if rest.is_empty() || rest.starts_with('(') {
            Syntax::Kif
        } else {
            Syntax::Infix
        }
    }

    /// Parses `text` in this syntax: the program and every syntax diagnostic.
    pub fn parse(self, text: &str) -> (Program, Vec<Diagnostic>) {
        match self {
            Syntax::Kif => crate::parse::parse_kif(text),
            Syntax::Infix => crate::infix::parse_infix(text),
        }
    }
}

/// A description's text and the name it is known by (a file name, `<gdl! source>`, or empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

impl<'a> Source<'a> {
    pub fn new(name: &'a str, text: &'a str) -> Source<'a> {
        Source { name, text }
    }

    /// The syntax of this source ([`Syntax::of`]).
    pub fn syntax(&self) -> Syntax {
        Syntax::of(self.name, self.text)
    }
}

/// A text without a name: its syntax goes by its first token.
impl<'a> From<&'a str> for Source<'a> {
    fn from(text: &'a str) -> Source<'a> {
        Source { name: "", text }
    }
}

impl<'a> From<&'a String> for Source<'a> {
    fn from(text: &'a String) -> Source<'a> {
        Source::from(text.as_str())
    }
}

/// A program that parsed and passed the checker.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub program: Program,
    /// The relation strata (absent when only an instance-level stratification exists).
    pub strata: Option<Strata>,
    /// Warnings of the reader and the checker, sorted by position.
    pub warnings: Vec<Diagnostic>,
}

/// Everything the front end found in a source, errors or not (what `gdlc check` prints).
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// The program as far as it parsed.
    pub program: Program,
    /// The syntax errors alone when there are any (see the module documentation); else every
    /// warning of the reader and every finding of the checker, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    pub strata: Option<Strata>,
}

impl Analysis {
    /// Whether some diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses and checks a source, keeping every finding.
pub fn analyse<'a>(source: impl Into<Source<'a>>, options: &CheckOptions) -> Analysis {
    let (program, diagnostics) = parse(source);
    analyse_parsed(program, diagnostics, options)
}

/// Reads a source (the first half of [`load`]): the program as far as it parsed and the
/// reader's diagnostics, sorted by position.
pub fn parse<'a>(source: impl Into<Source<'a>>) -> (Program, Vec<Diagnostic>) {
    let source = source.into();
    let (program, mut diagnostics) = source.syntax().parse(source.text);
    sort(&mut diagnostics);
    (program, diagnostics)
}

/// [`analyse`] of a program [`parse`] read, with the reader's diagnostics `read`.
fn analyse_parsed(
    program: Program,
    mut diagnostics: Vec<Diagnostic>,
    options: &CheckOptions,
) -> Analysis {
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Analysis {
            program,
            diagnostics,
            strata: None,
        };
    }
    let report = check_with(&program, options);
    diagnostics.extend(report.diagnostics);
    sort(&mut diagnostics);
    Analysis {
        program,
        diagnostics,
        strata: report.strata,
    }
}

/// Findings with a place in source order, then the findings about the whole description
/// (which the located ones often cause: a misplaced parenthesis that swallows the `terminal`
/// rule comes before "never defines `terminal`").
fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| (d.whole_program, d.span));
}

/// Parses and checks a source: the checked program, or every error (warnings are kept with
/// the program, dropped with the errors).
pub fn load<'a>(
    source: impl Into<Source<'a>>,
    options: &CheckOptions,
) -> Result<Checked, Vec<Diagnostic>> {
    accept(analyse(source, options), options)
}

/// Checks a program [`parse`] read, with the reader's diagnostics `read` (the second half of
/// [`load`]): the checked program, or every error.
pub fn check_parsed(
    program: Program,
    read: Vec<Diagnostic>,
    options: &CheckOptions,
) -> Result<Checked, Vec<Diagnostic>> {
    accept(analyse_parsed(program, read, options), options)
}

/// The checked program of an analysis, or its errors.
fn accept(mut a: Analysis, options: &CheckOptions) -> Result<Checked, Vec<Diagnostic>> {
    let syntax = a
        .diagnostics
        .iter()
        .any(|d| d.is_error() && d.code == crate::diag::codes::SYNTAX.name);
    if options.accept_invalid && !syntax {
        for d in &mut a.diagnostics {
            d.severity = crate::diag::Severity::Warning;
        }
    }
    if a.has_errors() {
        return Err(a.diagnostics.into_iter().filter(|d| d.is_error()).collect());
    }
    Ok(Checked {
        program: a.program,
        strata: a.strata,
        warnings: a.diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY_KIF: &str = "(role r) (init (p)) (<= (legal r a) (true (p))) \
                            (<= (next (p)) (does r a)) (<= terminal (not (true (p)))) (goal r 100)";

    #[test]
    fn syntax_comes_from_the_name_then_the_content() {
        assert_eq!(Syntax::of("g.KIF", "p(a)"), Syntax::Kif);
        assert_eq!(Syntax::of("g.gdl", "p(a)"), Syntax::Kif);
        assert_eq!(Syntax::of("g.hrf", "(p a)"), Syntax::Infix);
        assert_eq!(Syntax::of("dir.kif/g.infix", "(p a)"), Syntax::Infix);
        assert_eq!(Syntax::of("g.txt", "; c\n  (role x)"), Syntax::Kif);
        assert_eq!(Syntax::of("g", "% c (x\n// d\nrole(x)"), Syntax::Infix);
        assert_eq!(Syntax::of("", "  "), Syntax::Kif);
        assert_eq!(Source::from("role(x)").syntax(), Syntax::Infix);
    }

    #[test]
    fn loads_either_syntax_to_the_same_program() {
        let kif = load(Source::new("t.kif", TINY_KIF), &CheckOptions::default()).unwrap();
        let infix_text = crate::print::pretty_infix(&kif.program);
        let infix = load(Source::new("t.hrf", &infix_text), &CheckOptions::default()).unwrap();
        assert_eq!(
            crate::print::pretty_kif(&kif.program),
            crate::print::pretty_kif(&infix.program)
        );
        // Read as KIF, the infix text is nothing but errors.
        assert!(load(Source::new("t.kif", &infix_text), &CheckOptions::default()).is_err());
    }

    #[test]
    fn a_syntax_error_is_reported_alone() {
        let text = "(role r)\n(<= (legal r a) (true (p))\n(goal r 100)";
        let a = analyse(Source::new("t.kif", text), &CheckOptions::default());
        assert!(a.has_errors());
        let whole = crate::check(&a.program);
        assert!(
            whole.has_errors(),
            "the checker alone would report missing relations"
        );
        assert!(
            a.diagnostics.iter().all(|d| !whole.diagnostics.contains(d)),
            "{:?}",
            a.diagnostics
        );
    }

    #[test]
    fn located_findings_come_before_whole_program_ones() {
        // The misplaced `)` makes `init` swallow the terminal rule: its own error comes first.
        let text = "(role x)\n(init (cell 1)\n(<= terminal (true (cell 1))))\n(goal x 1)";
        let a = analyse(Source::new("t.kif", text), &CheckOptions::default());
        let codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes.first(), Some(&"keyword-arity"), "{codes:?}");
        assert!(
            codes.ends_with(&["missing-relation", "missing-relation"]),
            "{codes:?}"
        );
    }

    #[test]
    fn checker_errors_reject_the_description() {
        let unsafe_rule = format!("{TINY_KIF} (<= (q ?x) (true (p)))  (<= (legal r b) (q 1))");
        let errors = load(unsafe_rule.as_str(), &CheckOptions::default()).unwrap_err();
        assert!(errors.iter().all(Diagnostic::is_error));
        assert!(!errors.is_empty());
    }

    #[test]
    fn lenient_arities_turn_arity_errors_into_warnings() {
        let mixed = format!("{TINY_KIF} (s 1) (s 1 2) (<= (legal r b) (s 1) (s 1 2))");
        assert!(load(mixed.as_str(), &CheckOptions::default()).is_err());
        let lenient = CheckOptions {
            lenient_arities: true,
            ..CheckOptions::default()
        };
        let checked = load(mixed.as_str(), &lenient).unwrap();
        assert!(!checked.warnings.is_empty());
    }

    #[test]
    fn accept_invalid_loads_what_the_checker_rejects_but_not_syntax_errors() {
        let unsafe_rule = format!("{TINY_KIF} (<= (legal r b) (not (s ?x)))");
        let errors = load(unsafe_rule.as_str(), &CheckOptions::default()).unwrap_err();
        assert!(errors.iter().any(|d| d.code == "unsafe-variable"));
        let accept = CheckOptions {
            accept_invalid: true,
            ..CheckOptions::default()
        };
        let checked = load(unsafe_rule.as_str(), &accept).unwrap();
        assert!(
            checked
                .warnings
                .iter()
                .any(|d| d.code == "unsafe-variable" && !d.is_error()),
            "{:?}",
            checked.warnings
        );
        let broken = format!("{TINY_KIF} (<= (legal r b)");
        assert!(load(broken.as_str(), &accept).is_err());
    }
}
