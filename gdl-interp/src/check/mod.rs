//! The checker: everything a GDL description must satisfy beyond its syntax.
//!
//! [`check`] runs every check and reports every finding, never stopping at the first one. Each
//! diagnostic points at the offending literal, term or variable and carries a stable `code`:
//!
//! | code | severity | what |
//! |---|---|---|
//! | `missing-relation` | error | no `role`, `terminal`, `goal` or `legal` at all |
//! | `keyword-arity` | error | a keyword relation with the wrong number of arguments |
//! | `keyword-as-function` | error | a keyword used as a function name, `(cell (true x))` |
//! | `reserved-name` | error | `<=`, `distinct`, `or`, `not`, `and` used as a constant or relation |
//! | `role-rule` | error | `role` defined by a rule rather than a ground fact |
//! | `keyword-in-head` | error | `true` or `does` in a rule head or as a fact |
//! | `keyword-in-body` | error | `init`, `next`, `base` or `input` in a rule body |
//! | `illegal-dependency` | error | `init`/`base`/`input`/`role` depending on `true` or `does`, `terminal`/`legal`/`goal` on `does` |
//! | `goal-value` | warning | a ground goal value that is not an integer in 0..=100 |
//! | `variable-in-fact` | error | a variable in a fact |
//! | `unsafe-variable` | error (warning in rules the game never uses) | a variable not bound by a positive body literal |
//! | `role-variable` | warning | a `legal`/`goal`/`sees` rule whose role variable only the query binds |
//! | `empty-or`, `nested-or` | warning | `(or)`, an `or` inside an `or` |
//! | `empty-body` | warning | `(<= head)` |
//! | `negative-cycle` | error | negation inside a dependency cycle (not stratified) |
//! | `relation-negative-cycle` | warning | a negative cycle between relations that no rule instance follows |
//! | `recursion-restriction` | error | Definition 15 of the GDL specification |
//! | `relation-arity`, `function-arity` | error | one name used with different arities |
//! | `sentence-and-function` | warning | one name used both as a relation and as a term |
//! | `undefined-relation` | warning | a relation used in a body but never defined |
//! | `true-never-holds` | warning | `(true x)` where no `init`/`next` produces `x`'s functor |
//! | `move-never-legal` | warning | `(does r x)` where no `legal`/`input` produces `x`'s functor |
//! | `unused-relation` | warning | a relation defined but never used |
//! | `unusual-name` | warning | a name with characters outside `[A-Za-z0-9_-]` |
//! | `case-variant` | warning | one name spelled in different cases |

mod keywords;
mod names;
mod produced;
mod recursion;
mod safety;
mod stratification;

use std::collections::{HashMap, HashSet, VecDeque};

use petgraph::graph::NodeIndex;

use crate::ast::{Literal, Program, Sym, Symbols, Term};
use crate::depgraph::{self, DepGraph};
use crate::diag::Diagnostic;
use crate::stratify::Strata;

/// What [`check`] found.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Every error and warning, sorted by span.
    pub diagnostics: Vec<Diagnostic>,
    /// The evaluation order, when the description is stratified.
    pub strata: Option<Strata>,
}

impl CheckReport {
    /// Whether some diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The number of errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The number of warnings.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }
}

/// Options of the checker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Accept descriptions that use one name with several arities: `relation-arity` and
    /// `function-arity` are warnings, not errors. Every engine tells relations and functions
    /// apart by name *and* arity, as the reference reasoner does. Off by default: such a
    /// description is invalid GDL.
    pub lenient_arities: bool,
    /// [`crate::frontend::load`] accepts a description the checker rejects, its errors kept
    /// as warnings (syntax errors still stop it): for tests and tools that run invalid
    /// descriptions on purpose, such as ggp-base's `test_invalid_*` files. The interpreter
    /// may still refuse what it cannot evaluate. Off by default.
    pub accept_invalid: bool,
}

/// Checks `program` against every restriction of GDL with the default options; see the module
/// documentation for the list of checks and their codes.
pub fn check(program: &Program) -> CheckReport {
    check_with(program, &CheckOptions::default())
}

