//! The baseline search, kept as it was before the flat node store (the strength benchmark
//! plays against it; `--search baseline` selects it): UCT with decoupled statistics per role,
//! and proven values (MCTS-Solver, generalised to any number of roles).
//!
//! Each node holds a state and, per role, its legal moves with their visit counts and goal
//! sums. An iteration descends from the root: in each node every role picks its move by UCB1
//! on its own statistics (an untried move first; GDL-II's `random` role uniformly), the joint
//! move leads to a child, created when new (while the node budget lasts); from there a random
//! playout gives every role's goal in 0..1, and the path is updated role by role. Between
//! moves the tree is kept: the subtree of the joint move played becomes the new root.
//!
//! Proven nodes (`baseline/node.rs` says when a node is proven) are not played out again: an
//! iteration that reaches one backs up its exact goals, and a node proven on the way up backs
//! up its own to the nodes above it. In a turn node the mover never selects a move proven
//! worse than another (below its best proven goal, or 0) and the value of a proven move is
//! exact in its UCB1 score. The search stops when the root is proven. The move played is a
//! proven win (100) when there is one, the best proven move when all are proven, otherwise the
//! most visited one of those not proven worse than another.

mod node;
mod parallel;

pub use parallel::ParallelBaseline;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use node::{Kind, Node};

use super::root::{RootMove, choose_root};
use super::{MctsOptions, Player, Playout, SearchStats};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The buffers of [`BaselineMcts::search`], kept across its iterations.
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

/// The baseline UCT player (a `HashMap` of children per node, a tree that stops growing when
/// full, the subtree of the move played copied out at every move).
pub struct BaselineMcts<G: Game> {
    options: MctsOptions,
    role: RoleIndex,
    rng: SplitMix64,
    nodes: Vec<Node<G>>,
    root: u32,
    stats: SearchStats,
}

