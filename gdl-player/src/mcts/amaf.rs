//! All-moves-as-first (AMAF) statistics of [`super::Mcts`] and the selection that mixes them
//! with each move's own: RAVE and GRAVE (Cazenave, "Generalized Rapid Action Value
//! Estimation", IJCAI 2015).
//!
//! Beside each move's visits and goal sum, a node keeps per move of each role the AMAF visits
//! and goal sum: the iterations through the node in which the same role played the same move
//! at the node or later (in the tree part or the playout), each counted once. A move is
//! known across nodes by its id: [`Game::move_index`] where the game numbers its moves, else
//! a number given on first sight.
//!
//! In selection, a move's mean `q` over its `m` visits is mixed with an AMAF mean `a_q` over
//! `a` visits as `(1 - beta) q + beta a_q`, `beta = a / (a + m + bias a m)`. RAVE takes the
//! node's own AMAF statistics; GRAVE those of the closest node on the path from the root
//! (the node itself or an ancestor) with at least [`AmafOptions::reference`] iterations, or
//! the root's. The exploration term is UCB1's with the constant scaled by
//! [`EXPLORATION_SCALE`]; a move with no visit and no AMAF visit is taken first. A move
//! proven is scored at its exact goal and one proven worse than another never taken, as in
//! [`super::select::pick`].

use std::time::{Duration, Instant};

use super::arena::Chunks;
use super::move_ids::MoveIds;
use super::placement::{self, Placements};
use super::select::{Known, Proofs, inv_sqrt, sqrt_ln};
use super::store::{NONE, Slot, Store};
use crate::{AmafMode, AmafOptions};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The exploration constant with AMAF is the options' times this (Sancho lowers its own by
/// the same factor when it uses RAVE).
pub(super) const EXPLORATION_SCALE: f64 = 0.7;

/// A move's AMAF statistics in a node (beside its slot in the store).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Stat {
    /// The move's id (the same in every node).
    pub(super) id: u32,
    pub(super) visits: u32,
    pub(super) sum: f64,
}

/// The store's AMAF statistics: one [`Stat`] per slot of the store's slot arena (same
/// index), and the ids of moves a game does not number.
pub(super) struct Table<G: Game> {
    pub(super) stats: Chunks<Stat>,
    ids: MoveIds<G>,
}

impl<G: Game> Table<G> {
    pub(super) fn new(game: &G) -> Self {
        Table {
            stats: Chunks::new(),
            ids: MoveIds::new(game),
        }
    }

    /// The id of role `r`'s move `mv`.
    pub(super) fn id(&mut self, game: &G, r: RoleIndex, mv: G::Move) -> u32 {
        self.ids.id(game, r, mv) as u32
    }

    /// Fresh statistics for role `r`'s `moves`, whose slots start at `at`.
    pub(super) fn fill(&mut self, game: &G, r: RoleIndex, moves: &[Slot<G::Move>], at: u32) {
        self.stats.ensure(at, moves.len(), Stat::default());
        for (k, m) in moves.iter().enumerate() {
            let id = self.id(game, r, m.mv);
            self.stats.block_mut(at, moves.len())[k] = Stat {
                id,
                visits: 0,
                sum: 0.0,
            };
        }
    }
}

/// Per role, a set of move ids.
#[derive(Default)]
struct Seen {
    bits: Vec<Vec<u64>>,
    /// The (role, word) of every word made non-zero, to clear them.
    dirty: Vec<(u32, u32)>,
}

impl Seen {
    fn clear(&mut self) {
        for &(r, w) in &self.dirty {
            self.bits[r as usize][w as usize] = 0;
        }
        self.dirty.clear();
    }

    fn add(&mut self, r: RoleIndex, id: u32) {
        if self.bits.len() <= r {
            self.bits.resize_with(r + 1, Vec::new);
        }
        let (w, b) = ((id / 64) as usize, id % 64);
        let bits = &mut self.bits[r];
        if bits.len() <= w {
            bits.resize(w + 1, 0);
        }
        if bits[w] == 0 {
            self.dirty.push((r as u32, w as u32));
        }
        bits[w] |= 1 << b;
    }

    fn has(&self, r: RoleIndex, id: u32) -> bool {
        let w = (id / 64) as usize;
        self.bits
            .get(r)
            .and_then(|b| b.get(w))
            .is_some_and(|&x| x >> (id % 64) & 1 != 0)
    }
}

/// What an iteration needs for AMAF: the moves played below the node being updated, and
/// (GRAVE) the reference node's statistics by move id.
pub(super) struct Amaf {
    options: AmafOptions,
    seen: Seen,
    /// Per role: the reference node of the node being selected in (GRAVE): the closest on
    /// the path where the role has a choice and enough iterations.
    reference: Vec<u32>,
    /// Per role: the node whose statistics `by_id` holds in this iteration ([`NONE`]: none).
    built: Vec<u32>,
    /// Per role, by move id: (iteration number when written, visits, sum).
    by_id: Vec<Vec<ById>>,
    /// The iteration's number (entries of `by_id` of another iteration are stale).
    iteration: u64,
}

