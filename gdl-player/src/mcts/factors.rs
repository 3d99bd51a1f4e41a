//! Independent parts of a game (factors), found at the start clock by measurement.
//!
//! Some games are several games played side by side: two boards of connect four where each
//! role drops on one board and the other role on the other, then they swap. A tree over the
//! joint state multiplies the boards' positions together; a tree per board does not.
//!
//! The measurement plays random games and, at each step, plays one role's move against
//! another of its moves with the same moves of the others: the state facts that come out
//! different are the ones that choice decides, and they belong together, as do the facts that
//! the same move (by its text) of two roles decides. Facts that no
//! choice ever decides (whose turn it is, a step counter) are shared: every factor sees them.
//! A game is factored when this leaves two or more groups of facts and, on the same sampled
//! steps, each group behaves as a game of its own: the same facts of a group (with the shared
//! ones) and the same moves chosen in it always give the same next facts of the group and the
//! same legal moves. A role's choice at a state lies in the group its moves decide.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::time::{Duration, Instant};

use super::move_ids::MoveIds;
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// What the measurement may spend.
#[derive(Clone, Debug)]
pub(super) struct DetectOptions {
    /// Random games played at most.
    pub games: usize,
    /// Time spent at most (also bounded by the deadline given).
    pub budget: Duration,
    /// Steps of a game at most.
    pub max_steps: usize,
    /// A sampled step whose group state was seen before with other facts elsewhere confirms
    /// that the group is a game of its own; this many confirmations are needed, and as many
    /// steps of each group where a role chose among moves all seen before.
    pub min_confirmations: usize,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            games: 200,
            budget: Duration::from_millis(400),
            max_steps: 400,
            min_confirmations: 20,
        }
    }
}

/// What [`detect`] finds: the factors, and the numbers it gave the moves.
pub(super) struct Found<G: Game> {
    pub factors: Factors,
    pub ids: MoveIds<G>,
}

impl<G: Game> Clone for Found<G> {
    fn clone(&self) -> Self {
        Found {
            factors: self.factors.clone(),
            ids: self.ids.clone(),
        }
    }
}

/// The factors of a game: groups of state facts, and for each role's move the group it
/// decides.
#[derive(Clone, Debug)]
pub(super) struct Factors {
    /// Per factor: the fact words its states are keyed on (its own facts and the shared ones).
    masks: Vec<Vec<u64>>,
    /// Per factor: one of its own facts.
    roots: Vec<u32>,
    /// Per factor: how many facts are its own.
    sizes: Vec<usize>,
    /// Facts no choice decides (those never set included): every factor sees them.
    shared: usize,
    /// Per role, by move number ([`MoveIds`]): the factor the move decides, if seen.
    move_factor: Vec<Vec<Option<u16>>>,
}

impl Factors {
    /// How many factors.
    pub(super) fn len(&self) -> usize {
        self.masks.len()
    }

    /// The key of the state whose fact words are `bits` in factor `f`.
    pub(super) fn key(&self, f: usize, bits: &[u64]) -> u64 {
        masked_hash(
            0x9e37_79b9_7f4a_7c15 ^ f as u64,
            bits,
            &self.masks[f],
            |m| m,
        )
    }

    /// The factor that role `r`'s move numbered `id` decides, if the measurement saw it.
    pub(super) fn of_move(&self, r: RoleIndex, id: usize) -> Option<usize> {
        self.move_factor
            .get(r)?
            .get(id)
            .copied()
            .flatten()
            .map(usize::from)
    }

    /// The factor of role `r`'s choice among its legal moves `legal`: the one its first
    /// move seen by the measurement decides (0 when none was seen); `None` without a choice
    /// (one legal move).
    pub(super) fn of_choice<G: Game>(
        &self,
        ids: &MoveIds<G>,
        game: &G,
        r: RoleIndex,
        legal: &[G::Move],
    ) -> Option<usize> {
        match legal.len() {
            0 | 1 => None,
            _ => legal
                .iter()
                .find_map(|&m| self.of_move(r, ids.get(game, r, m)?))
                .or(Some(0)),
        }
    }

