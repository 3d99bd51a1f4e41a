//! Diagnostics: what the readers and the checker report, and their rendering with source
//! snippets (through `ariadne` with the `ariadne` feature; [`render_plain`] without it).

use std::fmt;

use crate::ast::Span;

pub mod codes;

pub use codes::Code;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

/// One finding about a description, located in its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable short name of the check, e.g. `unsafe-variable`: the name of a [`Code`] of
    /// the registry ([`codes`]).
    pub code: &'static str,
    pub message: String,
    /// Where the problem is.
    pub span: Span,
    /// Further places that explain it, each with a short text.
    pub labels: Vec<(Span, String)>,
    /// Free text shown after the snippet.
    pub notes: Vec<String>,
    /// A finding about the description as a whole (no `terminal` rule), not about one place:
    /// shown after the findings that have a place, which are often its cause.
    pub whole_program: bool,
}

impl Diagnostic {
    pub fn error(code: &'static Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: code.name,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            whole_program: false,
        }
    }

    pub fn warning(code: &'static Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }

    /// Marks a finding about the description as a whole ([`Diagnostic::whole_program`]).
    pub fn about_whole_program(mut self) -> Self {
        self.whole_program = true;
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

/// The start of every line of a text, so that the line and column of many offsets cost a
/// binary search each (rendering thousands of diagnostics of a 50 MB file stays linear).
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset of each line's first byte.
    starts: Vec<u32>,
    /// Whether each line is ASCII (its columns are byte offsets).
    ascii: Vec<bool>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let mut line_ascii = true;
        for (i, b) in text.bytes().enumerate() {
            line_ascii &= b.is_ascii();
            if b == b'\n' {
                starts.push(i as u32 + 1);
                ascii.push(line_ascii);
                line_ascii = true;
            }
        }
        ascii.push(line_ascii);
        LineIndex { starts, ascii }
    }

    /// 1-based line and column (in characters) of byte `offset` of `text` (the text this
    /// index was made from).
    pub fn line_col(&self, text: &str, offset: u32) -> (usize, usize) {
        let offset = floor_char_boundary(text, (offset as usize).min(text.len()));
        let (line, start, ascii) = self.line_of(offset);
        let col = if ascii {
            offset - start
        } else {
            text[start..offset].chars().count()
        };
        (line + 1, col + 1)
    }

    /// The 0-based line holding byte `offset` (of the text this index was made from), the
    /// byte offset of that line's start, and whether the line is ASCII.
    pub fn line_of(&self, offset: usize) -> (usize, usize, bool) {
        let line = self
            .starts
            .partition_point(|&s| s as usize <= offset)
            .max(1)
            - 1;
        (line, self.starts[line] as usize, self.ascii[line])
    }

    /// The byte offset where 0-based line `line` starts, if the text has that line.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).map(|&s| s as usize)
    }
}

/// 1-based line and column (in characters) of byte `offset` of `text` (a scan of the text; see
/// [`LineIndex`] for many offsets).
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

/// How many diagnostics a [`Reporter`] prints by default; the others are counted.
pub const DEFAULT_CAP: usize = 100;

/// How [`Reporter`] prints diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// With the source snippet and labels (through `ariadne` with the `ariadne` feature; as
    /// [`render_plain`] without it, and for very long lines).
    Human,
    /// One line each: `file:line:col: severity[code]: message`.
    Short,
}

/// Options of a [`Reporter`].
#[derive(Clone, Copy, Debug)]
pub struct ReportOptions {
    pub style: Style,
    /// Use ANSI colours.
    pub color: bool,
    /// Print at most this many diagnostics; the rest are counted in one closing line.
    pub max_shown: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            style: Style::Human,
            color: false,
            max_shown: DEFAULT_CAP,
        }
    }
}

/// Renders the diagnostics of one source: the line index (and `ariadne`'s source cache) is
/// made once, so that rendering stays linear in the size of the file and the number of
/// diagnostics shown; a flood is capped ([`ReportOptions::max_shown`]) and counted.
pub struct Reporter<'a> {
    file: SourceFile<'a>,
    lines: LineIndex,
    options: ReportOptions,
    #[cfg(feature = "ariadne")]
    source: ariadne::Source<&'a str>,
}

