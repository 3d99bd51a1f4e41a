//! A player for GDL-II (imperfect information): it keeps a set of sampled states, the
//! *particles*, each consistent with everything it knows (its own moves, and what it saw after
//! each joint move: [`Game::percepts`]), and chooses by a tree search over what it will know
//! ([`tree`], the default) or by flat Monte Carlo over them.
//!
//! After each turn the particles are advanced: the other roles' moves are drawn uniformly among
//! their legal ones (GDL-II's `random` role plays uniformly; the others are modelled so too),
//! ours is the one the manager says was played, and a successor is kept only if the percepts it
//! gives our role are the ones we got. When no particle survives, new ones are drawn by
//! replaying the whole history from the initial state the same way. Sound: every particle is a
//! state the match can be in. The moves considered are those legal in the most particles (in
//! all of them, in a sound game). Flat Monte Carlo plays the one with the best mean goal over
//! random playouts from every particle (a vote weighted by the particles; among moves as good,
//! one drawn at random); the tree search the one it took most often from the root.

mod tree;
mod turns;

pub use turns::{Beliefs, Observed, Spelling};

use std::time::Instant;

use super::Playout;
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// Settings of [`BeliefPlayer`].
#[derive(Clone, Debug)]
pub struct BeliefOptions {
    /// The particles kept.
    pub particles: usize,
    /// Draws per particle kept, when advancing or replaying, before giving up.
    pub attempts_per_particle: usize,
    /// Playouts longer than this are scored as a draw of 50.
    pub max_playout_steps: usize,
    pub seed: u64,
    /// How a move is chosen from the particles.
    pub search: BeliefSearch,
}

/// How [`BeliefPlayer`] chooses its move from the particles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BeliefSearch {
    /// Flat Monte Carlo: each move's mean goal over random playouts from every particle.
    Flat,
    /// Information-set tree search over the particles: a node per history of the role's own
    /// moves and percepts.
    #[default]
    Tree,
}

/// The exploration constant of the information-set tree search.
const TREE_EXPLORATION: f64 = 0.7;

impl Default for BeliefOptions {
    fn default() -> Self {
        BeliefOptions {
            particles: 64,
            attempts_per_particle: 50,
            max_playout_steps: 10_000,
            seed: 1,
            search: BeliefSearch::default(),
        }
    }
}

/// One turn as our role saw it: the move played for it, and what it saw afterwards (sorted).
#[derive(Clone, Debug)]
struct Seen<M> {
    ours: M,
    percepts: Vec<String>,
}

/// What the last turn did, for the log.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BeliefStats {
    /// Particles after the update.
    pub particles: usize,
    /// Whether they had to be drawn again from the initial state.
    pub resampled: bool,
    pub playouts: u64,
    /// The mean goal (0..1) of the move chosen.
    pub value: f64,
}

impl std::fmt::Display for BeliefStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} particles{}, {} playouts, value {:.2}",
            self.particles,
            if self.resampled { " (resampled)" } else { "" },
            self.playouts,
            self.value
        )
    }
}

/// The GDL-II player of one role.
pub struct BeliefPlayer<G: Game> {
    options: BeliefOptions,
    role: RoleIndex,
    rng: SplitMix64,
    history: Vec<Seen<G::Move>>,
    particles: Vec<G::State>,
    stats: BeliefStats,
}

/// The index in `0..count` with the best `value`, drawn uniformly among those as good (a
/// draw whatever the move repeats no move for ever: a try that changes nothing, in a game
/// without a step limit, would be tried again at every turn).
fn best_of(count: usize, value: impl Fn(usize) -> f64, rng: &mut SplitMix64) -> Option<usize> {
    let top = (0..count).map(&value).max_by(f64::total_cmp)?;
    let ties: Vec<usize> = (0..count).filter(|&k| value(k) >= top - 1e-9).collect();
    ties.get(rng.below(ties.len().max(1))).copied()
}

