//! The out-edges of the engine's nodes and the step that propagates a change along them: a
//! node's run of edges ([`run`]), its edges into groups ([`into_groups`]), the count update
//! of one polarity ([`step`]) and the prefetch of the edges of a node about to be visited.

use super::{AT, Node};

/// A node's out-edges, as propagating a change ([`Engine::drain`]) and undoing one
/// (`joint.rs`) read them: its run in [`Engine::edges`] split into the plain edges and the
/// negated ones.
pub(super) struct Run<'e> {
    /// The node's [`Node::fan`] (whether it has edges into groups).
    pub fan: u32,
    /// The run's length: the edges a visit counts.
    pub len: usize,
    pub pos: &'e [u32],
    pub negs: &'e [u32],
}

/// The out-edges of node `n` (see [`Run`]); none for a node out of range.
#[inline(always)]
pub(super) fn run<'e>(nodes: &[Node], edges: &'e [u32], n: usize) -> Option<Run<'e>> {
    let (Some(&at), Some(next)) = (nodes.get(n), nodes.get(n + 1)) else {
        return None;
    };
    let run = edges.get((at.fan & AT) as usize..(next.fan & AT) as usize)?;
    let (&p, out) = run.split_first()?;
    let (pos, negs) = out.split_at((p as usize).min(out.len()));
    Some(Run {
        fan: at.fan,
        len: run.len(),
        pos,
        negs,
    })
}

/// The edges of node `n` into groups, in `into` (see [`Engine::into`]).
#[inline(always)]
pub(super) fn into_groups<'e>(into: &'e [u32], into_start: &[u32], n: usize) -> &'e [u32] {
    let at = |i: usize| into_start.get(i).copied().unwrap_or(0) as usize;
    into.get(at(n)..at(n + 1)).unwrap_or(&[])
}

/// Adds `D` to the counts of the targets of `edges` (one polarity), toggling the gates whose
/// count reaches `CROSS` and pushing those that have out-edges (whose edges, in `all`, are
/// prefetched: the stack is last in, first out, so they are visited soon); with `LOG`, the
/// others (outputs) toggled are appended to `leaves`.
#[inline(always)]
pub(super) fn step<const D: i32, const CROSS: i32, const LOG: bool>(
    nodes: &mut [Node],
    value: &mut [u64],
    stack: &mut Vec<u32>,
    leaves: &mut Vec<u32>,
    all: &[u32],
    edges: &[u32],
) {
    for &e in edges {
        let t = (e >> 2) as usize;
        let Some(x) = nodes.get_mut(t) else { continue };
        x.count += D;
        if x.count == CROSS {
            value[t >> 6] ^= 1 << (t & 63);
            if e & 2 == 0 {
                stack.push((t as u32) << 1 | u32::from(x.count >= 0));
                prefetch(all, x.fan);
            } else if LOG {
                leaves.push(t as u32);
            }
        }
    }
}

/// Asks memory for the edges of a node whose record's `fan` is `fan` (in `edges`), about to be
/// visited, so that the visit does not wait for them: a change costs the engine more in
/// waiting for its edges and its targets' records than in visiting them (measured: a
/// representation with a quarter fewer visits but more loads per change ran slower, see
/// ARCHITECTURE.md).
#[inline(always)]
pub(super) fn prefetch(edges: &[u32], fan: u32) {
    prefetch_at(edges, (fan & AT) as usize);
}

/// Asks memory for element `i` of `items` (any index: a hint, never a read).
#[inline(always)]
pub(super) fn prefetch_at<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let at = items.as_ptr().wrapping_add(i).cast::<i8>();
        // SAFETY: a prefetch is a hint: it reads nothing the program sees and does not fault,
        // whatever the address (here within `items` or just past it).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, i);
}
