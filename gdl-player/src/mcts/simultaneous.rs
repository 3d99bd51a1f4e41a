//! Selection in the simultaneous-move nodes of [`super::Mcts`] by a rule whose average
//! strategy approaches an equilibrium of the node's game (Lanctot, Lisý, Winands, "Monte
//! Carlo tree search in simultaneous move games with applications to Goofspiel", 2013;
//! Teytaud and Flory, "Upper confidence trees with short term partial information", 2011),
//! instead of decoupled UCB1, whose most visited move is a pure strategy.
//!
//! In a node where two roles or more have a choice, each role draws its move from a mixed
//! strategy `σ` made of its own statistics in the node ([`SimultaneousRule`]):
//! - regret matching: `σ` is proportional to the positive part of each move's cumulative
//!   regret (uniform while none is positive);
//! - Exp3: `σ` is proportional to `exp(η x̂)`, `x̂` each move's cumulative importance-weighted
//!   reward, `η = γ / K`.
//!
//! Both mix in `γ` of uniform exploration. After the iteration, with `u` the role's goal and
//! `a` the move drawn with chance `σ'(a)`, regret matching adds `u / σ'(a) - u` to `a`'s regret
//! and `-u` to every other move's; Exp3 adds `u / σ'(a)` to `a`'s reward. Each draw adds `σ`
//! (without the exploration) to the role's cumulative strategy: normalised, the *average
//! strategy*, from which the root's move is drawn ([`Strategies::root_strategy`]).
//!
//! The statistics live beside the store, by node index and the slot's sequence number (a
//! freed and reused slot starts afresh). The node's own visit counts and goal sums are still
//! updated as for any node.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::store::{Kind, Store};
use crate::SimultaneousRule;
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The share of uniform exploration mixed into the strategy drawn from.
const GAMMA: f64 = 0.1;

/// The root's move is drawn among the moves the average strategy plays at least this share
/// of its most played move's chance: drawing from the whole average strategy, whose early
/// iterations are near uniform, lost 0-3-17 to decoupled UCT on connectFourSimultaneous at
/// 3000 iterations a move, with this cut 0-18-2 (always the most played move: 0-20-0).
const PURIFY: f64 = 0.5;

/// A node's statistics: per role, per move, the regret (or Exp3's reward) and the cumulative
/// strategy, role after role.
struct Entry {
    seq: u32,
    /// Where each role's moves start in `regret` and `average` (one more: the end).
    starts: Vec<usize>,
    regret: Vec<f64>,
    average: Vec<f64>,
}

/// Hashes a node index by one multiplication.
#[derive(Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The simultaneous-move statistics of a search, and the chance of each move drawn in the
/// current iteration.
pub(super) struct Strategies {
    rule: SimultaneousRule,
    nodes: HashMap<u32, Entry, BuildHasherDefault<IndexHasher>>,
    /// The chance each role's move was drawn with, per node of the path, role after role (1
    /// for a node not simultaneous).
    chances: Vec<f64>,
    /// A buffer for a strategy.
    sigma: Vec<f64>,
}

impl Strategies {
    pub(super) fn new(rule: SimultaneousRule) -> Self {
        Strategies {
            rule,
            nodes: HashMap::default(),
            chances: Vec::new(),
            sigma: Vec::new(),
        }
    }

    /// Whether simultaneous nodes are searched by this module (not by decoupled UCB1).
    pub(super) fn active(&self) -> bool {
        self.rule != SimultaneousRule::Duct
    }

    /// Starts an iteration.
    pub(super) fn clear_path(&mut self) {
        self.chances.clear();
    }

    /// Notes that the path's next pick was not drawn here (chance 1).
    pub(super) fn push_sure(&mut self) {
        self.chances.push(1.0);
    }

