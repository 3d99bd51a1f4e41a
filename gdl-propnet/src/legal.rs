//! Listing a role's legal moves from the engine's values: the legal outputs are read as words,
//! and the guard that most of a role's moves share (whose turn it is, see
//! [`Net::legal_guard`]) is tested once per listing, as a mask over the words, rather than once
//! per move whose output holds. An input that a legal and-gate shares with many others (chosen
//! by [`lifted`]) is not kept as an edge: the listing tests it for each move whose output
//! holds.
//!
//! When the guard fails (the idle role of a turn-based game), only the role's words that hold
//! a move outside it are read. A random draw counts the moves of each word as it is found, so
//! that the word the draw lands in is found by a binary search on the counts
//! ([`gdl_runtime::bits::pick_move_counted`]).

use super::{NONE, Net};
use gdl_runtime::SplitMix64;
use gdl_runtime::bits::Counted;

/// The fewest out-edges a literal needs for the engine to test it when listing moves rather than
/// visit its edges into legal outputs (see [`lifted`]).
const LIFT_MIN_FAN: usize = 8;

/// Per role: its most common guard and the moves that have it, and the moves that have a
/// literal of their own to test.
#[derive(Clone, Debug, Default)]
pub(super) struct Guards {
    /// Per role: the guard (`node << 1 | negated`, in the engine's numbering) most of its
    /// guarded moves have, or [`NONE`].
    common: Vec<u32>,
    /// Per role: one bit per move, set for the moves whose guard is the common one.
    masks: Vec<Vec<u64>>,
    /// Per role, per move: the literal of its own (engine's numbering) that it needs as well,
    /// or [`NONE`]: a guard of the network other than the common one, or an input of its legal
    /// output that the engine tests instead (see [`lifted`]).
    own: Vec<Vec<u32>>,
    /// Per role: one bit per move, set for the moves with a literal of their own.
    own_masks: Vec<Vec<u64>>,
    /// Per role: the words that hold a move without the common guard, ascending: all that a
    /// listing reads when the guard fails (the idle role of a turn-based game).
    free: Vec<Vec<u32>>,
}

/// An input edge of a legal output that the engine does not keep: the move's own test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lifted {
    pub role: usize,
    pub mv: u32,
    /// The legal output (the network's numbering).
    pub output: u32,
    /// The literal (`node << 1 | negated`, the network's numbering).
    pub lit: u32,
}

impl Guards {
    /// The common guard of each role of `net` and the literals of `lifted`, translated by
    /// `new_of`.
    pub(super) fn new(net: &Net, new_of: &[u32], lifted: &[Lifted]) -> Guards {
        let mut g = Guards::default();
        for (r, &n) in net.moves.iter().enumerate() {
            let guards = net.legal_guard.get(r).map_or(&[][..], Vec::as_slice);
            let words = (n as usize).div_ceil(64);
            let mut mask = vec![0u64; words];
            let mut own = vec![NONE; n as usize];
            let mut own_mask = vec![0u64; words];
            // The guard of the first guarded move; moves with another guard test theirs one
            // by one (gdlc gives a role one guard).
            let common = common_guard(guards);
            for (m, &x) in guards.iter().enumerate().take(n as usize) {
                if x == NONE {
                    continue;
                }
                if x == common {
                    mask[m / 64] |= 1 << (m % 64);
                } else {
                    own[m] = translate(x, new_of);
                    own_mask[m / 64] |= 1 << (m % 64);
                }
            }
            g.common.push(translate(common, new_of));
            g.free.push(free_words(&mask, n as usize));
            g.masks.push(mask);
            g.own.push(own);
            g.own_masks.push(own_mask);
        }
        for l in lifted {
            let m = l.mv as usize;
            if let (Some(own), Some(own_mask)) =
                (g.own.get_mut(l.role), g.own_masks.get_mut(l.role))
                && own.get(m) == Some(&NONE)
            {
                own[m] = translate(l.lit, new_of);
                own_mask[m / 64] |= 1 << (m % 64);
            }
        }
        g
    }
}

