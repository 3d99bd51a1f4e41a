//! Stratification: no negation inside a dependency cycle.
//!
//! Definition 12 of the GDL specification judges relations as wholes, which rejects rules such
//! as `(<= (goal robot 100) (not (goal robot 0)))` that games of the repository use: no
//! instance of `goal` depends on its own negation. When the relations are not stratified, the
//! rules are looked at again, one node per rule, with an edge from a rule to each rule whose
//! body literals its head may match. A negation on a cycle of that finer graph is an error
//! (some ground sentence may depend on its own negation); one that only the relations see is a
//! warning, and the report has no relation strata.

use crate::diag::codes;
use std::collections::HashMap;

use crate::scc::tarjan_scc;
use petgraph::graph::DiGraph;

use super::{Context, dependency_path};
use crate::ast::{Atom, Literal, Program, Span, Sym, Term};
use crate::diag::Diagnostic;
use crate::stratify::{NegativeCycle, Strata, stratify};

/// Checks stratification; returns the strata of a stratified description.
pub(super) fn check(cx: &mut Context<'_>) -> Option<Strata> {
    match stratify(&cx.graph) {
        Ok(strata) => Some(strata),
        Err(negative) => {
            let rules = RuleCycles::of(cx.program);
            for cycle in &negative {
                report(cx, cycle, &rules);
            }
            None
        }
    }
}

/// The strongly connected components of the rule graph.
struct RuleCycles {
    /// The component of each rule with a body (facts lie on no cycle).
    component: Vec<Option<usize>>,
    /// The rules with a body, by head relation.
    by_head: HashMap<Sym, Vec<usize>>,
}

impl RuleCycles {
    fn of(program: &Program) -> RuleCycles {
        let mut by_head: HashMap<Sym, Vec<usize>> = HashMap::new();
        for (i, rule) in program.rules.iter().enumerate() {
            if !rule.body.is_empty() {
                by_head.entry(rule.head.name).or_default().push(i);
            }
        }
        let mut graph: DiGraph<usize, ()> = DiGraph::new();
        let nodes: Vec<_> = (0..program.rules.len())
            .map(|i| graph.add_node(i))
            .collect();
        for (i, rule) in program.rules.iter().enumerate() {
            let mut atoms = Vec::new();
            rule.body
                .iter()
                .for_each(|l| l.for_each_atom(&mut |a, _| atoms.push(a)));
            for atom in atoms {
                for j in matching_rules(program, &by_head, atom) {
                    if let (Some(&from), Some(&to)) = (nodes.get(j), nodes.get(i)) {
                        graph.update_edge(from, to, ());
                    }
                }
            }
        }
        let mut component = vec![None; program.rules.len()];
        for (c, scc) in tarjan_scc(&graph).iter().enumerate() {
            let cyclic = scc.len() > 1 || scc.iter().any(|&n| graph.contains_edge(n, n));
            for &n in scc.iter().filter(|_| cyclic) {
                if let Some(slot) = component.get_mut(graph[n]) {
                    *slot = Some(c);
                }
            }
        }
        RuleCycles { component, by_head }
    }

    /// Whether the negated `atom` of rule `rule` lies on a cycle of rule instances.
    fn on_cycle(&self, program: &Program, rule: usize, atom: &Atom) -> bool {
        let Some(Some(c)) = self.component.get(rule) else {
            return false;
        };
        matching_rules(program, &self.by_head, atom)
            .any(|j| self.component.get(j).copied().flatten() == Some(*c))
    }
}

/// The rules with a body whose head may match `atom`.
fn matching_rules<'a>(
    program: &'a Program,
    by_head: &'a HashMap<Sym, Vec<usize>>,
    atom: &'a Atom,
) -> impl Iterator<Item = usize> + 'a {
    by_head
        .get(&atom.name)
        .into_iter()
        .flatten()
        .copied()
        .filter(move |&j| {
            program
                .rules
                .get(j)
                .is_some_and(|r| atoms_may_match(&r.head, atom))
        })
}

/// Whether two terms may denote the same ground term (variables are not tied together: an
/// over-approximation of unification).
fn may_match(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Var { .. }, _) | (_, Term::Var { .. }) => true,
        (Term::Const { name: x, .. }, Term::Const { name: y, .. }) => x == y,
        (
            Term::Func {
                name: x, args: xs, ..
            },
            Term::Func {
                name: y, args: ys, ..
            },
        ) => x == y && xs.len() == ys.len() && xs.iter().zip(ys).all(|(s, t)| may_match(s, t)),
        _ => false,
    }
}

fn atoms_may_match(a: &Atom, b: &Atom) -> bool {
    a.name == b.name
        && a.arity() == b.arity()
        && a.args.iter().zip(&b.args).all(|(s, t)| may_match(s, t))
}

