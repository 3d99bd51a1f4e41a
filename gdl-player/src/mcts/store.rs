//! The node store of [`super::Mcts`]: nodes as fixed-size records in one vector, their moves
//! (with each move's visits and goal sum), child edges and proofs in arenas addressed by
//! block ([`super::arena`]: they grow without moving what they hold), and a transposition
//! table from a state's hash to its node, so that a state reached by two paths has one node.
//!
//! The store never holds more than its budgets of nodes and of bytes (wide games reach the
//! second first): when it is full, a sweep frees the sixteenth of its nodes least recently
//! visited (the root and the nodes of the current path never), and their slots are reused. An edge holds its child's index and the sequence number the child's slot
//! had when the edge was made: an edge to a freed (or reused) slot reads as unexpanded.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use super::arena::Arena;
use crate::scaled_goal;
use gdl_runtime::{Game, RoleIndex};

/// No node (an edge not made, a node without proofs).
pub(super) const NONE: u32 = u32::MAX;

/// A simultaneous node has one edge per joint move while there are at most this many joint
/// moves; past it, its children are found through the transposition table only.
const MAX_JOINT_EDGES: usize = 1024;

/// Who chooses in a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Terminal, or a role without a legal move: no child.
    Leaf,
    /// This role alone has more than one legal move (or, for role 0, nobody has: one joint
    /// move).
    Turn(u32),
    /// GDL-II's `random` alone has more than one legal move.
    Chance(u32),
    /// Two roles or more have a choice.
    Simultaneous,
}

/// A node's fixed-size record.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// The hash of the node's state (its key in the transposition table).
    pub(super) hash: u64,
    /// The iteration that last visited the node (the least recent are freed first).
    pub(super) stamp: u64,
    /// Bumped each time the slot is freed: edges made before read as unexpanded.
    pub(super) seq: u32,
    /// Iterations through the node.
    pub(super) total: u32,
    /// The first of the node's moves in [`Store::slots`] (role 0's, then role 1's, ...), and
    /// how many in all.
    pub(super) moves: u32,
    pub(super) move_count: u32,
    /// The edges of a turn or chance node are in its mover's slots (one per move); those of a
    /// simultaneous node, one per joint move, from here in [`Store::edges`]. How many edges
    /// (0: none, children are found through the transposition table).
    pub(super) edges: u32,
    pub(super) edge_count: u32,
    /// The first of the mover's proven goals in [`Store::solved`] (per move; NaN: not proven),
    /// or [`NONE`] while no child is proven.
    pub(super) solved: u32,
    /// Children proven (turn and chance nodes).
    pub(super) proof_count: u32,
    pub(super) kind: Kind,
    /// The node's goals are exact (terminal, or proven by its children).
    pub(super) proven: bool,
    /// The slot holds a node (not on the free list).
    pub(super) live: bool,
}

/// A move of a role in a node, with its statistics (and, for the mover of a turn or chance
/// node, the edge to the child it leads to).
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot<M> {
    pub(super) mv: M,
    pub(super) visits: u32,
    /// The sum of the role's goals (0..1) over the visits.
    pub(super) sum: f64,
    pub(super) child: Edge,
}

/// A child edge: the child's index and its slot's sequence number when the edge was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Edge {
    pub(super) node: u32,
    pub(super) seq: u32,
}

impl Edge {
    const EMPTY: Edge = Edge { node: NONE, seq: 0 };
}

/// A state's hash: FxHash's word mix with a final avalanche (the table uses the top bits).
#[derive(Default)]
struct StateHasher(u64);

impl Hasher for StateHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, w: usize) {
        self.write_u64(w as u64);
    }

    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        z ^ (z >> 33)
    }
}

/// The hash of a state.
pub(super) fn state_hash<S: Hash>(state: &S) -> u64 {
    let mut h = StateHasher::default();
    state.hash(&mut h);
    h.finish()
}

