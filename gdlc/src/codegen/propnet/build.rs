//! Building the network of an [`Ir`]: one gate per move set, per conjunction and per
//! disjunction of a prop, and one buffer gate per output ([`build_plain`]), then the outputs'
//! ranges, the legal guards and the join program ([`finish`]).

use gdl_propnet::{ALWAYS, JoinProgram, Net, Table};

use crate::ir::{Input, Ir, Lit};

const NONE: u32 = u32::MAX;

/// A node read directly or negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Signal {
    pub(super) node: u32,
    pub(super) neg: bool,
}

/// A gate being built: its inputs are `Builder::inputs[start..start + len]` (one table for
/// all gates: a vector per gate was a million allocations on amazonsTorus). An input node
/// (state bit, move) has a gate of no inputs.
#[derive(Clone, Copy)]
struct Gate {
    thresh: u32,
    group: u32,
    start: u32,
    len: u32,
}

impl Gate {
    /// The gate of an input node.
    const INPUT: Gate = Gate {
        thresh: 0,
        group: NONE,
        start: 0,
        len: 0,
    };
}

struct Builder<'a> {
    ir: &'a Ir,
    /// Per node: its gate.
    gates: Vec<Gate>,
    /// The inputs of the gates.
    inputs: Vec<Signal>,
    does_base: Vec<u32>,
    true_node: u32,
    false_node: u32,
    /// Per move set, its signal.
    sets: Vec<Signal>,
    /// Per prop, its signal (set once built).
    props: Vec<Option<Signal>>,
    groups: Vec<(u32, u32)>,
    /// Per group, its join or `NONE`.
    group_join: Vec<u32>,
    /// Per join, the node of its first output, once built.
    join_nodes: Vec<Option<u32>>,
}

