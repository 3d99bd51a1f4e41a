//! The search of a factored game ([`super::factors`]): a tree per factor instead of one over
//! the joint state.
//!
//! A node is a factor's state (its key: its own facts and the shared ones) and holds the
//! statistics of the roles that choose in that factor there. An iteration walks the real game
//! from the root: at each step every role with a choice picks its move by UCB1 in the node of
//! the factor its moves decide, the joint move gives the next state, and the walk goes on
//! until a step makes a node, a playout from there gives the goals, and every move picked on
//! the way gets them. So the tree of one board of two grows as that board's game does,
//! whatever happens on the other, and its statistics are those of the board's positions over
//! every position of the other board that the search met.
//!
//! Nodes and their moves live in flat arrays. When the store is full, a new move of the match
//! keeps only the nodes the last search visited.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::factor_checks::{Checker, Mark};
use super::factors::{Factors, Found};
use super::move_ids::MoveIds;
use super::policy::Playout;
use crate::RootMove;
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// A factor's state and its moves' statistics.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Its moves: `slots[start..start + len]`.
    start: u32,
    len: u32,
    /// The iteration that visited it last.
    stamp: u64,
    /// Its moves' marks are set ([`super::factor_checks`]).
    checked: bool,
}

/// A role's move in a node, and its statistics.
#[derive(Clone, Copy, Debug)]
struct Slot<M> {
    role: u32,
    mv: M,
    visits: u32,
    sum: f64,
    mark: Mark,
}

/// The trees of a factored game.
pub(super) struct Factored<G: Game> {
    factors: Factors,
    ids: MoveIds<G>,
    /// Per factor: the node of a key.
    tables: Vec<HashMap<u64, u32>>,
    nodes: Vec<Node>,
    slots: Vec<Slot<G::Move>>,
    max_nodes: usize,
    /// Bytes of nodes, moves and tables at most ([`Factored::bytes`]).
    max_bytes: usize,
    /// Iterations run: the stamp of the nodes they visit.
    clock: u64,
    /// The state searched from.
    root: G::State,
    /// Per role at the root: its legal moves, and the node of its choice (made by
    /// [`Factored::begin`]).
    root_legal: Vec<Vec<G::Move>>,
    root_nodes: Vec<Option<u32>>,
    playout: Playout<G>,
    /// The tactical checks, when asked for.
    checker: Option<Checker<G>>,
    /// The buffers of an iteration.
    state: Option<G::State>,
    next: Option<G::State>,
    legal: Vec<Vec<G::Move>>,
    joint: Vec<G::Move>,
    /// Per role: the factor of its choice at this step, if it has one.
    choice: Vec<Option<usize>>,
    /// The slots picked on the way down.
    path: Vec<u32>,
    /// With the checks: per slot picked on the way down, its factor and its node.
    trail: Vec<(u32, u32)>,
    /// Per factor: the node of the pick below, going up [`Factored::trail`].
    below: Vec<Option<u32>>,
    goals: Vec<f64>,
}

/// How a search runs.
pub(super) struct Limits {
    pub exploration: f64,
    /// Steps of an iteration at most (the rest of the game is scored 0.5).
    pub max_steps: usize,
    pub max_iterations: Option<u64>,
    pub deadline: Instant,
}

impl<G: Game> Factored<G> {
    /// The trees of `found`, of at most `max_nodes` nodes and `max_bytes` bytes; with
    /// `checks`, the moves of nodes visited twice are checked ([`super::factor_checks`]).
    pub(super) fn new(
        game: &G,
        found: Found<G>,
        max_nodes: usize,
        max_bytes: usize,
        playout: Playout<G>,
        checks: bool,
    ) -> Self {
        let roles = game.role_count();
        let initial = game.initial_state();
        let Found { factors, ids } = found;
        Factored {
            playout,
            checker: checks.then(|| Checker::new(&initial, roles)),
            tables: vec![HashMap::new(); factors.len()],
            factors,
            ids,
            nodes: Vec::new(),
            slots: Vec::new(),
            max_nodes: max_nodes.max(1),
            max_bytes,
            clock: 0,
            next: Some(initial.clone()),
            state: Some(initial.clone()),
            root: initial,
            root_legal: vec![Vec::new(); roles],
            root_nodes: vec![None; roles],
            legal: vec![Vec::new(); roles],
            joint: Vec::with_capacity(roles),
            choice: vec![None; roles],
            path: Vec::new(),
            trail: Vec::new(),
            below: Vec::new(),
            goals: Vec::new(),
        }
    }