/// A table keyed by state hashes ([`state_hash`]).
pub(super) type HashTable<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// The transposition table's hasher: its keys are hashes already.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, _bytes: &[u8]) {}

    fn write_u64(&mut self, w: u64) {
        self.0 = w;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) struct Store<G: Game> {
    roles: usize,
    max_nodes: usize,
    /// The most bytes of node records and move slots ([`Store::bytes`]).
    max_bytes: usize,
    pub(super) nodes: Vec<Node>,
    pub(super) states: Vec<G::State>,
    /// Per node and role (`node * roles + role`): the role's number of moves.
    pub(super) counts: Vec<u32>,
    /// Per node and role: a leaf's goals, a proven node's goals; in a turn node with a proven
    /// child, the goals of the proven child best for the mover; in a chance node, the sum of
    /// the proven children's goals.
    pub(super) goals: Vec<f64>,
    slots: Arena<Slot<G::Move>>,
    edges: Arena<Edge>,
    solved: Arena<f64>,
    table: HashTable<u32>,
    free: Vec<u32>,
    live: usize,
    /// The sweep's buffer of (stamp, node).
    candidates: Vec<(u64, u32)>,
    /// Legal moves, while a node is made.
    scratch: Vec<G::Move>,
    /// The AMAF statistics beside the slots, when kept ([`Store::keep_amaf`]).
    pub(super) amaf: Option<super::amaf::Table<G>>,
    /// The roles searched as random though the game does not say so, a bit each
    /// ([`super::opponents`]).
    random: u64,
}

impl<G: Game> Store<G> {
    /// A store of at most `max_nodes` nodes and `max_bytes` bytes of nodes and moves.
    pub(super) fn new(roles: usize, max_nodes: usize, max_bytes: usize) -> Self {
        Store {
            roles,
            max_nodes: max_nodes.max(2),
            max_bytes,
            nodes: Vec::new(),
            states: Vec::new(),
            counts: Vec::new(),
            goals: Vec::new(),
            slots: Arena::new(),
            edges: Arena::new(),
            solved: Arena::new(),
            table: HashMap::default(),
            free: Vec::new(),
            live: 0,
            candidates: Vec::new(),
            scratch: Vec::new(),
            amaf: None,
            random: 0,
        }
    }

    /// Nodes made from now on search the roles of `random` (a bit each) as random: a node
    /// where one of them is the only role to choose is a chance node.
    pub(super) fn search_as_random(&mut self, random: u64) {
        self.random = random;
    }

    /// Whether role `r` is searched as random: the game's `random`, or judged so.
    pub(super) fn is_random(&self, game: &G, r: RoleIndex) -> bool {
        game.is_random_role(r) || r < 64 && self.random >> r & 1 == 1
    }

    /// Nodes keep AMAF statistics per move ([`super::amaf`]); called before any is made.
    pub(super) fn keep_amaf(&mut self, game: &G) {
        self.amaf = Some(super::amaf::Table::new(game));
    }

    /// The nodes held.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// The bytes the store holds, about: its node records (with their states, goals and
    /// table entries) and the blocks of its arenas in use.
    pub(super) fn bytes(&self) -> usize {
        let node = size_of::<Node>()
            + size_of::<G::State>()
            + self.roles * (size_of::<u32>() + size_of::<f64>())
            + 2 * size_of::<(u64, u32)>();
        let slot = size_of::<Slot<G::Move>>()
            + self
                .amaf
                .as_ref()
                .map_or(0, |_| size_of::<super::amaf::Stat>());
        self.nodes.len() * node
            + self.slots.in_use() * slot
            + self.edges.in_use() * size_of::<Edge>()
            + self.solved.in_use() * size_of::<f64>()
    }

    pub(super) fn roles(&self) -> usize {
        self.roles
    }

    /// The node whose state is `state` (of hash `hash`), if the store holds it.
    #[inline]
    pub(super) fn find(&self, hash: u64, state: &G::State) -> Option<u32> {
        let &n = self.table.get(&hash)?;
        (self.states[n as usize] == *state).then_some(n)
    }

