//! The seeded move chooser of the reference traces (`gdl_tools::trace`): at every non-terminal
//! step one draw per role, in role order, indexing that role's sorted legal moves.

/// SplitMix64: one 64-bit state, advanced by the golden-ratio increment at every draw.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index in `0..n`, as the trace chooser draws it (`z mod n`). `n` must not be zero.
    /// A draw is made whatever `n` is (a role with one move draws too), so the sequence does
    /// not depend on the moves; with one move the division, the costliest part of a step in
    /// small games, is skipped.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        let z = self.next_u64();
        if n <= 1 { 0 } else { (z % n as u64) as usize }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_splitmix64_sequence() {
        // Reference outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn one_move_still_draws() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        assert_eq!(a.below(1), 0);
        b.next_u64();
        assert_eq!(a.below(10), b.below(10));
        assert_eq!(a.next_u64(), b.next_u64());
        let z = SplitMix64::new(3).next_u64();
        assert_eq!(SplitMix64::new(3).below(9), (z % 9) as usize);
    }
}
