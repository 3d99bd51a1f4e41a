//! Monte Carlo tree search: UCT with decoupled statistics per role.
//!
//! Each node holds a state and, per role, its legal moves with their visit counts and goal
//! sums. An iteration descends from the root: in each node every role picks its move by UCB1
//! on its own statistics (an untried move first; GDL-II's `random` role uniformly), the joint
//! move leads to a child, created when new (while the node budget lasts); from there a random
//! playout gives every role's goal in 0..1, and the path is updated role by role. Terminal
//! nodes give their goals directly. The move played is the most visited one of the player's
//! role at the root. Between moves the tree is kept: the subtree of the joint move played
//! becomes the new root.

use std::collections::HashMap;
use std::time::Instant;

use super::{Player, Playout, scaled_goal};
use crate::{Game, RoleIndex, SplitMix64};

/// Settings of [`Mcts`].
#[derive(Clone, Debug)]
pub struct MctsOptions {
    /// The UCB1 exploration constant (goals are in 0..1).
    pub exploration: f64,
    /// The most nodes the tree holds; past it, iterations still run (from the leaves) but the
    /// tree stops growing.
    pub max_nodes: usize,
    /// Iterations per decision at most (`None`: until the deadline).
    pub max_iterations: Option<u64>,
    /// Playouts longer than this are scored 0.5 for every role.
    pub max_playout_steps: usize,
    pub seed: u64,
}

impl Default for MctsOptions {
    fn default() -> Self {
        MctsOptions {
            exploration: 0.7,
            max_nodes: 1_000_000,
            max_iterations: None,
            max_playout_steps: 10_000,
            seed: 1,
        }
    }
}

/// What the last search did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchStats {
    pub iterations: u64,
    /// Nodes in the tree after the search.
    pub nodes: usize,
    /// The mean goal (0..1) of the move chosen, for the player's role.
    pub value: f64,
}

impl std::fmt::Display for SearchStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} iterations, {} nodes, value {:.2}",
            self.iterations, self.nodes, self.value
        )
    }
}

struct Node<G: Game> {
    state: G::State,
    /// Terminal, or a role without a legal move: `goals` is its value.
    leaf: bool,
    goals: Vec<f64>,
    /// Per role: legal moves, and per move its visits and goal sum.
    moves: Vec<Vec<G::Move>>,
    visits: Vec<Vec<u32>>,
    sums: Vec<Vec<f64>>,
    total: u32,
    children: HashMap<Box<[u32]>, u32>,
}

impl<G: Game> Node<G> {
    fn new(game: &G, state: G::State) -> Node<G> {
        let roles = game.role_count();
        let mut node = Node {
            leaf: false,
            goals: Vec::new(),
            moves: Vec::new(),
            visits: Vec::new(),
            sums: Vec::new(),
            total: 0,
            children: HashMap::new(),
            state,
        };
        if game.is_terminal(&node.state) {
            node.leaf = true;
            node.goals = (0..roles)
                .map(|r| scaled_goal(game.goal(&node.state, r)))
                .collect();
            return node;
        }
        for r in 0..roles {
            let mut ms = Vec::new();
            game.legal_moves(&node.state, r, &mut ms);
            if ms.is_empty() {
                node.leaf = true;
                node.goals = vec![0.5; roles];
                return node;
            }
            node.visits.push(vec![0; ms.len()]);
            node.sums.push(vec![0.0; ms.len()]);
            node.moves.push(ms);
        }
        node
    }
}

/// The buffers of [`Mcts::search`], kept across its iterations.
struct Scratch<G: Game> {
    playout: Playout<G>,
    next: G::State,
    joint: Vec<G::Move>,
    /// The nodes of the path taken, from the root.
    path: Vec<u32>,
    /// The joint move (a move index per role) taken in each node of `path`, one after the
    /// other (every node of a game has the same number of roles).
    keys: Vec<u32>,
    goals: Vec<f64>,
}

