//! Validation of a game: its reachable graph explored for what makes a description ill-formed
//! (the well-formedness of the GDL specification: termination, playability, defined goals,
//! winnability), each finding with the shortest joint-move sequence that shows it.
//!
//! [`validate`] (and [`validate_shared`], whose sampling runs on several threads) explores
//! breadth-first from the initial state, every state kept in a hash set, while the states fit
//! in [`ValidateOptions::max_states`] and the time in three quarters of
//! [`ValidateOptions::duration`]; breadth-first order makes the first state found with a
//! defect one of the nearest. The search stops early when it cannot finish: the states found
//! but not yet expanded, at the recent rate (`pace.rs`), would take longer than the time left
//! (a deep game then gets nearly all the time for playouts). When the whole graph was seen ([`Mode::Exhaustive`]) it is also
//! analysed: cycles, and by retrograde analysis which roles can force a win and the value of
//! a two-player zero-sum turn-taking game. Otherwise ([`Mode::Sampled`]) random playouts fill
//! the rest of the time, and what they find comes with the playout's moves. Findings:
//!
//! - errors: a non-terminal state where a role has no legal move; a terminal state where a
//!   role has no goal value, several, or one outside 0..100; a state with several goal values
//!   for a role; a cycle (the game need not end); a role that no terminal state gives 100
//!   (exhaustive only); when the description declares `base` / `input`
//!   ([`Game::declarations`]), a reachable state fact no `base` fact declares and a legal move
//!   no `input` fact declares;
//! - warnings: a playout longer than [`ValidateOptions::max_playout_steps`] (sampling); a role
//!   whose goal value decreases along a move; a single-player game that cannot be won by force.
//!
//! The engine runs as it is: on a [`Game::fault`] (the interpreter's budget) the exploration
//! stops and the report says so. `explore.rs` holds the breadth-first search and the graph
//! (`expand.rs` the expansion of a state, batches of them on several threads, `pace.rs` when
//! to give up),
//! `solve.rs` the analyses of a complete graph, `sample.rs` the playouts, `render.rs` the
//! report as text and JSON.

mod checks;
mod expand;
mod explore;
mod pace;
mod render;
mod sample;
mod solve;
mod table;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use gdl_runtime::{Declarations, Game, RoleIndex};

/// The limits and seed of a validation.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidateOptions {
    /// The breadth-first search gives up (and sampling takes over) past this many states
    /// (each takes about 100 to 200 bytes, with its successors).
    pub max_states: usize,
    /// The time of the whole validation.
    pub duration: Duration,
    /// Threads that expand states and sample at once ([`validate_shared`]).
    pub threads: usize,
    /// Seed of the playouts' move chooser (thread `t` uses `seed + t`).
    pub seed: u64,
    /// A playout not over after this many steps is reported, and abandoned.
    pub max_playout_steps: usize,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            max_states: 4_000_000,
            duration: Duration::from_secs(60),
            threads: 1,
            seed: 1,
            max_playout_steps: 10_000,
        }
    }
}

/// How much of the game was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every reachable state.
    Exhaustive,
    /// Part of the graph breadth-first, then random playouts.
    Sampled,
}

/// Whether a finding makes the game ill-formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// What is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A non-terminal state where the role has no legal move.
    NoLegalMove,
    /// A terminal state where the role has no goal value.
    TerminalWithoutGoal,
    /// A state (terminal or not) where the role has several goal values.
    SeveralGoals,
    /// A terminal state where the role's goal value is outside 0..100 or no integer.
    GoalOutOfRange,
    /// A cycle of reachable states: the game need not end.
    Cycle,
    /// No reachable terminal state gives the role 100.
    NotWeaklyWinnable,
    /// A playout that did not end within the step bound.
    LongPlayout,
    /// The role's goal value decreases along a move.
    GoalDecreases,
    /// A single-player game whose role cannot force 100.
    NotStronglyWinnable,
    /// A reachable state holds a fact that no `base` fact declares.
    UndeclaredFact,
    /// A legal move that no `input` fact declares for its role.
    UndeclaredMove,
}

