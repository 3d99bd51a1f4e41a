//! Rule decomposition for grounding (one step of variable elimination).
//!
//! A rule's ground instances are the combinations of the values of all its variables. When a
//! group of variables that the head does not mention occurs only in part of the body, that part
//! can be evaluated on its own and projected onto the variables it shares with the rest: an
//! auxiliary relation. `(<= (h ?k ?m ?n) (t ?e) (c ?e ?m ?n) (s ?k))` becomes
//! `(<= (aux ?m ?n) (t ?e) (c ?e ?m ?n))` and `(<= (h ?k ?m ?n) (aux ?m ?n) (s ?k))`: the
//! instances go from `|e|·|k|·|m·n|` to `|e|·|m·n| + |k|·|m·n|`. The meaning is unchanged: the
//! auxiliary holds exactly when some values of the eliminated variables satisfy its part.
//!
//! [`eliminate`] makes one such step, choosing the variables whose auxiliary relation is
//! estimated smallest; the grounder repeats it while a rule stays too large.

use crate::ast::{Sym, kw};
use crate::normalize::{NAtom, NLit, NRule, NTerm};

/// A rule split in two.
#[derive(Clone, Debug)]
pub struct Split {
    /// The auxiliary rule: the eliminated part of the body, projected on the variables the
    /// rest shares with it.
    pub aux: NRule,
    /// The original head over the rest of the body and the auxiliary atom.
    pub residual: NRule,
}

/// Estimates of the sizes the choice of a split depends on.
pub trait Sizes {
    /// The number of distinct values variable `var` takes in the atoms that positive literal
    /// `lit` of the rule matches.
    fn values(&mut self, lit: usize, var: u32) -> u64;
    /// The number of atoms positive literal `lit` matches.
    fn atoms(&mut self, lit: usize) -> u64;
    /// Whether literal `lit` reads a static relation (or is a `distinct` or an equality):
    /// such filters cost nothing once ground and are copied into auxiliary rules.
    fn is_static(&mut self, lit: usize) -> bool;
}

fn lit_vars(l: &NLit) -> Vec<u32> {
    let mut v = Vec::new();
    l.for_each_var(&mut |x| {
        if !v.contains(&x) {
            v.push(x)
        }
    });
    v
}

/// Whether `rule` has a variable that its head does not read (else nothing can be split).
pub fn splittable(rule: &NRule) -> bool {
    let mut head = Vec::new();
    rule.head.for_each_var(&mut |v| head.push(v));
    let mut found = false;
    for l in &rule.body {
        l.for_each_var(&mut |v| found |= !head.contains(&v));
    }
    found
}