impl<G: Game> BeliefPlayer<G> {
    /// Plays `role` from the initial state.
    pub fn new(game: &G, role: RoleIndex, options: BeliefOptions) -> Self {
        BeliefPlayer {
            rng: SplitMix64::new(options.seed),
            options,
            role,
            history: Vec::new(),
            particles: vec![game.initial_state()],
            stats: BeliefStats::default(),
        }
    }

    /// The states the player thinks the match can be in.
    pub fn particles(&self) -> &[G::State] {
        &self.particles
    }

    pub fn stats(&self) -> BeliefStats {
        self.stats
    }

    /// A turn passed: `ours` was played for our role, and it saw `percepts` (any order). Keeps
    /// the particles that agree, drawing until `deadline` at most.
    pub fn observe(&mut self, game: &G, ours: G::Move, percepts: &[String], deadline: Instant) {
        let mut percepts = percepts.to_vec();
        percepts.sort_unstable();
        percepts.dedup();
        self.history.push(Seen { ours, percepts });
        let seen = self.history.last().cloned();
        let mut next = Vec::new();
        let want = self.options.particles.max(1);
        let attempts = want * self.options.attempts_per_particle.max(1);
        if let Some(seen) = seen {
            let mut scratch = Scratch::new(&self.particles[0]);
            for _ in 0..attempts {
                if next.len() == want || Instant::now() >= deadline {
                    break;
                }
                let parent = self.rng.below(self.particles.len().max(1));
                let Some(from) = self.particles.get(parent) else {
                    break;
                };
                if let Some(s) = scratch.step(game, from, self.role, &seen, &mut self.rng) {
                    next.push(s);
                }
            }
        }
        self.stats.resampled = next.is_empty();
        if next.is_empty() {
            next = self.replay(game, deadline);
        }
        if !next.is_empty() {
            self.particles = next;
        }
        // Else the history fits no state the player can draw (the game or the manager is
        // wrong): it keeps its last beliefs, and plays on from them.
        self.stats.particles = self.particles.len();
    }