    /// "2 factors (84, 84 facts; 4 shared)".
    pub(super) fn describe(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
        format!(
            "{} factors ({} facts; {} shared)",
            self.len(),
            sizes.join(", "),
            self.shared
        )
    }
}

/// A hash of the fact words `bits`, each kept by `keep` of the mask's word (the mask itself, or
/// its complement for the facts outside it).
fn masked_hash(seed: u64, bits: &[u64], mask: &[u64], keep: impl Fn(u64) -> u64) -> u64 {
    bits.iter()
        .zip(mask)
        .fold(seed, |h, (w, m)| mix(h ^ (w & keep(*m))))
}

/// A 64-bit mixer (SplitMix64's finaliser).
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Union-find over fact numbers.
struct Groups {
    parent: Vec<u32>,
}

impl Groups {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b) as usize] = a.min(b);
        }
    }
}

/// The other moves of a role tried at a step that ended the game.
const ALTERNATIVES: usize = 4;

/// The share of the sampled ends of games made by a choice that two factors' choices made
/// together, above
/// which the factors are not games of their own (a capture of one role's piece by another's:
/// both moves matter) but parts of one (a line on either of two boards ends the game).
const MAX_JOINT_ENDS: f64 = 0.25;

/// One sampled step: the fact words before and after, and per role its move's number and
/// its legal moves' numbers (sorted) when it had a choice.
struct Step {
    before: Vec<u64>,
    after: Vec<u64>,
    choices: Vec<Option<(usize, Vec<usize>)>>,
    /// A step that ended the game: the roles (and their moves' numbers) whose choice ended
    /// it (another of their moves would not have).
    ended_by: Option<Vec<(usize, usize)>>,
    /// The sampled game it belongs to, and its number there.
    game: usize,
    at: usize,
}

/// [`detect`] with the player's options (the start clock's measurement of [`super::Mcts`]).
pub(super) fn detect_for_play<G: Game>(game: &G, seed: u64, deadline: Instant) -> Option<Found<G>> {
    detect(game, seed, deadline, &DetectOptions::default())
}

