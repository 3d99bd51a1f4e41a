//! The playouts of [`super::Mcts`]: uniformly random ([`Game::random_step`], which generated
//! games run without listing moves), or MAST (move-average sampling: per role and move, the
//! mean goal of the iterations that played it; a playout plays each role's best move, or with
//! chance [`MAST_EPSILON`] a uniform one), or decisive ([`Decisive`]: a turn's mover takes a
//! win in one, and may avoid giving one).

use super::decisive::Decisive;
use super::heuristic::Heuristic;
use super::move_ids::MoveIds;
use crate::PlayoutPolicy;
use crate::scaled_goal;
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The chance that a MAST playout plays a role's move uniformly instead of its best.
const MAST_EPSILON: f64 = 0.4;
/// What MAST keeps of its statistics from one move of the match to the next.
const MAST_DECAY: f64 = 0.5;

/// MAST's statistics: per role, per move, the goal sum and count.
struct Mast<G: Game> {
    /// Per role: (sum, count) by the move's number.
    stats: Vec<Vec<(f64, f64)>>,
    ids: MoveIds<G>,
}

impl<G: Game> Mast<G> {
    fn new(game: &G) -> Self {
        Mast {
            stats: (0..game.role_count())
                .map(|r| vec![(0.0, 0.0); game.move_count(r).unwrap_or(0)])
                .collect(),
            ids: MoveIds::new(game),
        }
    }

    /// The index of `mv` of role `r` in its table (made on first sight).
    fn index(&mut self, game: &G, r: RoleIndex, mv: G::Move) -> usize {
        let i = self.ids.id(game, r, mv);
        let stats = &mut self.stats[r];
        if i >= stats.len() {
            stats.resize(i + 1, (0.0, 0.0));
        }
        i
    }

    /// The mean goal of a move (1 for a move never played, so that it is tried).
    fn mean(&self, r: RoleIndex, i: usize) -> f64 {
        match self.stats[r].get(i) {
            Some(&(sum, count)) if count > 0.0 => sum / count,
            _ => 1.0,
        }
    }
}

/// A playout's buffers, kept between playouts, and MAST's statistics.
pub(super) struct Playout<G: Game> {
    state: G::State,
    next: G::State,
    scratch: Vec<G::Move>,
    joint: Vec<G::Move>,
    goals: Vec<f64>,
    mast: Option<Mast<G>>,
    decisive: Option<Decisive<G>>,
    /// Decisive and anti-decisive playouts look for wins in this many steps of a playout at
    /// most (then uniform).
    decisive_steps: usize,
    /// MAST: the (role, move index) of every move played since the last [`Playout::learn`].
    played: Vec<(u32, u32)>,
    /// When kept ([`Playout::keep_line`]): the first role's moves of the last playout.
    line: Option<Vec<G::Move>>,
    /// Scores a playout cut short ([`super::heuristic`]).
    heuristic: Option<Heuristic>,
    /// When kept ([`Playout::keep_joints`]): every joint move of the last playout, one after
    /// the other.
    joints: Option<Vec<G::Move>>,
}

impl<G: Game> Playout<G> {
    pub(super) fn new(game: &G, state: &G::State, policy: PlayoutPolicy) -> Self {
        Playout {
            state: state.clone(),
            next: state.clone(),
            scratch: Vec::new(),
            joint: Vec::new(),
            goals: Vec::new(),
            mast: (policy == PlayoutPolicy::Mast).then(|| Mast::new(game)),
            decisive: match policy {
                PlayoutPolicy::Decisive => Some(Decisive::new(game, state, false)),
                PlayoutPolicy::AntiDecisive => Some(Decisive::new(game, state, true)),
                _ => None,
            },
            decisive_steps: usize::MAX,
            played: Vec::new(),
            line: None,
            heuristic: None,
            joints: None,
        }
    }

    /// Decisive (and anti-decisive) steps in the first `steps` steps of a playout only
    /// (`None`: in every step).
    pub(super) fn with_decisive_steps(mut self, steps: Option<usize>) -> Self {
        self.decisive_steps = steps.unwrap_or(usize::MAX);
        self
    }

    /// Decisive and anti-decisive playouts check the turns each role has in its own part of
    /// a factored game too ([`Decisive::with_parts`]).
    pub(super) fn with_parts(mut self, parts: &super::factors::Found<G>) -> Self {
        self.decisive = self.decisive.map(|d| d.with_parts(parts.clone()));
        self
    }

    /// The playouts cut short and scored by `heuristic`, when given.
    pub(super) fn with_heuristic(mut self, heuristic: Option<Heuristic>) -> Self {
        self.heuristic = heuristic;
        self
    }

    /// From now on, keeps the first role's moves of each playout ([`Playout::line`]); uniform
    /// playouts then draw each move as [`Game::random_legal_move`] (the same draws as
    /// [`Game::random_step`]) to know it.
    pub(super) fn keep_line(&mut self) {
        self.line = Some(Vec::new());
    }

    /// From now on, keeps every joint move of each playout ([`Playout::joints`]), drawn as
    /// [`Playout::keep_line`] says.
    pub(super) fn keep_joints(&mut self) {
        self.joints = Some(Vec::new());
    }

    /// Every joint move of the last playout (a move per role, one joint after the other), when
    /// kept.
    pub(super) fn joints(&self) -> Option<&[G::Move]> {
        self.joints.as_deref()
    }

    /// The first role's moves of the last playout, when kept.
    pub(super) fn line(&self) -> Option<&[G::Move]> {
        self.line.as_deref()
    }

