//! Blocks of props skipped together when a state bit they all need is clear.
//!
//! A role's legal moves are tested one by one from their props, and most of them need a
//! piece of the role on their first cell: checkers' 507 moves of a role at its turn need a
//! man or a king of it on one of 32 cells, and a state has a few such pieces. The moves are
//! grouped by one state bit each needs (among those that at least [`MIN_BLOCK`] of them need,
//! one clear in most states of a few seeded playouts sampled at compile time if any, then the
//! one fewest of the moves need: the piece on its cell, or where the rules allow playing, not
//! the empty cell it lands on, which most states have); each group, with the props only it
//! reads, is one *block*, computed under `if` its bit is set. A skipped move's prop is false,
//! as the bit is; the props only its block reads are not read.

use crate::ir::{Input, Ir, Lit};

/// The blocks of a cone: per prop its block, per block its bit.
pub(super) struct Guards {
    /// Per prop: its block ([`NONE`] when in none).
    pub block_of: Vec<u32>,
    /// Per block: the state bit every one of its roots needs.
    pub bits: Vec<u32>,
    /// Whether the roots were grouped in blocks, kept or not: the function then passes its
    /// moves through the scratch words even without a block (ticTacHeaven's one block of 27
    /// literals on a bit held in half the states, left out: 22% faster than computing the
    /// moves as locals gathered bit by bit).
    pub found: bool,
}

/// How often each state bit of an IR holds in sampled playouts
/// ([`crate::codegen::propnet::bits_held`]), sampled on first use: only a legal function large
/// enough for blocks asks.
pub(super) struct Held<'a> {
    ir: &'a Ir,
    held: std::cell::OnceCell<Vec<crate::optimise::Activity>>,
}

