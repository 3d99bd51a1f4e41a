//! Instantiation of the dynamic rules over the relaxed atoms, with decomposition of the rules
//! that would make too many instances (see [`super::split`]).

use crate::diag::codes;
use rustc_hash::FxHashSet as HashSet;
use smallvec::SmallVec;

use super::GroundError;
use crate::ast::kw;
use crate::diag::Diagnostic;
use crate::normalize::{NAtom, NLit, NRule};
use crate::terms::{TermId, TupleSet};

use super::batch::{Emit, Emitted, HEAD_BATCH, HeadBatch, ground_rule};
use super::join::{self, JoinError, JoinRequest, NegMode, RelKey, rel_key};
use super::split::{self, Sizes};
use super::{GroundRule, Grounder};

/// How many times one source rule may be split.
const MAX_SPLITS: usize = 12;

/// A rule with more matches than this is split even when its instances merge into few (by
/// their move sets): so many ground rules would cost memory and time.
const SPLIT_MATCHES: usize = 50_000;

/// The strides of the samples an estimate tries (see [`join::for_each_sampled_match`]), the
/// next when the join work of one passes [`ESTIMATE_WORK`].
const ESTIMATE_STRIDES: [usize; 2] = [8, 64];

/// The most join work one sample of an estimate may do.
const ESTIMATE_WORK: u64 = 2_000_000;

/// A rule fails on its estimate, before its instances are made, only when the estimate passes
/// what is left of the limits by this factor (the exact count decides nearer the limit).
const ESTIMATE_MARGIN: f64 = 2.0;

/// A rule is estimated (see [`Instantiator::emit`]) once it has made this many instances, or
/// half of what is left of the limit if more (ruleDepthExponential's rules of a million
/// instances, which fit, are then joined once).
const ESTIMATE_AFTER: usize = 100_000;

/// What the joins of this module are for, in the message of an exhausted budget.
const INSTANTIATING: &str = "instantiating this rule";

/// A doomed rule (see `doomed.rs`) estimated to take more than this share of what is
/// left of the limits is left to run time before its instances are made.
const DOOMED_NEAR: f64 = 0.9;

/// A rule's instances and their literals, estimated from a sample of its matches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub instances: f64,
    pub literals: f64,
}

/// Instantiates rules one by one into ground rules.
pub struct Instantiator<'g, 'a> {
    g: &'g mut Grounder<'a>,
    out: Vec<GroundRule>,
    literals: usize,
    /// Source rules that were decomposed.
    pub split_rules: usize,
    /// The last estimate made (see [`Self::estimate`]).
    last_estimate: Option<Estimate>,
    /// The rule of the description being instantiated (the caller's, before any split).
    pub top: Option<NRule>,
    /// Tells whether a rule of the description (`top`) whose instances passed the limits is
    /// doomed (see `doomed.rs`): the plain attempt then goes on as the hybrid one.
    pub doom: Option<&'g Doom<'g>>,
}

/// Tells whether a rule of the description too large is doomed (see [`Instantiator::doom`])
/// and, if so, whether the plain attempt (the grounder given) can go on as the hybrid one:
/// `None` when it is not doomed.
pub type Doom<'f> = dyn Fn(&NRule, &Estimate, &Grounder<'_>) -> Option<bool> + 'f;

impl<'g, 'a> Instantiator<'g, 'a> {
    pub fn new(g: &'g mut Grounder<'a>) -> Self {
        Instantiator {
            g,
            out: Vec::new(),
            literals: 0,
            split_rules: 0,
            last_estimate: None,
            top: None,
            doom: None,
        }
    }

    /// Whether `rel` is a demand relation (see [`Grounder::guards`]).
    pub fn is_guard(&self, rel: crate::ast::Sym) -> bool {
        self.g.guards.contains(&rel)
    }

    /// The ground rules, sorted and without duplicates.
    pub fn finish(self) -> Vec<GroundRule> {
        let mut out = self.out;
        out.sort_unstable_by(|a, b| (a.head, &a.pos, &a.neg).cmp(&(b.head, &b.pos, &b.neg)));
        out.dedup_by(|a, b| a.head == b.head && a.pos == b.pos && a.neg == b.neg);
        out
    }