/// The game's factors, if the measurement finds two or more that each behave as a game of
/// their own (see the module's text); `None` otherwise, or for a game without fact bits.
pub(super) fn detect<G: Game>(
    game: &G,
    seed: u64,
    deadline: Instant,
    options: &DetectOptions,
) -> Option<Found<G>> {
    let end = deadline.min(Instant::now() + options.budget);
    let roles = game.role_count();
    let initial = game.initial_state();
    let words = game.fact_bits(&initial)?.len();
    let facts = words * 64;
    let mut groups = Groups {
        parent: (0..facts as u32).collect(),
    };
    let mut decided = vec![false; facts];
    let mut ids = MoveIds::new(game);
    // Per role, by move number: a fact the move decided.
    let mut move_fact: Vec<Vec<Option<u32>>> = vec![Vec::new(); roles];
    let mut texts: HashMap<String, u32> = HashMap::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut rng = SplitMix64::new(seed ^ 0xfac7);
    let mut legal: Vec<Vec<G::Move>> = vec![Vec::new(); roles];
    let (mut state, mut next, mut other) = (initial.clone(), initial.clone(), initial.clone());
    let mut joint: Vec<G::Move> = Vec::with_capacity(roles);
    // Per sampled game, its joint moves.
    let mut played: Vec<Vec<Vec<G::Move>>> = Vec::new();
    'games: for number in 0..options.games {
        state.clone_from(&initial);
        played.push(Vec::new());
        for at in 0..options.max_steps {
            if game.is_terminal(&state) || Instant::now() >= end {
                break;
            }
            joint.clear();
            for (r, l) in legal.iter_mut().enumerate() {
                l.clear();
                game.legal_moves(&state, r, l);
                if l.is_empty() {
                    break 'games;
                }
                joint.push(l[rng.below(l.len())]);
            }
            game.next_state(&state, &joint, &mut next);
            let before = game.fact_bits(&state)?.to_vec();
            let after = game.fact_bits(&next)?.to_vec();
            let mut choices = vec![None; roles];
            for r in 0..roles {
                if legal[r].len() < 2 {
                    continue;
                }
                let chosen = joint[r];
                let alternative = loop {
                    let m = legal[r][rng.below(legal[r].len())];
                    if m != chosen {
                        break m;
                    }
                };
                joint[r] = alternative;
                game.next_state(&state, &joint, &mut other);
                joint[r] = chosen;
                let Some(first) = differing(&after, game.fact_bits(&other)?, &mut groups) else {
                    continue;
                };
                decided[first as usize] = true;
                for m in [chosen, alternative] {
                    let id = ids.id(game, r, m);
                    let slots = &mut move_fact[r];
                    if slots.len() <= id {
                        slots.resize(id + 1, None);
                    }
                    match slots[id] {
                        Some(f) => groups.join(f, first),
                        None => slots[id] = Some(first),
                    }
                    // The same move of two roles (the same text) decides the same part.
                    match texts.entry(game.move_text(r, m)) {
                        Entry::Occupied(e) => groups.join(*e.get(), first),
                        Entry::Vacant(e) => {
                            e.insert(first);
                        }
                    }
                }
                let mut all: Vec<usize> = legal[r].iter().map(|&m| ids.id(game, r, m)).collect();
                all.sort_unstable();
                choices[r] = Some((ids.id(game, r, chosen), all));
            }
            let ended_by = game.is_terminal(&next).then(|| {
                let mut by = Vec::new();
                for r in 0..roles {
                    let chosen = joint[r];
                    let others = legal[r].iter().filter(|&&m| m != chosen).take(ALTERNATIVES);
                    let mut matters = false;
                    for &m in others {
                        joint[r] = m;
                        game.next_state(&state, &joint, &mut other);
                        matters |= !game.is_terminal(&other);
                    }
                    joint[r] = chosen;
                    if matters {
                        by.push((r, ids.id(game, r, chosen)));
                    }
                }
                by
            });
            steps.push(Step {
                before,
                after,
                choices,
                ended_by,
                game: number,
                at,
            });
            played[number].push(joint.clone());
            std::mem::swap(&mut state, &mut next);
        }
    }
    for f in 0..facts {
        if decided[f] {
            let root = groups.find(f as u32);
            decided[root as usize] = true;
        }
    }
    for f in 0..facts {
        let root = groups.find(f as u32) as usize;
        if decided[root] {
            decided[f] = true;
        }
    }
    loop {
        let factors = build(&mut groups, &decided, &move_fact, words)?;
        match check(&factors, &steps) {
            Verdict::Agree {
                agreeing,
                least_clean,
            } => {
                let apart = agreeing >= options.min_confirmations
                    && least_clean >= options.min_confirmations
                    && ends_apart(&factors, &steps)
                    && ends_alone(game, &factors, &steps, &played, &mut rng);
                return apart.then_some(Found { factors, ids });
            }
            Verdict::Merge(merged) if merged.len() < 2 => return None,
            Verdict::Merge(merged) => {
                for g in &merged[1..] {
                    groups.join(factors.roots[merged[0]], factors.roots[*g]);
                }
            }
        }
    }
}

/// The first fact that differs between `a` and `b`, after joining every differing fact
/// with it.
fn differing(a: &[u64], b: &[u64], groups: &mut Groups) -> Option<u32> {
    let mut first = None;
    for (w, (x, y)) in a.iter().zip(b).enumerate() {
        let mut d = x ^ y;
        while d != 0 {
            let fact = (w * 64) as u32 + d.trailing_zeros();
            d &= d - 1;
            match first {
                None => first = Some(fact),
                Some(f) => groups.join(f, fact),
            }
        }
    }
    first
}

