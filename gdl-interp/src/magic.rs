//! The magic-sets rewrite (demand transformation) of normalised rules.
//!
//! Bottom-up evaluation computes every instance of every relation, also instances that no
//! query ever asks for: a relation such as `(exactlyOne ?z ?x1 .. ?x9)` has billions, though the
//! game only ever tests it with every argument bound. The rewrite makes evaluation
//! goal-directed, as a top-down prover is, while staying bottom-up:
//!
//! - each use of a relation is *adorned* with the argument positions bound when it is reached
//!   (body literals are ordered so that state lookups and tables come first);
//! - for an adornment with bound positions, a *demand* relation collects the bound arguments
//!   every caller asks for, and the adorned copy of the relation's rules reads that demand
//!   first (its *guard*);
//! - negated literals are not rewritten (a negation needs every instance): their relations are
//!   computed in full, and demand rules leave negations out, so no demand depends on a
//!   negation and stratification is preserved in all but contrived cases (which the caller
//!   detects and then evaluates the original rules).
//!
//! Relations that do not benefit are left alone: `true`, `does`, relations defined by facts
//! only, and the ones the caller says are cheap to compute in full (`materialized`).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;

use crate::ast::Sym;
use crate::normalize::{GAME_RELATIONS, NAtom, NLit, NProgram, NRule, NTerm};

/// Options of [`magic_sets`].
#[derive(Clone, Debug, Default)]
pub struct MagicOptions {
    /// Relations (name, arity) to compute in full rather than on demand.
    pub materialized: std::collections::HashSet<(Sym, usize)>,
    pub negation: NegationPolicy,
}

/// How negated literals take part in the rewrite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NegationPolicy {
    /// A negated use is demanded like a positive one (with its bound arguments), and demand
    /// rules keep the negations that precede the use. Most selective; on rare programs the
    /// result is not stratified.
    #[default]
    Demand,
    /// A negated use is demanded, but demand rules leave negations out (more demand, fewer
    /// cycles).
    DemandPositive,
    /// A negated relation is computed in full and demand rules leave negations out: the
    /// result is stratified whenever the input is.
    Full,
}

/// The rewritten rules and the names of their demand relations.
#[derive(Clone, Debug)]
pub struct MagicProgram {
    pub program: NProgram,
    /// The demand relations; a rule whose first body literal reads one must evaluate it first.
    pub guards: std::collections::HashSet<Sym>,
    /// The relation of the description (name, arity) each adorned and demand relation is
    /// made from (`clear_row ^bbf` and `clear_row ?bb` from `clear_row/3`), so that what a
    /// grounding finds of them can be told of the description's relations.
    pub sources: std::collections::HashMap<Sym, (Sym, usize)>,
}

impl MagicProgram {
    /// The relation of the description that `rel` (of the rewritten program) is made from.
    pub fn source(&self, rel: (Sym, usize)) -> (Sym, usize) {
        self.sources.get(&rel.0).copied().unwrap_or(rel)
    }
}

type Adornment = Vec<bool>;

struct Rewriter<'a> {
    rules_of: HashMap<(Sym, usize), Vec<&'a NRule>>,
    rewritable: HashSet<(Sym, usize)>,
    symbols: crate::ast::Symbols,
    seen: HashSet<(Sym, usize, Adornment)>,
    queue: VecDeque<(Sym, usize, Adornment)>,
    out: Vec<NRule>,
    guards: std::collections::HashSet<Sym>,
    sources: std::collections::HashMap<Sym, (Sym, usize)>,
    negation: NegationPolicy,
}

/// Rewrites `prog` so that bottom-up evaluation derives only demanded instances.
pub fn magic_sets(prog: &NProgram, options: &MagicOptions) -> MagicProgram {
    let mut rules_of: HashMap<(Sym, usize), Vec<&NRule>> = HashMap::default();
    for r in &prog.rules {
        rules_of
            .entry((r.head.rel, r.head.args.len()))
            .or_default()
            .push(r);
    }
    let rewritable = rules_of
        .iter()
        .filter(|(key, rules)| {
            rules.iter().any(|r| !r.body.is_empty()) && !options.materialized.contains(key)
        })
        .map(|(k, _)| *k)
        .collect();
    let mut w = Rewriter {
        rules_of,
        rewritable,
        symbols: prog.symbols.clone(),
        seen: HashSet::default(),
        queue: VecDeque::new(),
        out: Vec::new(),
        guards: std::collections::HashSet::new(),
        sources: Default::default(),
        negation: options.negation,
    };
    // Relations computed in full keep their rules as they are.
    let mut kept: Vec<&NRule> = prog
        .rules
        .iter()
        .filter(|r| !w.rewritable.contains(&(r.head.rel, r.head.args.len())))
        .collect();
    kept.sort_by_key(|r| r.origin);
    w.out.extend(kept.into_iter().cloned());
    for key in w.rules_of.keys().copied().collect::<Vec<_>>() {
        if GAME_RELATIONS.contains(&key.0) {
            w.demand(key.0, key.1, vec![false; key.1]);
        }
    }
    // Rules of kept relations may read rewritable relations: they ask for them in full.
    for r in w.out.clone() {
        for lit in &r.body {
            if let NLit::Pos(a) | NLit::Neg(a) = lit {
                w.demand(a.rel, a.args.len(), vec![false; a.args.len()]);
            }
        }
    }
    while let Some((rel, arity, adornment)) = w.queue.pop_front() {
        let rules = w.rules_of.get(&(rel, arity)).cloned().unwrap_or_default();
        for rule in rules {
            w.rewrite_rule(rule, &adornment);
        }
    }
    let program = NProgram {
        symbols: w.symbols,
        rules: w.out,
    };
    MagicProgram {
        program,
        guards: w.guards,
        sources: w.sources,
    }
}

