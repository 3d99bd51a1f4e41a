//! Lowering: the ground rules of a [`GroundProgram`] as the props of an [`Ir`].
//!
//! The derived atoms become props in the order of the strongly connected components of their
//! dependencies ([`super::scc`]), each the disjunction of its rules' conjunctions; `true` and
//! `does` literals become state bits and moves; the props of `legal`, `next`, `terminal`,
//! `goal` and `sees` atoms become the outputs.

use crate::diag::codes;
use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;

use super::bodies::{Bodies, LeafOf, Read};
use super::{
    GoalValue, Input, Ir, IrJoin, IrTable, Lit, Percept, Prop, layout, merge_moves, scc,
    tables_read,
};
use crate::ast::{Span, kw};
use crate::diag::Diagnostic;
use crate::ground::{GroundProgram, GroundRule};
use crate::progress::ProgressHook;
use crate::terms::TermId;
use gdl_propnet::ALWAYS;

/// Builds the IR of a ground description. Fails when the ground rules are not stratified
/// (negation inside a recursive component), or a rule joined at run time is recursive.
pub fn lower(g: &GroundProgram) -> Result<Ir, LowerError> {
    lower_with(g, &ProgressHook::default())
}

/// Why a ground program has no IR. Both are seen only in the ground rules: the checker
/// stratifies relations, and an instance-level stratification can leave a cycle among atoms
/// that only grounding makes (or hybrid grounding leaves a recursive rule unground).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// A rule too large to ground, to be joined at run time, depends on itself.
    RecursiveJoin {
        /// The rule (its index in the description's rules).
        rule: usize,
    },
    /// A ground atom depends on its own negation.
    NegativeCycle {
        /// The atom's text.
        atom: String,
        /// A rule that derives it (its index in the description's rules).
        rule: usize,
    },
    /// What lowering never expects of a ground program (a bug of gdlc's).
    Internal {
        /// What was wrong, with the atom.
        what: String,
    },
}

impl LowerError {
    /// The description's rule the error is about, if any.
    pub fn rule(&self) -> Option<usize> {
        match self {
            LowerError::RecursiveJoin { rule } | LowerError::NegativeCycle { rule, .. } => {
                Some(*rule)
            }
            LowerError::Internal { .. } => None,
        }
    }

    /// The error as a diagnostic at `span` (the rule's, if any).
    pub fn diagnostic(&self, span: Span) -> Diagnostic {
        match self {
            LowerError::RecursiveJoin { .. } => Diagnostic::error(
                codes::GROUNDING_TOO_LARGE,
                span,
                "this rule is too large to ground and depends on itself: it cannot be \
                 evaluated at run time",
            ),
            LowerError::NegativeCycle { atom, .. } => Diagnostic::error(
                codes::NEGATIVE_CYCLE,
                span,
                format!(
                    "the ground atom {atom} depends on its own negation through this rule: the \
                     description is not stratified"
                ),
            ),
            LowerError::Internal { what } => Diagnostic::error(
                codes::INTERNAL,
                span,
                format!("internal error in lowering: {what} (please report this description)"),
            ),
        }
    }
}

/// The rule numbers of each head node, in rule order, as compressed rows.
struct RulesOf {
    start: Vec<u32>,
    rules: Vec<u32>,
}

