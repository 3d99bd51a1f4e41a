//! The KIF (prefix) reader: S-expressions from `gdl_runtime::sexpr`, shaped into a [`Program`].
//!
//! The parser judges only the shape of the text (a rule has a head, `not` takes one argument,
//! `distinct` two, a variable cannot name a relation...). What a well-formed description may say
//! is the checker's business. It never stops at the first error: a rule with an error is left
//! out, every error is reported, and parsing goes on with the next rule.

use crate::diag::codes;
use gdl_runtime::sexpr::{self, Node, NodeId, SExprs};

use crate::ast::{Atom, Comment, Literal, Program, Rule, RuleKind, Span, Sym, Symbols, Term, kw};
use crate::diag::Diagnostic;

/// Terms nested deeper than this are rejected (the checker and the engines recurse on terms).
pub const MAX_DEPTH: usize = 400;

/// Reads a description in KIF. Returns the rules that parsed and every syntax error and
/// syntax warning (e.g. `(foo)` written with empty parentheses).
pub fn parse_kif(source: &str) -> (Program, Vec<Diagnostic>) {
    let tree = sexpr::read(source);
    let mut p = Parser {
        source,
        tree: &tree,
        symbols: Symbols::default(),
        diags: tree
            .errors
            .iter()
            .map(|e| Diagnostic::error(codes::SYNTAX, e.span, e.message.clone()))
            .collect(),
    };
    let mut rules = Vec::new();
    for &id in tree.top_level() {
        if let Some(rule) = p.rule(id) {
            rules.push(rule);
        }
    }
    let mut diags = p.diags;
    diags.sort_by_key(|d| d.span);
    let comments = attach_comments(source, &rules, tree.comments());
    (
        Program {
            symbols: p.symbols,
            rules,
            comments,
        },
        diags,
    )
}

struct Parser<'s, 't> {
    source: &'s str,
    tree: &'t SExprs,
    symbols: Symbols,
    diags: Vec<Diagnostic>,
}

