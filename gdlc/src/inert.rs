//! Inert argument positions: an argument of a relation whose value only has to lie in a fixed
//! domain of facts is dropped before grounding (the compiler's path only, before
//! [`crate::project`]).
//!
//! ruleDepthExponential defines `(prereq20 ?b19 .. ?b0)` from twenty `(bit ?bk)` and a state
//! bit, and each `prereqk` from `prereqk+1` with one more argument `0` or `1`: grounded as
//! written, that is 2,097,152 atoms and 3 million ground rules, which the optimiser then
//! merges into 20 props, since `(prereqk ..)` holds for every value of its bits or for none.
//! Here each argument position `i` of a relation `p` is *inert* when, in every rule for `p`,
//! the head's argument `i` is a variable `?v` (once in the head) that the body reads only in
//! literals of a relation of facts alone whose only variable is `?v` (`(bit ?v)`: its domain)
//! and at inert positions of other positive literals, and the domain so read (its own
//! literals and those of the inert positions it is passed to) is the same in every rule; and
//! `p` is read nowhere negatively, and reads the state (a static relation is computed
//! once, exactly, and is no part of the circuit). Then `(p .. x ..)` holds exactly when `x` is in the domain
//! and `(p' ..)` holds, `p'` being `p` without the position and its rules without the
//! domain's literals: a literal that reads `p` reads `p'` and tests its term at the position
//! against the domain (`(prereq2 ?b0 0)` in a rule of `prereq1` becomes `(prereq2 ~2)
//! (bit 0)`: `?b0` is dropped there too). Relations of the game (`legal`, `next`, ..) keep
//! every position.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ast::{Sym, kw};
use crate::normalize::{NAtom, NLit, NProgram, NRule, NTerm};

/// A relation: name and arity.
type Rel = (Sym, usize);

/// An argument position of a relation.
type Pos = (Rel, usize);

/// The domain of each inert position: its literals, with the position's variable as `?0`.
type Domains = HashMap<Pos, Vec<NAtom>>;

fn rel(a: &NAtom) -> Rel {
    (a.rel, a.args.len())
}

fn is_game_relation(s: Sym) -> bool {
    (s.0 as usize) < kw::NAMES.len()
}

/// `nprog` with the inert positions of its relations dropped (see the module), or `None`
/// when it has none.
pub fn drop_inert(nprog: &NProgram) -> Option<NProgram> {
    let facts: HashSet<Rel> = {
        let mut with_body = HashSet::default();
        let mut all = HashSet::default();
        for r in &nprog.rules {
            all.insert(rel(&r.head));
            if !r.body.is_empty() {
                with_body.insert(rel(&r.head));
            }
        }
        all.difference(&with_body).copied().collect()
    };
    let (positions, domains) = inert_positions(nprog, &facts)?;
    let mut out = NProgram {
        symbols: nprog.symbols.clone(),
        rules: Vec::with_capacity(nprog.rules.len()),
    };
    // The relation each relation with inert positions becomes, and its kept positions.
    let mut renamed: HashMap<Rel, (Sym, Vec<usize>)> = HashMap::default();
    let mut names: Vec<(Rel, Sym)> = Vec::new();
    for r in &nprog.rules {
        let p = rel(&r.head);
        if renamed.contains_key(&p) || !(0..p.1).any(|i| positions.contains(&(p, i))) {
            continue;
        }
        let name = format!("{} ~{}", nprog.symbols.name(p.0), p.1);
        let sym = out.symbols.intern(&name);
        let kept = (0..p.1).filter(|&i| !positions.contains(&(p, i))).collect();
        renamed.insert(p, (sym, kept));
        names.push((p, sym));
    }
    tracing::debug!(
        relations = ?names
            .iter()
            .map(|(p, s)| format!("{}/{} -> {}", nprog.symbols.name(p.0), p.1, out.symbols.name(*s)))
            .collect::<Vec<_>>(),
        "inert argument positions dropped"
    );
    for r in &nprog.rules {
        out.rules
            .push(rewrite(r, &renamed, &positions, &domains, &facts));
    }
    Some(out)
}

