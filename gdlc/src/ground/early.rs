//! Early signs that a grounding attempt is too large: it gives up before its atoms reach the
//! limit, so that the next attempt (on demand, hybrid, or the last resort) starts seconds
//! rather than minutes later.

use super::defer::LARGE_DYNAMIC_SHARE;
use super::join::rel_key;
use super::{GroundError, Grounder, is_game_output};
use crate::diag::Diagnostic;
use crate::diag::codes;
use crate::normalize::NRule;

/// When an attempt gives up before its atoms reach the limit, on a sign that it would: a
/// dynamic relation of the description (not one the game reads) with more than a share of the
/// atom limit. Such a relation is what makes an attempt fail on the atom limit, after deriving
/// atoms up to it for minutes (chess's `threatened_with_capture`: 783,360 atoms at its first
/// rule, 3 million a few rounds later). Hybrid grounding defers such a relation (past
/// [`LARGE_DYNAMIC_SHARE`]) to run time instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum EarlyStop {
    /// The attempt goes on to the atom limit.
    #[default]
    No,
    /// The attempt stops at a dynamic relation with more than `1 / share` of the atom limit.
    /// The plain attempt: [`PLAIN_SHARE`] (amazonsTorus grounds with 160,000 atoms of
    /// `queenMoveIgnoring`, ruleDepthExponential with 2.1 million dynamic atoms, 1,048,576 of
    /// them `prereq20`); on demand: [`LARGE_DYNAMIC_SHARE`], where a relation that large
    /// means that the rewrite did not restrict it (chess's `clear_diagonal_ne_ig ?bbbbbb`, the
    /// demand for it, has as many atoms as the relation has in full).
    LargeDynamic { share: usize },
}

/// The plain attempt stops at a dynamic relation with more than this share of the atom limit:
/// 1,250,000 atoms of 5 million, above ruleDepthExponential's 1,048,576 of `prereq20` (1/8
/// would stop it). At 1/2 the attempts doomed spent twice as long getting there (chess's
/// `threatened_with_capture`, merrills's `count_loop`: 27 CPU s to 2.4 million atoms before
/// grounding on demand in 0.7 s).
pub(super) const PLAIN_SHARE: usize = 4;

impl Grounder<'_> {
    /// Fails when `rule`'s relation shows the attempt too large (see [`EarlyStop`]; in hybrid
    /// grounding, a large dynamic relation is deferred to run time).
    pub(super) fn check_early_stop(&self, rule: &NRule) -> Result<(), GroundError> {
        // Hybrid grounding: a large dynamic relation is better asked at run time. The other
        // attempts stop at one (see `EarlyStop`).
        let rel = rel_key(&rule.head);
        let atoms = self.db.atoms(rel).len();
        let share = match self.early_stop {
            _ if self.hybrid => LARGE_DYNAMIC_SHARE,
            EarlyStop::LargeDynamic { share } => share,
            EarlyStop::No => return Ok(()),
        };
        if self.dynamic.contains(&rel)
            && !is_game_output(rel.0)
            && self.lazy_candidates.contains(&rel)
            && atoms > self.options.max_atoms / share
        {
            let mut e = GroundError::too_large(Diagnostic::error(
                codes::GROUNDING_TOO_LARGE,
                rule.span,
                format!(
                    "too large to ground: this relation has too many atoms (more than {})",
                    self.options.max_atoms / share
                ),
            ));
            if self.hybrid {
                e.defer = Some(rel);
            }
            return Err(e);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ground::{GroundOptions, ground};

    /// A counter to 14 and `pair`, 15 x 15 atoms of which `terminal` reads one.
    fn counter() -> crate::normalize::NProgram {
        let mut text = String::from(
            "(role p) (init (c 0)) (<= (legal p go) (true (c ?x))) \
             (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) \
             (<= (pair ?x ?y) (true (c ?x)) (n ?y)) \
             (<= terminal (true (c 14)) (pair 14 3)) (goal p 100)",
        );
        for i in 0..15 {
            text.push_str(&format!(" (n {i})"));
            if i < 14 {
                text.push_str(&format!(" (succ {i} {})", i + 1));
            }
        }
        crate::ground::test_support::normalised(&text)
    }

    #[test]
    fn the_plain_attempt_stops_at_a_dynamic_relation_past_a_quarter_of_the_atom_limit() {
        let nprog = counter();
        // 225 atoms of `pair`, well within the default limit: grounded in full.
        let full = ground(&nprog, &GroundOptions::default()).expect("grounds");
        assert!(!full.stats.demand_driven);
        assert!(full.stats.dynamic_atoms > 225, "{:?}", full.stats);
        // With 400 atoms allowed, `pair` passes a quarter of them: the plain attempt stops before
        // the limit, and grounding on demand asks for the one atom `terminal` reads.
        let options = GroundOptions {
            max_atoms: 400,
            ..GroundOptions::default()
        };
        let on_demand = ground(&nprog, &options).expect("grounds on demand");
        assert!(on_demand.stats.demand_driven, "{:?}", on_demand.stats);
        assert!(on_demand.stats.dynamic_atoms < 100, "{:?}", on_demand.stats);
    }
}
