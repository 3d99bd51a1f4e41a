//! The recursive groups to settle once the changes outside groups are done, least first.

/// A set of nodes (the first nodes of the groups to settle) taken out in ascending order: one
/// bit per node, and one bit per word of those that says whether it has a bit set.
#[derive(Clone, Debug)]
pub(super) struct Pending {
    bits: Vec<u64>,
    summary: Vec<u64>,
    /// No word of `summary` before this one has a bit set.
    from: usize,
}

impl Pending {
    pub(super) fn new(nodes: usize) -> Pending {
        let words = nodes.div_ceil(64) + 1;
        Pending {
            bits: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            from: usize::MAX,
        }
    }

    /// Removes every node.
    pub(super) fn clear(&mut self) {
        self.bits.fill(0);
        self.summary.fill(0);
        self.from = usize::MAX;
    }

    /// Adds node `n`.
    #[inline(always)]
    pub(super) fn set(&mut self, n: usize) {
        let w = n >> 6;
        self.bits[w] |= 1 << (n & 63);
        self.summary[w >> 6] |= 1 << (w & 63);
        self.from = self.from.min(w >> 6);
    }

    /// Removes and returns the least node, if any. A node added behind the last one returned
    /// (an edge against the node order, which networks from gdlc do not have) moves the
    /// search back to it.
    #[inline]
    pub(super) fn take(&mut self) -> Option<u32> {
        while let Some(s) = self.summary.get_mut(self.from) {
            if *s == 0 {
                self.from += 1;
                continue;
            }
            let w = self.from * 64 + s.trailing_zeros() as usize;
            let word = &mut self.bits[w];
            let b = word.trailing_zeros() as usize;
            *word &= *word - 1;
            if *word == 0 {
                *s &= *s - 1;
            }
            return Some((w * 64 + b) as u32);
        }
        self.from = usize::MAX;
        None
    }
}