impl Builder<'_> {
    fn add(&mut self, thresh: u32, inputs: &[Signal], group: u32) -> u32 {
        let start = self.push_inputs(inputs);
        self.gates.push(Gate {
            thresh,
            group,
            start,
            len: inputs.len() as u32,
        });
        (self.gates.len() - 1) as u32
    }

    /// Appends `inputs` to the table of inputs, returning where they start.
    fn push_inputs(&mut self, inputs: &[Signal]) -> u32 {
        let start = self.inputs.len() as u32;
        self.inputs.extend_from_slice(inputs);
        start
    }

    /// The inputs of `gate`.
    fn inputs_of(&self, gate: &Gate) -> &[Signal] {
        &self.inputs[gate.start as usize..(gate.start + gate.len) as usize]
    }

    fn constant(&self, value: bool) -> Signal {
        Signal {
            node: if value {
                self.true_node
            } else {
                self.false_node
            },
            neg: false,
        }
    }

    fn signal(&self, l: Lit) -> Signal {
        let s = match l.input {
            Input::Const(b) => return self.constant(b != l.negated),
            Input::Bit(b) => Signal {
                node: b,
                neg: false,
            },
            Input::Does { role, mv } => Signal {
                node: self.does_base[role as usize] + mv,
                neg: false,
            },
            Input::MoveIn(s) => self
                .sets
                .get(s as usize)
                .copied()
                .unwrap_or(self.constant(false)),
            Input::Prop(p) => self
                .props
                .get(p as usize)
                .copied()
                .flatten()
                .unwrap_or(self.constant(false)),
            Input::Join(o) => self
                .ir
                .joins
                .output(o)
                .and_then(|(j, k)| Some(self.join_nodes[j]? + k as u32))
                .map_or(self.constant(false), |node| Signal { node, neg: false }),
        };
        Signal {
            node: s.node,
            neg: s.neg != l.negated,
        }
    }

    /// Builds the nodes of the joins that `disjuncts` read, if not yet built: a group of one
    /// node per output, which the join's input nodes mark dirty.
    fn joins_of(&mut self, disjuncts: &[Vec<Lit>]) {
        if self.ir.joins.joins.is_empty() {
            return;
        }
        for l in disjuncts.iter().flatten() {
            let Input::Join(o) = l.input else { continue };
            let Some((j, _)) = self.ir.joins.output(o) else {
                continue;
            };
            if self.join_nodes[j].is_some() {
                continue;
            }
            let ir = self.ir;
            let mut inputs: Vec<Signal> = Vec::new();
            for table in crate::ir::tables_read(&ir.joins.joins[j].rule.steps, &ir.joins.lazy) {
                if let Some(t) = ir.joins.tables.get(table as usize) {
                    for &h in &t.holds {
                        if h.constant().is_none() {
                            let s = self.signal(h);
                            inputs.push(Signal {
                                node: s.node,
                                neg: false,
                            });
                        }
                    }
                }
            }
            inputs.sort_unstable_by_key(|s| s.node);
            inputs.dedup();
            let gid = self.groups.len() as u32;
            let start = self.gates.len() as u32;
            for k in 0..ir.joins.joins[j].keys.len() {
                let ins = if k == 0 {
                    std::mem::take(&mut inputs)
                } else {
                    Vec::new()
                };
                self.add(u32::MAX, &ins, gid);
            }
            self.groups.push((start, self.gates.len() as u32));
            self.group_join.push(j as u32);
            self.join_nodes[j] = Some(start);
        }
    }

    /// The inputs of the or-gate of a disjunction of conjunctions, adding a gate per
    /// conjunction of several literals (in `group`); `None` when the disjunction is true.
    fn terms(&mut self, disjuncts: &[Vec<Lit>], group: u32) -> Option<Vec<Signal>> {
        self.joins_of(disjuncts);
        let mut terms: Vec<Signal> = Vec::with_capacity(disjuncts.len());
        let mut ins: Vec<Signal> = Vec::new();
        for c in disjuncts {
            ins.clear();
            let mut falsified = false;
            for &l in c {
                match l.constant() {
                    Some(true) => {}
                    Some(false) => falsified = true,
                    None => ins.push(self.signal(l)),
                }
            }
            if falsified {
                continue;
            }
            match ins.len() {
                0 => return None,
                1 => terms.push(ins[0]),
                n => {
                    let node = self.add(n as u32, &ins, group);
                    terms.push(Signal { node, neg: false });
                }
            }
        }
        Some(terms)
    }

    /// The signal of a disjunction of conjunctions outside groups.
    fn dnf(&mut self, disjuncts: &[Vec<Lit>]) -> Signal {
        let Some(terms) = self.terms(disjuncts, NONE) else {
            return self.constant(true);
        };
        match terms[..] {
            [] => self.constant(false),
            [t] => t,
            _ => Signal {
                node: self.add(1, &terms, NONE),
                neg: false,
            },
        }
    }

    /// The top gate of output literal `l` if its prop is read by this output only, its
    /// sub-gates added now; `guard` is left out of a single conjunction (and returned).
    fn top(&mut self, l: Lit, only: &[bool], guard: Option<Lit>) -> Option<Top> {
        let Input::Prop(p) = l.input else {
            return None;
        };
        if let Some(prop) = self.ir.props.get(p as usize) {
            self.joins_of(&prop.disjuncts);
        }
        if l.negated || !only.get(p as usize).copied().unwrap_or(false) {
            return None;
        }
        let disjuncts = &self.ir.props[p as usize].disjuncts;
        if let ([c], Some(g)) = (&disjuncts[..], guard) {
            let inputs: Vec<Signal> = c
                .iter()
                .filter(|&&x| x != g)
                .filter(|x| x.constant() != Some(true))
                .map(|&x| self.signal(x))
                .collect();
            let falsified = c.iter().any(|x| x.constant() == Some(false));
            return Some(Top {
                thresh: if falsified {
                    u32::MAX
                } else {
                    inputs.len() as u32
                },
                inputs,
                guard: Some(self.signal(g)),
            });
        }
        if let [c] = &disjuncts[..] {
            let falsified = c.iter().any(|x| x.constant() == Some(false));
            let inputs: Vec<Signal> = c
                .iter()
                .filter(|x| x.constant().is_none())
                .map(|&x| self.signal(x))
                .collect();
            return Some(Top {
                thresh: if falsified {
                    u32::MAX
                } else {
                    inputs.len() as u32
                },
                inputs,
                guard: None,
            });
        }
        Some(match self.terms(disjuncts, NONE) {
            None => Top {
                thresh: 0,
                inputs: Vec::new(),
                guard: None,
            },
            Some(inputs) => Top {
                thresh: if inputs.is_empty() { u32::MAX } else { 1 },
                inputs,
                guard: None,
            },
        })
    }

    /// A buffer gate for an output literal.
    fn buffer(&mut self, l: Lit) -> u32 {
        self.joins_of(&[vec![l]]);
        match l.constant() {
            Some(true) => self.add(0, &[], NONE),
            Some(false) => self.add(u32::MAX, &[], NONE),
            None => {
                let s = self.signal(l);
                self.add(1, &[s], NONE)
            }
        }
    }

    /// Pads with never-true gates up to a multiple of 64 nodes.
    fn align(&mut self) {
        while self.gates.len() & 63 != 0 {
            self.add(u32::MAX, &[], NONE);
        }
    }
}

