//! Normalisation: the checked syntax tree lowered to flat Datalog rules that the interpreter and
//! the grounder evaluate.
//!
//! - `or` is expanded into one rule per combination of branches, `and` is flattened;
//! - `(not (distinct a b))` becomes the equality test [`NLit::Equal`];
//! - variables are numbered per rule;
//! - rules that no game relation (`role`, `init`, `legal`, `next`, `goal`, `terminal`, `sees`,
//!   `base`, `input`) depends on are dropped: they cannot change the game (and may be unsafe,
//!   see `test_case_3b`).

use crate::diag::codes;
use rustc_hash::FxHashMap as HashMap;

use petgraph::visit::{Bfs, Reversed};

use crate::ast::{Atom, Literal, Program, Span, Sym, Symbols, Term, kw};
use crate::depgraph::DepGraph;
use crate::diag::Diagnostic;

/// A term of a normalised rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NTerm {
    /// A variable, numbered from 0 within its rule.
    Var(u32),
    Const(Sym),
    Func(Sym, Vec<NTerm>),
}

impl NTerm {
    pub fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            NTerm::Var(v) => f(*v),
            NTerm::Const(_) => {}
            NTerm::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    pub fn is_ground(&self) -> bool {
        match self {
            NTerm::Var(_) => false,
            NTerm::Const(_) => true,
            NTerm::Func(_, args) => args.iter().all(NTerm::is_ground),
        }
    }
}

/// A sentence of a normalised rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NAtom {
    pub rel: Sym,
    pub args: Vec<NTerm>,
}

impl NAtom {
    pub fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        self.args.iter().for_each(|a| a.for_each_var(f));
    }
}

/// A body literal of a normalised rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NLit {
    Pos(NAtom),
    Neg(NAtom),
    Distinct(NTerm, NTerm),
    /// `(not (distinct a b))`.
    Equal(NTerm, NTerm),
}

impl NLit {
    pub fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            NLit::Pos(a) | NLit::Neg(a) => a.for_each_var(f),
            NLit::Distinct(a, b) | NLit::Equal(a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }

    /// The distinct variables of the literal, in order of first occurrence.
    pub fn distinct_vars(&self) -> Vec<u32> {
        let mut out = Vec::new();
        self.for_each_var(&mut |v| {
            if !out.contains(&v) {
                out.push(v)
            }
        });
        out
    }
}

/// A flat rule: `head <= body[0] & body[1] & ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NRule {
    pub head: NAtom,
    pub body: Vec<NLit>,
    /// The source names of the variables, by number.
    pub var_names: Vec<Sym>,
    /// The index of the source rule in `Program::rules`.
    pub origin: usize,
    pub span: Span,
}

/// A normalised description.
#[derive(Clone, Debug)]
pub struct NProgram {
    pub symbols: Symbols,
    pub rules: Vec<NRule>,
}

/// Options of [`normalize`].
#[derive(Clone, Copy, Debug)]
pub struct NormalizeOptions {
    /// Keep rules that no game relation depends on.
    pub keep_unreachable: bool,
    /// The most rules one source rule may expand into through its `or`s.
    pub max_expansion: usize,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            keep_unreachable: false,
            max_expansion: 4096,
        }
    }
}

/// The relations of the game's interface: what the state machine is read from.
pub const GAME_RELATIONS: [Sym; 9] = [
    kw::ROLE,
    kw::INIT,
    kw::LEGAL,
    kw::NEXT,
    kw::GOAL,
    kw::TERMINAL,
    kw::SEES,
    kw::BASE,
    kw::INPUT,
];

/// Which relations some game relation depends on (the game relations included).
pub fn reachable_relations(graph: &DepGraph) -> std::collections::HashSet<Sym> {
    let mut seen = std::collections::HashSet::new();
    let reversed = Reversed(&graph.graph);
    for rel in GAME_RELATIONS {
        if let Some(start) = graph.node(rel) {
            let mut bfs = Bfs::new(reversed, start);
            while let Some(n) = bfs.next(reversed) {
                seen.insert(graph.graph[n]);
            }
        }
    }
    seen
}

