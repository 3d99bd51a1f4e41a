//! The breadth-first search: every reachable state numbered in the order found, with its
//! parent and the joint move from it (so that the shortest path to any state can be told),
//! its terminal test, goal values, legal-move counts and successors; and the findings of single
//! states as they are found.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::expand::{Expander, Expansion, UNKNOWN};
use super::pace::Pace;
use super::table::StateTable;
use super::{Finding, JointText, Kind, Phase, Progress};
use gdl_runtime::{Game, RoleIndex};

/// No parent: the initial state.
const ROOT: u32 = u32::MAX;

/// The reachable graph, or the part of it explored.
pub(super) struct Graph<S> {
    pub table: StateTable<S>,
    pub roles: usize,
    pub parent: Vec<u32>,
    /// The joint move from the parent: its number in the parent's enumeration of joint moves
    /// (mixed radix over the roles' legal moves, the last role fastest).
    pub via: Vec<u32>,
    pub depth: Vec<u32>,
    /// Per expanded state.
    pub terminal: Vec<bool>,
    /// Per expanded state and role (`roles` per state): its goal, or [`super::checks::NO_GOAL`],
    /// [`super::checks::SEVERAL`], [`super::checks::NOT_INTEGER`].
    pub goals: Vec<i32>,
    /// Per expanded state and role: its number of legal moves (0 in terminal states).
    pub counts: Vec<u32>,
    /// The successors of state `s` are `edges[edge_start[s]..edge_start[s + 1]]`, one per
    /// joint move in enumeration order.
    pub edge_start: Vec<usize>,
    pub edges: Vec<u32>,
}

