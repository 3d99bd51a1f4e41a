//! The rule-level dependency graph: rule `j` feeds rule `i` when `j`'s head may unify with a
//! literal of `i`'s body. Its strongly connected components, in dependency order, are the units
//! of evaluation. Working on rules rather than relations accepts descriptions such as
//! `(<= (goal r 100) (not (goal r 0)))`, stratified by instance though not by relation.

use crate::scc::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::ast::kw;
use crate::normalize::{NAtom, NLit, NRule, NTerm};

/// When a component is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Independent of `true` and `does`: once.
    Static,
    /// Depends on `true`: once per state.
    State,
    /// Depends on `does`: once per state and joint move.
    Move,
}

/// Rules grouped into components, in evaluation order.
pub struct RuleComponents {
    /// The rules (indices into the rule list) of each component.
    pub members: Vec<Vec<usize>>,
    pub recursive: Vec<bool>,
    pub phase: Vec<Phase>,
    /// For each component, the components it reads (directly).
    pub inputs: Vec<Vec<usize>>,
}

/// A rule of the component that negates a rule of the same component.
pub struct NegativeCycle {
    pub rule: usize,
}

/// Whether two patterns (with separate variables) may denote the same ground term.
fn may_unify(a: &NTerm, b: &NTerm) -> bool {
    match (a, b) {
        (NTerm::Var(_), _) | (_, NTerm::Var(_)) => true,
        (NTerm::Const(x), NTerm::Const(y)) => x == y,
        (NTerm::Func(f, xs), NTerm::Func(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| may_unify(x, y))
        }
        _ => false,
    }
}

fn atoms_may_unify(a: &NAtom, b: &NAtom) -> bool {
    a.rel == b.rel
        && a.args.len() == b.args.len()
        && a.args.iter().zip(&b.args).all(|(x, y)| may_unify(x, y))
}

/// The outermost symbol and arity of a term (`None` for a variable).
fn shape(t: &NTerm) -> Option<(crate::ast::Sym, usize)> {
    match t {
        NTerm::Var(_) => None,
        NTerm::Const(c) => Some((*c, 0)),
        NTerm::Func(f, args) => Some((*f, args.len())),
    }
}

/// The rules of one relation, indexed by the shape of their head's first argument: a body
/// literal `(p 17)` is only tried against the heads that may be `(p 17)`, so that a relation of
/// 25,000 facts read by 25,000 literals costs no 25,000 squared.
#[derive(Default)]
struct HeadGroup {
    all: Vec<usize>,
    by_first: std::collections::HashMap<(crate::ast::Sym, usize), Vec<usize>>,
    /// Heads whose first argument is a variable (or that have none).
    any_first: Vec<usize>,
}

impl HeadGroup {
    /// The rules whose head may unify with `a` (a superset).
    fn candidates(&self, a: &NAtom) -> Box<dyn Iterator<Item = usize> + '_> {
        match a.args.first().and_then(shape) {
            None => Box::new(self.all.iter().copied()),
            Some(k) => Box::new(
                self.by_first
                    .get(&k)
                    .into_iter()
                    .flatten()
                    .chain(&self.any_first)
                    .copied(),
            ),
        }
    }
}

/// Builds the components of `rules`.
pub fn components(rules: &[NRule]) -> Result<RuleComponents, Vec<NegativeCycle>> {
    let mut by_head: std::collections::HashMap<(crate::ast::Sym, usize), HeadGroup> =
        std::collections::HashMap::new();
    for (j, r) in rules.iter().enumerate() {
        let group = by_head.entry((r.head.rel, r.head.args.len())).or_default();
        group.all.push(j);
        match r.head.args.first().and_then(shape) {
            Some(k) => group.by_first.entry(k).or_default().push(j),
            None => group.any_first.push(j),
        }
    }
    let mut reads_true = vec![false; rules.len()];
    let mut reads_does = vec![false; rules.len()];
    // Edge (from, to) -> whether through a negation; in first-found order.
    let mut edges: Vec<(usize, usize, bool)> = Vec::new();
    let mut edge_at: std::collections::HashMap<(usize, usize), usize> =
        std::collections::HashMap::new();
    for (i, r) in rules.iter().enumerate() {
        for lit in &r.body {
            let (NLit::Pos(a) | NLit::Neg(a)) = lit else {
                continue;
            };
            reads_true[i] |= a.rel == kw::TRUE;
            reads_does[i] |= a.rel == kw::DOES;
            let negative = matches!(lit, NLit::Neg(_));
            let Some(group) = by_head.get(&(a.rel, a.args.len())) else {
                continue;
            };
            for j in group.candidates(a) {
                if atoms_may_unify(&rules[j].head, a) {
                    match edge_at.entry((j, i)) {
                        std::collections::hash_map::Entry::Occupied(e) => {
                            edges[*e.get()].2 |= negative;
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert(edges.len());
                            edges.push((j, i, negative));
                        }
                    }
                }
            }
        }
    }
    let mut graph: DiGraph<usize, bool> = DiGraph::with_capacity(rules.len(), edges.len());
    let nodes: Vec<NodeIndex> = (0..rules.len()).map(|i| graph.add_node(i)).collect();
    for &(j, i, negative) in &edges {
        graph.add_edge(nodes[j], nodes[i], negative);
    }
    let mut sccs = tarjan_scc(&graph);
    sccs.reverse();
    let mut comp_of = vec![0usize; rules.len()];
    for (c, scc) in sccs.iter().enumerate() {
        for &n in scc {
            comp_of[graph[n]] = c;
        }
    }
    let mut cycles = Vec::new();
    let mut inputs = vec![Vec::new(); sccs.len()];
    let mut recursive = vec![false; sccs.len()];
    for e in graph.edge_references() {
        let (from, to) = (comp_of[graph[e.source()]], comp_of[graph[e.target()]]);
        if from == to {
            recursive[to] = true;
            if *e.weight() {
                cycles.push(NegativeCycle {
                    rule: graph[e.target()],
                });
            }
        } else {
            inputs[to].push(from);
        }
    }
    for i in &mut inputs {
        i.sort_unstable();
        i.dedup();
    }
    if !cycles.is_empty() {
        return Err(cycles);
    }
    // Phases: from the inputs read, lifted so that all rules of one relation share a phase
    // (a relation is cleared and rebuilt as a whole).
    let mut phase: Vec<Phase> = sccs
        .iter()
        .map(|scc| {
            let any = |f: &[bool]| scc.iter().any(|&n| f[graph[n]]);
            if any(&reads_does) {
                Phase::Move
            } else if any(&reads_true) {
                Phase::State
            } else {
                Phase::Static
            }
        })
        .collect();
    loop {
        let mut changed = false;
        for c in 0..sccs.len() {
            let from_inputs = inputs[c]
                .iter()
                .map(|&i| phase[i])
                .max()
                .unwrap_or(Phase::Static);
            if from_inputs > phase[c] {
                phase[c] = from_inputs;
                changed = true;
            }
        }
        for group in by_head.values() {
            let group = &group.all;
            let top = group
                .iter()
                .map(|&j| phase[comp_of[j]])
                .max()
                .unwrap_or(Phase::Static);
            for &j in group {
                if phase[comp_of[j]] < top {
                    phase[comp_of[j]] = top;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let members = sccs
        .iter()
        .map(|scc| scc.iter().map(|&n| graph[n]).collect())
        .collect();
    Ok(RuleComponents {
        members,
        recursive,
        phase,
        inputs,
    })
}
