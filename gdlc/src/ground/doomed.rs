//! When the plain attempt fails on the instances of one rule that no rewrite shrinks: the
//! attempts on demand are skipped, and the plain attempt goes on as the hybrid one.
//!
//! The plain attempt fails as too large when a rule's instances pass the limits. The magic-sets
//! rewrites are tried next, but a rewrite that keeps the rule unchanged (its relation is asked
//! for in full, by a negated or unbound use: racer4's `legal_speed`, read by `legal` with
//! nothing bound, until the fixpoint split it further, see `fixpoint::SPLIT_TOTAL`)
//! instantiates it over the same atoms again, and when the rule alone takes
//! most of the limits, it fails again, after a fixpoint as long as the first. Such a rule is
//! *doomed*. The hybrid attempt that comes last with nothing deferred would then repeat the
//! plain attempt's fixpoint exactly (when nothing in it depended on being hybrid, see
//! [`switchable`]), and make the rule a join rule at the same point: the plain attempt turns
//! hybrid there instead.

use rustc_hash::FxHashSet as HashSet;

use super::defer::LARGE_DYNAMIC_SHARE;
use super::instantiate::Estimate;
use super::join::RelKey;
use super::{GroundOptions, Grounder, is_game_output};
use crate::ast::kw;
use crate::magic::{MagicOptions, NegationPolicy, magic_sets};
use crate::normalize::{NProgram, NRule};

/// A doomed rule takes at least this share of the limit of instances or literals by itself
/// (the other rules then have at most the rest, in every attempt).
const DOOMED_SHARE: f64 = 0.75;

/// The negation policies of the rewrites [`super::ground`] tries, in order.
pub(super) const POLICIES: [NegationPolicy; 3] = [
    NegationPolicy::Demand,
    NegationPolicy::DemandPositive,
    NegationPolicy::Full,
];

/// Whether `rule` of `nprog`, whose instances (`estimate`) passed the limits in the plain
/// attempt, is doomed: it takes most of the limits by itself, and every rewrite on demand
/// (with the static relations `complete` computed in full) keeps it unchanged.
pub(super) fn is_doomed(
    nprog: &NProgram,
    complete: &HashSet<RelKey>,
    rule: &NRule,
    estimate: &Estimate,
    options: &GroundOptions,
) -> bool {
    let large = estimate.instances >= DOOMED_SHARE * options.max_rule_instances as f64
        || estimate.literals >= DOOMED_SHARE * options.max_literals as f64;
    if !large {
        return false;
    }
    let materialized: std::collections::HashSet<(crate::ast::Sym, usize)> =
        complete.iter().map(|&(s, a)| (s, a as usize)).collect();
    let doomed = POLICIES.iter().all(|&negation| {
        let magic = magic_sets(
            nprog,
            &MagicOptions {
                materialized: materialized.clone(),
                negation,
            },
        );
        keeps_rules(&magic.program, nprog, rule.origin)
    });
    tracing::debug!(
        doomed,
        instances = estimate.instances,
        literals = estimate.literals,
        "is the rule too large doomed"
    );
    doomed
}

/// Whether the rewritten `program` has every rule of `nprog` made from the description's rule
/// `origin` unchanged (its head and body relations the description's, not adorned or guarded,
/// its body in any order): their instances over the same atoms are then the same. (The rule
/// an attempt fails on may be a part of one of them, split by the fixpoint or by
/// instantiation.)
pub(super) fn keeps_rules(program: &NProgram, nprog: &NProgram, origin: usize) -> bool {
    let mut rules = nprog.rules.iter().filter(|r| r.origin == origin).peekable();
    rules.peek().is_some()
        && rules.all(|rule| {
            program.rules.iter().any(|r| {
                r.origin == origin
                    && r.head == rule.head
                    && r.body.len() == rule.body.len()
                    && r.body.iter().all(|l| rule.body.contains(l))
                    && rule.body.iter().all(|l| r.body.contains(l))
            })
        })
}

/// Whether the plain attempt `g`, instantiating, has the state a hybrid attempt with nothing
/// deferred would have at the same point: nothing lazy, every rule of the relaxed fixpoint
/// run in full (none that a hybrid attempt would have left to run time), and no dynamic
/// relation past the share at which a hybrid attempt defers it.
pub(super) fn switchable(g: &Grounder<'_>) -> bool {
    let large = g.options.max_atoms / LARGE_DYNAMIC_SHARE;
    !g.hybrid
        && g.guards.is_empty()
        && g.lazy.is_empty()
        && g.deferred.is_empty()
        && g.join_rules.is_empty()
        && !g.unsplit_in_reach
        && !g.dynamic.iter().any(|&rel| {
            !is_game_output(rel.0)
                && rel != (kw::TRUE, 1)
                && rel != (kw::DOES, 2)
                && g.lazy_candidates.contains(&rel)
                && g.db.atoms(rel).len() > large
        })
}

#[cfg(test)]
mod tests {
    use crate::ground::{GroundOptions, ground};

    /// A counter to 14, `(n 0)` .. `(n 39)`, and `pick`, 15 x 40 x 40 = 24,000 instances that
    /// `legal` reads: in full (`(pick ?x ?y ?z)`), or with two arguments bound (`reads`).
    fn picks(reads: &str) -> crate::normalize::NProgram {
        let mut text = format!(
            "(role p) (init (c 0)) (<= (legal p (go ?x)) {reads}) \
             (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) \
             (<= (pick ?x ?y ?z) (true (c ?x)) (n ?y) (n ?z)) \
             (<= terminal (true (c 14))) (goal p 100)"
        );
        for i in 0..40 {
            text.push_str(&format!(" (n {i})"));
            if i < 14 {
                text.push_str(&format!(" (succ {i} {})", i + 1));
            }
        }
        crate::ground::test_support::normalised(&text)
    }

    /// 10,000 instances at most: `pick` alone needs 24,000.
    fn small() -> GroundOptions {
        GroundOptions {
            max_rule_instances: 10_000,
            ..GroundOptions::default()
        }
    }

    #[test]
    fn a_rule_no_rewrite_shrinks_turns_the_plain_attempt_hybrid() {
        let nprog = picks("(pick ?x ?y ?z)");
        // Within the default limits: ground in full.
        let full = ground(&nprog, &GroundOptions::default()).expect("grounds");
        assert_eq!(full.stats.join_rules, 0, "{:?}", full.stats);
        // `legal` asks for every `pick`: the rewrites keep its rule as it is, so the plain
        // attempt goes on as the hybrid one, with `pick` evaluated at run time.
        let hybrid = ground(&nprog, &small()).expect("grounds with joins at run time");
        assert!(!hybrid.stats.demand_driven, "{:?}", hybrid.stats);
        assert!(hybrid.stats.join_rules >= 1, "{:?}", hybrid.stats);
    }

    #[test]
    fn a_rule_a_rewrite_shrinks_is_grounded_on_demand() {
        // `legal` asks for `pick` with `?y` and `?z` bound: on demand it has 15 instances.
        let nprog = picks("(true (c ?x)) (pick ?x 3 4)");
        let g = ground(&nprog, &small()).expect("grounds on demand");
        assert!(g.stats.demand_driven, "{:?}", g.stats);
        assert_eq!(g.stats.join_rules, 0, "{:?}", g.stats);
    }
}
