//! Stratification: the strongly connected components of the dependency graph in evaluation
//! order, the stratum of every relation (Definition 12), and the cycles through negation that
//! make a description unstratifiable.

use rustc_hash::FxHashMap as HashMap;

use crate::scc::tarjan_scc;
use petgraph::visit::EdgeRef;

use crate::ast::Sym;
use crate::depgraph::{DepGraph, Edge};

/// The evaluation order of a stratified description.
#[derive(Clone, Debug, Default)]
pub struct Strata {
    /// The strongly connected components, each after every component it depends on.
    pub components: Vec<Component>,
    /// The component of each relation.
    pub component_of: HashMap<Sym, usize>,
}

#[derive(Clone, Debug)]
pub struct Component {
    pub relations: Vec<Sym>,
    /// Whether a relation of the component depends on itself (a cycle, possibly a self-loop).
    pub recursive: bool,
    /// The stratum: the largest number of negative edges on a path into the component.
    pub stratum: u32,
}

impl Strata {
    pub fn stratum(&self, relation: Sym) -> Option<u32> {
        self.component_of
            .get(&relation)
            .map(|&c| self.components[c].stratum)
    }

    /// Whether `a` and `b` lie on a common cycle.
    pub fn same_cycle(&self, a: Sym, b: Sym) -> bool {
        match (self.component_of.get(&a), self.component_of.get(&b)) {
            (Some(x), Some(y)) => x == y && self.components[*x].recursive,
            _ => false,
        }
    }
}

/// A negative edge inside a cycle.
#[derive(Clone, Debug)]
pub struct NegativeCycle {
    pub edge: Edge,
    /// The relations of the cycle's component.
    pub relations: Vec<Sym>,
}

/// Orders the components of `graph`; fails with every negative edge that lies on a cycle.
pub fn stratify(graph: &DepGraph) -> Result<Strata, Vec<NegativeCycle>> {
    let g = &graph.graph;
    // tarjan_scc yields components in reverse topological order.
    let mut sccs = tarjan_scc(g);
    sccs.reverse();
    let mut comp_of_node = vec![0usize; g.node_count()];
    for (c, nodes) in sccs.iter().enumerate() {
        for n in nodes {
            comp_of_node[n.index()] = c;
        }
    }
    let mut cycles = Vec::new();
    let mut components: Vec<Component> = sccs
        .iter()
        .map(|nodes| Component {
            relations: nodes.iter().map(|&n| g[n]).collect(),
            recursive: nodes.len() > 1 || g.edges_connecting(nodes[0], nodes[0]).next().is_some(),
            stratum: 0,
        })
        .collect();
    for (c, nodes) in sccs.iter().enumerate() {
        let mut stratum = 0;
        for &n in nodes {
            for e in g.edges_directed(n, petgraph::Direction::Incoming) {
                let from = comp_of_node[e.source().index()];
                if from == c {
                    if e.weight().negative {
                        cycles.push(NegativeCycle {
                            edge: *e.weight(),
                            relations: components[c].relations.clone(),
                        });
                    }
                } else {
                    stratum =
                        stratum.max(components[from].stratum + u32::from(e.weight().negative));
                }
            }
        }
        components[c].stratum = stratum;
    }
    if !cycles.is_empty() {
        return Err(cycles);
    }
    let component_of = components
        .iter()
        .enumerate()
        .flat_map(|(c, comp)| comp.relations.iter().map(move |&r| (r, c)))
        .collect();
    Ok(Strata {
        components,
        component_of,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_kif;

    fn strata_of(src: &str) -> Result<(crate::Program, Strata), Vec<NegativeCycle>> {
        let (p, d) = parse_kif(src);
        assert!(d.is_empty(), "{d:?}");
        let s = stratify(&crate::depgraph::build(&p))?;
        Ok((p, s))
    }

    #[test]
    fn strata_count_negations_on_paths() {
        let (p, s) =
            strata_of("(<= (a ?x) (b ?x)) (<= (c ?x) (b ?x) (not (a ?x))) (<= d (not (c 1)))")
                .unwrap();
        let sym = |n| p.symbols.get(n).unwrap();
        assert_eq!(s.stratum(sym("a")), Some(0));
        assert_eq!(s.stratum(sym("c")), Some(1));
        assert_eq!(s.stratum(sym("d")), Some(2));
        let pos = |n| s.component_of[&sym(n)];
        assert!(pos("b") < pos("a") && pos("a") < pos("c") && pos("c") < pos("d"));
    }

    #[test]
    fn negation_in_a_cycle_is_reported() {
        let err =
            strata_of("(<= (p ?x) (r ?x) (q ?x)) (<= (q ?x) (r ?x) (not (p ?x)))").unwrap_err();
        assert_eq!(err.len(), 1);
        assert!(err[0].edge.negative);
        assert_eq!(err[0].relations.len(), 2);
    }

    #[test]
    fn recursion_is_marked() {
        let (p, s) =
            strata_of("(<= (t ?x ?y) (e ?x ?y)) (<= (t ?x ?z) (e ?x ?y) (t ?y ?z))").unwrap();
        let t = s.component_of[&p.symbols.get("t").unwrap()];
        assert!(s.components[t].recursive);
        assert!(s.same_cycle(p.symbols.get("t").unwrap(), p.symbols.get("t").unwrap()));
    }
}
