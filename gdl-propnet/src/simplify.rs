//! Making a [`Net`] cheaper to propagate without changing what it computes: fewer gates that
//! change and fewer edges to visit per change.
//!
//! Only gates outside groups that nothing reads by number (outputs, legal guards, the table
//! signals of joins, group members) are rewritten; every node keeps its number, so a
//! rewritten gate is left without edges (and with a never-true threshold) rather than taken
//! out.
//!
//! - A gate of one input (a buffer, or a not) is bypassed: its fan-out reads its input
//!   directly, the polarities composed. Each target's count is the same as before, whatever
//!   its threshold.
//! - A gate that feeds only one gate of the same kind, seen through the edge (an and into an
//!   and, an or into an or; a negated edge swaps the kind, by De Morgan), is merged into it:
//!   its inputs become the target's.
//! - A gate that feeds only a buffer (an output) is merged into it, whatever its threshold.
//! - An and-gate of two inputs that feeds only a next-state output, an or-gate of
//!   [`MAX_DOUBLED`] other input (the frame axiom `next = done | held & !undone`), is merged
//!   into it: the output becomes a gate of threshold 2 over the and-gate's two inputs and its
//!   other inputs, each of those read twice (`2 * done + held + !undone >= 2`), so that a
//!   change of the kept fact is one change, not two. (Not into other or-gates: amazons' "an
//!   arrow may land here", an or of rays that the engine bypasses, see `legal.rs`, would then
//!   be one change more.)
//! - A gate whose value nobody uses (no out-edges, not read by number) loses its input edges,
//!   and so on back through the gates that fed only it.

use super::{ALWAYS, NONE, Net};

/// An input edge of a gate being rewritten: source node, negated.
type In = (u32, bool);

/// The most inputs besides an and-gate of two that a next-state output may have for the
/// and-gate to be merged into it (each is read twice then). Measured: with up to 4,
/// speedChess ran 1-2% slower than without the merge, with 1, 2-3% faster; amazons_8x8 and
/// chess_200 the same within 1%.
const MAX_DOUBLED: usize = 1;

impl Net {
    /// Rewrites the network as the documentation of `simplify.rs` says; its outputs keep their
    /// values for every state and joint move.
    pub fn simplify(&mut self) {
        let nodes = self.nodes as usize;
        let kept = self.read_by_number();
        let first_gate = self.first_gate() as usize;
        // Per node, its out-edges (as in `fan`); per rewritable gate, its inputs.
        let mut out: Vec<Vec<u32>> = (0..nodes)
            .map(|n| self.fan[self.fan_start[n] as usize..self.fan_start[n + 1] as usize].to_vec())
            .collect();
        let rewritable = |n: usize| n >= first_gate && !kept[n] && self.group_of[n] == NONE;
        let mut ins: Vec<Vec<In>> = vec![Vec::new(); nodes];
        // Gates some of whose inputs come through edges that are not plain (into groups) are
        // never rewritten targets; their inputs are not tracked.
        let mut plain_target = vec![true; nodes];
        for (src, edges) in out.iter().enumerate() {
            for &e in edges {
                let t = (e >> 2) as usize;
                if e & 2 != 0 {
                    plain_target[t] = false;
                }
                ins[t].push((src as u32, e & 1 != 0));
            }
        }
        let mut thresh = std::mem::take(&mut self.thresh);
        let mut dead = vec![false; nodes];
        // Nodes are visited in order: a gate's inputs are simplified before the gate.
        for g in first_gate..nodes {
            if !rewritable(g) || !plain_target[g] || dead[g] {
                continue;
            }
            let n = ins[g].len();
            let t = thresh[g];
            if n == 0 || t == 0 || t as usize > n {
                continue;
            }
            if n == 1 && t == 1 {
                // A buffer or a not: its targets read its input.
                let (src, neg) = ins[g][0];
                let targets = std::mem::take(&mut out[g]);
                out[src as usize].retain(|&e| e >> 2 != g as u32);
                for &e in &targets {
                    let tg = (e >> 2) as usize;
                    out[src as usize].push(e ^ u32::from(neg));
                    // The target's input list: g replaced by src.
                    for x in &mut ins[tg] {
                        if x.0 == g as u32 {
                            *x = (src, x.1 != neg);
                        }
                    }
                }
                ins[g].clear();
                thresh[g] = u32::MAX;
                dead[g] = true;
                continue;
            }
            // Merge into the one gate it feeds, if of the same kind through the edge.
            let [e] = out[g][..] else { continue };
            if e & 2 != 0 {
                continue;
            }
            let h = (e >> 2) as usize;
            if self.group_of[h] != NONE || !plain_target[h] {
                continue;
            }
            let neg = e & 1 != 0;
            // The gate as its target sees it: threshold over inputs of the given polarity.
            let (seen_t, flip) = if neg {
                (n as u32 - t + 1, true)
            } else {
                (t, false)
            };
            let nh = ins[h].len() as u32;
            let th = thresh[h];
            // (A gate into a buffer, an output, of any threshold: the buffer takes it over.)
            let into_buffer = !neg && th == 1 && nh == 1;
            let and_into_and = seen_t as usize == n && th == nh || into_buffer;
            let or_into_or = seen_t == 1 && th == 1;
            if ins[h].iter().filter(|x| x.0 == g as u32).count() != 1 {
                continue;
            }
            if !(and_into_and || or_into_or) {
                // An and of two into a next-state output's or: a threshold of 2 over the
                // others read twice.
                let next =
                    (self.next_base as usize..(self.next_base + self.bits) as usize).contains(&h);
                if next && !neg && n == 2 && t == 2 && th == 1 && nh as usize <= MAX_DOUBLED + 1 {
                    let moved = std::mem::take(&mut ins[g]);
                    ins[h].retain(|x| x.0 != g as u32);
                    for (src, sneg) in ins[h].clone() {
                        out[src as usize].push((h as u32) << 2 | u32::from(sneg));
                        ins[h].push((src, sneg));
                    }
                    for &(src, sneg) in &moved {
                        out[src as usize].retain(|&x| x >> 2 != g as u32);
                        out[src as usize].push((h as u32) << 2 | u32::from(sneg));
                        ins[h].push((src, sneg));
                    }
                    thresh[h] = 2;
                    out[g].clear();
                    thresh[g] = u32::MAX;
                    dead[g] = true;
                }
                continue;
            }
            let moved = std::mem::take(&mut ins[g]);
            ins[h].retain(|x| x.0 != g as u32);
            for &(src, sneg) in &moved {
                let sneg = sneg != flip;
                out[src as usize].retain(|&x| x >> 2 != g as u32);
                out[src as usize].push((h as u32) << 2 | u32::from(sneg));
                ins[h].push((src, sneg));
            }
            if into_buffer {
                thresh[h] = t;
            } else if and_into_and {
                thresh[h] = th - 1 + n as u32;
            }
            out[g].clear();
            thresh[g] = u32::MAX;
            dead[g] = true;
        }
        // Gates nobody reads, back to front (a gate's inputs come before it).
        for g in (first_gate..nodes).rev() {
            if !rewritable(g) || !out[g].is_empty() || dead[g] {
                continue;
            }
            for &(src, _) in &ins[g] {
                out[src as usize].retain(|&x| x >> 2 != g as u32);
            }
            ins[g].clear();
            thresh[g] = u32::MAX;
        }
        self.thresh = thresh;
        self.fan.clear();
        self.fan_start.clear();
        self.fan_start.push(0);
        for mut list in out {
            list.sort_unstable();
            self.fan.extend(list);
            self.fan_start.push(self.fan.len() as u32);
        }
    }

