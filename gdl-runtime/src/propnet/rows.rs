//! Per-move tables of the next state: what a move does to the next state whatever the rest of
//! the state, read from a row of the move instead of propagated through the network.
//!
//! Most next-state bits of a board game are "the cell keeps its piece unless a move touches
//! it" and "a move puts a piece there". Through the network, a move's `does` input reaches the
//! gates that say "a move touches this cell" and the next-state outputs of every piece that
//! may be there: a chain of dependent cache misses per step. Here a next-state bit `b` in the
//! tables is
//!
//! ```text
//! next(b) = held(b) & frame(b) & !killed(b) | set(b) | out(b)
//! ```
//!
//! where `frame` says whether `b` keeps its held value unless killed, `killed` and `set` are
//! the ors of the entries of each role's move (an entry may be conditional on one state bit:
//! an en-passant capture empties the cell the captured pawn stood on only when it could be
//! captured), and `out` is the network's next-state output, which then computes only the
//! disjuncts of `b` that read no move. gdlc (`codegen/propnet/rows.rs`) builds the rows and
//! leaves those disjuncts out of the network; when no output of the network reads a move any
//! more, a joint move costs the engine no propagation at all.

/// One entry of a move's row: the bits of a next-state word that the move kills or sets when
/// its condition holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowEntry {
    /// The state bit that must hold for the entry to apply (`bit << 1 | negated`), or
    /// `u32::MAX`: always.
    pub cond: u32,
    /// The state word.
    pub word: u32,
    /// The bits whose held value does not carry over (of those in the frame).
    pub kill: u64,
    /// The bits that are set.
    pub set: u64,
}

/// The per-move tables of a network (see the [module documentation](self)); empty for a
/// network that computes its whole next state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NextRows {
    /// Per state word: the bits that keep their held value unless a move kills them.
    pub frame: Vec<u64>,
    /// Per role: per move, where its entries start in `entries` (one more than the role's
    /// moves: the last entry is where the next move's would start).
    pub start: Vec<Vec<u32>>,
    /// The entries of every move, each move's contiguous.
    pub entries: Vec<RowEntry>,
}

impl NextRows {
    /// Whether there are no tables (the network computes the whole next state).
    pub fn is_empty(&self) -> bool {
        self.frame.is_empty() && self.entries.is_empty()
    }

    /// The entries of `role`'s move `m` (none for no move).
    #[inline]
    fn row(&self, role: usize, m: u32) -> &[RowEntry] {
        let Some(start) = self.start.get(role) else {
            return &[];
        };
        match (start.get(m as usize), start.get(m as usize + 1)) {
            (Some(&a), Some(&b)) => self.entries.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Asks memory for the row of `role`'s move `m`, as soon as it is drawn: the row is read
    /// when the next state is, and the rows of a large game do not stay in the cache.
    #[inline]
    pub(super) fn prefetch(&self, role: usize, m: u32) {
        if let Some(&a) = self.start.get(role).and_then(|s| s.get(m as usize)) {
            super::edges::prefetch_at(&self.entries, a as usize);
        }
    }

    /// Writes the next state's bits in the tables into `out` (words): the held bits of the
    /// frame that the joint move does not kill, and those it sets. The network's outputs are
    /// to be ored in.
    #[inline]
    pub(super) fn apply(&self, state: &[u64], joint: &[u32], out: &mut [u64]) {
        for (w, o) in out.iter_mut().enumerate() {
            *o = state.get(w).copied().unwrap_or(0) & self.frame.get(w).copied().unwrap_or(0);
        }
        let holds = |cond: u32| {
            cond == u32::MAX || {
                let b = cond >> 1;
                let v = state.get((b >> 6) as usize).copied().unwrap_or(0) >> (b & 63) & 1;
                v != u64::from(cond & 1)
            }
        };
        // Every kill before any set: a bit one role's move sets is not killed by another's.
        for (r, &m) in joint.iter().enumerate() {
            for e in self.row(r, m) {
                if e.kill != 0
                    && holds(e.cond)
                    && let Some(o) = out.get_mut(e.word as usize)
                {
                    *o &= !e.kill;
                }
            }
        }
        for (r, &m) in joint.iter().enumerate() {
            for e in self.row(r, m) {
                if e.set != 0
                    && holds(e.cond)
                    && let Some(o) = out.get_mut(e.word as usize)
                {
                    *o |= e.set;
                }
            }
        }
    }

    /// Whether the tables fit a network of `bits` state bits and these roles' moves.
    pub(super) fn fits(&self, bits: u32, moves: &[u32]) -> bool {
        if self.is_empty() {
            return true;
        }
        let words = (bits as usize).div_ceil(64).max(1);
        self.frame.len() == words
            && self.start.len() == moves.len()
            && self.start.iter().zip(moves).all(|(s, &m)| {
                s.len() == m as usize + 1
                    && s.windows(2).all(|w| w[0] <= w[1])
                    && s.last().is_some_and(|&e| e as usize <= self.entries.len())
            })
            && self
                .entries
                .iter()
                .all(|e| (e.word as usize) < words && (e.cond == u32::MAX || e.cond >> 1 < bits))
    }
}