/// The rules that some relation of `roots` (name and arity) depends on, in their order.
pub fn rules_for<'r>(rules: &'r [NRule], roots: &[(Sym, u32)]) -> Vec<&'r NRule> {
    let key = |a: &NAtom| (a.rel, a.args.len() as u32);
    let mut by_head: HashMap<(Sym, u32), Vec<&NRule>> = HashMap::default();
    for r in rules {
        by_head.entry(key(&r.head)).or_default().push(r);
    }
    let mut needed: rustc_hash::FxHashSet<(Sym, u32)> = roots.iter().copied().collect();
    let mut stack: Vec<(Sym, u32)> = roots.to_vec();
    while let Some(rel) = stack.pop() {
        for r in by_head.get(&rel).into_iter().flatten() {
            for lit in &r.body {
                if let NLit::Pos(a) | NLit::Neg(a) = lit
                    && needed.insert(key(a))
                {
                    stack.push(key(a));
                }
            }
        }
    }
    rules
        .iter()
        .filter(|r| needed.contains(&key(&r.head)))
        .collect()
}

/// Lowers `program` (which should have passed the checker) to flat rules.
pub fn normalize(
    program: &Program,
    options: NormalizeOptions,
) -> Result<NProgram, Vec<Diagnostic>> {
    let graph = crate::depgraph::build(program);
    let reachable = reachable_relations(&graph);
    let mut rules = Vec::new();
    let mut seen: std::collections::HashSet<(NAtom, Vec<NLit>)> = Default::default();
    let mut errors = Vec::new();
    for (origin, rule) in program.rules.iter().enumerate() {
        if !options.keep_unreachable && !reachable.contains(&rule.head.name) {
            continue;
        }
        let bodies = match expand(&rule.body, options.max_expansion) {
            Some(b) => b,
            None => {
                errors.push(Diagnostic::error(
                    codes::OR_EXPANSION,
                    rule.span,
                    format!(
                        "this rule's `or`s expand into more than {} rules",
                        options.max_expansion
                    ),
                ));
                continue;
            }
        };
        for body in bodies {
            let mut vars = Vars::default();
            let head = vars.atom(&rule.head);
            let body = body
                .iter()
                .map(|lit| match lit {
                    Flat::Pos(a) => NLit::Pos(vars.atom(a)),
                    Flat::Neg(a) => NLit::Neg(vars.atom(a)),
                    Flat::Distinct(a, b, false) => NLit::Distinct(vars.term(a), vars.term(b)),
                    Flat::Distinct(a, b, true) => NLit::Equal(vars.term(a), vars.term(b)),
                })
                .collect();
            let mut rule = NRule {
                head,
                body,
                var_names: vars.names,
                origin,
                span: rule.span,
            };
            drop_unbound_filters(&mut rule);
            bind_role_variable(&mut rule);
            drop_repeated_literals(&mut rule.body);
            // A rule written twice (variables numbered alike) adds nothing; a description that
            // repeats itself must not multiply the engines' work.
            if seen.insert((rule.head.clone(), rule.body.clone())) {
                rules.push(rule);
            }
        }
    }
    if errors.is_empty() {
        Ok(NProgram {
            symbols: program.symbols.clone(),
            rules,
        })
    } else {
        Err(errors)
    }
}