    /// Instantiates `rule`, split first if it is too large; `splits` counts the splits made
    /// so far of its source rule.
    pub fn rule(&mut self, rule: NRule, splits: usize) -> Result<(), GroundError> {
        let (w0, n0, t0) = (
            self.g.budget.work_left,
            self.out.len(),
            std::time::Instant::now(),
        );
        let r = self.rule_inner(rule.clone(), splits);
        if tracing::enabled!(tracing::Level::DEBUG) {
            tracing::debug!(
                origin = rule.origin,
                splits,
                work = w0 - self.g.budget.work_left,
                instances = self.out.len() - n0,
                elapsed = ?t0.elapsed(),
                rule = %split::rule_text(&self.g.symbols, &rule),
                "instantiated"
            );
        }
        r
    }

    fn rule_inner(&mut self, rule: NRule, splits: usize) -> Result<(), GroundError> {
        if splits >= MAX_SPLITS {
            return self.emit(&rule);
        }
        let threshold = self.g.options.split_threshold;
        let (projected, matches, instances) = self.measure(&rule, threshold, SPLIT_MATCHES)?;
        if projected > threshold || matches > SPLIT_MATCHES {
            let name = format!(
                "{} %{}",
                self.g.symbols.name(rule.head.rel),
                self.g.aux_count
            );
            let aux_rel = self.g.symbols.intern(&name);
            let limit = if matches > SPLIT_MATCHES {
                u64::MAX
            } else {
                projected as u64
            };
            let split = {
                let mut sizes = DbSizes {
                    g: &*self.g,
                    rule: &rule,
                };
                split::eliminate(&rule, aux_rel, &mut sizes, limit)
            };
            if let Some(s) = split {
                self.g.aux_count += 1;
                if splits == 0 {
                    self.split_rules += 1;
                }
                self.derive_aux(&s.aux)?;
                self.rule(s.aux, splits + 1)?;
                return self.rule(s.residual, splits + 1);
            }
        }
        match instances {
            // Every instance was found while measuring.
            Some(instances) => {
                let before = self.out.len();
                for gr in instances {
                    if !self.push(gr) {
                        return self.overflowed(&rule, before, None);
                    }
                }
                Ok(())
            }
            None => self.emit(&rule),
        }
    }