/// The words of a role of `n` moves that hold a move outside `mask` (the moves of the common
/// guard), ascending.
fn free_words(mask: &[u64], n: usize) -> Vec<u32> {
    (0..n.div_ceil(64))
        .filter(|&w| range_bits(w, n) & !mask.get(w).copied().unwrap_or(0) != 0)
        .map(|w| w as u32)
        .collect()
}

/// The bits of word `w` of an `n`-bit vector (a role of `n` moves, a state of `n` bits).
#[inline]
pub(super) fn range_bits(w: usize, n: usize) -> u64 {
    match n.saturating_sub(w * 64) {
        0 => 0,
        k if k >= 64 => u64::MAX,
        k => (1u64 << k) - 1,
    }
}

/// The guard the engine tests once per listing: that of the first guarded move.
fn common_guard(guards: &[u32]) -> u32 {
    guards.iter().copied().find(|&g| g != NONE).unwrap_or(NONE)
}

/// Calls `f` on every node that a query of the engine reads directly (not through an edge):
/// terminal, the goals, the sees, the legal outputs' guards and the join tables' signals.
fn read_by_queries(net: &Net, f: &mut impl FnMut(u32)) {
    f(net.terminal);
    net.goals.iter().flatten().for_each(|&(_, n)| f(n));
    net.sees.iter().flatten().for_each(|&n| f(n));
    net.legal_guard
        .iter()
        .flatten()
        .filter(|&&g| g != NONE)
        .for_each(|&g| f(g >> 1));
    net.joins
        .tables
        .iter()
        .flat_map(|t| &t.signals)
        .filter(|&&s| s != super::ALWAYS)
        .for_each(|&s| f(s >> 1));
}

/// The input edges of legal outputs that the engine tests when listing moves instead of
/// keeping them: of a legal output that is an and-gate of two or more inputs (each input
/// once), read by nothing but the listing and without a guard of its own, the input with the
/// most out-edges, when it has at least [`LIFT_MIN_FAN`] and every other input at most half as
/// many (so that the inputs left are specific to the move: with two broad inputs, such as a
/// piece of the mover's on the first square and none on the second, the output left would
/// hold for too many moves, each tested at every listing). Such a
/// literal (whether a square is free, whether the mover is in check) is shared by many moves
/// and changes their outputs often; the move's other inputs, specific to it, keep its output
/// up to date and are rarely all true, so the literal is tested for few moves per listing.
pub(super) fn lifted(net: &Net) -> Vec<Lifted> {
    let nodes = net.nodes as usize;
    let fan_len = |n: usize| {
        let a = net.fan_start.get(n).copied().unwrap_or(0);
        let b = net.fan_start.get(n + 1).copied().unwrap_or(a);
        b.saturating_sub(a) as usize
    };
    // Per node, the role and move whose legal output it is.
    let mut legal_of: Vec<Option<(usize, u32)>> = vec![None; nodes];
    for (r, (&base, &n)) in net.legal_base.iter().zip(&net.moves).enumerate() {
        let guards = net.legal_guard.get(r).map_or(&[][..], Vec::as_slice);
        let common = common_guard(guards);
        for m in 0..n {
            let own = guards.get(m as usize).copied().unwrap_or(NONE);
            if own != NONE && own != common {
                continue;
            }
            if let Some(x) = legal_of.get_mut((base + m) as usize) {
                *x = Some((r, m));
            }
        }
    }
    // Outputs read otherwise than by the listing keep every input.
    let mut read = |n: u32| {
        if let Some(x) = legal_of.get_mut(n as usize) {
            *x = None;
        }
    };
    read_by_queries(net, &mut read);
    let next = net.next_base;
    (next..next.saturating_add(net.bits)).for_each(&mut read);
    for (n, x) in legal_of.iter_mut().enumerate() {
        if fan_len(n) > 0 || net.group_of.get(n).is_some_and(|&g| g != NONE) {
            *x = None;
        }
    }
    // The inputs of each legal output: (literal, out-edges of its node).
    let mut ins: Vec<Vec<(u32, usize)>> = vec![Vec::new(); nodes];
    for n in 0..nodes {
        let a = net.fan_start[n] as usize;
        for &e in net.fan.get(a..a + fan_len(n)).unwrap_or(&[]) {
            let t = (e >> 2) as usize;
            if legal_of.get(t).is_some_and(Option::is_some) {
                if e & 2 != 0 {
                    legal_of[t] = None;
                }
                ins[t].push(((n as u32) << 1 | (e & 1), fan_len(n)));
            }
        }
    }
    let mut out = Vec::new();
    for (t, x) in legal_of.iter().enumerate() {
        let (Some((role, mv)), Some(ins)) = (x, ins.get(t)) else {
            continue;
        };
        let k = ins.len();
        if k < 2 || net.thresh.get(t).copied() != Some(k as u32) {
            continue;
        }
        let Some(&(lit, fan)) = ins.iter().max_by_key(|&&(l, f)| (f, std::cmp::Reverse(l))) else {
            continue;
        };
        let once = ins.iter().filter(|&&(l, _)| l >> 1 == lit >> 1).count() == 1;
        // The inputs left are specific to the move: far fewer out-edges.
        let specific = ins
            .iter()
            .filter(|&&(l, _)| l != lit)
            .all(|&(_, f)| f * 2 <= fan);
        if once && fan >= LIFT_MIN_FAN && specific {
            out.push(Lifted {
                role: *role,
                mv: *mv,
                output: t as u32,
                lit,
            });
        }
    }
    out
}

