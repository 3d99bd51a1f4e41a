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
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before
        .bytes()
        .rposition(|b| b == b'\n')
        .map_or(0, |i| i + 1);
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

/// How many diagnostics a front end shows by default; the rest are counted (see [`cap`]).
pub const DEFAULT_CAP: usize = 100;

/// The diagnostics to show and a count of the ones left out, so that a flood of findings (a
/// file of random bytes) costs no more than [`DEFAULT_CAP`] renderings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capped<'a> {
    /// The first diagnostics, in the order given.
    pub shown: &'a [Diagnostic],
    /// The errors left out.
    pub more_errors: usize,
    /// The warnings left out.
    pub more_warnings: usize,
}

impl Capped<'_> {
    /// `... and N more errors (M warnings)`, or `None` when nothing was left out.
    pub fn more_line(&self) -> Option<String> {
        if self.more_errors == 0 && self.more_warnings == 0 {
            return None;
        }
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        Some(format!(
            "... and {} ({})",
            n(self.more_errors, "more error", "more errors"),
            n(self.more_warnings, "warning", "warnings")
        ))
    }
}

/// The first `limit` diagnostics of `diags` and the counts of the rest.
pub fn cap(diags: &[Diagnostic], limit: usize) -> Capped<'_> {
    let (shown, rest) = diags.split_at(limit.min(diags.len()));
    let more_errors = rest.iter().filter(|d| d.is_error()).count();
    Capped {
        shown,
        more_errors,
        more_warnings: rest.len() - more_errors,
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
    if file.text.len() > MAX_SNIPPET_SOURCE || has_long_line(file.text, diag) {
        return render_clipped(file, diag);
    }
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

/// Above this size a source is not handed to ariadne, which indexes all of it per report.
const MAX_SNIPPET_SOURCE: usize = 1 << 20;

/// Lines longer than this are shown clipped around the span rather than by ariadne, whose
/// cost grows with the line's length.
const MAX_LINE: usize = 200;

/// The line of `text` around byte `offset`, as a byte range.
fn line_around(text: &str, offset: usize) -> std::ops::Range<usize> {
    let offset = offset.min(text.len());
    let bytes = text.as_bytes();
    let start = bytes[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[offset..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| offset + i);
    start..end
}

fn has_long_line(text: &str, diag: &Diagnostic) -> bool {
    std::iter::once(diag.span)
        .chain(diag.labels.iter().map(|(s, _)| *s))
        .any(|s| {
            let line = line_around(text, s.start as usize);
            line.len() > MAX_LINE
        })
}

/// The one-line form, the part of the line around the span (at most [`MAX_LINE`] bytes), a
/// caret, and the labels and notes as plain text.
fn render_clipped(file: SourceFile<'_>, diag: &Diagnostic) -> String {
    let mut out = format!("{}\n", OneLine(file, diag));
    let span = clamp(file.text, diag.span);
    let line = line_around(file.text, span.start);
    let from = floor_char_boundary(
        file.text,
        span.start.saturating_sub(MAX_LINE / 2).max(line.start),
    );
    let to = floor_char_boundary(file.text, (from + MAX_LINE).min(line.end));
    let excerpt = &file.text[from..to];
    let lead = if from > line.start { "..." } else { "" };
    let tail = if to < line.end { "..." } else { "" };
    let caret_at = lead.len() + file.text[from..span.start.max(from)].chars().count();
    let width = file.text[span.start..span.end.min(to).max(span.start)]
        .chars()
        .count()
        .max(1);
    out.push_str(&format!("  | {lead}{excerpt}{tail}\n"));
    out.push_str(&format!(
        "  | {}{}\n",
        " ".repeat(caret_at),
        "^".repeat(width)
    ));
    for (s, text) in &diag.labels {
        let (l, c) = line_col(file.text, s.start);
        out.push_str(&format!("  = {}:{l}:{c}: {text}\n", file.name));
    }
    for note in &diag.notes {
        out.push_str(&format!("  = note: {note}\n"));
    }
    out
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

    #[test]
    fn cap_counts_what_it_leaves_out() {
        let e = Diagnostic::error("e", Span::new(0, 1), "e");
        let w = Diagnostic::warning("w", Span::new(0, 1), "w");
        let all = vec![e.clone(), e.clone(), w.clone(), e, w];
        let c = cap(&all, 2);
        assert_eq!(c.shown.len(), 2);
        assert_eq!(
            c.more_line().as_deref(),
            Some("... and 1 more error (2 warnings)")
        );
        assert_eq!(cap(&all, 5).more_line(), None);
    }

    #[test]
    fn long_lines_are_rendered_clipped() {
        let text = format!("{}(x{}", ")".repeat(5000), ")".repeat(5000));
        let d = Diagnostic::error("syntax", Span::new(5000, 5001), "this `(` is never closed");
        let file = SourceFile {
            name: "g.kif",
            text: &text,
        };
        let out = render(file, &d, RenderOptions::default());
        assert!(out.starts_with("g.kif:1:5001: error[syntax]"), "{out}");
        assert!(out.lines().all(|l| l.len() < 2 * MAX_LINE), "{out}");
        let excerpt = out.lines().nth(1).unwrap_or("");
        let caret = out.lines().nth(2).unwrap_or("");
        assert_eq!(excerpt.find("(x"), caret.find('^'), "{out}");
    }
}