    /// Plays from `from` to the end; each role's goal in 0..1 (0.5 for a playout past
    /// `max_steps` or a role without a legal move).
    pub(super) fn run(
        &mut self,
        game: &G,
        from: &G::State,
        rng: &mut SplitMix64,
        max_steps: usize,
    ) -> &[f64] {
        let roles = game.role_count();
        self.state.clone_from(from);
        self.goals.clear();
        if let Some(line) = &mut self.line {
            line.clear();
        }
        if let Some(joints) = &mut self.joints {
            joints.clear();
        }
        let keep = self.line.is_some() || self.joints.is_some();
        if let Some(d) = &mut self.decisive {
            d.restart();
        }
        let mut steps = 0;
        while !game.is_terminal(&self.state) {
            if steps == max_steps {
                self.goals.resize(roles, 0.5);
                return &self.goals;
            }
            if let Some(h) = &self.heuristic
                && steps == h.cutoff
                && let Some(bits) = game.fact_bits(&self.state)
            {
                h.evaluate(bits, &mut self.goals);
                return &self.goals;
            }
            let decisive = self
                .decisive
                .as_mut()
                .filter(|_| steps < self.decisive_steps);
            let stepped = match (decisive, self.mast.is_some(), keep) {
                (Some(d), _, keep) => {
                    let stepped = d.step(game, &self.state, rng, &mut self.next);
                    if keep {
                        self.joint.clear();
                        self.joint.extend_from_slice(d.joint());
                    }
                    stepped
                }
                (None, true, _) => self.mast_step(game, rng),
                // The draws of `random_step`, with the joint move known for the line.
                (None, false, true) => gdl_runtime::game::default_random_step(
                    game,
                    &self.state,
                    rng,
                    &mut self.scratch,
                    &mut self.joint,
                    &mut self.next,
                )
                .is_ok(),
                (None, false, false) => game
                    .random_step(
                        &self.state,
                        rng,
                        &mut self.scratch,
                        &mut self.joint,
                        &mut self.next,
                    )
                    .is_ok(),
            };
            steps += 1;
            if !stepped {
                self.goals.resize(roles, 0.5);
                return &self.goals;
            }
            if let (Some(line), Some(&mv)) = (&mut self.line, self.joint.first()) {
                line.push(mv);
            }
            if let Some(joints) = &mut self.joints {
                joints.extend_from_slice(&self.joint);
            }
            std::mem::swap(&mut self.state, &mut self.next);
        }
        if let Some(d) = &mut self.decisive {
            d.saw_end(game, &self.state);
        }
        self.goals
            .extend((0..roles).map(|r| scaled_goal(game.goal(&self.state, r))));
        &self.goals
    }

    /// One MAST step from `state` into `next`; false when a role has no legal move.
    fn mast_step(&mut self, game: &G, rng: &mut SplitMix64) -> bool {
        let Some(mast) = &mut self.mast else {
            return false;
        };
        self.joint.clear();
        for r in 0..game.role_count() {
            let uniform = game.is_random_role(r)
                || (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < MAST_EPSILON;
            let mv = if uniform {
                match game.random_legal_move(&self.state, r, rng, &mut self.scratch) {
                    Some(m) => m,
                    None => return false,
                }
            } else {
                game.legal_moves(&self.state, r, &mut self.scratch);
                let n = self.scratch.len();
                if n == 0 {
                    return false;
                }
                // Ties go to the first from a random start.
                let offset = rng.below(n);
                let mut best = self.scratch[offset];
                let mut best_mean = f64::NEG_INFINITY;
                for k in 0..n {
                    let mv = self.scratch[(offset + k) % n];
                    let i = mast.index(game, r, mv);
                    let mean = mast.mean(r, i);
                    if mean > best_mean {
                        best_mean = mean;
                        best = mv;
                    }
                }
                best
            };
            let i = mast.index(game, r, mv);
            self.played.push((r as u32, i as u32));
            self.joint.push(mv);
        }
        game.next_state(&self.state, &self.joint, &mut self.next);
        true
    }

    /// What decisive steps found so far (decisive and anti-decisive playouts).
    pub(super) fn decisive_counts(&self) -> Option<super::decisive::Counts> {
        self.decisive.as_ref().map(|d| d.counts)
    }

    /// Whether the policy learns from the moves of an iteration (MAST).
    pub(super) fn learns(&self) -> bool {
        self.mast.is_some()
    }

    /// MAST: notes that role `r` played `mv` in the tree part of the current iteration.
    pub(super) fn note(&mut self, game: &G, r: RoleIndex, mv: G::Move) {
        if let Some(mast) = &mut self.mast {
            let i = mast.index(game, r, mv);
            self.played.push((r as u32, i as u32));
        }
    }

    /// MAST: every move noted or played since the last call gets the goals of its role.
    pub(super) fn learn(&mut self, goals: &[f64]) {
        let Some(mast) = &mut self.mast else {
            return;
        };
        for &(r, i) in &self.played {
            let g = goals.get(r as usize).copied().unwrap_or(0.5);
            let s = &mut mast.stats[r as usize][i as usize];
            s.0 += g;
            s.1 += 1.0;
        }
        self.played.clear();
    }

    /// MAST: statistics weigh less after a move of the match.
    pub(super) fn decay(&mut self) {
        if let Some(mast) = &mut self.mast {
            for (sum, count) in mast.stats.iter_mut().flatten() {
                *sum *= MAST_DECAY;
                *count *= MAST_DECAY;
            }
        }
    }

    /// MAST: the mean goal of role `r`'s move `mv` (for tests).
    #[cfg(test)]
    pub(super) fn mast_mean(&mut self, game: &G, r: RoleIndex, mv: G::Move) -> Option<f64> {
        let mast = self.mast.as_mut()?;
        let i = mast.index(game, r, mv);
        Some(mast.mean(r, i))
    }
}