    /// What the trees are: "2 factors (...)", and ", moves checked" with the tactical checks.
    pub(super) fn describe(&self) -> String {
        match self.checker {
            Some(_) => format!("{}, moves checked", self.factors.describe()),
            None => self.factors.describe(),
        }
    }

    /// The nodes held.
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The bytes the trees' nodes hold: the nodes, their moves, and their entries in the
    /// tables (a key, a node and a control byte each, at the tables' load). The vectors
    /// and tables keep the room of the most held (up to twice that, as they grow by doubling).
    pub(super) fn bytes(&self) -> usize {
        let entries: usize = self.tables.iter().map(HashMap::len).sum();
        self.nodes.len() * std::mem::size_of::<Node>()
            + self.slots.len() * std::mem::size_of::<Slot<G::Move>>()
            + entries * (std::mem::size_of::<(u64, u32)>() + 1) * 8 / 7
    }

    /// Whether the trees are full: no room for `more` nodes within the budgets.
    fn full(&self, more: usize) -> bool {
        self.nodes.len() + more > self.max_nodes || self.bytes() >= self.max_bytes
    }

    /// The playouts' buffers and statistics (for tests).
    #[cfg(test)]
    pub(super) fn playout_mut(&mut self) -> &mut Playout<G> {
        &mut self.playout
    }

    /// The state searched from.
    pub(super) fn root(&self) -> &G::State {
        &self.root
    }

    /// A new search from `state` (a move of the match). When the store is more than half
    /// full, the half of it visited least recently is freed first.
    pub(super) fn begin(&mut self, game: &G, state: &G::State) {
        self.root.clone_from(state);
        self.playout.decay();
        if self.nodes.len() > self.max_nodes / 2 || self.bytes() > self.max_bytes / 2 {
            self.free_half();
        }
        self.clock += 1;
        self.find_root(game);
    }

    /// Frees every node; the root's choices are made again.
    pub(super) fn clear(&mut self, game: &G) {
        self.keep(|_| false);
        self.find_root(game);
    }

    /// Frees the half of the nodes visited least recently.
    fn free_half(&mut self) {
        let mut stamps: Vec<u64> = self.nodes.iter().map(|n| n.stamp).collect();
        let mid = stamps.len() / 2;
        if mid == 0 {
            return;
        }
        let (_, &mut threshold, _) = stamps.select_nth_unstable(mid);
        self.keep(|n| n.stamp > threshold);
    }

    /// Sets each role's legal moves at the root and the node of its choice there (made if
    /// need be).
    fn find_root(&mut self, game: &G) {
        self.root_nodes.iter_mut().for_each(|n| *n = None);
        self.root_legal.iter_mut().for_each(Vec::clear);
        let root = self.root.clone();
        if !self.prepare(game, &root) {
            return;
        }
        self.root_legal.clone_from(&self.legal);
        let Some(bits) = game.fact_bits(&root) else {
            return;
        };
        for r in 0..self.legal.len() {
            if let Some(f) = self.choice[r] {
                self.root_nodes[r] = self.node(f, bits).map(|n| n.0);
            }
        }
    }

