//! The rule-level dependency graph: rule `j` feeds rule `i` when `j`'s head may unify with a
//! literal of `i`'s body. Its strongly connected components, in dependency order, are the units
//! of evaluation. Working on rules rather than relations accepts descriptions such as
//! `(<= (goal r 100) (not (goal r 0)))`, stratified by instance though not by relation.

use petgraph::algo::tarjan_scc;
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

/// Builds the components of `rules`.
pub fn components(rules: &[NRule]) -> Result<RuleComponents, Vec<NegativeCycle>> {
    let mut graph: DiGraph<usize, bool> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..rules.len()).map(|i| graph.add_node(i)).collect();
    let mut by_head: std::collections::HashMap<(crate::ast::Sym, usize), Vec<usize>> =
        std::collections::HashMap::new();
    for (j, r) in rules.iter().enumerate() {
        by_head
            .entry((r.head.rel, r.head.args.len()))
            .or_default()
            .push(j);
    }
    let mut reads_true = vec![false; rules.len()];
    let mut reads_does = vec![false; rules.len()];
    for (i, r) in rules.iter().enumerate() {
        for lit in &r.body {
            let (NLit::Pos(a) | NLit::Neg(a)) = lit else {
                continue;
            };
            reads_true[i] |= a.rel == kw::TRUE;
            reads_does[i] |= a.rel == kw::DOES;
            for &j in by_head.get(&(a.rel, a.args.len())).into_iter().flatten() {
                if atoms_may_unify(&rules[j].head, a) {
                    graph.update_edge(nodes[j], nodes[i], matches!(lit, NLit::Neg(_)));
                    if let NLit::Neg(_) = lit
                        && let Some(e) = graph.find_edge(nodes[j], nodes[i])
                    {
                        graph[e] = true;
                    }
                }
            }
        }
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
        } else if !inputs[to].contains(&from) {
            inputs[to].push(from);
        }
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
