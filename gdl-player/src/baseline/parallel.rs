//! Root-parallel baseline MCTS: one tree per thread.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::BaselineMcts;
use crate::Player;
use crate::root::{choose_root, merge_root_moves};
use crate::{MctsOptions, SearchStats};
use gdl_runtime::{Game, RoleIndex};

/// Root-parallel MCTS: one tree per thread (seeds differ), searched at once until the
/// deadline, or until one tree proves its root (the others stop then too). The player's root
/// moves are merged over the trees: visits and goal sums are summed, and a move proven in any
/// tree is proven; the move is chosen from the merged moves as [`BaselineMcts`] chooses from its own.
/// Needs a game that threads can share (`Sync`), as compiled games are.
pub struct ParallelBaseline<G: Game> {
    trees: Vec<BaselineMcts<G>>,
    stats: SearchStats,
}

impl<G: Game + Sync> ParallelBaseline<G>
where
    G::State: Send + Sync,
    G::Move: Send,
{
    /// `threads` trees (at least one), each with `options` and its own seed.
    pub fn new(options: MctsOptions, threads: usize) -> Self {
        let trees = (0..threads.max(1))
            .map(|t| {
                BaselineMcts::new(MctsOptions {
                    seed: options.seed.wrapping_add(t as u64 * 0x9E37_79B9),
                    max_nodes: options.max_nodes / threads.max(1),
                    ..options.clone()
                })
            })
            .collect();
        ParallelBaseline {
            trees,
            stats: SearchStats::default(),
        }
    }

    /// What the last search did (iterations and nodes summed over the trees).
    pub fn stats(&self) -> SearchStats {
        self.stats
    }
}

impl<G: Game + Sync> Player<G> for ParallelBaseline<G>
where
    G::State: Send + Sync,
    G::Move: Send,
{
    fn name(&self) -> &str {
        "baseline"
    }

    fn start(&mut self, game: &G, role: RoleIndex, deadline: Instant) {
        std::thread::scope(|s| {
            for t in &mut self.trees {
                s.spawn(move || t.start(game, role, deadline));
            }
        });
    }

    fn choose(&mut self, game: &G, state: &G::State, deadline: Instant) -> Option<G::Move> {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            for t in &mut self.trees {
                let stop = &stop;
                s.spawn(move || {
                    t.set_root(game, state);
                    let n = t.search_until(game, deadline, stop);
                    t.stats.iterations = n;
                });
            }
        });
        let moves = merge_root_moves(self.trees.iter().map(BaselineMcts::root_moves));
        let chosen = choose_root(&moves);
        let role = self.trees.first().map_or(0, |t| t.role);
        let proven_root = self
            .trees
            .iter()
            .find_map(|t| t.root_proven())
            .map(|g| g.get(role).copied().unwrap_or(0.0));
        self.stats = SearchStats {
            iterations: self.trees.iter().map(|t| t.stats.iterations).sum(),
            nodes: self.trees.iter().map(BaselineMcts::tree_size).sum(),
            value: match (proven_root, chosen) {
                (Some(v), _) => v,
                (None, Some((i, _))) => moves[i].value(),
                (None, None) => 0.0,
            },
            proven: proven_root.is_some() || chosen.is_some_and(|c| c.1),
        };
        chosen.map(|(i, _)| moves[i].mv)
    }

    fn ponder(&mut self, game: &G, deadline: Instant) -> u64 {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let searches: Vec<_> = self
                .trees
                .iter_mut()
                .filter(|t| t.root_state().is_some())
                .map(|t| {
                    let stop = &stop;
                    s.spawn(move || t.search_until(game, deadline, stop))
                })
                .collect();
            searches.into_iter().map(|h| h.join().unwrap_or(0)).sum()
        })
    }

    fn report(&self) -> Option<String> {
        Some(self.stats.to_string())
    }

    fn observe(&mut self, game: &G, joint: &[G::Move], next: &G::State) {
        for t in &mut self.trees {
            t.observe(game, joint, next);
        }
    }
}