/// The network of `ir`.
pub fn build_net(ir: &Ir) -> Net {
    let (mut net, _) = build_plain(ir);
    net.simplify();
    net
}

/// Where the network of [`build_plain`] computes each input of the IR.
pub(super) struct Signals {
    /// Per prop, its signal (none for a prop whose gate is an output's).
    pub(super) props: Vec<Option<Signal>>,
    /// Per move set, its signal.
    pub(super) sets: Vec<Signal>,
    pub(super) does_base: Vec<u32>,
}

impl Signals {
    pub(super) fn of(&self, i: Input) -> Option<Signal> {
        let plain = |node| Some(Signal { node, neg: false });
        match i {
            Input::Bit(b) => plain(b),
            Input::Does { role, mv } => plain(self.does_base.get(role as usize)? + mv),
            Input::Prop(p) => self.props.get(p as usize).copied().flatten(),
            Input::MoveIn(s) => self.sets.get(s as usize).copied(),
            Input::Const(_) | Input::Join(_) => None,
        }
    }
}

/// The network of `ir` before [`Net::simplify`] (every prop's gate computed), and where.
#[allow(clippy::needless_range_loop)] // Roles, moves and bits index several tables.
pub(super) fn build_plain(ir: &Ir) -> (Net, Signals) {
    let bits = ir.bits.len() as u32;
    let mut gates: Vec<Gate> = vec![Gate::INPUT; bits as usize];
    let mut does_base = Vec::new();
    for ms in &ir.moves {
        does_base.push(gates.len() as u32);
        gates.extend(ms.iter().map(|_| Gate::INPUT));
    }
    let mut b = Builder {
        ir,
        gates,
        inputs: Vec::new(),
        does_base,
        true_node: 0,
        false_node: 0,
        sets: Vec::new(),
        props: vec![None; ir.props.len()],
        groups: Vec::new(),
        group_join: Vec::new(),
        join_nodes: vec![None; ir.joins.joins.len()],
    };
    b.true_node = b.add(0, &[], NONE);
    b.false_node = b.add(u32::MAX, &[], NONE);
    for set in &b.ir.move_sets.sets {
        let r = set.role as usize;
        let n = b.ir.moves[r].len() as u32;
        let base = b.does_base[r];
        let sig = if set.moves.len() as u32 * 2 <= n {
            let ins: Vec<Signal> = set
                .moves
                .iter()
                .map(|&m| Signal {
                    node: base + m,
                    neg: false,
                })
                .collect();
            Signal {
                node: b.add(1, &ins, NONE),
                neg: false,
            }
        } else {
            // None of the other moves.
            let others: Vec<Signal> = (0..n)
                .filter(|m| set.moves.binary_search(m).is_err())
                .map(|m| Signal {
                    node: base + m,
                    neg: false,
                })
                .collect();
            if others.is_empty() {
                b.constant(true)
            } else {
                Signal {
                    node: b.add(1, &others, NONE),
                    neg: true,
                }
            }
        };
        b.sets.push(sig);
    }
    let group_of = ir.group_of();
    let only = output_only(ir);
    let mut p = 0usize;
    while p < ir.props.len() {
        let Some(g) = group_of[p] else {
            if only[p] {
                p += 1;
                continue;
            }
            let s = b.dnf(&ir.props[p].disjuncts);
            b.props[p] = Some(s);
            p += 1;
            continue;
        };
        // A group: one or-gate per member, allocated first so that members can read each
        // other, then their conjunctions.
        let range = ir.groups[g as usize].clone();
        for q in range.clone() {
            b.joins_of(&ir.props[q as usize].disjuncts);
        }
        let gid = b.groups.len() as u32;
        let start = b.gates.len() as u32;
        for q in range.clone() {
            let node = b.add(1, &[], gid);
            b.props[q as usize] = Some(Signal { node, neg: false });
        }
        for q in range.clone() {
            let terms = b.terms(&ir.props[q as usize].disjuncts, gid);
            let node = b.props[q as usize].map_or(0, |s| s.node);
            match terms {
                None => {
                    if let Some(gate) = b.gates.get_mut(node as usize) {
                        gate.thresh = 0;
                    }
                }
                Some(t) => {
                    let start = b.push_inputs(&t);
                    if let Some(gate) = b.gates.get_mut(node as usize) {
                        gate.start = start;
                        gate.len = t.len() as u32;
                    }
                }
            }
        }
        b.groups.push((start, b.gates.len() as u32));
        b.group_join.push(NONE);
        p = range.end as usize;
    }
    // The joins that outputs read directly (a prop aliased to a join's output) come before
    // the output ranges, which hold one gate per output.
    let mut direct: Vec<Lit> = Vec::new();
    ir.for_each_output(&mut |l| {
        if matches!(l.input, Input::Join(_)) {
            direct.push(l);
        }
    });
    b.joins_of(&[direct]);
    // Outputs. The sub-gates of props that only an output reads come first, so that the
    // output ranges hold their top gates.
    let guards = legal_guards(ir, &only);
    let mut tops: Vec<Option<Top>> = Vec::new();
    let mut legal_top: Vec<Vec<Option<usize>>> = Vec::new();
    for r in 0..ir.roles.len() {
        let mut row = Vec::new();
        for m in 0..ir.moves[r].len() {
            let l = ir.legal[r].get(m).copied().unwrap_or(Lit::FALSE);
            let guard = guards[r].get(m).copied().flatten();
            row.push(b.top(l, &only, guard).map(|t| {
                tops.push(Some(t));
                tops.len() - 1
            }));
        }
        legal_top.push(row);
    }
    let mut next_top = Vec::new();
    for bit in 0..ir.bits.len() {
        let l = ir.next.get(bit).copied().unwrap_or(Lit::FALSE);
        next_top.push(b.top(l, &only, None).map(|t| {
            tops.push(Some(t));
            tops.len() - 1
        }));
    }
    let mut legal_base = Vec::new();
    let mut legal_guard = Vec::new();
    for r in 0..ir.roles.len() {
        b.align();
        legal_base.push(b.gates.len() as u32);
        let mut gs = Vec::new();
        for m in 0..ir.moves[r].len() {
            let l = ir.legal[r].get(m).copied().unwrap_or(Lit::FALSE);
            let t = legal_top[r][m].and_then(|i| tops[i].take());
            match t {
                Some(t) => {
                    gs.push(t.guard.map_or(NONE, |g| g.node << 1 | u32::from(g.neg)));
                    b.add(t.thresh, &t.inputs, NONE);
                }
                None => {
                    gs.push(NONE);
                    b.buffer(l);
                }
            }
        }
        legal_guard.push(gs);
    }
    b.align();
    let next_base = b.gates.len() as u32;
    for bit in 0..ir.bits.len() {
        let l = ir.next.get(bit).copied().unwrap_or(Lit::FALSE);
        match next_top[bit].and_then(|i| tops[i].take()) {
            Some(t) => {
                b.add(t.thresh, &t.inputs, NONE);
            }
            None => {
                b.buffer(l);
            }
        }
    }
    let terminal = b.buffer(ir.terminal);
    let mut goals = Vec::new();
    for gs in &ir.goals {
        let mut out = Vec::new();
        for g in gs {
            out.push((g.value, b.buffer(g.when)));
        }
        goals.push(out);
    }
    let sees: Vec<Vec<u32>> = ir
        .sees
        .iter()
        .map(|ps| ps.iter().map(|p| b.buffer(p.when)).collect())
        .collect();
    let signals = Signals {
        props: b.props.clone(),
        sets: b.sets.clone(),
        does_base: b.does_base.clone(),
    };
    let mut net = finish(b, bits, legal_base, next_base, terminal, goals);
    net.legal_guard = legal_guard;
    net.sees = sees;
    (net, signals)
}

