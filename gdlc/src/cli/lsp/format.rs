//! Formatting with `gdlc fmt`'s printer (comments kept): the whole document, the rules a range
//! touches, and the indentation of a new line as it is typed.

use gdlc::Syntax;
use gdlc::ast::{Comment, Span};
use gdlc::print::{Layout, write_program_infix, write_program_kif};
use lsp_types::{Position, Range, TextEdit};

use super::document::Snapshot;

/// Why a document is not formatted.
pub const BROKEN: &str = "the document has syntax errors: it is formatted once they are fixed";

/// The edits that format the whole document (none when it is formatted already).
pub fn document(s: &Snapshot) -> Result<Vec<TextEdit>, String> {
    if s.broken {
        return Err(BROKEN.to_string());
    }
    let formatted = match s.syntax {
        Syntax::Kif => gdlc::print::pretty_kif(&s.program),
        Syntax::Infix => gdlc::print::pretty_infix(&s.program),
    };
    if formatted == *s.text {
        return Ok(Vec::new());
    }
    let whole = Span {
        start: 0,
        end: s.text.len() as u32,
    };
    Ok(vec![TextEdit::new(s.range(whole), formatted)])
}

/// The edits that format the rules `range` touches, with their comments.
pub fn range(s: &Snapshot, range: Range) -> Result<Vec<TextEdit>, String> {
    if s.broken {
        return Err(BROKEN.to_string());
    }
    let (start, end) = (s.offset(range.start), s.offset(range.end));
    let rules = &s.program.rules;
    let first = rules.iter().position(|r| r.span.end >= start);
    let last = rules.iter().rposition(|r| r.span.start <= end);
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(Vec::new());
    };
    if first > last {
        return Ok(Vec::new());
    }
    let comments: Vec<Comment> = s
        .program
        .comments
        .iter()
        .filter(|c| (first..=last).contains(&c.rule))
        .map(|c| Comment {
            rule: c.rule - first,
            ..c.clone()
        })
        .collect();
    let mut span = Span {
        start: rules[first].span.start,
        end: rules[last].span.end,
    };
    for c in &comments {
        span.start = span.start.min(c.span.start);
        span.end = span.end.max(c.span.end);
    }
    let mut out = String::new();
    let selected = &rules[first..=last];
    let layout = Layout::default();
    match s.syntax {
        Syntax::Kif => {
            write_program_kif(&s.program.symbols, selected, &comments, &layout, &mut out)
        }
        Syntax::Infix => {
            write_program_infix(&s.program.symbols, selected, &comments, &layout, &mut out)
        }
    }
    let out = out.trim_end_matches('\n');
    if out == s.slice(span) {
        return Ok(Vec::new());
    }
    Ok(vec![TextEdit::new(s.range(span), out.to_string())])
}

/// The indentation of line `position.line` after a new line was typed: in KIF four spaces per
/// parenthesis open since the last line that starts with `(`; in infix four spaces when the
/// line before ends with `:-`, `&`, `|` or `,`.
pub fn on_type(s: &Snapshot, position: Position) -> Vec<TextEdit> {
    let line_start = s.offset(Position::new(position.line, 0)) as usize;
    let text = &s.text[..line_start.min(s.text.len())];
    let indent = match s.syntax {
        Syntax::Kif => {
            let form_start = text
                .trim_end_matches('\n')
                .rfind("\n(")
                .map_or(0, |i| i + 1);
            4 * kif_depth(&text[form_start..])
        }
        Syntax::Infix => {
            let before = text.trim_end();
            let open = before.ends_with(":-")
                || before.ends_with('&')
                || before.ends_with('|')
                || before.ends_with(',');
            if open { 4 } else { 0 }
        }
    };
    let rest = &s.text[line_start.min(s.text.len())..];
    let current = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    let wanted = " ".repeat(indent);
    if rest[..current] == wanted {
        return Vec::new();
    }
    let span = Span {
        start: line_start as u32,
        end: (line_start + current) as u32,
    };
    vec![TextEdit::new(s.range(span), wanted)]
}

/// The parentheses of `text` left open (comments and quoted strings skipped).
fn kif_depth(text: &str) -> usize {
    let mut depth = 0usize;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ';' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '"' || d == '\n' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    #[test]
    fn depth_skips_comments_and_quotes() {
        assert_eq!(super::kif_depth("(<= (p ?x) ; ((\n  (q \"(\" "), 2);
        assert_eq!(super::kif_depth("(a)(b"), 1);
    }
}
