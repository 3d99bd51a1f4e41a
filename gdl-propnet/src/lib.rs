//! An incremental propositional network: the engine behind the games that `gdlc` compiles to
//! tables rather than to straight-line code (large games, whose code would take rustc too
//! long and whose every proposition would be too slow to re-evaluate at every step).
//!
//! The network ([`Net`]) is a circuit of threshold gates over inputs: the state bits and one
//! input per move of each role (`does`). A gate is true when at least `thresh` of its input
//! edges are (an edge may be negated): an and-gate of `n` inputs has threshold `n`, an or-gate
//! threshold 1. The [`Engine`] keeps the value of every node and, for every gate, the number
//! of its true input edges minus its threshold. When inputs change, their out-edges are
//! visited; a gate whose count crosses zero changes at once and its out-edges are visited in
//! turn (depth first, from a stack): the cost of a step is the size of the change it makes,
//! not the size of the game. Inputs that become true are propagated before those that become
//! false (a piece that moves, a move replaced by another), so that an or-gate that reads both
//! does not go false and back. [`Net::simplify`] (which gdlc applies) bypasses buffers and
//! merges chains of gates of one kind before the network is stored.
//!
//! The engine numbers the gates between the inputs and the outputs its own way (see
//! `order.rs`): still topologically, but each gate placed as soon as what feeds it
//! is, so that the gates a change reaches lie close together in memory. A node's out-edges
//! are kept in three runs (plain, plain negated, into groups), so that the loop over a run
//! adds one constant to each target's count and tests it against one constant; each run is
//! ascending in the engine's numbering, so that a change reads its targets' records in memory
//! order. A node's count
//! and where its edges start are one 8-byte record: the edge that makes a gate change brings
//! into the cache what visiting its edges reads. The first two runs follow one word (the
//! length of the first) in one array; the rare edges into groups are kept apart. The edges of
//! a node pushed on the stack are prefetched (x86_64): the stack is last in, first out, so
//! they are visited soon, and a change costs more in waiting for memory than in visiting
//! edges.
//!
//! *Recursive groups* (ground rules that depend on each other positively, such as paths) are
//! contiguous node ranges whose internal edges are kept apart: when the inputs of a group
//! change, it is marked pending, and once the changes outside groups are done, its least
//! fixpoint is recomputed from its external counts (the least pending group first).
//!
//! Outputs are node ranges aligned to 64: the legal moves of each role, and the next state
//! (node `next_base + b` is the next value of state bit `b`), so that they are read as words
//! (`legal.rs` lists moves, testing the guard a role's moves share once per listing, and for
//! each move whose output holds, the input its legal output shares with many others, which
//! the engine keeps no edge for).
//! A random step may let go of its joint move once it has read the next state, when a trial
//! says that visits fewer edges (`clear.rs`); it then undoes the move's propagation from a log
//! of what it wrote instead of propagating the move back (`joint.rs`).
//! GDL-II percepts are one node each ([`Net::sees`]), read, like the next state, once the
//! joint move is set.
//!
//! Generated code stores the network as text ([`Net::decode`]), decodes it once and keeps one
//! engine per thread; the [`Game`](gdl_runtime::Game) methods sync the engine to the state they are
//! given (flipping the inputs that differ) before reading the outputs.
//!
//! A random playout on a stored network (the `NET_TEXT` of a module generated with
//! `gdlc emit --backend propnet`):
//!
//! ```no_run
//! use gdl_propnet::{Engine, Net};
//! use gdl_runtime::SplitMix64;
//!
//! let text = std::fs::read_to_string("ticTacToe.net")?;
//! let net = Net::decode(&text).map_err(|e| e.0)?;
//! let mut engine = Engine::new(&net);
//! let mut rng = SplitMix64::new(1);
//! let (mut state, mut next) = (net.init.clone(), net.init.clone());
//! engine.set_state(&state);
//! while !engine.terminal() {
//!     engine.random_step(&mut rng, &mut next).map_err(|role| format!("{role}: no move"))?;
//!     std::mem::swap(&mut state, &mut next);
//!     engine.set_state(&state);
//! }
//! println!("goal of role 0: {:?}", engine.goal(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// No group.
const NONE: u32 = u32::MAX;

