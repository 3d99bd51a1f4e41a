//! The playouts of [`super::Mcts`]: uniformly random ([`Game::random_step`], which generated
//! games run without listing moves), or MAST (move-average sampling: per role and move, the
//! mean goal of the iterations that played it; a playout plays each role's best move, or with
//! chance [`MAST_EPSILON`] a uniform one), or NST (n-gram selection, Tak, Winands and
//! Björnsson 2012, with 1- and 2-grams: MAST, and per role the mean goal of each move played
//! right after each move of the role before it, the previous step's; a move is scored by the
//! mean of the two, the pair's counted after [`NST_MIN_PAIR`] plays), or decisive
//! ([`Decisive`]: a turn's mover takes a win in one, and may avoid giving one).

use super::decisive::Decisive;
use super::heuristic::Heuristic;
use super::move_ids::MoveIds;
use super::simultaneous::unit;
use crate::PlayoutPolicy;
use crate::scaled_goal;
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The chance that a MAST playout plays a role's move uniformly instead of its best.
const MAST_EPSILON: f64 = 0.4;
/// What MAST keeps of its statistics from one move of the match to the next.
const MAST_DECAY: f64 = 0.5;

/// NST: the plays of a pair of moves before its mean counts.
const NST_MIN_PAIR: f64 = 3.0;
/// NST: pairs are kept for moves numbered below this, so that a role's pairs take at most
/// 16 MB; moves numbered past it are scored by their MAST mean only.
const NST_MAX_ID: u32 = 1024;
/// No previous move (the first step of a playout, or a move numbered past [`NST_MAX_ID`]).
const NO_MOVE: u32 = u32::MAX;

/// A move's goal sum and count.
type Tally = (f64, f64);

/// MAST's statistics: per role, per move, the goal sum and count (and NST's pairs).
struct Mast<G: Game> {
    /// Per role: (sum, count) by the move's number.
    stats: Vec<Vec<Tally>>,
    /// NST: per role, by the previous role's move of the step before, then by the move:
    /// (sum, count); `None` for MAST.
    pairs: Option<Vec<Vec<Vec<Tally>>>>,
    ids: MoveIds<G>,
}

impl<G: Game> Mast<G> {
    fn new(game: &G, pairs: bool) -> Self {
        Mast {
            stats: (0..game.role_count())
                .map(|r| vec![(0.0, 0.0); game.move_count(r).unwrap_or(0)])
                .collect(),
            pairs: pairs.then(|| vec![Vec::new(); game.role_count()]),
            ids: MoveIds::new(game),
        }
    }

    /// The statistics of role `r`'s move `i` after move `before` (made on first sight;
    /// `None` without pairs or a previous move).
    fn pair_mut(&mut self, r: usize, before: u32, i: usize) -> Option<&mut Tally> {
        if before >= NST_MAX_ID || i as u32 >= NST_MAX_ID {
            return None;
        }
        let by_before = self.pairs.as_mut()?.get_mut(r)?;
        if by_before.len() <= before as usize {
            by_before.resize(before as usize + 1, Vec::new());
        }
        let row = &mut by_before[before as usize];
        if row.len() <= i {
            row.resize(i + 1, (0.0, 0.0));
        }
        Some(&mut row[i])
    }

    /// The index in `moves` (role `r`'s legal moves, at least one) of the best scored move
    /// after the previous role's move `before` (ties to the first from a random start).
    fn best(
        &mut self,
        game: &G,
        r: RoleIndex,
        before: u32,
        moves: &[G::Move],
        rng: &mut SplitMix64,
    ) -> usize {
        let n = moves.len();
        let offset = rng.below(n);
        let mut best = offset;
        let mut best_score = f64::NEG_INFINITY;
        for k in 0..n {
            let j = (offset + k) % n;
            let i = self.index(game, r, moves[j]);
            let score = self.score(r, before, i);
            if score > best_score {
                best_score = score;
                best = j;
            }
        }
        best
    }

    /// Notes the joint move of a playout's step: each role's move with the previous role's
    /// move of the step before (`last`, then this step's).
    fn record(
        &mut self,
        game: &G,
        joint: &[G::Move],
        last: &mut [u32],
        played: &mut Vec<(u32, u32, u32)>,
    ) {
        let roles = joint.len();
        let start = played.len();
        for (r, &mv) in joint.iter().enumerate() {
            let i = self.index(game, r, mv) as u32;
            played.push((r as u32, i, last[(r + roles - 1) % roles]));
        }
        for (r, l) in last.iter_mut().enumerate() {
            *l = played[start + r].1;
        }
    }