impl<S: Clone + Eq + std::hash::Hash> Graph<S> {
    fn new(roles: usize) -> Self {
        Graph {
            table: StateTable::new(),
            roles,
            parent: Vec::new(),
            via: Vec::new(),
            depth: Vec::new(),
            terminal: Vec::new(),
            goals: Vec::new(),
            counts: Vec::new(),
            edge_start: vec![0],
            edges: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn successors(&self, s: u32) -> &[u32] {
        let s = s as usize;
        &self.edges[self.edge_start[s]..self.edge_start[s + 1]]
    }

    pub fn goal(&self, s: u32, role: RoleIndex) -> i32 {
        self.goals[s as usize * self.roles + role]
    }

    pub fn count(&self, s: u32, role: RoleIndex) -> u32 {
        self.counts[s as usize * self.roles + role]
    }

    pub fn terminal_count(&self) -> u64 {
        self.terminal.iter().filter(|&&t| t).count() as u64
    }

    pub fn max_depth(&self) -> u64 {
        self.depth.last().copied().map_or(0, u64::from)
    }

    /// The move of `role` in joint move number `joint` of state `s`.
    pub fn digit(&self, s: u32, joint: u32, role: RoleIndex) -> u32 {
        let mut j = joint;
        for r in (role + 1..self.roles).rev() {
            j /= self.count(s, r).max(1);
        }
        j % self.count(s, role).max(1)
    }

    /// The joint moves from the initial state to `s`.
    pub fn path_to<G: Game<State = S>>(&self, game: &G, s: u32) -> Vec<JointText> {
        let mut steps = Vec::new();
        let mut at = s;
        while let Some(&p) = self.parent.get(at as usize).filter(|&&p| p != ROOT) {
            steps.push((p, self.via[at as usize]));
            at = p;
        }
        steps
            .iter()
            .rev()
            .map(|&(p, j)| self.joint_text(game, p, j))
            .collect()
    }

    /// The text of joint move number `joint` of state `s`.
    pub fn joint_text<G: Game<State = S>>(&self, game: &G, s: u32, joint: u32) -> JointText {
        let state = self.table.get(s);
        let mut legal = Vec::new();
        let mut j = joint as usize;
        let mut texts = vec![String::new(); self.roles];
        for r in (0..self.roles).rev() {
            game.legal_moves(state, r, &mut legal);
            let n = legal.len().max(1);
            if let Some(&m) = legal.get(j % n) {
                texts[r] = game.move_text(r, m);
            }
            j /= n;
        }
        texts
    }
}

/// Where a finding shows.
pub(super) enum Site {
    /// In a state.
    State(u32),
    /// Along joint move `.1` of state `.0`.
    Edge(u32, u32),
    /// On a cycle: reached at the state, then round the (state, joint move) edges back to it.
    Cycle(u32, Vec<(u32, u32)>),
    /// In the whole graph, no one state: no moves.
    Graph,
}

struct Entry {
    kind: Kind,
    role: Option<RoleIndex>,
    detail: String,
    site: Site,
    count: u64,
}

/// The findings so far: the first site of each (kind, role), and how many showed it.
#[derive(Default)]
pub(super) struct Findings {
    list: Vec<Entry>,
}

impl Findings {
    pub fn add(
        &mut self,
        kind: Kind,
        role: Option<RoleIndex>,
        site: Site,
        detail: impl FnOnce() -> String,
    ) {
        match self
            .list
            .iter_mut()
            .find(|e| e.kind == kind && e.role == role)
        {
            Some(e) => e.count += 1,
            None => self.list.push(Entry {
                kind,
                role,
                detail: detail(),
                site,
                count: 1,
            }),
        }
    }

    /// The findings with their paths told.
    pub fn resolve<G: Game>(self, game: &G, graph: &Graph<G::State>) -> Vec<Finding> {
        self.list
            .into_iter()
            .map(|e| {
                let (path, cycle) = match e.site {
                    Site::State(s) => (graph.path_to(game, s), Vec::new()),
                    Site::Graph => (Vec::new(), Vec::new()),
                    Site::Edge(s, j) => {
                        let mut p = graph.path_to(game, s);
                        p.push(graph.joint_text(game, s, j));
                        (p, Vec::new())
                    }
                    Site::Cycle(s, round) => (
                        graph.path_to(game, s),
                        round
                            .iter()
                            .map(|&(t, j)| graph.joint_text(game, t, j))
                            .collect(),
                    ),
                };
                Finding {
                    kind: e.kind,
                    role: e.role,
                    detail: e.detail,
                    path,
                    cycle,
                    count: e.count,
                }
            })
            .collect()
    }
}

/// Where the breadth-first search stops.
pub(super) struct Limits<'a> {
    pub max_states: usize,
    pub until: Instant,
    pub start: Instant,
    /// Set when the validation is cancelled: the search stops as at the time limit.
    pub cancel: &'a AtomicBool,
}

pub(super) struct Explored<S> {
    pub graph: Graph<S>,
    pub findings: Findings,
    /// Why the search stopped short; `None` when it saw every reachable state.
    pub stop: Option<String>,
    pub fault: Option<String>,
    /// Per role: some terminal state seen gives it 100.
    pub wins: Vec<bool>,
}

/// Expands a batch of states on several threads into the expansions given (see
/// [`super::expand::expand_parallel`]): the table, the numbers of the states, the most joint
/// moves a state may have for its successors to be computed.
pub(super) type Parallel<'a, S> =
    dyn Fn(&StateTable<S>, std::ops::Range<u32>, u64, &mut Vec<Expansion<S>>) + 'a;

/// States expanded between two looks at the clock on one thread: cheap beside expanding them,
/// and soon enough when one state takes the interpreter milliseconds.
const BATCH: usize = 16;
/// States expanded at once on several threads.
const PARALLEL_BATCH: usize = 4096;

/// Explores breadth-first from the initial state until every reachable state is seen or a
/// limit is reached; with `parallel`, expanding batches of states on several threads.
pub(super) fn explore<G: Game>(
    game: &G,
    limits: &Limits<'_>,
    progress: &mut dyn FnMut(&Progress),
    parallel: Option<&Parallel<'_, G::State>>,
) -> Explored<G::State> {
    let n = game.role_count();
    let mut g = Graph::new(n);
    let init = game.initial_state();
    let mut out = Explored {
        graph: Graph::new(n),
        findings: Findings::default(),
        stop: None,
        fault: None,
        wins: vec![false; n],
    };
    let _ = g.table.insert(&init);
    g.parent.push(ROOT);
    g.via.push(0);
    g.depth.push(0);
    let mut expander = Expander::new(game);
    let mut batch: Vec<Expansion<G::State>> = Vec::new();
    let max_edges = limits
        .max_states
        .saturating_mul(16)
        .clamp(1 << 20, u32::MAX as usize);
    let mut last_tick = Instant::now();
    let mut pace = Pace::new(limits.start, limits.until);
    let mut i = 0u32;
    'states: while (i as usize) < g.len() {
        let now = Instant::now();
        if now >= limits.until {
            out.stop = Some(format!("the time limit, after {} states", g.len()));
            break;
        }
        if limits.cancel.load(Ordering::Relaxed) {
            out.stop = Some(format!("cancelled, after {} states", g.len()));
            break;
        }
        if let Some(why) = pace.hopeless(i as usize, g.len(), now) {
            out.stop = Some(why);
            break;
        }
        if now - last_tick >= Duration::from_millis(100) {
            last_tick = now;
            progress(&Progress {
                phase: Phase::Exploring,
                states: g.len() as u64,
                depth: u64::from(g.depth[i as usize]),
                playouts: 0,
                sampled_states: 0,
                elapsed: now - limits.start,
            });
        }
        let size = if parallel.is_some() {
            PARALLEL_BATCH
        } else {
            BATCH
        };
        let end = g.len().min(i as usize + size) as u32;
        let max_total = max_edges.saturating_sub(g.edges.len()) as u64;
        let len = (end - i) as usize;
        match parallel {
            Some(expand) if len > 1 => expand(&g.table, i..end, max_total, &mut batch),
            _ => {
                if batch.len() < len {
                    batch.resize_with(len, Expansion::default);
                }
                expander.expand_all(game, &g.table, i..end, max_total, &mut batch[..len]);
            }
        }
        for e in &mut batch[..len] {
            g.terminal.push(e.terminal);
            for (r, &goal) in e.goals.iter().enumerate() {
                out.wins[r] |= e.terminal && goal == 100;
            }
            g.goals.extend_from_slice(&e.goals);
            g.counts.extend_from_slice(&e.counts);
            for (kind, role, detail) in e.findings.drain(..) {
                out.findings.add(kind, role, Site::State(i), || detail);
            }
            if let Some(f) = e.fault.take() {
                out.fault = Some(f);
                break 'states;
            }
            if g.edges.len() as u64 + e.total > max_edges as u64 {
                out.stop = Some(format!(
                    "more than {max_edges} moves, after {} states",
                    g.len()
                ));
                break 'states;
            }
            for (j, next) in e.successors.iter().enumerate() {
                // Looked up while expanding; only states new then are inserted here.
                let child = match e.known[j] {
                    UNKNOWN => {
                        let Some((child, new)) = g.table.insert_hashed(next, e.hashes[j]) else {
                            out.stop = Some("more states than a table holds".to_string());
                            break 'states;
                        };
                        if new {
                            g.parent.push(i);
                            g.via.push(j as u32);
                            g.depth.push(g.depth[i as usize] + 1);
                        }
                        child
                    }
                    known => known,
                };
                g.edges.push(child);
            }
            g.edge_start.push(g.edges.len());
            i += 1;
            if g.len() > limits.max_states {
                out.stop = Some(format!("the state limit ({})", limits.max_states));
                break 'states;
            }
        }
    }
    out.graph = g;
    out
}