/// A propositional network. See the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub struct Net {
    /// The number of nodes.
    pub nodes: u32,
    /// The number of state bits: nodes `0..bits` are the state inputs.
    pub bits: u32,
    /// Per role, the node of its move 0 (its moves are consecutive nodes).
    pub does_base: Vec<u32>,
    /// Per role, its number of moves.
    pub moves: Vec<u32>,
    /// Per node, the number of true input edges that makes it true (`u32::MAX`: never; `0`:
    /// always). Unused for inputs.
    pub thresh: Vec<u32>,
    /// Per node, the start of its out-edges in `fan` (one more entry than nodes).
    pub fan_start: Vec<u32>,
    /// Out-edges: `target << 2 | to_group << 1 | negated`.
    pub fan: Vec<u32>,
    /// Per node, its group, or `u32::MAX`.
    pub group_of: Vec<u32>,
    /// The recursive groups: node ranges, ascending.
    pub groups: Vec<(u32, u32)>,
    /// Per group member (indexed by node), the start of its edges inside its group in
    /// `inner` (one more entry than nodes; empty ranges for other nodes).
    pub inner_start: Vec<u32>,
    /// Edges inside groups (never negated): target nodes.
    pub inner: Vec<u32>,
    /// Per role, the first node of its legal outputs (a multiple of 64): node
    /// `legal_base[r] + m` says whether move `m` is legal, if its guard holds.
    pub legal_base: Vec<u32>,
    /// Per role, per move: a node (`node << 1 | negated`) that must also hold for the move to
    /// be legal, or `u32::MAX`. A literal that nearly every legal move of a role needs (whose
    /// turn it is) is tested when moves are listed rather than fanned out to every move.
    pub legal_guard: Vec<Vec<u32>>,
    /// The first node of the next-state outputs (a multiple of 64).
    pub next_base: u32,
    pub terminal: u32,
    /// Per role, its goal values (`None`: not an integer) and the nodes that say they hold.
    pub goals: Vec<Vec<(Option<i32>, u32)>>,
    /// The initial state, as words.
    pub init: Vec<u64>,
    /// Per group: the join of [`Net::joins`] that computes it (its nodes are the join's
    /// outputs), or `u32::MAX` for a recursive group of gates.
    pub group_join: Vec<u32>,
    /// The rules evaluated at run time.
    pub joins: JoinProgram,
    /// GDL-II: per role, per percept (in the order of the game's percept table), the node
    /// that says the role sees it after the joint move. Empty for games without `sees`.
    pub sees: Vec<Vec<u32>>,
    /// Disjuncts of `terminal` the engine tests from the legal moves instead of the network
    /// ("whose turn it is, and it has no legal move"; see [`Stuck`]).
    pub stuck: Vec<Stuck>,
    /// The next-state bits that per-move tables compute, besides the network's outputs (see
    /// [`NextRows`]).
    pub rows: NextRows,
}

impl Net {
    /// The first node after the inputs (the state bits and every role's `does` inputs).
    pub fn first_gate(&self) -> u32 {
        self.does_base
            .iter()
            .zip(&self.moves)
            .map(|(&b, &m)| b + m)
            .max()
            .unwrap_or(self.bits)
            .max(self.bits)
    }
}

mod clear;
mod edges;
mod join;
mod joint;
mod legal;
mod order;
mod pending;
mod rows;
mod simplify;
mod text;

use edges::{Run, into_groups, prefetch, run, step};

