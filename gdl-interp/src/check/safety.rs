//! Safety (every variable is bound by a positive literal of its rule's body), variables in
//! facts, and the shape of rule bodies (`or`s, empty bodies).

use crate::diag::codes;
use std::collections::HashSet;

use super::Context;
use crate::ast::{Literal, Rule, RuleKind, Span, Sym, Term, kw};
use crate::diag::{Diagnostic, Severity};

/// Runs the safety and body-shape checks.
pub(super) fn check(cx: &mut Context<'_>) {
    let program = cx.program;
    for rule in &program.rules {
        match rule.kind {
            RuleKind::Fact => variables_in_fact(cx, rule),
            RuleKind::Implication => {
                if rule.body.is_empty() {
                    cx.report(
                        Diagnostic::warning(codes::EMPTY_BODY, rule.span, "this rule has no body")
                            .with_note("`(<= head)` means the same as the fact `head`"),
                    );
                }
                rule_safety(cx, rule);
            }
        }
        rule.body
            .iter()
            .for_each(|l| or_shape(cx, l, Within::Conjunction));
    }
}

/// Whether a problem in `rule` can change the game: rules of relations that no game relation
/// depends on cannot, so their problems are only warnings.
fn severity_for(cx: &Context<'_>, rule: &Rule) -> Severity {
    if cx.reachable.contains(&rule.head.name) {
        Severity::Error
    } else {
        Severity::Warning
    }
}

fn unreachable_note(cx: &Context<'_>, rule: &Rule) -> String {
    format!(
        "no game relation depends on `{}`, so this rule cannot affect the game",
        cx.name(rule.head.name)
    )
}

fn variables_in_fact(cx: &mut Context<'_>, rule: &Rule) {
    let severity = severity_for(cx, rule);
    let mut seen = HashSet::new();
    let mut vars = Vec::new();
    rule.head.for_each_var(&mut |name, span| {
        if seen.insert(name) {
            vars.push((name, span));
        }
    });
    for (name, span) in vars {
        let var = cx.name(name).to_string();
        let mut d = Diagnostic::error(
            codes::VARIABLE_IN_FACT,
            span,
            format!("the fact contains the variable `?{var}`"),
        )
        .with_note("a fact must be ground; write a rule whose body binds the variable");
        if severity == Severity::Warning {
            d.severity = severity;
            d = d.with_note(unreachable_note(cx, rule));
        }
        cx.report(d);
    }
}

/// Where an unsafe variable occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Head,
    Negation,
    Distinct,
}

/// A variable that no positive literal binds.
#[derive(Clone, Copy, Debug)]
struct Unsafe {
    var: Sym,
    span: Span,
    place: Place,
}

fn rule_safety(cx: &mut Context<'_>, rule: &Rule) {
    let mut problems = Vec::new();
    let bound = conjunction_binds(&rule.body);
    let mut seen = HashSet::new();
    rule.head.for_each_var(&mut |var, span| {
        if !bound.contains(&var) && seen.insert(var) {
            problems.push(Unsafe {
                var,
                span,
                place: Place::Head,
            });
        }
    });
    check_conjunction(&rule.body, &HashSet::new(), &mut problems);
    let role_var = role_variable(rule);
    let (role_problems, problems): (Vec<Unsafe>, Vec<Unsafe>) = problems
        .into_iter()
        .partition(|p| Some(p.var) == role_var.map(|(v, _)| v));
    if let (Some((var, span)), false) = (role_var, role_problems.is_empty()) {
        report_role_variable(cx, rule, var, span);
    }
    let severity = severity_for(cx, rule);
    for p in problems {
        report_unsafe(cx, rule, p, severity);
    }
}

/// The variable in the role position of a `legal`, `goal` or `sees` head: the game asks these
/// relations about each role, so the query binds it.
fn role_variable(rule: &Rule) -> Option<(Sym, Span)> {
    if !matches!(rule.head.name, kw::LEGAL | kw::GOAL | kw::SEES) {
        return None;
    }
    match rule.head.args.first() {
        Some(Term::Var { name, span }) => Some((*name, *span)),
        _ => None,
    }
}

