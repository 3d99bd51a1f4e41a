//! What a join is asked: the rule, the delta of a semi-naive round, how each negative literal
//! is read ([`NegMode`]), whether only new head atoms are wanted ([`JoinRequest`]); and the key
//! of an atom pattern ([`rel_key`]). Below the join plan (`plan.rs`) and the join (`join.rs`),
//! which both read it.

use crate::normalize::{NAtom, NRule};

pub use super::db::RelKey;

/// The key of an atom pattern.
pub fn rel_key(a: &NAtom) -> RelKey {
    (a.rel, a.args.len() as u32)
}

/// How a negative literal is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NegMode {
    /// The literal's relation is complete in the database: the literal holds when the atom is
    /// absent.
    Exact,
    /// The relation is still open: the literal is assumed to hold (an over-approximation).
    Assume,
}

impl NegMode {
    /// The mode of each negative literal when the relations in `open` are still open:
    /// `Assume` for theirs, `Exact` for the others.
    pub fn open_in(open: &rustc_hash::FxHashSet<RelKey>) -> impl Fn(&NAtom) -> NegMode + '_ {
        move |a| {
            if open.contains(&rel_key(a)) {
                NegMode::Assume
            } else {
                NegMode::Exact
            }
        }
    }
}

/// What a match is asked for.
pub struct JoinRequest<'a> {
    pub rule: &'a NRule,
    /// The positive literal that reads only atoms inserted within `lo..hi`; the others read
    /// `0..hi`.
    pub delta: Option<usize>,
    pub lo: u32,
    pub hi: u32,
    /// The treatment of each negative literal, by literal index (ignored for others).
    pub neg_mode: &'a dyn Fn(&NAtom) -> NegMode,
    /// The caller reads only the head atoms of the matches, and wants only those not yet in
    /// the database: once the steps have bound the head's variables, a head already there is
    /// not looked for further, and the rest of the join stops at its first match.
    pub new_heads_only: bool,
}

impl<'a> JoinRequest<'a> {
    /// Every match of `rule` over the atoms before `hi` (no delta, every head wanted).
    pub fn whole(rule: &'a NRule, hi: u32, neg_mode: &'a dyn Fn(&NAtom) -> NegMode) -> Self {
        JoinRequest {
            rule,
            delta: None,
            lo: 0,
            hi,
            neg_mode,
            new_heads_only: false,
        }
    }
}
