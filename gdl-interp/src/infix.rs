//! The infix reader (the "HRF" syntax of the GDL literature), producing the same [`Program`] as
//! the KIF reader.
//!
//! ```text
//! role(x)
//! legal(W,mark(X,Y)) :- true(cell(X,Y,b)) & true(control(W))
//! goal(x,100) :- line(x) & ~line(o).
//! p(X) :- q(X) & (r(X) | ~distinct(X,'B'))
//! ```
//!
//! # Grammar
//!
//! ```text
//! program  = { rule | "." }
//! rule     = sentence [ ":-" ( body | <nothing, then "."> ) ] end
//! end      = "." | <a new line> | <end of input>
//! body     = disj                                  (with "," also meaning "&", see below)
//! disj     = conj { "|" conj }                     (two or more branches make an `or`)
//! conj     = unary { "&" unary }                   (two or more parts make an `and`)
//! unary    = "~" negated | "not" "(" negated ")" | "(" disj ")"
//!          | "or" "(" [ disj { "," disj } ] ")" | "and" "(" [ disj { "," disj } ] ")"
//!          | "distinct" "(" term "," term ")" | sentence
//! negated  = sentence | "distinct" "(" term "," term ")" | "(" disj ")"   (a sentence or distinct)
//! sentence = name [ "(" [ term { "," term } ] ")" ]
//! term     = variable | name [ "(" [ term { "," term } ] ")" ]
//! ```
//!
//! - **Rules end** at a `.`, or at the end of a line when the rule is complete and the next line
//!   does not start with `:-`, `&`, `|` or `,`. So both one rule per line (as in the GDL
//!   literature) and Prolog-style `.` terminators work, and a body may be folded over several
//!   lines with the operator at the end of a line or at the start of the next. Inside
//!   parentheses new lines are plain white space. `head :- .` is a rule with an empty body
//!   (KIF `(<= head)`), distinct from the fact `head`. Two rules on one line need a `.`
//!   between them: `role(x) role(o)` is an error (it is more often a forgotten `&`).
//! - **Precedence**: `~` binds tightest, then `&`, then `|`: `a & b | c` is `(or (and a b) c)`.
//!   At the top level of a body, `a & b` gives two body literals; `(a & b)` in parentheses is
//!   one `(and a b)` literal, and `a | b` is one `(or a b)` literal. `,` is accepted for `&` at
//!   the top level of a body only (outside parentheses), where it cannot be mistaken for an
//!   argument separator; the printer always writes `&`.
//! - **Names**: a plain name is `[a-z0-9][A-Za-z0-9_-]*`, or `-` followed by a digit and name
//!   characters (negative numbers: `-3`). Any other name is written in single quotes, with `\'`
//!   and `\\` as escapes: `'B'`, `'++'`, `'speed+'`, `'<'`. A quoted name may not contain white
//!   space, `(`, `)` or `;`, and a constant may not start with `?` (the KIF text could not say
//!   it). Keywords are recognised in any case, as in KIF: `'ROLE'` is `role`. The words `not`,
//!   `or`, `and` and `distinct` are operators only in a body, directly before `(`.
//! - **Variables**: `[A-Z_][A-Za-z0-9_-]*` is a variable whose KIF name is the same with its
//!   first letter in lower case (`Player` is `?player`, `XIg` is `?xIg`, `_x` is `?_x`). Any
//!   other KIF variable is written as in KIF: `?X` (KIF `?X`), `?1`, or quoted: `?'x++'`. The
//!   KIF spelling is accepted for any variable (`?x` is the same variable as `X`), and the
//!   printer uses the capitalised form whenever it reads back as the same name, so KIF ->
//!   infix -> KIF gives back exactly the same names. `_` is an ordinary variable, not an
//!   anonymous one.
//! - **Comments** run from `%` or `//` to the end of the line. `;` is not a comment here (it is
//!   reported, with a hint): it is Prolog's `or`. Comments are kept in [`Program::comments`],
//!   each with the rule it belongs to (see [`crate::ast::Comment`]), for `gdlc fmt`.
//!
//! Like the KIF reader, this one judges only the shape of the text and never stops at the first
//! error: a rule with an error is left out, its error reported, and reading goes on at the next
//! rule (after the next `.`, or at the next line that starts a name and does not continue the
//! previous one, or after a blank line). It never panics and its recursion is bounded: terms
//! and parenthesised literals nested deeper than `MAX_DEPTH` are rejected.