    /// Keeps the nodes `keep` says (and their moves), renumbered in place: the tables keep
    /// their room and are not rebuilt.
    fn keep(&mut self, keep: impl Fn(&Node) -> bool) {
        let mut renumbered: Vec<Option<u32>> = vec![None; self.nodes.len()];
        let (mut nodes, mut slots) = (0usize, 0usize);
        for (i, renumber) in renumbered.iter_mut().enumerate() {
            let n = self.nodes[i];
            if !keep(&n) {
                continue;
            }
            let (from, len) = (n.start as usize, n.len as usize);
            self.slots.copy_within(from..from + len, slots);
            self.nodes[nodes] = Node {
                start: slots as u32,
                ..n
            };
            *renumber = Some(nodes as u32);
            nodes += 1;
            slots += len;
        }
        self.nodes.truncate(nodes);
        self.slots.truncate(slots);
        for t in &mut self.tables {
            t.retain(|_, n| match renumbered[*n as usize] {
                Some(new) => {
                    *n = new;
                    true
                }
                None => false,
            });
        }
    }

    /// Sets `legal` to every role's legal moves in `state` and `choice` to the factor of each
    /// role's choice; false when a role has no legal move.
    fn prepare(&mut self, game: &G, state: &G::State) -> bool {
        for r in 0..self.legal.len() {
            let legal = &mut self.legal[r];
            legal.clear();
            game.legal_moves(state, r, legal);
            if legal.is_empty() {
                return false;
            }
            self.choice[r] = self.factors.of_choice(&self.ids, game, r, legal);
        }
        true
    }

    /// The node of factor `f` at `bits`, made (with the moves of the roles choosing in it)
    /// when there is room; and whether it was made.
    fn node(&mut self, f: usize, bits: &[u64]) -> Option<(u32, bool)> {
        let key = self.factors.key(f, bits);
        if let Some(&n) = self.tables[f].get(&key) {
            self.nodes[n as usize].stamp = self.clock;
            return Some((n, false));
        }
        if self.full(1) {
            return None;
        }
        let start = self.slots.len() as u32;
        for (r, legal) in self.legal.iter().enumerate() {
            if self.choice[r] == Some(f) {
                self.slots.extend(legal.iter().map(|&mv| Slot {
                    role: r as u32,
                    mv,
                    visits: 0,
                    sum: 0.0,
                    mark: Mark::Open,
                }));
            }
        }
        let n = self.nodes.len() as u32;
        self.nodes.push(Node {
            start,
            len: self.slots.len() as u32 - start,
            stamp: self.clock,
            checked: false,
        });
        self.tables[f].insert(key, n);
        Some((n, true))
    }

    /// Marks role `r`'s moves in node `n` of factor `f` at `state` (when checks are asked
    /// for and `r` is the only role choosing in the node).
    fn check(&mut self, game: &G, state: &G::State, n: u32, (r, f): (RoleIndex, usize)) {
        let node = &mut self.nodes[n as usize];
        node.checked = true;
        let Some(checker) = &mut self.checker else {
            return;
        };
        let range = node.start as usize..(node.start + node.len) as usize;
        if self.slots[range.clone()]
            .iter()
            .any(|s| s.role as usize != r)
        {
            return;
        }
        for i in range {
            let mv = self.slots[i].mv;
            if self.legal[r].contains(&mv) {
                self.slots[i].mark = checker.mark(
                    game,
                    &self.factors,
                    &self.ids,
                    state,
                    &self.legal,
                    (r, f),
                    mv,
                );
            }
        }
    }

    /// The marks found below, going up this iteration's picks in each factor (with the
    /// checks): a move after which the next role to choose in the factor is a rival with a
    /// move marked a win is marked a loss; one after which every move of that rival is marked
    /// a loss is marked a win (it threatens two wins at once, say); after which the same role
    /// chooses again, the best of its marks there. Only moves still open are marked: so the
    /// marks of a factor's tree grow into proofs as deep as the checked nodes go.
    fn prove(&mut self) {
        if self.trail.len() != self.path.len() {
            return;
        }
        self.below.clear();
        self.below.resize(self.tables.len(), None);
        for k in (0..self.path.len()).rev() {
            let (f, n) = self.trail[k];
            let i = self.path[k] as usize;
            let child = self.below[f as usize].replace(n);
            let Some(child) = child else { continue };
            if self.slots[i].mark != Mark::Open {
                continue;
            }
            if let Some(mark) = self.mark_above(child, self.slots[i].role) {
                self.slots[i].mark = mark;
            }
        }
    }