/// A move's entry in a reference node's statistics by move id: (the iteration that wrote it,
/// visits, sum).
type ById = (u64, u32, f64);

/// The AMAF statistics role `r` selects with in a node: the node's own, or by move id those
/// of the reference node.
pub(super) struct Prior<'a> {
    own: &'a [Stat],
    by_id: Option<(&'a [ById], u64)>,
    bias: f64,
}

impl Prior<'_> {
    /// The AMAF visits and sum of move `i`.
    fn get(&self, i: usize) -> (u32, f64) {
        match self.by_id {
            None => (self.own[i].visits, self.own[i].sum),
            Some((table, iteration)) => match table.get(self.own[i].id as usize) {
                Some(&(at, v, s)) if at == iteration => (v, s),
                _ => (0, 0.0),
            },
        }
    }

    /// The mean of `m` visits summing to `sum` mixed with move `i`'s AMAF mean (`None`: no
    /// visit of either kind).
    #[inline]
    fn value(&self, i: usize, m: u32, sum: f64) -> Option<f64> {
        let (a, a_sum) = self.get(i);
        if m == 0 && a == 0 {
            return None;
        }
        // `(1 - beta) sum / m + beta a_sum / a` with `beta = a / d`, `d = a + m + bias a m`,
        // is `(sum (1 + bias a) + a_sum) / d`: one division.
        let (a, m) = (f64::from(a), f64::from(m));
        let ba = self.bias * a;
        Some((sum * (1.0 + ba) + a_sum) / (a + m + ba * m))
    }
}

impl Amaf {
    /// AMAF as `options` say (`None` when off, or [`AmafMode::Auto`] not yet measured).
    pub(super) fn new(options: AmafOptions) -> Option<Amaf> {
        matches!(options.mode, AmafMode::Rave | AmafMode::Grave).then(|| Amaf {
            options,
            seen: Seen::default(),
            reference: Vec::new(),
            built: Vec::new(),
            by_id: Vec::new(),
            iteration: 0,
        })
    }

    /// A new iteration from the root.
    pub(super) fn begin(&mut self) {
        self.iteration += 1;
        self.reference.iter_mut().for_each(|b| *b = NONE);
        self.built.iter_mut().for_each(|b| *b = NONE);
    }

    /// The descent reaches node `n`: it becomes the reference node of each role with a
    /// choice there when it has enough iterations or the role has no reference yet (GRAVE;
    /// with RAVE every node is its own).
    pub(super) fn enter<G: Game>(&mut self, store: &Store<G>, n: u32) {
        let enough = match self.options.mode {
            AmafMode::Grave => store.nodes[n as usize].total >= self.options.reference,
            _ => true,
        };
        let roles = store.roles();
        if self.reference.len() < roles {
            self.reference.resize(roles, NONE);
        }
        for (r, reference) in self.reference.iter_mut().enumerate() {
            if (enough || *reference == NONE) && store.range(n, r).1 > 1 {
                *reference = n;
            }
        }
    }

    /// Makes ready the statistics role `r` selects with in node `n` (after [`Amaf::enter`]).
    pub(super) fn prepare<G: Game>(&mut self, store: &Store<G>, n: u32, r: RoleIndex) {
        let reference = self.reference.get(r).copied().unwrap_or(NONE);
        if reference == n || reference == NONE {
            return;
        }
        if self.built.len() <= r {
            self.built.resize(r + 1, NONE);
            self.by_id.resize_with(r + 1, Vec::new);
        }
        if self.built[r] == reference {
            return;
        }
        self.built[r] = reference;
        let Some(table) = &store.amaf else { return };
        let (start, len) = store.range(reference, r);
        let by_id = &mut self.by_id[r];
        for s in table.stats.block(start as u32, len) {
            let id = s.id as usize;
            if by_id.len() <= id {
                by_id.resize(id + 1, (0, 0, 0.0));
            }
            by_id[id] = (self.iteration, s.visits, s.sum);
        }
    }

