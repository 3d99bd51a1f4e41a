//! The GDL keywords: that the game relations exist, their arities, where each may stand, what
//! each may depend on, and the names that cannot be used at all.

use crate::diag::codes;
use std::collections::{HashMap, HashSet};

use super::{Context, plural, walk_literal_terms, walk_term};
use crate::ast::{Atom, Literal, Rule, RuleKind, Span, Sym, Term, kw};
use crate::diag::Diagnostic;

/// The relations every game must define.
const REQUIRED: [Sym; 4] = [kw::ROLE, kw::TERMINAL, kw::GOAL, kw::LEGAL];

/// Names that can never be a relation or a constant.
const RESERVED: [Sym; 5] = [kw::IMPLIES, kw::DISTINCT, kw::OR, kw::NOT, kw::AND];

/// Which relations a game relation may not depend on.
const FORBIDDEN_DEPENDENCIES: [(Sym, &[Sym]); 7] = [
    (kw::INIT, &[kw::TRUE, kw::DOES]),
    (kw::BASE, &[kw::TRUE, kw::DOES]),
    (kw::INPUT, &[kw::TRUE, kw::DOES]),
    (kw::ROLE, &[kw::TRUE, kw::DOES]),
    (kw::TERMINAL, &[kw::DOES]),
    (kw::LEGAL, &[kw::DOES]),
    (kw::GOAL, &[kw::DOES]),
];

/// The number of arguments of a keyword relation.
fn keyword_arity(sym: Sym) -> Option<usize> {
    match sym {
        kw::TRUE | kw::INIT | kw::NEXT | kw::ROLE | kw::BASE => Some(1),
        kw::LEGAL | kw::DOES | kw::GOAL | kw::INPUT | kw::SEES => Some(2),
        kw::TERMINAL => Some(0),
        _ => None,
    }
}

/// Runs the keyword checks.
pub(super) fn check(cx: &mut Context<'_>) {
    missing_relations(cx);
    let state = StateDependents {
        on_true: dependents(cx, kw::TRUE),
        on_does: dependents(cx, kw::DOES),
    };
    let program = cx.program;
    for rule in &program.rules {
        head_placement(cx, rule);
        for lit in &rule.body {
            lit.for_each_atom(&mut |atom, _| body_placement(cx, atom));
        }
        let mut atoms = vec![&rule.head];
        rule.body
            .iter()
            .for_each(|l| l.for_each_atom(&mut |a, _| atoms.push(a)));
        for atom in atoms {
            atom_name(cx, atom);
            atom.args
                .iter()
                .for_each(|t| walk_term(t, &mut |t| term_name(cx, t)));
        }
        rule.body.iter().for_each(|l| walk_distinct_terms(cx, l));
        dependencies(cx, &state, rule);
        goal_value(cx, rule);
    }
}

/// The terms of `distinct`s (those of sentences are visited with their sentences).
fn walk_distinct_terms(cx: &mut Context<'_>, lit: &Literal) {
    match lit {
        Literal::Distinct { .. } => walk_literal_terms(lit, &mut |t| term_name(cx, t)),
        Literal::Or { branches: ls, .. } | Literal::And { conjuncts: ls, .. } => {
            ls.iter().for_each(|l| walk_distinct_terms(cx, l))
        }
        Literal::Pos(_) | Literal::Not { .. } => {}
    }
}

fn missing_relations(cx: &mut Context<'_>) {
    let defined: HashSet<Sym> = cx.program.rules.iter().map(|r| r.head.name).collect();
    for rel in REQUIRED {
        if !defined.contains(&rel) {
            let name = cx.name(rel).to_string();
            cx.report(
                Diagnostic::error(
                    codes::MISSING_RELATION,
                    Span::new(0, 0),
                    format!("the description never defines `{name}`"),
                )
                .with_note(
                    "every game needs `role` facts and rules for `legal`, `goal` and `terminal`",
                )
                .about_whole_program(),
            );
        }
    }
}

/// Arity and reserved names of one sentence, wherever it stands.
fn atom_name(cx: &mut Context<'_>, atom: &Atom) {
    let name = cx.name(atom.name).to_string();
    if RESERVED.contains(&atom.name) {
        cx.report(Diagnostic::error(
            codes::RESERVED_NAME,
            atom.name_span,
            format!("`{name}` is reserved and cannot name a relation"),
        ));
        return;
    }
    if let Some(expected) = keyword_arity(atom.name)
        && expected != atom.arity()
    {
        cx.report(Diagnostic::error(
            codes::KEYWORD_ARITY,
            atom.span,
            format!(
                "`{name}` takes {}, found {}",
                plural(expected, "argument", "arguments"),
                atom.arity()
            ),
        ));
    }
}