/// Per node of the network, the legal outputs it feeds instead of itself, for an or-gate
/// that only legal outputs read, each of which [`lifted`] left with it as its one input (its
/// other, the literal lifted, tested when listing): amazons' "an arrow may land here",
/// `(legalMove ?player (fire ?x ?y))`, an or of the rays from where the queen moved read by
/// both roles' outputs under whose turn it is. The outputs then read the or-gate's inputs
/// directly (each an or-gate of them, its count that of the or-gate), and the or-gate,
/// unread, none: a change of where an arrow may land is one change fewer (amazons_8x8: 8 of
/// 37 a state).
pub(super) fn bypassed(net: &Net, lifted: &[Lifted]) -> Vec<Option<Vec<u32>>> {
    let nodes = net.nodes as usize;
    let mut out: Vec<Option<Vec<u32>>> = vec![None; nodes];
    if lifted.is_empty() {
        return out;
    }
    let range = |n: usize| net.fan_start[n] as usize..net.fan_start[n + 1] as usize;
    // Per lifted output, the source of the literal lifted; per node, its input edges left.
    let mut dropped = vec![NONE; nodes];
    for l in lifted {
        dropped[l.output as usize] = l.lit >> 1;
    }
    let mut left = vec![0u32; nodes];
    for n in 0..nodes {
        for &e in net.fan.get(range(n)).unwrap_or(&[]) {
            let t = (e >> 2) as usize;
            if dropped.get(t) != Some(&(n as u32)) {
                left[t] += 1;
            }
        }
    }
    // Nodes read otherwise than by edges: never bypassed.
    let mut read = vec![false; nodes];
    let mut mark = |n: u32| {
        if let Some(x) = read.get_mut(n as usize) {
            *x = true;
        }
    };
    read_by_queries(net, &mut mark);
    for (&base, &n) in net.legal_base.iter().zip(&net.moves) {
        (base..base.saturating_add(n)).for_each(&mut mark);
    }
    (net.next_base..net.next_base.saturating_add(net.bits)).for_each(&mut mark);
    let first_gate = net.first_gate() as usize;
    for (x, slot) in out.iter_mut().enumerate().skip(first_gate) {
        let fan = net.fan.get(range(x)).unwrap_or(&[]);
        let eligible = !read[x]
            && net.thresh.get(x) == Some(&1)
            && net.group_of.get(x) == Some(&NONE)
            && !fan.is_empty()
            && fan.iter().all(|&e| {
                let o = (e >> 2) as usize;
                e & 3 == 0
                    && dropped.get(o).is_some_and(|&d| d != NONE && d != x as u32)
                    && left.get(o) == Some(&1)
                    && net.thresh.get(o) == Some(&2)
                    && net.group_of.get(o) == Some(&NONE)
                    && net.fan.get(range(o)).is_some_and(<[u32]>::is_empty)
            });
        if eligible {
            *slot = Some(fan.iter().map(|&e| e >> 2).collect());
        }
    }
    out
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

/// A disjunct of `terminal` that the engine tests from the legal moves rather than the network
/// computing it: the state bit of `guard` (`bit << 1 | negated`) holds and `role` has none of
/// the legal moves of `moves` (words of move bits: bit `m % 64` of word `m / 64`). A network
/// that computed "a move of the role is legal" gave its legal moves fan-out and changes to
/// carry (checkers' `has_legal_move`, read by `stuck`: a quarter of a step).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stuck {
    pub guard: u32,
    pub role: u32,
    pub moves: Vec<u64>,
}