/// The top gate of an output whose prop only it reads: built in the output range.
struct Top {
    thresh: u32,
    inputs: Vec<Signal>,
    guard: Option<Signal>,
}

/// Whether each prop is read by exactly one output (a legal move or a next bit, positively)
/// and nothing else, outside groups: such a prop's gate can be the output node itself.
pub(super) fn output_only(ir: &Ir) -> Vec<bool> {
    let n = ir.props.len();
    let mut refs = vec![0u32; n];
    let mut by_output = vec![false; n];
    for prop in &ir.props {
        for l in prop.disjuncts.iter().flatten() {
            if let Input::Prop(q) = l.input {
                refs[q as usize] += 1;
            }
        }
    }
    let mut count = |l: Lit, output: bool| {
        if let Input::Prop(q) = l.input {
            refs[q as usize] += 1;
            if output && !l.negated {
                by_output[q as usize] = true;
            }
        }
    };
    ir.legal.iter().flatten().for_each(|&l| count(l, true));
    ir.next.iter().for_each(|&l| count(l, true));
    count(ir.terminal, false);
    ir.goals.iter().flatten().for_each(|g| count(g.when, false));
    ir.sees.iter().flatten().for_each(|p| count(p.when, false));
    // A row of a run-time join's table reads its prop too.
    ir.joins
        .tables
        .iter()
        .flat_map(|t| &t.holds)
        .for_each(|&l| count(l, false));
    let group_of = ir.group_of();
    (0..n)
        .map(|p| refs[p] == 1 && by_output[p] && group_of[p].is_none())
        .collect()
}