impl<'a> Held<'a> {
    pub(super) fn new(ir: &'a Ir) -> Held<'a> {
        Held {
            ir,
            held: Default::default(),
        }
    }

    /// Per state bit, the fraction of sampled states in which it holds.
    pub(super) fn get(&self) -> &[crate::optimise::Activity] {
        self.held
            .get_or_init(|| crate::codegen::propnet::bits_held(self.ir))
    }
}

/// The mean fraction of sampled states in which the blocks' bits hold above which the board
/// is full of pieces.
const FULL_HELD: f64 = 0.25;

/// A state bit held in at most this fraction of the sampled states is clear in most:
/// preferred for a block's test.
const RARE_HELD: f64 = 0.25;

/// No block.
pub(super) const NONE: u32 = u32::MAX;

/// The fewest roots of a block: below, the branch costs about as much as it saves.
const MIN_BLOCK: usize = 3;

/// The least code of a block, in literals and props ([`Ir::prop_weight`]), when
/// many of the blocks' bits are set in the initial state.
const MIN_BLOCK_WEIGHT: usize = 32;

impl Guards {
    /// No block, in a cone of `n` props.
    pub(super) fn none(n: usize) -> Guards {
        Guards {
            block_of: vec![NONE; n],
            bits: Vec::new(),
            found: false,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// The props of `cone` (ascending) in evaluation order with their blocks together:
    /// first the props in no block, then each block's, so that every block is one run.
    pub(super) fn order(&self, cone: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = cone
            .iter()
            .copied()
            .filter(|&p| self.block_of[p as usize] == NONE)
            .collect();
        let mut by_block: Vec<Vec<u32>> = vec![Vec::new(); self.bits.len()];
        for &p in cone {
            let b = self.block_of[p as usize];
            if b != NONE {
                by_block[b as usize].push(p);
            }
        }
        out.extend(by_block.into_iter().flatten());
        out
    }
}

/// The blocks of the cone `cone` (ascending) whose roots `roots` only the tail reads.
pub(super) fn plan(
    ir: &Ir,
    cone: &[u32],
    roots: &[Lit],
    held: &[crate::optimise::Activity],
) -> Guards {
    let n = ir.props.len();
    let group_of = ir.group_of();
    let mut in_cone = vec![false; n];
    for &p in cone {
        in_cone[p as usize] = true;
    }
    // Per prop: the state bits every disjunct needs, directly or through props it reads.
    let mut needs: Vec<Vec<u32>> = vec![Vec::new(); n];
    // Per prop: how many props of the cone read it, and the last of them.
    let mut readers: Vec<(u32, u32)> = vec![(0, NONE); n];
    for &p in cone {
        let d = &ir.props[p as usize].disjuncts;
        for l in d.iter().flatten() {
            if let Input::Prop(q) = l.input {
                let r = &mut readers[q as usize];
                // A prop read twice by one reader counts once.
                if r.1 != p {
                    *r = (r.0 + 1, p);
                }
            }
        }
        if group_of[p as usize].is_some() {
            continue;
        }
        let mut all: Option<Vec<u32>> = None;
        for c in d {
            let mut bits: Vec<u32> = Vec::new();
            for l in c {
                let l = l.folded();
                match (l.input, l.negated) {
                    (Input::Bit(b), false) => bits.push(b),
                    (Input::Prop(q), false) if in_cone[q as usize] => {
                        bits.extend_from_slice(&needs[q as usize]);
                    }
                    _ => {}
                }
            }
            bits.sort_unstable();
            bits.dedup();
            all = Some(match all {
                None => bits,
                Some(a) => a.into_iter().filter(|b| bits.contains(b)).collect(),
            });
        }
        needs[p as usize] = all.unwrap_or_default();
    }
    // The roots only the tail reads, each given one bit it needs.
    let mut candidates: Vec<u32> = roots
        .iter()
        .filter_map(|l| match (l.input, l.negated) {
            (Input::Prop(p), false) => Some(p),
            _ => None,
        })
        .filter(|&p| {
            in_cone[p as usize]
                && group_of[p as usize].is_none()
                && readers[p as usize].0 == 0
                && !needs[p as usize].is_empty()
        })
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut count: rustc_hash::FxHashMap<u32, usize> = Default::default();
    for &p in &candidates {
        for &b in &needs[p as usize] {
            *count.entry(b).or_default() += 1;
        }
    }
    let mut block_of = vec![NONE; n];
    let mut bits: Vec<u32> = Vec::new();
    let mut block_by_bit: rustc_hash::FxHashMap<u32, u32> = Default::default();
    for &p in &candidates {
        // A bit clear in most sampled states (held in at most [`RARE_HELD`] of them: a
        // piece on its cell, or where the rules allow playing, rather than an empty cell),
        // then the one fewest roots need.
        let best = needs[p as usize]
            .iter()
            .map(|&b| (count[&b], b))
            .filter(|&(k, _)| k >= MIN_BLOCK)
            .min_by_key(|&(k, b)| (held[b as usize].held > RARE_HELD, k, b));
        if let Some((_, b)) = best {
            let k = *block_by_bit.entry(b).or_insert_with(|| {
                bits.push(b);
                bits.len() as u32 - 1
            });
            block_of[p as usize] = k;
        }
    }
    // A bit chosen by fewer roots than a block needs leaves them in none.
    let mut size = vec![0usize; bits.len()];
    for &p in &candidates {
        if block_of[p as usize] != NONE {
            size[block_of[p as usize] as usize] += 1;
        }
    }
    let keep: Vec<Option<u32>> = {
        let mut next = 0u32;
        size.iter()
            .map(|&s| {
                (s >= MIN_BLOCK).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    for p in &candidates {
        let b = block_of[*p as usize];
        if b != NONE {
            block_of[*p as usize] = keep[b as usize].unwrap_or(NONE);
        }
    }
    let bits: Vec<u32> = bits
        .iter()
        .zip(&keep)
        .filter_map(|(&b, k)| k.map(|_| b))
        .collect();
    // The props that only one block reads join it (readers come after what they read).
    let mut is_root = vec![false; n];
    for l in roots {
        if let Input::Prop(p) = l.input {
            is_root[p as usize] = true;
        }
    }
    let mut reader_block: Vec<Option<u32>> = vec![None; n];
    let mut mixed = vec![false; n];
    for &p in cone.iter().rev() {
        let pi = p as usize;
        if block_of[pi] == NONE
            && !is_root[pi]
            && group_of[pi].is_none()
            && !mixed[pi]
            && readers[pi].0 > 0
            && let Some(b) = reader_block[pi]
        {
            block_of[pi] = b;
        }
        let mine = (block_of[pi] != NONE).then_some(block_of[pi]);
        for l in ir.props[pi].disjuncts.iter().flatten() {
            if let Input::Prop(q) = l.input {
                let qi = q as usize;
                match (mine, reader_block[qi]) {
                    (Some(b), None) if !mixed[qi] => reader_block[qi] = Some(b),
                    (Some(b), Some(c)) if b == c => {}
                    _ => mixed[qi] = true,
                }
            }
        }
    }
    // On a board that pieces fill (the blocks' bits held in more than a quarter of the
    // sampled states, on average), blocks of little code are left out: the branch, mispredicted as pieces
    // come and go, costs about as much as the masked tests it skips (chinook's blocks of 3 or
    // 4 moves of 2 or 3 state bits ran 22% slower); on a sparse one (ttcc4's nine pieces),
    // they are mostly skipped.
    let full =
        bits.iter().map(|&b| held[b as usize].held).sum::<f64>() > FULL_HELD * bits.len() as f64;
    let min_weight = if full { MIN_BLOCK_WEIGHT } else { 0 };
    let mut weight = vec![0usize; bits.len()];
    for &p in cone {
        let b = block_of[p as usize];
        if b != NONE {
            weight[b as usize] += ir.prop_weight(p);
        }
    }
    for (k, &b) in bits.iter().enumerate() {
        tracing::debug!(
            bit = ir.bits[b as usize],
            held = held[b as usize].held,
            weight = weight[k],
            roots = candidates
                .iter()
                .filter(|&&p| block_of[p as usize] == k as u32)
                .count(),
            "block"
        );
    }
    let mut renumber = vec![NONE; bits.len()];
    let mut kept = Vec::new();
    for (k, &w) in weight.iter().enumerate() {
        if w >= min_weight {
            renumber[k] = kept.len() as u32;
            kept.push(bits[k]);
        }
    }
    for b in &mut block_of {
        if *b != NONE {
            *b = renumber[*b as usize];
        }
    }
    Guards {
        block_of,
        bits: kept,
        found: !bits.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Prop;
    use crate::optimise::Activity;

    fn bit(b: u32) -> Lit {
        Lit::pos(Input::Bit(b))
    }

    fn prop(p: u32) -> Lit {
        Lit::pos(Input::Prop(p))
    }

    /// Bit 0: a piece on a cell; bits 1, 2, 3: cells it may go to, each also reached from
    /// elsewhere (bit 9); prop 0: a capture test that only moves of bit 0 read.
    fn board() -> (Ir, Vec<u32>, Vec<Lit>) {
        let mut ir = Ir::default();
        let or = |d: Vec<Vec<Lit>>| Prop {
            text: String::new(),
            disjuncts: d,
            origins: Vec::new(),
        };
        let conj = |c: Vec<Lit>| or(vec![c]);
        ir.props = vec![
            or(vec![vec![bit(5)], vec![bit(6)]]),
            conj(vec![bit(0), bit(1)]),
            conj(vec![bit(0), bit(2), prop(0)]),
            conj(vec![bit(0), bit(3)]),
            conj(vec![bit(9), bit(1)]),
            conj(vec![bit(9), bit(2)]),
            conj(vec![bit(8), bit(3)]),
        ];
        let roots: Vec<Lit> = (1..7).map(prop).collect();
        let cone: Vec<u32> = (0..7).collect();
        (ir, cone, roots)
    }

    /// Every bit held in the fraction `held` of the sampled states, bit 0 in `held0`.
    fn held(held: f64, held0: f64) -> Vec<Activity> {
        let mut v = vec![Activity { held, changes: 0.0 }; 64];
        v[0].held = held0;
        v
    }

    #[test]
    fn moves_are_grouped_by_the_rarest_bit_they_need() {
        let (ir, cone, roots) = board();
        let g = plan(&ir, &cone, &roots, &held(0.5, 0.05));
        assert_eq!(g.bits, vec![0]);
        // The capture test goes with the only block reading it.
        assert_eq!(g.block_of, vec![0, 0, 0, 0, NONE, NONE, NONE]);
        assert_eq!(g.order(&cone), vec![4, 5, 6, 0, 1, 2, 3]);
    }

    #[test]
    fn no_small_block_on_a_board_that_pieces_fill_in_play() {
        // Its bit held in more than a quarter of the sampled states (a board full of
        // pieces), the block of 13 literals and props is not worth its branch, whatever the
        // initial state.
        let (ir, cone, roots) = board();
        let g = plan(&ir, &cone, &roots, &held(0.5, 0.4));
        assert!(g.is_empty());
        assert!(g.block_of.iter().all(|&b| b == NONE));
    }

    #[test]
    fn moves_are_grouped_by_the_bit_least_held_in_play() {
        // Three placements, each on an empty cell (bit 0, held in 90% of the sampled states)
        // where the rules allow playing (bit 1, 10%), of a value (bits 2-4): the block tests
        // where play is allowed, though as many moves need the empty cell.
        let ir = Ir {
            props: (2..5)
                .map(|v| Prop {
                    text: String::new(),
                    disjuncts: vec![vec![bit(0), bit(1), bit(v)]],
                    origins: Vec::new(),
                })
                .collect(),
            ..Ir::default()
        };
        let roots: Vec<Lit> = (0..3).map(prop).collect();
        let cone: Vec<u32> = (0..3).collect();
        let mut h = held(0.5, 0.9);
        h[1].held = 0.1;
        let g = plan(&ir, &cone, &roots, &h);
        assert_eq!(g.bits, vec![1]);
        assert_eq!(g.block_of, vec![0, 0, 0]);
    }

    #[test]
    fn roots_grouped_but_in_no_block_still_go_through_the_scratch_words() {
        let (ir, cone, roots) = board();
        let g = plan(&ir, &cone, &roots, &held(0.5, 0.4));
        assert!(g.is_empty() && g.found);
        let g = plan(&ir, &cone, &roots[3..], &held(0.5, 0.4));
        assert!(g.is_empty() && !g.found);
    }
}