/// The UCT player.
pub struct Mcts<G: Game> {
    options: MctsOptions,
    role: RoleIndex,
    rng: SplitMix64,
    nodes: Vec<Node<G>>,
    root: u32,
    stats: SearchStats,
}

impl<G: Game> Mcts<G> {
    pub fn new(options: MctsOptions) -> Self {
        Mcts {
            rng: SplitMix64::new(options.seed),
            options,
            role: 0,
            nodes: Vec::new(),
            root: 0,
            stats: SearchStats::default(),
        }
    }

    /// What the last [`Player::choose`] did.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// The nodes of the tree.
    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    /// The state at the root of the tree, if there is a tree.
    pub fn root_state(&self) -> Option<&G::State> {
        self.nodes.get(self.root as usize).map(|n| &n.state)
    }

    /// Makes `state` the root (a fresh tree unless it is the root already).
    fn set_root(&mut self, game: &G, state: &G::State) {
        if self
            .nodes
            .get(self.root as usize)
            .is_some_and(|n| n.state == *state)
        {
            return;
        }
        self.nodes.clear();
        self.nodes.push(Node::new(game, state.clone()));
        self.root = 0;
    }

    /// Runs iterations until `deadline` or the iteration budget; returns how many ran.
    pub fn search(&mut self, game: &G, deadline: Instant) -> u64 {
        let state = &self.nodes[self.root as usize].state;
        let mut scratch = Scratch {
            playout: Playout::new(state),
            next: state.clone(),
            joint: Vec::new(),
            path: Vec::new(),
            keys: Vec::new(),
            goals: Vec::new(),
        };
        let mut done = 0u64;
        // The clock is read every few iterations: a playout is short next to a deadline.
        while self.options.max_iterations.is_none_or(|m| done < m)
            && (done % 8 != 0 || Instant::now() < deadline)
        {
            self.iterate(game, &mut scratch);
            done += 1;
        }
        done
    }

    /// One iteration: descend, expand, play out, update the path. Allocates only the node it
    /// adds (the joint move's key is looked up as a slice of `scratch.keys`).
    fn iterate(&mut self, game: &G, scratch: &mut Scratch<G>) {
        let Scratch {
            playout,
            next,
            joint,
            path,
            keys,
            goals,
        } = scratch;
        path.clear();
        keys.clear();
        goals.clear();
        let mut n = self.root;
        loop {
            if self.nodes[n as usize].leaf {
                goals.extend_from_slice(&self.nodes[n as usize].goals);
                break;
            }
            let start = keys.len();
            for r in 0..self.nodes[n as usize].moves.len() {
                let i = self.pick(game, n, r);
                keys.push(i);
            }
            path.push(n);
            let node = &self.nodes[n as usize];
            let key = &keys[start..];
            if let Some(&c) = node.children.get(key) {
                n = c;
                continue;
            }
            joint.clear();
            joint.extend(
                key.iter()
                    .enumerate()
                    .map(|(r, &i)| node.moves[r][i as usize]),
            );
            game.next_state(&node.state, joint, next);
            let steps = self.options.max_playout_steps;
            if self.nodes.len() < self.options.max_nodes {
                let child = Node::new(game, next.clone());
                if child.leaf {
                    goals.extend_from_slice(&child.goals);
                } else {
                    goals.extend_from_slice(playout.run(game, &child.state, &mut self.rng, steps));
                }
                let c = self.nodes.len() as u32;
                self.nodes.push(child);
                self.nodes[n as usize].children.insert(key.into(), c);
            } else {
                goals.extend_from_slice(playout.run(game, next, &mut self.rng, steps));
            }
            break;
        }
        for (k, &n) in path.iter().enumerate() {
            let node = &mut self.nodes[n as usize];
            let roles = node.visits.len();
            node.total += 1;
            for (r, &i) in keys[k * roles..(k + 1) * roles].iter().enumerate() {
                node.visits[r][i as usize] += 1;
                node.sums[r][i as usize] += goals.get(r).copied().unwrap_or(0.5);
            }
        }
    }