/// The factors the groups make: `None` with fewer than two.
fn build(
    groups: &mut Groups,
    decided: &[bool],
    move_fact: &[Vec<Option<u32>>],
    words: usize,
) -> Option<Factors> {
    let mut number: HashMap<u32, usize> = HashMap::new();
    let mut shared_mask = vec![0u64; words];
    let mut own: Vec<Vec<u64>> = Vec::new();
    let mut sizes = Vec::new();
    let mut roots = Vec::new();
    let mut shared = 0;
    for f in 0..decided.len() {
        if !decided[f] {
            shared_mask[f / 64] |= 1 << (f % 64);
            shared += 1;
            continue;
        }
        let root = groups.find(f as u32);
        let next = number.len();
        let i = *number.entry(root).or_insert(next);
        if i == own.len() {
            roots.push(root);
            own.push(vec![0u64; words]);
            sizes.push(0);
        }
        own[i][f / 64] |= 1 << (f % 64);
        sizes[i] += 1;
    }
    if own.len() < 2 || own.len() > usize::from(u16::MAX) {
        return None;
    }
    let masks = own
        .iter()
        .map(|m| m.iter().zip(&shared_mask).map(|(a, b)| a | b).collect())
        .collect();
    let move_factor = move_fact
        .iter()
        .map(|slots| {
            slots
                .iter()
                .map(|s| s.map(|f| number[&groups.find(f)] as u16))
                .collect()
        })
        .collect();
    Some(Factors {
        masks,
        roots,
        sizes,
        shared,
        move_factor,
    })
}

/// What the sampled steps say of factors.
enum Verdict {
    /// Every step agrees with them: a role's legal moves in one factor, and in each factor
    /// the same key and moves chosen in it giving the same next key and legal moves.
    /// `agreeing`: the steps that agreed with another step of the same key and moves and
    /// other facts outside the factor; `least_clean`: the fewest steps of a factor where a
    /// role chose in it among moves all seen to decide something (few where the sampled
    /// games were too few to see a game's moves).
    Agree { agreeing: usize, least_clean: usize },
    /// These factors depend on each other: they are one.
    Merge(Vec<usize>),
}

/// A factor, its key before a step and the moves (role, number) chosen in it.
type Transition = (usize, u64, Vec<(usize, usize)>);

/// Checks the factors against the sampled steps ([`Verdict`]).
fn check(factors: &Factors, steps: &[Step]) -> Verdict {
    // (factor, key before, moves chosen in it) -> (key after, step).
    let mut seen: HashMap<Transition, (u64, usize)> = HashMap::new();
    // (factor, key, role) -> the step that gave its legal moves.
    let mut legal: HashMap<(usize, u64, usize), usize> = HashMap::new();
    let mut agreeing = 0;
    // Per factor: the steps where a role chose in it among moves all seen to decide it.
    let mut clean = vec![0usize; factors.len()];
    for (i, step) in steps.iter().enumerate() {
        let mut chosen: Vec<Vec<(usize, usize)>> = vec![Vec::new(); factors.len()];
        for (r, choice) in step.choices.iter().enumerate() {
            let Some((mv, all)) = choice else { continue };
            let known = all.iter().all(|&m| factors.of_move(r, m).is_some());
            let mut of: Vec<usize> = all.iter().filter_map(|&m| factors.of_move(r, m)).collect();
            of.sort_unstable();
            of.dedup();
            let f = match of.as_slice() {
                // Moves that never change a fact: no choice.
                [] => continue,
                [f] => *f,
                _ => return Verdict::Merge(of),
            };
            clean[f] += usize::from(known);
            chosen[f].push((r, *mv));
            let key = factors.key(f, &step.before);
            match legal.entry((f, key, r)) {
                Entry::Occupied(e) => {
                    let j = *e.get();
                    if steps[j].choices[r].as_ref().map(|c| &c.1) != Some(all) {
                        return depends(factors, f, &steps[j], step);
                    }
                }
                Entry::Vacant(e) => {
                    e.insert(i);
                }
            }
        }
        for (f, moves) in chosen.into_iter().enumerate() {
            let before = factors.key(f, &step.before);
            let after = factors.key(f, &step.after);
            match seen.entry((f, before, moves)) {
                Entry::Occupied(e) => {
                    let (known_after, j) = *e.get();
                    if known_after != after {
                        return depends(factors, f, &steps[j], step);
                    }
                    if outside_key(factors, f, &steps[j].before)
                        != outside_key(factors, f, &step.before)
                    {
                        agreeing += 1;
                    }
                }
                Entry::Vacant(e) => {
                    e.insert((after, i));
                }
            }
        }
    }
    Verdict::Agree {
        agreeing,
        least_clean: clean.into_iter().min().unwrap_or(0),
    }
}

