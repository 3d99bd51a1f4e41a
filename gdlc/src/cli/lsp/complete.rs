//! Completion: the keywords with their arity, the document's relations, functions and
//! constants, and the variables of the rule at the cursor.

use std::collections::HashSet;

use lsp_types::{CompletionItem, CompletionItemKind, Position};

use super::document::Snapshot;
use super::occurrences::Kind;

/// The keywords and their arities (`or` and `and` take any number of literals).
const KEYWORDS: [(&str, &str); 16] = [
    ("role", "role/1"),
    ("init", "init/1"),
    ("true", "true/1"),
    ("next", "next/1"),
    ("legal", "legal/2"),
    ("does", "does/2"),
    ("goal", "goal/2"),
    ("terminal", "terminal/0"),
    ("base", "base/1"),
    ("input", "input/2"),
    ("sees", "sees/2"),
    ("distinct", "distinct/2"),
    ("not", "not/1"),
    ("or", "or/n"),
    ("and", "and/n"),
    ("<=", "rule: (<= head body...)"),
];

pub fn completions(s: &Snapshot, position: Position) -> Vec<CompletionItem> {
    let item = |label: String, kind, detail: String| CompletionItem {
        label,
        kind: Some(kind),
        detail: Some(detail),
        ..CompletionItem::default()
    };
    let mut out: Vec<CompletionItem> = KEYWORDS
        .iter()
        .map(|(k, d)| item(k.to_string(), CompletionItemKind::KEYWORD, d.to_string()))
        .collect();
    let offset = s.offset(position);
    // The rule at the cursor, for its variables.
    let here = s
        .program
        .rules
        .iter()
        .position(|r| r.span.start <= offset && offset <= r.span.end);
    let mut seen = HashSet::new();
    for o in &s.occurrences {
        let (kind, detail) = match o.kind {
            Kind::Keyword | Kind::Number => continue,
            Kind::Relation => (
                CompletionItemKind::FUNCTION,
                format!("relation/{}", o.arity),
            ),
            Kind::Function => (CompletionItemKind::STRUCT, format!("function/{}", o.arity)),
            Kind::Constant => (CompletionItemKind::ENUM_MEMBER, "constant".to_string()),
            Kind::Variable if Some(o.rule) == here => {
                (CompletionItemKind::VARIABLE, "variable".to_string())
            }
            Kind::Variable => continue,
        };
        let label = s.slice(o.span).to_string();
        if label.is_empty() || !seen.insert((label.clone(), detail.clone())) {
            continue;
        }
        out.push(item(label, kind, detail));
    }
    out
}
