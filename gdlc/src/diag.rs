//! Diagnostics: what the readers and the checker report, and their rendering with source
//! snippets (through `ariadne`).

use std::fmt;

use crate::ast::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

/// One finding about a description, located in its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable short name of the check, e.g. `unsafe-variable`.
    pub code: &'static str,
    pub message: String,
    /// Where the problem is.
    pub span: Span,
    /// Further places that explain it, each with a short text.
    pub labels: Vec<(Span, String)>,
    /// Free text shown after the snippet.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A source text with the name it is reported under.
#[derive(Clone, Copy, Debug)]
pub struct SourceFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_col(text: &str, offset: u32) -> (usize, usize) {
    let offset = (offset as usize).min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Displays a diagnostic on one line: `file:line:col: error[code]: message`.
pub struct OneLine<'a>(pub SourceFile<'a>, pub &'a Diagnostic);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let OneLine(file, d) = self;
        let (line, col) = line_col(file.text, d.span.start);
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{line}:{col}: {kind}[{}]: {}",
            file.name, d.code, d.message
        )
    }
}

/// Options of [`render`].
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderOptions {
    /// Use ANSI colours.
    pub color: bool,
}

/// Renders `diag` with its source snippet, as the `gdlc` command prints it.
pub fn render(file: SourceFile<'_>, diag: &Diagnostic, options: RenderOptions) -> String {
    use ariadne::{Config, Label, Report, ReportKind, Source};
    let kind = match diag.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let span = clamp(file.text, diag.span);
    let mut report = Report::build(kind, (file.name, span.clone()))
        .with_config(
            Config::default()
                .with_color(options.color)
                .with_index_type(ariadne::IndexType::Byte),
        )
        .with_code(diag.code)
        .with_message(&diag.message)
        .with_label(Label::new((file.name, span)).with_message(label_text(diag)));
    for (s, text) in &diag.labels {
        report =
            report.with_label(Label::new((file.name, clamp(file.text, *s))).with_message(text));
    }
    for note in &diag.notes {
        report = report.with_note(note);
    }
    let mut out = Vec::new();
    let written = report
        .finish()
        .write((file.name, Source::from(file.text)), &mut out);
    match written {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(_) => format!("{}\n", OneLine(file, diag)),
    }
}

fn label_text(diag: &Diagnostic) -> &str {
    match diag.severity {
        Severity::Error => "here",
        Severity::Warning => "here",
    }
}

fn clamp(text: &str, span: Span) -> std::ops::Range<usize> {
    let end = floor_char_boundary(text, (span.end as usize).min(text.len()));
    let start = floor_char_boundary(text, (span.start as usize).min(end));
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let text = "ab\ncd\n\u{e9}x";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 4), (2, 2));
        assert_eq!(line_col(text, 8), (3, 2));
    }

    #[test]
    fn render_names_file_line_and_column() {
        let text = "(role x)\n(init (cell 1))\n";
        let d = Diagnostic::error("test", Span::new(15, 23), "something is wrong");
        let out = render(
            SourceFile {
                name: "g.kif",
                text,
            },
            &d,
            RenderOptions::default(),
        );
        assert!(out.contains("g.kif:2:7"), "{out}");
        assert!(out.contains("(init (cell 1))"), "{out}");
        assert!(out.contains("something is wrong"), "{out}");
    }
}
