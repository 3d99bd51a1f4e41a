//! Legal moves as words of bits (bit `m % 64` of word `m / 64` for move `m`), as the inline
//! code of compiled games computes them: listed in ascending order ([`push_moves`]), or one
//! drawn without listing ([`pick_move`], behind [`crate::Game::random_legal_move`]).

use crate::SplitMix64;

/// Appends the moves whose bits are set, ascending.
#[inline]
pub fn push_moves(words: &[u64], out: &mut Vec<u32>) {
    for (i, &w) in words.iter().enumerate() {
        let mut w = w;
        out.reserve(w.count_ones() as usize);
        while w != 0 {
            out.push(i as u32 * 64 + w.trailing_zeros());
            w &= w - 1;
        }
    }
}

/// The `rng.below(n)`-th of the `n` moves whose bits are set, ascending: the move that
/// [`crate::Game::random_legal_move`]'s default draws from the list [`push_moves`] makes, with
/// the same draw. `None` (and no draw) when no bit is set.
#[inline]
pub fn pick_move(words: &[u64], rng: &mut SplitMix64) -> Option<u32> {
    pick(words.iter().enumerate().map(|(i, &w)| (i as u32, w)), rng)
}

/// [`pick_move`] over the words that have a bit set, each with its index, ascending (the
/// propnet engine's legal moves, mostly empty words skipped).
#[inline]
pub fn pick_move_sparse(words: &[(u32, u64)], rng: &mut SplitMix64) -> Option<u32> {
    pick(words.iter().copied(), rng)
}

/// The draw of [`pick_move`] over `(index, word)` pairs, ascending.
#[inline(always)]
fn pick(words: impl Iterator<Item = (u32, u64)> + Clone, rng: &mut SplitMix64) -> Option<u32> {
    let n: u32 = words.clone().map(|(_, w)| w.count_ones()).sum();
    if n == 0 {
        return None;
    }
    let mut k = rng.below(n as usize) as u32;
    for (i, w) in words {
        let c = w.count_ones();
        if k < c {
            let mut w = w;
            for _ in 0..k {
                w &= w - 1;
            }
            return Some(i * 64 + w.trailing_zeros());
        }
        k -= c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_in_ascending_order_across_words() {
        let mut out = vec![7];
        push_moves(&[0b1010, 1 << 63, 0, 1], &mut out);
        assert_eq!(out, vec![7, 1, 3, 127, 192]);
    }

    #[test]
    fn a_pick_is_the_listed_move_of_the_same_draw() {
        let words = [0x8000_0000_0000_0101u64, 0, 0b110];
        let mut listed = Vec::new();
        push_moves(&words, &mut listed);
        for seed in 0..200 {
            let (mut a, mut b) = (SplitMix64::new(seed), SplitMix64::new(seed));
            let picked = pick_move(&words, &mut a);
            assert_eq!(picked, Some(listed[b.below(listed.len())]));
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn no_move_no_draw() {
        let mut a = SplitMix64::new(5);
        assert_eq!(pick_move(&[0, 0], &mut a), None);
        assert_eq!(a.next_u64(), SplitMix64::new(5).next_u64());
    }
}