fn report(cx: &mut Context<'_>, cycle: &NegativeCycle, rules: &RuleCycles) {
    let program = cx.program;
    let Some(rule) = program.rules.get(cycle.edge.rule) else {
        return;
    };
    let Some((literal_span, atom)) = negated_atom(&rule.body, cycle.edge.span) else {
        return;
    };
    let real = rules.on_cycle(program, cycle.edge.rule, atom);
    let (head, negated) = (rule.head.name, atom.name);
    let (h, n) = (cx.name(head).to_string(), cx.name(negated).to_string());
    let mut d = if real {
        let message = if head == negated {
            format!("`{h}` depends on its own negation")
        } else {
            format!(
                "negation inside a dependency cycle: `{h}` depends on `(not ({n} ...))` and `{n}` depends on `{h}`"
            )
        };
        Diagnostic::error(codes::NEGATIVE_CYCLE, literal_span, message)
    } else {
        let message = if head == negated {
            format!("`{h}` depends on its own negation as a relation, but no instance of it does")
        } else {
            format!(
                "`{h}` depends on the negation of `{n}`, which depends on `{h}`, but no instance depends on its own negation"
            )
        };
        Diagnostic::warning(codes::RELATION_NEGATIVE_CYCLE, literal_span, message)
        .with_note("the rules are stratified instance by instance, not relation by relation (Definition 12 of the GDL specification)")
    };
    d = d.with_label(rule.head.name_span, format!("`{h}` is defined here"));
    if let Some(path) = dependency_path(cx, head, negated).filter(|p| p.len() > 2) {
        let chain: Vec<String> = path
            .iter()
            .rev()
            .map(|&s| format!("`{}`", cx.name(s)))
            .collect();
        d = d.with_note(format!("{} (each depends on the next)", chain.join(" -> ")));
    }
    let mut names: Vec<String> = cycle
        .relations
        .iter()
        .map(|&s| cx.name(s).to_string())
        .collect();
    names.sort();
    d = d.with_note(format!("the relations of the cycle: {}", names.join(", ")));
    if real {
        d = d.with_note(
            "a description must be stratified: no relation may depend on its own negation",
        );
    }
    cx.report(d);
}

/// The `not` literal of `body` whose sentence has `span`, with that sentence.
fn negated_atom(body: &[Literal], span: Span) -> Option<(Span, &Atom)> {
    body.iter().find_map(|lit| match lit {
        Literal::Not {
            atom,
            span: lit_span,
        } if atom.span == span => Some((*lit_span, atom)),
        Literal::Or { branches: ls, .. } | Literal::And { conjuncts: ls, .. } => {
            negated_atom(ls, span)
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{GAME, at, error_codes, with_code};
    use crate::diag::Severity;

    #[test]
    fn negation_in_a_cycle() {
        let src = format!(
            "{GAME}(<= (p ?x) (r ?x) (a ?x))\n(<= (a ?x) (q ?x))\n(<= (q ?x) (r ?x) (not (p ?x)))\n\
             (r 1)\n(<= (legal r (m ?x)) (p ?x))"
        );
        assert_eq!(at(&src, "negative-cycle"), ["4:19"]);
        let d = &with_code(&src, "negative-cycle")[0];
        assert!(d.is_error());
        assert!(d.notes.iter().any(|n| n.contains("a, p, q")), "{d:?}");
        assert!(
            d.notes.iter().any(|n| n.contains("`p` -> `a` -> `q`")),
            "{d:?}"
        );
        let (program, _) = crate::parse::parse_kif(&src);
        assert!(super::super::check(&program).strata.is_none());
    }

    #[test]
    fn stratified_descriptions_have_strata() {
        let (program, _) = crate::parse::parse_kif(GAME);
        assert!(super::super::check(&program).strata.is_some());
    }

    #[test]
    fn negation_between_instances_is_a_warning() {
        // futoshiki4 of the repository.
        let src = "(role robot) (init s) (legal robot m) (<= (next s) (does robot m)) (<= terminal (true s))\n\
                   (<= (goal robot 0) (true (cell ?x blank)))\n(<= (goal robot 100) (not (goal robot 0)))";
        assert!(error_codes(src).is_empty(), "{:?}", error_codes(src));
        let d = with_code(src, "relation-negative-cycle");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, Severity::Warning);
        assert_eq!(at(src, "relation-negative-cycle"), ["3:22"]);
    }

    #[test]
    fn negation_between_matching_instances_is_an_error() {
        let src = "(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s))\n\
                   (<= (goal ?r 0) (role ?r) (not (goal ?r 100)))\n(<= (goal ?r ?v) (role ?r) (val ?v) (not (goal ?r 0)))\n(val 100)";
        assert_eq!(at(src, "negative-cycle"), ["2:27", "3:37"]);
    }
}