/// Per role, per move: the literal to test when listing moves instead of fanning it out, if
/// any. A role's guard is the literal that more than half of its output-only legal
/// conjunctions share, when the role has more than 64 moves.
fn legal_guards(ir: &Ir, only: &[bool]) -> Vec<Vec<Option<Lit>>> {
    let mut out = Vec::new();
    for legal in &ir.legal {
        let mut guards = vec![None; legal.len()];
        let conj = |l: &Lit| -> Option<&Vec<Lit>> {
            match l.input {
                Input::Prop(p) if only[p as usize] && !l.negated => {
                    match &ir.props[p as usize].disjuncts[..] {
                        [c] if c.len() >= 2 => Some(c),
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        let mut counts: rustc_hash::FxHashMap<Lit, usize> = Default::default();
        let mut total = 0;
        for c in legal.iter().filter_map(conj) {
            total += 1;
            for &x in c {
                *counts.entry(x).or_default() += 1;
            }
        }
        let best = counts
            .into_iter()
            .filter(|&(l, _)| l.constant().is_none())
            .max_by_key(|&(l, k)| (k, std::cmp::Reverse(l)));
        if let Some((g, k)) = best
            && legal.len() > 64
            && k * 2 > total
        {
            for (m, l) in legal.iter().enumerate() {
                if conj(l).is_some_and(|c| c.contains(&g)) {
                    guards[m] = Some(g);
                }
            }
        }
        out.push(guards);
    }
    out
}

/// Turns the gates into the network's arrays: thresholds, fan-out lists and group edges.
fn finish(
    b: Builder<'_>,
    bits: u32,
    legal_base: Vec<u32>,
    next_base: u32,
    terminal: u32,
    goals: Vec<Vec<(Option<i32>, u32)>>,
) -> Net {
    let nodes = b.gates.len();
    let mut group_of = vec![NONE; nodes];
    for (g, &(a, z)) in b.groups.iter().enumerate() {
        for n in a..z {
            group_of[n as usize] = g as u32;
        }
    }
    let mut thresh = vec![0u32; nodes];
    // Each edge of the gates' inputs, by source: to the gate's out-edges (`fan`), or to its
    // group's inner edges (a plain input from the same group).
    let route = |gate: &Gate, s: &Signal| -> (bool, u32) {
        let same_group = gate.group != NONE && group_of[s.node as usize] == gate.group;
        (
            same_group && !s.neg,
            u32::from(gate.group != NONE) << 1 | u32::from(s.neg),
        )
    };
    // Compressed rows, counted first (two vectors per node would be millions of allocations).
    let mut fan_start = vec![0u32; nodes + 1];
    let mut inner_start = vec![0u32; nodes + 1];
    for gate in &b.gates {
        for s in b.inputs_of(gate) {
            let starts = if route(gate, s).0 {
                &mut inner_start
            } else {
                &mut fan_start
            };
            starts[s.node as usize + 1] += 1;
        }
    }
    for n in 0..nodes {
        fan_start[n + 1] += fan_start[n];
        inner_start[n + 1] += inner_start[n];
    }
    let mut flat = vec![0u32; fan_start[nodes] as usize];
    let mut inner_flat = vec![0u32; inner_start[nodes] as usize];
    let mut fan_at = fan_start.clone();
    let mut inner_at = inner_start.clone();
    for (n, gate) in b.gates.iter().enumerate() {
        thresh[n] = gate.thresh;
        for s in b.inputs_of(gate) {
            let src = s.node as usize;
            let (inner, kind) = route(gate, s);
            if inner {
                inner_flat[inner_at[src] as usize] = n as u32;
                inner_at[src] += 1;
            } else {
                flat[fan_at[src] as usize] = (n as u32) << 2 | kind;
                fan_at[src] += 1;
            }
        }
    }
    for n in 0..nodes {
        flat[fan_start[n] as usize..fan_start[n + 1] as usize].sort_unstable();
        inner_flat[inner_start[n] as usize..inner_start[n + 1] as usize].sort_unstable();
    }
    let words = (bits as usize).div_ceil(64).max(1);
    let mut init = vec![0u64; words];
    for &i in &b.ir.init {
        init[i as usize / 64] |= 1 << (i % 64);
    }
    let joins = join_program(&b);
    Net {
        nodes: nodes as u32,
        bits,
        does_base: b.does_base,
        moves: b.ir.moves.iter().map(|m| m.len() as u32).collect(),
        thresh,
        fan_start,
        fan: flat,
        group_of,
        groups: b.groups,
        inner_start,
        inner: inner_flat,
        legal_base,
        legal_guard: Vec::new(),
        next_base,
        terminal,
        goals,
        init,
        group_join: b.group_join,
        joins,
        sees: Vec::new(),
        stuck: Vec::new(),
        rows: Default::default(),
    }
}

/// The joins of the IR for the engine: table rows hold when their literal's signal does.
fn join_program(b: &Builder<'_>) -> JoinProgram {
    let ir = b.ir;
    let tables = ir
        .joins
        .tables
        .iter()
        .map(|t| Table {
            width: t.width,
            rows: t.rows.clone(),
            signals: t
                .holds
                .iter()
                .map(|&h| match h.constant() {
                    Some(true) => ALWAYS,
                    Some(false) => b.false_node << 1,
                    None => {
                        let s = b.signal(h);
                        s.node << 1 | u32::from(s.neg)
                    }
                })
                .collect(),
        })
        .collect();
    let joins = ir
        .joins
        .joins
        .iter()
        .map(|j| (j.rule.clone(), j.keys.clone()))
        .collect();
    JoinProgram::new(tables, ir.joins.lazy.clone(), joins)
}