impl<'a> Reporter<'a> {
    pub fn new(file: SourceFile<'a>, options: ReportOptions) -> Reporter<'a> {
        Reporter {
            file,
            lines: LineIndex::new(file.text),
            options,
            #[cfg(feature = "ariadne")]
            source: ariadne::Source::from(file.text),
        }
    }

    /// `file:line:col` of a byte offset.
    pub fn location(&self, offset: u32) -> String {
        let (line, col) = self.lines.line_col(self.file.text, offset);
        format!("{}:{line}:{col}", self.file.name)
    }

    /// One diagnostic, in the style of the options (ends with a newline).
    pub fn render(&self, d: &Diagnostic) -> String {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.options.style {
            Style::Short => format!(
                "{}: {kind}[{}]: {}\n",
                self.location(d.span.start),
                d.code,
                d.message
            ),
            Style::Human => self.render_human(d),
        }
    }

    #[cfg(feature = "ariadne")]
    fn render_human(&self, d: &Diagnostic) -> String {
        // ariadne prints whole lines: a file on one line would be printed per diagnostic.
        const LONG_LINE: usize = 400;
        let span = clamp(self.file.text, d.span);
        let (line, _) = self.lines.line_col(self.file.text, span.start as u32);
        let start = self.lines.starts[line - 1] as usize;
        let end = self
            .lines
            .starts
            .get(line)
            .map_or(self.file.text.len(), |&e| e as usize);
        if end - start > LONG_LINE || d.labels.iter().any(|(s, _)| s.end > s.start + 4000) {
            return render_plain(self.file, d);
        }
        render_with(self.file, &self.source, d, self.options.color)
    }

    #[cfg(not(feature = "ariadne"))]
    fn render_human(&self, d: &Diagnostic) -> String {
        render_plain(self.file, d)
    }

    /// The first [`ReportOptions::max_shown`] of `diagnostics`, then a line counting the
    /// others (`game.kif: ... and 9900 more errors (3 warnings)`).
    pub fn render_all<'d>(&self, diagnostics: impl IntoIterator<Item = &'d Diagnostic>) -> String {
        let mut out = String::new();
        let (mut errors, mut warnings) = (0usize, 0usize);
        for (i, d) in diagnostics.into_iter().enumerate() {
            if i < self.options.max_shown {
                out.push_str(&self.render(d));
            } else if d.is_error() {
                errors += 1;
            } else {
                warnings += 1;
            }
        }
        if errors + warnings > 0 {
            out.push_str(&format!(
                "{}: ... and {errors} more errors ({warnings} warnings)\n",
                self.file.name
            ));
        }
        out
    }
}

/// Renders `diag` with its source line, without colours or box drawing (what the `gdl!` macro
/// shows in a compile error; no dependency beyond the standard library):
///
/// ```text
/// error[unsafe-variable]: variable ?x of the head does not appear in a positive literal
///  --> game.kif:3:5
///   | (<= (q ?x) (true (p)))
///   |     ^^^^^^
///   = note: ...
/// ```
pub fn render_plain(file: SourceFile<'_>, diag: &Diagnostic) -> String {
    let kind = match diag.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let span = clamp(file.text, diag.span);
    let (line, col) = line_col(file.text, span.start as u32);
    let line_start = file.text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = file.text[span.start..]
        .find('\n')
        .map_or(file.text.len(), |i| span.start + i);
    // Long lines (a whole file on one line) are clipped around the span.
    const WIDTH: usize = 160;
    let mut shown_start = line_start;
    if span.start - line_start > WIDTH / 2 {
        shown_start = floor_char_boundary(file.text, span.start - WIDTH / 2);
    }
    let shown_end = floor_char_boundary(file.text, line_end.min(shown_start + WIDTH));
    let text = &file.text[shown_start..shown_end];
    let lead = if shown_start > line_start { "..." } else { "" };
    let pad = lead.len() + file.text[shown_start..span.start].chars().count();
    let carets = file.text[span.start..span.end.min(shown_end).max(span.start)]
        .chars()
        .count()
        .max(1);
    let mut out = format!(
        "{kind}[{}]: {}\n --> {}:{line}:{col}\n  | {lead}{text}\n  | {}{}\n",
        diag.code,
        diag.message,
        file.name,
        " ".repeat(pad),
        "^".repeat(carets)
    );
    for (s, label) in &diag.labels {
        let (l, c) = line_col(file.text, s.start);
        out.push_str(&format!("  = {}:{l}:{c}: {label}\n", file.name));
    }
    for note in &diag.notes {
        out.push_str(&format!("  = note: {note}\n"));
    }
    out
}

