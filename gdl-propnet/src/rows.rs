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
//! next(b) = held(b) & (frame(b) & !killed(b) | kept(b)) | set(b) | out(b)
//! ```
//!
//! where `frame` says whether `b` keeps its held value unless killed, `killed`, `kept` and
//! `set` are the ors of the entries of each role's move (an entry may be conditional on one
//! state bit: an en-passant capture empties the cell the captured pawn stood on only when it
//! could be captured; a checkers piece is kept by the moves that do not jump over it), and
//! `out` is the network's next-state output, which then computes only the
//! disjuncts of `b` that read no move. gdlc (`codegen/propnet/rows.rs`) builds the rows and
//! leaves those disjuncts out of the network; when no output of the network reads a move any
//! more, a joint move costs the engine no propagation at all.

/// One entry of a move's row: bits of a next-state word that the move kills, keeps or sets
/// when its condition holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowEntry {
    /// The state bit that must hold for the entry to apply (`bit << 1 | negated`), or
    /// `u32::MAX`: always.
    pub cond: u32,
    /// The state word and what the entry does to its bits: `word << 2 |` [`KILL`], [`KEEP`]
    /// or [`SET`].
    pub at: u32,
    /// The bits.
    pub mask: u64,
}

/// A [`RowEntry`] whose bits do not keep their held value (of those in the frame).
pub const KILL: u32 = 0;
/// A [`RowEntry`] whose bits keep their held value.
pub const KEEP: u32 = 1;
/// A [`RowEntry`] whose bits are set.
pub const SET: u32 = 2;

/// The per-move tables of a network (see `rows.rs`); empty for a
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
    /// frame that the joint move does not kill, those it keeps and those it sets. The
    /// network's outputs are to be ored in. (Out of line: the engine's `next` stays as small
    /// as it was for the networks without rows.)
    #[inline(never)]
    pub(super) fn apply(&self, state: &[u64], joint: &[u32], out: &mut [u64]) {
        for (w, o) in out.iter_mut().enumerate() {
            *o = state.get(w).copied().unwrap_or(0) & self.frame.get(w).copied().unwrap_or(0);
        }
        let held = |w: usize| state.get(w).copied().unwrap_or(0);
        let holds = |cond: u32| {
            cond == u32::MAX || {
                let b = cond >> 1;
                (held((b >> 6) as usize) >> (b & 63) & 1) != u64::from(cond & 1)
            }
        };
        // Every kill before anything is kept or set (a row's kills come first): a bit one
        // role's move keeps or sets is not killed by another's.
        for (r, &m) in joint.iter().enumerate() {
            for e in self.row(r, m) {
                if e.at & 3 != KILL {
                    break;
                }
                if holds(e.cond)
                    && let Some(o) = out.get_mut((e.at >> 2) as usize)
                {
                    *o &= !e.mask;
                }
            }
        }
        for (r, &m) in joint.iter().enumerate() {
            for e in self.row(r, m) {
                let w = (e.at >> 2) as usize;
                let bits = match e.at & 3 {
                    KILL => continue,
                    KEEP => held(w) & e.mask,
                    _ => e.mask,
                };
                if holds(e.cond)
                    && let Some(o) = out.get_mut(w)
                {
                    *o |= bits;
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
            && self.entries.iter().all(|e| {
                ((e.at >> 2) as usize) < words
                    && e.at & 3 <= SET
                    && (e.cond == u32::MAX || e.cond >> 1 < bits)
            })
    }
}