impl super::Engine<'_> {
    /// Whether a [`Stuck`] disjunct of the network holds in the held state. The role's legal
    /// moves are listed as a draw lists them and kept (see [`Engine::listing`]), so that the
    /// draw of a random step from this state reads them without listing them again.
    pub(super) fn stuck(&mut self) -> bool {
        let net = self.net;
        net.stuck.iter().any(|s| {
            let b = (s.guard >> 1) as usize;
            let bit = self
                .state
                .get(b / 64)
                .is_some_and(|&w| w >> (b % 64) & 1 != 0);
            if bit == (s.guard & 1 != 0) {
                return false;
            }
            self.listing(s.role as usize);
            !self
                .picks
                .iter()
                .any(|c| c.bits & s.moves.get(c.index as usize).copied().unwrap_or(0) != 0)
        })
    }

    /// Lists the legal moves of `role` into `picks` and their number into `picked`, unless
    /// they hold them already for the held values.
    fn listing(&mut self, role: usize) {
        if self.listed == role as u32 {
            return;
        }
        let mut found = std::mem::take(&mut self.picks);
        self.picked = self.counted(role, &mut found);
        self.picks = found;
        self.listed = role as u32;
        #[cfg(test)]
        {
            self.lists += 1;
        }
    }

    /// Replaces `found` with the words of the legal moves of `role` that have one, each with
    /// the moves before it, and returns their number.
    #[inline]
    fn counted(&self, role: usize, found: &mut Vec<Counted>) -> u32 {
        found.clear();
        let mut total = 0;
        self.legal_words(role, |w, bits| {
            found.push(Counted {
                index: w as u32,
                before: total,
                bits,
            });
            total += bits.count_ones();
        });
        total
    }

    /// Calls `f` with each word of the legal moves of `role` that has a move (its index and
    /// bits: bit `m % 64` of word `m / 64` for move `m`), ascending.
    ///
    /// When the common guard fails, only the role's words with moves outside it are read.
    /// Otherwise the words are read 64 at a time into a summary of those that are not empty
    /// (without a branch per word: most are empty, and which ones changes from state to
    /// state), and only those are looked at.
    #[inline]
    fn legal_words(&self, role: usize, mut f: impl FnMut(usize, u64)) {
        let net = self.net;
        let (Some(&base), Some(&n)) = (net.legal_base.get(role), net.moves.get(role)) else {
            return;
        };
        let g = &self.guards;
        let common = g.common.get(role).copied().unwrap_or(NONE);
        let mask = g.masks.get(role).map_or(&[][..], Vec::as_slice);
        let own = g.own.get(role).map_or(&[][..], Vec::as_slice);
        let own_mask = g.own_masks.get(role).map_or(&[][..], Vec::as_slice);
        let n = n as usize;
        let w0 = (base / 64) as usize;
        let Some(words) = self.value.get(w0..w0 + n.div_ceil(64)) else {
            return;
        };
        // The moves of word `w` (of value `v`) whose own literal holds, if they have one.
        let tested = |w: usize, v: u64| -> u64 {
            let mut x = v & range_bits(w, n);
            let mut test = x & own_mask.get(w).copied().unwrap_or(0);
            while test != 0 {
                let b = test.trailing_zeros();
                test &= test - 1;
                let l = own.get(w * 64 + b as usize).copied().unwrap_or(NONE);
                // (NONE, never in `own_mask`, reads as a literal that holds.)
                let node = (l >> 1) as usize;
                let value = self
                    .value
                    .get(node >> 6)
                    .map_or(0, |&v| v >> (node & 63) & 1);
                let fails = value ^ u64::from(l & 1) ^ 1;
                x &= !(fails << b);
            }
            x
        };
        // Whether the common guard holds: if not, its moves are masked out.
        let holds = common == NONE || self.get(common >> 1) != (common & 1 != 0);
        if !holds {
            for &w in g.free.get(role).map_or(&[][..], Vec::as_slice) {
                let w = w as usize;
                let v = words.get(w).copied().unwrap_or(0) & !mask.get(w).copied().unwrap_or(0);
                if v != 0 {
                    let x = tested(w, v);
                    if x != 0 {
                        f(w, x);
                    }
                }
            }
            return;
        }
        for (c, chunk) in words.chunks(64).enumerate() {
            let mut full = 0u64;
            for (i, &v) in chunk.iter().enumerate() {
                full |= u64::from(v != 0) << i;
            }
            while full != 0 {
                let i = full.trailing_zeros() as usize;
                full &= full - 1;
                let w = c * 64 + i;
                let x = tested(w, chunk.get(i).copied().unwrap_or(0));
                if x != 0 {
                    f(w, x);
                }
            }
        }
    }

    /// Appends the legal moves of `role`, ascending.
    pub fn legal(&self, role: usize, out: &mut Vec<u32>) {
        self.legal_words(role, |w, x| push_bits(out, w, x));
    }

    /// One legal move of `role` drawn at random: the `rng.below(n)`-th of its `n` legal moves,
    /// ascending, which is the move [`Engine::legal`](crate::Engine::legal)'s list gives for the same draw. `None`
    /// (and no draw) when it has none.
    pub fn random_legal(&mut self, role: usize, rng: &mut SplitMix64) -> Option<u32> {
        if self.listed == role as u32 {
            return gdl_runtime::bits::pick_move_counted(&self.picks, self.picked, rng);
        }
        // (Listed as before, into a scratch of its own: the listing of `terminal`, of
        // another role, stays for that role's draw.)
        let mut found = std::mem::take(&mut self.other_picks);
        let total = self.counted(role, &mut found);
        let pick = gdl_runtime::bits::pick_move_counted(&found, total, rng);
        self.other_picks = found;
        pick
    }

    /// One step of a random playout from the held state: each role in order draws its move
    /// as [`Engine::random_legal`](crate::Engine::random_legal) does, the joint move is set and the next state written
    /// into `next`. `Err(role)` when `role` has no legal move (the roles before it have
    /// drawn; the joint move held and `next` are unchanged).
    pub fn random_step(&mut self, rng: &mut SplitMix64, next: &mut [u64]) -> Result<(), usize> {
        let mut joint = std::mem::take(&mut self.drawn);
        joint.clear();
        for r in 0..self.net.moves.len() {
            match self.random_legal(r, rng) {
                Some(m) => {
                    if !self.net.rows.is_empty() {
                        self.net.rows.prefetch(r, m);
                    }
                    joint.push(m);
                }
                None => {
                    self.drawn = joint;
                    return Err(r);
                }
            }
        }
        self.step(&joint, next);
        self.drawn = joint;
        Ok(())
    }

    /// One step of a playout from the held state: the joint move is set, the next state
    /// written into `next`, and the move let go of again when that has been measured cheaper
    /// (see `clear.rs`): the same as [`Engine::set_joint`](crate::Engine::set_joint) then
    /// [`Engine::next`](crate::Engine::next), at the cost of
    /// [`Engine::random_step`](crate::Engine::random_step)'s step. A move out of range is no
    /// move.
    pub fn step(&mut self, joint: &[u32], next: &mut [u64]) {
        if self.clear.may_let_go() {
            self.set_joint_logged(joint);
        } else {
            self.set_joint(joint);
        }
        self.next(next);
        if self.clear.end(self.visits) {
            let undone = self.let_go();
            self.clear.undone(undone);
        }
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

#[cfg(test)]
mod tests;
