//! Root-parallel MCTS: one tree per thread.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::Mcts;
use crate::root::{choose_root, merge_root_moves};
use crate::{MctsOptions, ParallelBaseline, Player, Search, SearchStats};
use gdl_runtime::{Game, RoleIndex};

/// Root-parallel MCTS: one tree per thread (seeds differ), searched at once until the
/// deadline, or until one tree proves its root (the others stop then too). The player's root
/// moves are merged over the trees: visits and goal sums are summed, and a move proven in any
/// tree is proven; the move is chosen from the merged moves as [`Mcts`] chooses from its own.
/// With [`Search::Baseline`] in its options it runs [`ParallelBaseline`] instead. Needs a game
/// that threads can share (`Sync`), as compiled games are.
pub struct ParallelMcts<G: Game> {
    trees: Trees<G>,
    stats: SearchStats,
}

enum Trees<G: Game> {
    Mcts(Vec<Mcts<G>>),
    Baseline(ParallelBaseline<G>),
}

impl<G: Game + Sync> ParallelMcts<G>
where
    G::State: Send + Sync,
    G::Move: Send,
{
    /// `threads` trees (at least one), each with `options` (its budgets a share of
    /// `max_nodes` and `max_memory`) and its own seed.
    pub fn new(options: MctsOptions, threads: usize) -> Self {
        let trees = match options.search {
            Search::Baseline => Trees::Baseline(ParallelBaseline::new(options, threads)),
            Search::Mcts => Trees::Mcts(
                (0..threads.max(1))
                    .map(|t| {
                        Mcts::new(MctsOptions {
                            seed: options.seed.wrapping_add(t as u64 * 0x9E37_79B9),
                            max_nodes: options.max_nodes / threads.max(1),
                            max_memory: options.max_memory / threads.max(1),
                            ..options.clone()
                        })
                    })
                    .collect(),
            ),
        };
        ParallelMcts {
            trees,
            stats: SearchStats::default(),
        }
    }

    /// What the last search did (iterations and nodes summed over the trees).
    pub fn stats(&self) -> SearchStats {
        match &self.trees {
            Trees::Mcts(_) => self.stats,
            Trees::Baseline(b) => b.stats(),
        }
    }
}

impl<G: Game + Sync> Player<G> for ParallelMcts<G>
where
    G::State: Send + Sync,
    G::Move: Send,
{
    fn name(&self) -> &str {
        match &self.trees {
            Trees::Mcts(_) => "mcts",
            Trees::Baseline(b) => b.name(),
        }
    }

    fn start(&mut self, game: &G, role: RoleIndex, deadline: Instant) {
        let trees = match &mut self.trees {
            Trees::Mcts(trees) => trees,
            Trees::Baseline(b) => return b.start(game, role, deadline),
        };
        // One evaluation and one measurement for every tree, before they search.
        let amaf = trees.first().and_then(|t| t.choose_amaf(game, deadline));
        let exploration = trees.first().map(|t| t.explore(game, deadline));
        let heuristic = trees.first().and_then(|t| t.learn(game, deadline));
        let found = trees.first().and_then(|t| t.find_factors(game, deadline));
        let tuned = trees
            .first()
            .and_then(|t| t.tune(game, deadline, found.as_ref()));
        for t in trees.iter_mut() {
            t.set_amaf(amaf);
            if let Some(e) = exploration {
                t.exploration = e;
            }
            t.heuristic.clone_from(&heuristic);
            t.set_tuned(tuned.as_ref());
            t.set_factors(game, found.clone());
        }
        std::thread::scope(|s| {
            for t in trees {
                s.spawn(move || t.begin(game, role, deadline));
            }
        });
    }

    fn choose(&mut self, game: &G, state: &G::State, deadline: Instant) -> Option<G::Move> {
        let trees = match &mut self.trees {
            Trees::Mcts(trees) => trees,
            Trees::Baseline(b) => return b.choose(game, state, deadline),
        };
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            for t in trees.iter_mut() {
                let stop = &stop;
                s.spawn(move || {
                    t.set_root(game, state);
                    let n = t.search_until(game, deadline, stop);
                    t.stats.iterations = n;
                });
            }
        });
        let moves = merge_root_moves(trees.iter().map(Mcts::root_moves));
        let line = trees
            .iter()
            .filter_map(Mcts::best_line_move)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let chosen = super::puzzle::prefer(line, &moves)
            .map(|i| (i, false))
            .or_else(|| mixed_choice(trees, &moves))
            .or_else(|| choose_root(&moves));
        let role = trees.first().map_or(0, |t| t.role);
        let proven_root = trees
            .iter()
            .find_map(|t| t.root_proven())
            .map(|g| g.get(role).copied().unwrap_or(0.0));
        self.stats = SearchStats {
            iterations: trees.iter().map(|t| t.stats.iterations).sum(),
            nodes: trees.iter().map(Mcts::tree_size).sum(),
            value: match (proven_root, chosen) {
                (Some(v), _) => v,
                (None, Some((i, _))) if line.is_some_and(|l| l.0 == moves[i].mv) => {
                    line.map_or(0.0, |l| l.1)
                }
                (None, Some((i, _))) => moves[i].value(),
                (None, None) => 0.0,
            },
            proven: proven_root.is_some() || chosen.is_some_and(|c| c.1),
        };
        chosen.map(|(i, _)| moves[i].mv)
    }

    fn ponder(&mut self, game: &G, deadline: Instant) -> u64 {
        let trees = match &mut self.trees {
            Trees::Mcts(trees) => trees,
            Trees::Baseline(b) => return b.ponder(game, deadline),
        };
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let searches: Vec<_> = trees
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
        let settings = match &self.trees {
            Trees::Mcts(trees) => trees.first().map(Mcts::settings).unwrap_or_default(),
            Trees::Baseline(_) => String::new(),
        };
        Some(format!("{}{settings}", self.stats()))
    }

    fn observe(&mut self, game: &G, joint: &[G::Move], next: &G::State) {
        match &mut self.trees {
            Trees::Mcts(trees) => trees.iter_mut().for_each(|t| t.observe(game, joint, next)),
            Trees::Baseline(b) => b.observe(game, joint, next),
        }
    }

    fn judgments(&self, game: &G) -> Option<String> {
        match &self.trees {
            Trees::Mcts(trees) => trees.first()?.judgments(game),
            Trees::Baseline(_) => None,
        }
    }

    fn adopt_judgments(&mut self, game: &G, text: &str) -> Result<(), String> {
        match &mut self.trees {
            Trees::Mcts(trees) => trees
                .iter_mut()
                .try_for_each(|t| t.adopt_judgments(game, text)),
            Trees::Baseline(_) => Ok(()),
        }
    }
}

/// The move drawn from the trees' average strategies at a simultaneous root (summed over the
/// trees, by move), as an index of the merged `moves`; `None` unless some tree has one.
fn mixed_choice<G: Game>(
    trees: &mut [Mcts<G>],
    moves: &[crate::RootMove<G::Move>],
) -> Option<(usize, bool)> {
    let mut weights = vec![0.0; moves.len()];
    let mut any = false;
    for t in trees.iter() {
        let Some(strategy) = t.root_strategy() else {
            continue;
        };
        for (m, w) in t.root_moves().iter().zip(strategy) {
            if let Some(i) = moves.iter().position(|x| x.mv == m.mv) {
                weights[i] += w;
                any = true;
            }
        }
    }
    let first = trees.first_mut()?;
    any.then(|| super::simultaneous::draw(&weights, &mut first.rng))
        .flatten()
        .map(|i| (i, false))
}
