//! The recursion restriction (Definition 15 of the GDL specification), which keeps recursive
//! rules from building ever larger terms.

use crate::diag::codes;
use std::collections::{HashMap, HashSet};

use crate::scc::tarjan_scc;

use super::{Context, show_term};
use crate::ast::{Atom, Literal, Rule, Sym, Term};
use crate::diag::Diagnostic;

/// Checks the recursion restriction.
pub(super) fn check(cx: &mut Context<'_>) {
    let cycles = Cycles::of(cx);
    let program = cx.program;
    for rule in &program.rules {
        restriction(cx, &cycles, rule);
    }
}

/// Which relations lie on a common cycle of the dependency graph.
struct Cycles {
    component: HashMap<Sym, usize>,
    recursive: Vec<bool>,
}

impl Cycles {
    fn of(cx: &Context<'_>) -> Cycles {
        let g = &cx.graph.graph;
        let mut component = HashMap::new();
        let mut recursive = Vec::new();
        for (c, nodes) in tarjan_scc(g).iter().enumerate() {
            let self_loop = nodes.iter().any(|&n| g.contains_edge(n, n));
            recursive.push(nodes.len() > 1 || self_loop);
            component.extend(nodes.iter().map(|&n| (g[n], c)));
        }
        Cycles {
            component,
            recursive,
        }
    }

    /// Whether `a` and `b` appear in a common cycle.
    fn same_cycle(&self, a: Sym, b: Sym) -> bool {
        match (self.component.get(&a), self.component.get(&b)) {
            (Some(x), Some(y)) => x == y && self.recursive.get(*x).copied().unwrap_or(false),
            _ => false,
        }
    }
}

/// A term compared by structure, spans ignored.
type TermKey = Vec<u32>;

fn key(term: &Term) -> TermKey {
    let mut out = Vec::new();
    push_key(term, &mut out);
    out
}

fn push_key(term: &Term, out: &mut TermKey) {
    match term {
        Term::Var { name, .. } => out.extend([0, name.0]),
        Term::Const { name, .. } => out.extend([1, name.0]),
        Term::Func { name, args, .. } => {
            out.extend([2, name.0, u32::try_from(args.len()).unwrap_or(u32::MAX)]);
            args.iter().for_each(|a| push_key(a, out));
        }
    }
}

/// The recursion restriction for one rule.
struct Restriction<'a> {
    cycles: &'a Cycles,
    rule: &'a Rule,
    head_args: HashSet<TermKey>,
    /// The offending arguments: the term and the relation it is passed to.
    violations: Vec<(&'a Term, Sym)>,
}

fn restriction(cx: &mut Context<'_>, cycles: &Cycles, rule: &Rule) {
    let head = rule.head.name;
    if !cycles.same_cycle(head, head) {
        return;
    }
    let mut r = Restriction {
        cycles,
        rule,
        head_args: rule.head.args.iter().map(key).collect(),
        violations: Vec::new(),
    };
    r.conjunction(&rule.body, &HashSet::new());
    for (term, rel) in r.violations {
        report_restriction(cx, rule, term, rel);
    }
}

impl<'a> Restriction<'a> {
    /// The whole arguments of positive literals outside the cycle, which ground what a
    /// recursive literal receives; in an `or`, those every branch provides.
    fn provides(&self, lit: &Literal) -> HashSet<TermKey> {
        match lit {
            Literal::Pos(atom) if !self.cycles.same_cycle(self.rule.head.name, atom.name) => {
                atom.args.iter().map(key).collect()
            }
            Literal::Pos(_) | Literal::Not { .. } | Literal::Distinct { .. } => HashSet::new(),
            Literal::And { conjuncts, .. } => {
                conjuncts.iter().flat_map(|c| self.provides(c)).collect()
            }
            Literal::Or { branches, .. } => {
                let mut sets = branches.iter().map(|b| self.provides(b));
                let first = sets.next().unwrap_or_default();
                sets.fold(first, |acc, s| acc.intersection(&s).cloned().collect())
            }
        }
    }