use crate::ast::{Atom, Literal, Program, Rule, RuleKind, Span, Symbols, Term, kw};
use crate::diag::Diagnostic;
use crate::diag::codes;
use crate::parse::MAX_DEPTH;

mod lex;
#[cfg(test)]
mod tests;

use lex::{Tok, Token, lex};

/// Reads a description in infix syntax. Returns the rules that parsed and every syntax error
/// and warning, sorted by position.
pub fn parse_infix(source: &str) -> (Program, Vec<Diagnostic>) {
    let mut p = Parser::new(source, Symbols::default());
    let mut rules = Vec::new();
    while p.tok() != Tok::Eof {
        if p.tok() == Tok::Dot {
            p.bump();
            continue;
        }
        let start = p.pos;
        match p.rule() {
            Ok(rule) => rules.push(rule),
            Err(Reported) => p.recover(start),
        }
    }
    let mut diags = p.diags;
    diags.sort_by_key(|d| d.span);
    let comments = crate::parse::attach_comments(source, &rules, &p.comments);
    (
        Program {
            symbols: p.symbols,
            rules,
            comments,
        },
        diags,
    )
}

/// Reads one term in infix syntax (`mark(1,2)`, `X`), interning into `symbols`.
pub fn parse_infix_term(source: &str, symbols: &mut Symbols) -> Result<Term, Vec<Diagnostic>> {
    let mut p = Parser::new(source, std::mem::take(symbols));
    let term = p.term(1).and_then(|t| match p.tok() {
        Tok::Eof => Ok(t),
        _ => Err(p.expected("the end of the term")),
    });
    *symbols = p.symbols;
    match term {
        Ok(t) if p.diags.iter().all(|d| !d.is_error()) => Ok(t),
        _ => Err(p.diags),
    }
}

/// An error was reported; the rule is abandoned.
struct Reported;

type PResult<T> = Result<T, Reported>;

/// Where a disjunction stands: `,` means `&` only at the top level of a body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Body,
    Parens,
}

/// Which operator a negated literal was written with, for messages.
#[derive(Clone, Copy)]
enum NotForm {
    Tilde,
    Call,
}

impl NotForm {
    fn text(self) -> &'static str {
        match self {
            NotForm::Tilde => "`~`",
            NotForm::Call => "`not`",
        }
    }
}

struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    pos: usize,
    symbols: Symbols,
    diags: Vec<Diagnostic>,
    /// The spans of the comments, in source order.
    comments: Vec<Span>,
}

fn span_of(lits: &[Literal]) -> Span {
    match (lits.first(), lits.last()) {
        (Some(a), Some(b)) => a.span().to(b.span()),
        _ => Span::default(),
    }
}

/// One conjunction: a single literal stands for itself, several make an `and`.
fn conjunction(mut parts: Vec<Literal>) -> Literal {
    match parts.len() {
        1 => parts.pop().unwrap_or_else(|| Literal::And {
            conjuncts: Vec::new(),
            span: Span::default(),
        }),
        _ => Literal::And {
            span: span_of(&parts),
            conjuncts: parts,
        },
    }
}

/// A disjunction: a single branch stands for itself, several make an `or`.
fn disjunction(branches: Vec<Vec<Literal>>) -> Literal {
    let mut branches: Vec<Literal> = branches.into_iter().map(conjunction).collect();
    match branches.len() {
        1 => branches.pop().unwrap_or_else(|| Literal::Or {
            branches: Vec::new(),
            span: Span::default(),
        }),
        _ => Literal::Or {
            span: span_of(&branches),
            branches,
        },
    }
}

fn with_span(lit: Literal, new: Span) -> Literal {
    match lit {
        Literal::Or { branches, .. } => Literal::Or {
            branches,
            span: new,
        },
        Literal::And { conjuncts, .. } => Literal::And {
            conjuncts,
            span: new,
        },
        Literal::Not { atom, .. } => Literal::Not { atom, span: new },
        Literal::Distinct {
            lhs, rhs, negated, ..
        } => Literal::Distinct {
            lhs,
            rhs,
            negated,
            span: new,
        },
        pos @ Literal::Pos(_) => pos,
    }
}

impl<'s> Parser<'s> {
    fn new(src: &'s str, symbols: Symbols) -> Self {
        let (toks, diags, comments) = lex(src);
        Parser {
            src,
            toks,
            pos: 0,
            symbols,
            diags,
            comments,
        }
    }

    fn at(&self, k: usize) -> &Token {
        let last = self.toks.len() - 1;
        &self.toks[(self.pos + k).min(last)]
    }

