//! GDL text as generated code reads it: whitespace-normalised terms.

use crate::sexpr::{self, Node, NodeId, SExprs};

/// The canonical text of one GDL term given as `text`: tokens separated by single spaces,
/// `(f a b)` style, with a parenthesised lone name `(noop)` read as the name `noop` (as GDL
/// readers do). `None` when `text` is not exactly one well-formed term.
///
/// ```
/// assert_eq!(gdl_runtime::text::normalize(" ( mark  1\n1 ) ").as_deref(), Some("(mark 1 1)"));
/// assert_eq!(gdl_runtime::text::normalize("(noop)").as_deref(), Some("noop"));
/// assert_eq!(gdl_runtime::text::normalize("(a"), None);
/// ```
pub fn normalize(text: &str) -> Option<String> {
    let tree = sexpr::read(text);
    if !tree.errors.is_empty() {
        return None;
    }
    let [id] = tree.top_level() else { return None };
    let mut out = String::with_capacity(text.len());
    write(text, &tree, *id, &mut out, 0)?;
    Some(out)
}

/// The deepest nesting [`normalize`] accepts.
pub const MAX_DEPTH: usize = 1000;

fn write(text: &str, tree: &SExprs, id: NodeId, out: &mut String, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    match tree.node(id) {
        Node::Atom { span } => out.push_str(&text[span.range()]),
        Node::List { .. } => {
            let kids = tree.children(id);
            match kids {
                [] => return None,
                [only] if tree.atom(text, *only).is_some() => {
                    write(text, tree, *only, out, depth + 1)?
                }
                _ => {
                    out.push('(');
                    for (i, &k) in kids.iter().enumerate() {
                        if i > 0 {
                            out.push(' ');
                        }
                        write(text, tree, k, out, depth + 1)?;
                    }
                    out.push(')');
                }
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn normalises_whitespace_and_rejects_junk() {
        assert_eq!(
            normalize("(move  (a b)\t c)").as_deref(),
            Some("(move (a b) c)")
        );
        assert_eq!(normalize("noop").as_deref(), Some("noop"));
        assert_eq!(normalize("a b"), None);
        assert_eq!(normalize("()"), None);
        assert_eq!(normalize(""), None);
    }
}