/// Keywords and reserved names inside terms.
fn term_name(cx: &mut Context<'_>, term: &Term) {
    match term {
        Term::Func { name, span, .. } if crate::ast::Symbols::is_keyword(*name) => {
            let name = cx.name(*name).to_string();
            cx.report(
                Diagnostic::error(
                    codes::KEYWORD_AS_FUNCTION,
                    *span,
                    format!("the keyword `{name}` cannot be used as a function name"),
                )
                .with_note("a keyword names a relation; it cannot be nested inside a term"),
            );
        }
        Term::Const { name, span } if RESERVED.contains(name) => {
            let name = cx.name(*name).to_string();
            cx.report(Diagnostic::error(
                codes::RESERVED_NAME,
                *span,
                format!("`{name}` is reserved and cannot be used as a constant"),
            ));
        }
        _ => {}
    }
}

/// `true`/`does` cannot be concluded, `role` is given by ground facts only.
fn head_placement(cx: &mut Context<'_>, rule: &Rule) {
    let head = &rule.head;
    let name = cx.name(head.name).to_string();
    match head.name {
        kw::TRUE | kw::DOES => {
            let message = match rule.kind {
                RuleKind::Fact => format!("`({name} ...)` cannot be stated as a fact"),
                RuleKind::Implication => format!("`{name}` cannot be the head of a rule"),
            };
            cx.report(
                Diagnostic::error(codes::KEYWORD_IN_HEAD, head.span, message)
                    .with_note(format!("`{name}` is given by the game state and the moves")),
            );
        }
        kw::ROLE if !rule.body.is_empty() => {
            cx.report(
                Diagnostic::error(
                    codes::ROLE_RULE,
                    head.span,
                    "`role` cannot be defined by a rule",
                )
                .with_note("the roles are given by ground facts such as `(role white)`"),
            );
        }
        _ => {}
    }
}

/// `init`, `next`, `base`, `input` are conclusions only.
fn body_placement(cx: &mut Context<'_>, atom: &Atom) {
    if matches!(atom.name, kw::INIT | kw::NEXT | kw::BASE | kw::INPUT) {
        let name = cx.name(atom.name).to_string();
        let hint = match atom.name {
            kw::INIT | kw::NEXT => "; use `true` to read the current state",
            _ => "",
        };
        cx.report(Diagnostic::error(
            codes::KEYWORD_IN_BODY,
            atom.span,
            format!("`{name}` cannot be used in a rule body{hint}"),
        ));
    }
}

/// The relations that depend on `true` and on `does` (themselves included), each with the
/// relation before it on a shortest path from `true` or `does`.
struct StateDependents {
    on_true: HashMap<Sym, Option<Sym>>,
    on_does: HashMap<Sym, Option<Sym>>,
}

/// `from` and the relations that depend on it, each with its parent in a breadth-first
/// search from `from` (the tree `dependency_path` searches, made once for every finding).
fn dependents(cx: &Context<'_>, from: Sym) -> HashMap<Sym, Option<Sym>> {
    let mut out = HashMap::from([(from, None)]);
    let graph = &cx.graph.graph;
    let Some(start) = cx.graph.node(from) else {
        return out;
    };
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for m in graph.neighbors(n) {
            if let std::collections::hash_map::Entry::Vacant(e) = out.entry(graph[m]) {
                e.insert(Some(graph[n]));
                queue.push_back(m);
            }
        }
    }
    out
}

/// The relations from the root of `tree` to `to`, both included.
fn tree_path(tree: &HashMap<Sym, Option<Sym>>, to: Sym) -> Option<Vec<Sym>> {
    let mut path = vec![to];
    let mut cur = *tree.get(&to)?;
    while let Some(p) = cur {
        path.push(p);
        cur = tree.get(&p).copied().flatten();
    }
    path.reverse();
    Some(path)
}

/// `init` and friends must not depend on the state or the moves, `legal` and friends not on
/// the moves.
fn dependencies(cx: &mut Context<'_>, state: &StateDependents, rule: &Rule) {
    let Some(&(head, forbidden)) = FORBIDDEN_DEPENDENCIES
        .iter()
        .find(|(h, _)| *h == rule.head.name)
    else {
        return;
    };
    let mut atoms = Vec::new();
    rule.body
        .iter()
        .for_each(|l| l.for_each_atom(&mut |a, _| atoms.push(a)));
    for atom in atoms {
        for &f in forbidden {
            let dependents = if f == kw::TRUE {
                &state.on_true
            } else {
                &state.on_does
            };
            if let Some(path) = tree_path(dependents, atom.name) {
                report_dependency(cx, (head, f), atom, &path);
                break;
            }
        }
    }
}

fn report_dependency(
    cx: &mut Context<'_>,
    (head, forbidden): (Sym, Sym),
    atom: &Atom,
    path: &[Sym],
) {
    let head_name = cx.name(head).to_string();
    let f = cx.name(forbidden).to_string();
    let what = match forbidden {
        kw::TRUE => "the current state",
        _ => "the moves",
    };
    let mut d = Diagnostic::error(
        codes::ILLEGAL_DEPENDENCY,
        atom.span,
        format!("`{head_name}` cannot depend on `{f}` ({what})"),
    );
    if path.len() > 1 {
        let chain: Vec<String> = path
            .iter()
            .rev()
            .map(|&s| format!("`{}`", cx.name(s)))
            .collect();
        d = d.with_note(format!("{} (each depends on the next)", chain.join(" -> ")));
    }
    cx.report(d);
}