    fn tok(&self) -> Tok {
        self.at(0).tok
    }

    fn span(&self) -> Span {
        self.at(0).span
    }

    /// Moves past the current token (never past the end) and returns its span.
    fn bump(&mut self) -> Span {
        let span = self.span();
        if self.tok() != Tok::Eof {
            self.pos += 1;
        }
        span
    }

    fn error(&mut self, span: Span, message: impl Into<String>) -> Reported {
        self.diags
            .push(Diagnostic::error(codes::SYNTAX, span, message));
        Reported
    }

    /// Reports that `what` was expected at the current token (unless the lexer already
    /// reported that token).
    fn expected(&mut self, what: &str) -> Reported {
        let t = self.at(0);
        let found = match t.tok {
            Tok::Bad => return Reported,
            Tok::Eof => "the end of the input".to_string(),
            _ => {
                let text = &self.src[t.span.range()];
                match text.char_indices().nth(24) {
                    Some((k, _)) => format!("`{}...`", &text[..k]),
                    None => format!("`{text}`"),
                }
            }
        };
        let span = t.span;
        self.error(span, format!("expected {what}, found {found}"))
    }

    fn intern_current(&mut self) -> crate::ast::Sym {
        let Parser {
            toks, pos, symbols, ..
        } = self;
        symbols.intern(&toks[(*pos).min(toks.len() - 1)].text)
    }