/// One step of variable elimination on `rule`, naming the auxiliary relation `aux_rel`;
/// `None` when no variable group can be eliminated without taking the whole body, or when
/// the auxiliary relation is estimated to have `limit` atoms or more.
///
/// The variables that a `does` literal shares with the rest of the body (the move's
/// arguments and what constrains them) are eliminated first and together: their auxiliary
/// relation is a set of moves per binding of the others, which code generation keeps as a
/// move set rather than as one rule per move.
pub fn eliminate(rule: &NRule, aux_rel: Sym, sizes: &mut dyn Sizes, limit: u64) -> Option<Split> {
    let n = rule.body.len();
    let vars: Vec<Vec<u32>> = rule.body.iter().map(lit_vars).collect();
    let mut head_vars = Vec::new();
    rule.head.for_each_var(&mut |v| head_vars.push(v));
    let positive = |i: usize| matches!(rule.body[i], NLit::Pos(_));
    // Groups of non-head variables with the same occurrences.
    let mut groups: Vec<(Vec<usize>, Vec<u32>)> = Vec::new();
    for v in 0..rule.var_names.len() as u32 {
        if head_vars.contains(&v) {
            continue;
        }
        let occ: Vec<usize> = (0..n).filter(|&i| vars[i].contains(&v)).collect();
        if occ.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == occ) {
            Some(g) => g.1.push(v),
            None => groups.push((occ, vec![v])),
        }
    }
    // The non-head variables connected to a `does` literal through non-head variables.
    let mut preferred: Option<Vec<usize>> = None;
    if let Some(d) = (0..n).find(|&i| matches!(&rule.body[i], NLit::Pos(a) if a.rel == kw::DOES)) {
        let mut vs: Vec<u32> = vars[d]
            .iter()
            .copied()
            .filter(|v| !head_vars.contains(v))
            .collect();
        let mut k = 0;
        while k < vs.len() {
            for vi in &vars {
                if vi.contains(&vs[k]) {
                    for &u in vi {
                        if !head_vars.contains(&u) && !vs.contains(&u) {
                            vs.push(u);
                        }
                    }
                }
            }
            k += 1;
        }
        if !vs.is_empty() {
            preferred = Some(
                (0..n)
                    .filter(|&i| vars[i].iter().any(|v| vs.contains(v)))
                    .collect(),
            );
        }
    }
    #[allow(clippy::type_complexity)]
    let mut best: Option<(u64, Vec<bool>, Vec<u32>, Vec<bool>)> = None;
    let candidates: Vec<(Vec<usize>, bool)> = preferred
        .into_iter()
        .map(|o| (o, true))
        .chain(groups.iter().map(|g| (g.0.clone(), false)))
        .collect();
    for (occ, is_preferred) in &candidates {
        let mut in_bucket = vec![false; n];
        for &i in occ {
            in_bucket[i] = true;
        }
        // Safety of the auxiliary rule: every variable of its filters bound by one of its
        // positive literals (borrowed from the rest when needed).
        let ok = loop {
            let bound: Vec<u32> = (0..n)
                .filter(|&i| in_bucket[i] && positive(i))
                .flat_map(|i| vars[i].iter().copied())
                .collect();
            let missing = (0..n)
                .filter(|&i| in_bucket[i] && !positive(i))
                .flat_map(|i| vars[i].iter().copied())
                .find(|v| !bound.contains(v));
            let Some(u) = missing else { break true };
            let binder = (0..n)
                .filter(|&j| !in_bucket[j] && positive(j) && vars[j].contains(&u))
                .min_by_key(|&j| sizes.atoms(j));
            match binder {
                Some(j) => in_bucket[j] = true,
                None => break false,
            }
        };
        if !ok || in_bucket.iter().all(|&b| b) {
            continue;
        }
        // The auxiliary's variables: those of the bucket that the head or the rest reads.
        let mut shared: Vec<u32> = Vec::new();
        for i in (0..n).filter(|&i| in_bucket[i]) {
            for &v in &vars[i] {
                let outside =
                    head_vars.contains(&v) || (0..n).any(|j| !in_bucket[j] && vars[j].contains(&v));
                if outside && !shared.contains(&v) {
                    shared.push(v);
                }
            }
        }
        let mut cost: u64 = 1;
        for &v in &shared {
            let d = (0..n)
                .filter(|&i| in_bucket[i] && positive(i) && vars[i].contains(&v))
                .map(|i| sizes.values(i, v))
                .min()
                .unwrap_or(1);
            cost = cost.saturating_mul(d.max(1));
        }
        // Static filters over the bucket's variables go along (they stay in the rest too).
        let before = in_bucket.clone();
        let bucket_vars: Vec<u32> = (0..n)
            .filter(|&i| in_bucket[i])
            .flat_map(|i| vars[i].iter().copied())
            .collect();
        for i in 0..n {
            if !in_bucket[i]
                && vars[i].iter().all(|v| bucket_vars.contains(v))
                && sizes.is_static(i)
            {
                in_bucket[i] = true;
            }
        }
        let copied: Vec<bool> = (0..n).map(|i| in_bucket[i] && !before[i]).collect();
        if in_bucket.iter().all(|&b| b) {
            // The auxiliary rule would be the whole rule again (with its static filters
            // copied): splitting it would repeat this split forever.
            continue;
        }
        if *is_preferred {
            best = Some((cost, in_bucket, shared, copied));
            break;
        }
        if cost < limit && best.as_ref().is_none_or(|b| cost < b.0) {
            best = Some((cost, in_bucket, shared, copied));
        }
    }
    let (_, in_bucket, shared, copied) = best?;
    let aux_atom = NAtom {
        rel: aux_rel,
        args: shared.iter().map(|&v| NTerm::Var(v)).collect(),
    };
    let aux = NRule {
        head: aux_atom.clone(),
        body: (0..n)
            .filter(|&i| in_bucket[i])
            .map(|i| rule.body[i].clone())
            .collect(),
        var_names: rule.var_names.clone(),
        origin: rule.origin,
        span: rule.span,
    };
    let mut body: Vec<NLit> = vec![NLit::Pos(aux_atom)];
    body.extend(
        (0..n)
            .filter(|&i| !in_bucket[i] || (copied[i] && sizes.is_static(i)))
            .map(|i| rule.body[i].clone()),
    );
    let residual = NRule {
        head: rule.head.clone(),
        body,
        var_names: rule.var_names.clone(),
        origin: rule.origin,
        span: rule.span,
    };
    Some(Split { aux, residual })
}