    /// The entry of node `n`, made (or remade for a reused slot) as needed.
    fn entry<G: Game>(&mut self, store: &Store<G>, n: u32) -> &mut Entry {
        let seq = store.nodes[n as usize].seq;
        let entry = self.nodes.entry(n).or_insert_with(|| Entry {
            seq: seq.wrapping_add(1),
            starts: Vec::new(),
            regret: Vec::new(),
            average: Vec::new(),
        });
        if entry.seq != seq {
            entry.seq = seq;
            entry.starts.clear();
            let mut at = 0;
            for r in 0..store.roles() {
                entry.starts.push(at);
                at += store.moves(n, r).len();
            }
            entry.starts.push(at);
            entry.regret.clear();
            entry.regret.resize(at, 0.0);
            entry.average.clear();
            entry.average.resize(at, 0.0);
        }
        entry
    }

    /// The move index role `r` draws in simultaneous node `n` (its chance is kept for
    /// [`Strategies::update`]).
    pub(super) fn pick<G: Game>(
        &mut self,
        store: &Store<G>,
        game: &G,
        rng: &mut SplitMix64,
        n: u32,
        r: RoleIndex,
    ) -> u32 {
        let count = store.moves(n, r).len();
        if count <= 1 {
            self.chances.push(1.0);
            return 0;
        }
        if game.is_random_role(r) {
            self.chances.push(1.0 / count as f64);
            return rng.below(count) as u32;
        }
        let rule = self.rule;
        let mut sigma = std::mem::take(&mut self.sigma);
        let entry = self.entry(store, n);
        let (lo, hi) = (entry.starts[r], entry.starts[r + 1]);
        strategy(rule, &entry.regret[lo..hi], &mut sigma);
        for (avg, s) in entry.average[lo..hi].iter_mut().zip(&sigma) {
            *avg += s;
        }
        let explore = GAMMA / count as f64;
        let draw = unit(rng);
        let mut acc = 0.0;
        let mut chosen = count - 1;
        for (i, s) in sigma.iter().enumerate() {
            acc += (1.0 - GAMMA) * s + explore;
            if draw < acc {
                chosen = i;
                break;
            }
        }
        self.chances.push((1.0 - GAMMA) * sigma[chosen] + explore);
        self.sigma = sigma;
        chosen as u32
    }

    /// Updates simultaneous node `n`, the `k`th of the path, where the roles took `key` and
    /// then got `goals` (0..1).
    pub(super) fn update<G: Game>(
        &mut self,
        store: &Store<G>,
        n: u32,
        k: usize,
        key: &[u32],
        goals: &[f64],
    ) {
        let roles = key.len();
        let rule = self.rule;
        let chances: Vec<f64> = match self.chances.get(k * roles..(k + 1) * roles) {
            Some(c) => c.to_vec(),
            None => return,
        };
        let entry = self.entry(store, n);
        for (r, &i) in key.iter().enumerate() {
            let (lo, hi) = (entry.starts[r], entry.starts[r + 1]);
            if hi - lo <= 1 {
                continue;
            }
            let u = goals.get(r).copied().unwrap_or(0.5);
            let weighted = u / chances[r].max(1e-9);
            let regret = &mut entry.regret[lo..hi];
            match rule {
                SimultaneousRule::RegretMatching => {
                    regret.iter_mut().for_each(|x| *x -= u);
                    regret[i as usize] += weighted;
                }
                _ => regret[i as usize] += weighted,
            }
        }
    }

    /// The average strategy of role `r` in node `n` (normalised), if the node is
    /// simultaneous and was searched.
    pub(super) fn root_strategy<G: Game>(
        &self,
        store: &Store<G>,
        n: u32,
        r: RoleIndex,
    ) -> Option<Vec<f64>> {
        if !self.active() || store.nodes[n as usize].kind != Kind::Simultaneous {
            return None;
        }
        let entry = self.nodes.get(&n)?;
        if entry.seq != store.nodes[n as usize].seq {
            return None;
        }
        let average = &entry.average[*entry.starts.get(r)?..*entry.starts.get(r + 1)?];
        let total: f64 = average.iter().sum();
        (total > 0.0).then(|| average.iter().map(|a| a / total).collect())
    }