impl Kind {
    /// The stable name of the finding (in the JSON and the text).
    pub fn code(self) -> &'static str {
        match self {
            Kind::NoLegalMove => "no-legal-move",
            Kind::TerminalWithoutGoal => "terminal-without-goal",
            Kind::SeveralGoals => "several-goals",
            Kind::GoalOutOfRange => "goal-out-of-range",
            Kind::Cycle => "cycle",
            Kind::NotWeaklyWinnable => "not-weakly-winnable",
            Kind::LongPlayout => "long-playout",
            Kind::GoalDecreases => "goal-decreases",
            Kind::NotStronglyWinnable => "not-strongly-winnable",
            Kind::UndeclaredFact => "fact-not-in-base",
            Kind::UndeclaredMove => "move-not-in-input",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Kind::LongPlayout | Kind::GoalDecreases | Kind::NotStronglyWinnable => {
                Severity::Warning
            }
            _ => Severity::Error,
        }
    }
}

/// What a finding's moves show: every finding carries its shortest joint-move sequence, or
/// says why it has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// The state is the initial state: no move leads to it.
    InitialState,
    /// The state reached by [`Finding::path`].
    State,
    /// The last joint move of [`Finding::path`] ([`Kind::GoalDecreases`]).
    Move,
    /// The state reached by [`Finding::path`] (the initial state when it is empty) lies on a
    /// cycle, [`Finding::cycle`] the moves round it.
    Cycle,
    /// A property of the whole reachable graph that no one state shows
    /// ([`Kind::NotWeaklyWinnable`], [`Kind::NotStronglyWinnable`]).
    WholeGraph,
    /// A random playout too long to list ([`Kind::LongPlayout`]): its moves are not kept.
    LongPlayout,
}

impl Shown {
    /// The stable name (in the JSON).
    pub fn code(self) -> &'static str {
        match self {
            Shown::InitialState => "initial-state",
            Shown::State => "state",
            Shown::Move => "move",
            Shown::Cycle => "cycle",
            Shown::WholeGraph => "whole-graph",
            Shown::LongPlayout => "long-playout",
        }
    }
}

/// A joint move as text: one move per role, in role order.
pub type JointText = Vec<String>;

/// One defect, shown by the first (nearest) state found with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub kind: Kind,
    /// The role it is about, if one.
    pub role: Option<RoleIndex>,
    /// What was seen, e.g. `goal values 0 and 100`.
    pub detail: String,
    /// The joint moves from the initial state to the state that shows it (for
    /// [`Kind::GoalDecreases`], up to and including the move along which the goal drops);
    /// [`Finding::shown`] tells what they show, and why there are none when empty.
    pub path: Vec<JointText>,
    /// [`Kind::Cycle`]: the joint moves that lead from the end of `path` back to it.
    pub cycle: Vec<JointText>,
    /// How many states (or playouts) showed it.
    pub count: u64,
}

impl Finding {
    /// What its moves show.
    pub fn shown(&self) -> Shown {
        match self.kind {
            Kind::NotWeaklyWinnable | Kind::NotStronglyWinnable => Shown::WholeGraph,
            Kind::LongPlayout => Shown::LongPlayout,
            Kind::Cycle => Shown::Cycle,
            Kind::GoalDecreases => Shown::Move,
            _ if self.path.is_empty() => Shown::InitialState,
            _ => Shown::State,
        }
    }
}

/// What is known of one role.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleSummary {
    pub name: String,
    /// Some reachable terminal state gives it 100 (`None`: sampling saw none, which proves
    /// nothing).
    pub weakly_winnable: Option<bool>,
    /// It can force a terminal state that gives it 100 whatever the others do (exhaustive
    /// graphs only).
    pub strongly_winnable: Option<bool>,
}

