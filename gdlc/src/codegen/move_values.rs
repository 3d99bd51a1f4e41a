//! Literals that read only the moves of one role (`does`, move sets, and props made only of
//! these), and their value for each of the role's moves: what the per-move tables of the next
//! state are filled from, in both backends (`inline/next_tables.rs`, `propnet/rows.rs`).

use rustc_hash::FxHashMap;

use crate::ir::{Input, Ir, Lit};

/// Which roles' moves the props read, and the values of the literals asked so far.
pub(super) struct MoveValues {
    /// Per prop: the roles whose moves it reads (a bit per role) when it reads nothing else
    /// (no state bit, no group, no join); `None` otherwise.
    roles_of: Vec<Option<u64>>,
    /// Per role: the value of a literal of that role for each of its moves and none (the last
    /// entry).
    values: Vec<FxHashMap<Lit, Vec<bool>>>,
}

impl MoveValues {
    pub(super) fn new(ir: &Ir) -> MoveValues {
        let nroles = ir.roles.len();
        let group_of = ir.group_of();
        let mut roles_of: Vec<Option<u64>> = vec![None; ir.props.len()];
        if nroles <= 64 {
            for p in 0..ir.props.len() {
                if group_of[p].is_some() {
                    continue;
                }
                let mut mask = Some(0u64);
                for &l in ir.props[p].disjuncts.iter().flatten() {
                    mask = mask.zip(lit_roles(ir, &roles_of, l)).map(|(a, b)| a | b);
                    if mask.is_none() {
                        break;
                    }
                }
                roles_of[p] = mask;
            }
        }
        MoveValues {
            roles_of,
            values: vec![FxHashMap::default(); nroles],
        }
    }

    /// The roles whose moves `l` reads (a bit per role), when it reads nothing else.
    pub(super) fn roles(&self, ir: &Ir, l: Lit) -> Option<u64> {
        lit_roles(ir, &self.roles_of, l)
    }

    /// Per move of role `r` and none: whether every literal of `c` (each reading only role
    /// `r`'s move) holds.
    pub(super) fn conj_values(&mut self, ir: &Ir, r: u32, c: &[Lit]) -> Vec<bool> {
        let mut out = vec![true; ir.moves[r as usize].len() + 1];
        for &l in c {
            let v = self.lit_values(ir, r, l);
            out.iter_mut().zip(&v).for_each(|(o, &x)| *o &= x);
        }
        out
    }

    /// Per move of role `r` and none: whether `l` (which reads only role `r`'s move) holds.
    fn lit_values(&mut self, ir: &Ir, r: u32, l: Lit) -> Vec<bool> {
        if let Some(v) = self.values[r as usize].get(&l) {
            return v.clone();
        }
        let n = ir.moves[r as usize].len();
        let mut v: Vec<bool> = match l.input {
            Input::Const(x) => vec![x; n + 1],
            Input::Does { role, mv } => (0..=n).map(|m| role == r && m == mv as usize).collect(),
            Input::MoveIn(s) => {
                let mut v = vec![false; n + 1];
                if let Some(set) = ir.move_sets.sets.get(s as usize)
                    && set.role == r
                {
                    for &m in &set.moves {
                        if let Some(x) = v.get_mut(m as usize) {
                            *x = true;
                        }
                    }
                }
                v
            }
            Input::Prop(q) => {
                let mut v = vec![false; n + 1];
                for d in &ir.props[q as usize].disjuncts {
                    let h = self.conj_values(ir, r, d);
                    v.iter_mut().zip(&h).for_each(|(o, &x)| *o |= x);
                }
                v
            }
            // Not expected: callers ask only for literals of moves.
            Input::Bit(_) | Input::Join(_) => vec![false; n + 1],
        };
        if l.negated {
            v.iter_mut().for_each(|x| *x = !*x);
        }
        self.values[r as usize].insert(l, v.clone());
        v
    }
}

/// The roles whose moves `l` reads (a bit per role), when it reads nothing else.
fn lit_roles(ir: &Ir, roles_of: &[Option<u64>], l: Lit) -> Option<u64> {
    let nroles = ir.roles.len();
    match l.input {
        Input::Const(_) => Some(0),
        Input::Does { role, .. } if (role as usize) < nroles => Some(1 << role),
        Input::MoveIn(s) => {
            let role = ir.move_sets.sets.get(s as usize)?.role;
            ((role as usize) < nroles).then_some(1 << role)
        }
        Input::Prop(q) => roles_of.get(q as usize).copied().flatten(),
        _ => None,
    }
}

/// The disjuncts `c` is the or of, once each positive prop literal that `pick` chooses is
/// distributed over it (replaced by each of its disjuncts in turn, until no literal is
/// chosen), in the order of `c`'s expansion, or `None` past `max` conjunctions.
pub(super) fn distribute(
    ir: &Ir,
    c: &[Lit],
    max: usize,
    pick: impl Fn(Lit) -> bool,
) -> Option<Vec<Vec<Lit>>> {
    let mut done = Vec::new();
    let mut work = vec![c.to_vec()];
    while let Some(conj) = work.pop() {
        let at = conj
            .iter()
            .position(|&l| !l.negated && matches!(l.input, Input::Prop(_)) && pick(l));
        let Some(i) = at else {
            done.push(conj);
            continue;
        };
        let Input::Prop(q) = conj[i].input else {
            return None;
        };
        for d in &ir.props[q as usize].disjuncts {
            let mut e = conj.clone();
            e.remove(i);
            e.extend(d.iter().copied());
            work.push(e);
        }
        if done.len() + work.len() > max {
            return None;
        }
    }
    done.reverse();
    Some(done)
}
