//! A reader of KIF S-expressions: atoms and parenthesised lists, `;` comments to the end of the
//! line, any whitespace between tokens.
//!
//! The tree is kept flat in an arena (no recursion to build it, none to drop it), so a
//! pathologically deep input cannot overflow the stack. Every node carries its byte range in the
//! source. The reader never fails: it returns the tree it could build and every syntax error it
//! found (an unmatched `)` is skipped, an unclosed `(` is closed at the end of the input).
//! Comments are not part of the tree; their spans are listed apart, for printers that keep them.

use std::ops::Range;

/// A byte range in the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// The index of a node in its [`SExprs`] arena.
pub type NodeId = u32;

/// One node of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A token that is not a parenthesis: a name, a variable, a number.
    Atom { span: Span },
    /// A parenthesised list; its children are `children[range]` of the arena.
    List { span: Span, children: Range<u32> },
}

impl Node {
    pub fn span(&self) -> Span {
        match self {
            Node::Atom { span } | Node::List { span, .. } => *span,
        }
    }
}

/// A syntax error found by [`read`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub span: Span,
    pub message: String,
}

/// The result of reading a source text: the arena, the top-level nodes and the errors.
#[derive(Clone, Debug, Default)]
pub struct SExprs {
    nodes: Vec<Node>,
    children: Vec<NodeId>,
    top: Vec<NodeId>,
    comments: Vec<Span>,
    pub errors: Vec<ReadError>,
}

impl SExprs {
    /// The top-level expressions, in source order.
    pub fn top_level(&self) -> &[NodeId] {
        &self.top
    }

    /// The spans of the `;` comments, in source order: from the `;` to the end of its line
    /// (without the `\n`).
    pub fn comments(&self) -> &[Span] {
        &self.comments
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The children of a list node (empty for an atom).
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        match &self.nodes[id as usize] {
            Node::Atom { .. } => &[],
            Node::List { children, .. } => {
                &self.children[children.start as usize..children.end as usize]
            }
        }
    }

    /// The text of an atom node, or `None` for a list.
    pub fn atom<'s>(&self, source: &'s str, id: NodeId) -> Option<&'s str> {
        match &self.nodes[id as usize] {
            Node::Atom { span } => Some(&source[span.range()]),
            Node::List { .. } => None,
        }
    }
}

fn is_delimiter(c: u8) -> bool {
    c.is_ascii_whitespace() || c == b'(' || c == b')' || c == b';'
}

/// Reads every S-expression of `source`.
pub fn read(source: &str) -> SExprs {
    let bytes = source.as_bytes();
    let mut out = SExprs::default();
    // Open lists: (start offset, children collected so far).
    let mut stack: Vec<(usize, Vec<NodeId>)> = Vec::new();
    let push = |out: &mut SExprs, stack: &mut Vec<(usize, Vec<NodeId>)>, node: Node| {
        let id = out.nodes.len() as NodeId;
        out.nodes.push(node);
        match stack.last_mut() {
            Some((_, kids)) => kids.push(id),
            None => out.top.push(id),
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b';' {
            let start = i;
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            out.comments.push(Span::new(start, i));
        } else if c == b'(' {
            stack.push((i, Vec::new()));
            i += 1;
        } else if c == b')' {
            match stack.pop() {
                Some((start, kids)) => {
                    let from = out.children.len() as u32;
                    out.children.extend_from_slice(&kids);
                    let node = Node::List {
                        span: Span::new(start, i + 1),
                        children: from..out.children.len() as u32,
                    };
                    push(&mut out, &mut stack, node);
                }
                None => out.errors.push(ReadError {
                    span: Span::new(i, i + 1),
                    message: "unmatched `)`".to_string(),
                }),
            }
            i += 1;
        } else {
            let start = i;
            while i < bytes.len() && !is_delimiter(bytes[i]) {
                i += 1;
            }
            // Stop at a character boundary: delimiters are ASCII, so only the end can split one.
            while !source.is_char_boundary(i) {
                i += 1;
            }
            push(
                &mut out,
                &mut stack,
                Node::Atom {
                    span: Span::new(start, i),
                },
            );
        }
    }
    while let Some((start, kids)) = stack.pop() {
        out.errors.push(ReadError {
            span: Span::new(start, start + 1),
            message: "this `(` is never closed".to_string(),
        });
        let from = out.children.len() as u32;
        out.children.extend_from_slice(&kids);
        let node = Node::List {
            span: Span::new(start, bytes.len()),
            children: from..out.children.len() as u32,
        };
        push(&mut out, &mut stack, node);
    }
    out.errors.sort_by_key(|e| e.span);
    out
}

/// Renders node `id` back as text with single spaces, e.g. `(mark 1 1)`: the canonical form in
/// which traces and the match protocol print terms.
pub fn canonical(source: &str, tree: &SExprs, id: NodeId) -> String {
    let mut out = String::new();
    render(source, tree, id, Spacing::Tight, &mut out);
    out
}

/// How [`render`] spaces a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spacing {
    /// `(mark 1 1)`: the canonical form.
    Tight,
    /// `( mark 1 1 )`: as ggp-base's manager writes its messages.
    Padded,
}

