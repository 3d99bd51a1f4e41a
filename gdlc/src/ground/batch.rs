//! The matches of a rule whose head atoms [`super::instantiate`] looks up together
//! ([`crate::terms::TermStore::get_many`]), and the ground rules made of them within the
//! limits.

use rustc_hash::FxHashSet as HashSet;
use smallvec::SmallVec;

use super::GroundRule;
use super::join::{self, RelKey, rel_key};
use crate::normalize::{NLit, NRule};
use crate::terms::TermId;

/// How many matches `Instantiator::emit_join` collects before it looks up their heads
/// together ([`crate::terms::TermStore::get_many`]).
pub(super) const HEAD_BATCH: usize = 32;

/// The matches of one rule whose head atoms are still to be looked up: the ids of each head's
/// arguments (`width`, the head's arity, each) and the atoms of its dynamic literals.
#[derive(Default)]
pub(super) struct HeadBatch {
    width: usize,
    keys: Vec<TermId>,
    /// Per match: whether its head's arguments are all in the store (else its head is in no
    /// atom), and its literals' atoms (see `instantiate::literal_atoms`).
    matches: Vec<(bool, SmallVec<[Option<TermId>; 8]>)>,
    heads: Vec<Option<TermId>>,
}

impl HeadBatch {
    /// An empty batch of the matches of a rule whose head has `width` arguments.
    pub fn new(width: usize) -> HeadBatch {
        HeadBatch {
            width,
            ..HeadBatch::default()
        }
    }

    pub fn len(&self) -> usize {
        self.matches.len()
    }

    pub fn push(&mut self, m: &join::Match<'_>, lits: SmallVec<[Option<TermId>; 8]>) {
        let mut args = super::pattern::Args::new();
        let found = m.head_args(&mut args);
        if found {
            self.keys.extend_from_slice(&args);
        }
        self.matches.push((found, lits));
    }
}

/// The state of [`Instantiator::emit_join`]: its output, and how far it went.
pub(super) struct Emit<'o> {
    pub out: &'o mut Vec<GroundRule>,
    pub literals: &'o mut usize,
    /// The rules to pause at, and the limits of rules and literals.
    pub limits: (usize, usize, usize),
    pub outcome: Emitted,
    pub batch: HeadBatch,
}

impl Emit<'_> {
    /// How many more matches (of at most `per_match` literals each) may be added before a
    /// limit or the pause could stop the join.
    pub fn room(&self, per_match: usize) -> usize {
        let (pause, max_rules, max_literals) = self.limits;
        let rules = pause.min(max_rules).saturating_sub(self.out.len());
        let literals = max_literals.saturating_sub(*self.literals) / per_match.max(1);
        rules.min(literals)
    }

    /// Adds the ground rules of the matches of the batch, in order, until a limit or the pause
    /// stops them; false when stopped (the rest of the batch is dropped).
    pub fn flush(
        &mut self,
        rule: &NRule,
        store: &crate::terms::TermStore,
        db: &join::Db,
        dynamic: &HashSet<RelKey>,
        guards: &std::collections::HashSet<crate::ast::Sym>,
    ) -> bool {
        let (pause, max_rules, max_literals) = self.limits;
        let batch = &mut self.batch;
        batch.heads.clear();
        if batch.width == 0 {
            let head = store.get(rule.head.rel, &[]);
            batch.heads.extend(batch.keys.iter().map(|_| head));
            batch.heads.resize(batch.matches.len(), head);
        } else {
            store.get_many(rule.head.rel, batch.width, &batch.keys, &mut batch.heads);
        }
        let mut heads = batch.heads.iter();
        let mut going = true;
        for (found, lits) in batch.matches.drain(..) {
            let head = if found {
                heads.next().copied().flatten()
            } else {
                None
            };
            if !going {
                continue;
            }
            let Some(gr) = ground_rule(head, &lits, rule, db, dynamic, guards) else {
                continue;
            };
            *self.literals += gr.pos.len() + gr.neg.len();
            if self.out.len() >= max_rules || *self.literals > max_literals {
                self.outcome = Emitted::Overflow;
                going = false;
                continue;
            }
            if self.out.len() >= pause {
                self.outcome = Emitted::Paused;
                going = false;
                continue;
            }
            self.out.push(gr);
        }
        batch.keys.clear();
        going
    }
}

/// How far [`Instantiator::emit_join`] went.
pub(super) enum Emitted {
    All,
    /// The limits were passed.
    Overflow,
    /// Stopped at the number of rules asked.
    Paused,
}

/// The ground rule of one match of `rule`, from its head atom and the atoms of its dynamic
/// literals (see `instantiate::literal_atoms`); `None` when its head is in no atom, or when it needs an
/// atom both true and false. The negative literals are kept only on atoms that can hold.
pub(super) fn ground_rule(
    head: Option<TermId>,
    lits: &[Option<TermId>],
    rule: &NRule,
    db: &join::Db,
    dynamic: &HashSet<RelKey>,
    guards: &std::collections::HashSet<crate::ast::Sym>,
) -> Option<GroundRule> {
    let head = head?;
    let mut gr = GroundRule {
        head,
        pos: Vec::new(),
        neg: Vec::new(),
        origin: rule.origin,
    };
    for (i, lit) in rule.body.iter().enumerate() {
        match lit {
            NLit::Pos(a) if guards.contains(&a.rel) => {}
            NLit::Pos(a) if dynamic.contains(&rel_key(a)) => {
                if let Some(id) = lits[i] {
                    gr.pos.push(id);
                }
            }
            NLit::Neg(a) if dynamic.contains(&rel_key(a)) => {
                if let Some(id) = lits[i].filter(|&id| db.contains(id)) {
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
        return None;
    }
    Some(gr)
}