/// Factor `f` behaved differently after steps `a` and `b` with the same key: it depends on
/// the factors whose facts differ between them.
fn depends(factors: &Factors, f: usize, a: &Step, b: &Step) -> Verdict {
    let mut merged = vec![f];
    merged.extend(
        (0..factors.len())
            .filter(|&g| g != f && factors.key(g, &a.before) != factors.key(g, &b.before)),
    );
    Verdict::Merge(merged)
}

/// Whether the sampled games that a choice ended were mostly ended by the choices made in
/// one factor ([`MAX_JOINT_ENDS`]).
fn ends_apart(factors: &Factors, steps: &[Step]) -> bool {
    let (mut ends, mut joint) = (0usize, 0usize);
    // The ends no choice made (a step limit) say nothing.
    for by in steps
        .iter()
        .filter_map(|s| s.ended_by.as_ref())
        .filter(|b| !b.is_empty())
    {
        ends += 1;
        let mut of: Vec<usize> = by
            .iter()
            .filter_map(|&(r, m)| factors.of_move(r, m))
            .collect();
        of.sort_unstable();
        of.dedup();
        joint += usize::from(of.len() > 1);
    }
    joint as f64 <= MAX_JOINT_ENDS * ends as f64
}

/// Whether the sampled games that one factor's choice ended end the same when another
/// factor's state is other: for each, the last earlier choice in another factor is changed
/// and the game replayed with the same moves after it. A game of its own still ends there
/// (a line on one board whatever the other holds); a capture of a piece that another factor
/// moves does not. Replays where a move became illegal or the game ended sooner say nothing.
fn ends_alone<G: Game>(
    game: &G,
    factors: &Factors,
    steps: &[Step],
    played: &[Vec<Vec<G::Move>>],
    rng: &mut SplitMix64,
) -> bool {
    let (mut tested, mut changed) = (0usize, 0usize);
    let mut legal = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let Some(by) = step.ended_by.as_ref().filter(|b| !b.is_empty()) else {
            continue;
        };
        let mut of = by.iter().filter_map(|&(r, m)| factors.of_move(r, m));
        let Some(f) = of.next() else { continue };
        if of.any(|g| g != f) {
            continue;
        }
        let earlier = (0..i).rev().take_while(|&k| steps[k].game == step.game);
        let other = earlier.into_iter().find_map(|k| {
            steps[k].choices.iter().enumerate().find_map(|(r, c)| {
                let (mv, _) = c.as_ref()?;
                (factors.of_move(r, *mv)? != f).then_some((steps[k].at, r))
            })
        });
        let Some((changed_at, role)) = other else {
            continue;
        };
        let moves = &played[step.game];
        let mut state = game.initial_state();
        let mut next = state.clone();
        let mut ok = true;
        for (at, recorded) in moves.iter().enumerate().take(step.at + 1) {
            let mut joint = recorded.clone();
            for (r, mv) in joint.iter_mut().enumerate() {
                legal.clear();
                game.legal_moves(&state, r, &mut legal);
                if at == changed_at && r == role {
                    let others: Vec<_> = legal.iter().filter(|&&m| m != *mv).copied().collect();
                    match others.is_empty() {
                        true => ok = false,
                        false => *mv = others[rng.below(others.len())],
                    }
                } else if !legal.contains(mv) {
                    ok = false;
                }
            }
            if !ok || game.is_terminal(&state) {
                ok = false;
                break;
            }
            game.next_state(&state, &joint, &mut next);
            std::mem::swap(&mut state, &mut next);
        }
        if ok {
            tested += 1;
            changed += usize::from(!game.is_terminal(&state));
        }
    }
    changed as f64 <= MAX_JOINT_ENDS * tested as f64
}

/// A key of the facts of `bits` outside factor `f`.
fn outside_key(factors: &Factors, f: usize, bits: &[u64]) -> u64 {
    masked_hash(0x51_7cc1_b727_220a, bits, &factors.masks[f], |m| !m)
}

#[cfg(test)]
#[path = "factors_tests.rs"]
mod tests;
