//! The syntax tree of a GDL description, shared by the prefix (KIF) and infix readers.
//!
//! Names are interned in [`Symbols`]; every node carries the byte range it was read from.
//! Keywords are matched without regard to case and interned in lower case; every other name
//! keeps its spelling (`nextFile` and `nextfile` are different constants).

use std::collections::HashMap;

pub use gdl_runtime::sexpr::Span;

/// An interned name: a relation, function, object constant or variable name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// The GDL keywords, interned first so that their [`Sym`]s are constants.
pub mod kw {
    use super::Sym;
    pub const ROLE: Sym = Sym(0);
    pub const INIT: Sym = Sym(1);
    pub const TRUE: Sym = Sym(2);
    pub const NEXT: Sym = Sym(3);
    pub const LEGAL: Sym = Sym(4);
    pub const DOES: Sym = Sym(5);
    pub const GOAL: Sym = Sym(6);
    pub const TERMINAL: Sym = Sym(7);
    pub const DISTINCT: Sym = Sym(8);
    pub const NOT: Sym = Sym(9);
    pub const OR: Sym = Sym(10);
    pub const AND: Sym = Sym(11);
    pub const BASE: Sym = Sym(12);
    pub const INPUT: Sym = Sym(13);
    pub const SEES: Sym = Sym(14);
    pub const IMPLIES: Sym = Sym(15);
    /// Spellings, in the order of the constants above.
    pub const NAMES: [&str; 16] = [
        "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not",
        "or", "and", "base", "input", "sees", "<=",
    ];
}

/// The interner of names.
#[derive(Clone, Debug)]
pub struct Symbols {
    names: Vec<String>,
    index: HashMap<String, Sym>,
}

impl Default for Symbols {
    fn default() -> Self {
        let mut s = Symbols {
            names: Vec::new(),
            index: HashMap::new(),
        };
        for name in kw::NAMES {
            s.insert(name);
        }
        s
    }
}

impl Symbols {
    fn insert(&mut self, name: &str) -> Sym {
        let sym = Sym(self.names.len() as u32);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), sym);
        sym
    }

    /// Interns `name`; a keyword in any case becomes the keyword.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&s) = self.index.get(name) {
            return s;
        }
        if let Some(k) = keyword(name) {
            return k;
        }
        self.insert(name)
    }

    /// The symbol of `name` if it was interned (keywords in any case).
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.index.get(name).copied().or_else(|| keyword(name))
    }

    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Whether `sym` is one of the GDL keywords.
    pub fn is_keyword(sym: Sym) -> bool {
        (sym.0 as usize) < kw::NAMES.len()
    }
}

/// The keyword `name` spells, regardless of case.
pub fn keyword(name: &str) -> Option<Sym> {
    kw::NAMES
        .iter()
        .position(|k| k.eq_ignore_ascii_case(name))
        .map(|i| Sym(i as u32))
}

/// A term: a variable, an object constant, or a function applied to terms.
#[derive(Clone, Debug)]
pub enum Term {
    /// A variable; `name` is spelled without the leading `?`.
    Var {
        name: Sym,
        span: Span,
    },
    Const {
        name: Sym,
        span: Span,
    },
    /// A function term with at least one argument (`(foo)` is read as the constant `foo`).
    Func {
        name: Sym,
        args: Vec<Term>,
        span: Span,
    },
}

impl Term {
    pub fn span(&self) -> Span {
        match self {
            Term::Var { span, .. } | Term::Const { span, .. } | Term::Func { span, .. } => *span,
        }
    }