    /// Forgets the statistics of nodes freed or no longer simultaneous, once they outnumber
    /// the store's nodes (an entry of a reused slot is remade on use: the sweep only bounds
    /// the memory, and is rare, as it takes a while).
    pub(super) fn prune<G: Game>(&mut self, store: &Store<G>) {
        if self.nodes.len() <= 2 * store.len() + 1024 {
            return;
        }
        self.nodes.retain(|&n, e| {
            store.nodes.get(n as usize).is_some_and(|node| {
                node.live && node.seq == e.seq && node.kind == Kind::Simultaneous
            })
        });
    }
}

/// A uniform draw in `0..1`.
pub(super) fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The strategy (without exploration) the rule makes of a role's statistics `stats`, into
/// `sigma`.
fn strategy(rule: SimultaneousRule, stats: &[f64], sigma: &mut Vec<f64>) {
    sigma.clear();
    let count = stats.len();
    match rule {
        SimultaneousRule::Exp3 => {
            let eta = GAMMA / count as f64;
            let max = stats.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            sigma.extend(stats.iter().map(|x| ((x - max) * eta).exp()));
        }
        _ => sigma.extend(stats.iter().map(|x| x.max(0.0))),
    }
    let total: f64 = sigma.iter().sum();
    if total > 0.0 && total.is_finite() {
        sigma.iter_mut().for_each(|s| *s /= total);
    } else {
        sigma.iter_mut().for_each(|s| *s = 1.0 / count as f64);
    }
}

/// Draws an index from `weights` (summing to about 1), leaving out those below [`PURIFY`]
/// times the largest: the root's move from its average strategy.
pub(super) fn draw(weights: &[f64], rng: &mut SplitMix64) -> Option<usize> {
    let max = weights.iter().copied().fold(0.0, f64::max);
    let kept: Vec<f64> = weights
        .iter()
        .map(|&w| if w >= PURIFY * max { w } else { 0.0 })
        .collect();
    let weights = &kept[..];
    let total: f64 = weights.iter().sum();
    if weights.is_empty() || total <= 0.0 || !total.is_finite() {
        return None;
    }
    let x = unit(rng) * total;
    let mut acc = 0.0;
    for (i, w) in weights.iter().enumerate() {
        acc += w;
        if x < acc {
            return Some(i);
        }
    }
    Some(weights.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regret_matching_follows_positive_regrets() {
        let mut s = Vec::new();
        strategy(SimultaneousRule::RegretMatching, &[3.0, -1.0, 1.0], &mut s);
        assert_eq!(s, vec![0.75, 0.0, 0.25]);
        strategy(SimultaneousRule::RegretMatching, &[-3.0, -1.0], &mut s);
        assert_eq!(s, vec![0.5, 0.5]);
    }

    #[test]
    fn exp3_weighs_rewards_exponentially() {
        let mut s = Vec::new();
        strategy(SimultaneousRule::Exp3, &[0.0, 0.0], &mut s);
        assert_eq!(s, vec![0.5, 0.5]);
        strategy(SimultaneousRule::Exp3, &[1000.0, 0.0], &mut s);
        assert!(s[0] > 0.99, "{s:?}");
    }

    #[test]
    fn draws_follow_the_weights() {
        let mut rng = SplitMix64::new(3);
        let mut counts = [0; 3];
        for _ in 0..10_000 {
            counts[draw(&[0.4, 0.0, 0.6], &mut rng).unwrap_or(1)] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((3700..4300).contains(&counts[0]), "{counts:?}");
        // Rare moves of the average strategy are left out.
        for _ in 0..1000 {
            assert_eq!(draw(&[0.2, 0.8], &mut rng), Some(1));
        }
        assert_eq!(draw(&[], &mut rng), None);
    }
}
