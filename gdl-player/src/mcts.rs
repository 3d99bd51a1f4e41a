//! Monte Carlo tree search over a flat node store: UCT with decoupled statistics per role,
//! proven values (MCTS-Solver, generalised to any number of roles), transpositions, recycling
//! of the least recently visited nodes and tree reuse without a copy.
//!
//! Nodes live in [`store::Store`]: fixed-size records, their moves, statistics and child
//! edges in flat arenas, and a transposition table from a state to its node (a state reached
//! by two move orders has one node). An iteration descends from the root: in each node every
//! role picks its move by UCB1 on its own statistics ([`select::pick`]), the joint move's edge
//! leads to the child, or, not made yet, the next state is computed and looked up in the
//! table; a state not in the store gets a new node, from which a playout
//! ([`policy::Playout`]: uniform, MAST, NST, with or without decisive checks; cut short by a
//! learnt evaluation, [`heuristic`], where one is used) gives every role's goal in 0..1, and
//! the path is updated role by role (with [`crate::AmafMode`] on, also each node's
//! all-moves-as-first statistics, which selection then mixes in: [`amaf`]). A child already
//! on the path (the game came back to a state) ends the descent with a playout from it, so
//! cycles of states cannot loop; so does a path as long as the playout limit.
//!
//! When the store is full, the nodes least recently visited are freed ([`store`]), so the
//! tree never stops growing. Between moves nothing is copied: the root becomes the node of the
//! state reached (through the table), and the nodes that are no longer reachable are freed by
//! the same sweeps when room is needed.
//!
//! Proven nodes ([`select`] says when a node is proven) are not played out again: an iteration
//! that reaches one backs up its exact goals, which each node on the way up records as the
//! proof of the move taken (once), and a node proven so backs up its own. In a turn node the
//! mover never selects a move proven worse than another and the value of a proven move is
//! exact in its UCB1 score. The search stops when the root is proven. The move played is a
//! proven win when there is one, the best proven move when all are proven, otherwise the most
//! visited one of those not proven worse than another.

mod amaf;
mod arena;
mod decisive;
mod expand;
mod exploration;
mod factor_checks;
mod factored;
mod factors;
mod heuristic;
mod move_ids;
mod nested;
mod opponents;
mod parallel;
mod placement;
mod policy;
#[cfg(test)]
mod probes;
mod puzzle;
mod select;
mod simultaneous;
mod solve;
mod start;
mod store;
pub mod tuning;

pub use heuristic::{Feature, Heuristic, Whole, candidate_features};
pub use parallel::ParallelMcts;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use policy::Playout;
use simultaneous::Strategies;
use store::{Kind, Store, state_hash};