    /// The score of role `r`'s move `i` after move `before`: its MAST mean, averaged with
    /// the pair's mean once the pair has been played [`NST_MIN_PAIR`] times.
    fn score(&self, r: RoleIndex, before: u32, i: usize) -> f64 {
        let mean = self.mean(r, i);
        let pair = self
            .pairs
            .as_ref()
            .and_then(|p| p.get(r)?.get(before as usize)?.get(i))
            .filter(|&&(_, count)| count >= NST_MIN_PAIR);
        match pair {
            Some(&(sum, count)) => (mean + sum / count) / 2.0,
            None => mean,
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
    /// MAST: the (role, move index, the previous role's move index of the step before or
    /// [`NO_MOVE`]) of every move played since the last [`Playout::learn`].
    played: Vec<(u32, u32, u32)>,
    /// NST: each role's move index in the playout's last step ([`NO_MOVE`] before the first).
    last: Vec<u32>,
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
            mast: match policy {
                PlayoutPolicy::Mast => Some(Mast::new(game, false)),
                PlayoutPolicy::Nst | PlayoutPolicy::AntiDecisiveNst => Some(Mast::new(game, true)),
                _ => None,
            },
            decisive: match policy {
                PlayoutPolicy::Decisive => Some(Decisive::new(game, state, false)),
                PlayoutPolicy::AntiDecisive | PlayoutPolicy::AntiDecisiveNst => {
                    Some(Decisive::new(game, state, true))
                }
                _ => None,
            },
            decisive_steps: usize::MAX,
            played: Vec::new(),
            last: Vec::new(),
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
        self.last.clear();
        self.last.resize(roles, NO_MOVE);
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
                    let stepped = match &mut self.mast {
                        // NST orders the mover's moves the checks try.
                        Some(mast) => {
                            let last = &self.last;
                            let stepped = d.step_ordered(
                                game,
                                &self.state,
                                rng,
                                &mut self.next,
                                &mut |r, moves, rng| {
                                    if game.is_random_role(r) || unit(rng) < MAST_EPSILON {
                                        return rng.below(moves.len());
                                    }
                                    let before = last[(r + roles - 1) % roles];
                                    mast.best(game, r, before, moves, rng)
                                },
                            );
                            if stepped {
                                mast.record(game, d.joint(), &mut self.last, &mut self.played);
                            }
                            stepped
                        }
                        None => d.step(game, &self.state, rng, &mut self.next),
                    };
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

    /// One MAST (or NST) step from `state` into `next`; false when a role has no legal move.
    fn mast_step(&mut self, game: &G, rng: &mut SplitMix64) -> bool {
        let Some(mast) = &mut self.mast else {
            return false;
        };
        let roles = game.role_count();
        self.joint.clear();
        for r in 0..roles {
            let mv = if game.is_random_role(r) || unit(rng) < MAST_EPSILON {
                // Drawn without listing the moves.
                game.random_legal_move(&self.state, r, rng, &mut self.scratch)
            } else {
                game.legal_moves(&self.state, r, &mut self.scratch);
                let before = self.last[(r + roles - 1) % roles];
                (!self.scratch.is_empty())
                    .then(|| self.scratch[mast.best(game, r, before, &self.scratch, rng)])
            };
            let Some(mv) = mv else { return false };
            self.joint.push(mv);
        }
        mast.record(game, &self.joint, &mut self.last, &mut self.played);
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

    /// MAST: notes that role `r` played `mv` in the tree part of the current iteration,
    /// `before` the previous role's move of the step before (NST).
    pub(super) fn note(&mut self, game: &G, r: RoleIndex, mv: G::Move, before: Option<G::Move>) {
        if let Some(mast) = &mut self.mast {
            let i = mast.index(game, r, mv);
            let before = match before {
                Some(b) if mast.pairs.is_some() => {
                    mast.index(game, (r + game.role_count() - 1) % game.role_count(), b) as u32
                }
                _ => NO_MOVE,
            };
            self.played.push((r as u32, i as u32, before));
        }
    }

    /// MAST: every move noted or played since the last call gets the goals of its role.
    pub(super) fn learn(&mut self, goals: &[f64]) {
        let Some(mast) = &mut self.mast else {
            return;
        };
        for &(r, i, before) in &self.played {
            let g = goals.get(r as usize).copied().unwrap_or(0.5);
            let s = &mut mast.stats[r as usize][i as usize];
            s.0 += g;
            s.1 += 1.0;
            if let Some(p) = mast.pair_mut(r as usize, before, i as usize) {
                p.0 += g;
                p.1 += 1.0;
            }
        }
        self.played.clear();
    }

    /// MAST: statistics weigh less after a move of the match.
    pub(super) fn decay(&mut self) {
        if let Some(mast) = &mut self.mast {
            let pairs = mast.pairs.iter_mut().flatten().flatten().flatten();
            for (sum, count) in mast.stats.iter_mut().flatten().chain(pairs) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{Pos, Table, TableState, To, turn_of_first};

    /// The first role picks one of three; the second wins by picking the same (100 to it),
    /// else the first wins: no move of the second is better than another on average, the
    /// reply to each move is.
    fn matching() -> Table {
        let second = |a: u32| {
            Pos::Moves(
                vec![1, 3],
                (0..3).map(|b| To::At(if a == b { 4 } else { 5 })).collect(),
            )
        };
        Table {
            roles: vec!["first", "second"],
            positions: vec![
                turn_of_first(3, |i| To::At(u32::from(i) + 1)),
                second(0),
                second(1),
                second(2),
                Pos::End(vec![0, 100]),
                Pos::End(vec![100, 0]),
            ],
            long: 0,
        }
    }

    /// The second role's mean goal over `n` playouts after `n` that learnt.
    fn second_wins(policy: PlayoutPolicy, n: usize) -> f64 {
        let game = matching();
        let start = TableState::At(0);
        let mut p = Playout::new(&game, &start, policy);
        let mut rng = SplitMix64::new(7);
        let mut sum = 0.0;
        for k in 0..2 * n {
            let goals = p.run(&game, &start, &mut rng, 10).to_vec();
            p.learn(&goals);
            if k >= n {
                sum += goals[1];
            }
        }
        sum / n as f64
    }

    #[test]
    fn nst_learns_the_reply_to_the_move_before_where_mast_cannot() {
        let mast = second_wins(PlayoutPolicy::Mast, 500);
        let nst = second_wins(PlayoutPolicy::Nst, 500);
        // MAST: about a third. NST: the reply, but for its uniform moves (0.4, a third of
        // them right): about 0.73.
        assert!((0.2..0.45).contains(&mast), "mast {mast}");
        assert!(nst > 0.65, "nst {nst}");
    }

    #[test]
    fn nst_pairs_count_after_a_few_plays_and_decay_between_moves() {
        let game = matching();
        let mut p = Playout::new(&game, &TableState::At(0), PlayoutPolicy::Nst);
        // The first role played 2, then the second 2 (a win for it), twice; then 0 after 2.
        for (b, goal) in [(2, 1.0), (2, 1.0), (0, 0.0)] {
            p.note(&game, 0, 2, None);
            p.note(&game, 1, b, Some(2));
            p.learn(&[1.0 - goal, goal]);
        }
        let mast = p.mast.as_mut().unwrap();
        let (a2, b2, b0) = (
            mast.index(&game, 0, 2),
            mast.index(&game, 1, 2),
            mast.index(&game, 1, 0),
        );
        let before = a2 as u32;
        // Two plays of the pair (2, 2): under the threshold, the MAST mean alone.
        assert_eq!(mast.score(1, before, b2), 1.0);
        assert_eq!(mast.score(1, before, b0), 0.0);
        mast.pair_mut(1, before, b2).unwrap().1 += 2.0;
        // Counted now: (1 + 2 / 4) / 2.
        assert_eq!(mast.score(1, before, b2), 0.75);
        assert_eq!(
            mast.score(1, NO_MOVE, b2),
            1.0,
            "no move before: MAST alone"
        );
        p.decay();
        let mast = p.mast.as_ref().unwrap();
        let pair = mast.pairs.as_ref().unwrap()[1][before as usize][b2];
        assert_eq!(pair, (1.0, 2.0), "halved");
    }
}
