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

/// A word of legal moves, with its index and the number of moves in the words before it (see
/// [`pick_move_counted`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    pub index: u32,
    pub before: u32,
    pub bits: u64,
}

/// [`pick_move`] over the words that have a bit set, ascending, each with the number of moves
/// before it, `total` moves in all (the propnet engine's legal moves, counted as they are
/// found, mostly empty words skipped): the word the draw lands in is found by a binary search
/// on the counts, without counting the words again.
#[inline]
pub fn pick_move_counted(words: &[Counted], total: u32, rng: &mut SplitMix64) -> Option<u32> {
    if total == 0 {
        return None;
    }
    let k = rng.below(total as usize) as u32;
    let at = words.partition_point(|w| w.before <= k).checked_sub(1)?;
    let w = words.get(at)?;
    Some(w.index * 64 + nth_bit(w.bits, k - w.before))
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
            return Some(i * 64 + nth_bit(w, k));
        }
        k -= c;
    }
    None
}

/// The position of the `k`-th set bit of `w` (from 0, least significant first; 64 if it has
/// `k` or fewer).
#[inline(always)]
fn nth_bit(mut w: u64, k: u32) -> u32 {
    for _ in 0..k {
        w &= w.wrapping_sub(1);
    }
    w.trailing_zeros()
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

    /// The counted pick draws the move that the pick over all words draws, leaving the
    /// generator where it does.
    #[test]
    fn a_counted_pick_is_the_pick_of_the_same_draw() {
        let words = [0, 0x8000_0000_0000_0101u64, 0, 0, 0b110, 1 << 40];
        let mut counted = Vec::new();
        let mut total = 0;
        for (i, &bits) in words.iter().enumerate().filter(|w| *w.1 != 0) {
            counted.push(Counted {
                index: i as u32,
                before: total,
                bits,
            });
            total += bits.count_ones();
        }
        for seed in 0..200 {
            let (mut a, mut b) = (SplitMix64::new(seed), SplitMix64::new(seed));
            assert_eq!(
                pick_move_counted(&counted, total, &mut a),
                pick_move(&words, &mut b)
            );
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut a = SplitMix64::new(5);
        assert_eq!(pick_move_counted(&[], 0, &mut a), None);
        assert_eq!(a.next_u64(), SplitMix64::new(5).next_u64());
    }

    #[test]
    fn no_move_no_draw() {
        let mut a = SplitMix64::new(5);
        assert_eq!(pick_move(&[0, 0], &mut a), None);
        assert_eq!(a.next_u64(), SplitMix64::new(5).next_u64());
    }
}