    /// The mark of a move of `role` after which the factor's next choice is in node `n`
    /// ([`Factored::prove`]), when its marks say.
    fn mark_above(&self, n: u32, role: u32) -> Option<Mark> {
        let node = self.nodes[n as usize];
        let slots = &self.slots[node.start as usize..(node.start + node.len) as usize];
        let chooser = slots.first()?.role;
        if !node.checked || slots.iter().any(|s| s.role != chooser) {
            return None;
        }
        let win = slots.iter().any(|s| s.mark == Mark::Win);
        let lost = slots.iter().all(|s| s.mark == Mark::Loss);
        match (chooser == role, win, lost) {
            (false, true, _) | (true, _, true) => Some(Mark::Loss),
            (false, _, true) | (true, true, _) => Some(Mark::Win),
            _ => None,
        }
    }

    /// UCB1's pick of role `r`'s slot in node `n` among its legal moves (`None`: the node
    /// holds none of them); a move not tried yet first, at random.
    fn pick(&self, n: u32, r: RoleIndex, c: f64, rng: &mut SplitMix64) -> Option<u32> {
        let node = self.nodes[n as usize];
        let (legal, slots) = (&self.legal[r], &self.slots);
        let own =
            (node.start..node.start + node.len).filter(|&i| slots[i as usize].role as usize == r);
        // The node's moves are the legal ones in their order, unless legality depends on facts
        // outside the factor: only then is each looked up.
        let all_legal = own.clone().map(|i| &slots[i as usize].mv).eq(legal.iter());
        let legal_own = own.filter(|&i| all_legal || legal.contains(&slots[i as usize].mv));
        // Among the wins found, else among the moves not found to lose.
        let best = legal_own.clone().map(|i| slots[i as usize].mark).max()?;
        let ours = legal_own.filter(|&i| slots[i as usize].mark == best);
        let (mut total, mut fresh) = (0u32, 0usize);
        for i in ours.clone() {
            let v = slots[i as usize].visits;
            total += v;
            fresh += usize::from(v == 0);
        }
        if fresh > 0 {
            let k = rng.below(fresh);
            return ours.filter(|&i| slots[i as usize].visits == 0).nth(k);
        }
        let log = f64::from(total.max(1)).ln();
        let score = |i: u32| {
            let s = &slots[i as usize];
            let v = f64::from(s.visits);
            s.sum / v + c * (log / v).sqrt()
        };
        ours.max_by(|&a, &b| score(a).total_cmp(&score(b)))
    }

    /// What the decisive steps of the playouts found so far (decisive and anti-decisive
    /// playouts).
    pub(super) fn decisive_counts(&self) -> Option<super::decisive::Counts> {
        self.playout.decisive_counts()
    }

    /// Iterations from the root until the limits; how many ran.
    /// Also stops soon after `stop` is set.
    pub(super) fn search(
        &mut self,
        game: &G,
        rng: &mut SplitMix64,
        limits: &Limits,
        stop: &AtomicBool,
    ) -> u64 {
        let mut done = 0u64;
        while limits.max_iterations.is_none_or(|m| done < m) {
            if done % 8 == 0 && (stop.load(Ordering::Relaxed) || Instant::now() >= limits.deadline)
            {
                break;
            }
            // Room for the nodes of an iteration's step (a factor each).
            if self.full(self.tables.len()) {
                self.free_half();
                self.find_root(game);
            }
            self.clock += 1;
            self.iterate(game, rng, limits);
            done += 1;
        }
        done
    }

