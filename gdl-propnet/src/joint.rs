//! Setting the `does` inputs to a joint move, and letting go of it again without propagating
//! it back.
//!
//! A random step that lets go of its move once the next state is read (see `clear.rs`) would
//! propagate the move back, every gate it changed changing back, at the cost of the first
//! propagation. When the step's move was set from none held, its propagation logs what it
//! wrote instead: each change whose out-edges were visited (each toggled its node once) and
//! each output toggled (outputs have no out-edges, so they are not pushed). Letting go then
//! toggles each back and takes each visited edge's count change off again: a loop of stores,
//! no crossing tested and nothing pushed. Counts, values and the held move are then exactly
//! what they were before the move was set (no group is left pending after a propagation, and
//! a group's fixpoint reads only counts and values); a propagation that gave up and evaluated
//! the network afresh leaves the log incomplete, and the move is propagated back.

use super::{Engine, INTO, Run, into_groups, run};

/// What the logged propagation of a joint move wrote.
#[derive(Clone, Debug, Default)]
pub(super) struct Log {
    /// The changes whose out-edges were visited (`node << 1 | new value`).
    pub(super) events: Vec<u32>,
    /// The outputs (gates without out-edges) toggled.
    pub(super) leaves: Vec<u32>,
    /// Whether the propagation gave up on the way (the log is then incomplete).
    pub(super) lost: bool,
    /// The edges the propagation visited.
    visits: u64,
    /// Whether the log holds all that the propagation of the held joint move wrote, from none
    /// held.
    pub(super) armed: bool,
}

impl Engine<'_> {
    /// Makes the `does` inputs hold the joint move (a move out of range is no move).
    pub fn set_joint(&mut self, joint: &[u32]) {
        if self.hold(joint) {
            self.propagate::<false>();
        }
    }

    /// Makes the `does` inputs hold the joint move, toggling and pushing those that change (to
    /// be propagated). Returns whether any changed.
    fn hold(&mut self, joint: &[u32]) -> bool {
        let net = self.net;
        let mut changed = false;
        for r in 0..self.joint.len() {
            let m = joint
                .get(r)
                .copied()
                .filter(|&m| m < net.moves[r])
                .unwrap_or(u32::MAX);
            let old = self.joint[r];
            if m == old {
                continue;
            }
            changed = true;
            if old != u32::MAX {
                let n = net.does_base[r] + old;
                self.toggle(n);
                self.push(n << 1);
            }
            self.joint[r] = m;
        }
        for r in 0..self.joint.len() {
            let m = self.joint[r];
            if m != u32::MAX && changed {
                let n = net.does_base[r] + m;
                if !self.get(n) {
                    self.toggle(n);
                    self.push(n << 1 | 1);
                }
            }
        }
        changed
    }

    /// [`Engine::set_joint`], logging what the propagation writes when no move is held, so
    /// that [`Engine::let_go`] can undo it.
    pub(super) fn set_joint_logged(&mut self, joint: &[u32]) {
        let log = &mut self.log;
        log.events.clear();
        log.leaves.clear();
        log.lost = false;
        log.visits = 0;
        let from_none = self.joint.iter().all(|&m| m == u32::MAX);
        log.armed = from_none;
        if !self.hold(joint) {
            return;
        }
        if from_none {
            let at = self.visits;
            self.propagate::<true>();
            self.log.visits = self.visits - at;
            self.log.armed = !self.log.lost;
        } else {
            self.propagate::<false>();
        }
    }

    /// Lets go of the joint move (no move held): undone from the log when it holds what
    /// [`Engine::set_joint_logged`] wrote, else propagated back. Returns the edges undone.
    pub(super) fn let_go(&mut self) -> u64 {
        self.listed = super::NONE;
        if !std::mem::take(&mut self.log.armed) {
            self.set_joint(&[]);
            return 0;
        }
        let Engine {
            nodes,
            edges,
            into,
            into_start,
            value,
            log,
            joint,
            ..
        } = self;
        for &ev in &log.events {
            let n = (ev >> 1) as usize;
            if let Some(w) = value.get_mut(n >> 6) {
                *w ^= 1 << (n & 63);
            }
            let Some(Run { fan, pos, negs, .. }) = run(nodes, edges, n) else {
                continue;
            };
            // What the propagation added: +1 to the plain edges' targets of an input that
            // became true and -1 to the negated ones', the other way round for one that fell.
            let d = if ev & 1 != 0 { 1 } else { -1 };
            for &e in pos {
                if let Some(x) = nodes.get_mut((e >> 2) as usize) {
                    x.count -= d;
                }
            }
            for &e in negs {
                if let Some(x) = nodes.get_mut((e >> 2) as usize) {
                    x.count += d;
                }
            }
            if fan & INTO == 0 {
                continue;
            }
            for &e in into_groups(into, into_start, n) {
                if let Some(x) = nodes.get_mut((e >> 2) as usize) {
                    x.count -= ((ev ^ e) & 1) as i32 * 2 - 1;
                }
            }
        }
        for &t in &log.leaves {
            if let Some(w) = value.get_mut((t >> 6) as usize) {
                *w ^= 1 << (t & 63);
            }
        }
        joint.fill(u32::MAX);
        log.visits
    }
}