    /// Particles drawn afresh: the whole history replayed from the initial state.
    fn replay(&mut self, game: &G, deadline: Instant) -> Vec<G::State> {
        let want = self.options.particles.max(1);
        let attempts = want * self.options.attempts_per_particle.max(1);
        let initial = game.initial_state();
        let mut scratch = Scratch::new(&initial);
        let mut found = Vec::new();
        let mut tries = 0;
        'draw: while found.len() < want && tries < attempts && Instant::now() < deadline {
            tries += 1;
            let mut state = initial.clone();
            for seen in &self.history {
                // A few draws at each step before starting over.
                let mut step = None;
                for _ in 0..self.options.attempts_per_particle.max(1) {
                    step = scratch.step(game, &state, self.role, seen, &mut self.rng);
                    if step.is_some() {
                        break;
                    }
                }
                match step {
                    Some(s) => state = s,
                    None => continue 'draw,
                }
            }
            found.push(state);
        }
        found
    }

    /// A legal move of our role, chosen before `deadline` (`None`: no particle gives one).
    pub fn choose(&mut self, game: &G, deadline: Instant) -> Option<G::Move> {
        let roles = game.role_count();
        self.stats.particles = self.particles.len();
        // Our moves, with the particles in which each is legal.
        let mut candidates: Vec<(G::Move, usize)> = Vec::new();
        let mut moves = Vec::new();
        for p in &self.particles {
            game.legal_moves(p, self.role, &mut moves);
            for &m in &moves {
                match candidates.iter_mut().find(|c| c.0 == m) {
                    Some(c) => c.1 += 1,
                    None => candidates.push((m, 1)),
                }
            }
        }
        // The moves legal in the most particles (in all of them, in a sound game).
        let most = candidates.iter().map(|c| c.1).max()?;
        candidates.retain(|c| c.1 == most);
        if self.options.search == BeliefSearch::Tree && candidates.len() > 1 {
            let moves: Vec<G::Move> = candidates.iter().map(|c| c.0).collect();
            let limits = tree::Limits {
                exploration: TREE_EXPLORATION,
                max_playout_steps: self.options.max_playout_steps,
                deadline,
            };
            let found = tree::search(
                game,
                self.role,
                &self.particles,
                &moves,
                &mut self.rng,
                &limits,
            );
            self.stats.playouts = found.iterations;
            let (k, value) = found.best.unwrap_or((self.rng.below(moves.len()), 0.0));
            self.stats.value = value;
            return Some(moves[k]);
        }
        let mut sums = vec![0.0f64; candidates.len()];
        let mut counts = vec![0u64; candidates.len()];
        let first = self.particles.first()?;
        let mut playout = Playout::new(first);
        let mut next = first.clone();
        let mut joint = Vec::with_capacity(roles);
        let mut done = 0u64;
        let mut round = 0usize;
        // Round robin: every candidate from one particle, then the next particle.
        while candidates.len() > 1 && Instant::now() < deadline {
            let p = &self.particles[round % self.particles.len()];
            round += 1;
            game.legal_moves(p, self.role, &mut moves);
            let ours = moves.clone();
            for (i, &(m, _)) in candidates.iter().enumerate() {
                // Only the particles in which the move is legal vote for it.
                if !ours.contains(&m) {
                    continue;
                }
                joint.clear();
                for r in 0..roles {
                    if r == self.role {
                        joint.push(m);
                        continue;
                    }
                    game.legal_moves(p, r, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    joint.push(moves[self.rng.below(moves.len())]);
                }
                if joint.len() < roles {
                    continue;
                }
                game.next_state(p, &joint, &mut next);
                let goals = playout.run(game, &next, &mut self.rng, self.options.max_playout_steps);
                sums[i] += goals[self.role];
                counts[i] += 1;
                done += 1;
            }
            if done == 0 && round >= self.particles.len() {
                break; // no particle lets any candidate be played out
            }
        }
        let mean = |k: usize| sums[k] / counts[k].max(1) as f64;
        let best = best_of(candidates.len(), mean, &mut self.rng)?;
        self.stats.playouts = done;
        self.stats.value = mean(best);
        Some(candidates[best].0)
    }

    /// Our role's legal moves in some particle whose text is `text` without regard to case
    /// (for a manager that changed the case of our move).
    pub fn move_like(&self, game: &G, text: &str) -> Option<G::Move> {
        let mut moves = Vec::new();
        let mut spelled = String::new();
        for p in &self.particles {
            game.legal_moves(p, self.role, &mut moves);
            for &m in &moves {
                spelled.clear();
                game.write_move(self.role, m, &mut spelled);
                if spelled.eq_ignore_ascii_case(text) {
                    return Some(m);
                }
            }
        }
        None
    }
}

/// Buffers of one draw.
struct Scratch<G: Game> {
    moves: Vec<G::Move>,
    joint: Vec<G::Move>,
    percepts: Vec<String>,
    next: G::State,
}

impl<G: Game> Scratch<G> {
    fn new(like: &G::State) -> Self {
        Scratch {
            moves: Vec::new(),
            joint: Vec::new(),
            percepts: Vec::new(),
            next: like.clone(),
        }
    }

    /// One successor of `from` with the other roles' moves drawn at random and ours from
    /// `seen`, if our move is legal there and the percepts are the ones seen.
    fn step(
        &mut self,
        game: &G,
        from: &G::State,
        role: RoleIndex,
        seen: &Seen<G::Move>,
        rng: &mut SplitMix64,
    ) -> Option<G::State> {
        if game.is_terminal(from) {
            return None;
        }
        self.joint.clear();
        for r in 0..game.role_count() {
            game.legal_moves(from, r, &mut self.moves);
            if r == role {
                if !self.moves.contains(&seen.ours) {
                    return None;
                }
                self.joint.push(seen.ours);
            } else {
                if self.moves.is_empty() {
                    return None;
                }
                self.joint.push(self.moves[rng.below(self.moves.len())]);
            }
        }
        self.percepts.clear();
        game.percepts(from, &self.joint, role, &mut self.percepts);
        self.percepts.dedup();
        if self.percepts != seen.percepts {
            return None;
        }
        game.next_state(from, &self.joint, &mut self.next);
        Some(self.next.clone())
    }
}