fn adornment_text(a: &[bool]) -> String {
    a.iter().map(|&b| if b { 'b' } else { 'f' }).collect()
}

fn term_bound(t: &NTerm, bound: &[bool]) -> bool {
    let mut all = true;
    t.for_each_var(&mut |v| all &= bound[v as usize]);
    all
}

impl Rewriter<'_> {
    /// Queues the adorned copy of a relation, if it is rewritten.
    fn demand(&mut self, rel: Sym, arity: usize, adornment: Adornment) {
        if !self.rewritable.contains(&(rel, arity)) {
            return;
        }
        let key = (rel, arity, adornment);
        if self.seen.insert(key.clone()) {
            self.queue.push_back(key);
        }
    }

    /// The relation an adorned use reads: the original one when nothing is bound.
    fn adorned(&mut self, rel: Sym, adornment: &[bool]) -> Sym {
        if adornment.iter().all(|b| !b) {
            return rel;
        }
        let name = format!("{} ^{}", self.symbols.name(rel), adornment_text(adornment));
        let sym = self.symbols.intern(&name);
        self.sources.insert(sym, (rel, adornment.len()));
        sym
    }

    fn demand_rel(&mut self, rel: Sym, adornment: &[bool]) -> Sym {
        let name = format!("{} ?{}", self.symbols.name(rel), adornment_text(adornment));
        let sym = self.symbols.intern(&name);
        self.guards.insert(sym);
        self.sources.insert(sym, (rel, adornment.len()));
        sym
    }

    fn bound_args(atom: &NAtom, adornment: &[bool]) -> Vec<NTerm> {
        atom.args
            .iter()
            .zip(adornment)
            .filter(|(_, b)| **b)
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// The adorned form of a body sentence reached with `bound` variables after `prefix`;
    /// adds the demand rule that asks for it.
    fn use_of(&mut self, a: &NAtom, bound: &[bool], prefix: &[NLit], rule: &NRule) -> NAtom {
        if !self.rewritable.contains(&(a.rel, a.args.len())) {
            return a.clone();
        }
        let ad: Adornment = a.args.iter().map(|t| term_bound(t, bound)).collect();
        if ad.iter().any(|&b| b) {
            let head = NAtom {
                rel: self.demand_rel(a.rel, &ad),
                args: Self::bound_args(a, &ad),
            };
            self.out.push(NRule {
                head,
                body: prefix.to_vec(),
                var_names: rule.var_names.clone(),
                origin: rule.origin,
                span: rule.span,
            });
        }
        let rel = self.adorned(a.rel, &ad);
        self.demand(a.rel, a.args.len(), ad);
        NAtom {
            rel,
            args: a.args.clone(),
        }
    }

    fn rewrite_rule(&mut self, rule: &NRule, adornment: &[bool]) {
        let mut bound = vec![false; rule.var_names.len()];
        let mut prefix: Vec<NLit> = Vec::new();
        if adornment.iter().any(|&b| b) {
            for (t, _) in rule.head.args.iter().zip(adornment).filter(|(_, b)| **b) {
                t.for_each_var(&mut |v| bound[v as usize] = true);
            }
            let guard = NAtom {
                rel: self.demand_rel(rule.head.rel, adornment),
                args: Self::bound_args(&rule.head, adornment),
            };
            prefix.push(NLit::Pos(guard));
        }
        let mut body = prefix.clone();
        for lit in self.sips_order(&rule.body, &bound) {
            match lit {
                NLit::Pos(a) => {
                    let new = NLit::Pos(self.use_of(a, &bound, &prefix, rule));
                    a.for_each_var(&mut |v| bound[v as usize] = true);
                    prefix.push(new.clone());
                    body.push(new);
                }
                NLit::Neg(a) if self.negation != NegationPolicy::Full => {
                    let new = NLit::Neg(self.use_of(a, &bound, &prefix, rule));
                    if self.negation == NegationPolicy::Demand {
                        prefix.push(new.clone());
                    }
                    body.push(new);
                }
                NLit::Neg(a) => {
                    self.demand(a.rel, a.args.len(), vec![false; a.args.len()]);
                    body.push(lit.clone());
                }
                NLit::Distinct(..) | NLit::Equal(..) => {
                    lit.for_each_var(&mut |v| bound[v as usize] = true);
                    prefix.push(lit.clone());
                    body.push(lit.clone());
                }
            }
        }
        let head = NAtom {
            rel: self.adorned(rule.head.rel, adornment),
            args: rule.head.args.clone(),
        };
        self.out.push(NRule {
            head,
            body,
            var_names: rule.var_names.clone(),
            origin: rule.origin,
            span: rule.span,
        });
    }

    /// The order in which a body passes bindings on: positive literals in the written order,
    /// filters as soon as their variables are bound.
    fn sips_order<'b>(&self, body: &'b [NLit], head_bound: &[bool]) -> Vec<&'b NLit> {
        let mut bound = head_bound.to_vec();
        let mut left: Vec<&NLit> = body.iter().collect();
        let mut order = Vec::with_capacity(body.len());
        while !left.is_empty() {
            let ready = left.iter().position(|l| match l {
                NLit::Neg(_) | NLit::Distinct(..) => {
                    let mut all = true;
                    l.for_each_var(&mut |v| all &= bound[v as usize]);
                    all
                }
                NLit::Equal(a, b) => term_bound(a, &bound) || term_bound(b, &bound),
                NLit::Pos(_) => false,
            });
            if let Some(i) = ready {
                let l = left.remove(i);
                l.for_each_var(&mut |v| bound[v as usize] = true);
                order.push(l);
                continue;
            }
            // Written order: authors order bodies for top-down provers, which pass bindings
            // left to right exactly like this.
            let cost = |l: &NLit| -> u32 {
                if matches!(l, NLit::Pos(_)) {
                    0
                } else {
                    u32::MAX
                }
            };
            let best = (0..left.len()).min_by_key(|&i| cost(left[i]));
            let Some(i) = best else { break };
            if cost(left[i]) == u32::MAX {
                // Only filters whose variables are never bound: keep them, in order.
                order.append(&mut left);
                break;
            }
            let l = left.remove(i);
            l.for_each_var(&mut |v| bound[v as usize] = true);
            order.push(l);
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::{NormalizeOptions, normalize};

    #[test]
    fn bound_uses_get_demand_relations() {
        let src = "(role r) (index 1) (index 2)
            (<= (big ?x ?y) (index ?x) (index ?y))
            (<= (legal r (go ?x)) (true (at ?x)) (big ?x ?x))
            (<= terminal (not (big 1 2)))";
        let (p, d) = crate::parse::parse_kif(src);
        assert!(d.iter().all(|d| !d.is_error()));
        let n = normalize(&p, NormalizeOptions::default()).unwrap();
        let full = MagicOptions {
            negation: NegationPolicy::Full,
            ..MagicOptions::default()
        };
        let m = magic_sets(&n, &full);
        let names: HashSet<&str> = m
            .program
            .rules
            .iter()
            .map(|r| m.program.symbols.name(r.head.rel))
            .collect();
        assert!(names.contains("big ^bb"), "{names:?}");
        assert!(names.contains("big ?bb"));
        // The negated use needs `big` in full.
        assert!(names.contains("big"));
        assert_eq!(m.guards.len(), 1);
    }

    #[test]
    fn adorned_and_demand_relations_tell_their_source() {
        let src = "(role r) (index 1) (index 2)
            (<= (big ?x ?y) (index ?x) (index ?y))
            (<= (legal r (go ?x)) (true (at ?x)) (big ?x ?x))
            (<= terminal (true (at 1)))";
        let (p, d) = crate::parse::parse_kif(src);
        assert!(d.iter().all(|d| !d.is_error()));
        let n = normalize(&p, NormalizeOptions::default()).unwrap();
        let m = magic_sets(&n, &MagicOptions::default());
        let big = m.program.symbols.get("big").expect("big");
        for (name, arity) in [("big ^bb", 2), ("big ?bb", 2)] {
            let sym = m.program.symbols.get(name).expect(name);
            assert_eq!(m.source((sym, arity)), (big, 2), "{name}");
        }
        // A relation of the description is its own source.
        let index = m.program.symbols.get("index").expect("index");
        assert_eq!(m.source((index, 1)), (index, 1));
    }
}
