//! Every name of a program where it stands: relations, functions, constants, numbers,
//! variables and keyword relations, each with the span of the name alone, its rule and
//! whether it is in the rule's head. Hover, navigation, rename, completion and the semantic
//! tokens read this list.

use gdlc::ast::{Atom, Literal, Program, Span, Sym, Symbols, Term};

/// What a name is where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A keyword relation (`role`, `true`, `legal`, ...).
    Keyword,
    Relation,
    /// The functor of a term with arguments.
    Function,
    Constant,
    /// A constant that is an integer.
    Number,
    Variable,
}

/// One name of the program.
#[derive(Clone, Copy, Debug)]
pub struct Occurrence {
    pub sym: Sym,
    pub kind: Kind,
    /// The name alone (`?x`, `cell`, `'quoted name'`).
    pub span: Span,
    /// The index of its rule in the program.
    pub rule: usize,
    pub in_head: bool,
    /// Its number of arguments (0 for constants and variables).
    pub arity: usize,
}

/// The occurrences of `program`'s names, in source order.
pub fn collect(program: &Program, text: &str) -> Vec<Occurrence> {
    let mut out = Vec::new();
    for (rule, r) in program.rules.iter().enumerate() {
        let mut walk = Walk {
            text,
            rule,
            in_head: true,
            out: &mut out,
        };
        walk.atom(&r.head);
        walk.in_head = false;
        for literal in &r.body {
            walk.literal(literal);
        }
    }
    out.sort_by_key(|o| (o.span.start, o.span.end));
    out
}

struct Walk<'a> {
    text: &'a str,
    rule: usize,
    in_head: bool,
    out: &'a mut Vec<Occurrence>,
}

impl Walk<'_> {
    fn push(&mut self, sym: Sym, kind: Kind, span: Span, arity: usize) {
        self.out.push(Occurrence {
            sym,
            kind,
            span,
            rule: self.rule,
            in_head: self.in_head,
            arity,
        });
    }

    fn atom(&mut self, atom: &Atom) {
        let kind = if Symbols::is_keyword(atom.name) {
            Kind::Keyword
        } else {
            Kind::Relation
        };
        let span = name_span(self.text, atom.name_span);
        self.push(atom.name, kind, span, atom.args.len());
        atom.args.iter().for_each(|t| self.term(t));
    }

    fn term(&mut self, term: &Term) {
        match term {
            Term::Var { name, span } => self.push(*name, Kind::Variable, *span, 0),
            Term::Const { name, span } => {
                let span = name_span(self.text, *span);
                let text = self.text.get(span.start as usize..span.end as usize);
                let kind = if text.is_some_and(|t| t.parse::<i64>().is_ok()) {
                    Kind::Number
                } else {
                    Kind::Constant
                };
                self.push(*name, kind, span, 0);
            }
            Term::Func { name, args, span } => {
                self.push(
                    *name,
                    Kind::Function,
                    name_span(self.text, *span),
                    args.len(),
                );
                args.iter().for_each(|t| self.term(t));
            }
        }
    }

    fn literal(&mut self, literal: &Literal) {
        match literal {
            Literal::Pos(atom) | Literal::Not { atom, .. } => self.atom(atom),
            Literal::Distinct { lhs, rhs, .. } => {
                self.term(lhs);
                self.term(rhs);
            }
            Literal::Or { branches: ls, .. } | Literal::And { conjuncts: ls, .. } => {
                ls.iter().for_each(|l| self.literal(l))
            }
        }
    }
}

/// The name at the start of `span`: past an opening parenthesis and white space (KIF's
/// `(cell 1 2)`), up to white space or punctuation, or a quoted name to its closing quote.
pub fn name_span(text: &str, span: Span) -> Span {
    let bytes = text.as_bytes();
    let end = (span.end as usize).min(bytes.len());
    let mut i = (span.start as usize).min(end);
    while i < end && (bytes[i] == b'(' || bytes[i].is_ascii_whitespace()) {
        i += 1;
    }
    let start = i;
    match bytes.get(i) {
        Some(&q @ (b'\'' | b'"')) => {
            i += 1;
            while i < end && bytes[i] != q {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(end);
        }
        _ => {
            while i < end && !bytes[i].is_ascii_whitespace() && !b"(),".contains(&bytes[i]) {
                i += 1;
            }
        }
    }
    if i == start {
        return span;
    }
    Span {
        start: start as u32,
        end: i as u32,
    }
}

/// The occurrence whose name contains byte `offset` (or ends at it).
pub fn at(occurrences: &[Occurrence], offset: u32) -> Option<&Occurrence> {
    let i = occurrences.partition_point(|o| o.span.end < offset);
    occurrences[i..]
        .iter()
        .take_while(|o| o.span.start <= offset)
        .find(|o| o.span.start <= offset && offset <= o.span.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_in_both_syntaxes() {
        let kif = "(<= (legal ?w (mark ?x 1)) (true (control ?w)))";
        let (program, _) = gdlc::Syntax::Kif.parse(kif);
        let found: Vec<(Kind, &str)> = collect(&program, kif)
            .iter()
            .map(|o| (o.kind, &kif[o.span.start as usize..o.span.end as usize]))
            .collect();
        assert_eq!(
            found,
            [
                (Kind::Keyword, "legal"),
                (Kind::Variable, "?w"),
                (Kind::Function, "mark"),
                (Kind::Variable, "?x"),
                (Kind::Number, "1"),
                (Kind::Keyword, "true"),
                (Kind::Function, "control"),
                (Kind::Variable, "?w"),
            ]
        );
        let infix = "legal(W, mark(X, 1)) :- true(control(W)) & ~p(b)";
        let (program, _) = gdlc::Syntax::Infix.parse(infix);
        let names: Vec<&str> = collect(&program, infix)
            .iter()
            .map(|o| &infix[o.span.start as usize..o.span.end as usize])
            .collect();
        assert_eq!(
            names,
            [
                "legal", "W", "mark", "X", "1", "true", "control", "W", "p", "b"
            ]
        );
    }
}