    /// Role `r`'s moves in node `n`, with their statistics.
    #[inline]
    pub(super) fn moves(&self, n: u32, r: RoleIndex) -> &[Slot<G::Move>] {
        let (start, len) = self.range(n, r);
        self.slots.items.block(start as u32, len)
    }

    #[inline]
    pub(super) fn moves_mut(&mut self, n: u32, r: RoleIndex) -> &mut [Slot<G::Move>] {
        let (start, len) = self.range(n, r);
        self.slots.items.block_mut(start as u32, len)
    }

    /// Where role `r`'s moves in node `n` start in the slots, and how many. Every role but
    /// the mover of a turn or chance node has one move: those need no look at the counts.
    #[inline]
    pub(super) fn range(&self, n: u32, r: RoleIndex) -> (usize, usize) {
        let node = &self.nodes[n as usize];
        let start = node.moves as usize;
        if let Kind::Turn(m) | Kind::Chance(m) = node.kind {
            let m = m as usize;
            let count = node.move_count as usize + 1 - self.roles;
            return match r.cmp(&m) {
                std::cmp::Ordering::Less => (start + r, 1),
                std::cmp::Ordering::Equal => (start + m, count),
                std::cmp::Ordering::Greater => (start + r + count - 1, 1),
            };
        }
        let base = n as usize * self.roles;
        let before: u32 = self.counts[base..base + r].iter().sum();
        (start + before as usize, self.counts[base + r] as usize)
    }

    /// The goals of node `n` (see [`Store::goals`]).
    #[inline]
    pub(super) fn goals(&self, n: u32) -> &[f64] {
        let base = n as usize * self.roles;
        &self.goals[base..base + self.roles]
    }

    pub(super) fn goals_mut(&mut self, n: u32) -> &mut [f64] {
        let base = n as usize * self.roles;
        &mut self.goals[base..base + self.roles]
    }

    /// The mover's proven goals in node `n`, per move (NaN: not proven); `None` while no child
    /// is proven.
    pub(super) fn solved(&self, n: u32) -> Option<&[f64]> {
        let node = &self.nodes[n as usize];
        let (Kind::Turn(m) | Kind::Chance(m)) = node.kind else {
            return None;
        };
        let len = self.range(n, m as usize).1;
        (node.solved != NONE).then(|| self.solved.items.block(node.solved, len))
    }

    /// The mover's proven goals in node `n`, made (all NaN) on first use (`None` if the
    /// arena has no room left).
    pub(super) fn solved_mut(&mut self, n: u32, mover: RoleIndex) -> Option<&mut [f64]> {
        let len = self.range(n, mover).1;
        if self.nodes[n as usize].solved == NONE {
            self.nodes[n as usize].solved = self.solved.alloc(len, f64::NAN)?;
        }
        let start = self.nodes[n as usize].solved;
        Some(self.solved.items.block_mut(start, len))
    }

    /// The edge of node `n` for joint move `key` (a move index per role), if the node keeps
    /// edges.
    #[inline]
    pub(super) fn edge_index(&self, n: u32, key: &[u32]) -> Option<usize> {
        let node = &self.nodes[n as usize];
        if node.edge_count == 0 {
            return None;
        }
        Some(match node.kind {
            Kind::Turn(m) | Kind::Chance(m) => key[m as usize] as usize,
            Kind::Leaf => return None,
            Kind::Simultaneous => {
                let base = n as usize * self.roles;
                key.iter()
                    .zip(&self.counts[base..base + self.roles])
                    .fold(0usize, |i, (&k, &c)| i * c as usize + k as usize)
            }
        })
    }

    /// The child at edge `e` of node `n`, unless it was freed since.
    #[inline]
    pub(super) fn child(&self, n: u32, e: usize) -> Option<u32> {
        let edge = match self.nodes[n as usize].kind {
            Kind::Turn(m) | Kind::Chance(m) => self.moves(n, m as usize)[e].child,
            _ => {
                let node = &self.nodes[n as usize];
                self.edges.items.block(node.edges, node.edge_count as usize)[e]
            }
        };
        let child = self.nodes.get(edge.node as usize)?;
        (child.seq == edge.seq && child.live).then_some(edge.node)
    }

