//! An open document and what the front end made of one version of it ([`Snapshot`]): the
//! program as far as it parsed, every diagnostic, the strata, the occurrences of names, and
//! the conversion between byte offsets and the protocol's UTF-16 positions ([`Lines`]).

use std::sync::Arc;

use gdlc::ast::{Program, Span};
use gdlc::diag::{Diagnostic, LineIndex};
use gdlc::stratify::Strata;
use gdlc::{CheckOptions, Source, Syntax};
use lsp_types::{Position, Range, Uri};

use super::occurrences::{self, Occurrence};

/// A text larger than this is read (syntax errors, outline, tokens) but not checked as it is
/// edited: checking a description of tens of megabytes takes seconds.
pub const MAX_CHECKED_BYTES: usize = 4 * 1024 * 1024;

/// The checks whose findings stand on their own in a text that does not parse (they look at
/// one rule); the others (missing relations, unused or undefined ones, arities, cycles) would
/// be about the rules the syntax error cut away.
const LOCAL_CODES: &[&str] = &[
    "keyword-arity",
    "keyword-as-function",
    "reserved-name",
    "role-rule",
    "keyword-in-head",
    "keyword-in-body",
    "goal-value",
    "variable-in-fact",
    "unsafe-variable",
    "empty-or",
    "nested-or",
    "empty-body",
    "unusual-name",
];

/// One version of a document, analysed.
#[derive(Debug)]
pub struct Snapshot {
    pub uri: Uri,
    pub version: i32,
    /// The name it is reported under (the last segment of its URI).
    pub name: String,
    pub text: Arc<str>,
    pub syntax: Syntax,
    pub lines: Lines,
    /// The program as far as it parsed.
    pub program: Program,
    /// Every finding of `gdlc check`; for a text with syntax errors, those and the findings
    /// about single rules of what did parse.
    pub diagnostics: Vec<Diagnostic>,
    pub strata: Option<Strata>,
    /// Whether the text has syntax errors.
    pub broken: bool,
    /// Every name of the program where it stands, in source order.
    pub occurrences: Vec<Occurrence>,
}

/// The name a document is reported under: the last segment of its URI's path.
pub fn name_of(uri: &Uri) -> String {
    let path = uri.path().as_str();
    path.rsplit('/').next().unwrap_or(path).to_string()
}

/// Reads and checks one version of a document.
pub fn analyse(uri: Uri, version: i32, text: Arc<str>) -> Snapshot {
    let name = name_of(&uri);
    let source = Source::new(&name, &text);
    let syntax = source.syntax();
    let options = CheckOptions::default();
    let (program, diagnostics, strata, broken) = if text.len() > MAX_CHECKED_BYTES {
        let (program, diagnostics) = gdlc::frontend::parse(source);
        let broken = diagnostics.iter().any(Diagnostic::is_error);
        (program, diagnostics, None, broken)
    } else {
        let a = gdlc::frontend::analyse(source, &options);
        let broken = a.has_errors()
            && a.diagnostics
                .iter()
                .any(|d| d.code == gdlc::diag::codes::SYNTAX.name);
        let mut diagnostics = a.diagnostics;
        if broken {
            let report = gdlc::check::check_with(&a.program, &options);
            diagnostics.extend(
                report
                    .diagnostics
                    .into_iter()
                    .filter(|d| !d.whole_program && LOCAL_CODES.contains(&d.code)),
            );
            diagnostics.sort_by_key(|d| d.span);
        }
        (a.program, diagnostics, a.strata, broken)
    };
    let occurrences = occurrences::collect(&program, &text);
    Snapshot {
        uri,
        version,
        name,
        lines: Lines::new(&text),
        text,
        syntax,
        program,
        diagnostics,
        strata,
        broken,
        occurrences,
    }
}

/// The snapshot of a version whose analysis failed (a bug): no program, no diagnostics.
pub fn failed(uri: Uri, version: i32, text: Arc<str>) -> Snapshot {
    Snapshot {
        name: name_of(&uri),
        uri,
        version,
        lines: Lines::new(&text),
        syntax: Syntax::of("", &text),
        text,
        program: Program::default(),
        diagnostics: Vec::new(),
        strata: None,
        broken: true,
        occurrences: Vec::new(),
    }
}

impl Snapshot {
    /// The protocol's range of a span.
    pub fn range(&self, span: Span) -> Range {
        self.lines.range(&self.text, span)
    }

    /// The byte offset of a position.
    pub fn offset(&self, position: Position) -> u32 {
        self.lines.offset(&self.text, position)
    }

    /// The text of a span (empty if it is out of bounds).
    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}

/// Where each line of a text starts, for the protocol's positions: a line and a column in
/// UTF-16 code units (the diagnostics' [`LineIndex`], counted in UTF-16).
#[derive(Clone, Debug)]
pub struct Lines(LineIndex);

impl Lines {
    pub fn new(text: &str) -> Lines {
        Lines(LineIndex::new(text))
    }

    /// The position of byte `offset` of `text` (clamped to the text, moved back to a
    /// character boundary).
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let (line, start, ascii) = self.0.line_of(offset);
        let character = if ascii {
            offset - start
        } else {
            text[start..offset].encode_utf16().count()
        };
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start),
            self.position(text, span.end),
        )
    }

    /// The byte offset of `position` in `text`: a column past the end of its line is the
    /// line's end, a line past the last is the end of the text.
    pub fn offset(&self, text: &str, position: Position) -> u32 {
        let Some(start) = self.0.line_start(position.line as usize) else {
            return text.len() as u32;
        };
        let end = self
            .0
            .line_start(position.line as usize + 1)
            .unwrap_or(text.len());
        let line = text[start..end].trim_end_matches(['\n', '\r']);
        let mut units = 0u32;
        for (i, c) in line.char_indices() {
            if units >= position.character {
                return (start + i) as u32;
            }
            units += c.len_utf16() as u32;
        }
        (start + line.len()) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "(a)\n; é𝄞x\n(b)";
        let lines = Lines::new(text);
        let x = text.find('x').unwrap() as u32;
        assert_eq!(lines.position(text, x), Position::new(1, 5));
        assert_eq!(lines.offset(text, Position::new(1, 5)), x);
        assert_eq!(lines.offset(text, Position::new(1, 99)), x + 1);
        assert_eq!(lines.position(text, 14), Position::new(2, 0));
        assert_eq!(lines.offset(text, Position::new(9, 0)), text.len() as u32);
        // Inside a character: back to its start.
        assert_eq!(lines.position(text, x - 1), Position::new(1, 3));
    }
}
