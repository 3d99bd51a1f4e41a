//! Information-set Monte Carlo tree search for [`super::BeliefPlayer`] (single observer:
//! Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", 2012), the
//! other roles played uniformly at random as the particles are drawn.
//!
//! A node is what our role knows at a step: the path of its own moves and of what it saw after
//! each joint move ([`Game::percepts`]) from the root, so that the tree's choices depend only on
//! what our role will know when it makes them (a tree per sampled state would choose as if it
//! saw the hidden state). Each iteration draws a particle, descends from the root choosing our
//! move by UCB1 among those legal in that state (a move's exploration term counts the
//! iterations in which it was legal, not the node's) and the other roles' uniformly, and goes
//! to the child of our move and the percepts the joint move gives us; a child not made yet is
//! made, and a random playout from its state scores the path.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use crate::{Playout, scaled_goal};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The most nodes a search makes (then iterations play out from where the tree ends).
const MAX_NODES: usize = 100_000;

/// A move of our role in a node and its statistics.
struct Arm<M> {
    mv: M,
    visits: u32,
    /// Iterations through the node in which the move was legal.
    available: u32,
    sum: f64,
}

/// What a search gives: the root move chosen (its index among the candidates) and its mean
/// goal, and the iterations run.
pub(super) struct Found {
    pub(super) best: Option<(usize, f64)>,
    pub(super) iterations: u64,
}

/// Settings of one search.
pub(super) struct Limits {
    pub(super) exploration: f64,
    pub(super) max_playout_steps: usize,
    pub(super) deadline: Instant,
}

/// The tree of one decision.
struct Tree<M> {
    /// Per node, our role's moves seen legal there.
    arms: Vec<Vec<Arm<M>>>,
    /// (node, arm, hash of the percepts) → child.
    children: HashMap<(u32, u32, u64), u32>,
}

/// Searches from `particles` until the deadline; at the root our role chooses among
/// `candidates` only.
pub(super) fn search<G: Game>(
    game: &G,
    role: RoleIndex,
    particles: &[G::State],
    candidates: &[G::Move],
    rng: &mut SplitMix64,
    limits: &Limits,
) -> Found {
    let Some(first) = particles.first() else {
        return Found {
            best: None,
            iterations: 0,
        };
    };
    let mut tree = Tree {
        arms: vec![
            candidates
                .iter()
                .map(|&mv| Arm {
                    mv,
                    visits: 0,
                    available: 0,
                    sum: 0.0,
                })
                .collect(),
        ],
        children: HashMap::new(),
    };
    let mut playout = Playout::new(first);
    let mut state = first.clone();
    let mut next = first.clone();
    let mut moves = Vec::new();
    let mut joint = Vec::with_capacity(game.role_count());
    let mut seen = Vec::new();
    let mut path: Vec<(u32, u32)> = Vec::new();
    let mut iterations = 0u64;
    let mut tries = 0u64;
    while Instant::now() < limits.deadline {
        tries += 1;
        if iterations == 0 && tries > 64 * particles.len() as u64 {
            break; // no particle lets a candidate be played
        }
        state.clone_from(&particles[rng.below(particles.len())]);
        path.clear();
        let mut node = 0u32;
        let goal = loop {
            if game.is_terminal(&state) {
                break scaled_goal(game.goal(&state, role));
            }
            game.legal_moves(&state, role, &mut moves);
            let Some(arm) = select(&mut tree, node, &moves, rng, limits.exploration) else {
                break f64::NAN; // no candidate legal in this particle
            };
            joint.clear();
            for r in 0..game.role_count() {
                if r == role {
                    joint.push(tree.arms[node as usize][arm as usize].mv);
                    continue;
                }
                game.legal_moves(&state, r, &mut moves);
                let Some(&m) = moves.get(rng.below(moves.len().max(1))) else {
                    break;
                };
                joint.push(m);
            }
            if joint.len() < game.role_count() {
                break 0.5;
            }
            seen.clear();
            game.percepts(&state, &joint, role, &mut seen);
            seen.sort_unstable();
            seen.dedup();
            let key = (node, arm, percepts_hash(&seen));
            game.next_state(&state, &joint, &mut next);
            std::mem::swap(&mut state, &mut next);
            path.push((node, arm));
            match tree.children.get(&key) {
                Some(&child) => node = child,
                None => {
                    if tree.arms.len() < MAX_NODES {
                        tree.children.insert(key, tree.arms.len() as u32);
                        tree.arms.push(Vec::new());
                    }
                    let goals = playout.run(game, &state, rng, limits.max_playout_steps);
                    break goals.get(role).copied().unwrap_or(0.5);
                }
            }
        };
        if goal.is_nan() {
            continue;
        }
        for &(n, a) in &path {
            let arm = &mut tree.arms[n as usize][a as usize];
            arm.visits += 1;
            arm.sum += goal;
        }
        iterations += 1;
    }
    // The most visited, drawn among those as visited (a move that changes nothing is not
    // repeated for ever where every move is as good).
    let root = &tree.arms[0];
    let most = root.iter().map(|a| a.visits).max().unwrap_or(0);
    let tied: Vec<usize> = (0..root.len())
        .filter(|&k| root[k].visits == most && most > 0)
        .collect();
    let best = tied
        .get(rng.below(tied.len().max(1)))
        .map(|&k| (k, root[k].sum / f64::from(most)));
    Found { best, iterations }
}

/// Our role's arm in `node` among the `legal` moves of this particle (the root keeps to its
/// candidates): a legal move not tried yet, drawn uniformly, else UCB1 with each move's
/// availability. `None` when no arm is legal.
fn select<M: Copy + PartialEq>(
    tree: &mut Tree<M>,
    node: u32,
    legal: &[M],
    rng: &mut SplitMix64,
    c: f64,
) -> Option<u32> {
    let arms = &mut tree.arms[node as usize];
    if node != 0 {
        for &mv in legal {
            if !arms.iter().any(|a| a.mv == mv) {
                arms.push(Arm {
                    mv,
                    visits: 0,
                    available: 0,
                    sum: 0.0,
                });
            }
        }
    }
    // The untried legal moves seen so far, and one of them drawn uniformly (reservoir).
    let mut open = 0u32;
    let mut drawn = None;
    let mut best = None;
    let mut best_score = f64::NEG_INFINITY;
    for (k, arm) in arms.iter_mut().enumerate() {
        if !legal.contains(&arm.mv) {
            continue;
        }
        arm.available += 1;
        if arm.visits == 0 {
            open += 1;
            if rng.below(open as usize) == 0 {
                drawn = Some(k as u32);
            }
            continue;
        }
        let visits = f64::from(arm.visits);
        let score = arm.sum / visits + c * (f64::from(arm.available).ln() / visits).sqrt();
        if score > best_score {
            best_score = score;
            best = Some(k as u32);
        }
    }
    drawn.or(best)
}

/// A hash of the sorted percepts of a step.
fn percepts_hash(seen: &[String]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    seen.hash(&mut h);
    h.finish()
}
