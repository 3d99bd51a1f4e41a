//! The dependency graph of a description: one node per relation, an edge from each relation of
//! a rule body to the relation of its head, marked when the body literal is negated.

use rustc_hash::FxHashMap as HashMap;

use petgraph::graph::{DiGraph, NodeIndex};

use crate::ast::{Program, Span, Sym};

/// Why an edge exists: the rule and the body literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Whether the body literal stands under `not`.
    pub negative: bool,
    /// Index of the rule in `Program::rules`.
    pub rule: usize,
    /// The span of the body sentence.
    pub span: Span,
}

/// The relation dependency graph (Definition 7 of the GDL specification).
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    pub graph: DiGraph<Sym, Edge>,
    pub nodes: HashMap<Sym, NodeIndex>,
}

impl DepGraph {
    /// The node of `relation`, if the description mentions it.
    pub fn node(&self, relation: Sym) -> Option<NodeIndex> {
        self.nodes.get(&relation).copied()
    }

    fn add(&mut self, relation: Sym) -> NodeIndex {
        *self
            .nodes
            .entry(relation)
            .or_insert_with(|| self.graph.add_node(relation))
    }

    /// Whether `to` can be reached from `from` (a relation depends on itself only through a
    /// cycle).
    pub fn depends_on(&self, to: Sym, from: Sym) -> bool {
        match (self.node(from), self.node(to)) {
            (Some(a), Some(b)) => petgraph::algo::has_path_connecting(&self.graph, a, b, None),
            _ => false,
        }
    }
}

/// Builds the dependency graph of every rule of `program`.
pub fn build(program: &Program) -> DepGraph {
    let mut g = DepGraph::default();
    for (i, rule) in program.rules.iter().enumerate() {
        let head = g.add(rule.head.name);
        for lit in &rule.body {
            lit.for_each_atom(&mut |atom, negative| {
                let body = g.add(atom.name);
                g.graph.add_edge(
                    body,
                    head,
                    Edge {
                        negative,
                        rule: i,
                        span: atom.span,
                    },
                );
            });
        }
    }
    g
}
