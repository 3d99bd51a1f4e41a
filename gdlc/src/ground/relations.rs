//! Which rules and relations grounding is about: the rules the game's relations depend on,
//! the relations that depend on the state or the moves, and the relations the game reads.

use rustc_hash::FxHashSet as HashSet;

use super::join::{RelKey, rel_key};
use crate::ast::kw;
use crate::normalize::rules_for;
use crate::normalize::{NLit, NRule};

/// The relations that the game is read from.
const OUTPUTS: [RelKey; 7] = [
    (kw::ROLE, 1),
    (kw::INIT, 1),
    (kw::LEGAL, 2),
    (kw::NEXT, 1),
    (kw::GOAL, 2),
    (kw::TERMINAL, 0),
    (kw::SEES, 2),
];

/// A relation the game reads directly, not only through the rules.
pub(crate) fn is_game_output(rel: crate::ast::Sym) -> bool {
    use crate::ast::kw;
    [
        kw::ROLE,
        kw::INIT,
        kw::LEGAL,
        kw::GOAL,
        kw::TERMINAL,
        kw::SEES,
        kw::NEXT,
    ]
    .contains(&rel)
}

/// The rules that some relation of [`OUTPUTS`] depends on.
pub(super) fn needed_rules(rules: &[NRule]) -> Vec<&NRule> {
    rules_for(rules, &OUTPUTS)
}

/// `true`, `does` and every relation that depends on them.
pub(super) fn dynamic_relations(rules: &[&NRule]) -> HashSet<RelKey> {
    let mut dynamic: HashSet<RelKey> = [(kw::TRUE, 1), (kw::DOES, 2)].into_iter().collect();
    loop {
        let before = dynamic.len();
        for r in rules {
            let reads = r.body.iter().any(|l| match l {
                NLit::Pos(a) | NLit::Neg(a) => dynamic.contains(&rel_key(a)),
                _ => false,
            });
            if reads {
                dynamic.insert(rel_key(&r.head));
            }
        }
        if dynamic.len() == before {
            return dynamic;
        }
    }
}