    /// The move index role `r` takes in node `n`.
    fn pick(&mut self, game: &G, n: u32, r: RoleIndex) -> u32 {
        let node = &self.nodes[n as usize];
        let count = node.moves[r].len();
        if count == 1 {
            return 0;
        }
        if game.is_random_role(r) {
            return self.rng.below(count) as u32;
        }
        let visits = &node.visits[r];
        let untried = visits.iter().filter(|&&v| v == 0).count();
        if untried > 0 {
            let k = self.rng.below(untried);
            return visits
                .iter()
                .enumerate()
                .filter(|(_, v)| **v == 0)
                .nth(k)
                .map_or(0, |(i, _)| i as u32);
        }
        let log_total = f64::from(node.total.max(1)).ln();
        let c = self.options.exploration;
        let mut best = 0;
        let mut best_score = f64::NEG_INFINITY;
        for (i, (&v, &s)) in visits.iter().zip(&node.sums[r]).enumerate() {
            let v = f64::from(v);
            let score = s / v + c * (log_total / v).sqrt();
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        best as u32
    }

    /// The most visited move of the player's role at the root (ties: the better mean).
    fn best(&self) -> Option<(G::Move, f64)> {
        let node = self.nodes.get(self.root as usize)?;
        let moves = node.moves.get(self.role)?;
        let (visits, sums) = (&node.visits[self.role], &node.sums[self.role]);
        let mean = |i: usize| sums[i] / f64::from(visits[i].max(1));
        let i = (0..moves.len())
            .max_by(|&a, &b| visits[a].cmp(&visits[b]).then(mean(a).total_cmp(&mean(b))))?;
        Some((moves[i], mean(i)))
    }

    /// Keeps the subtree of `root`'s child `child` only, renumbered from 0.
    fn keep_subtree(&mut self, child: u32) {
        let mut old: Vec<Option<Node<G>>> = self.nodes.drain(..).map(Some).collect();
        let mut map: HashMap<u32, u32> = HashMap::new();
        let mut order = vec![child];
        map.insert(child, 0);
        let mut i = 0;
        while i < order.len() {
            let n = order[i];
            if let Some(node) = &old[n as usize] {
                for &c in node.children.values() {
                    if let std::collections::hash_map::Entry::Vacant(e) = map.entry(c) {
                        e.insert(order.len() as u32);
                        order.push(c);
                    }
                }
            }
            i += 1;
        }
        for &n in &order {
            if let Some(mut node) = old[n as usize].take() {
                for c in node.children.values_mut() {
                    *c = map[c];
                }
                self.nodes.push(node);
            }
        }
        self.root = 0;
    }
}

impl<G: Game> Player<G> for Mcts<G> {
    fn name(&self) -> &str {
        "mcts"
    }

    fn start(&mut self, game: &G, role: RoleIndex, deadline: Instant) {
        self.role = role;
        self.nodes.clear();
        let initial = game.initial_state();
        self.set_root(game, &initial);
        if self.options.max_iterations.is_none() {
            self.search(game, deadline);
        }
    }

    fn choose(&mut self, game: &G, state: &G::State, deadline: Instant) -> Option<G::Move> {
        self.set_root(game, state);
        let iterations = self.search(game, deadline);
        let best = self.best();
        self.stats = SearchStats {
            iterations,
            nodes: self.nodes.len(),
            value: best.map_or(0.0, |b| b.1),
        };
        best.map(|b| b.0)
    }

    fn observe(&mut self, game: &G, joint: &[G::Move], next: &G::State) {
        let child = self.nodes.get(self.root as usize).and_then(|root| {
            let key: Option<Box<[u32]>> = joint
                .iter()
                .enumerate()
                .map(|(r, m)| {
                    root.moves
                        .get(r)?
                        .iter()
                        .position(|x| x == m)
                        .map(|i| i as u32)
                })
                .collect();
            root.children.get(&key?).copied()
        });
        match child {
            Some(c) if self.nodes[c as usize].state == *next => self.keep_subtree(c),
            _ => self.set_root(game, next),
        }
    }