/// The inert positions of `nprog`'s relations and the domain of each (its literals, with the
/// position's variable as `?0`): the greatest set of positions that pass the tests of the
/// module, each with the domain read in its rules.
fn inert_positions(nprog: &NProgram, facts: &HashSet<Rel>) -> Option<(HashSet<Pos>, Domains)> {
    let mut negated: HashSet<Rel> = HashSet::default();
    for r in &nprog.rules {
        for l in &r.body {
            if let NLit::Neg(a) = l {
                negated.insert(rel(a));
            }
        }
    }
    let dynamic = dynamic_relations(nprog);
    // Candidates: the head's argument is a variable once in the head, in every rule.
    let mut bad: HashSet<Pos> = HashSet::default();
    let mut inert: HashSet<Pos> = HashSet::default();
    for r in &nprog.rules {
        let p = rel(&r.head);
        if is_game_relation(p.0)
            || facts.contains(&p)
            || negated.contains(&p)
            || !dynamic.contains(&p)
        {
            continue;
        }
        for i in 0..p.1 {
            if head_var(r, i).is_some() {
                inert.insert((p, i));
            } else {
                bad.insert((p, i));
            }
        }
    }
    inert.retain(|k| !bad.contains(k));
    loop {
        // Each occurrence of the variable in the body a domain literal or an inert position.
        let before = inert.len();
        for (r, pos, v) in heads(&nprog.rules, &inert) {
            if !reads_ok(r, v, &inert, facts) {
                inert.remove(&pos);
            }
        }
        if inert.len() != before {
            continue;
        }
        // The domains: the least sets that hold every rule's, then every rule's must be its
        // position's.
        let mut domains: Domains = inert.iter().map(|&k| (k, Vec::new())).collect();
        loop {
            let mut grew = false;
            for (r, pos, v) in heads(&nprog.rules, &inert) {
                for d in domain_of(r, v, &domains, facts) {
                    let set = domains.entry(pos).or_default();
                    if !set.contains(&d) {
                        set.push(d);
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        for (r, pos, v) in heads(&nprog.rules, &inert) {
            let own = domain_of(r, v, &domains, facts);
            let all = domains.get(&pos).map_or(&[][..], Vec::as_slice);
            if all.is_empty() || own.len() != all.len() || !all.iter().all(|d| own.contains(d)) {
                inert.remove(&pos);
            }
        }
        if inert.len() == before {
            if inert.is_empty() {
                return None;
            }
            domains.retain(|k, _| inert.contains(k));
            return Some((inert, domains));
        }
    }
}

/// The relations that read the state or the moves (`true`, `does`), at any depth. Only
/// their positions may be inert: a static relation is computed once, exactly, and its atoms
/// are not rules of the circuit (the modules of the games whose static relations have such
/// positions, `(<= (cell ?x ?y) (index ?x) (index ?y))`, are left as they were).
fn dynamic_relations(nprog: &NProgram) -> HashSet<Rel> {
    let mut dynamic: HashSet<Rel> = HashSet::default();
    loop {
        let before = dynamic.len();
        for r in &nprog.rules {
            let reads = r.body.iter().any(|l| match l {
                NLit::Pos(a) | NLit::Neg(a) => {
                    a.rel == kw::TRUE || a.rel == kw::DOES || dynamic.contains(&rel(a))
                }
                _ => false,
            });
            if reads {
                dynamic.insert(rel(&r.head));
            }
        }
        if dynamic.len() == before {
            return dynamic;
        }
    }
}

/// The variable that is argument `i` of `rule`'s head, when it occurs nowhere else in the head.
/// Each rule's inert positions (of `inert`) with the head's variable there, collected so
/// that the caller may change `inert` as it goes.
fn heads<'r>(rules: &'r [NRule], inert: &HashSet<Pos>) -> Vec<(&'r NRule, Pos, u32)> {
    let mut out = Vec::new();
    for r in rules {
        let p = rel(&r.head);
        for i in 0..p.1 {
            if inert.contains(&(p, i)) {
                if let Some(v) = head_var(r, i) {
                    out.push((r, (p, i), v));
                }
            }
        }
    }
    out
}

fn head_var(rule: &NRule, i: usize) -> Option<u32> {
    let NTerm::Var(v) = rule.head.args[i] else {
        return None;
    };
    let mut count = 0;
    rule.head
        .for_each_var(&mut |w| count += usize::from(w == v));
    (count == 1).then_some(v)
}

/// Whether a literal of `rule` is a domain literal: a relation of facts, whose only
/// variable is `v`.
fn is_domain(a: &NAtom, v: u32, facts: &HashSet<Rel>) -> bool {
    let mut only_v = true;
    let mut has_v = false;
    a.for_each_var(&mut |w| {
        only_v &= w == v;
        has_v |= w == v;
    });
    has_v && only_v && facts.contains(&rel(a))
}

/// Whether `rule`'s body reads variable `v` only in domain literals and at inert positions.
fn reads_ok(rule: &NRule, v: u32, inert: &HashSet<Pos>, facts: &HashSet<Rel>) -> bool {
    rule.body.iter().all(|l| match l {
        NLit::Pos(a) if is_domain(a, v, facts) => true,
        NLit::Pos(a) => a.args.iter().enumerate().all(|(j, t)| {
            let mut has = false;
            t.for_each_var(&mut |w| has |= w == v);
            !has || (*t == NTerm::Var(v) && inert.contains(&(rel(a), j)))
        }),
        other => {
            let mut has = false;
            other.for_each_var(&mut |w| has |= w == v);
            !has
        }
    })
}

/// The domain `rule` gives variable `v`: its domain literals (with `v` as `?0`) and the
/// domains of the inert positions it is passed to, in order of first occurrence.
fn domain_of(rule: &NRule, v: u32, domains: &Domains, facts: &HashSet<Rel>) -> Vec<NAtom> {
    let mut out: Vec<NAtom> = Vec::new();
    let mut add = |d: NAtom| {
        if !out.contains(&d) {
            out.push(d);
        }
    };
    for l in &rule.body {
        let NLit::Pos(a) = l else { continue };
        if is_domain(a, v, facts) {
            add(substitute_atom(a, &|w| {
                if w == v { NTerm::Var(0) } else { NTerm::Var(w) }
            }));
            continue;
        }
        for (j, t) in a.args.iter().enumerate() {
            if *t == NTerm::Var(v)
                && let Some(d) = domains.get(&(rel(a), j))
            {
                d.iter().cloned().for_each(&mut add);
            }
        }
    }
    out
}

fn substitute(t: &NTerm, f: &dyn Fn(u32) -> NTerm) -> NTerm {
    match t {
        NTerm::Var(v) => f(*v),
        NTerm::Const(c) => NTerm::Const(*c),
        NTerm::Func(g, args) => NTerm::Func(*g, args.iter().map(|a| substitute(a, f)).collect()),
    }
}

fn substitute_atom(a: &NAtom, f: &dyn Fn(u32) -> NTerm) -> NAtom {
    NAtom {
        rel: a.rel,
        args: a.args.iter().map(|t| substitute(t, f)).collect(),
    }
}

/// `rule` with the inert positions of its head and of its literals dropped.
fn rewrite(
    rule: &NRule,
    renamed: &HashMap<Rel, (Sym, Vec<usize>)>,
    inert: &HashSet<Pos>,
    domains: &Domains,
    facts: &HashSet<Rel>,
) -> NRule {
    let reads_inert = |a: &NAtom| renamed.contains_key(&rel(a));
    let touched = reads_inert(&rule.head)
        || rule
            .body
            .iter()
            .any(|l| matches!(l, NLit::Pos(a) if reads_inert(a)));
    if !touched {
        return rule.clone();
    }
    let reduce = |a: &NAtom| match renamed.get(&rel(a)) {
        Some((sym, kept)) => NAtom {
            rel: *sym,
            args: kept.iter().map(|&i| a.args[i].clone()).collect(),
        },
        None => a.clone(),
    };
    // The head's variables at inert positions: dropped with their domain literals.
    let p = rel(&rule.head);
    let dropped: Vec<u32> = (0..p.1)
        .filter(|&i| inert.contains(&(p, i)))
        .filter_map(|i| head_var(rule, i))
        .collect();
    let mut body: Vec<NLit> = Vec::with_capacity(rule.body.len());
    let push = |l: NLit, body: &mut Vec<NLit>| {
        if !body.contains(&l) {
            body.push(l);
        }
    };
    for l in &rule.body {
        match l {
            NLit::Pos(a) if dropped.iter().any(|&v| is_domain(a, v, facts)) => {}
            NLit::Pos(a) if reads_inert(a) => {
                push(NLit::Pos(reduce(a)), &mut body);
                for (j, t) in a.args.iter().enumerate() {
                    let Some(domain) = domains.get(&(rel(a), j)) else {
                        continue;
                    };
                    if matches!(t, NTerm::Var(v) if dropped.contains(v)) {
                        continue;
                    }
                    for d in domain {
                        let d = substitute_atom(d, &|_| t.clone());
                        push(NLit::Pos(d), &mut body);
                    }
                }
            }
            other => push(other.clone(), &mut body),
        }
    }
    renumber(NRule {
        head: reduce(&rule.head),
        body,
        var_names: rule.var_names.clone(),
        origin: rule.origin,
        span: rule.span,
    })
}

/// `rule` with its variables numbered again from 0, in order of first occurrence (head,
/// then body), so that those dropped leave no gaps.
fn renumber(rule: NRule) -> NRule {
    let mut order: Vec<u32> = Vec::new();
    let mut see = |v: u32| {
        if !order.contains(&v) {
            order.push(v);
        }
    };
    rule.head.for_each_var(&mut see);
    rule.body.iter().for_each(|l| l.for_each_var(&mut see));
    let map = |v: u32| NTerm::Var(order.iter().position(|&w| w == v).unwrap_or(0) as u32);
    let lit = |l: &NLit| match l {
        NLit::Pos(a) => NLit::Pos(substitute_atom(a, &map)),
        NLit::Neg(a) => NLit::Neg(substitute_atom(a, &map)),
        NLit::Distinct(x, y) => NLit::Distinct(substitute(x, &map), substitute(y, &map)),
        NLit::Equal(x, y) => NLit::Equal(substitute(x, &map), substitute(y, &map)),
    };
    NRule {
        head: substitute_atom(&rule.head, &map),
        body: rule.body.iter().map(lit).collect(),
        var_names: order.iter().map(|&v| rule.var_names[v as usize]).collect(),
        origin: rule.origin,
        span: rule.span,
    }
}

#[cfg(test)]
#[path = "inert_tests.rs"]
mod tests;
