//! State facts and moves that can never occur: a `(true (cel ..))` where only `cell` is ever
//! produced by `init`/`next`, a `(does ?r (mak ..))` where no `legal`/`input` produces `mak`;
//! and the "did you mean" suggestions shared with the undefined-relation check.

use crate::diag::codes;
use std::collections::HashSet;

use super::Context;
use crate::ast::{Atom, Sym, Term, kw};
use crate::diag::Diagnostic;

/// The functor of a term: name and arity; `None` for a variable.
fn functor(term: &Term) -> Option<(Sym, usize)> {
    match term {
        Term::Var { .. } => None,
        Term::Const { name, .. } => Some((*name, 0)),
        Term::Func { name, args, .. } => Some((*name, args.len())),
    }
}

/// The functors the heads of `producers` give at argument `arg`; `None` when some head has a
/// variable there (anything may be produced).
fn produced(cx: &Context<'_>, producers: &[Sym], arg: usize) -> Option<HashSet<(Sym, usize)>> {
    let mut out = HashSet::new();
    for rule in &cx.program.rules {
        if !producers.contains(&rule.head.name) {
            continue;
        }
        match rule.head.args.get(arg).map(functor) {
            Some(Some(f)) => {
                out.insert(f);
            }
            Some(None) => return None,
            None => {}
        }
    }
    Some(out)
}

/// Runs the checks of this module.
pub(super) fn check(cx: &mut Context<'_>) {
    let state = produced(cx, &[kw::INIT, kw::NEXT], 0);
    let moves = produced(cx, &[kw::LEGAL, kw::INPUT], 1);
    let program = cx.program;
    let mut atoms: Vec<&Atom> = Vec::new();
    for rule in &program.rules {
        rule.body
            .iter()
            .for_each(|l| l.for_each_atom(&mut |a, _| atoms.push(a)));
    }
    let mut reported = HashSet::new();
    for atom in atoms {
        let (known, arg, code, what, producers) = match atom.name {
            kw::TRUE => (
                &state,
                0,
                codes::TRUE_NEVER_HOLDS,
                "state fact",
                "`init` or `next`",
            ),
            kw::DOES => (
                &moves,
                1,
                codes::MOVE_NEVER_LEGAL,
                "move",
                "`legal` or `input`",
            ),
            _ => continue,
        };
        let (Some(known), Some(term)) = (known, atom.args.get(arg)) else {
            continue;
        };
        let Some(f) = functor(term) else { continue };
        if known.contains(&f) || !reported.insert((atom.name, f)) {
            continue;
        }
        let shown = cx.name(f.0).to_string();
        let mut d = Diagnostic::warning(
            code,
            term.span(),
            format!(
                "no {producers} produces `{shown}` (with {} arguments), so this {what} never holds",
                f.1
            ),
        );
        if let Some(s) = suggest(cx, f, known.iter().copied()) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        cx.report(d);
    }
}

/// The name among `candidates` nearest to `target` by edit distance (at most a third of its
/// length, at least 1), preferring the same arity; `None` when none is near.
pub(super) fn suggest(
    cx: &Context<'_>,
    target: (Sym, usize),
    candidates: impl Iterator<Item = (Sym, usize)>,
) -> Option<String> {
    let name = cx.name(target.0);
    let length = name.chars().count();
    let limit = (length / 3).max(1);
    let mut best: Option<(usize, bool, &str)> = None;
    for (s, arity) in candidates.filter(|c| c.0 != target.0) {
        // Past the check's budget, no suggestion (rather than one that may not be nearest).
        let left = cx.comparisons_left.get();
        if left == 0 {
            return None;
        }
        cx.comparisons_left.set(left - 1);
        let other = cx.name(s);
        if other.chars().count().abs_diff(length) > limit {
            continue;
        }
        let d = edit_distance(name, other);
        let found = (d, arity != target.1, other);
        if d <= limit && best.is_none_or(|b| found < b) {
            best = Some(found);
        }
    }
    best.map(|(_, _, s)| s.to_string())
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{GAME, at, with_code};
    use super::edit_distance;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("cel", "cell"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_state_fact_never_produced() {
        let src = format!(
            "{GAME}(init (cell 1 1 b))\n(<= (legal r m) (true (cel 1 1 b)))\n(<= (legal r n) (true (zzz 1)))"
        );
        assert_eq!(at(&src, "true-never-holds"), ["3:23", "4:23"]);
        let d = with_code(&src, "true-never-holds");
        assert!(!d[0].is_error());
        assert_eq!(d[0].notes, ["did you mean `cell`?"]);
        assert!(d[1].notes.is_empty(), "{:?}", d[1].notes);
    }

    #[test]
    fn suggestions_stop_at_the_budget_but_every_finding_is_reported() {
        // 3000 undefined relations, each near a defined one: 9 million comparisons without
        // the budget.
        let n = 3000;
        let mut src = format!("{GAME}(<= (legal r m) (helper 1))\n(<= (helper ?x) (helpr ?x))\n");
        for i in 0..n {
            src.push_str(&format!(
                "(<= (legal r m) (hh{i:04} 1))\n(<= (hh{i:04} ?x) (uu{i:04} ?x))\n"
            ));
        }
        let d = with_code(&src, "undefined-relation");
        assert_eq!(d.len(), n + 1);
        assert_eq!(d[0].notes[1], "did you mean `helper`?");
        let suggested = d.iter().filter(|d| d.notes.len() == 2).count();
        assert!(suggested > 100 && suggested < n / 2, "{suggested}");
    }

    #[test]
    fn a_move_never_legal() {
        let src = format!("{GAME}(legal r (mark 1))\n(<= (next s) (does r (mak 1)))");
        assert_eq!(at(&src, "move-never-legal"), ["3:22"]);
        let d = with_code(&src, "move-never-legal");
        assert_eq!(d[0].notes, ["did you mean `mark`?"]);
    }

    #[test]
    fn a_variable_producer_allows_anything() {
        let src = format!("{GAME}(<= (next ?x) (true ?x))\n(<= (legal r m) (true (cel 1)))");
        assert!(at(&src, "true-never-holds").is_empty());
    }
}