#[cfg(feature = "ariadne")]
fn render_with(
    file: SourceFile<'_>,
    source: &ariadne::Source<&str>,
    diag: &Diagnostic,
    color: bool,
) -> String {
    use ariadne::{Config, Label, Report, ReportKind};
    let kind = match diag.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let span = clamp(file.text, diag.span);
    let mut report = Report::build(kind, (file.name, span.clone()))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(ariadne::IndexType::Byte),
        )
        .with_code(diag.code)
        .with_message(&diag.message);
    // Labels in source order: ariadne starts a new box (headed by the primary span's
    // location) whenever a label lies above the one before it.
    let mut labels = vec![(span, label_text(diag))];
    labels.extend(
        diag.labels
            .iter()
            .map(|(s, text)| (clamp(file.text, *s), text.as_str())),
    );
    labels.sort_by_key(|(s, _)| s.start);
    for (order, (s, text)) in labels.into_iter().enumerate() {
        report = report.with_label(
            Label::new((file.name, s))
                .with_message(text)
                .with_order(i32::try_from(order).unwrap_or(i32::MAX)),
        );
    }
    for note in &diag.notes {
        report = report.with_note(note);
    }
    let mut out = Vec::new();
    let written = report.finish().write((file.name, source), &mut out);
    match written {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(_) => format!("{}\n", OneLine(file, diag)),
    }
}

#[cfg(feature = "ariadne")]
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
    fn the_line_index_agrees_with_a_scan() {
        let text = "ab\ncd\n\u{e9}x\n\nlast";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() as u32 + 2 {
            assert_eq!(
                index.line_col(text, offset),
                line_col(text, offset),
                "{offset}"
            );
        }
    }

    #[test]
    fn a_flood_of_diagnostics_is_capped_and_counted_in_linear_time() {
        let n = 200_000;
        let text = ")\n".repeat(n);
        let diags: Vec<Diagnostic> = (0..n)
            .map(|i| Diagnostic::error(codes::SYNTAX, Span::new(2 * i, 2 * i + 1), "stray"))
            .chain([Diagnostic::warning(
                codes::UNUSED_RELATION,
                Span::new(0, 1),
                "w",
            )])
            .collect();
        let file = SourceFile {
            name: "g.kif",
            text: &text,
        };
        let start = std::time::Instant::now();
        for style in [Style::Short, Style::Human] {
            let options = ReportOptions {
                style,
                color: false,
                max_shown: 10,
            };
            let out = Reporter::new(file, options).render_all(&diags);
            assert!(
                out.ends_with("g.kif: ... and 199990 more errors (1 warnings)\n"),
                "{out}"
            );
            assert!(out.contains("g.kif:3:1"), "{out}");
        }
        // A scan per diagnostic took minutes here; a second is far more than enough.
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    }

    #[test]
    fn plain_rendering_shows_the_line_and_clips_long_ones() {
        let text = "(role x)\n(init (cell 1))\n";
        let d = Diagnostic::error(codes::SYNTAX, Span::new(15, 23), "something is wrong")
            .with_note("a note");
        let out = render_plain(
            SourceFile {
                name: "g.kif",
                text,
            },
            &d,
        );
        assert_eq!(
            out,
            "error[syntax]: something is wrong\n --> g.kif:2:7\n  | (init (cell 1))\n  |       ^^^^^^^^\n  = note: a note\n"
        );
        let long = format!("{}(x", "(p) ".repeat(10_000));
        let d = Diagnostic::error(codes::SYNTAX, Span::new(40_000, 40_001), "unclosed");
        let out = render_plain(
            SourceFile {
                name: "g.kif",
                text: &long,
            },
            &d,
        );
        assert!(out.lines().all(|l| l.len() < 200), "{out}");
        assert!(out.contains("g.kif:1:40001"), "{out}");
    }

    #[cfg(feature = "ariadne")]
    #[test]
    fn render_names_file_line_and_column() {
        let text = "(role x)\n(init (cell 1))\n";
        let d = Diagnostic::error(codes::SYNTAX, Span::new(15, 23), "something is wrong");
        let file = SourceFile {
            name: "g.kif",
            text,
        };
        let out = Reporter::new(file, ReportOptions::default()).render(&d);
        assert!(out.contains("g.kif:2:7"), "{out}");
        assert!(out.contains("(init (cell 1))"), "{out}");
        assert!(out.contains("something is wrong"), "{out}");
    }

    #[cfg(feature = "ariadne")]
    #[test]
    fn a_label_above_the_primary_span_stays_in_one_box_in_source_order() {
        let text = "(p (a 1))\n(p (a 2 3))\n";
        let d = Diagnostic::error(codes::SYNTAX, Span::new(13, 20), "second use")
            .with_label(Span::new(3, 8), "first use");
        let file = SourceFile {
            name: "g.kif",
            text,
        };
        let out = Reporter::new(file, ReportOptions::default()).render(&d);
        // One box, headed by the primary span, the first line shown first.
        assert_eq!(out.matches("g.kif:").count(), 1, "{out}");
        assert!(out.contains("g.kif:2:4"), "{out}");
        let first = out.find("(p (a 1))").expect("line 1 shown");
        let second = out.find("(p (a 2 3))").expect("line 2 shown");
        assert!(first < second, "{out}");
    }
}
