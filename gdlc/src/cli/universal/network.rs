//! The universal player's network in this process: at START the rules are ground, lowered and
//! built into a propositional network on a thread of their own ([`ground_in_background`]),
//! within a budget of CPU time; the network then plays ([`NetSearch`], MCTS over
//! [`OwnedNetGame`]) until the compiled game is built. No rustc is involved: tic-tac-toe,
//! connect four or breakthrough are ready in well under a second. A GDL-II game's network
//! plays the whole match from beliefs ([`Network::Beliefs`]).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use gdl_player::{Mcts, MctsOptions, Player};
use gdl_runtime::Game;
use gdlc::Source;
use gdlc::codegen::propnet::OwnedNetGame;
use gdlc::pipeline::{self, CompileOptions, Pass};

/// The least CPU time grounding is given, however short the start clock: a network ready
/// after the start clock still plays the moves before the compiled game is built.
pub const MIN_GROUND_TIME: Duration = Duration::from_secs(5);

/// A network built from the rules of a START.
pub struct Grounded {
    pub game: OwnedNetGame,
    /// The wall-clock time from the rules to the network.
    pub took: Duration,
    /// A GDL-II game (with `sees` rules): played from beliefs.
    pub percepts: bool,
}

/// The receiver of [`ground_in_background`]'s result.
pub type GroundReceiver = mpsc::Receiver<Result<Grounded, String>>;

/// Where the network of a match stands.
pub enum Network {
    /// Being built on another thread.
    Grounding(GroundReceiver),
    /// Playing (or following the moves, while the compiled game plays).
    Playing(Box<NetSearch>),
    /// A GDL-II game's network, which plays from beliefs (the match's percepts) in place of
    /// the interpreter.
    Beliefs(Box<OwnedNetGame>),
    /// Not playing, for the reason given.
    Off(String),
}

/// How the rules of a START are ground for the network.
#[derive(Clone, Debug)]
pub struct GroundRequest {
    /// The name the rules are read under (its extension decides the syntax, as for the
    /// interpreter).
    pub name: String,
    pub rules: String,
    /// The CPU time grounding may take ([`gdlc::ground::GroundOptions::time_limit`]).
    pub time_limit: Duration,
}

/// Grounds `request`'s rules up to the network on a thread of its own; the network (or why
/// there is none: the rules do not ground within the limits, rules are left to run time, or
/// the game has GDL-II percepts, which the interpreter plays from beliefs) arrives on the
/// receiver.
pub fn ground_in_background(request: GroundRequest) -> std::io::Result<GroundReceiver> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("ground".into())
        .spawn(move || {
            let _ = sender.send(ground(&request));
        })?;
    Ok(receiver)
}

/// The network of `request`'s rules (see [`ground_in_background`]).
pub fn ground(request: &GroundRequest) -> Result<Grounded, String> {
    let began = Instant::now();
    let mut options = CompileOptions::default();
    options.ground.time_limit = Some(request.time_limit);
    let source = Source::new(&request.name, &request.rules);
    let mut artifacts = pipeline::run(source, &options, Pass::Optimise).map_err(|errors| {
        let first = errors.iter().find(|d| d.is_error()).or(errors.first());
        format!(
            "the rules do not ground: {}",
            first.map_or("", |d| d.message.as_str())
        )
    })?;
    let ir = artifacts
        .ir
        .take()
        .ok_or_else(|| "the rules gave no network".to_string())?;
    if !ir.joins.is_empty() {
        // A network with run-time joins may be far slower than the interpreter (chess).
        return Err("some rules are left to run time".to_string());
    }
    let percepts = ir.sees.iter().any(|s| !s.is_empty());
    // What the passes left besides the IR may be large: freed on this thread.
    drop(artifacts);
    let game = OwnedNetGame::new(ir);
    Ok(Grounded {
        game,
        took: began.elapsed(),
        percepts,
    })
}

/// MCTS over the network, following the match.
pub struct NetSearch {
    pub game: OwnedNetGame,
    pub mcts: Mcts<OwnedNetGame>,
    pub state: Vec<u64>,
    next: Vec<u64>,
    role: usize,
}

impl NetSearch {
    /// Plays `role` of `game` from the state after `history` (the joint moves so far, as the
    /// manager sent them).
    pub fn new(
        game: OwnedNetGame,
        role: usize,
        history: &[Vec<String>],
        options: &MctsOptions,
        measure_until: Instant,
    ) -> Result<NetSearch, String> {
        let state = game.initial_state();
        let mut search = NetSearch {
            mcts: Mcts::new(options.clone()),
            next: state.clone(),
            state,
            game,
            role,
        };
        // The start clock's measurements (`--playout auto`, ...) until `measure_until`, from
        // the initial state.
        search.mcts.start(&search.game, role, measure_until);
        for joint in history {
            search.apply(joint)?;
        }
        Ok(search)
    }

    /// Applies the manager's joint move (to the state and the tree).
    pub fn apply(&mut self, moves: &[String]) -> Result<(), String> {
        let joint: Option<Vec<u32>> = moves
            .iter()
            .enumerate()
            .map(|(r, m)| self.game.parse_move(r, m))
            .collect();
        let joint = joint.ok_or_else(|| format!("a move of {moves:?} is not in the network"))?;
        if joint.len() != self.game.role_count() {
            return Err(format!(
                "{} moves for {} roles",
                joint.len(),
                self.game.role_count()
            ));
        }
        self.game.next_state(&self.state, &joint, &mut self.next);
        self.mcts.observe(&self.game, &joint, &self.next);
        std::mem::swap(&mut self.state, &mut self.next);
        Ok(())
    }

    /// Searches from the current state until `until`; the iterations run.
    pub fn search(&mut self, until: Instant) -> u64 {
        if self.mcts.root_state() != Some(&self.state) {
            // A fresh tree ([`NetSearch::forget_tree`]) is rooted at the initial state:
            // choosing roots it at the state (and searches until now only).
            let _ = self.mcts.choose(&self.game, &self.state, Instant::now());
        }
        self.mcts.search(&self.game, until)
    }

    /// The move of the search so far, as text.
    pub fn choose(&mut self) -> Option<String> {
        let chosen = self.mcts.choose(&self.game, &self.state, Instant::now())?;
        Some(self.game.move_text(self.role, chosen))
    }

    /// Drops the tree (the compiled game plays): the search follows from a fresh one.
    pub fn forget_tree(&mut self) {
        self.mcts.forget_tree(&self.game);
    }
}