    fn report(&self) -> Option<String> {
        Some(self.stats.to_string())
    }
}

/// Root-parallel MCTS: one tree per thread (seeds differ), searched at once until the
/// deadline; the visits of the player's moves at the roots are summed and the most visited
/// move is played. Needs a game that threads can share (`Sync`), as compiled games are.
pub struct ParallelMcts<G: Game> {
    trees: Vec<Mcts<G>>,
    stats: SearchStats,
}

impl<G: Game + Sync> ParallelMcts<G>
where
    G::State: Send + Sync,
    G::Move: Send,
{
    /// `threads` trees (at least one), each with `options` and its own seed.
    pub fn new(options: MctsOptions, threads: usize) -> Self {
        let trees = (0..threads.max(1))
            .map(|t| {
                Mcts::new(MctsOptions {
                    seed: options.seed.wrapping_add(t as u64 * 0x9E37_79B9),
                    max_nodes: options.max_nodes / threads.max(1),
                    ..options.clone()
                })
            })
            .collect();
        ParallelMcts {
            trees,
            stats: SearchStats::default(),
        }
    }

    /// What the last search did (iterations and nodes summed over the trees).
    pub fn stats(&self) -> SearchStats {
        self.stats
    }
}

impl<G: Game + Sync> Player<G> for ParallelMcts<G>
where
    G::State: Send + Sync,
    G::Move: Send,
{
    fn name(&self) -> &str {
        "mcts"
    }

    fn start(&mut self, game: &G, role: RoleIndex, deadline: Instant) {
        std::thread::scope(|s| {
            for t in &mut self.trees {
                s.spawn(move || t.start(game, role, deadline));
            }
        });
    }

    fn choose(&mut self, game: &G, state: &G::State, deadline: Instant) -> Option<G::Move> {
        std::thread::scope(|s| {
            for t in &mut self.trees {
                s.spawn(move || {
                    t.set_root(game, state);
                    let n = t.search(game, deadline);
                    t.stats.iterations = n;
                });
            }
        });
        // Sum the root visits of the player's moves over the trees.
        let mut totals: Vec<(G::Move, u64, f64)> = Vec::new();
        let mut stats = SearchStats::default();
        for t in &self.trees {
            stats.iterations += t.stats.iterations;
            stats.nodes += t.nodes.len();
            let Some(root) = t.nodes.get(t.root as usize) else {
                continue;
            };
            let Some(moves) = root.moves.get(t.role) else {
                continue;
            };
            for (i, m) in moves.iter().enumerate() {
                let (v, sum) = (root.visits[t.role][i], root.sums[t.role][i]);
                match totals.iter_mut().find(|x| x.0 == *m) {
                    Some(x) => {
                        x.1 += u64::from(v);
                        x.2 += sum;
                    }
                    None => totals.push((*m, u64::from(v), sum)),
                }
            }
        }
        let best = totals
            .iter()
            .max_by(|a, b| {
                a.1.cmp(&b.1)
                    .then((a.2 / a.1.max(1) as f64).total_cmp(&(b.2 / b.1.max(1) as f64)))
            })
            .copied();
        stats.value = best.map_or(0.0, |b| b.2 / b.1.max(1) as f64);
        self.stats = stats;
        match best {
            Some(b) => Some(b.0),
            // Nothing searched: the first tree knows the legal moves.
            None => self
                .trees
                .first_mut()
                .and_then(|t| t.choose(game, state, deadline)),
        }
    }

    fn observe(&mut self, game: &G, joint: &[G::Move], next: &G::State) {
        for t in &mut self.trees {
            t.observe(game, joint, next);
        }
    }

    fn report(&self) -> Option<String> {
        Some(self.stats.to_string())
    }
}