    /// The number of instances of the rule counted without their `does` literals (which
    /// code generation merges into move sets), up to `16 * threshold + 1`, and the number of
    /// matches, up to `max_matches + 1`; with the rule's instances when the join ran to its
    /// end (both numbers within those limits), so that a rule not split is joined once.
    fn measure(
        &mut self,
        rule: &NRule,
        threshold: usize,
        max_matches: usize,
    ) -> Result<(usize, usize, Option<Vec<GroundRule>>), GroundError> {
        let max_projected = threshold * 16;
        let counted: Vec<usize> = rule
            .body
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match l {
                NLit::Pos(a) | NLit::Neg(a)
                    if self.g.dynamic.contains(&rel_key(a)) && a.rel != kw::DOES =>
                {
                    Some(i)
                }
                _ => None,
            })
            .collect();
        let mut instances = Vec::new();
        let mut seen: HashSet<Key> = HashSet::default();
        let mut matches = 0usize;
        let hi = self.g.db.count();
        let g = &mut *self.g;
        let dynamic = &g.dynamic;
        let neg = NegMode::open_in(dynamic);
        let req = JoinRequest::whole(rule, hi, &neg);
        join::prepare(&req, &mut g.db, &g.store);
        let (db, dynamic, guards) = (&g.db, &g.dynamic, &g.guards);
        let result = join::for_each_match(&req, db, &g.store, &mut g.budget, &mut |m| {
            matches += 1;
            let head = m.head();
            let lits = literal_atoms(m, rule, dynamic);
            let mut key: Key = SmallVec::with_capacity(counted.len() + 1);
            key.push(head);
            key.extend(counted.iter().map(|&i| lits[i]));
            seen.insert(key);
            if let Some(gr) = ground_rule(head, &lits, rule, db, dynamic, guards) {
                instances.push(gr);
            }
            seen.len() <= max_projected && matches <= max_matches
        });
        let whole = g.joined(result, rule, INSTANTIATING)?;
        Ok((seen.len(), matches, whole.then_some(instances)))
    }

    /// Adds a ground rule to the output; false (nothing added) when that would pass the
    /// limits of rules or literals.
    fn push(&mut self, gr: GroundRule) -> bool {
        self.literals += gr.pos.len() + gr.neg.len();
        if self.out.len() >= self.g.options.max_rule_instances
            || self.literals > self.g.options.max_literals
        {
            return false;
        }
        self.out.push(gr);
        true
    }

    /// After the instances of `rule` (added from `before` on) passed the limits, or were
    /// `estimated` to pass them by far: with hybrid grounding, the rule is evaluated at run
    /// time instead; else the error.
    fn overflowed(
        &mut self,
        rule: &NRule,
        before: usize,
        estimated: Option<Estimate>,
    ) -> Result<(), GroundError> {
        let made = self.out.len() - before;
        let mut e = estimated.or(self.last_estimate).unwrap_or(Estimate {
            instances: 0.0,
            literals: 0.0,
        });
        e.instances = e.instances.max(made as f64);
        self.doom_switch(&e);
        let g = &mut *self.g;
        if g.hybrid {
            // Too large to ground: evaluated at run time.
            self.out.truncate(before);
            self.literals = self.out.iter().map(|r| r.pos.len() + r.neg.len()).sum();
            g.budget.exhausted = None;
            g.join_rules.push(rule.clone());
            return Ok(());
        }
        let (max_rules, max_literals) = (g.options.max_rule_instances, g.options.max_literals);
        let message = match estimated {
            Some(e) => format!(
                "too large to ground: this rule would make about {:.0} instances of {:.0} \
                 literals (estimated from a sample of its matches), and the description more \
                 than {max_rules} rules or {max_literals} literals in all",
                e.instances, e.literals
            ),
            None => format!(
                "too large to ground: this rule makes more than {} instances, and the \
                 description more than {max_rules} rules or {max_literals} literals in all",
                made
            ),
        };
        Err(GroundError::too_large(Diagnostic::error(
            codes::GROUNDING_TOO_LARGE,
            rule.span,
            message,
        )))
    }

    /// In the plain attempt, when the rule being instantiated (`estimate`: its instances) is
    /// doomed (see `doomed.rs`): marks it so, and goes on as the hybrid attempt when
    /// that would be the same. Returns whether the attempt is hybrid now.
    fn doom_switch(&mut self, estimate: &Estimate) -> bool {
        if self.g.hybrid {
            return true;
        }
        let (Some(top), Some(doom)) = (&self.top, self.doom) else {
            return false;
        };
        let Some(switchable) = doom(top, estimate, self.g) else {
            return false;
        };
        self.g.doomed = Some(top.clone());
        if switchable {
            tracing::debug!(
                rule = %split::rule_text(&self.g.symbols, top),
                "the plain attempt goes on as the hybrid one"
            );
            self.g.hybrid = true;
        }
        self.g.hybrid
    }

    /// The instances of `rule` and their literals, estimated from a sample of its matches
    /// (see [`join::for_each_sampled_match`]); `None` when even the sparsest sample takes more
    /// than [`ESTIMATE_WORK`] (the rule is then joined in full, within the limits).
    fn estimate(&mut self, rule: &NRule) -> Result<Option<Estimate>, GroundError> {
        let hi = self.g.db.count();
        let g = &mut *self.g;
        let dynamic = &g.dynamic;
        let neg = NegMode::open_in(dynamic);
        let req = JoinRequest::whole(rule, hi, &neg);
        join::prepare(&req, &mut g.db, &g.store);
        let (db, dynamic, guards) = (&g.db, &g.dynamic, &g.guards);
        for stride in ESTIMATE_STRIDES {
            let mut estimate = Estimate {
                instances: 0.0,
                literals: 0.0,
            };
            let left = g.budget.work_left;
            let capped = left > ESTIMATE_WORK;
            if capped {
                g.budget.work_left = ESTIMATE_WORK;
            }
            let result =
                join::for_each_sampled_match(&req, db, &g.store, &mut g.budget, stride, &mut |m| {
                    let lits = literal_atoms(m, rule, dynamic);
                    if let Some(gr) = ground_rule(m.head(), &lits, rule, db, dynamic, guards) {
                        estimate.instances += m.weight();
                        estimate.literals += m.weight() * (gr.pos.len() + gr.neg.len()) as f64;
                    }
                    true
                });
            if capped {
                let spent = ESTIMATE_WORK - g.budget.work_left;
                g.budget.work_left = left - spent;
                if result == Err(JoinError::Budget)
                    && g.budget.exhausted == Some(super::join::Exhausted::Work)
                {
                    g.budget.exhausted = None;
                    continue;
                }
            }
            g.joined(result, rule, INSTANTIATING)?;
            return Ok(Some(estimate));
        }
        Ok(None)
    }

    /// Adds the atoms of an auxiliary relation to the database (and marks it dynamic if its
    /// body is).
    fn derive_aux(&mut self, aux: &NRule) -> Result<(), GroundError> {
        let rel = rel_key(&aux.head);
        let dynamic = aux.body.iter().any(|l| match l {
            NLit::Pos(a) | NLit::Neg(a) => self.g.dynamic.contains(&rel_key(a)),
            _ => false,
        });
        let mut heads = TupleSet::new(aux.head.args.len());
        let mut tuple: Vec<TermId> = Vec::with_capacity(aux.head.args.len());
        let hi = self.g.db.count();
        {
            let g = &mut *self.g;
            let dynamic_set = &g.dynamic;
            let neg = NegMode::open_in(dynamic_set);
            let req = JoinRequest::whole(aux, hi, &neg);
            let max = g.options.max_atoms;
            join::prepare(&req, &mut g.db, &g.store);
            let result = join::for_each_match(&req, &g.db, &g.store, &mut g.budget, &mut |m| {
                let vals = m.vars();
                tuple.clear();
                tuple.extend(aux.head.args.iter().map(|t| match t {
                    crate::normalize::NTerm::Var(v) => vals[*v as usize].unwrap_or(0),
                    _ => 0,
                }));
                heads.insert(&tuple);
                heads.len() <= max
            });
            g.joined(result, aux, INSTANTIATING)?;
        }
        if dynamic {
            self.g.dynamic.insert(rel);
        }
        for args in heads.iter() {
            let atom = self.g.store.intern(rel.0, args);
            self.g.db.insert(&self.g.store, rel, atom);
        }
        self.g.check_atoms(aux)
    }

    /// Adds every instance of `rule` to the output (this is called for rules too large to be
    /// counted in full by [`Self::measure`]); a rule with many instances is estimated first,
    /// so that one whose instances would pass the limits by far fails before they are made.
    fn emit(&mut self, rule: &NRule) -> Result<(), GroundError> {
        let max_rules = self.g.options.max_rule_instances;
        let max_literals = self.g.options.max_literals;
        let (before, literals_before) = (self.out.len(), self.literals);
        // A rule with many instances is estimated once it has made half of what is left, and
        // made again from the start if the estimate does not fail it (few rules are so large:
        // the others are joined once).
        let pause = before + (max_rules.saturating_sub(before) / 2).max(ESTIMATE_AFTER);
        match self.emit_join(rule, pause)? {
            Emitted::All => return Ok(()),
            Emitted::Overflow => return self.overflowed(rule, before, None),
            Emitted::Paused => {
                self.out.truncate(before);
                self.literals = literals_before;
            }
        }
        self.last_estimate = self.estimate(rule)?;
        if let Some(e) = self.last_estimate {
            let rules_left = max_rules.saturating_sub(before).max(1) as f64;
            let literals_left = max_literals.saturating_sub(self.literals).max(1) as f64;
            tracing::debug!(
                instances = e.instances,
                literals = e.literals,
                rule = %split::rule_text(&self.g.symbols, rule),
                "estimated"
            );
            if e.instances > ESTIMATE_MARGIN * rules_left
                || e.literals > ESTIMATE_MARGIN * literals_left
            {
                return self.overflowed(rule, before, Some(e));
            }
            // A doomed rule likely to pass the limits: the attempt goes on as the hybrid one
            // now rather than after making its instances (a rule so large makes a ground
            // program too large to compile quickly even when it fits).
            if !self.g.hybrid
                && (e.instances > DOOMED_NEAR * rules_left
                    || e.literals > DOOMED_NEAR * literals_left)
                && self.doom_switch(&e)
            {
                return self.overflowed(rule, before, Some(e));
            }
        }
        match self.emit_join(rule, usize::MAX)? {
            Emitted::Overflow => self.overflowed(rule, before, None),
            Emitted::All | Emitted::Paused => Ok(()),
        }
    }

    /// Adds the instances of `rule` to the output until it holds `pause` rules.
    fn emit_join(&mut self, rule: &NRule, pause: usize) -> Result<Emitted, GroundError> {
        let max_rules = self.g.options.max_rule_instances;
        let max_literals = self.g.options.max_literals;
        let hi = self.g.db.count();
        let Instantiator {
            g, out, literals, ..
        } = self;
        let dynamic = &g.dynamic;
        let neg = NegMode::open_in(dynamic);
        let req = JoinRequest::whole(rule, hi, &neg);
        join::prepare(&req, &mut g.db, &g.store);
        let (db, dynamic, guards, store) = (&g.db, &g.dynamic, &g.guards, &g.store);
        let mut emit = Emit {
            out,
            literals,
            limits: (pause, max_rules, max_literals),
            outcome: Emitted::All,
            batch: HeadBatch::new(rule.head.args.len()),
        };
        let result = join::for_each_match(&req, db, store, &mut g.budget, &mut |m| {
            let lits = literal_atoms(m, rule, dynamic);
            emit.batch.push(m, lits);
            // A match that may be the one the limits stop at is settled at once, so that the
            // join stops where it would without the batch (and spends the same work).
            let room = emit.room(rule.body.len());
            if emit.batch.len() < HEAD_BATCH && emit.batch.len() < room {
                return true;
            }
            emit.flush(rule, store, db, dynamic, guards)
        });
        if matches!(emit.outcome, Emitted::All) {
            emit.flush(rule, store, db, dynamic, guards);
        }
        let outcome = emit.outcome;
        g.joined(result, rule, INSTANTIATING)?;
        Ok(outcome)
    }
}

