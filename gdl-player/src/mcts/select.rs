//! Selection in a node of [`super::Mcts`] (UCB1 on each role's own statistics) and what a
//! proven child proves of its parent (MCTS-Solver, generalised to any number of roles and
//! goals that need not sum to a constant).
//!
//! A node is *proven* when every role's goal from it is known exactly: a terminal state; a
//! turn node (one role, the mover, has more than one legal move and every other role exactly
//! one) with a child that gives the mover 100, or whose children are all proven (the node
//! takes the child best for the mover); a chance node (the mover is GDL-II's `random`) whose
//! children are all proven (the mean of their goals, the moves being drawn uniformly). A node
//! where two roles or more have a choice is proven only when terminal. A proof rests on the
//! children's proofs only, never on the path that reached them: it holds for every parent of a
//! shared node, and a cycle proves nothing by itself.

use super::amaf;
use super::store::{Kind, Store};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// What the proofs of a node say of the mover's moves in selection ([`Proofs::known`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Known {
    /// Not to be taken: proven no better than another move, or, in a puzzle, proven while
    /// another move is open.
    Skip,
    /// Proven: this is its goal.
    Exact(f64),
    /// Not proven.
    Open,
}

/// The proofs of the mover's moves in a turn node, as selection reads them.
pub(super) struct Proofs<'a> {
    /// The proven goal of each move (NaN: not proven).
    solved: &'a [f64],
    /// The best goal the mover is sure of (its best proven move), if a move is proven.
    lower: Option<f64>,
    /// Skip every proven move: a puzzle (one role) with a move still open, where a proven
    /// move has nothing more to teach (its goal is the best line through it) and the search
    /// goes where a better goal may be.
    open_only: bool,
}

impl<'a> Proofs<'a> {
    /// The proofs of role `r`'s moves in node `n`, when `r` moves there and a move is proven.
    pub(super) fn of<G: Game>(store: &'a Store<G>, n: u32, r: RoleIndex) -> Option<Self> {
        let node = &store.nodes[n as usize];
        let solved = match node.kind {
            Kind::Turn(m) if m as usize == r => store.solved(n)?,
            _ => return None,
        };
        Some(Proofs {
            solved,
            lower: (node.proof_count > 0).then(|| store.goals(n)[r]),
            open_only: store.roles() == 1 && solved.iter().any(|v| v.is_nan()),
        })
    }

    /// What selection knows of move `i`: a move proven at 0, or below the best the mover
    /// is sure of, is skipped.
    pub(super) fn known(&self, i: usize) -> Known {
        let v = self.solved[i];
        match v {
            _ if v.is_nan() => Known::Open,
            _ if v <= 0.0 || self.open_only || self.lower.is_some_and(|l| v < l) => Known::Skip,
            _ => Known::Exact(v),
        }
    }
}

/// Visit counts below this have their `1 / sqrt(v)` and `sqrt(ln(v))` in a table (most
/// nodes have few visits).
const SMALL: usize = 4096;

/// `(1 / sqrt(v), sqrt(ln(v)))` for `v` in `0..SMALL` (0 counts as 1).
fn table() -> &'static [(f64, f64)] {
    static TABLE: std::sync::OnceLock<Vec<(f64, f64)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..SMALL)
            .map(|v| {
                let v = v.max(1) as f64;
                (1.0 / v.sqrt(), v.ln().sqrt())
            })
            .collect()
    })
}

/// `ln(x)` for `x >= 1` within about 1e-5 (the exponent, and the series of `atanh` for the
/// mantissa): an exploration term needs no more, and libm's costs a visible share of an
/// iteration.
fn fast_ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let t = (mantissa - 1.0) / (mantissa + 1.0);
    let t2 = t * t;
    let ln_mantissa = 2.0 * t * (1.0 + t2 * (1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 / 7.0)));
    ln_mantissa + exponent as f64 * std::f64::consts::LN_2
}

/// `1 / sqrt(v)` (`v` at least 1).
#[inline]
pub(super) fn inv_sqrt(v: u32) -> f64 {
    inv_sqrt_in(table(), v)
}

/// [`inv_sqrt`] with the table already at hand (a loop over a node's moves reads it once).
#[inline]
fn inv_sqrt_in(small: &[(f64, f64)], v: u32) -> f64 {
    match small.get(v as usize) {
        Some(&(x, _)) => x,
        None => 1.0 / f64::from(v).sqrt(),
    }
}

/// `sqrt(ln(v))` (0 for 0).
#[inline]
pub(super) fn sqrt_ln(v: u32) -> f64 {
    match table().get(v as usize) {
        Some(&(_, x)) => x,
        None => fast_ln(f64::from(v)).sqrt(),
    }
}