/// The KIF text of a flat rule (variables are printed by their source names).
pub fn rule_text(symbols: &crate::ast::Symbols, rule: &NRule) -> String {
    fn term(symbols: &crate::ast::Symbols, rule: &NRule, t: &NTerm, out: &mut String) {
        match t {
            NTerm::Var(v) => match rule.var_names.get(*v as usize) {
                Some(s) => out.push_str(symbols.name(*s)),
                None => out.push_str(&format!("?_{v}")),
            },
            NTerm::Const(c) => out.push_str(symbols.name(*c)),
            NTerm::Func(f, args) => {
                out.push('(');
                out.push_str(symbols.name(*f));
                for a in args {
                    out.push(' ');
                    term(symbols, rule, a, out);
                }
                out.push(')');
            }
        }
    }
    let atom = |a: &NAtom, out: &mut String| {
        if a.args.is_empty() {
            out.push_str(symbols.name(a.rel));
            return;
        }
        out.push('(');
        out.push_str(symbols.name(a.rel));
        for t in &a.args {
            out.push(' ');
            term(symbols, rule, t, out);
        }
        out.push(')');
    };
    let mut out = String::from("(<= ");
    atom(&rule.head, &mut out);
    for l in &rule.body {
        out.push(' ');
        match l {
            NLit::Pos(a) => atom(a, &mut out),
            NLit::Neg(a) => {
                out.push_str("(not ");
                atom(a, &mut out);
                out.push(')');
            }
            NLit::Distinct(x, y) | NLit::Equal(x, y) => {
                out.push_str(if matches!(l, NLit::Distinct(..)) {
                    "(distinct "
                } else {
                    "(= "
                });
                term(symbols, rule, x, &mut out);
                out.push(' ');
                term(symbols, rule, y, &mut out);
                out.push(')');
            }
        }
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::{NormalizeOptions, normalize};

    struct Flat;
    impl Sizes for Flat {
        fn values(&mut self, _: usize, _: u32) -> u64 {
            10
        }
        fn atoms(&mut self, _: usize) -> u64 {
            100
        }
        fn is_static(&mut self, _: usize) -> bool {
            false
        }
    }

    /// Sizes under which literal `static_lit` reads a static relation.
    struct OneStatic {
        static_lit: usize,
    }
    impl Sizes for OneStatic {
        fn values(&mut self, _: usize, _: u32) -> u64 {
            10
        }
        fn atoms(&mut self, _: usize) -> u64 {
            100
        }
        fn is_static(&mut self, lit: usize) -> bool {
            lit == self.static_lit
        }
    }

    #[test]
    fn never_splits_off_the_whole_body() {
        // The move's variables reach every literal once the static `istype` goes along: the
        // auxiliary rule would be this rule again, and splitting it again the same.
        let src = "(role r) (<= (next (piece ?p ?x ?y)) (does ?r (move ?t ?x0 ?y0 ?x ?y)) \
                   (true (piece ?p ?x0 ?y0)) (istype ?p ?t))";
        let (p, d) = crate::frontend::Syntax::Kif.parse(src);
        assert!(d.iter().all(|d| !d.is_error()));
        let mut n = normalize(&p, NormalizeOptions::default()).unwrap();
        let aux = n.symbols.intern("aux");
        let rule = n.rules.iter().find(|r| r.body.len() == 3).unwrap();
        let static_lit = rule
            .body
            .iter()
            .position(|l| matches!(l, NLit::Pos(a) if n.symbols.name(a.rel) == "istype"))
            .unwrap();
        let split = eliminate(rule, aux, &mut OneStatic { static_lit }, u64::MAX);
        assert!(
            split
                .as_ref()
                .is_none_or(|s| s.aux.body.len() < rule.body.len()),
            "{split:?}"
        );
    }

    #[test]
    fn eliminates_a_variable_the_head_does_not_read() {
        let src = "(role r) (<= (next (h ?k ?m)) (transfer ?e) (true (c ?e ?m)) (true (s ?k)))";
        let (p, d) = crate::frontend::Syntax::Kif.parse(src);
        assert!(d.iter().all(|d| !d.is_error()));
        let mut n = normalize(&p, NormalizeOptions::default()).unwrap();
        let aux = n.symbols.intern("aux");
        let rule = n.rules.iter().find(|r| r.body.len() == 3).unwrap();
        let s = eliminate(rule, aux, &mut Flat, u64::MAX).unwrap();
        assert_eq!(s.aux.body.len(), 2);
        assert_eq!(s.aux.head.args.len(), 1);
        assert_eq!(s.residual.body.len(), 2);
        // Nothing left to eliminate in the residual.
        assert!(eliminate(&s.residual, aux, &mut Flat, u64::MAX).is_none());
    }
}