    pub(super) fn set_child(&mut self, n: u32, e: usize, child: u32) {
        let edge = Edge {
            node: child,
            seq: self.nodes[child as usize].seq,
        };
        match self.nodes[n as usize].kind {
            Kind::Turn(m) | Kind::Chance(m) => self.moves_mut(n, m as usize)[e].child = edge,
            _ => {
                let node = &self.nodes[n as usize];
                self.edges
                    .items
                    .block_mut(node.edges, node.edge_count as usize)[e] = edge;
            }
        }
    }

    /// A new node for `state` (of hash `hash`), visited at `stamp`: its kind, moves and, for a
    /// leaf, goals. When the store is full (its nodes or its bytes), the least recently
    /// visited nodes are freed first (never `keep` nor a node visited at `stamp`); `None` when
    /// none can be.
    pub(super) fn add(
        &mut self,
        game: &G,
        state: &G::State,
        hash: u64,
        stamp: u64,
        keep: u32,
    ) -> Option<u32> {
        if self.free.is_empty() && self.nodes.len() >= self.max_nodes
            || self.bytes() >= self.max_bytes
        {
            self.sweep(stamp, keep);
        }
        let n = match self.free.pop() {
            Some(n) => {
                self.states[n as usize].clone_from(state);
                n
            }
            None if self.nodes.len() < self.max_nodes => {
                self.nodes.push(Node {
                    hash: 0,
                    stamp: 0,
                    seq: 0,
                    total: 0,
                    moves: 0,
                    move_count: 0,
                    edges: 0,
                    edge_count: 0,
                    solved: NONE,
                    proof_count: 0,
                    kind: Kind::Leaf,
                    proven: false,
                    live: false,
                });
                self.states.push(state.clone());
                self.counts.resize(self.nodes.len() * self.roles, 0);
                self.goals.resize(self.nodes.len() * self.roles, 0.0);
                (self.nodes.len() - 1) as u32
            }
            None => return None,
        };
        self.init(game, n, hash, stamp);
        self.table.insert(hash, n);
        Some(n)
    }

    /// Fills node `n` from its state.
    fn init(&mut self, game: &G, n: u32, hash: u64, stamp: u64) {
        let roles = self.roles;
        let base = n as usize * roles;
        let seq = self.nodes[n as usize].seq;
        self.nodes[n as usize] = Node {
            hash,
            stamp,
            seq,
            total: 0,
            moves: 0,
            move_count: 0,
            edges: 0,
            edge_count: 0,
            solved: NONE,
            proof_count: 0,
            kind: Kind::Leaf,
            proven: false,
            live: true,
        };
        self.live += 1;
        self.counts[base..base + roles].fill(0);
        let state = &self.states[n as usize];
        if game.is_terminal(state) {
            for r in 0..roles {
                self.goals[base + r] = scaled_goal(game.goal(state, r));
            }
            self.nodes[n as usize].proven = true;
            return;
        }
        self.goals[base..base + roles].fill(0.5);
        let mut choosers = 0;
        let mut chooser = 0;
        let mut total = 0usize;
        for r in 0..roles {
            game.legal_moves(state, r, &mut self.scratch);
            if self.scratch.is_empty() {
                self.counts[base..base + roles].fill(0);
                return;
            }
            if self.scratch.len() > 1 {
                choosers += 1;
                chooser = r;
            }
            self.counts[base + r] = self.scratch.len() as u32;
            total += self.scratch.len();
        }
        let Some(&first) = self.scratch.first() else {
            return;
        };
        let fill = Slot {
            mv: first,
            visits: 0,
            sum: 0.0,
            child: Edge::EMPTY,
        };
        let Some(start) = self.slots.alloc(total, fill) else {
            // No room for its moves (the arena's indices are used up): a leaf at 0.5.
            self.counts[base..base + roles].fill(0);
            return;
        };
        let block = self.slots.items.block_mut(start, total);
        let mut at = 0;
        for r in 0..roles {
            game.legal_moves(state, r, &mut self.scratch);
            let len = self.scratch.len();
            for (slot, &mv) in block[at..at + len].iter_mut().zip(&self.scratch) {
                slot.mv = mv;
            }
            if let Some(amaf) = &mut self.amaf {
                amaf.fill(game, r, &block[at..at + len], start + at as u32);
            }
            at += len;
        }
        let kind = match choosers {
            0 => Kind::Turn(0),
            1 if self.is_random(game, chooser) => Kind::Chance(chooser as u32),
            1 => Kind::Turn(chooser as u32),
            _ => Kind::Simultaneous,
        };
        let edge_count = match kind {
            Kind::Turn(m) | Kind::Chance(m) => self.counts[base + m as usize] as usize,
            _ => self.counts[base..base + roles]
                .iter()
                .try_fold(1usize, |p, &c| {
                    p.checked_mul(c as usize).filter(|&p| p <= MAX_JOINT_EDGES)
                })
                .unwrap_or(0),
        };
        let node = &mut self.nodes[n as usize];
        node.kind = kind;
        node.moves = start;
        node.move_count = total as u32;
        node.edge_count = edge_count as u32;
        if edge_count > 0 && kind == Kind::Simultaneous {
            match self.edges.alloc(edge_count, Edge::EMPTY) {
                Some(e) => node.edges = e,
                None => node.edge_count = 0,
            }
        }
    }