impl<'s> Parser<'s, '_> {
    fn text(&self, span: Span) -> &'s str {
        &self.source[span.range()]
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(codes::SYNTAX, span, message));
    }

    /// For a list node: its head name (an atom that is not a variable), its span, and the
    /// argument nodes. Reports and returns `None` otherwise.
    fn head(&mut self, id: NodeId, what: &str) -> Option<(Sym, Span, Vec<NodeId>)> {
        let kids = self.tree.children(id).to_vec();
        let span = self.tree.node(id).span();
        let Some((&first, rest)) = kids.split_first() else {
            self.error(span, format!("empty parentheses where {what} is expected"));
            return None;
        };
        match self.tree.node(first) {
            Node::Atom { span: name_span } => {
                let name = self.text(*name_span);
                if name.starts_with('?') {
                    self.error(
                        *name_span,
                        format!("a variable cannot name {what}: GDL is first-order"),
                    );
                    return None;
                }
                let sym = self.symbols.intern(name);
                Some((sym, *name_span, rest.to_vec()))
            }
            Node::List { span, .. } => {
                self.error(*span, format!("expected the name of {what}, found a list"));
                None
            }
        }
    }

    fn warn_empty_parens(&mut self, span: Span, name: Sym) {
        let name = self.symbols.name(name).to_string();
        self.diags.push(
            Diagnostic::warning(
                codes::EMPTY_PARENTHESES,
                span,
                format!("`({name})` is written with empty parentheses"),
            )
            .with_note(format!("it means the same as `{name}`")),
        );
    }

    fn rule(&mut self, id: NodeId) -> Option<Rule> {
        let span = self.tree.node(id).span();
        if let Node::List { .. } = self.tree.node(id)
            && let Some(&first) = self.tree.children(id).first()
            && self.tree.atom(self.source, first) == Some("<=")
        {
            let kids = self.tree.children(id).to_vec();
            let Some(&head_id) = kids.get(1) else {
                self.error(span, "a rule `(<= head body...)` needs a head");
                return None;
            };
            let head = self.sentence(head_id, "the head of a rule");
            let body: Vec<Option<Literal>> =
                kids[2..].iter().map(|&b| self.literal(b, 0)).collect();
            let body: Option<Vec<Literal>> = body.into_iter().collect();
            return Some(Rule {
                head: head?,
                body: body?,
                kind: RuleKind::Implication,
                span,
            });
        }
        let head = self.sentence(id, "a fact")?;
        Some(Rule {
            head,
            body: Vec::new(),
            kind: RuleKind::Fact,
            span,
        })
    }

    fn sentence(&mut self, id: NodeId, what: &str) -> Option<Atom> {
        match self.tree.node(id).clone() {
            Node::Atom { span } => {
                let text = self.text(span);
                if text.starts_with('?') {
                    self.error(
                        span,
                        format!("expected {what}, found the variable `{text}`"),
                    );
                    return None;
                }
                let name = self.symbols.intern(text);
                Some(Atom {
                    name,
                    args: Vec::new(),
                    span,
                    name_span: span,
                })
            }
            Node::List { span, .. } => {
                let (name, name_span, args) = self.head(id, what)?;
                if args.is_empty() {
                    self.warn_empty_parens(span, name);
                }
                let args: Vec<Option<Term>> = args.iter().map(|&a| self.term(a, 1)).collect();
                Some(Atom {
                    name,
                    args: args.into_iter().collect::<Option<_>>()?,
                    span,
                    name_span,
                })
            }
        }
    }

    fn term(&mut self, id: NodeId, depth: usize) -> Option<Term> {
        let node = self.tree.node(id).clone();
        if depth > MAX_DEPTH {
            self.error(
                node.span(),
                format!("terms nested deeper than {MAX_DEPTH} levels"),
            );
            return None;
        }
        match node {
            Node::Atom { span } => {
                let text = self.text(span);
                if let Some(var) = text.strip_prefix('?') {
                    if var.is_empty() {
                        self.error(span, "a variable needs a name after `?`");
                        return None;
                    }
                    let name = self.symbols.intern(var);
                    Some(Term::Var { name, span })
                } else {
                    let name = self.symbols.intern(text);
                    Some(Term::Const { name, span })
                }
            }
            Node::List { span, .. } => {
                let (name, _, args) = self.head(id, "a function")?;
                if args.is_empty() {
                    self.warn_empty_parens(span, name);
                    return Some(Term::Const { name, span });
                }
                let args: Vec<Option<Term>> =
                    args.iter().map(|&a| self.term(a, depth + 1)).collect();
                Some(Term::Func {
                    name,
                    args: args.into_iter().collect::<Option<_>>()?,
                    span,
                })
            }
        }
    }

    fn literal(&mut self, id: NodeId, depth: usize) -> Option<Literal> {
        let span = self.tree.node(id).span();
        if depth > MAX_DEPTH {
            self.error(
                span,
                format!("literals nested deeper than {MAX_DEPTH} levels"),
            );
            return None;
        }
        let Node::List { .. } = self.tree.node(id) else {
            return self.sentence(id, "a literal").map(Literal::Pos);
        };
        let head_name = self
            .tree
            .children(id)
            .first()
            .and_then(|&f| self.tree.atom(self.source, f))
            .and_then(crate::ast::keyword);
        match head_name {
            Some(kw::NOT) => {
                let (_, _, args) = self.head(id, "a literal")?;
                let [arg] = args[..] else {
                    self.error(
                        span,
                        format!("`not` takes one sentence, found {}", args.len()),
                    );
                    return None;
                };
                let inner = self
                    .tree
                    .children(arg)
                    .first()
                    .and_then(|&f| self.tree.atom(self.source, f));
                match inner.and_then(crate::ast::keyword) {
                    Some(kw::DISTINCT) if matches!(self.tree.node(arg), Node::List { .. }) => {
                        match self.literal(arg, depth + 1)? {
                            Literal::Distinct { lhs, rhs, .. } => Some(Literal::Distinct {
                                lhs,
                                rhs,
                                negated: true,
                                span,
                            }),
                            _ => None,
                        }
                    }
                    Some(k @ (kw::NOT | kw::OR | kw::AND))
                        if matches!(self.tree.node(arg), Node::List { .. }) =>
                    {
                        let k = crate::ast::kw::NAMES[k.0 as usize];
                        self.error(
                            self.tree.node(arg).span(),
                            format!("`not` applies to a sentence, not to `({k} ...)`"),
                        );
                        None
                    }
                    _ => {
                        let atom = self.sentence(arg, "a sentence under `not`")?;
                        Some(Literal::Not { atom, span })
                    }
                }
            }
            Some(kw::DISTINCT) => {
                let (_, _, args) = self.head(id, "a literal")?;
                let [a, b] = args[..] else {
                    self.error(
                        span,
                        format!("`distinct` takes two terms, found {}", args.len()),
                    );
                    return None;
                };
                let lhs = self.term(a, 1);
                let rhs = self.term(b, 1);
                Some(Literal::Distinct {
                    lhs: lhs?,
                    rhs: rhs?,
                    negated: false,
                    span,
                })
            }
            Some(k @ (kw::OR | kw::AND)) => {
                let (_, _, args) = self.head(id, "a literal")?;
                let parts: Vec<Option<Literal>> =
                    args.iter().map(|&a| self.literal(a, depth + 1)).collect();
                let parts: Vec<Literal> = parts.into_iter().collect::<Option<_>>()?;
                Some(if k == kw::OR {
                    Literal::Or {
                        branches: parts,
                        span,
                    }
                } else {
                    Literal::And {
                        conjuncts: parts,
                        span,
                    }
                })
            }
            _ => self.sentence(id, "a literal").map(Literal::Pos),
        }
    }
}