pub use join::{ALWAYS, Arg, JoinProgram, JoinScratch, Rule, Step, Table, Value};
pub use legal::Stuck;
pub use rows::{KEEP, KILL, NextRows, RowEntry, SET};
pub use text::{DecodeError, FORMAT_VERSION};

/// A count that never reaches zero: the base of a gate that is never true.
const NEVER: i32 = i32::MIN / 2;

/// Per node, what the engine keeps of it, side by side so that visiting the edges of a gate
/// that changed reads one record, which the edge that changed it has just brought into the
/// cache.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Node {
    /// The node's count of true input edges minus its threshold ([`NEVER`] based for gates
    /// that are never true).
    count: i32,
    /// Where its out-edges are in [`Engine::edges`] (see there; they end where the next
    /// node's begin), with [`INTO`] set if it has edges into groups.
    fan: u32,
}

/// The bit of [`Node::fan`] that says a node has edges into groups (in [`Engine::into`]).
const INTO: u32 = 1 << 30;
/// The bits of [`Node::fan`] that say where its edges start.
const AT: u32 = INTO - 1;

/// The values of a [`Net`] for one state and joint move, kept up to date incrementally.
///
/// A gate's count is its number of true input edges minus its threshold: it is true when the
/// count is at least zero, and changes exactly when an edge moves the count across zero: it
/// is toggled then and pushed on the stack of changes whose out-edges are to be visited. A
/// gate whose inputs change in both directions in one step may change and change back (each
/// change visited, so every count stays exact); the order of the input changes (rising
/// first) avoids the common cases. A dirty group is marked pending at its first node and
/// settled, once the stack is empty, by recomputing its fixpoint.
#[derive(Clone, Debug)]
pub struct Engine<'n> {
    net: &'n Net,
    /// Per node (and one more, whose `fan` ends the last node's edges): its count and
    /// out-edges.
    nodes: Vec<Node>,
    /// Per node, from its `fan`: one word, the number `p` of its plain edges (to gates
    /// outside groups), then those `p` edges, then its negated ones. An edge is
    /// `target << 2 | leaf << 1 | negated` (`leaf`: the target has no out-edges).
    edges: Vec<u32>,
    /// The edges into groups (rare), per node from `into_start[n]` to `into_start[n + 1]`.
    into: Vec<u32>,
    into_start: Vec<u32>,
    /// One bit per node.
    value: Vec<u64>,
    /// The state the inputs hold.
    state: Vec<u64>,
    /// The move each role's `does` inputs hold (`u32::MAX`: none).
    joint: Vec<u32>,
    /// Changes whose out-edges are still to be visited: `node << 1 | new value`.
    stack: Vec<u32>,
    /// The first nodes of the groups to settle.
    pending: pending::Pending,
    /// Scratch counts, values and work list of a group fixpoint (kept to reuse their memory).
    work: Vec<i32>,
    group_values: Vec<bool>,
    todo: Vec<u32>,
    /// The memory of the run-time joins' evaluations.
    join_scratch: JoinScratch,
    /// The engine's numbering of the nodes (see [`order`]): every array above is indexed by
    /// it; the numbers of the network are translated where the outputs are read.
    order: order::Order,
    /// The common legal guard of each role and the literals some moves test (see `legal.rs`).
    guards: legal::Guards,
    /// The legal outputs (engine's numbering) with an input edge fewer than in the network
    /// (a literal the listing tests instead), whose threshold is one less: the and of the
    /// inputs left.
    lowered: Vec<u32>,
    /// Whether random steps let go of their joint move (see `clear.rs`).
    clear: clear::Clear,
    /// What the propagation of a random step's joint move wrote, to let go of it without
    /// propagating it back (see `joint.rs`).
    log: joint::Log,
    /// Scratch of a random draw: the words of a role's legal moves that have one (index,
    /// moves before it and bits), and the joint move drawn.
    picks: Vec<gdl_runtime::bits::Counted>,
    /// Scratch of the draw of a role other than the one `picks` lists, so that the listing
    /// stays for that role's draw (amazons: `terminal` lists the mover, black, whose draw
    /// comes after white's).
    other_picks: Vec<gdl_runtime::bits::Counted>,
    drawn: Vec<u32>,
    /// The role whose legal moves of the held values `picks` lists (with `picked` moves in
    /// all), or [`NONE`]: what [`Engine::terminal`] listed to test a [`Stuck`] disjunct, which
    /// the draw of a random step reads again. Any change of the values forgets it.
    listed: u32,
    picked: u32,
    /// The listings made into `picks` (what the tests count).
    #[cfg(test)]
    lists: u32,
    /// The changes whose out-edges were visited (what the tests count).
    #[cfg(test)]
    popped: u64,
    /// Scratch of [`Engine::set_state`]: the words whose bits rise (index and bits).
    rising: Vec<(u32, u64)>,
    /// The number of edges visited so far (a measure of the work done).
    pub visits: u64,
    /// The edges one propagation may visit before the engine gives it up and evaluates the
    /// network afresh: a bound on the work of gates that change and change back, which a
    /// network could be built to multiply (a few times the size of the network).
    budget: u64,
}