/// [`check`] with options.
pub fn check_with(program: &Program, options: &CheckOptions) -> CheckReport {
    let graph = depgraph::build(program);
    let reachable = crate::normalize::reachable_relations(&graph);
    let mut cx = Context {
        program,
        options: *options,
        graph,
        reachable,
        diagnostics: Vec::new(),
        comparisons_left: std::cell::Cell::new(SUGGESTION_COMPARISONS),
    };
    keywords::check(&mut cx);
    safety::check(&mut cx);
    names::check(&mut cx);
    produced::check(&mut cx);
    recursion::check(&mut cx);
    let strata = stratification::check(&mut cx);
    let mut diagnostics = cx.diagnostics;
    diagnostics.sort_by_key(|d| d.span);
    CheckReport {
        diagnostics,
        strata,
    }
}

/// What every check reads, and where it reports.
struct Context<'p> {
    program: &'p Program,
    options: CheckOptions,
    graph: DepGraph,
    /// The relations some game relation depends on.
    reachable: HashSet<Sym>,
    diagnostics: Vec<Diagnostic>,
    /// The names the "did you mean" suggestions may still compare (a budget, so that a
    /// description with thousands of undefined names is checked in bounded time).
    comparisons_left: std::cell::Cell<u64>,
}

/// The names all "did you mean" suggestions of one check may compare, together.
const SUGGESTION_COMPARISONS: u64 = 1_000_000;

impl Context<'_> {
    fn symbols(&self) -> &Symbols {
        &self.program.symbols
    }

    fn name(&self, sym: Sym) -> &str {
        self.program.symbols.name(sym)
    }

    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Reports a name used with several arities: an error, a warning under
    /// [`CheckOptions::lenient_arities`].
    fn report_arity(&mut self, mut diagnostic: Diagnostic) {
        if self.options.lenient_arities {
            diagnostic.severity = crate::diag::Severity::Warning;
        }
        self.diagnostics.push(diagnostic);
    }
}

/// The relations from `from` to `to` along the dependency graph's edges (`to` depends on
/// `from` through them), both included; `None` when `to` does not depend on `from`.
fn dependency_path(cx: &Context<'_>, from: Sym, to: Sym) -> Option<Vec<Sym>> {
    if from == to {
        return Some(vec![from]);
    }
    let graph = &cx.graph;
    let (start, goal) = (graph.node(from)?, graph.node(to)?);
    // Only the part of the graph the search reaches is touched (a finding per component of a
    // large description would otherwise cost the whole graph each).
    let mut parent: HashMap<NodeIndex, NodeIndex> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        if n == goal {
            let mut path = vec![graph.graph[n]];
            let mut cur = n;
            while let Some(&p) = parent.get(&cur) {
                path.push(graph.graph[p]);
                cur = p;
            }
            path.reverse();
            return Some(path);
        }
        for m in graph.graph.neighbors(n) {
            if m != start && !parent.contains_key(&m) {
                parent.insert(m, n);
                queue.push_back(m);
            }
        }
    }
    None
}

/// Calls `f` on every term of `term`, outermost first.
fn walk_term<'a>(term: &'a Term, f: &mut impl FnMut(&'a Term)) {
    f(term);
    if let Term::Func { args, .. } = term {
        args.iter().for_each(|a| walk_term(a, f));
    }
}

/// Calls `f` on every term of the literal (the arguments of its sentences and of its
/// `distinct`s, and their sub-terms), in source order.
fn walk_literal_terms<'a>(lit: &'a Literal, f: &mut impl FnMut(&'a Term)) {
    match lit {
        Literal::Pos(a) | Literal::Not { atom: a, .. } => {
            a.args.iter().for_each(|t| walk_term(t, f))
        }
        Literal::Distinct { lhs, rhs, .. } => {
            walk_term(lhs, f);
            walk_term(rhs, f);
        }
        Literal::Or { branches: ls, .. } | Literal::And { conjuncts: ls, .. } => {
            ls.iter().for_each(|l| walk_literal_terms(l, f))
        }
    }
}

/// A term written back in KIF, for messages.
fn show_term(symbols: &Symbols, term: &Term) -> String {
    let mut out = String::new();
    crate::print::write_term_kif(symbols, term, &mut out);
    out
}

/// `n` followed by `one` or `many`: `1 argument`, `2 arguments`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod test_util;