    /// Skips to where the next rule likely starts.
    fn recover(&mut self, rule_start: usize) {
        if self.pos == rule_start {
            self.bump();
        }
        loop {
            let t = self.at(0);
            match t.tok {
                Tok::Eof => return,
                Tok::Dot => {
                    self.bump();
                    return;
                }
                Tok::Name | Tok::Var => {
                    let prev = self.toks[self.pos - 1].tok;
                    let continues = matches!(
                        prev,
                        Tok::Neck | Tok::Amp | Tok::Bar | Tok::Comma | Tok::Tilde | Tok::LParen
                    );
                    if t.after_blank || (t.line_start && !continues) {
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// The end of a rule: a `.` (consumed), the end of the input, or a new line that does not
    /// start with an operator. Returns where the rule ends.
    fn end_of_rule(&mut self, what: &str) -> PResult<u32> {
        let prev_end = self.toks[self.pos.saturating_sub(1)].span.end;
        let t = self.at(0);
        match t.tok {
            Tok::Dot => Ok(self.bump().end),
            Tok::Eof => Ok(prev_end),
            Tok::Amp | Tok::Bar | Tok::Comma | Tok::Neck => Err(self.expected(what)),
            _ if t.line_start => Ok(prev_end),
            _ => Err(self.expected(what)),
        }
    }

    fn rule(&mut self) -> PResult<Rule> {
        if self.tok() == Tok::LParen {
            let span = self.span();
            let message = "expected the head of a rule, found `(`: is this prefix (KIF) syntax?";
            return Err(self.error(span, message));
        }
        let head = self.sentence("the head of a rule")?;
        let start = head.span.start as usize;
        if self.tok() != Tok::Neck {
            let end = self.end_of_rule("`:-`, `.` or a new line after the head")?;
            if head.name == kw::IMPLIES && !head.args.is_empty() {
                let message = "a fact cannot be named `<=`: KIF would read it as a rule";
                return Err(self.error(head.name_span, message));
            }
            let span = Span::new(start, end as usize);
            return Ok(Rule {
                head,
                body: Vec::new(),
                kind: RuleKind::Fact,
                span,
            });
        }
        self.bump();
        let body = if self.tok() == Tok::Dot {
            Vec::new()
        } else {
            let mut branches = self.disjunction(0, Level::Body)?;
            match branches.len() {
                1 => branches.pop().unwrap_or_default(),
                _ => vec![disjunction(branches)],
            }
        };
        let end = self.end_of_rule("`&`, `|`, `.` or a new line")?;
        self.check_nesting(&body)?;
        Ok(Rule {
            head,
            body,
            kind: RuleKind::Implication,
            span: Span::new(start, end as usize),
        })
    }

    /// Rejects `and`/`or` nested deeper than [`MAX_DEPTH`] (parentheses are limited while
    /// reading, but `a & b | c` nests without them).
    fn check_nesting(&mut self, body: &[Literal]) -> PResult<()> {
        let mut stack: Vec<(&Literal, usize)> = body.iter().map(|l| (l, 0)).collect();
        while let Some((lit, depth)) = stack.pop() {
            if depth > MAX_DEPTH {
                let message = format!("literals nested deeper than {MAX_DEPTH} levels");
                return Err(self.error(lit.span(), message));
            }
            if let Literal::Or { branches: ls, .. } | Literal::And { conjuncts: ls, .. } = lit {
                stack.extend(ls.iter().map(|l| (l, depth + 1)));
            }
        }
        Ok(())
    }

    fn check_depth(&mut self, depth: usize, what: &str) -> PResult<()> {
        if depth > MAX_DEPTH {
            let span = self.span();
            return Err(self.error(
                span,
                format!("{what} nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    /// `conj { "|" conj }`: the branches, each a list of conjuncts.
    fn disjunction(&mut self, depth: usize, level: Level) -> PResult<Vec<Vec<Literal>>> {
        let mut branches = Vec::new();
        let mut current = Vec::new();
        loop {
            current.push(self.unary(depth)?);
            match self.tok() {
                Tok::Amp => {}
                Tok::Comma if level == Level::Body => {}
                Tok::Bar => branches.push(std::mem::take(&mut current)),
                _ => break,
            }
            self.bump();
        }
        branches.push(current);
        Ok(branches)
    }

    /// Expects the `)` of a group or call.
    fn close(&mut self, what: &str) -> PResult<Span> {
        match self.tok() {
            Tok::RParen => Ok(self.bump()),
            _ => Err(self.expected(what)),
        }
    }

    /// `"(" disj ")"`; the `(` is the current token.
    fn group(&mut self, depth: usize) -> PResult<Literal> {
        self.check_depth(depth, "parentheses")?;
        let open = self.bump();
        let branches = self.disjunction(depth, Level::Parens)?;
        if self.tok() == Tok::Comma {
            let span = self.span();
            return Err(self.error(span, "inside parentheses, `and` is written `&`, not `,`"));
        }
        let close = self.close("`&`, `|` or `)`")?;
        let plain = branches.len() == 1 && branches[0].len() == 1;
        let lit = disjunction(branches);
        Ok(if plain {
            lit
        } else {
            with_span(lit, open.to(close))
        })
    }

    fn unary(&mut self, depth: usize) -> PResult<Literal> {
        let start = self.span();
        match self.tok() {
            Tok::Tilde => {
                self.bump();
                self.negated(depth, start, NotForm::Tilde)
            }
            Tok::LParen => self.group(depth + 1),
            Tok::Name if self.at(1).tok == Tok::LParen => match self.intern_current() {
                k @ (kw::OR | kw::AND) => {
                    self.bump();
                    self.check_depth(depth + 1, "parentheses")?;
                    self.bump();
                    let mut parts = Vec::new();
                    if self.tok() != Tok::RParen {
                        loop {
                            parts.push(disjunction(self.disjunction(depth + 1, Level::Parens)?));
                            if self.tok() != Tok::Comma {
                                break;
                            }
                            self.bump();
                        }
                    }
                    let span = start.to(self.close("`,`, `&`, `|` or `)`")?);
                    Ok(if k == kw::OR {
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
                kw::NOT => {
                    self.bump();
                    self.check_depth(depth + 1, "parentheses")?;
                    self.bump();
                    let lit = self.negated(depth + 1, start, NotForm::Call)?;
                    let close = self.close("`)`")?;
                    Ok(with_span(lit, start.to(close)))
                }
                kw::DISTINCT => {
                    let (lhs, rhs, span) = self.distinct(start)?;
                    Ok(Literal::Distinct {
                        lhs,
                        rhs,
                        negated: false,
                        span,
                    })
                }
                _ => self.sentence("a literal").map(Literal::Pos),
            },
            Tok::Name => self.sentence("a literal").map(Literal::Pos),
            Tok::Var => Err(self.error(
                start,
                "a variable cannot stand for a literal: GDL is first-order",
            )),
            _ => Err(self.expected("a literal")),
        }
    }

    /// What follows `~` or `not(`: a sentence or a `distinct`.
    fn negated(&mut self, depth: usize, start: Span, form: NotForm) -> PResult<Literal> {
        let op = form.text();
        let here = self.span();
        match self.tok() {
            Tok::Name if self.at(1).tok == Tok::LParen => match self.intern_current() {
                kw::DISTINCT => {
                    let (lhs, rhs, span) = self.distinct(start)?;
                    Ok(Literal::Distinct {
                        lhs,
                        rhs,
                        negated: true,
                        span,
                    })
                }
                k @ (kw::NOT | kw::OR | kw::AND) => {
                    let k = kw::NAMES[k.0 as usize];
                    Err(self.error(
                        here,
                        format!("{op} applies to a sentence, not to `{k}(...)`"),
                    ))
                }
                _ => self.negated_atom(start),
            },
            Tok::Name => self.negated_atom(start),
            Tok::LParen => match self.group(depth + 1)? {
                Literal::Pos(atom) => Ok(Literal::Not {
                    span: start.to(atom.span),
                    atom,
                }),
                Literal::Distinct {
                    lhs,
                    rhs,
                    negated: false,
                    span,
                } => Ok(Literal::Distinct {
                    lhs,
                    rhs,
                    negated: true,
                    span: start.to(span),
                }),
                other => {
                    let message = format!("{op} applies to a sentence or `distinct` only");
                    Err(self.error(other.span(), message))
                }
            },
            Tok::Tilde => Err(self.error(here, format!("{op} cannot apply to another negation"))),
            Tok::Var => Err(self.error(
                here,
                "a variable cannot stand for a sentence: GDL is first-order",
            )),
            _ => Err(self.expected(&format!("a sentence after {op}"))),
        }
    }

    fn negated_atom(&mut self, start: Span) -> PResult<Literal> {
        let atom = self.sentence("a sentence")?;
        Ok(Literal::Not {
            span: start.to(atom.span),
            atom,
        })
    }

    /// The terms of `distinct(a, b)` (the name is the current token) and the span from `start`.
    fn distinct(&mut self, start: Span) -> PResult<(Term, Term, Span)> {
        let name = self.bump();
        let (args, close) = self.args(1)?;
        match <[Term; 2]>::try_from(args) {
            Ok([lhs, rhs]) => Ok((lhs, rhs, start.to(close))),
            Err(args) => {
                let message = format!("`distinct` takes two terms, found {}", args.len());
                Err(self.error(name.to(close), message))
            }
        }
    }

    fn warn_empty_parens(&mut self, span: Span, name: &str) {
        self.diags.push(
            Diagnostic::warning(
                codes::EMPTY_PARENTHESES,
                span,
                format!("`{name}()` is written with empty parentheses"),
            )
            .with_note(format!("it means the same as `{name}`")),
        );
    }

    fn sentence(&mut self, what: &str) -> PResult<Atom> {
        match self.tok() {
            Tok::Name => {
                let name = self.intern_current();
                let name_span = self.bump();
                if self.tok() != Tok::LParen {
                    return Ok(Atom {
                        name,
                        args: Vec::new(),
                        span: name_span,
                        name_span,
                    });
                }
                let (args, close) = self.args(1)?;
                let span = name_span.to(close);
                if args.is_empty() {
                    let text = self.src[name_span.range()].to_string();
                    self.warn_empty_parens(span, &text);
                }
                Ok(Atom {
                    name,
                    args,
                    span,
                    name_span,
                })
            }
            Tok::Var => {
                let span = self.span();
                Err(self.error(
                    span,
                    format!("a variable cannot name {what}: GDL is first-order"),
                ))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// `"(" [ term { "," term } ] ")"` at `depth`; the `(` is the current token.
    fn args(&mut self, depth: usize) -> PResult<(Vec<Term>, Span)> {
        self.bump();
        let mut args = Vec::new();
        if self.tok() != Tok::RParen {
            loop {
                args.push(self.term(depth)?);
                match self.tok() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::RParen => break,
                    _ => return Err(self.expected("`,` or `)`")),
                }
            }
        }
        Ok((args, self.bump()))
    }

    fn term(&mut self, depth: usize) -> PResult<Term> {
        self.check_depth(depth, "terms")?;
        match self.tok() {
            Tok::Name => {
                let name = self.intern_current();
                let name_span = self.bump();
                if self.tok() != Tok::LParen {
                    return Ok(Term::Const {
                        name,
                        span: name_span,
                    });
                }
                let (args, close) = self.args(depth + 1)?;
                let span = name_span.to(close);
                if args.is_empty() {
                    let text = self.src[name_span.range()].to_string();
                    self.warn_empty_parens(span, &text);
                    return Ok(Term::Const { name, span });
                }
                Ok(Term::Func { name, args, span })
            }
            Tok::Var => {
                let name = self.intern_current();
                let span = self.bump();
                if self.tok() == Tok::LParen {
                    let message = "a variable cannot name a function: GDL is first-order";
                    return Err(self.error(span, message));
                }
                Ok(Term::Var { name, span })
            }
            _ => Err(self.expected("a term")),
        }
    }
}