fn report_role_variable(cx: &mut Context<'_>, rule: &Rule, var: Sym, span: Span) {
    let var = cx.name(var).to_string();
    let rel = cx.name(rule.head.name).to_string();
    cx.report(
        Diagnostic::warning(
            codes::ROLE_VARIABLE,
            span,
            format!("`?{var}` is bound only by the role the game asks `{rel}` about"),
        )
        .with_note(format!(
            "add `(role ?{var})` to the body to make the rule safe"
        )),
    );
}

fn report_unsafe(cx: &mut Context<'_>, rule: &Rule, p: Unsafe, severity: Severity) {
    let var = cx.name(p.var).to_string();
    let place = match p.place {
        Place::Head => "the head",
        Place::Negation => "a negated literal",
        Place::Distinct => "a `distinct`",
    };
    let mut d = Diagnostic::error(
        codes::UNSAFE_VARIABLE,
        p.span,
        format!("`?{var}` appears in {place} but in no positive literal of the body"),
    )
    .with_note(
        "every variable of the head, of a `not` and of a `distinct` must appear in a positive \
         literal of the body",
    );
    d.severity = severity;
    for or_span in partial_bindings(&rule.body, p.var) {
        d = d.with_label(
            or_span,
            format!("`?{var}` is bound in only some branches of this `or`"),
        );
    }
    if severity == Severity::Warning {
        d = d.with_note(unreachable_note(cx, rule));
    }
    cx.report(d);
}

/// The `or`s of which some but not every branch binds `var`.
fn partial_bindings(body: &[Literal], var: Sym) -> Vec<Span> {
    let mut out = Vec::new();
    for lit in body {
        partial_in(lit, var, &mut out);
    }
    out
}

fn partial_in(lit: &Literal, var: Sym, out: &mut Vec<Span>) {
    match lit {
        Literal::Or { branches, span } => {
            let binding = branches.iter().filter(|b| binds(b).contains(&var)).count();
            if binding > 0 && binding < branches.len() {
                out.push(*span);
            }
            branches.iter().for_each(|b| partial_in(b, var, out));
        }
        Literal::And { conjuncts, .. } => conjuncts.iter().for_each(|c| partial_in(c, var, out)),
        Literal::Pos(_) | Literal::Not { .. } | Literal::Distinct { .. } => {}
    }
}

/// The variables a literal binds: those of positive sentences, and in an `or` those every
/// branch binds.
fn binds(lit: &Literal) -> HashSet<Sym> {
    match lit {
        Literal::Pos(atom) => {
            let mut vars = HashSet::new();
            atom.for_each_var(&mut |v, _| {
                vars.insert(v);
            });
            vars
        }
        Literal::Not { .. } | Literal::Distinct { .. } => HashSet::new(),
        Literal::And { conjuncts, .. } => conjunction_binds(conjuncts),
        Literal::Or { branches, .. } => {
            let mut sets = branches.iter().map(binds);
            let first = sets.next().unwrap_or_default();
            sets.fold(first, |acc, s| acc.intersection(&s).copied().collect())
        }
    }
}

fn conjunction_binds(lits: &[Literal]) -> HashSet<Sym> {
    lits.iter().flat_map(binds).collect()
}

/// Checks the negations and `distinct`s of a conjunction, given the variables bound around it.
/// Inside an `or` branch, the branch's own positive literals bind too.
fn check_conjunction(lits: &[Literal], outer: &HashSet<Sym>, problems: &mut Vec<Unsafe>) {
    let mut bound = conjunction_binds(lits);
    bound.extend(outer.iter().copied());
    for lit in lits {
        match lit {
            Literal::Pos(_) => {}
            Literal::Not { .. } => unbound_in(lit, &bound, Place::Negation, problems),
            Literal::Distinct { .. } => unbound_in(lit, &bound, Place::Distinct, problems),
            Literal::Or { branches, .. } => {
                for b in branches {
                    check_conjunction(std::slice::from_ref(b), &bound, problems);
                }
            }
            Literal::And { conjuncts, .. } => check_conjunction(conjuncts, &bound, problems),
        }
    }
}

fn unbound_in(lit: &Literal, bound: &HashSet<Sym>, place: Place, problems: &mut Vec<Unsafe>) {
    let mut seen = HashSet::new();
    lit.for_each_var(&mut |var, span| {
        if !bound.contains(&var) && seen.insert(var) {
            problems.push(Unsafe { var, span, place });
        }
    });
}