    /// Per node, whether something reads it by number: inputs, outputs, legal guards, the
    /// table signals of joins and the members of groups.
    fn read_by_number(&self) -> Vec<bool> {
        let nodes = self.nodes as usize;
        let mut kept = vec![false; nodes];
        let mut keep = |n: u32| {
            if let Some(k) = kept.get_mut(n as usize) {
                *k = true;
            }
        };
        for (r, &base) in self.legal_base.iter().enumerate() {
            let m = self.moves.get(r).copied().unwrap_or(0);
            (base..base + m).for_each(&mut keep);
        }
        (self.next_base..self.next_base + self.bits).for_each(&mut keep);
        keep(self.terminal);
        self.goals.iter().flatten().for_each(|&(_, n)| keep(n));
        self.sees.iter().flatten().for_each(|&n| keep(n));
        for &g in self.legal_guard.iter().flatten() {
            if g != NONE {
                keep(g >> 1);
            }
        }
        for t in &self.joins.tables {
            for &s in &t.signals {
                if s != ALWAYS {
                    keep(s >> 1);
                }
            }
        }
        for &(a, b) in &self.groups {
            (a..b).for_each(&mut keep);
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::super::Engine;
    use super::*;

    /// State bits a, b, c (nodes 0-2), one role with one move (node 3); `gates` from node 4
    /// as (threshold, inputs as (node, negated)); the legal move at 64 is always legal; the
    /// next state at 128.. and the terminal at 131 buffer the given nodes.
    fn net(gates: &[(u32, Vec<(u32, bool)>)], next: [u32; 3], terminal: u32) -> Net {
        let nodes = 132usize;
        let mut thresh = vec![u32::MAX; nodes];
        let mut inputs: Vec<Vec<(u32, bool)>> = vec![Vec::new(); nodes];
        for (i, (t, ins)) in gates.iter().enumerate() {
            thresh[4 + i] = *t;
            inputs[4 + i] = ins.clone();
        }
        thresh[64] = 0;
        for (k, &n) in next.iter().chain([&terminal]).enumerate() {
            thresh[128 + k] = 1;
            inputs[128 + k] = vec![(n, false)];
        }
        let mut fan: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (t, ins) in inputs.iter().enumerate() {
            for &(s, neg) in ins {
                fan[s as usize].push((t as u32) << 2 | u32::from(neg));
            }
        }
        let mut fan_start = vec![0];
        let mut flat = Vec::new();
        for mut l in fan {
            l.sort_unstable();
            flat.extend(l);
            fan_start.push(flat.len() as u32);
        }
        Net {
            nodes: nodes as u32,
            bits: 3,
            does_base: vec![3],
            moves: vec![1],
            thresh,
            fan_start,
            fan: flat,
            group_of: vec![NONE; nodes],
            inner_start: vec![0; nodes + 1],
            legal_base: vec![64],
            legal_guard: vec![vec![NONE]],
            next_base: 128,
            terminal: 131,
            goals: vec![Vec::new()],
            init: vec![0],
            ..Net::default()
        }
    }

    /// The next state and terminal bit of every state, one after the other on one engine.
    fn outputs(net: &Net) -> Vec<(u64, bool)> {
        let mut e = Engine::new(net);
        let mut out = Vec::new();
        for s in [0u64, 5, 7, 1, 2, 6, 3, 4, 0, 7] {
            e.set_state(&[s]);
            let mut next = [0u64];
            e.next(&mut next);
            out.push((next[0], e.terminal()));
        }
        out
    }

    #[test]
    fn simplified_networks_compute_the_same_outputs_with_fewer_gates() {
        let gates = vec![
            // 4: a (buffer); 5: not b; 6: 4 and 5; 7: 6 and c (an and into an and).
            (1, vec![(0, false)]),
            (1, vec![(1, true)]),
            (2, vec![(4, false), (5, false)]),
            (2, vec![(6, false), (2, false)]),
            // 8: a or b; 9: not 8 and c (a negated or into an and: not a and not b and c).
            (1, vec![(0, false), (1, false)]),
            (2, vec![(8, true), (2, false)]),
            // 10: a and b; 11: c or not 10 (a negated and into an or).
            (2, vec![(0, false), (1, false)]),
            (1, vec![(2, false), (10, true)]),
            // 12: two of a, b, c, read by nothing.
            (2, vec![(0, false), (1, false), (2, false)]),
        ];
        let before = net(&gates, [7, 9, 11], 4);
        let mut after = before.clone();
        after.simplify();
        assert_eq!(outputs(&before), outputs(&after));
        let live = |n: &Net| {
            (4..12)
                .filter(|&g| n.fan_start[g + 1] > n.fan_start[g])
                .count()
        };
        assert_eq!(live(&before), 8);
        // Every gate is merged into the output that reads it (or bypassed, or unread).
        assert_eq!(live(&after), 0);
        assert_eq!(after.thresh[128], 3);
        assert!(after.fan.len() < before.fan.len());
    }

    /// The frame axiom `next a = b | a & !c`: the or-gate is merged into the output (a
    /// buffer), and then (a second pass: gdlc builds next-state outputs as their own top
    /// gates) the and-gate too, the output a gate of threshold 2 that reads `b` twice; it
    /// computes the same next state in every state, through the text form too. An and-gate
    /// into an or of too many others, or into an or that is no output, is left.
    #[test]
    fn an_and_of_two_into_an_or_is_one_gate_of_threshold_two() {
        let gates = vec![
            // 4: a and not c; 5: b or 4.
            (2, vec![(0, false), (2, true)]),
            (1, vec![(1, false), (4, false)]),
            // 6: a and b; 7: an or of 6 and two others.
            (2, vec![(0, false), (1, false)]),
            (1, vec![(6, false), (0, true), (2, true)]),
            // 8: b and c; 9: a or 8; 10: 9 and c (so 9 is no output's top gate).
            (2, vec![(1, false), (2, false)]),
            (1, vec![(0, false), (8, false)]),
            (2, vec![(9, false), (2, false)]),
        ];
        let before = net(&gates, [5, 7, 10], 0);
        let mut after = before.clone();
        after.simplify();
        after.simplify();
        let after = Net::decode(&after.encode()).unwrap();
        assert_eq!(outputs(&before), outputs(&after));
        let fan = |n: &Net, g: usize| n.fan_start[g + 1] - n.fan_start[g];
        // 4 and 5 are gone (5 merged into the output), 6 and 8 are kept.
        assert_eq!((fan(&after, 4), fan(&after, 5), fan(&after, 6)), (0, 0, 1));
        assert_eq!(fan(&after, 8), 1);
        assert_eq!(after.thresh[128], 2);
        let reads = |src: usize| {
            let (a, b) = (
                after.fan_start[src] as usize,
                after.fan_start[src + 1] as usize,
            );
            after.fan[a..b].iter().filter(|&&e| e >> 2 == 128).count()
        };
        assert_eq!((reads(0), reads(1), reads(2)), (1, 2, 1));
    }
}