/// A negated literal or `distinct` with a variable that no positive literal binds holds for
/// some value of that variable: GDL's universe of ground terms is infinite and every relation
/// finite, so such a literal always holds somewhere and is dropped. This is the existential
/// reading of an unsafe negation that the GDL specification mentions (section 5.2), and how
/// ggp-base's prover evaluates such rules (`test_case_3f`). Safe rules are unaffected.
fn drop_unbound_filters(rule: &mut NRule) {
    let mut bound = vec![false; rule.var_names.len()];
    for lit in &rule.body {
        if let NLit::Pos(a) = lit {
            a.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    // An equality with one side bound binds the other.
    loop {
        let mut changed = false;
        for lit in &rule.body {
            if let NLit::Equal(a, b) = lit {
                let all = |t: &NTerm, bound: &[bool]| {
                    let mut all = true;
                    t.for_each_var(&mut |v| all &= bound[v as usize]);
                    all
                };
                for (x, y) in [(a, b), (b, a)] {
                    if all(x, &bound) && !all(y, &bound) {
                        y.for_each_var(&mut |v| bound[v as usize] = true);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    rule.body.retain(|lit| {
        if !matches!(lit, NLit::Neg(_) | NLit::Distinct(..)) {
            return true;
        }
        let mut all = true;
        lit.for_each_var(&mut |v| all &= bound[v as usize]);
        all
    });
}

/// A `legal`, `goal`, `sees` or `input` rule whose first argument is a variable that no
/// positive literal binds (`(<= (legal ?p noop) open)`) holds for every role: the game asks it
/// of each role. Such a variable is bound to the roles with an added `(role ?p)`.
fn bind_role_variable(rule: &mut NRule) {
    if ![kw::LEGAL, kw::GOAL, kw::SEES, kw::INPUT].contains(&rule.head.rel) {
        return;
    }
    let Some(&NTerm::Var(v)) = rule.head.args.first() else {
        return;
    };
    let mut bound = false;
    for lit in &rule.body {
        if let NLit::Pos(a) = lit {
            a.for_each_var(&mut |x| bound |= x == v);
        }
    }
    if !bound {
        rule.body.insert(
            0,
            NLit::Pos(NAtom {
                rel: kw::ROLE,
                args: vec![NTerm::Var(v)],
            }),
        );
    }
}

enum Flat<'a> {
    Pos(&'a Atom),
    Neg(&'a Atom),
    Distinct(&'a Term, &'a Term, bool),
}

/// The disjunctive normal form of a conjunction: one flat body per combination of `or`
/// branches; `None` past `max` bodies.
fn expand(body: &[Literal], max: usize) -> Option<Vec<Vec<Flat<'_>>>> {
    let mut out: Vec<Vec<Flat<'_>>> = vec![Vec::new()];
    for lit in body {
        let alternatives = alternatives(lit, max)?;
        if alternatives.len() == 1 {
            let only = &alternatives[0];
            for b in &mut out {
                b.extend(only.iter().map(clone_flat));
            }
            continue;
        }
        if out.len().saturating_mul(alternatives.len()) > max {
            return None;
        }
        let mut next = Vec::with_capacity(out.len() * alternatives.len());
        for b in &out {
            for alt in &alternatives {
                let mut nb: Vec<Flat<'_>> = b.iter().map(clone_flat).collect();
                nb.extend(alt.iter().map(clone_flat));
                next.push(nb);
            }
        }
        out = next;
    }
    Some(out)
}

fn alternatives(lit: &Literal, max: usize) -> Option<Vec<Vec<Flat<'_>>>> {
    Some(match lit {
        Literal::Pos(a) => vec![vec![Flat::Pos(a)]],
        Literal::Not { atom, .. } => vec![vec![Flat::Neg(atom)]],
        Literal::Distinct {
            lhs, rhs, negated, ..
        } => vec![vec![Flat::Distinct(lhs, rhs, *negated)]],
        Literal::And { conjuncts, .. } => expand(conjuncts, max)?,
        Literal::Or { branches, .. } => {
            let mut all = Vec::new();
            for b in branches {
                all.extend(alternatives(b, max)?);
                if all.len() > max {
                    return None;
                }
            }
            all
        }
    })
}

fn clone_flat<'a>(f: &Flat<'a>) -> Flat<'a> {
    match f {
        Flat::Pos(a) => Flat::Pos(a),
        Flat::Neg(a) => Flat::Neg(a),
        Flat::Distinct(a, b, n) => Flat::Distinct(a, b, *n),
    }
}

#[derive(Default)]
struct Vars {
    names: Vec<Sym>,
    index: HashMap<Sym, u32>,
}

impl Vars {
    fn term(&mut self, t: &Term) -> NTerm {
        match t {
            Term::Var { name, .. } => {
                let next = self.names.len() as u32;
                let v = *self.index.entry(*name).or_insert(next);
                if v == next {
                    self.names.push(*name);
                }
                NTerm::Var(v)
            }
            Term::Const { name, .. } => NTerm::Const(*name),
            Term::Func { name, args, .. } => {
                NTerm::Func(*name, args.iter().map(|a| self.term(a)).collect())
            }
        }
    }

    fn atom(&mut self, a: &Atom) -> NAtom {
        NAtom {
            rel: a.name,
            args: a.args.iter().map(|t| self.term(t)).collect(),
        }
    }
}

/// Keeps the first of identical body literals: a conjunction holds the same with one copy, and
/// a body of 25,000 copies of one literal must not cost the planner 25,000 squared.
fn drop_repeated_literals(body: &mut Vec<NLit>) {
    let mut seen: std::collections::HashSet<NLit> = Default::default();
    if body.len() > 1 {
        body.retain(|l| seen.insert(l.clone()));
    }
}

/// Normalised rules as KIF text, for `gdlc dump --emit normalised|projected` and the tests of
/// the passes over them (`project`, `inert`).
pub mod text {
    use super::{NAtom, NLit, NProgram, NRule, NTerm};

    /// A term: `?n` for a variable.
    pub fn term(t: &NTerm, p: &NProgram) -> String {
        match t {
            NTerm::Var(v) => format!("?{v}"),
            NTerm::Const(c) => p.symbols.name(*c).to_string(),
            NTerm::Func(f, args) => {
                let args: Vec<String> = args.iter().map(|a| term(a, p)).collect();
                format!("({} {})", p.symbols.name(*f), args.join(" "))
            }
        }
    }

    /// An atom, `(rel arg ..)`; `(rel)` without arguments.
    pub fn atom(a: &NAtom, p: &NProgram) -> String {
        let mut s = format!("({}", p.symbols.name(a.rel));
        for t in &a.args {
            s.push(' ');
            s.push_str(&term(t, p));
        }
        s.push(')');
        s
    }

    /// A rule, `(<= head lit ..)`.
    pub fn rule(r: &NRule, p: &NProgram) -> String {
        let body: Vec<String> = r
            .body
            .iter()
            .map(|l| match l {
                NLit::Pos(a) => atom(a, p),
                NLit::Neg(a) => format!("(not {})", atom(a, p)),
                NLit::Distinct(a, b) => format!("(distinct {} {})", term(a, p), term(b, p)),
                NLit::Equal(a, b) => format!("(= {} {})", term(a, p), term(b, p)),
            })
            .collect();
        format!("(<= {} {})", atom(&r.head, p), body.join(" "))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_rule_written_twice_is_kept_once() {
        let text = "(role r) (p 1) (<= (q ?x) (p ?x)) (<= (q ?y) (p ?y)) (<= (q ?x) (p ?x) (p 1))";
        let (program, _) = crate::parse::parse_kif(text);
        let options = super::NormalizeOptions {
            keep_unreachable: true,
            ..Default::default()
        };
        let n = super::normalize(&program, options).unwrap();
        let q = program.symbols.get("q").unwrap();
        assert_eq!(n.rules.iter().filter(|r| r.head.rel == q).count(), 2);
    }

    use super::*;

    #[test]
    fn unbound_negations_hold_somewhere_and_drop() {
        let src = "(role a) (role b) (on a)
                   (<= (goal ?p 0) (not (on ?p)))
                   (<= (goal ?p 50) (on ?p) (not (on ?q)) (distinct ?q ?r))
                   (<= (goal ?p 100) (on ?p) (not (on ?p)))";
        let (p, _) = crate::parse::parse_kif(src);
        let n = normalize(&p, NormalizeOptions::default()).unwrap();
        let goals: Vec<&NRule> = n.rules.iter().filter(|r| r.head.rel == kw::GOAL).collect();
        // `(not (on ?p))` with ?p unbound is dropped; the role variable is then bound by role.
        assert!(matches!(&goals[0].body[..], [NLit::Pos(a)] if a.rel == kw::ROLE));
        assert_eq!(goals[1].body.len(), 1);
        // A bound negation stays.
        assert!(matches!(goals[2].body[1], NLit::Neg(_)));
    }

    #[test]
    fn or_expands_and_unreachable_rules_drop() {
        let src = "(role r) (<= (legal r ?m) (p ?m) (or (q ?m) (and (s ?m) (not (distinct ?m a)))))
                   (<= (unused ?x ?y) (distinct ?x ?y))";
        let (p, d) = crate::parse::parse_kif(src);
        assert!(d.is_empty());
        let n = normalize(&p, NormalizeOptions::default()).unwrap();
        assert_eq!(n.rules.len(), 3);
        let legal: Vec<_> = n.rules.iter().filter(|r| r.head.rel == kw::LEGAL).collect();
        assert_eq!(legal.len(), 2);
        assert_eq!(legal[1].body.len(), 3);
        assert!(matches!(
            legal[1].body[2],
            NLit::Equal(NTerm::Var(0), NTerm::Const(_))
        ));
    }
}
