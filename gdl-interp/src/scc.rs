//! Strongly connected components without recursion: [`tarjan_scc`] gives exactly what
//! `petgraph::algo::tarjan_scc` gives (the same components, in the same order, their nodes in
//! the same order), but walks the graph with a stack of its own, so that a description whose
//! relations form a chain of hundreds of thousands of links cannot overflow the thread's
//! stack (petgraph's walk is recursive). (The IR's graph of millions of ground atoms has its
//! own walk over compressed rows, `gdlc`'s `ir/scc.rs`, for memory's sake.)

use petgraph::visit::{IntoNeighbors, IntoNodeIdentifiers, NodeIndexable};

/// The strongly connected components of `g`, in postorder (a component before those that
/// reach it: reverse topological order), as `petgraph::algo::tarjan_scc` returns them (Pierce's
/// space-efficient form of Tarjan's algorithm, the same visiting order).
pub fn tarjan_scc<G>(g: G) -> Vec<Vec<G::NodeId>>
where
    G: IntoNodeIdentifiers + IntoNeighbors + NodeIndexable,
{
    // Per node: 0 while unvisited, then its index, the least index it reaches, or (once in a
    // component) the component's number counted down from usize::MAX.
    let mut root = vec![0usize; g.node_bound()];
    let mut index = 1usize;
    let mut component = usize::MAX;
    let mut stack: Vec<G::NodeId> = Vec::new();
    let mut sccs = Vec::new();
    // The nodes being visited: the node, its neighbours still to see, whether it is still
    // the root of its component.
    let mut frames: Vec<(G::NodeId, G::Neighbors, bool)> = Vec::new();
    for n in g.node_identifiers() {
        if root[g.to_index(n)] != 0 {
            continue;
        }
        root[g.to_index(n)] = index;
        index += 1;
        frames.push((n, g.neighbors(n), true));
        while let Some(frame) = frames.last_mut() {
            let v = g.to_index(frame.0);
            if let Some(w) = frame.1.next() {
                let wi = g.to_index(w);
                if root[wi] == 0 {
                    root[wi] = index;
                    index += 1;
                    frames.push((w, g.neighbors(w), true));
                } else if root[wi] < root[v] {
                    root[v] = root[wi];
                    frame.2 = false;
                }
                continue;
            }
            let Some((node, _, local_root)) = frames.pop() else {
                break;
            };
            if local_root {
                let mut adjustment = 1;
                let start = stack
                    .iter()
                    .rposition(|&w| {
                        let wi = g.to_index(w);
                        if root[v] > root[wi] {
                            true
                        } else {
                            root[wi] = component;
                            adjustment += 1;
                            false
                        }
                    })
                    .map_or(0, |x| x + 1);
                root[v] = component;
                stack.push(node);
                sccs.push(stack[start..].to_vec());
                stack.truncate(start);
                index -= adjustment;
                component -= 1;
            } else {
                stack.push(node);
            }
            // Back in the parent: what the child reached, the parent reaches.
            if let Some(parent) = frames.last_mut() {
                let p = g.to_index(parent.0);
                if root[v] < root[p] {
                    root[p] = root[v];
                    parent.2 = false;
                }
            }
        }
    }
    sccs
}

#[cfg(test)]
mod tests {
    use petgraph::graph::{DiGraph, NodeIndex};

    /// A small deterministic generator (no dependency for one test).
    fn next(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn the_same_components_in_the_same_order_as_petgraph() {
        let mut seed = 7u64;
        for case in 0..3000 {
            let nodes = 1 + (next(&mut seed) % 24) as usize;
            let edges = (next(&mut seed) % (3 * nodes as u64 + 1)) as usize;
            let mut g = DiGraph::<(), ()>::new();
            let ids: Vec<NodeIndex> = (0..nodes).map(|_| g.add_node(())).collect();
            for _ in 0..edges {
                let a = ids[(next(&mut seed) % nodes as u64) as usize];
                let b = ids[(next(&mut seed) % nodes as u64) as usize];
                g.add_edge(a, b, ());
            }
            assert_eq!(
                super::tarjan_scc(&g),
                petgraph::algo::tarjan_scc(&g),
                "case {case}: {g:?}"
            );
        }
    }

    #[test]
    fn a_chain_of_a_million_links_does_not_overflow_the_stack() {
        let mut g = DiGraph::<(), ()>::new();
        let ids: Vec<NodeIndex> = (0..1_000_000).map(|_| g.add_node(())).collect();
        for w in ids.windows(2) {
            g.add_edge(w[0], w[1], ());
        }
        // And back to the start: one component of every node.
        g.add_edge(ids[ids.len() - 1], ids[0], ());
        let sccs = super::tarjan_scc(&g);
        assert_eq!(sccs.len(), 1);
        assert_eq!(sccs[0].len(), 1_000_000);
    }
}