/// Appends node `id` to `out` as text with single spaces, spaced as `spacing` says.
pub fn render(source: &str, tree: &SExprs, id: NodeId, spacing: Spacing, out: &mut String) {
    // Explicit stack of (node, next child index) so that depth costs no native stack.
    let mut stack: Vec<(NodeId, usize)> = vec![(id, 0)];
    while let Some((node, k)) = stack.pop() {
        match tree.node(node) {
            Node::Atom { span } => {
                out.push_str(&source[span.range()]);
            }
            Node::List { .. } => {
                let kids = tree.children(node);
                if k == 0 {
                    out.push('(');
                }
                if k < kids.len() {
                    if k > 0 || spacing == Spacing::Padded {
                        out.push(' ');
                    }
                    stack.push((node, k + 1));
                    stack.push((kids[k], 0));
                } else {
                    out.push_str(match spacing {
                        Spacing::Tight => ")",
                        Spacing::Padded => " )",
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lists_atoms_and_comments() {
        let src = "; comment\n(<= (legal ?w (mark ?x ?y))\t(true (cell ?x ?y b))) noop ;tail";
        let t = read(src);
        assert!(t.errors.is_empty());
        assert_eq!(t.top_level().len(), 2);
        let rule = t.top_level()[0];
        assert_eq!(t.children(rule).len(), 3);
        assert_eq!(t.atom(src, t.children(rule)[0]), Some("<="));
        assert_eq!(
            canonical(src, &t, rule),
            "(<= (legal ?w (mark ?x ?y)) (true (cell ?x ?y b)))"
        );
        assert_eq!(t.atom(src, t.top_level()[1]), Some("noop"));
        let comments: Vec<&str> = t.comments().iter().map(|s| &src[s.range()]).collect();
        assert_eq!(comments, ["; comment", ";tail"]);
    }

    #[test]
    fn reports_every_unbalanced_parenthesis() {
        let src = ") (a (b) ) ) (c (d";
        let t = read(src);
        let starts: Vec<u32> = t.errors.iter().map(|e| e.span.start).collect();
        assert_eq!(starts, vec![0, 11, 13, 16]);
        assert_eq!(t.top_level().len(), 2);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 200_000;
        let src = format!("{}x{}", "(f ".repeat(depth), ")".repeat(depth));
        let t = read(&src);
        assert!(t.errors.is_empty());
        let text = canonical(&src, &t, t.top_level()[0]);
        assert_eq!(text.len(), src.len());
    }

    #[test]
    fn non_ascii_stays_on_character_boundaries() {
        let src = "(caf\u{e9} \u{e9}t\u{e9}) ; \u{e0} la";
        let t = read(src);
        assert!(t.errors.is_empty());
        assert_eq!(
            canonical(src, &t, t.top_level()[0]),
            "(caf\u{e9} \u{e9}t\u{e9})"
        );
    }
}