/// The comments at `spans` (each from its marker to the end of its line, in source order) with
/// their texts and the rules they belong to (see [`Comment`]); `rules` are in source order.
/// Linear in the number of rules and comments and in the length of the text between them.
pub(crate) fn attach_comments(source: &str, rules: &[Rule], spans: &[Span]) -> Vec<Comment> {
    let bytes = source.as_bytes();
    let mut comments = Vec::with_capacity(spans.len());
    // The first rule that ends after the current comment starts.
    let mut r = 0;
    for (k, &span) in spans.iter().enumerate() {
        while r < rules.len() && rules[r].span.end <= span.start {
            r += 1;
        }
        let next_rule = rules.get(r).map(|rule| rule.span.start);
        let before = next_rule.is_none_or(|start| span.start < start);
        // A comment after the end of a rule, on that rule's last line, belongs to that rule.
        // (Searched backwards, so that only the comment's own line is read.)
        let end_of_line = before
            && r > 0
            && !gap(bytes, rules[r - 1].span.end, span.start)
                .iter()
                .rev()
                .any(|&b| b == b'\n');
        let rule = if end_of_line { r - 1 } else { r };
        let next = match spans.get(k + 1) {
            Some(c) if next_rule.is_none_or(|start| c.start < start) => Some(c.start),
            _ => next_rule,
        };
        let blank_line_after = before
            && !end_of_line
            && next.is_some_and(|next| has_blank_line(gap(bytes, span.end, next)));
        let raw = source.get(span.range()).unwrap_or_default();
        let text = raw
            .strip_prefix("//")
            .or_else(|| raw.strip_prefix([';', '%']))
            .unwrap_or(raw);
        comments.push(Comment {
            text: text.strip_suffix('\r').unwrap_or(text).to_string(),
            span,
            rule,
            blank_line_after,
        });
    }
    comments
}

/// The bytes from `start` to `end` (none if the range is not in `bytes`).
fn gap(bytes: &[u8], start: u32, end: u32) -> &[u8] {
    bytes.get(start as usize..end as usize).unwrap_or_default()
}

/// Whether `gap`, which starts at the end of a line, holds a line of white space only.
fn has_blank_line(gap: &[u8]) -> bool {
    // The pieces between the first and the last new line are whole lines.
    let mut lines = gap.split(|&b| b == b'\n').skip(1).peekable();
    while let Some(line) = lines.next() {
        if lines.peek().is_some() && line.iter().all(u8::is_ascii_whitespace) {
            return true;
        }
    }
    false
}