    /// Calls `f` on every variable of the term, with its span.
    pub fn for_each_var(&self, f: &mut impl FnMut(Sym, Span)) {
        match self {
            Term::Var { name, span } => f(*name, *span),
            Term::Const { .. } => {}
            Term::Func { args, .. } => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    pub fn is_ground(&self) -> bool {
        match self {
            Term::Var { .. } => false,
            Term::Const { .. } => true,
            Term::Func { args, .. } => args.iter().all(Term::is_ground),
        }
    }

    /// Structural equality, ignoring spans.
    pub fn same(&self, other: &Term) -> bool {
        match (self, other) {
            (Term::Var { name: a, .. }, Term::Var { name: b, .. }) => a == b,
            (Term::Const { name: a, .. }, Term::Const { name: b, .. }) => a == b,
            (
                Term::Func {
                    name: a, args: x, ..
                },
                Term::Func {
                    name: b, args: y, ..
                },
            ) => a == b && x.len() == y.len() && x.iter().zip(y).all(|(s, t)| s.same(t)),
            _ => false,
        }
    }
}

/// A sentence: a relation constant applied to terms (`terminal`, `(cell 1 1 b)`).
#[derive(Clone, Debug)]
pub struct Atom {
    pub name: Sym,
    pub args: Vec<Term>,
    pub span: Span,
    /// The span of the relation name alone.
    pub name_span: Span,
}

impl Atom {
    pub fn arity(&self) -> usize {
        self.args.len()
    }

    pub fn for_each_var(&self, f: &mut impl FnMut(Sym, Span)) {
        self.args.iter().for_each(|a| a.for_each_var(f));
    }

    pub fn same(&self, other: &Atom) -> bool {
        self.name == other.name
            && self.args.len() == other.args.len()
            && self.args.iter().zip(&other.args).all(|(a, b)| a.same(b))
    }
}

/// A literal of a rule body.
#[derive(Clone, Debug)]
pub enum Literal {
    /// A positive sentence.
    Pos(Atom),
    /// `(not sentence)`.
    Not { atom: Atom, span: Span },
    /// `(distinct a b)`; with `negated`, `(not (distinct a b))`, i.e. `a` and `b` are equal.
    Distinct {
        lhs: Term,
        rhs: Term,
        negated: bool,
        span: Span,
    },
    /// `(or l1 l2 ...)`: holds when one of the branches holds.
    Or { branches: Vec<Literal>, span: Span },
    /// `(and l1 l2 ...)`: holds when every literal holds.
    And { conjuncts: Vec<Literal>, span: Span },
}

impl Literal {
    pub fn span(&self) -> Span {
        match self {
            Literal::Pos(a) => a.span,
            Literal::Not { span, .. }
            | Literal::Distinct { span, .. }
            | Literal::Or { span, .. }
            | Literal::And { span, .. } => *span,
        }
    }

    /// Calls `f` on every variable of the literal.
    pub fn for_each_var(&self, f: &mut impl FnMut(Sym, Span)) {
        match self {
            Literal::Pos(a) | Literal::Not { atom: a, .. } => a.for_each_var(f),
            Literal::Distinct { lhs, rhs, .. } => {
                lhs.for_each_var(f);
                rhs.for_each_var(f);
            }
            Literal::Or { branches: ls, .. } | Literal::And { conjuncts: ls, .. } => {
                ls.iter().for_each(|l| l.for_each_var(f))
            }
        }
    }

    /// Calls `f` on every sentence of the literal, with whether it stands under a `not`.
    pub fn for_each_atom<'a>(&'a self, f: &mut impl FnMut(&'a Atom, bool)) {
        match self {
            Literal::Pos(a) => f(a, false),
            Literal::Not { atom, .. } => f(atom, true),
            Literal::Distinct { .. } => {}
            Literal::Or { branches: ls, .. } | Literal::And { conjuncts: ls, .. } => {
                ls.iter().for_each(|l| l.for_each_atom(f))
            }
        }
    }
}

/// How a rule was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// A bare sentence: `(role x)`, `terminal`.
    Fact,
    /// `(<= head body...)`, possibly with an empty body.
    Implication,
}

/// A fact or a rule.
#[derive(Clone, Debug)]
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Literal>,
    pub kind: RuleKind,
    pub span: Span,
}

/// A comment of the source text (`; ...` in KIF, `% ...` or `// ...` in infix), kept so that
/// `gdlc fmt` can print it back. Comments mean nothing to the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The text after the comment marker (one `;`, one `%` or `//`) to the end of the line,
    /// without the line end: `;; Roles.` has the text `"; Roles."`.
    pub text: String,
    /// Where the whole comment, marker included, was read.
    pub span: Span,
    /// The index in [`Program::rules`] of the rule the comment belongs to: the rule it stands
    /// before or inside, or the rule that ends on the line where the comment starts;
    /// `rules.len()` for comments after the last rule.
    pub rule: usize,
    /// A blank line separates the comment from what follows it (the next comment or the rule),
    /// for a comment that stands before its rule.
    pub blank_line_after: bool,
}

/// A whole game description.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub symbols: Symbols,
    pub rules: Vec<Rule>,
    /// The comments, in source order (so ordered by [`Comment::rule`] too).
    pub comments: Vec<Comment>,
}

/// Whether `c` may appear in a plain name or variable after its first character.
pub fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// Whether `name` can be written without quotes as a constant, function or relation name.
pub fn is_plain_name(name: &str) -> bool {
    let b = name.as_bytes();
    let rest_from = match b {
        [c, ..] if c.is_ascii_lowercase() || c.is_ascii_digit() => 1,
        [b'-', d, ..] if d.is_ascii_digit() => 2,
        _ => return false,
    };
    b[rest_from..].iter().all(|&c| is_name_char(c))
}