use super::root::{RootMove, choose_root};
use super::{AmafMode, Expansion, MctsOptions, Player, PlayoutPolicy, SearchStats};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The buffers of an iteration, kept across iterations (and MAST's statistics across moves).
struct Scratch<G: Game> {
    playout: Playout<G>,
    next: G::State,
    joint: Vec<G::Move>,
    /// The nodes of the path taken, from the root.
    path: Vec<u32>,
    /// The joint move (a move index per role) taken in each node of `path`, one after the
    /// other.
    keys: Vec<u32>,
    goals: Vec<f64>,
    /// The statistics of simultaneous-move nodes (regret matching, Exp3).
    simultaneous: Strategies,
    /// The best line found in a game of one role.
    best: puzzle::BestLine<G>,
    /// The nested Monte Carlo search that offers `best` lines in a game of one role, when the
    /// search is timed.
    nested: Option<nested::Nested<G>>,
    /// The exact search that offers `best` lines in a game of one role, when the search is
    /// timed.
    solver: Option<solve::Solver<G>>,
    /// Decisive expansion's buffers, when the options ask for it.
    expand: Option<expand::Expander<G>>,
    /// RAVE / GRAVE's state of an iteration, when on.
    amaf: Option<amaf::Amaf>,
}

/// The UCT player over the flat node store.
pub struct Mcts<G: Game> {
    options: MctsOptions,
    role: RoleIndex,
    rng: SplitMix64,
    store: Option<Store<G>>,
    root: u32,
    /// The iterations run since the store was made: the stamp of the nodes they visit.
    tick: u64,
    scratch: Option<Scratch<G>>,
    stats: SearchStats,
    /// What the measurement at the start clock chose ([`tuning`]), for the report.
    tuned: Option<String>,
    /// The playout policy of the options given ([`PlayoutPolicy::Auto`] is measured again at
    /// each start).
    asked: PlayoutPolicy,
    /// The AMAF mode of the options given ([`AmafMode::Auto`] is measured again at each
    /// start), and what the measurement chose.
    amaf_asked: AmafMode,
    amaf_chosen: Option<amaf::Chosen>,
    /// The evaluation learnt at the start clock that cuts playouts short, if any.
    heuristic: Option<Heuristic>,
    /// The exploration constant of UCB1, as set at the start clock.
    exploration: exploration::Chosen,
    /// What the match showed of the other roles ([`opponents`]).
    opponents: opponents::Opponents,
    /// The trees of a game the start clock found factored ([`factors`]); then the search
    /// runs there, not in `store`.
    factored: Option<factored::Factored<G>>,
}

impl<G: Game> Mcts<G> {
    pub fn new(options: MctsOptions) -> Self {
        let exploration = exploration::Chosen {
            constant: options.exploration.constant_or_baseline(),
            length: None,
        };
        Mcts {
            rng: SplitMix64::new(options.seed),
            asked: options.playout,
            amaf_asked: options.amaf.mode,
            amaf_chosen: None,
            options,
            role: 0,
            store: None,
            root: 0,
            tick: 0,
            scratch: None,
            stats: SearchStats::default(),
            tuned: None,
            heuristic: None,
            exploration,
            opponents: opponents::Opponents::default(),
            factored: None,
        }
    }

    /// What the last [`Player::choose`] did.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// What the start clock chose, for a report: each part after `, ` or `; ` (empty when it
    /// chose nothing).
    pub fn settings(&self) -> String {
        let mut settings = heuristic::describe(self.heuristic.as_ref());
        if let Some(t) = &self.tuned {
            settings.push_str(&format!("; playout auto: {t}"));
        }
        if let Some(a) = self.amaf_chosen.filter(|_| self.factored.is_none()) {
            settings.push_str(&format!("; amaf auto: {a}"));
        }
        if self.exploration.length.is_some() {
            settings.push_str(&format!("; {}", self.exploration));
        }
        if let Some(f) = &self.factored {
            settings.push_str(&format!("; a tree per factor: {}", f.describe()));
        }
        if let Some(o) = self.opponents.describe() {
            settings.push_str(&format!("; {o}"));
        }
        settings
    }

    /// What the decisive steps of this match's playouts found (decisive and anti-decisive
    /// playouts).
    fn decisive_counts(&self) -> Option<decisive::Counts> {
        if let Some(f) = &self.factored {
            return f.decisive_counts();
        }
        self.scratch.as_ref()?.playout.decisive_counts()
    }

    /// The evaluation learnt at the start clock that the search uses, if any.
    pub fn heuristic(&self) -> Option<&Heuristic> {
        self.heuristic.as_ref()
    }

    /// The nodes in the store (reachable from the root or not yet freed).
    pub fn tree_size(&self) -> usize {
        if let Some(f) = &self.factored {
            return f.len();
        }
        self.store.as_ref().map_or(0, Store::len)
    }

    /// Drops the tree (another engine plays on): what the start clock chose stays, and the
    /// next search grows a fresh tree from its root.
    pub fn forget_tree(&mut self, game: &G) {
        self.store = None;
        self.scratch = None;
        if let Some(f) = &mut self.factored {
            f.clear(game);
        }
    }

    /// The state at the root of the tree, if there is a tree.
    pub fn root_state(&self) -> Option<&G::State> {
        if let Some(f) = &self.factored {
            return Some(f.root());
        }
        Some(&self.store.as_ref()?.states[self.root as usize])
    }

    /// The root's exact goals (0..1, in role order) when it is proven.
    pub fn root_proven(&self) -> Option<&[f64]> {
        let store = self.store.as_ref()?;
        store.nodes[self.root as usize]
            .proven
            .then(|| store.goals(self.root))
    }

    /// The player's moves at the root with their visits and proofs (empty without a tree or
    /// at a leaf).
    pub fn root_moves(&self) -> Vec<RootMove<G::Move>> {
        if let Some(f) = &self.factored {
            return f.root_moves(self.role);
        }
        let Some(store) = &self.store else {
            return Vec::new();
        };
        if store.nodes[self.root as usize].kind == Kind::Leaf || self.role >= store.roles() {
            return Vec::new();
        }
        let proofs = select::proven_moves(store, self.root, self.role);
        store
            .moves(self.root, self.role)
            .iter()
            .zip(proofs)
            .map(|(m, proven)| RootMove {
                mv: m.mv,
                visits: u64::from(m.visits),
                sum: m.sum,
                proven,
            })
            .collect()
    }

    /// The player's average strategy at the root (a chance per move of
    /// [`Mcts::root_moves`]) when the root is a simultaneous-move node searched by regret
    /// matching or Exp3.
    pub(super) fn root_strategy(&self) -> Option<Vec<f64>> {
        let store = self.store.as_ref()?;
        let s = &self.scratch.as_ref()?.simultaneous;
        s.root_strategy(store, self.root, self.role)
    }

    /// The best line's next move from the root and the goal (0..1) it reaches, in a game of
    /// one role.
    pub(super) fn best_line_move(&self) -> Option<(G::Move, f64)> {
        let state = self.root_state()?;
        self.scratch.as_ref()?.best.next_move(state)
    }

    /// A new tree from `state`: after a role is judged random, its nodes become chance nodes.
    fn search_again(&mut self, game: &G, state: &G::State) {
        self.store = None;
        self.scratch = None;
        self.set_root(game, state);
    }

    /// Makes `state` the root: the root already, a node of the store, or a new one.
    fn set_root(&mut self, game: &G, state: &G::State) {
        if let Some(f) = &mut self.factored {
            f.begin(game, state);
            return;
        }
        self.tick += 1;
        let options = &self.options;
        let random = self.opponents.random();
        let store = self
            .store
            .get_or_insert_with(|| new_store(game, options, random));
        if store.len() > 0 && store.states[self.root as usize] == *state {
            return;
        }
        let hash = state_hash(state);
        let found = store.find(hash, state);
        let root = found.or_else(|| store.add(game, state, hash, self.tick, self.root));
        match root {
            Some(r) => self.root = r,
            // A full store of nodes all visited now cannot be: start again.
            None => {
                *store = new_store(game, options, random);
                self.root = store.add(game, state, hash, self.tick, 0).unwrap_or(0);
            }
        }
        store.nodes[self.root as usize].stamp = self.tick;
    }

    /// Runs iterations until `deadline`, the iteration budget or a proven root; returns how
    /// many ran.
    pub fn search(&mut self, game: &G, deadline: Instant) -> u64 {
        self.search_until(game, deadline, &AtomicBool::new(false))
    }

    /// [`Mcts::search`] that also stops soon after `stop` is set, and sets it when the root
    /// is proven.
    fn search_until(&mut self, game: &G, deadline: Instant, stop: &AtomicBool) -> u64 {
        if let Some(f) = &mut self.factored {
            let limits = factored::Limits {
                exploration: self.exploration.constant,
                max_steps: self.options.max_playout_steps,
                max_iterations: self.options.max_iterations,
                deadline,
            };
            return f.search(game, &mut self.rng, &limits, stop);
        }
        let Some(store) = &mut self.store else {
            return 0;
        };
        let state = &store.states[self.root as usize];
        let keep_line = self.options.best_line && store.roles() == 1;
        let scratch = self.scratch.get_or_insert_with(|| Scratch {
            playout: Playout::new(game, state, self.options.playout)
                .with_decisive_steps(self.options.decisive_steps)
                .with_heuristic(self.heuristic.clone()),
            next: state.clone(),
            joint: Vec::new(),
            path: Vec::new(),
            keys: Vec::new(),
            goals: Vec::new(),
            simultaneous: Strategies::new(self.options.simultaneous),
            best: puzzle::BestLine::new(),
            nested: None,
            solver: None,
            expand: match self.options.expansion {
                Expansion::Auto if players(game) < MANY_PLAYERS => None,
                Expansion::Plain => None,
                Expansion::Auto | Expansion::Decisive => Some(expand::Expander::new(state, false)),
                Expansion::DecisiveAtOnce => Some(expand::Expander::new(state, true)),
            },
            amaf: amaf::Amaf::new(self.options.amaf),
        });
        if let Some(e) = &mut scratch.expand
            && store.nodes[self.root as usize].total == 0
        {
            e.check(game, store, self.root);
        }
        if scratch.amaf.is_some() && scratch.playout.joints().is_none() {
            scratch.playout.keep_joints();
        }
        if keep_line && scratch.playout.line().is_none() {
            scratch.playout.keep_line();
        }
        // A timed search of a puzzle takes turns with nested Monte Carlo search and the exact
        // search.
        let nested = keep_line && self.options.max_iterations.is_none();
        let mut until = match nested {
            true => puzzle::turn(game, store, self.root, scratch, &self.options, deadline),
            false => deadline,
        };
        let mut done = 0u64;
        while self.options.max_iterations.is_none_or(|m| done < m) {
            let root = &store.nodes[self.root as usize];
            if root.proven {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            if root.kind == Kind::Leaf {
                break;
            }
            // The clock is read every few iterations: a playout is short next to a deadline.
            if done % 8 == 0 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let now = Instant::now();
                if now >= until {
                    if !nested || now >= deadline {
                        break;
                    }
                    until = puzzle::turn(game, store, self.root, scratch, &self.options, deadline);
                }
            }
            self.tick += 1;
            let search = Search {
                game,
                options: &self.options,
                exploration: self.exploration.constant,
                root: self.root,
                tick: self.tick,
            };
            search.iterate(store, &mut self.rng, scratch);
            if keep_line {
                puzzle::offer_iteration(game, store, self.root, scratch);
            }
            done += 1;
        }
        done
    }

    /// The move chosen at the root after a search of `iterations`, and the stats.
    fn decide(&mut self, iterations: u64) -> Option<G::Move> {
        let moves = self.root_moves();
        let mixed = self
            .root_strategy()
            .and_then(|s| simultaneous::draw(&s, &mut self.rng));
        let line = self.best_line_move();
        let chosen = puzzle::prefer(line, &moves)
            .or(mixed)
            .or_else(|| choose_root(&moves).map(|(i, _)| i))
            .map(|i| moves[i]);
        let proven = self.root_proven().map(|g| g.get(self.role).copied());
        self.stats = SearchStats {
            iterations,
            nodes: self.tree_size(),
            value: match (proven, chosen) {
                (Some(Some(v)), _) => v,
                (_, Some(c)) if line.is_some_and(|l| l.0 == c.mv) => line.map_or(0.0, |l| l.1),
                (_, Some(c)) => c.value(),
                _ => 0.0,
            },
            proven: proven.is_some(),
        };
        chosen.map(|c| c.mv)
    }
}

/// From this many roles choosing (not `random`), a mover's rivals are more than the next
/// mover: the start clock times decisive playouts instead of anti-decisive ones
/// ([`tuning::DecisiveRule`]), and [`Expansion::Auto`] expands decisively.
const MANY_PLAYERS: usize = 3;

/// The roles of `game` that choose their moves (not GDL-II's `random`).
fn players<G: Game>(game: &G) -> usize {
    (0..game.role_count())
        .filter(|&r| !game.is_random_role(r))
        .count()
}

/// An empty store for `game` as `options` say; `random`: the roles searched as random
/// ([`opponents`]).
fn new_store<G: Game>(game: &G, options: &MctsOptions, random: u64) -> Store<G> {
    let mut store = Store::new(game.role_count(), options.max_nodes, options.max_memory);
    store.search_as_random(random);
    if amaf::Amaf::new(options.amaf).is_some() {
        store.keep_amaf(game);
    }
    store
}

/// The move indices of `joint` in node `n`.
fn joint_key<G: Game>(store: &Store<G>, n: u32, joint: &[G::Move]) -> Option<Vec<u32>> {
    if joint.len() != store.roles() {
        return None;
    }
    joint
        .iter()
        .enumerate()
        .map(|(r, m)| {
            let moves = store.moves(n, r);
            moves.iter().position(|s| s.mv == *m).map(|i| i as u32)
        })
        .collect()
}

/// What one iteration needs besides the store.
struct Search<'a, G: Game> {
    game: &'a G,
    options: &'a MctsOptions,
    /// The UCB1 constant ([`exploration`]).
    exploration: f64,
    root: u32,
    tick: u64,
}