impl<G: Game> BaselineMcts<G> {
    pub fn new(options: MctsOptions) -> Self {
        BaselineMcts {
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

    /// The root's exact goals (0..1, in role order) when it is proven.
    pub fn root_proven(&self) -> Option<&[f64]> {
        let root = self.nodes.get(self.root as usize)?;
        root.proven.then_some(&root.goals[..])
    }

    /// The player's moves at the root with their visits and proofs (empty without a tree or
    /// at a leaf).
    pub fn root_moves(&self) -> Vec<RootMove<G::Move>> {
        let Some(root) = self.nodes.get(self.root as usize) else {
            return Vec::new();
        };
        let Some(moves) = root.moves.get(self.role) else {
            return Vec::new();
        };
        let proofs = root.proofs_for(self.role);
        moves
            .iter()
            .enumerate()
            .map(|(i, &mv)| RootMove {
                mv,
                visits: u64::from(root.visits[self.role][i]),
                sum: root.sums[self.role][i],
                proven: proofs.map(|p| p.solved[i]).filter(|v| !v.is_nan()),
            })
            .collect()
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

    /// Runs iterations until `deadline`, the iteration budget or a proven root; returns how
    /// many ran.
    pub fn search(&mut self, game: &G, deadline: Instant) -> u64 {
        self.search_until(game, deadline, &AtomicBool::new(false))
    }

    /// [`BaselineMcts::search`] that also stops soon after `stop` is set, and sets it when the root
    /// is proven.
    fn search_until(&mut self, game: &G, deadline: Instant, stop: &AtomicBool) -> u64 {
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
        while self.options.max_iterations.is_none_or(|m| done < m) {
            let root = &self.nodes[self.root as usize];
            if root.proven {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            // The clock is read every few iterations: a playout is short next to a deadline.
            if root.kind == Kind::Leaf
                || done % 8 == 0 && (stop.load(Ordering::Relaxed) || Instant::now() >= deadline)
            {
                break;
            }
            self.iterate(game, &mut scratch);
            done += 1;
        }
        done
    }

    /// One iteration: descend, expand, play out, update the path (and the proofs). Allocates
    /// only the node it adds (the joint move's key is looked up as a slice of `scratch.keys`).
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
        // Whether the node the iteration ended in was proven by it (a new terminal child).
        let mut proving = false;
        let mut n = self.root;
        loop {
            let node = &self.nodes[n as usize];
            if node.proven || node.kind == Kind::Leaf {
                goals.extend_from_slice(&node.goals);
                break;
            }
            let start = keys.len();
            for r in 0..node.moves.len() {
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
                if child.proven || child.kind == Kind::Leaf {
                    proving = child.proven;
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
        let roles = keys.len() / path.len().max(1);
        for (k, &n) in path.iter().enumerate().rev() {
            let node = &mut self.nodes[n as usize];
            let key = &keys[k * roles..(k + 1) * roles];
            node.total += 1;
            for (r, &i) in key.iter().enumerate() {
                node.visits[r][i as usize] += 1;
                node.sums[r][i as usize] += goals.get(r).copied().unwrap_or(0.5);
            }
            // `goals` are the exact goals of the child just proven: this node may follow, and
            // then its own goals are what the nodes above it get.
            if proving {
                proving = node.child_proven(key, goals);
                if proving {
                    goals.clone_from(&node.goals);
                }
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
        let c = self.options.exploration.constant_or_baseline();
        let proofs = node.proofs_for(r);
        let mut best = 0;
        let mut best_score = f64::NEG_INFINITY;
        for (i, (&v, &s)) in visits.iter().zip(&node.sums[r]).enumerate() {
            let v = f64::from(v);
            let mean = match proofs {
                Some(p) if p.excluded(r, i) => continue,
                Some(p) if !p.solved[i].is_nan() => p.solved[i],
                _ => s / v,
            };
            let score = mean + c * (log_total / v).sqrt();
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        best as u32
    }

    /// Keeps the subtree of `root`'s child `child` only, renumbered from 0.
    fn keep_subtree(&mut self, child: u32) {
        // The nodes under `child`, marked with their new index: kept nodes stay in the order
        // they had, so they can be moved down in place (no second vector of a million nodes).
        const GONE: u32 = u32::MAX;
        let mut index = vec![GONE; self.nodes.len()];
        index[child as usize] = 0;
        let mut stack = vec![child];
        while let Some(n) = stack.pop() {
            for &c in self.nodes[n as usize].children.values() {
                if index[c as usize] == GONE {
                    index[c as usize] = 0;
                    stack.push(c);
                }
            }
        }
        let mut kept = 0u32;
        for slot in index.iter_mut().filter(|i| **i != GONE) {
            *slot = kept;
            kept += 1;
        }
        for old in 0..self.nodes.len() {
            let new = index[old];
            if new == GONE {
                continue;
            }
            // `new <= old`, and every kept node before `old` is in place already.
            self.nodes.swap(new as usize, old);
            for c in self.nodes[new as usize].children.values_mut() {
                *c = index[*c as usize];
            }
        }
        self.nodes.truncate(kept as usize);
        self.root = index[child as usize];
    }

    /// The tree's shape, for tests: every child index in range, every node reached from the
    /// root exactly once; the number of nodes and the root's visits.
    #[cfg(test)]
    pub(super) fn check_tree(&self) -> Result<(usize, u32), String> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![self.root];
        while let Some(n) = stack.pop() {
            let node = self.nodes.get(n as usize).ok_or(format!("no node {n}"))?;
            if std::mem::replace(&mut seen[n as usize], true) {
                return Err(format!("node {n} reached twice"));
            }
            stack.extend(node.children.values());
        }
        match seen.iter().position(|s| !s) {
            Some(n) => Err(format!("node {n} is not reached from the root")),
            None => Ok((self.nodes.len(), self.nodes[self.root as usize].total)),
        }
    }

    /// The move chosen at the root after a search of `iterations`, and the stats.
    fn decide(&mut self, iterations: u64) -> Option<G::Move> {
        let moves = self.root_moves();
        let chosen = choose_root(&moves).map(|(i, _)| moves[i]);
        let proven = self.root_proven().map(|g| g.get(self.role).copied());
        self.stats = SearchStats {
            iterations,
            nodes: self.nodes.len(),
            value: match (proven, chosen) {
                (Some(Some(v)), _) => v,
                (_, Some(c)) => c.value(),
                _ => 0.0,
            },
            proven: proven.is_some(),
        };
        chosen.map(|c| c.mv)
    }
}

impl<G: Game> Player<G> for BaselineMcts<G> {
    fn name(&self) -> &str {
        "baseline"
    }

    fn report(&self) -> Option<String> {
        Some(self.stats.to_string())
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
        self.decide(iterations)
    }

    fn ponder(&mut self, game: &G, deadline: Instant) -> u64 {
        match self.nodes.is_empty() {
            true => 0,
            false => self.search(game, deadline),
        }
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
}