/// The base count of a gate of threshold `thresh`.
fn base(thresh: u32) -> i32 {
    match i32::try_from(thresh) {
        Ok(t) if t < -NEVER => -t,
        _ => NEVER,
    }
}

/// How an [`Engine`] is built.
#[derive(Clone, Copy, Debug)]
pub struct EngineOptions {
    /// Whether the input that legal outputs share with many others is tested when moves are
    /// listed instead of kept as edges (see `legal.rs`; the default). Without it, the visits
    /// counted are every edge the network has to follow, which is what gdlc's cost model of
    /// the backends was fitted to.
    pub lift_legal_inputs: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            lift_legal_inputs: true,
        }
    }
}

impl<'n> Engine<'n> {
    /// An engine holding the initial state and no moves.
    pub fn new(net: &'n Net) -> Engine<'n> {
        Engine::with_options(net, EngineOptions::default())
    }

    /// An engine built as `options` say, holding the initial state and no moves.
    pub fn with_options(net: &'n Net, options: EngineOptions) -> Engine<'n> {
        let nodes = net.nodes as usize;
        let order = order::locality_order(net);
        let mut records = Vec::with_capacity(nodes + 1);
        let mut edges = Vec::with_capacity(net.fan.len() + nodes);
        let mut into = Vec::new();
        let mut into_start = Vec::with_capacity(nodes + 1);
        // The input edges of legal outputs that the listing tests instead (see `legal.rs`).
        let lifted = if options.lift_legal_inputs {
            legal::lifted(net)
        } else {
            Vec::new()
        };
        // Per legal output, the source of its input edge that is dropped (or NONE).
        let mut dropped = vec![NONE; nodes];
        for l in &lifted {
            dropped[l.output as usize] = l.lit >> 1;
        }
        let dropped = &dropped;
        let kept = |n: usize| {
            move |&&e: &&u32| dropped.get((e >> 2) as usize).copied().unwrap_or(NONE) != n as u32
        };
        // The or-gates whose legal outputs read their inputs instead (see `legal.rs`): their
        // own edges dropped, each edge into one replaced by edges into its outputs.
        let bypassed = legal::bypassed(net, &lifted);
        let fan_of = |n: usize| {
            net.fan
                .get(net.fan_start[n] as usize..net.fan_start[n + 1] as usize)
                .unwrap_or(&[])
        };
        let gone = |n: usize| bypassed.get(n).is_some_and(Option::is_some);
        // A plain edge to a gate without out-edges (an output) says so: such a gate is
        // toggled when its count crosses zero, with nothing to push.
        let leaves: Vec<bool> = (0..nodes)
            .map(|n| !fan_of(n).iter().any(|e| kept(n)(&e)) && net.group_of[n] == NONE)
            .collect();
        let edge = |&e: &u32| {
            let t = e >> 2;
            let leaf = leaves[t as usize];
            order.new_of[t as usize] << 2 | u32::from(leaf && e & 2 == 0) << 1 | e & 1
        };
        let mut out: Vec<u32> = Vec::new();
        for &n in &order.old_of {
            let n = n as usize;
            out.clear();
            if !gone(n) {
                for &e in fan_of(n).iter().filter(kept(n)) {
                    match bypassed.get((e >> 2) as usize) {
                        Some(Some(outputs)) => out.extend(outputs.iter().map(|&o| o << 2 | e & 1)),
                        _ => out.push(e),
                    }
                }
            }
            let into_groups = out.iter().any(|&e| e & 2 != 0);
            records.push(Node {
                count: 0,
                // (A network of 2^30 edges does not fit in memory.)
                fan: edges.len() as u32 & AT | if into_groups { INTO } else { 0 },
            });
            let plain = |k: u32| move |&&e: &&u32| e & 3 == k;
            edges.push(out.iter().filter(plain(0)).count() as u32);
            // Each run by the engine's numbers of its targets, ascending.
            for k in [0, 1] {
                let from = edges.len();
                edges.extend(out.iter().filter(plain(k)).map(edge));
                edges[from..].sort_unstable();
            }
            into_start.push(into.len() as u32);
            into.extend(out.iter().filter(|&&e| e & 2 != 0).map(edge));
        }
        records.push(Node {
            count: 0,
            fan: edges.len() as u32 & AT,
        });
        into_start.push(into.len() as u32);
        let words = nodes.div_ceil(64) + 1;
        let guards = legal::Guards::new(net, &order.new_of, &lifted);
        let lowered = lifted
            .iter()
            .map(|l| order.new_of[l.output as usize])
            .collect();
        let mut e = Engine {
            net,
            nodes: records,
            edges,
            into,
            into_start,
            value: vec![0; words],
            state: net.init.clone(),
            joint: vec![u32::MAX; net.moves.len()],
            stack: Vec::new(),
            pending: pending::Pending::new(nodes),
            work: Vec::new(),
            group_values: Vec::new(),
            todo: Vec::new(),
            join_scratch: JoinScratch::default(),
            order,
            guards,
            lowered,
            clear: clear::Clear::default(),
            log: joint::Log::default(),
            picks: Vec::new(),
            other_picks: Vec::new(),
            drawn: Vec::new(),
            listed: NONE,
            picked: 0,
            #[cfg(test)]
            lists: 0,
            #[cfg(test)]
            popped: 0,
            rising: Vec::new(),
            visits: 0,
            budget: 0,
        };
        e.budget = 4 * (e.edges.len() + e.into.len() + nodes) as u64 + 64;
        e.evaluate_all();
        e
    }

    #[inline]
    fn get(&self, n: u32) -> bool {
        self.value[(n >> 6) as usize] >> (n & 63) & 1 != 0
    }

    /// The value of node `n` of the network (its own numbering).
    #[inline]
    fn read(&self, n: u32) -> bool {
        self.get(self.order.new_of.get(n as usize).copied().unwrap_or(n))
    }

    /// Pushes a change (`node << 1 | new value`) whose edges are to be visited, prefetching
    /// them.
    #[inline]
    fn push(&mut self, ev: u32) {
        self.stack.push(ev);
        if let Some(x) = self.nodes.get((ev >> 1) as usize) {
            prefetch(&self.edges, x.fan);
        }
    }

    #[inline]
    fn toggle(&mut self, n: u32) {
        self.value[(n >> 6) as usize] ^= 1 << (n & 63);
    }

    /// Computes every value from the inputs (the held state and joint move), in node order
    /// (which is topological outside groups).
    fn evaluate_all(&mut self) {
        let net = self.net;
        self.listed = NONE;
        for w in &mut self.value {
            *w = 0;
        }
        for (node, &n) in self.nodes.iter_mut().zip(&self.order.old_of) {
            node.count = base(net.thresh[n as usize]);
        }
        for &n in &self.lowered {
            if let Some(x) = self.nodes.get_mut(n as usize) {
                x.count += 1;
            }
        }
        for b in 0..net.bits {
            if self.state[(b >> 6) as usize] >> (b & 63) & 1 != 0 {
                self.toggle(b);
            }
        }
        for (r, &m) in self.joint.clone().iter().enumerate() {
            if let (Some(&base), true) = (net.does_base.get(r), m != u32::MAX) {
                self.toggle(base + m);
            }
        }
        let first_gate = net.first_gate();
        let mut n = 0u32;
        while n < net.nodes {
            let g = net.group_of[n as usize];
            if g != NONE {
                let (a, b) = net.groups[g as usize];
                let values = self.group_fixpoint(g);
                for m in a..b {
                    if values.get((m - a) as usize).copied().unwrap_or(false) {
                        self.toggle(m);
                    }
                }
                self.group_values = values;
                for m in a..b {
                    self.push_counts(m);
                }
                n = b;
                continue;
            }
            if n >= first_gate && self.nodes[n as usize].count >= 0 {
                self.toggle(n);
            }
            self.push_counts(n);
            n += 1;
        }
    }

    /// Adds node `n`'s current value to the counts of its fan-out (full evaluation).
    fn push_counts(&mut self, n: u32) {
        let v = self.get(n) as u32;
        let (start, end) = self.fan(n);
        let (a, b) = self.group_edges(n);
        for &e in self.edges[start + 1..end].iter().chain(&self.into[a..b]) {
            self.nodes[(e >> 2) as usize].count += ((v ^ e) & 1) as i32;
        }
    }

    /// The least fixpoint of group `g` from its members' external counts.
    fn group_fixpoint(&mut self, g: u32) -> Vec<bool> {
        let net = self.net;
        if let Some(&j) = net.group_join.get(g as usize)
            && j != NONE
        {
            let mut scratch = std::mem::take(&mut self.join_scratch);
            let values = net
                .joins
                .evaluate_in(j as usize, &|n| self.read(n), &mut scratch);
            self.join_scratch = scratch;
            return values;
        }
        let (a, b) = net.groups[g as usize];
        let len = (b - a) as usize;
        let mut work = std::mem::take(&mut self.work);
        work.clear();
        work.extend(self.nodes[a as usize..b as usize].iter().map(|n| n.count));
        let mut values = std::mem::take(&mut self.group_values);
        values.clear();
        values.resize(len, false);
        let mut todo = std::mem::take(&mut self.todo);
        todo.clear();
        todo.extend((a..b).filter(|&m| work[(m - a) as usize] >= 0));
        while let Some(m) = todo.pop() {
            let i = (m - a) as usize;
            if values[i] {
                continue;
            }
            values[i] = true;
            for &t in &net.inner
                [net.inner_start[m as usize] as usize..net.inner_start[m as usize + 1] as usize]
            {
                let j = (t - a) as usize;
                work[j] += 1;
                if !values[j] && work[j] >= 0 {
                    todo.push(t);
                }
            }
        }
        self.work = work;
        self.todo = todo;
        values
    }

    /// Where node `n`'s edges are in `edges`: from its header word to the next node's.
    fn fan(&self, n: u32) -> (usize, usize) {
        let n = n as usize;
        let start = self.nodes.get(n).map_or(0, |x| x.fan & AT) as usize;
        let end = self.nodes.get(n + 1).map_or(0, |x| x.fan & AT) as usize;
        (start, end.max(start + 1))
    }

    /// Where node `n`'s edges into groups are in `into`.
    fn group_edges(&self, n: u32) -> (usize, usize) {
        let n = n as usize;
        let at = |i: usize| self.into_start.get(i).copied().unwrap_or(0) as usize;
        (at(n), at(n + 1).max(at(n)))
    }

    /// Propagates the changes on the stack (see [`Engine::drain`]), then settles the groups
    /// they reached, least first, until nothing changes. With `LOG`, what it changes is
    /// logged (see `joint.rs`).
    fn propagate<const LOG: bool>(&mut self) {
        self.listed = NONE;
        let mut left = self.budget;
        loop {
            let seen = self.drain::<LOG>(left);
            let Some(rest) = left.checked_sub(seen) else {
                self.stack.clear();
                self.pending.clear();
                self.evaluate_all();
                if LOG {
                    self.log.lost = true;
                }
                return;
            };
            left = rest;
            let Some(n) = self.pending.take() else { break };
            let g = self.net.group_of[n as usize];
            let values = self.group_fixpoint(g);
            for (i, &v) in values.iter().enumerate() {
                let m = n + i as u32;
                if v != self.get(m) {
                    self.toggle(m);
                    self.push(m << 1 | u32::from(v));
                }
            }
            // Its memory serves the next fixpoint.
            self.group_values = values;
        }
    }

    /// Visits the out-edges of the nodes on the stack (`node << 1 | new value`, each pushed
    /// when its value changed): adds +1 (for an edge whose input became true) or -1 to their
    /// counts, and toggles each gate whose count crosses zero at once, pushing it in turn
    /// (outputs, which have no out-edges, are only toggled); a group reached is marked
    /// pending. Returns the number of edges visited, and stops once it is over `budget`.
    /// With `LOG`, each change popped and each output toggled is logged in [`Engine::log`].
    fn drain<const LOG: bool>(&mut self, budget: u64) -> u64 {
        let Engine {
            net,
            nodes,
            edges,
            into,
            into_start,
            value,
            stack,
            pending,
            visits,
            log,
            #[cfg(test)]
            popped,
            ..
        } = self;
        let leaves = &mut log.leaves;
        let mut seen = 0u64;
        while seen <= budget {
            let Some(ev) = stack.pop() else { break };
            #[cfg(test)]
            {
                *popped += 1;
            }
            if LOG {
                log.events.push(ev);
            }
            let n = (ev >> 1) as usize;
            let up = ev & 1;
            let Some(Run {
                fan,
                len,
                pos,
                negs,
            }) = run(nodes, edges, n)
            else {
                continue;
            };
            seen += len as u64;
            let all = &edges[..];
            // An edge whose input became true adds one to its target's count, which crosses
            // zero when it becomes 0; one whose input became false takes one, crossing at -1.
            // (Each polarity its own loop, the constants immediate.)
            if up != 0 {
                step::<1, 0, LOG>(nodes, value, stack, leaves, all, pos);
                step::<-1, -1, LOG>(nodes, value, stack, leaves, all, negs);
            } else {
                step::<-1, -1, LOG>(nodes, value, stack, leaves, all, pos);
                step::<1, 0, LOG>(nodes, value, stack, leaves, all, negs);
            }
            if fan & INTO == 0 {
                continue;
            }
            let group_edges = into_groups(into, into_start, n);
            seen += group_edges.len() as u64;
            for &e in group_edges {
                let t = (e >> 2) as usize;
                if let Some(x) = nodes.get_mut(t) {
                    x.count += ((up ^ e) & 1) as i32 * 2 - 1;
                }
                let g = net.group_of.get(t).copied().unwrap_or(NONE);
                if let Some(&(a, _)) = net.groups.get(g as usize) {
                    pending.set(a as usize);
                }
            }
        }
        *visits += seen;
        seen
    }
}

impl Engine<'_> {
    /// Makes the state inputs hold `state` (words; missing words read as zero).
    ///
    /// One pass over the words, four at a time (a step of a large game changes few of them):
    /// the bits that fall are pushed as they are found, the words with bits that rise kept
    /// and pushed after them, so that the rising ones are propagated first.
    pub fn set_state(&mut self, state: &[u64]) {
        // The common case (every query of one state after the first) at the cost of a compare.
        if state.len() == self.state.len() && state == self.state {
            return;
        }
        let mut rising = std::mem::take(&mut self.rising);
        rising.clear();
        let mut changed = false;
        let words = self.state.len();
        let mut w = 0;
        while w < words {
            if w + 4 <= words
                && let (Some(old), Some(new)) = (self.state.get(w..w + 4), state.get(w..w + 4))
                && old.iter().zip(new).fold(0, |d, (a, b)| d | (a ^ b)) == 0
            {
                w += 4;
                continue;
            }
            let new = state.get(w).copied().unwrap_or(0);
            let old = self.state[w];
            let diff = old ^ new;
            if diff != 0 {
                changed = true;
                self.state[w] = new;
                let mut fell = diff & old;
                while fell != 0 {
                    let b = fell.trailing_zeros();
                    fell &= fell - 1;
                    let n = (w as u32) * 64 + b;
                    if n < self.net.bits {
                        self.toggle(n);
                        self.push(n << 1);
                    }
                }
                if diff & new != 0 {
                    rising.push((w as u32, diff & new));
                }
            }
            w += 1;
        }
        for &(w, mut on) in &rising {
            while on != 0 {
                let b = on.trailing_zeros();
                on &= on - 1;
                let n = w * 64 + b;
                if n < self.net.bits {
                    self.toggle(n);
                    self.push(n << 1 | 1);
                }
            }
        }
        self.rising = rising;
        if changed {
            self.propagate::<false>();
        }
    }

    /// Whether the state is terminal: the network's `terminal`, or a [`Stuck`] disjunct.
    pub fn terminal(&mut self) -> bool {
        self.read(self.net.terminal) || self.stuck()
    }

    /// The goal value of `role`: `None` unless exactly one of its goals holds and it is an
    /// integer.
    pub fn goal(&self, role: usize) -> Option<i32> {
        let mut found = None;
        let mut count = 0;
        for &(v, n) in self.net.goals.get(role)? {
            if self.read(n) {
                count += 1;
                found = v;
            }
        }
        if count == 1 { found } else { None }
    }

    /// Replaces `out` with every goal value of `role` that holds, ascending (`None` for a value
    /// that is no integer).
    pub fn goal_values(&self, role: usize, out: &mut Vec<Option<i32>>) {
        out.clear();
        for &(v, n) in self.net.goals.get(role).map_or(&[][..], Vec::as_slice) {
            if self.read(n) {
                out.push(v);
            }
        }
    }

    /// GDL-II: appends the numbers of the percepts of `role` that hold for the held state and
    /// joint move, ascending.
    pub fn sees(&self, role: usize, out: &mut Vec<u32>) {
        let Some(nodes) = self.net.sees.get(role) else {
            return;
        };
        out.extend(
            nodes
                .iter()
                .enumerate()
                .filter(|&(_, &n)| self.read(n))
                .map(|(k, _)| k as u32),
        );
    }

    /// Writes the next state (for the held state and joint move) into `out` (words): the
    /// network's next-state outputs, ored with what the per-move tables say ([`NextRows`]).
    pub fn next(&self, out: &mut [u64]) {
        let w0 = (self.net.next_base / 64) as usize;
        let bits = self.net.bits as usize;
        let rows = &self.net.rows;
        let tabled = !rows.is_empty();
        if tabled {
            rows.apply(&self.state, &self.joint, out);
        }
        for (w, o) in out.iter_mut().enumerate() {
            let x = self.value.get(w0 + w).copied().unwrap_or(0) & legal::range_bits(w, bits);
            if tabled {
                *o |= x;
            } else {
                *o = x;
            }
        }
    }
}

#[cfg(test)]
mod tests;
