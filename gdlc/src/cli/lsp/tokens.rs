//! Semantic tokens: every name by what it is (keyword, relation, function, constant, number,
//! variable), comments, and the connectives the syntax tree does not keep (`<=`, `not`, `or`,
//! `and`, `distinct`; infix `:-`, `~`, `&`, `|`).

use gdlc::Syntax;
use lsp_types::{
    SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokens, SemanticTokensLegend,
};

use super::document::Snapshot;
use super::occurrences::Kind;

/// The token types, in the legend's order ([`legend`]).
const TYPES: [SemanticTokenType; 8] = [
    SemanticTokenType::KEYWORD,
    // Relations.
    SemanticTokenType::FUNCTION,
    // Functions (the functors of terms).
    SemanticTokenType::STRUCT,
    // Object constants.
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::NUMBER,
    SemanticTokenType::COMMENT,
    SemanticTokenType::OPERATOR,
];

const KEYWORD: u32 = 0;
const RELATION: u32 = 1;
const FUNCTION: u32 = 2;
const CONSTANT: u32 = 3;
const VARIABLE: u32 = 4;
const NUMBER: u32 = 5;
const COMMENT: u32 = 6;
const OPERATOR: u32 = 7;

/// The modifier bit of a name in a rule's head.
const DECLARATION: u32 = 1;

/// The legend the server announces.
pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: vec![SemanticTokenModifier::DECLARATION],
    }
}

/// The connectives written as words.
const WORD_KEYWORDS: [&str; 5] = ["<=", "not", "or", "and", "distinct"];

/// The tokens of a snapshot, in the protocol's relative encoding.
pub fn tokens(s: &Snapshot) -> SemanticTokens {
    // (start, end, type, modifiers), by byte offsets.
    let mut found: Vec<(u32, u32, u32, u32)> = s
        .occurrences
        .iter()
        .map(|o| {
            let ty = match o.kind {
                Kind::Keyword => KEYWORD,
                Kind::Relation => RELATION,
                Kind::Function => FUNCTION,
                Kind::Constant => CONSTANT,
                Kind::Number => NUMBER,
                Kind::Variable => VARIABLE,
            };
            let modifiers = if o.in_head && o.kind == Kind::Relation {
                DECLARATION
            } else {
                0
            };
            (o.span.start, o.span.end, ty, modifiers)
        })
        .collect();
    found.extend(
        s.program
            .comments
            .iter()
            .map(|c| (c.span.start, c.span.end, COMMENT, 0)),
    );
    found.sort_unstable();
    let connectives = connectives(&s.text, s.syntax, &found);
    found.extend(connectives);
    found.sort_unstable();
    encode(s, &found)
}

/// The connectives outside the spans already `covered` (sorted).
fn connectives(
    text: &str,
    syntax: Syntax,
    covered: &[(u32, u32, u32, u32)],
) -> Vec<(u32, u32, u32, u32)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut next_covered = covered.iter().peekable();
    let mut i = 0;
    while i < bytes.len() {
        while next_covered.next_if(|c| (c.1 as usize) <= i).is_some() {}
        if let Some(c) = next_covered.peek()
            && (c.0 as usize) <= i
        {
            i = c.1 as usize;
            continue;
        }
        let b = bytes[i];
        let word_end = |from: usize| {
            let mut j = from;
            while j < bytes.len()
                && (bytes[j].is_ascii_alphanumeric() || b"_-?<=".contains(&bytes[j]))
            {
                j += 1;
            }
            j
        };
        match b {
            b'\'' | b'"' => {
                // A quoted name the tree does not know (in a part that did not parse).
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b && bytes[j] != b'\n' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                i = j + 1;
            }
            b':' if syntax == Syntax::Infix && bytes.get(i + 1) == Some(&b'-') => {
                out.push((i as u32, i as u32 + 2, OPERATOR, 0));
                i += 2;
            }
            b'~' | b'&' | b'|' if syntax == Syntax::Infix => {
                out.push((i as u32, i as u32 + 1, OPERATOR, 0));
                i += 1;
            }
            _ if b.is_ascii_alphanumeric() || b"_-?<=".contains(&b) => {
                let j = word_end(i);
                let word = &text[i..j];
                if WORD_KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word)) {
                    out.push((i as u32, j as u32, KEYWORD, 0));
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    out
}

/// The protocol's encoding: each token's line and start relative to the previous token's,
/// lengths in UTF-16 units; tokens that overlap an earlier one or span lines are left out.
fn encode(s: &Snapshot, found: &[(u32, u32, u32, u32)]) -> SemanticTokens {
    let mut data = Vec::with_capacity(found.len());
    let (mut line, mut character) = (0u32, 0u32);
    let mut last_end = 0u32;
    for &(start, end, ty, modifiers) in found {
        if start < last_end || end <= start {
            continue;
        }
        let (a, b) = (
            s.lines.position(&s.text, start),
            s.lines.position(&s.text, end),
        );
        if a.line != b.line {
            continue;
        }
        let delta_line = a.line - line;
        let delta_start = if delta_line == 0 {
            a.character - character
        } else {
            a.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length: b.character - a.character,
            token_type: ty,
            token_modifiers_bitset: modifiers,
        });
        (line, character, last_end) = (a.line, a.character, end);
    }
    SemanticTokens {
        result_id: None,
        data,
    }
}