    /// Frees node `n`: its slot, arenas and table entry.
    fn release(&mut self, n: u32) {
        let node = self.nodes[n as usize];
        if node.kind != Kind::Leaf {
            self.slots.release(node.moves, node.move_count as usize);
        }
        if node.edge_count > 0 && node.kind == Kind::Simultaneous {
            self.edges.release(node.edges, node.edge_count as usize);
        }
        if node.solved != NONE
            && let Kind::Turn(m) | Kind::Chance(m) = node.kind
        {
            let count = self.range(n, m as usize).1;
            self.solved.release(node.solved, count);
        }
        if self.table.get(&node.hash) == Some(&n) {
            self.table.remove(&node.hash);
        }
        let slot = &mut self.nodes[n as usize];
        slot.live = false;
        slot.seq = slot.seq.wrapping_add(1);
        self.live -= 1;
        self.free.push(n);
    }

    /// Frees the least recently visited sixteenth of the nodes held (not `keep`, nor a node
    /// visited at `stamp`).
    fn sweep(&mut self, stamp: u64, keep: u32) {
        let batch = (self.live / 16).max(1);
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        candidates.extend(
            self.nodes
                .iter()
                .enumerate()
                .filter(|&(i, n)| n.live && n.stamp != stamp && i as u32 != keep)
                .map(|(i, n)| (n.stamp, i as u32)),
        );
        if candidates.len() > batch {
            candidates.select_nth_unstable(batch);
            candidates.truncate(batch);
        }
        for &(_, n) in &candidates {
            self.release(n);
        }
        self.candidates = candidates;
    }

    /// The store's invariants, for tests: the live count and the budget, every table entry on
    /// a live node of that hash and state, every live edge on a live node.
    #[cfg(test)]
    pub(super) fn check(&self) -> Result<(), String> {
        let live = self.nodes.iter().filter(|n| n.live).count();
        if live != self.live || live > self.max_nodes || self.nodes.len() > self.max_nodes {
            return Err(format!(
                "{live} live of {} ({})",
                self.nodes.len(),
                self.live
            ));
        }
        for (&h, &n) in &self.table {
            let node = &self.nodes[n as usize];
            if !node.live || node.hash != h || state_hash(&self.states[n as usize]) != h {
                return Err(format!("table entry {h:x} -> {n} is stale"));
            }
        }
        for (i, node) in self.nodes.iter().enumerate().filter(|(_, n)| n.live) {
            for e in 0..node.edge_count as usize {
                if let Some(c) = self.child(i as u32, e)
                    && !self.nodes[c as usize].live
                {
                    return Err(format!("edge {i}/{e} reads a freed node"));
                }
            }
        }
        Ok(())
    }
}