impl<G: Game> Search<'_, G> {
    /// One iteration: descend, expand, play out, update the path (and the proofs).
    fn iterate(&self, store: &mut Store<G>, rng: &mut SplitMix64, scratch: &mut Scratch<G>) {
        let Scratch {
            playout,
            next,
            joint,
            path,
            keys,
            goals,
            simultaneous,
            best: _,
            nested: _,
            solver: _,
            expand,
            amaf,
        } = scratch;
        let game = self.game;
        let steps = self.options.max_playout_steps;
        let roles = store.roles();
        path.clear();
        keys.clear();
        goals.clear();
        let mixed = simultaneous.active();
        if mixed {
            simultaneous.clear_path();
        }
        // Whether the node the iteration ended in is proven (its goals exact).
        let mut proving = false;
        // Whether a playout ran (its moves count for AMAF).
        let mut ran = false;
        if let Some(a) = amaf {
            a.begin();
        }
        let mut n = self.root;
        loop {
            let node = store.nodes[n as usize];
            if node.proven || node.kind == Kind::Leaf {
                goals.extend_from_slice(store.goals(n));
                proving = node.proven;
                break;
            }
            // Decisive expansion at a node's first descent.
            if node.total == 0
                && let Some(e) = expand.as_mut().filter(|e| !e.at_once())
                && e.check(game, store, n)
            {
                goals.extend_from_slice(store.goals(n));
                proving = true;
                break;
            }
            if path.len() >= steps {
                let state = &store.states[n as usize];
                goals.extend_from_slice(playout.run(game, state, rng, steps));
                ran = true;
                break;
            }
            let start = keys.len();
            if let Some(a) = amaf.as_mut() {
                a.enter(store, n);
            }
            for r in 0..roles {
                if let Some(a) = amaf.as_mut() {
                    a.prepare(store, n, r);
                }
                let prior = amaf.as_ref().and_then(|a| a.prior(store, n, r));
                let c = self.exploration;
                let i = match mixed {
                    true if node.kind == Kind::Simultaneous => {
                        simultaneous.pick(store, game, rng, n, r)
                    }
                    true => {
                        simultaneous.push_sure();
                        select::pick(store, game, rng, c, n, r, prior.as_ref())
                    }
                    false => select::pick(store, game, rng, c, n, r, prior.as_ref()),
                };
                keys.push(i);
            }
            path.push(n);
            let key = &keys[start..];
            let edge = store.edge_index(n, key);
            let mut child = edge.and_then(|e| store.child(n, e));
            if child.is_none() {
                joint.clear();
                joint.extend((0..roles).map(|r| store.moves(n, r)[key[r] as usize].mv));
                game.next_state(&store.states[n as usize], joint, next);
                let hash = state_hash(&*next);
                child = store.find(hash, next);
                if child.is_none() {
                    match store.add(game, next, hash, self.tick, self.root) {
                        Some(c) => {
                            if let Some(e) = edge {
                                store.set_child(n, e, c);
                            }
                            if let Some(e) = expand.as_mut().filter(|e| e.at_once()) {
                                e.check(game, store, c);
                            }
                            let made = store.nodes[c as usize];
                            if made.proven || made.kind == Kind::Leaf {
                                proving = made.proven;
                                goals.extend_from_slice(store.goals(c));
                            } else {
                                let state = &store.states[c as usize];
                                goals.extend_from_slice(playout.run(game, state, rng, steps));
                                ran = true;
                            }
                        }
                        None => {
                            goals.extend_from_slice(playout.run(game, next, rng, steps));
                            ran = true;
                        }
                    }
                    break;
                }
                if let (Some(e), Some(c)) = (edge, child) {
                    store.set_child(n, e, c);
                }
            }
            let Some(c) = child else { break };
            if store.nodes[c as usize].stamp == self.tick {
                // On the path already: the game came back to this state.
                let state = &store.states[c as usize];
                goals.extend_from_slice(playout.run(game, state, rng, steps));
                ran = true;
                break;
            }
            store.nodes[c as usize].stamp = self.tick;
            n = c;
        }
        goals.resize(roles, 0.5);
        let learns = playout.learns();
        for (k, &n) in path.iter().enumerate().filter(|_| learns) {
            for r in 0..roles {
                let moves = store.moves(n, r);
                if moves.len() > 1 {
                    // The previous role's move at the node before (NST's pairs).
                    let p = (r + roles - 1) % roles;
                    let before = k
                        .checked_sub(1)
                        .map(|j| store.moves(path[j], p)[keys[j * roles + p] as usize].mv);
                    playout.note(game, r, moves[keys[k * roles + r] as usize].mv, before);
                }
            }
        }
        playout.learn(goals);
        if let Some(a) = amaf.as_mut() {
            a.played_out(store, game, playout.joints().filter(|_| ran));
        }
        for (k, &n) in path.iter().enumerate().rev() {
            let key = &keys[k * roles..(k + 1) * roles];
            if let Some(a) = amaf.as_mut() {
                a.update(store, n, key, goals);
            }
            store.nodes[n as usize].total += 1;
            if mixed && store.nodes[n as usize].kind == Kind::Simultaneous {
                simultaneous.update(store, n, k, key, goals);
            }
            for (r, &i) in key.iter().enumerate() {
                let slot = &mut store.moves_mut(n, r)[i as usize];
                slot.visits += 1;
                slot.sum += goals[r];
            }
            // `goals` are the exact goals of the child proven: this node may follow, and then
            // its own goals are what the nodes above it get.
            if proving {
                proving = select::child_proven(store, n, key, goals);
                if proving {
                    goals.copy_from_slice(store.goals(n));
                }
            }
        }
    }
}

