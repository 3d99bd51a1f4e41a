//! The engine's own numbering of the nodes: the gates between the inputs and the first output
//! range renumbered so that the gates one node feeds lie side by side (fewer cache lines
//! touched per change), the order still topological. Inputs, group members and the output
//! ranges keep their numbers.

use super::{NONE, Net};

/// Per node of the network, its number in the engine (`new_of`), and the converse (`old_of`).
#[derive(Clone, Debug)]
pub(super) struct Order {
    pub new_of: Vec<u32>,
    pub old_of: Vec<u32>,
}

/// The numbering described in the [module documentation](self): within each run of gates
/// outside groups, a gate is placed as soon as the gates of the run that feed it are
/// (Kahn's order, first come first placed), so that the gates a node completes follow it.
pub(super) fn locality_order(net: &Net) -> Order {
    let nodes = net.nodes as usize;
    let mut old_of: Vec<u32> = (0..net.nodes).collect();
    let first_gate = net.first_gate() as usize;
    let last = net
        .legal_base
        .iter()
        .copied()
        .chain([net.next_base])
        .min()
        .unwrap_or(net.nodes)
        .min(net.nodes) as usize;
    let fan_of = |n: usize| {
        net.fan
            .get(net.fan_start[n] as usize..net.fan_start[n + 1] as usize)
            .unwrap_or(&[])
    };
    let movable = |n: usize| n >= first_gate && n < last && net.group_of[n] == NONE;
    // Per gate, its inputs from the same run not yet placed.
    let mut waiting = vec![0u32; nodes];
    let mut a = first_gate;
    while a < last {
        if !movable(a) {
            a += 1;
            continue;
        }
        let mut b = a;
        while b < last && movable(b) {
            b += 1;
        }
        // The run a..b: count the in-run inputs of each gate.
        for n in a..b {
            for &e in fan_of(n) {
                let t = (e >> 2) as usize;
                if (a..b).contains(&t) {
                    waiting[t] += 1;
                }
            }
        }
        let mut queue: std::collections::VecDeque<u32> = (a..b)
            .filter(|&n| waiting[n] == 0)
            .map(|n| n as u32)
            .collect();
        let mut next = a;
        while let Some(n) = queue.pop_front() {
            old_of[next] = n;
            next += 1;
            for &e in fan_of(n as usize) {
                let t = (e >> 2) as usize;
                if (a..b).contains(&t) {
                    waiting[t] -= 1;
                    if waiting[t] == 0 {
                        queue.push_back(t as u32);
                    }
                }
            }
        }
        // A cycle (which a topological network has not) leaves its gates where they were.
        if next != b {
            for (n, slot) in old_of.iter_mut().enumerate().take(b).skip(a) {
                *slot = n as u32;
            }
        }
        a = b;
    }
    let mut new_of = vec![0u32; nodes];
    for (new, &old) in old_of.iter().enumerate() {
        new_of[old as usize] = new as u32;
    }
    Order { new_of, old_of }
}

impl super::Engine<'_> {
    /// The value of node `n` of the network (in its own numbering) for the held state and
    /// joint move.
    pub fn node_value(&self, n: u32) -> bool {
        self.read(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bits a (0), b (1); move m (2); gates p = a (3), q = b (4), r = q & a (5), t = p & b (6);
    /// group member g = t (7); u = g (8); legal output at 64.
    #[test]
    fn gates_follow_what_completes_them() {
        let nodes = 65u32;
        let e = |t: u32, neg: u32| t << 2 | neg;
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
        out[0] = vec![e(3, 0), e(5, 0)];
        out[1] = vec![e(4, 0), e(6, 0)];
        out[3] = vec![e(6, 0)];
        out[4] = vec![e(5, 0)];
        out[6] = vec![7 << 2 | 2];
        out[7] = vec![e(8, 0)];
        out[8] = vec![e(64, 1)];
        let (fan_start, fan) = super::super::tests::fan_table(&out);
        let mut group_of = vec![NONE; nodes as usize];
        group_of[7] = 0;
        let net = Net {
            nodes,
            bits: 2,
            does_base: vec![2],
            moves: vec![1],
            fan_start,
            fan,
            group_of,
            groups: vec![(7, 8)],
            legal_base: vec![64],
            next_base: 64,
            ..Net::default()
        };
        let o = locality_order(&net);
        // A permutation, and its converse.
        for n in 0..nodes {
            assert_eq!(o.old_of[o.new_of[n as usize] as usize], n);
        }
        // Inputs, the group member and the outputs keep their numbers.
        for n in [0, 1, 2, 7, 64] {
            assert_eq!(o.new_of[n], n as u32);
        }
        // t, completed by p (placed first), comes before r, completed by q.
        assert_eq!(o.new_of[3], 3);
        assert_eq!(o.new_of[4], 4);
        assert_eq!(o.new_of[6], 5);
        assert_eq!(o.new_of[5], 6);
        // Still topological.
        for (src, edges) in out.iter().enumerate() {
            for &x in edges {
                assert!(o.new_of[src] < o.new_of[(x >> 2) as usize]);
            }
        }
    }
}