/// A match's head atom and its atoms of counted literals.
type Key = SmallVec<[Option<TermId>; 8]>;

/// The atoms of the dynamic literals of one match of `rule`, by body literal (`None` for the
/// others, and for atoms that exist nowhere).
fn literal_atoms(
    m: &join::Match<'_>,
    rule: &NRule,
    dynamic: &HashSet<RelKey>,
) -> SmallVec<[Option<TermId>; 8]> {
    rule.body
        .iter()
        .enumerate()
        .map(|(i, l)| match l {
            NLit::Pos(a) | NLit::Neg(a) if dynamic.contains(&rel_key(a)) => m.lit(i),
            _ => None,
        })
        .collect()
}

/// Sizes read from the grounder's database.
pub(super) struct DbSizes<'r, 'g, 'a> {
    pub g: &'g Grounder<'a>,
    pub rule: &'r NRule,
}

impl DbSizes<'_, '_, '_> {
    fn lit_atom(&self, lit: usize) -> Option<(&NAtom, RelKey)> {
        match self.rule.body.get(lit) {
            Some(NLit::Pos(a)) => Some((a, rel_key(a))),
            _ => None,
        }
    }
}

impl Sizes for DbSizes<'_, '_, '_> {
    fn values(&mut self, lit: usize, var: u32) -> u64 {
        let Some((a, rel)) = self.lit_atom(lit) else {
            return u64::MAX;
        };
        // A variable that is an argument itself: the database counts those.
        if let Some(pos) = a
            .args
            .iter()
            .position(|t| *t == crate::normalize::NTerm::Var(var))
        {
            return u64::from(self.g.db.distinct_args(rel, pos as u32));
        }
        let mut seen = HashSet::default();
        for &atom in self.g.db.atoms(rel).iter().take(100_000) {
            if let Some(v) = join::value_of(a, atom, var, &self.g.store) {
                seen.insert(v);
            }
        }
        seen.len() as u64
    }

    fn atoms(&mut self, lit: usize) -> u64 {
        self.lit_atom(lit)
            .map_or(u64::MAX, |(_, rel)| self.g.db.atoms(rel).len() as u64)
    }

    fn is_static(&mut self, lit: usize) -> bool {
        match self.rule.body.get(lit) {
            Some(NLit::Pos(a) | NLit::Neg(a)) => !self.g.dynamic.contains(&rel_key(a)),
            Some(NLit::Distinct(..) | NLit::Equal(..)) => true,
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ground::join::{self, Budget, Db, JoinRequest, NegMode, rel_key};
    use crate::ground::{GroundOptions, Grounder};
    use crate::normalize::NAtom;
    use crate::terms::TermStore;

    #[test]
    fn batched_heads_stop_the_join_at_the_match_past_the_limit() {
        // `h` joins two scans of `a`: 400 matches, each head interned; at most 37 rules.
        let mut text = String::from(
            "(role p) (init (c 0)) (<= (legal p go) (true (c 0))) (<= terminal (true (c 0))) \
             (goal p 100) (<= (h ?x ?y) (a ?x) (a ?y)) (<= (next (c 0)) (h 1 2))",
        );
        for i in 0..20 {
            text.push_str(&format!(" (a {i})"));
        }
        let nprog = crate::ground::test_support::normalised(&text);
        let rule = nprog
            .rules
            .iter()
            .find(|r| nprog.symbols.name(r.head.rel) == "h")
            .expect("the rule of h")
            .clone();
        let crate::normalize::NLit::Pos(a) = &rule.body[0] else {
            panic!("a positive literal")
        };
        let options = GroundOptions {
            max_rule_instances: 37,
            ..GroundOptions::default()
        };
        let mut g = Grounder::new(&options, nprog.symbols.clone(), Budget::new(1 << 40, None));
        let c: Vec<u32> = (0..20)
            .map(|i| {
                let c = g
                    .store
                    .intern(g.symbols.get(&i.to_string()).expect("a number"), &[]);
                let atom = g.store.intern(a.rel, &[c]);
                g.db.insert(&g.store, rel_key(a), atom);
                c
            })
            .collect();
        for &x in &c {
            for &y in &c {
                g.store.intern(rule.head.rel, &[x, y]);
            }
        }
        // The work of the same join stopped at its 38th match, one by one.
        let neg = |_: &NAtom| NegMode::Exact;
        let req = JoinRequest::whole(&rule, g.db.count(), &neg);
        let mut budget = Budget::new(1 << 40, None);
        let mut matches = 0;
        let _ = join::for_each_match(&req, &g.db, &g.store, &mut budget, &mut |m| {
            assert!(m.head().is_some());
            matches += 1;
            matches < 38
        });
        let mut inst = super::Instantiator::new(&mut g);
        let error = inst.emit(&rule).expect_err("past the limit");
        assert!(
            error.summary().contains("more than 37 instances"),
            "{}",
            error.summary()
        );
        assert_eq!(inst.out.len(), 37);
        let heads: std::collections::HashSet<u32> = inst.out.iter().map(|r| r.head).collect();
        assert_eq!(heads.len(), 37);
        assert_eq!(
            inst.g.budget.work_left, budget.work_left,
            "the batched join did other work"
        );
    }

    #[test]
    fn a_sampled_join_estimates_its_matches_from_a_small_part_of_its_work() {
        // `h` joins three scans of `a`, 100 atoms each: a million matches.
        let mut text = String::from(
            "(role p) (init (c 0)) (<= (legal p go) (true (c 0))) (<= terminal (true (c 0))) \
             (goal p 100) (<= (h ?x ?y ?z) (a ?x) (a ?y) (a ?z)) (<= (next (c 0)) (h 1 2 3))",
        );
        for i in 0..100 {
            text.push_str(&format!(" (a {i})"));
        }
        let nprog = crate::ground::test_support::normalised(&text);
        let symbols = &nprog.symbols;
        let rule = nprog
            .rules
            .iter()
            .find(|r| symbols.name(r.head.rel) == "h")
            .expect("the rule of h");
        let crate::normalize::NLit::Pos(a) = &rule.body[0] else {
            panic!("a positive literal")
        };
        let (mut store, mut db) = (TermStore::default(), Db::default());
        for i in 0..100 {
            let c = store.intern(symbols.get(&i.to_string()).expect("a number"), &[]);
            let atom = store.intern(a.rel, &[c]);
            db.insert(&store, rel_key(a), atom);
        }
        let neg = |_: &NAtom| NegMode::Exact;
        let req = JoinRequest {
            rule,
            delta: None,
            lo: 0,
            hi: db.count(),
            neg_mode: &neg,
            new_heads_only: false,
        };
        let count = |stride: usize| {
            let mut budget = Budget::new(u64::MAX, None);
            let mut weight = 0.0;
            join::for_each_sampled_match(&req, &db, &store, &mut budget, stride, &mut |m| {
                weight += m.weight();
                true
            })
            .expect("joins");
            (weight, u64::MAX - budget.work_left)
        };
        let (all, full_work) = count(1);
        assert_eq!(all, 1_000_000.0);
        let (estimate, work) = count(8);
        assert!((estimate - all).abs() < 0.01 * all, "{estimate}");
        assert!(work * 100 < full_work, "{work} of {full_work}");
    }
}