    /// One iteration from the root.
    fn iterate(&mut self, game: &G, rng: &mut SplitMix64, limits: &Limits) {
        let roles = self.legal.len();
        self.path.clear();
        self.trail.clear();
        let (Some(mut state), Some(mut next)) = (self.state.take(), self.next.take()) else {
            return;
        };
        state.clone_from(&self.root);
        let mut steps = 0;
        let mut made = false;
        while !made && steps < limits.max_steps && !game.is_terminal(&state) {
            if !self.prepare(game, &state) {
                break;
            }
            self.joint.clear();
            for r in 0..roles {
                self.joint.push(self.legal[r][0]);
            }
            let Some(bits) = game.fact_bits(&state) else {
                break;
            };
            for r in 0..roles {
                let Some(f) = self.choice[r] else { continue };
                let found = self.node(f, bits);
                let picked = match found {
                    Some((n, fresh)) => {
                        made |= fresh;
                        if !fresh && !self.nodes[n as usize].checked {
                            self.check(game, &state, n, (r, f));
                        }
                        self.pick(n, r, limits.exploration, rng)
                    }
                    None => None,
                };
                self.joint[r] = match picked {
                    Some(i) => {
                        self.path.push(i);
                        if let Some((n, _)) = self.checker.as_ref().and(found) {
                            self.trail.push((f as u32, n));
                        }
                        self.slots[i as usize].mv
                    }
                    None => self.legal[r][rng.below(self.legal[r].len())],
                };
            }
            game.next_state(&state, &self.joint, &mut next);
            std::mem::swap(&mut state, &mut next);
            steps += 1;
        }
        let left = limits.max_steps.saturating_sub(steps);
        self.goals.clear();
        self.goals
            .extend_from_slice(self.playout.run(game, &state, rng, left));
        self.goals.resize(roles, 0.5);
        // MAST and NST learn the playout's moves (the trees' moves are not noted).
        self.playout.learn(&self.goals);
        for &i in &self.path {
            let slot = &mut self.slots[i as usize];
            slot.visits += 1;
            slot.sum += self.goals[slot.role as usize];
        }
        self.prove();
        self.state = Some(state);
        self.next = Some(next);
    }

    /// The store holds together: every node is in its factor's table once, and the nodes' moves
    /// follow each other in the slots.
    #[cfg(test)]
    pub(super) fn consistent(&self) -> bool {
        let mut seen = vec![0usize; self.nodes.len()];
        for t in &self.tables {
            for &n in t.values() {
                match seen.get_mut(n as usize) {
                    Some(count) => *count += 1,
                    None => return false,
                }
            }
        }
        let mut next = 0u32;
        let follow = self.nodes.iter().all(|n| {
            let ok = n.start == next;
            next = n.start + n.len;
            ok
        });
        follow && next as usize == self.slots.len() && seen.iter().all(|&c| c == 1)
    }

    /// Role `role`'s moves in its node at the root with their marks.
    #[cfg(test)]
    pub(super) fn root_marks(&self, role: RoleIndex) -> Vec<(G::Move, Mark)> {
        let Some(&Some(n)) = self.root_nodes.get(role) else {
            return Vec::new();
        };
        let node = self.nodes[n as usize];
        self.slots[node.start as usize..(node.start + node.len) as usize]
            .iter()
            .filter(|s| s.role as usize == role)
            .map(|s| (s.mv, s.mark))
            .collect()
    }

    /// Role `role`'s moves at the root with their statistics: those of the node of its
    /// choice, or its legal moves unvisited when it has no node there.
    pub(super) fn root_moves(&self, role: RoleIndex) -> Vec<RootMove<G::Move>> {
        let Some(&Some(n)) = self.root_nodes.get(role) else {
            // No choice (one legal move), or no room for its node: the legal moves unvisited.
            let legal = self.root_legal.get(role).map_or(&[][..], Vec::as_slice);
            return legal
                .iter()
                .map(|&mv| RootMove {
                    mv,
                    visits: 0,
                    sum: 0.0,
                    proven: None,
                })
                .collect();
        };
        let node = self.nodes[n as usize];
        self.slots[node.start as usize..(node.start + node.len) as usize]
            .iter()
            .filter(|s| s.role as usize == role && self.root_legal[role].contains(&s.mv))
            .map(|s| RootMove {
                mv: s.mv,
                visits: u64::from(s.visits),
                sum: s.sum,
                // A move marked a win is played, one marked a loss avoided.
                proven: match s.mark {
                    Mark::Win => Some(1.0),
                    Mark::Loss => Some(0.0),
                    Mark::Open => None,
                },
            })
            .collect()
    }
}
