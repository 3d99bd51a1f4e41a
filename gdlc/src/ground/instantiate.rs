//! Instantiation of the dynamic rules over the relaxed atoms, with decomposition of the rules
//! that would make too many instances (see [`super::split`]).

use rustc_hash::FxHashSet as HashSet;

use super::GroundError;
use crate::ast::kw;
use crate::diag::Diagnostic;
use crate::normalize::{NAtom, NLit, NRule};
use crate::terms::TermId;

use super::join::{self, JoinError, JoinRequest, NegMode, RelKey, rel_key};
use super::split::{self, Sizes};
use super::{GroundRule, Grounder, unsafe_rule};

/// How many times one source rule may be split.
const MAX_SPLITS: usize = 12;

/// A rule with more matches than this is split even when its instances merge into few (by
/// their move sets): so many ground rules would cost memory and time.
const SPLIT_MATCHES: usize = 50_000;

/// Instantiates rules one by one into ground rules.
pub struct Instantiator<'g, 'a> {
    g: &'g mut Grounder<'a>,
    out: Vec<GroundRule>,
    literals: usize,
    /// Source rules that were decomposed.
    pub split_rules: usize,
}

impl<'g, 'a> Instantiator<'g, 'a> {
    pub fn new(g: &'g mut Grounder<'a>) -> Self {
        Instantiator {
            g,
            out: Vec::new(),
            literals: 0,
            split_rules: 0,
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
        let threshold = self.g.options.split_threshold;
        let (projected, matches) = self.measure(&rule, threshold * 16, SPLIT_MATCHES)?;
        if splits < MAX_SPLITS && (projected > threshold || matches > SPLIT_MATCHES) {
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
        self.emit(&rule)
    }

    /// The number of instances of the rule counted without their `does` literals (which
    /// code generation merges into move sets), up to `max_projected + 1`, and the number of
    /// matches, up to `max_matches + 1`.
    fn measure(
        &mut self,
        rule: &NRule,
        max_projected: usize,
        max_matches: usize,
    ) -> Result<(usize, usize), GroundError> {
        let counted: Vec<&NAtom> = rule
            .body
            .iter()
            .filter_map(|l| match l {
                NLit::Pos(a) | NLit::Neg(a)
                    if self.g.dynamic.contains(&rel_key(a)) && a.rel != kw::DOES =>
                {
                    Some(a)
                }
                _ => None,
            })
            .collect();
        let mut seen: HashSet<Vec<Option<TermId>>> = HashSet::default();
        let mut matches = 0usize;
        let hi = self.g.db.count();
        let g = &mut *self.g;
        let dynamic = &g.dynamic;
        let neg = |a: &NAtom| {
            if dynamic.contains(&rel_key(a)) {
                NegMode::Assume
            } else {
                NegMode::Exact
            }
        };
        let req = JoinRequest {
            rule,
            delta: None,
            lo: 0,
            hi,
            neg_mode: &neg,
            new_heads_only: false,
        };
        let result = join::for_each_match(&req, &g.db, &g.store, &mut g.budget, &mut |m| {
            matches += 1;
            let mut key = vec![m.atom(&rule.head)];
            key.extend(counted.iter().map(|a| m.atom(a)));
            seen.insert(key);
            seen.len() <= max_projected && matches <= max_matches
        });
        match result {
            Err(JoinError::Unsafe) => Err(GroundError::invalid(vec![unsafe_rule(rule)])),
            Err(JoinError::Budget) => Err(g.exhausted(Some(rule), "instantiating this rule")),
            Err(JoinError::Stopped) | Ok(()) => Ok((seen.len(), matches)),
        }
    }

    /// Adds the atoms of an auxiliary relation to the database (and marks it dynamic if its
    /// body is).
    fn derive_aux(&mut self, aux: &NRule) -> Result<(), GroundError> {
        let rel = rel_key(&aux.head);
        let dynamic = aux.body.iter().any(|l| match l {
            NLit::Pos(a) | NLit::Neg(a) => self.g.dynamic.contains(&rel_key(a)),
            _ => false,
        });
        let mut heads: HashSet<Vec<TermId>> = HashSet::default();
        let hi = self.g.db.count();
        {
            let g = &mut *self.g;
            let dynamic_set = &g.dynamic;
            let neg = |a: &NAtom| {
                if dynamic_set.contains(&rel_key(a)) {
                    NegMode::Assume
                } else {
                    NegMode::Exact
                }
            };
            let req = JoinRequest {
                rule: aux,
                delta: None,
                lo: 0,
                hi,
                neg_mode: &neg,
                new_heads_only: false,
            };
            let max = g.options.max_atoms;
            let result = join::for_each_match(&req, &g.db, &g.store, &mut g.budget, &mut |m| {
                let vals = m.vars();
                let key = aux
                    .head
                    .args
                    .iter()
                    .map(|t| match t {
                        crate::normalize::NTerm::Var(v) => vals[*v as usize].unwrap_or(0),
                        _ => 0,
                    })
                    .collect();
                heads.insert(key);
                heads.len() <= max
            });
            match result {
                Err(JoinError::Unsafe) => return Err(GroundError::invalid(vec![unsafe_rule(aux)])),
                Err(JoinError::Budget) => {
                    return Err(g.exhausted(Some(aux), "instantiating this rule"));
                }
                Err(JoinError::Stopped) | Ok(()) => {}
            }
        }
        if dynamic {
            self.g.dynamic.insert(rel);
        }
        for args in heads {
            let atom = self.g.store.intern(rel.0, &args);
            self.g.db.insert(&self.g.store, rel, atom);
        }
        self.g.check_atoms(aux)
    }

    /// Adds every instance of `rule` to the output.
    fn emit(&mut self, rule: &NRule) -> Result<(), GroundError> {
        let hi = self.g.db.count();
        let max_rules = self.g.options.max_rule_instances;
        let max_literals = self.g.options.max_literals;
        let mut overflow = false;
        let before = self.out.len();
        let Instantiator {
            g, out, literals, ..
        } = self;
        let dynamic = &g.dynamic;
        let guards = &g.guards;
        let neg = |a: &NAtom| {
            if dynamic.contains(&rel_key(a)) {
                NegMode::Assume
            } else {
                NegMode::Exact
            }
        };
        let req = JoinRequest {
            rule,
            delta: None,
            lo: 0,
            hi,
            neg_mode: &neg,
            new_heads_only: false,
        };
        let db = &g.db;
        let result = join::for_each_match(&req, db, &g.store, &mut g.budget, &mut |m| {
            let Some(head) = m.atom(&rule.head) else {
                return true;
            };
            let mut gr = GroundRule {
                head,
                pos: Vec::new(),
                neg: Vec::new(),
                origin: rule.origin,
            };
            for lit in &rule.body {
                match lit {
                    NLit::Pos(a) if guards.contains(&a.rel) => {}
                    NLit::Pos(a) if dynamic.contains(&rel_key(a)) => {
                        if let Some(id) = m.atom(a) {
                            gr.pos.push(id);
                        }
                    }
                    NLit::Neg(a) if dynamic.contains(&rel_key(a)) => {
                        if let Some(id) = m.atom(a).filter(|&id| db.contains(id)) {
                            gr.neg.push(id);
                        }
                    }
                    _ => {}
                }
            }
            gr.pos.sort_unstable();
            gr.pos.dedup();
            gr.neg.sort_unstable();
            gr.neg.dedup();
            if gr.pos.iter().any(|p| gr.neg.binary_search(p).is_ok()) {
                return true;
            }
            *literals += gr.pos.len() + gr.neg.len();
            if out.len() >= max_rules || *literals > max_literals {
                overflow = true;
                return false;
            }
            out.push(gr);
            true
        });
        match result {
            Err(JoinError::Unsafe) => return Err(GroundError::invalid(vec![unsafe_rule(rule)])),
            Err(JoinError::Budget) => {
                return Err(g.exhausted(Some(rule), "instantiating this rule"));
            }
            Err(JoinError::Stopped) | Ok(()) => {}
        }
        if overflow && g.hybrid {
            // Too large to ground: evaluated at run time.
            out.truncate(before);
            *literals = out.iter().map(|r| r.pos.len() + r.neg.len()).sum();
            g.budget.exhausted = None;
            g.join_rules.push(rule.clone());
            return Ok(());
        }
        if overflow {
            let n = out.len() - before;
            return Err(GroundError::too_large(Diagnostic::error(
                "grounding-too-large",
                rule.span,
                format!(
                    "too large to ground: this rule makes more than {n} instances, and the \
                     description more than {} rules or {} literals in all",
                    max_rules, max_literals
                ),
            )));
        }
        Ok(())
    }
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
