//! Absorption by the disjuncts of a prop that are one literal (the propnet backend's network
//! only).
//!
//! A disjunct that is one literal `u` makes every other disjunct that contains `u` redundant
//! (`u | u & x` is `u`), and every literal `!u` of another disjunct needless (`u | !u & x` is
//! `u | x`: where `!u & x` is true without `u` false, `u` holds). chess_200's
//! `(legalMove ?p ?m)` is `not (inCheck ?p)`, or `(inCheck ?p)` and a way out of the check:
//! its disjuncts read `(inCheck ?p)` only to repeat what the first says, so that every change
//! of whether a side is in check changed the and-gate of each way out of every move (some 600
//! gates, a third of the changes of a state), where without it only the moves whose legality
//! changes do.

use rustc_hash::FxHashSet as HashSet;

use crate::ir::{Ir, Lit};

/// Rounds of [`absorb_dnf`] per prop: a disjunct left with one literal absorbs in the next.
const MAX_ROUNDS: usize = 4;

/// Applies the absorption of the module documentation to every prop outside
/// recursive groups; every prop keeps its value in every state. A disjunct left empty (every
/// literal of it needless) makes its prop true, which [`super::simplify`] folds. Returns
/// whether any prop changed.
pub fn absorb(ir: &mut Ir) -> bool {
    let group_of = ir.group_of();
    let mut changed = false;
    for (p, prop) in ir.props.iter_mut().enumerate() {
        if group_of[p].is_none() && prop.disjuncts.len() >= 2 {
            changed |= absorb_dnf(&mut prop.disjuncts);
        }
    }
    changed
}

/// Absorption by the one-literal disjuncts of `disjuncts`, until nothing changes (at most
/// [`MAX_ROUNDS`] rounds). Returns whether anything changed.
fn absorb_dnf(disjuncts: &mut Vec<Vec<Lit>>) -> bool {
    let mut changed = false;
    for _ in 0..MAX_ROUNDS {
        let units: HashSet<Lit> = disjuncts.iter().filter_map(|c| unit(c)).collect();
        if units.is_empty() {
            break;
        }
        let mut round = false;
        disjuncts.retain_mut(|c| {
            if c.len() < 2 {
                return true;
            }
            if c.iter().any(|l| units.contains(l)) {
                round = true;
                return false;
            }
            let before = c.len();
            c.retain(|l| !units.contains(&l.negate()));
            round |= c.len() != before;
            true
        });
        if !round {
            break;
        }
        changed = true;
    }
    changed
}

/// The literal of a disjunct of one literal (not a constant), which absorbs as the
/// [module documentation](self) says.
pub(super) fn unit(disjunct: &[Lit]) -> Option<Lit> {
    match disjunct[..] {
        [u] if u.constant().is_none() => Some(u),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Input;

    fn bit(b: u32) -> Lit {
        Lit::pos(Input::Bit(b))
    }

    /// The value of `disjuncts` for the bits of `a` (bit `b` is `a >> b & 1`).
    fn value(disjuncts: &[Vec<Lit>], a: u32) -> bool {
        disjuncts.iter().any(|c| {
            c.iter().all(|l| match l.input {
                Input::Bit(b) => (a >> b & 1 == 1) != l.negated,
                _ => panic!("a bit"),
            })
        })
    }

    #[test]
    fn one_literal_disjuncts_absorb_and_strengthen_the_others() {
        let (c, x, y, z) = (bit(0), bit(1), bit(2), bit(3));
        // !c | c & x | c & y & z | x & c & !z | y & !c  ->  !c | x | y & z | x & !z
        let before = vec![
            vec![c.negate()],
            vec![c, x],
            vec![c, y, z],
            vec![x, c, z.negate()],
            vec![y, c.negate()],
        ];
        let mut d = before.clone();
        assert!(absorb_dnf(&mut d));
        // `x` became a unit: `x & !z` is absorbed in the next round.
        assert_eq!(d, vec![vec![c.negate()], vec![x], vec![y, z]]);
        for a in 0..16 {
            assert_eq!(value(&before, a), value(&d, a), "assignment {a:04b}");
        }
        // Nothing to absorb without a unit.
        let mut none = vec![vec![c, x], vec![c.negate(), y]];
        assert!(!absorb_dnf(&mut none));
        assert_eq!(none, vec![vec![c, x], vec![c.negate(), y]]);
    }

    #[test]
    fn a_disjunct_left_empty_is_true() {
        let (c, x) = (bit(0), bit(1));
        let mut d = vec![vec![c.negate()], vec![x.negate()], vec![c, x]];
        absorb_dnf(&mut d);
        assert!(d.iter().any(Vec::is_empty), "{d:?}");
    }
}