/// A ground goal value must be an integer from 0 to 100.
fn goal_value(cx: &mut Context<'_>, rule: &Rule) {
    if rule.head.name != kw::GOAL {
        return;
    }
    let Some(value) = rule.head.args.get(1) else {
        return;
    };
    if !value.is_ground() {
        return;
    }
    let ok = match value {
        Term::Const { name, .. } => cx.name(*name).parse::<u32>().is_ok_and(|v| v <= 100),
        _ => false,
    };
    if !ok {
        let shown = super::show_term(cx.symbols(), value);
        cx.report(Diagnostic::warning(
            codes::GOAL_VALUE,
            value.span(),
            format!("the goal value `{shown}` is not an integer from 0 to 100"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{GAME, at, error_codes, with_code};

    #[test]
    fn a_complete_game_has_no_errors() {
        assert!(error_codes(GAME).is_empty(), "{:?}", error_codes(GAME));
    }

    #[test]
    fn missing_game_relations_are_errors() {
        let d = with_code("(p 1)", "missing-relation");
        assert_eq!(d.len(), 4);
        assert!(d.iter().all(|d| d.is_error()));
        assert!(d.iter().any(|d| d.message.contains("`legal`")));
    }

    #[test]
    fn keyword_arity() {
        let src = format!("{GAME}(<= (legal r) (true s))\n(<= (goal r 1 2) (true s s))");
        assert_eq!(at(&src, "keyword-arity"), ["2:5", "3:5", "3:18"]);
    }

    #[test]
    fn keywords_as_functions() {
        let src = format!("{GAME}(init (cell (true x)))\n(p (does a b))");
        assert_eq!(at(&src, "keyword-as-function"), ["2:13", "3:4"]);
    }

    #[test]
    fn reserved_names() {
        let src = format!("{GAME}(p distinct)\n(<= (q x) (or a b) not)\n(or 1)\n(<= z (<= a))");
        assert_eq!(at(&src, "reserved-name"), ["2:4", "3:20", "4:2", "5:8"]);
    }

    #[test]
    fn role_only_in_ground_facts() {
        let src = format!("{GAME}(<= (role ?x) (p ?x))");
        assert_eq!(at(&src, "role-rule"), ["2:5"]);
    }

    #[test]
    fn true_and_does_cannot_be_concluded() {
        let src = format!("{GAME}(true s)\n(<= (does r m) (p 1))");
        assert_eq!(at(&src, "keyword-in-head"), ["2:1", "3:5"]);
    }

    #[test]
    fn init_and_next_cannot_be_used_in_bodies() {
        let src = format!("{GAME}(<= (p 1) (init s) (not (next s)) (or (base s) (input r m)))");
        assert_eq!(
            at(&src, "keyword-in-body"),
            ["2:11", "2:25", "2:39", "2:48"]
        );
    }

    #[test]
    fn forbidden_dependencies_are_transitive() {
        let src = format!(
            "{GAME}(<= (init t) (p 1))\n(<= (p ?x) (q ?x))\n(<= (q ?x) (true (c ?x)))\n\
             (<= (legal r n) (does r m))\n(<= (goal r 0) (not (q 2)))"
        );
        let d = with_code(&src, "illegal-dependency");
        let lines: Vec<_> = at(&src, "illegal-dependency");
        assert_eq!(lines, ["2:14", "5:17"]);
        assert!(
            d[0].notes[0].contains("`p` -> `q` -> `true`"),
            "{:?}",
            d[0].notes
        );
    }

    #[test]
    fn the_shortest_dependency_is_shown_for_each_finding() {
        let src = format!(
            "{GAME}(<= (init t) (p 1))\n(<= (p ?x) (q ?x))\n(<= (q ?x) (true (c ?x)))\n\
             (<= (p ?x) (true (c ?x)))\n(<= (init u) (q 2))\n(<= (legal r n) (q 3))\n\
             (<= (q ?x) (does r ?x))"
        );
        let d = with_code(&src, "illegal-dependency");
        let notes: Vec<&str> = d.iter().map(|d| d.notes[0].as_str()).collect();
        assert_eq!(
            notes,
            [
                "`p` -> `true` (each depends on the next)",
                "`q` -> `true` (each depends on the next)",
                "`q` -> `does` (each depends on the next)",
            ]
        );
    }

    #[test]
    fn goal_values() {
        let src =
            format!("{GAME}(goal r 101)\n(goal r (f 1))\n(goal r -1)\n(<= (goal r ?x) (p ?x))");
        assert_eq!(at(&src, "goal-value"), ["2:9", "3:9", "4:9"]);
    }
}