impl RulesOf {
    fn new(bodies: &Bodies, nodes: usize) -> RulesOf {
        let mut start = vec![0u32; nodes + 1];
        for r in bodies.rules() {
            start[r.head as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut fill = start.clone();
        let mut rules = vec![0u32; bodies.rules().len()];
        for (i, r) in bodies.rules().iter().enumerate() {
            let n = r.head as usize;
            rules[fill[n] as usize] = i as u32;
            fill[n] += 1;
        }
        RulesOf { start, rules }
    }

    /// The rules of node `n` (none for a node past the heads').
    fn of(&self, n: usize) -> &[u32] {
        match (self.start.get(n), self.start.get(n + 1)) {
            (Some(&a), Some(&b)) => &self.rules[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// [`lower`], telling `progress` how far it is (rules linked into the dependency graph, then
/// props lowered).
pub fn lower_with(g: &GroundProgram, progress: &ProgressHook) -> Result<Ir, LowerError> {
    lower_rules(g, Cow::Borrowed(&g.rules), progress, &mut |_| {})
}

/// [`lower_with`], taking the ground rules out of `g` (which is left without them) and handing
/// them to `release` as soon as lowering has read them into its own table (`bodies.rs`), before
/// the props are built: the rules and the props are then never held at once.
pub fn lower_taking(
    g: &mut GroundProgram,
    progress: &ProgressHook,
    release: &mut dyn FnMut(Vec<GroundRule>),
) -> Result<Ir, LowerError> {
    let rules = std::mem::take(&mut g.rules);
    lower_rules(g, Cow::Owned(rules), progress, release)
}

/// [`lower_with`] of `g` with the ground rules `rules`, released once read (when owned).
fn lower_rules(
    g: &GroundProgram,
    rules: Cow<'_, [GroundRule]>,
    progress: &ProgressHook,
    release: &mut dyn FnMut(Vec<GroundRule>),
) -> Result<Ir, LowerError> {
    let store = &g.store;
    let mut ir = Ir {
        roles: g.roles.iter().map(|&r| g.text(r)).collect(),
        terminal: Lit::FALSE,
        ..Ir::default()
    };
    // State facts: the init facts and every fact some next rule derives.
    // Every derived atom: the heads of the ground rules and the outputs of the rules evaluated
    // at run time (hybrid grounding). State bits and moves come from all of them, so that every
    // `next` and `legal` output has its bit and its move by construction.
    let derived: Vec<TermId> = rules
        .iter()
        .map(|r| r.head)
        .chain(g.joins.joins.iter().flat_map(|j| j.outputs.iter().copied()))
        .collect();
    let mut facts: Vec<TermId> = g.init.clone();
    for &head in &derived {
        if store.functor(head) == kw::NEXT && store.args(head).len() == 1 {
            facts.push(store.args(head)[0]);
        }
    }
    let mut facts: Vec<(String, TermId)> = facts.into_iter().map(|f| (g.text(f), f)).collect();
    facts.sort();
    facts.dedup();
    layout::plane_order(g, &mut facts);
    // The bit of each state fact, by term id (dense: every `true` literal looks it up).
    let mut bits_by_term: Vec<u32> = vec![u32::MAX; store.len()];
    for (i, f) in facts.iter().enumerate() {
        bits_by_term[f.1 as usize] = i as u32;
    }
    let bit_of = |t: TermId| -> Option<u32> {
        let b = *bits_by_term.get(t as usize)?;
        (b != u32::MAX).then_some(b)
    };
    ir.bits = facts.into_iter().map(|f| f.0).collect();
    ir.init = g.init.iter().filter_map(|&f| bit_of(f)).collect();
    ir.init.sort_unstable();
    ir.init.dedup();

    // Moves: the legal atoms of each role.
    let role_of: HashMap<TermId, u32> = g
        .roles
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, i as u32))
        .collect();
    let mut moves: Vec<Vec<(String, TermId)>> = vec![Vec::new(); g.roles.len()];
    for &head in &derived {
        if store.functor(head) == kw::LEGAL
            && let [role, mv] = store.args(head)
            && let Some(&ri) = role_of.get(role)
        {
            moves[ri as usize].push((g.text(*mv), *mv));
        }
    }
    let mut move_of: HashMap<(u32, TermId), u32> = HashMap::default();
    for (ri, ms) in moves.iter_mut().enumerate() {
        ms.sort();
        ms.dedup();
        for (i, m) in ms.iter().enumerate() {
            move_of.insert((ri as u32, m.1), i as u32);
        }
    }
    ir.moves = moves
        .into_iter()
        .map(|ms| ms.into_iter().map(|m| m.0).collect())
        .collect();

    // Derived atoms: the heads, ordered by the strongly connected components of their
    // dependencies. Maps from atoms are dense vectors over the store's term ids (`NONE`: not
    // an atom of the graph), not hash maps: lowering touches every atom of every ground rule.
    const NONE: u32 = u32::MAX;
    let lowered_every = (rules.len() / 64).max(4096);
    let mut node_of: Vec<u32> = vec![NONE; store.len()];
    // The atom of each node of the graph.
    let mut node_atom: Vec<TermId> = Vec::with_capacity(rules.len());
    for r in rules.iter() {
        if node_of[r.head as usize] == NONE {
            node_of[r.head as usize] = node_atom.len() as u32;
            node_atom.push(r.head);
        }
    }
    // A join is a node (a term id past the store's) between the atoms its tables read and
    // its outputs.
    let join_node = |k: usize| u32::MAX - k as u32;
    let is_join = |t: TermId| t as usize >= store.len();
    let mut join_nodes: Vec<u32> = Vec::new();
    for (k, j) in g.joins.joins.iter().enumerate() {
        join_nodes.push(node_atom.len() as u32);
        node_atom.push(join_node(k));
        for &a in &j.outputs {
            let slot = &mut node_of[a as usize];
            if *slot == NONE {
                *slot = node_atom.len() as u32;
                node_atom.push(a);
            }
        }
    }
    let node = |a: TermId| -> Option<u32> {
        let n = *node_of.get(a as usize)?;
        (n != NONE).then_some(n)
    };
    // What a body atom that is not a node reads (it has no prop: props are made of nodes).
    let leaf = |a: TermId| -> LeafOf {
        match (store.functor(a), store.args(a)) {
            (kw::TRUE, [x]) => bit_of(*x).map_or(LeafOf::False, LeafOf::Bit),
            (kw::DOES, [r, m]) => role_of
                .get(r)
                .and_then(|&ri| {
                    move_of
                        .get(&(ri, *m))
                        .map(|&mv| LeafOf::Does { role: ri, mv })
                })
                .unwrap_or(LeafOf::False),
            _ => LeafOf::False,
        }
    };
    let move_counts: Vec<usize> = ir.moves.iter().map(Vec::len).collect();
    let Some(bodies) = Bodies::new(
        &rules,
        (node_atom.len(), ir.bits.len(), &move_counts),
        &node,
        &leaf,
    ) else {
        return Err(LowerError::Internal {
            what: "more atoms, state bits and moves than 32-bit codes hold".to_string(),
        });
    };
    // Lowering reads the rules from `bodies` from here on.
    if let Cow::Owned(rules) = rules {
        release(rules);
    }
    let rule_count = bodies.rules().len() as u64;
    // The rules of each head node, in rule order (compressed rows).
    let rules_of = RulesOf::new(&bodies, node_atom.len());
    // The atoms each join's tables read that are nodes, in order.
    let join_reads: Vec<Vec<u32>> = g
        .joins
        .joins
        .iter()
        .map(|j| {
            let mut atoms = Vec::new();
            for t in tables_read(&j.rule.steps, &g.joins.lazy) {
                if let Some(t) = g.joins.tables.get(t as usize) {
                    atoms.extend(t.signals.iter().copied().filter(|&s| s != ALWAYS));
                }
            }
            atoms.sort_unstable();
            atoms.dedup();
            atoms.into_iter().filter_map(node).collect()
        })
        .collect();
    // Edges from body atoms to heads (duplicates are harmless), in the order: join outputs,
    // join inputs, rule bodies (rule by rule, positive literals first).
    let edges = |f: &mut dyn FnMut(u32, u32)| {
        for (k, j) in g.joins.joins.iter().enumerate() {
            for &a in &j.outputs {
                f(join_nodes[k], node_of[a as usize]);
            }
        }
        for (k, reads) in join_reads.iter().enumerate() {
            for &b in reads {
                f(b, join_nodes[k]);
            }
        }
        for r in bodies.rules() {
            for (b, _) in bodies.nodes_of(r) {
                f(b, r.head);
            }
        }
    };
    // Negative edges, kept apart, and self-loops.
    let mut negative_edges: Vec<(u32, u32)> = Vec::new();
    let mut self_loops: Vec<bool> = vec![false; node_atom.len()];
    for (i, r) in bodies.rules().iter().enumerate() {
        if i % lowered_every == 0 {
            progress.step("rules linked", i as u64, rule_count);
        }
        let h = r.head;
        for (b, negative) in bodies.nodes_of(r) {
            if negative {
                negative_edges.push((b, h));
            }
            if b == h {
                self_loops[h as usize] = true;
            }
        }
    }
    let graph = scc::Graph::new(node_atom.len(), edges);
    progress.step("rules linked", rule_count, rule_count);
    let sccs = scc::components(&graph);
    drop(graph);
    let mut scc_of: Vec<usize> = vec![0; node_atom.len()];
    for (i, scc) in sccs.iter().enumerate() {
        for &n in scc {
            scc_of[n as usize] = i;
        }
    }
    let mut prop_of: Vec<u32> = vec![NONE; store.len()];
    // The prop of each node (`NONE`: none; `AS_TERM`: its atom is a `true` or `does` atom,
    // read as the term it is, as a literal of the description would be).
    const AS_TERM: u32 = u32::MAX - 1;
    let mut prop_of_node: Vec<u32> = vec![NONE; node_atom.len()];
    // The atom and the node of each prop.
    let mut atom_of: Vec<TermId> = Vec::with_capacity(node_atom.len());
    let mut node_of_prop: Vec<u32> = Vec::with_capacity(node_atom.len());
    // (Before props are made: a join node of a larger component has no atom to make one of.)
    for (k, &jn) in join_nodes.iter().enumerate() {
        if sccs.get(scc_of[jn as usize]).len() > 1 {
            return Err(LowerError::RecursiveJoin {
                rule: g.joins.joins[k].origin,
            });
        }
    }
    for (b, h) in negative_edges {
        if scc_of[b as usize] == scc_of[h as usize] {
            let origin = rules_of.of(h as usize).first().map_or(0, |&r| r as usize);
            return Err(LowerError::NegativeCycle {
                atom: g.text(node_atom[h as usize]),
                rule: bodies.rule(origin as u32).origin as usize,
            });
        }
    }
    let live = live_nodes(
        g,
        &bodies,
        &sccs,
        &rules_of,
        &|a| {
            if is_join(a) {
                return false;
            }
            match (store.functor(a), store.args(a)) {
                (kw::LEGAL | kw::GOAL | kw::SEES, [r, _]) => role_of.contains_key(r),
                (kw::NEXT, [_]) | (kw::TERMINAL, []) => true,
                _ => false,
            }
        },
        &node_atom,
        &node,
    );
    for scc in sccs.iter() {
        if scc.len() == 1 && is_join(node_atom[scc[0] as usize]) {
            continue;
        }
        if !live[scc[0] as usize] {
            continue;
        }
        let start = ir.props.len() as u32;
        for &n in scc {
            let atom = node_atom[n as usize];
            prop_of[atom as usize] = ir.props.len() as u32;
            prop_of_node[n as usize] = match (store.functor(atom), store.args(atom).len()) {
                (kw::TRUE, 1) | (kw::DOES, 2) => AS_TERM,
                _ => ir.props.len() as u32,
            };
            atom_of.push(atom);
            node_of_prop.push(n);
            ir.props.push(Prop {
                text: g.text(atom),
                disjuncts: Vec::new(),
                origins: Vec::new(),
            });
        }
        if scc.len() > 1 || self_loops[scc[0] as usize] {
            ir.groups.push(start..ir.props.len() as u32);
        }
    }
    let prop = |atom: TermId| -> Option<u32> {
        let p = *prop_of.get(atom as usize)?;
        (p != NONE).then_some(p)
    };
    let lit_of = |atom: TermId| -> Lit {
        let args = store.args(atom);
        match (store.functor(atom), args) {
            (kw::TRUE, [x]) => bit_of(*x).map_or(Lit::FALSE, |b| Lit::pos(Input::Bit(b))),
            (kw::DOES, [r, m]) => role_of
                .get(r)
                .and_then(|&ri| {
                    move_of
                        .get(&(ri, *m))
                        .map(|&mv| Lit::pos(Input::Does { role: ri, mv }))
                })
                .unwrap_or(Lit::FALSE),
            _ => prop(atom).map_or(Lit::FALSE, |p| Lit::pos(Input::Prop(p))),
        }
    };
    // Prop by prop, its rules in rule order. (Reading the rules in stored order instead,
    // each appended to its head's prop, lowers faster but scatters the props' allocations:
    // crissrace's optimisation, which frees most props, then took 3.5 times as long.)
    let read_lit = |read: Read| -> Lit {
        match read {
            Read::Leaf(l) => l,
            Read::Node(n) => match prop_of_node[n as usize] {
                NONE => Lit::FALSE,
                AS_TERM => lit_of(node_atom[n as usize]),
                p => Lit::pos(Input::Prop(p)),
            },
        }
    };
    let total = ir.props.len() as u64;
    for (p, &n) in node_of_prop.iter().enumerate() {
        if p % lowered_every == 0 {
            progress.step("props lowered", p as u64, total);
        }
        let prop = &mut ir.props[p];
        // Exactly sized: pushed one by one, a prop of one rule kept room for four (70 MB of
        // amazonsTorus's 934,000 props).
        let rules = rules_of.of(n as usize);
        prop.disjuncts.reserve_exact(rules.len());
        prop.origins.reserve_exact(rules.len());
        for &ri in rules {
            let r = bodies.rule(ri);
            let mut conj: Vec<Lit> = Vec::with_capacity(r.len());
            conj.extend(bodies.body(r).map(|(read, negative)| {
                let l = read_lit(read);
                if negative { l.negate() } else { l }
            }));
            prop.disjuncts.push(conj);
            prop.origins.push(r.origin);
        }
        prop.origins.sort_unstable();
        prop.origins.dedup();
        merge_moves(&mut prop.disjuncts, &mut ir.move_sets);
        prop.disjuncts.sort();
    }
    progress.step("props lowered", total, total);
    // The joins: their outputs are disjuncts of their atoms' props.
    let mut first_output = 0u32;
    for (k, j) in g.joins.joins.iter().enumerate() {
        for (i, a) in j.outputs.iter().enumerate() {
            if let Some(p) = prop(*a) {
                ir.props[p as usize]
                    .disjuncts
                    .push(vec![Lit::pos(Input::Join(first_output + i as u32))]);
            }
        }
        ir.joins.joins.push(IrJoin {
            rule: j.rule.clone(),
            keys: j.keys.clone(),
            first_output,
        });
        first_output += j.outputs.len() as u32;
        let _ = k;
    }
    ir.joins.lazy = g.joins.lazy.clone();
    ir.joins.tables = g
        .joins
        .tables
        .iter()
        .map(|t| IrTable {
            width: t.width,
            rows: t.rows.clone(),
            holds: t
                .signals
                .iter()
                .map(|&s| if s == ALWAYS { Lit::TRUE } else { lit_of(s) })
                .collect(),
        })
        .collect();

    // Outputs.
    ir.legal = ir
        .moves
        .iter()
        .map(|ms| vec![Lit::FALSE; ms.len()])
        .collect();
    ir.next = vec![Lit::FALSE; ir.bits.len()];
    ir.goals = vec![Vec::new(); ir.roles.len()];
    ir.sees = vec![Vec::new(); ir.roles.len()];
    for (p, &atom) in atom_of.iter().enumerate() {
        let args = store.args(atom);
        let lit = Lit::pos(Input::Prop(p as u32));
        match (store.functor(atom), args) {
            (kw::LEGAL, [r, m]) => {
                if let Some(&ri) = role_of.get(r) {
                    let Some(&mv) = move_of.get(&(ri, *m)) else {
                        return Err(internal(g, atom, "a legal move without a move number"));
                    };
                    ir.legal[ri as usize][mv as usize] = lit;
                }
            }
            (kw::NEXT, [x]) => {
                let Some(bit) = bit_of(*x) else {
                    return Err(internal(g, atom, "a next fact without a state bit"));
                };
                ir.next[bit as usize] = lit;
            }
            (kw::TERMINAL, []) => ir.terminal = lit,
            (kw::GOAL, [r, v]) => {
                if let Some(&ri) = role_of.get(r) {
                    let value = if store.args(*v).is_empty() {
                        g.symbols.name(store.functor(*v)).parse().ok()
                    } else {
                        None
                    };
                    ir.goals[ri as usize].push(GoalValue { value, when: lit });
                }
            }
            (kw::SEES, [r, percept]) => {
                if let Some(&ri) = role_of.get(r) {
                    ir.sees[ri as usize].push(Percept {
                        text: g.text(*percept),
                        when: lit,
                    });
                }
            }
            _ => {}
        }
    }
    for goals in &mut ir.goals {
        goals.sort_by_key(|g| (g.value, g.when));
    }
    for percepts in &mut ir.sees {
        percepts.sort_by(|a, b| a.text.cmp(&b.text));
    }
    Ok(ir)
}

/// Whether each node of the graph is live: read by an output (`is_output` of its atom), by a
/// table of the joins, or by a live node's rules; a component is live as a whole. These are the
/// props [`crate::optimise::remove_dead`] keeps, in the same order: lowering only them saves
/// building the props grounding derives but no output reads (a third of amazonsTorus's).
fn live_nodes(
    g: &GroundProgram,
    bodies: &Bodies,
    sccs: &scc::Components,
    rules_of: &RulesOf,
    is_output: &dyn Fn(TermId) -> bool,
    node_atom: &[TermId],
    node: &dyn Fn(TermId) -> Option<u32>,
) -> Vec<bool> {
    let mut live: Vec<bool> = node_atom.iter().map(|&a| is_output(a)).collect();
    for t in &g.joins.tables {
        for &s in &t.signals {
            if s != ALWAYS
                && let Some(n) = node(s)
            {
                live[n as usize] = true;
            }
        }
    }
    // Components in reverse evaluation order: every reader of a component comes before it.
    for i in (0..sccs.len()).rev() {
        let scc = sccs.get(i);
        if !scc.iter().any(|&n| live[n as usize]) {
            continue;
        }
        for &n in scc {
            live[n as usize] = true;
            for &ri in rules_of.of(n as usize) {
                for (b, _) in bodies.nodes_of(bodies.rule(ri)) {
                    live[b as usize] = true;
                }
            }
        }
    }
    live
}

/// A breach of lowering's own invariants: a loud error naming the atom, never a wrong game.
fn internal(g: &GroundProgram, atom: TermId, what: &str) -> LowerError {
    LowerError::Internal {
        what: format!("{what}: {}", g.text(atom)),
    }
}
