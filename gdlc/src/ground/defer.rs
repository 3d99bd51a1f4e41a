//! Hybrid grounding's deferred relations: which dynamic relations are *deferred* (asked at run
//! time by the joins that read them, see [`super::hybrid`]); the attempts made again with more
//! of them deferred are `super::ground_hybrid`'s.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::Grounder;
use super::join::{RelKey, rel_key};
use super::{fixpoint, is_game_output};
use crate::ast::kw;
use crate::normalize::{NLit, NRule};

/// A dynamic relation with more than this share of the atom limit when an attempt fails on
/// it is deferred to run time by the hybrid attempt (chess's `clear_row_ig` and the other
/// relations "can this piece reach that square, ignoring this one" have 262,144 each).
pub(super) const LARGE_DYNAMIC_SHARE: usize = 32;

/// A dynamic relation that a relation too large reads (through rules, at any depth) and that
/// has more than this share of the atom limit when the attempt fails is deferred from the start
/// of the hybrid attempt too. The failed attempt stopped before its fixpoint was done, so such a
/// relation was still growing: chess's `rook_move_ig` and `bishop_move_ig` ("can this piece reach
/// that square, ignoring this one", 114,688 and 50,176 atoms when the plain attempt stops at
/// `threatened_with_capture`, 160,032 and 140,300 when hybrid attempts stop at them one by one).
pub(super) const READ_SHARE: usize = 128;

/// The dynamic relations that the relations `large` read, at any depth, with more than a
/// [`READ_SHARE`] of the atom limit in `g`'s database (not `large` themselves, nor game
/// relations, `true`, `does` or auxiliary relations), sorted.
pub(super) fn large_reads(g: &Grounder<'_>, rules: &[&NRule], large: &[RelKey]) -> Vec<RelKey> {
    let mut reads: HashMap<RelKey, Vec<RelKey>> = HashMap::default();
    for r in rules {
        let body = reads.entry(rel_key(&r.head)).or_default();
        for l in &r.body {
            if let NLit::Pos(a) | NLit::Neg(a) = l {
                body.push(rel_key(a));
            }
        }
    }
    let mut seen: HashSet<RelKey> = large.iter().copied().collect();
    let mut stack: Vec<RelKey> = large.to_vec();
    while let Some(rel) = stack.pop() {
        for &r in reads.get(&rel).into_iter().flatten() {
            if seen.insert(r) {
                stack.push(r);
            }
        }
    }
    let min = g.options.max_atoms / READ_SHARE;
    let mut out: Vec<RelKey> = seen
        .into_iter()
        .filter(|&r| {
            !large.contains(&r)
                && g.dynamic.contains(&r)
                && g.lazy_candidates.contains(&r)
                && !is_game_output(r.0)
                && r != (kw::TRUE, 1)
                && r != (kw::DOES, 2)
                && g.db.atoms(r).len() > min
        })
        .collect();
    out.sort_unstable();
    out
}

/// Makes the deferred relations lazy (see [`ground_hybrid`]): their rules leave `rules`, to
/// be run at run time by the joins that read them. A deferred relation takes the relations of
/// its recursive component with it (a lazy relation reads no join's outputs, which would be
/// computed from it); recursion is fine at run time, where a call's goal that is already
/// being proved fails (see `gdl_propnet::join`). A component with a relation the
/// game reads stays as it is.
pub(super) fn defer_relations(g: &mut Grounder<'_>, rules: &mut Vec<NRule>) {
    if !g.hybrid || g.deferred.is_empty() {
        return;
    }
    let refs: Vec<&NRule> = rules.iter().collect();
    let components = match fixpoint::static_components(&refs) {
        Ok(components) => components,
        // A description stratified only by rule instance (a relation that depends on its own
        // negation through arguments that decrease) has no components to defer by: the attempt
        // goes on with no relation deferred.
        Err(e) => {
            debug_assert!(
                e.kind == super::GroundErrorKind::NegativeCycle,
                "static_components fails only on a negative cycle: {}",
                e.summary()
            );
            tracing::warn!(
                error = %e.summary(),
                "hybrid grounding defers no relation: the dynamic rules are not stratified by relation"
            );
            return;
        }
    };
    let comps: Vec<HashSet<RelKey>> = components
        .iter()
        .map(|c| c.iter().map(|r| rel_key(&r.head)).collect())
        .collect();
    let movable = |rels: &HashSet<RelKey>| !rels.iter().any(|r| is_game_output(r.0));
    let mut deferred: HashSet<RelKey> = HashSet::default();
    for rels in &comps {
        if rels.iter().any(|r| g.deferred.contains(r)) && movable(rels) {
            deferred.extend(rels.iter().copied());
        }
    }
    // A component that only deferred relations read is asked by them alone: deferred too
    // (chess's `clear_row_ig`, read only by `rook_move_ig`).
    loop {
        let before = deferred.len();
        for rels in &comps {
            if rels.is_subset(&deferred) || !movable(rels) {
                continue;
            }
            let mut read = false;
            let only_deferred = rules.iter().all(|r| {
                let reads = r.body.iter().any(|l| match l {
                    NLit::Pos(a) | NLit::Neg(a) => rels.contains(&rel_key(a)),
                    _ => false,
                });
                read |= reads;
                let head = rel_key(&r.head);
                !reads || rels.contains(&head) || deferred.contains(&head)
            });
            if read && only_deferred {
                deferred.extend(rels.iter().copied());
            }
        }
        if deferred.len() == before {
            break;
        }
    }
    rules.retain(|r| {
        let rel = rel_key(&r.head);
        if deferred.contains(&rel) {
            g.lazy.entry(rel).or_default().push(r.clone());
            false
        } else {
            true
        }
    });
}
