//! The dependency graph of the ground atoms as compressed rows, and its strongly connected
//! components.
//!
//! Lowering builds a graph of a node per derived atom (and per rule evaluated at run time) and
//! an edge per literal of every ground rule: millions of both for the largest games. Compressed
//! rows hold an edge in 4 bytes, and [`components`] walks them without recursion. The
//! components and the order of their nodes are those of petgraph's `tarjan_scc` on a graph
//! whose edges were added in the same order (its out-edges are listed latest first), so the
//! props keep their numbers.

/// A directed graph as compressed rows: the out-edges of node `n` are
/// `targets[start[n]..start[n + 1]]`, the latest added first.
pub(super) struct Graph {
    start: Vec<u32>,
    targets: Vec<u32>,
}

impl Graph {
    /// The graph of `nodes` nodes whose edges `edges` lists, in the order they were added, to
    /// the callback it is given. `edges` is called twice (to count the out-edges, then to place
    /// them) and must list the same edges both times.
    pub(super) fn new(nodes: usize, edges: impl Fn(&mut dyn FnMut(u32, u32))) -> Graph {
        let mut start = vec![0u32; nodes + 1];
        edges(&mut |from, _| start[from as usize + 1] += 1);
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        // Filled from the end of each row: the latest edge first.
        let mut fill: Vec<u32> = start[1..].to_vec();
        let mut targets = vec![0u32; start[nodes] as usize];
        edges(&mut |from, to| {
            let f = &mut fill[from as usize];
            *f -= 1;
            targets[*f as usize] = to;
        });
        Graph { start, targets }
    }

    fn nodes(&self) -> usize {
        self.start.len() - 1
    }

    fn row(&self, n: u32) -> (u32, u32) {
        (self.start[n as usize], self.start[n as usize + 1])
    }
}

/// The strongly connected components of a graph, dependencies first (a component's edges lead
/// to later ones), as compressed rows.
pub(super) struct Components {
    start: Vec<u32>,
    nodes: Vec<u32>,
}

impl Components {
    pub(super) fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The nodes of component `i`.
    pub(super) fn get(&self, i: usize) -> &[u32] {
        &self.nodes[self.start[i] as usize..self.start[i + 1] as usize]
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// A call of the recursive algorithm: its node, its next out-edge, and whether it is still
/// the root of its component.
struct Frame {
    node: u32,
    edge: u32,
    local_root: bool,
}

/// The strongly connected components of `g` by Pearce's space-efficient variant of Tarjan's
/// algorithm (as petgraph's `TarjanScc`, with an explicit stack of calls), dependencies first:
/// the reverse of the order in which the algorithm completes them.
pub(super) fn components(g: &Graph) -> Components {
    let n = g.nodes();
    // 0: not visited; then the visit index, or the component count once in a component.
    let mut root = vec![0usize; n];
    let mut index = 1usize;
    let mut count = usize::MAX;
    let mut stack: Vec<u32> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    // Completed components, in completion order.
    let mut done_nodes: Vec<u32> = Vec::with_capacity(n);
    let mut done_start: Vec<u32> = vec![0];
    let enter = |v: u32, root: &mut [usize], index: &mut usize, frames: &mut Vec<Frame>| {
        root[v as usize] = *index;
        *index += 1;
        frames.push(Frame {
            node: v,
            edge: g.row(v).0,
            local_root: true,
        });
    };
    for s in 0..n as u32 {
        if root[s as usize] != 0 {
            continue;
        }
        enter(s, &mut root, &mut index, &mut frames);
        while let Some(top) = frames.last_mut() {
            let v = top.node;
            if top.edge < g.row(v).1 {
                let w = g.targets[top.edge as usize];
                top.edge += 1;
                if root[w as usize] == 0 {
                    enter(w, &mut root, &mut index, &mut frames);
                } else if root[w as usize] < root[v as usize] {
                    root[v as usize] = root[w as usize];
                    top.local_root = false;
                }
                continue;
            }
            let local_root = top.local_root;
            frames.pop();
            if local_root {
                let mut adjustment = 1;
                let rv = root[v as usize];
                let mut start = 0;
                for (i, &w) in stack.iter().enumerate().rev() {
                    if rv > root[w as usize] {
                        start = i + 1;
                        break;
                    }
                    root[w as usize] = count;
                    adjustment += 1;
                }
                root[v as usize] = count;
                stack.push(v);
                done_nodes.extend_from_slice(&stack[start..]);
                done_start.push(done_nodes.len() as u32);
                stack.truncate(start);
                index -= adjustment;
                count -= 1;
            } else {
                stack.push(v);
            }
            // Back in the caller, which compares the root of the node it visited.
            if let Some(parent) = frames.last_mut() {
                let p = parent.node as usize;
                if root[v as usize] < root[p] {
                    root[p] = root[v as usize];
                    parent.local_root = false;
                }
            }
        }
    }
    // Reversed: dependencies first.
    let mut start = Vec::with_capacity(done_start.len());
    let mut nodes = Vec::with_capacity(done_nodes.len());
    start.push(0);
    for i in (0..done_start.len() - 1).rev() {
        nodes.extend_from_slice(&done_nodes[done_start[i] as usize..done_start[i + 1] as usize]);
        start.push(nodes.len() as u32);
    }
    Components { start, nodes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::algo::tarjan_scc;
    use petgraph::graph::{DiGraph, NodeIndex};

    /// The components of petgraph's `tarjan_scc`, reversed, on the same edges.
    fn petgraph_components(nodes: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut g: DiGraph<(), ()> = DiGraph::new();
        for _ in 0..nodes {
            g.add_node(());
        }
        for &(a, b) in edges {
            g.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), ());
        }
        let mut sccs = tarjan_scc(&g);
        sccs.reverse();
        sccs.into_iter()
            .map(|c| c.into_iter().map(|n| n.index() as u32).collect())
            .collect()
    }

    fn ours(nodes: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let g = Graph::new(nodes, |f| edges.iter().for_each(|&(a, b)| f(a, b)));
        let c = components(&g);
        c.iter().map(<[u32]>::to_vec).collect()
    }

    #[test]
    fn components_and_their_order_are_petgraphs() {
        // Seeded random graphs of several densities, with duplicate edges and self-loops.
        let mut rng = gdl_runtime::SplitMix64::new(7);
        for round in 0..300 {
            let nodes = 1 + rng.below(40);
            let edges_n = rng.below(nodes * (1 + round % 4));
            let edges: Vec<(u32, u32)> = (0..edges_n)
                .map(|_| (rng.below(nodes) as u32, rng.below(nodes) as u32))
                .collect();
            assert_eq!(
                ours(nodes, &edges),
                petgraph_components(nodes, &edges),
                "{edges:?}"
            );
        }
    }

    #[test]
    fn a_long_chain_needs_no_deep_native_stack() {
        let n = 1_000_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).chain([(n - 1, 0)]).collect();
        let g = Graph::new(n as usize, |f| edges.iter().for_each(|&(a, b)| f(a, b)));
        let c = components(&g);
        assert_eq!(c.len(), 1);
        assert_eq!(c.get(0).len(), n as usize);
    }
}