/// The report of a validation.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub mode: Mode,
    pub roles: Vec<RoleSummary>,
    /// Distinct states the breadth-first search reached (all of them when exhaustive).
    pub states: u64,
    /// Of which terminal.
    pub terminal_states: u64,
    /// The deepest level of the breadth-first search (when exhaustive: the longest shortest
    /// path from the initial state).
    pub depth: u64,
    /// Why the breadth-first search stopped short (when sampled).
    pub exhaustive_stop: Option<String>,
    /// The time of the breadth-first search (the rest went to the analyses or playouts).
    pub explore_seconds: f64,
    /// Playouts played, and the states they visited.
    pub playouts: u64,
    pub sampled_states: u64,
    /// The longest playout, in steps.
    pub longest_playout: u64,
    pub seconds: f64,
    /// The goal values of the initial state under optimal play, for a two-player zero-sum
    /// turn-taking game explored exhaustively.
    pub value: Option<Vec<i32>>,
    /// Why there is no value, when there is none.
    pub value_note: String,
    /// The engine's fault, which stopped the exploration.
    pub fault: Option<String>,
    /// Whether `base` and `input` were given, so checked ([`Game::declarations`]).
    pub declarations: Declarations,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, severity: Severity) -> usize {
        let of = |f: &&Finding| f.kind.severity() == severity;
        self.findings.iter().filter(of).count()
    }

    /// Whether the game was shown well-formed: explored exhaustively, without an error.
    pub fn well_formed(&self) -> bool {
        self.mode == Mode::Exhaustive && self.fault.is_none() && self.errors() == 0
    }

    /// The exit status of `validate`: 0 well-formed, 1 an error found, 2 undecided.
    pub fn exit_status(&self) -> u8 {
        if self.errors() > 0 {
            1
        } else if self.well_formed() {
            0
        } else {
            2
        }
    }

    /// States seen per second (breadth-first and sampled).
    pub fn states_per_second(&self) -> f64 {
        (self.states + self.sampled_states) as f64 / self.seconds.max(1e-9)
    }
}

/// What the validation is doing, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Exploring,
    Analysing,
    Sampling,
}

/// How far it got, as told to the progress callback (about ten times a second).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub phase: Phase,
    /// States reached breadth-first.
    pub states: u64,
    /// The breadth-first level being explored.
    pub depth: u64,
    pub playouts: u64,
    pub sampled_states: u64,
    pub elapsed: Duration,
}

/// Validates `game` on one thread.
pub fn validate<G: Game>(
    game: &G,
    options: &ValidateOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Report {
    validate_cancellable(game, options, progress, &AtomicBool::new(false))
}

/// [`validate`] that stops soon after `cancel` is set, as at the time limit (the exploration
/// looks at it every few states, the playouts before each playout): the report then says
/// "cancelled" and holds what was seen. The language server's cancelled validations stop so.
pub fn validate_cancellable<G: Game>(
    game: &G,
    options: &ValidateOptions,
    progress: &mut dyn FnMut(&Progress),
    cancel: &AtomicBool,
) -> Report {
    let sampler = &mut |budget: &sample::Budget<'_>, progress: &mut dyn FnMut(&Progress)| {
        sample::sample(game, options, options.seed, budget, progress)
    };
    run(game, options, progress, sampler, None, cancel)
}

