//! Listing a role's legal moves from the engine's values: the legal outputs are read as words,
//! and the guard that most of a role's moves share (whose turn it is, see
//! [`Net::legal_guard`]) is tested once per listing, as a mask over the words, rather than once
//! per move whose output holds.

use super::{NONE, Net};
use crate::SplitMix64;

/// Per role: its most common guard and the moves that have it.
#[derive(Clone, Debug, Default)]
pub(super) struct Guards {
    /// Per role: the guard (`node << 1 | negated`, in the engine's numbering) most of its
    /// guarded moves have, or [`NONE`].
    common: Vec<u32>,
    /// Per role: one bit per move, set for the moves whose guard is the common one.
    masks: Vec<Vec<u64>>,
}

impl Guards {
    /// The common guard of each role of `net`, its literals translated by `new_of`.
    pub(super) fn new(net: &Net, new_of: &[u32]) -> Guards {
        let mut common = Vec::with_capacity(net.moves.len());
        let mut masks = Vec::with_capacity(net.moves.len());
        for (r, &n) in net.moves.iter().enumerate() {
            let guards = net.legal_guard.get(r).map_or(&[][..], Vec::as_slice);
            let mut mask = vec![0u64; (n as usize).div_ceil(64)];
            // The guard of the first guarded move; moves with another guard are tested one by
            // one (gdlc gives a role one guard).
            let g = guards.iter().copied().find(|&g| g != NONE).unwrap_or(NONE);
            if g != NONE {
                for (m, _) in guards.iter().enumerate().filter(|&(_, &x)| x == g) {
                    if let Some(w) = mask.get_mut(m / 64) {
                        *w |= 1 << (m % 64);
                    }
                }
            }
            common.push(translate(g, new_of));
            masks.push(mask);
        }
        Guards { common, masks }
    }
}

/// A literal `node << 1 | negated` of the network, in the engine's numbering.
pub(super) fn translate(g: u32, new_of: &[u32]) -> u32 {
    if g == NONE {
        return NONE;
    }
    new_of
        .get((g >> 1) as usize)
        .map_or(g, |&n| n << 1 | (g & 1))
}

impl super::Engine<'_> {
    /// Calls `f` with each word of the legal moves of `role` that has a move (its index and
    /// bits: bit `m % 64` of word `m / 64` for move `m`), ascending.
    #[inline]
    fn legal_words(&self, role: usize, mut f: impl FnMut(usize, u64)) {
        let net = self.net;
        let (Some(&base), Some(&n)) = (net.legal_base.get(role), net.moves.get(role)) else {
            return;
        };
        let guards = net.legal_guard.get(role).map_or(&[][..], Vec::as_slice);
        let common = self.guards.common.get(role).copied().unwrap_or(NONE);
        let mask = self.guards.masks.get(role).map_or(&[][..], Vec::as_slice);
        // Whether the common guard holds: if not, its moves are masked out word by word.
        let holds = common == NONE || self.get(common >> 1) != (common & 1 != 0);
        let w0 = (base / 64) as usize;
        let n = n as usize;
        let Some(words) = self.value.get(w0..w0 + n.div_ceil(64)) else {
            return;
        };
        for (w, &v) in words.iter().enumerate() {
            // Most words of a large game hold no legal move: the common case costs one test.
            if v == 0 {
                continue;
            }
            let mut x = v;
            if (w + 1) * 64 > n {
                x &= (1u64 << (n - w * 64)) - 1;
            }
            let guarded = mask.get(w).copied().unwrap_or(0);
            if !holds {
                x &= !guarded;
            }
            // The moves left to test: those with another guard than the common one.
            let mut test = x & !guarded;
            while test != 0 {
                let b = test.trailing_zeros();
                test &= test - 1;
                let m = (w * 64) as u32 + b;
                if let Some(&g) = guards.get(m as usize)
                    && g != NONE
                    && self.read(g >> 1) == (g & 1 != 0)
                {
                    x &= !(1 << b);
                }
            }
            if x != 0 {
                f(w, x);
            }
        }
    }

    /// Appends the legal moves of `role`, ascending.
    pub fn legal(&self, role: usize, out: &mut Vec<u32>) {
        self.legal_words(role, |w, x| push_bits(out, w, x));
    }

    /// One legal move of `role` drawn at random: the `rng.below(n)`-th of its `n` legal moves,
    /// ascending, which is the move [`Engine::legal`]'s list gives for the same draw. `None`
    /// (and no draw) when it has none.
    pub fn random_legal(&mut self, role: usize, rng: &mut SplitMix64) -> Option<u32> {
        let mut found = std::mem::take(&mut self.picks);
        found.clear();
        self.legal_words(role, |w, x| found.push((w as u32, x)));
        let pick = crate::bits::pick_move_sparse(&found, rng);
        self.picks = found;
        pick
    }

    /// One step of a random playout from the held state: each role in order draws its move
    /// as [`Engine::random_legal`] does, the joint move is set and the next state written
    /// into `next`. `Err(role)` when `role` has no legal move (the roles before it have
    /// drawn; the joint move held and `next` are unchanged).
    pub fn random_step(&mut self, rng: &mut SplitMix64, next: &mut [u64]) -> Result<(), usize> {
        let mut joint = std::mem::take(&mut self.drawn);
        joint.clear();
        for r in 0..self.net.moves.len() {
            match self.random_legal(r, rng) {
                Some(m) => joint.push(m),
                None => {
                    self.drawn = joint;
                    return Err(r);
                }
            }
        }
        self.set_joint(&joint);
        self.drawn = joint;
        self.next(next);
        Ok(())
    }
}

/// Appends the moves of the set bits of word `w`.
#[inline]
fn push_bits(out: &mut Vec<u32>, w: usize, mut x: u64) {
    while x != 0 {
        out.push((w * 64) as u32 + x.trailing_zeros());
        x &= x - 1;
    }
}