impl<G: Game> Player<G> for Mcts<G> {
    fn name(&self) -> &str {
        "mcts"
    }

    fn report(&self) -> Option<String> {
        Some(format!("{}{}", self.stats, self.settings()))
    }

    fn start(&mut self, game: &G, role: RoleIndex, deadline: Instant) {
        let amaf = self.choose_amaf(game, deadline);
        self.set_amaf(amaf);
        self.exploration = self.explore(game, deadline);
        self.heuristic = self.learn(game, deadline);
        let found = self.find_factors(game, deadline);
        let tuned = self.tune(game, deadline, found.as_ref());
        self.set_tuned(tuned.as_ref());
        self.set_factors(game, found);
        self.begin(game, role, deadline);
    }

    fn choose(&mut self, game: &G, state: &G::State, deadline: Instant) -> Option<G::Move> {
        self.set_root(game, state);
        let iterations = self.search(game, deadline);
        self.decide(iterations)
    }

    fn ponder(&mut self, game: &G, deadline: Instant) -> u64 {
        self.search(game, deadline)
    }

    fn judgments(&self, game: &G) -> Option<String> {
        self.opponents.to_text(game)
    }

    fn adopt_judgments(&mut self, game: &G, text: &str) -> Result<(), String> {
        let adopted = opponents::Opponents::from_text(game, text)?;
        if self.options.opponents == crate::OpponentModel::Off {
            return Ok(());
        }
        let changed = adopted.random() != self.opponents.random();
        self.opponents = adopted;
        if let Some(root) = self.root_state().filter(|_| changed).cloned() {
            self.search_again(game, &root);
        }
        Ok(())
    }

    fn observe(&mut self, game: &G, joint: &[G::Move], next: &G::State) {
        if self.factored.is_some() {
            return self.set_root(game, next);
        }
        if let Some(s) = &mut self.scratch {
            s.playout.decay();
            s.best.advance(joint, next);
            if let Some(store) = &self.store {
                s.simultaneous.prune(store);
            }
        }
        let Some(store) = &self.store else {
            return;
        };
        if self.options.opponents == crate::OpponentModel::Auto
            && opponents::weigh_move(
                game,
                &mut self.opponents,
                store,
                self.root,
                self.role,
                joint,
            )
        {
            return self.search_again(game, next);
        }
        let child = joint_key(store, self.root, joint)
            .and_then(|key| store.edge_index(self.root, &key))
            .and_then(|e| store.child(self.root, e))
            .filter(|&c| store.states[c as usize] == *next);
        match child {
            Some(c) => {
                self.root = c;
                if let Some(store) = &mut self.store {
                    store.nodes[c as usize].stamp = self.tick;
                }
            }
            None => self.set_root(game, next),
        }
    }
}