/// Validates `game` on [`ValidateOptions::threads`] threads: the breadth-first search expands
/// batches of states on all of them (the graph and the findings are the same as on one), and
/// the playouts run on all of them.
pub fn validate_shared<G: Game + Sync>(
    game: &G,
    options: &ValidateOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Report
where
    G::State: Send + Sync,
{
    let sampler = &mut |budget: &sample::Budget<'_>, progress: &mut dyn FnMut(&Progress)| {
        sample::sample_threads(game, options, budget, progress)
    };
    let threads = options.threads;
    let parallel = |table: &_, range, max_total, out: &mut Vec<_>| {
        expand::expand_parallel(game, table, range, threads, max_total, out);
    };
    let parallel = (threads > 1).then_some(&parallel as &explore::Parallel<'_, G::State>);
    run(
        game,
        options,
        progress,
        sampler,
        parallel,
        &AtomicBool::new(false),
    )
}

/// The samplers' common signature: sample until the deadline, telling progress.
type Sampler<'a> =
    dyn FnMut(&sample::Budget<'_>, &mut dyn FnMut(&Progress)) -> sample::Outcome + 'a;

fn run<G: Game>(
    game: &G,
    options: &ValidateOptions,
    progress: &mut dyn FnMut(&Progress),
    sampler: &mut Sampler<'_>,
    parallel: Option<&explore::Parallel<'_, G::State>>,
    cancel: &AtomicBool,
) -> Report {
    let start = Instant::now();
    let deadline = start + options.duration;
    let explore_until = start + options.duration.mul_f64(0.75);
    let roles = (0..game.role_count())
        .map(|r| RoleSummary {
            name: game.role_name(r).to_string(),
            weakly_winnable: None,
            strongly_winnable: None,
        })
        .collect();
    let mut report = Report {
        mode: Mode::Exhaustive,
        roles,
        states: 0,
        terminal_states: 0,
        depth: 0,
        exhaustive_stop: None,
        explore_seconds: 0.0,
        playouts: 0,
        sampled_states: 0,
        longest_playout: 0,
        seconds: 0.0,
        value: None,
        value_note: String::new(),
        fault: None,
        declarations: game.declarations(),
        findings: Vec::new(),
    };
    let limits = explore::Limits {
        max_states: options.max_states,
        until: explore_until,
        start,
        cancel,
    };
    let explored = explore::explore(game, &limits, progress, parallel);
    report.explore_seconds = start.elapsed().as_secs_f64();
    report.states = explored.graph.len() as u64;
    report.terminal_states = explored.graph.terminal_count();
    report.depth = explored.graph.max_depth();
    report.fault = explored.fault.clone();
    for (role, &won) in report.roles.iter_mut().zip(&explored.wins) {
        if won {
            role.weakly_winnable = Some(true);
        }
    }
    let mut findings = explored.findings;
    match explored.stop {
        None if report.fault.is_none() => {
            progress(&Progress {
                phase: Phase::Analysing,
                states: report.states,
                depth: report.depth,
                playouts: 0,
                sampled_states: 0,
                elapsed: start.elapsed(),
            });
            solve::analyse(&explored.graph, &mut findings, &mut report);
            report.findings = findings.resolve(game, &explored.graph);
        }
        stop => {
            report.mode = Mode::Sampled;
            report.exhaustive_stop = stop;
            report.value_note = "not explored exhaustively".to_string();
            let mut resolved = findings.resolve(game, &explored.graph);
            drop(explored.graph);
            if report.fault.is_none() {
                let budget = sample::Budget {
                    deadline,
                    cancel,
                    start,
                    states_before: report.states,
                };
                let outcome = sampler(&budget, progress);
                report.playouts = outcome.playouts;
                report.sampled_states = outcome.states;
                report.longest_playout = outcome.longest;
                report.fault = outcome.fault;
                for (role, won) in report.roles.iter_mut().zip(&outcome.wins) {
                    if *won {
                        role.weakly_winnable = Some(true);
                    }
                }
                // Findings of the breadth-first part come first: their paths are shortest.
                for f in outcome.findings {
                    match resolved
                        .iter_mut()
                        .find(|g| g.kind == f.kind && g.role == f.role)
                    {
                        Some(g) => g.count += f.count,
                        None => resolved.push(f),
                    }
                }
            }
            report.findings = resolved;
        }
    }
    report
        .findings
        .sort_by_key(|f| (std::cmp::Reverse(f.kind.severity()), f.kind, f.role));
    report.seconds = start.elapsed().as_secs_f64();
    report
}

pub use render::{json, text};

#[cfg(test)]
mod tests;