/// The move index role `r` takes in node `n`: its only move; a uniform one for GDL-II's
/// `random`; an untried one while there is one (the first after a uniform start); else the best UCB1 score
/// with constant `c`, a proven move scored at its exact goal and a move proven worse than
/// another never taken (in a puzzle, a proven move is not taken while another is open). With AMAF statistics (`prior`), [`amaf::pick`] instead, past the
/// first two cases.
pub(super) fn pick<G: Game>(
    store: &Store<G>,
    game: &G,
    rng: &mut SplitMix64,
    c: f64,
    n: u32,
    r: RoleIndex,
    prior: Option<&amaf::Prior<'_>>,
) -> u32 {
    let moves = store.moves(n, r);
    let count = moves.len();
    if count <= 1 {
        return 0;
    }
    if store.is_random(game, r) {
        return rng.below(count) as u32;
    }
    if let Some(p) = prior {
        return amaf::pick(store, rng, c, n, r, p);
    }
    let node = &store.nodes[n as usize];
    // Every iteration through the node took an untried move while there was one: the first
    // `count` iterations tried each move once, in an order drawn here.
    if (node.total as usize) < count {
        let offset = rng.below(count);
        return (0..count)
            .map(|k| (offset + k) % count)
            .find(|&i| moves[i].visits == 0)
            .unwrap_or(offset) as u32;
    }
    let explore = c * sqrt_ln(node.total);
    let proofs = Proofs::of(store, n, r);
    let small = table();
    let mut best = 0;
    let mut best_score = f64::NEG_INFINITY;
    for (i, m) in moves.iter().enumerate() {
        let mean = match proofs.as_ref().map_or(Known::Open, |p| p.known(i)) {
            Known::Skip => continue,
            Known::Exact(v) => v,
            Known::Open => m.sum / f64::from(m.visits),
        };
        let score = mean + explore * inv_sqrt_in(small, m.visits);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best as u32
}

/// Role `role`'s proven goal after each of its moves in node `n` (`None` per move not proven;
/// all `None` unless `role` is the mover of a turn node).
pub(super) fn proven_moves<G: Game>(store: &Store<G>, n: u32, role: RoleIndex) -> Vec<Option<f64>> {
    let count = store.moves(n, role).len();
    let solved = match store.nodes[n as usize].kind {
        Kind::Turn(m) if m as usize == role => store.solved(n),
        _ => None,
    };
    (0..count)
        .map(|i| solved.map(|s| s[i]).filter(|v| !v.is_nan()))
        .collect()
}

/// The child of node `n` reached by joint move `key` has been proven with `goals`: records
/// it, and proves `n` when that follows. Whether `n` is now proven (then its goals are in
/// the store).
pub(super) fn child_proven<G: Game>(
    store: &mut Store<G>,
    n: u32,
    key: &[u32],
    goals: &[f64],
) -> bool {
    let node = store.nodes[n as usize];
    let (Kind::Turn(m) | Kind::Chance(m)) = node.kind else {
        return false;
    };
    if node.proven {
        return false;
    }
    let m = m as usize;
    let count = store.moves(n, m).len() as u32;
    let i = key[m] as usize;
    let Some(solved) = store.solved_mut(n, m) else {
        return false;
    };
    if !solved[i].is_nan() {
        return false;
    }
    let mine = goals.get(m).copied().unwrap_or(0.0);
    solved[i] = mine;
    let first = node.proof_count == 0;
    let proof_count = node.proof_count + 1;
    store.nodes[n as usize].proof_count = proof_count;
    let best = store.goals_mut(n);
    if matches!(node.kind, Kind::Chance(_)) {
        if first {
            best.copy_from_slice(goals);
        } else {
            best.iter_mut().zip(goals).for_each(|(s, g)| *s += g);
        }
        if proof_count == count {
            best.iter_mut().for_each(|s| *s /= f64::from(count));
            store.nodes[n as usize].proven = true;
        }
        return store.nodes[n as usize].proven;
    }
    if first || mine > best[m] {
        best.copy_from_slice(goals);
    }
    if mine >= 1.0 || proof_count == count {
        store.nodes[n as usize].proven = true;
    }
    store.nodes[n as usize].proven
}

#[cfg(test)]
mod tests {
    #[test]
    fn fast_ln_is_close() {
        for x in [1.0, 2.0, 3.0, 4095.0, 4096.0, 1e5, 123_456.0, 4e9] {
            let (a, b) = (super::fast_ln(x), f64::ln(x));
            assert!((a - b).abs() < 1e-4, "{x}: {a} {b}");
        }
    }
}