    fn conjunction(&mut self, lits: &'a [Literal], outer: &HashSet<TermKey>) {
        let mut provided: HashSet<TermKey> = lits.iter().flat_map(|l| self.provides(l)).collect();
        provided.extend(outer.iter().cloned());
        for lit in lits {
            match lit {
                Literal::Pos(atom) | Literal::Not { atom, .. } => self.literal(atom, &provided),
                Literal::Distinct { .. } => {}
                Literal::Or { branches, .. } => {
                    for b in branches {
                        self.conjunction(std::slice::from_ref(b), &provided);
                    }
                }
                Literal::And { conjuncts, .. } => self.conjunction(conjuncts, &provided),
            }
        }
    }

    fn literal(&mut self, atom: &'a Atom, provided: &HashSet<TermKey>) {
        if !self.cycles.same_cycle(self.rule.head.name, atom.name) {
            return;
        }
        for arg in &atom.args {
            let k = key(arg);
            if !arg.is_ground() && !self.head_args.contains(&k) && !provided.contains(&k) {
                self.violations.push((arg, atom.name));
            }
        }
    }
}

fn report_restriction(cx: &mut Context<'_>, rule: &Rule, term: &Term, rel: Sym) {
    let shown = show_term(cx.symbols(), term);
    let (p, q) = (
        cx.name(rule.head.name).to_string(),
        cx.name(rel).to_string(),
    );
    let with = if p == q {
        "itself".to_string()
    } else {
        format!("`{p}`")
    };
    cx.report(
        Diagnostic::error(
            codes::RECURSION_RESTRICTION,
            term.span(),
            format!("`{shown}` breaks the recursion restriction: `{q}` is recursive with {with}"),
        )
        .with_label(rule.head.span, "the head of the rule")
        .with_note(
            "an argument of a literal in a cycle with the head must be ground, an argument of the \
             head, or an argument of a positive body literal outside the cycle (Definition 15 of \
             the GDL specification)",
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{GAME, at, diagnostics, error_codes};

    #[test]
    fn recursion_that_grows_terms_is_rejected() {
        let src = format!(
            "{GAME}(<= (legal r (m ?x)) (num ?x))\n(num 0)\n(<= (num (s ?x)) (num ?x))\n(<= (num2 ?x) (num2 (s ?x)))"
        );
        assert_eq!(at(&src, "recursion-restriction"), ["4:23", "5:21"]);
        let _ = diagnostics(&src);
    }

    #[test]
    fn bounded_recursion_is_accepted() {
        // test_case_5a of ggp-base: the new argument is grounded by a relation outside the cycle.
        let src = format!(
            "{GAME}(r 0 0)\n(q 0)\n(<= (r ?v1 (f ?v1)) (r ?v2 ?v1) (q ?v2))\n(<= (legal r (m ?a)) (r ?a ?b))\n\
             (<= (t ?x ?z) (e ?x ?y) (t ?y ?z))\n(<= (t ?x ?y) (e ?x ?y))\n(e 1 2)\n(<= (legal r (n ?x)) (t 1 ?x))"
        );
        assert!(error_codes(&src).is_empty(), "{:?}", error_codes(&src));
    }

    #[test]
    fn providers_in_ors_must_cover_every_branch() {
        let src = format!(
            "{GAME}(<= (legal r (m ?x)) (u ?x))\n(u 0)\n(e 1)\n(f 1)\n\
             (<= (u 1) (e ?x) (u ?x))\n(<= (u 2) (or (e ?x) (f ?x)) (u ?x))\n\
             (<= (u 3) (or (e ?x) (f 1)) (u ?x))\n(<= (u 4) (or (and (e ?x) (u ?x)) (u 5)))"
        );
        assert_eq!(at(&src, "recursion-restriction"), ["8:32"]);
    }
}