/// Where an `or` stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Within {
    Conjunction,
    Or,
}

fn or_shape(cx: &mut Context<'_>, lit: &Literal, within: Within) {
    match lit {
        Literal::Or { branches, span } => {
            if branches.is_empty() {
                cx.report(
                    Diagnostic::warning(codes::EMPTY_OR, *span, "this `or` has no branches")
                        .with_note("an empty `or` is false, so the rule never applies"),
                );
            }
            if within == Within::Or {
                cx.report(
                    Diagnostic::warning(codes::NESTED_OR, *span, "an `or` nested inside an `or`")
                        .with_note("its branches can be written as branches of the outer `or`"),
                );
            }
            branches.iter().for_each(|b| or_shape(cx, b, Within::Or));
        }
        Literal::And { conjuncts, .. } => conjuncts.iter().for_each(|c| or_shape(cx, c, within)),
        Literal::Pos(_) | Literal::Not { .. } | Literal::Distinct { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{GAME, at, error_codes, with_code};
    use crate::diag::Severity;

    #[test]
    fn variables_in_facts() {
        let src = format!("{GAME}(legal ?p (m ?x ?p))");
        assert_eq!(at(&src, "variable-in-fact"), ["2:8", "2:14"]);
    }

    #[test]
    fn unsafe_head_negation_and_distinct_variables() {
        let src = format!(
            "{GAME}(<= (legal r (m ?x ?y)) (p ?x))\n(<= (legal r n) (p ?x) (not (q ?x ?z)))\n\
             (<= (legal r o) (distinct ?a ?b) (p ?a))"
        );
        assert_eq!(at(&src, "unsafe-variable"), ["2:20", "3:35", "4:30"]);
        assert!(error_codes(&src).iter().all(|c| *c == "unsafe-variable"));
    }

    #[test]
    fn distinct_before_its_binders_is_safe() {
        let src = format!("{GAME}(<= (legal r (m ?a ?b)) (distinct ?a ?b) (p ?a) (p ?b))");
        assert!(error_codes(&src).is_empty(), "{:?}", error_codes(&src));
    }

    #[test]
    fn an_or_binds_only_what_every_branch_binds() {
        let src = format!(
            "{GAME}(<= (legal r (m ?x)) (or (p ?x) (q ?x)))\n\
             (<= (legal r (n ?x)) (or (p ?x) (q 1)))\n\
             (<= (legal r o) (or (and (p ?x) (not (q ?x))) (not (q ?y))))"
        );
        assert_eq!(at(&src, "unsafe-variable"), ["3:17", "4:55"]);
        let d = with_code(&src, "unsafe-variable");
        assert_eq!(d[0].labels.len(), 1, "{:?}", d[0]);
    }

    #[test]
    fn unsafe_rules_the_game_never_uses_are_warnings() {
        let src = format!("{GAME}(<= (helper ?x ?y) (distinct ?x ?y))\n(other ?z)");
        let d = with_code(&src, "unsafe-variable");
        assert_eq!(d.len(), 4);
        assert!(d.iter().all(|d| d.severity == Severity::Warning));
        assert_eq!(
            with_code(&src, "variable-in-fact")[0].severity,
            Severity::Warning
        );
    }

    #[test]
    fn role_variables_of_legal_and_goal_are_warnings() {
        let src = format!("{GAME}(<= (legal ?p ?p) (q 1))\n(<= (goal ?p 0) (not (q ?p)))");
        assert_eq!(at(&src, "role-variable"), ["2:12", "3:11"]);
        assert!(error_codes(&src).is_empty(), "{:?}", error_codes(&src));
    }

    #[test]
    fn or_shapes_and_empty_bodies() {
        let src = format!(
            "{GAME}(<= (p 1) (or))\n(<= (p 2) (or (q 1) (and (or (q 2) (q 3)))))\n(<= (p 3))"
        );
        assert_eq!(at(&src, "empty-or"), ["2:11"]);
        assert_eq!(at(&src, "nested-or"), ["3:26"]);
        assert_eq!(at(&src, "empty-body"), ["4:1"]);
    }
}