    /// The statistics role `r` selects with in node `n` (after [`Amaf::prepare`]).
    pub(super) fn prior<'a, G: Game>(
        &'a self,
        store: &'a Store<G>,
        n: u32,
        r: RoleIndex,
    ) -> Option<Prior<'a>> {
        let table = store.amaf.as_ref()?;
        let (start, len) = store.range(n, r);
        let reference = self.reference.get(r).copied().unwrap_or(NONE);
        let by_id = (reference != n && reference != NONE)
            .then(|| self.by_id.get(r).map(|t| (&t[..], self.iteration)))
            .flatten();
        Some(Prior {
            own: table.stats.block(start as u32, len),
            by_id,
            bias: self.options.bias,
        })
    }

    /// Before the path is updated: the moves of the playout (`joints`, a move per role one
    /// joint after the other) count as played.
    pub(super) fn played_out<G: Game>(
        &mut self,
        store: &mut Store<G>,
        game: &G,
        joints: Option<&[G::Move]>,
    ) {
        self.seen.clear();
        let roles = store.roles();
        let (Some(table), Some(joints)) = (&mut store.amaf, joints) else {
            return;
        };
        for joint in joints.chunks_exact(roles) {
            for (r, &mv) in joint.iter().enumerate() {
                let id = table.id(game, r, mv);
                self.seen.add(r, id);
            }
        }
    }

    /// Node `n` of the path, updated bottom-up after its children with the joint move `key`
    /// taken there: the moves of `key` count as played, and each role's moves played at `n`
    /// or below get the role's goal.
    pub(super) fn update<G: Game>(
        &mut self,
        store: &mut Store<G>,
        n: u32,
        key: &[u32],
        goals: &[f64],
    ) {
        let roles = store.roles();
        for (r, &i) in key.iter().enumerate().take(roles) {
            let (start, len) = store.range(n, r);
            let Some(table) = &mut store.amaf else { return };
            let id = table.stats.block(start as u32, len)[i as usize].id;
            self.seen.add(r, id);
            if len < 2 {
                continue;
            }
            let g = goals.get(r).copied().unwrap_or(0.5);
            for s in table.stats.block_mut(start as u32, len) {
                if self.seen.has(r, s.id) {
                    s.visits += 1;
                    s.sum += g;
                }
            }
        }
    }
}

/// The least share of placements among the moves of random games ([`placement`]) for which
/// [`AmafMode::Auto`] plays GRAVE.
pub(super) const MIN_PLACEMENTS: f64 = 0.99;

/// The share of the start clock the measurement of [`AmafMode::Auto`] may take.
const TIME_SHARE: f64 = 0.1;
/// The most time that measurement takes, whatever the start clock.
const MAX_TIME: Duration = Duration::from_secs(1);

/// The fewest moves [`AmafMode::Auto`] decides on.
pub(super) const MIN_CHOICES: u32 = 30;

/// What the start clock chose for [`AmafMode::Auto`], for the report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Chosen {
    pub(super) mode: AmafMode,
    pub(super) placements: Placements,
}

impl std::fmt::Display for Chosen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match self.mode {
            AmafMode::Off => "no AMAF",
            m => m.name(),
        };
        write!(f, "{mode} ({})", self.placements)
    }
}

/// The mode for `asked` on `game`: [`AmafMode::Auto`] is measured within [`TIME_SHARE`] of
/// the time to `deadline`, at most [`MAX_TIME`] (GRAVE when at least [`MIN_CHOICES`] moves
/// were looked at and [`MIN_PLACEMENTS`] of them are placements, else off); `None` for
/// another mode, kept as asked.
pub(super) fn at_start<G: Game>(
    game: &G,
    asked: AmafMode,
    seed: u64,
    deadline: Instant,
) -> Option<Chosen> {
    if asked != AmafMode::Auto {
        return None;
    }
    let until =
        crate::time_control::share_of_time(deadline, TIME_SHARE).min(Instant::now() + MAX_TIME);
    let placements = placement::measure(game, seed, until);
    let mode = if placements.choices >= MIN_CHOICES && placements.rate() >= MIN_PLACEMENTS {
        AmafMode::Grave
    } else {
        AmafMode::Off
    };
    Some(Chosen { mode, placements })
}

/// The move index role `r` takes in node `n` with AMAF statistics `prior` (see the module's
/// doc), exploration constant `c`.
pub(super) fn pick<G: Game>(
    store: &Store<G>,
    rng: &mut SplitMix64,
    c: f64,
    n: u32,
    r: RoleIndex,
    prior: &Prior<'_>,
) -> u32 {
    let moves = store.moves(n, r);
    let count = moves.len();
    let node = &store.nodes[n as usize];
    let explore = c * EXPLORATION_SCALE * sqrt_ln(node.total.max(1));
    let proofs = Proofs::of(store, n, r);
    // Ties (and moves never tried) go to the first from a random start.
    let offset = rng.below(count);
    let mut best = offset;
    let mut best_score = f64::NEG_INFINITY;
    for k in 0..count {
        let i = if offset + k < count {
            offset + k
        } else {
            offset + k - count
        };
        let m = &moves[i];
        let mean = match proofs.as_ref().map_or(Known::Open, |p| p.known(i)) {
            Known::Skip => continue,
            Known::Exact(v) => Some(v),
            Known::Open => prior.value(i, m.visits, m.sum),
        };
        let Some(mean) = mean else {
            return i as u32;
        };
        let score = mean + explore * inv_sqrt(m.visits);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best as u32
}

#[cfg(test)]
#[path = "amaf_tests.rs"]
mod tests;
