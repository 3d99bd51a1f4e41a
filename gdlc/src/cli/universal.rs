//! The engine of the universal player (`gdlc play` without a game). At START it grounds the
//! rules into a propositional network in this process ([`network`], no rustc: well under a
//! second for most games) and plays with it (MCTS over the network) from the first move, while
//! the game is compiled in the background through the build cache; as soon as the compiled
//! game is built, it hands the match to it — the game's binary run as `BIN engine`
//! ([`gdl_player::subprocess`]), told the role and the joint moves played so far — for the
//! rest of the match. The engines, best first: compiled, propnet, interpreted. While the
//! network is being ground past the start clock, the interpreter answers without searching
//! (grounding has the core, and an iteration of the interpreter can outlast a play clock); a
//! game that does not ground within its budget is played by the interpreter until the
//! compiled game is ready. If the build fails, or the compiled engine fails later, the network
//! (or else the interpreter) plays on: both follow every move, so either can take over. The
//! log says which engine played each move, and why. A GDL-II match is played from beliefs by
//! the same engines, best first ([`imperfect`]): the one that takes over catches up with our
//! moves and percepts so far. [`compiled`] holds the compiled engine's side.
//!
//! The engine in this process searches in slices of [`SLICE`], looking for the network and the
//! build between them, so a switch happens within a slice of either being ready, also in the
//! middle of a move.

mod compiled;
mod imperfect;
mod network;
mod takeover;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gdl_player::http::{MatchEngine, StartRequest, fallback_move};
use gdl_player::subprocess::{self, EngineError, Ponder};
use gdl_player::{Beliefs, Mcts, MctsOptions, Observed, Player};
use gdl_runtime::Game;
use gdlc::codegen::propnet::OwnedNetGame;
use gdlc::interp::Interpreter;

use self::network::{GroundRequest, NetSearch, Network};
use self::takeover::Clock;
use super::Loaded;
use super::cache::{self, CargoOutput, CompileArgs, Flavour, Wanted};

/// How long the interpreter searches between looks at the build.
pub const SLICE: Duration = Duration::from_millis(50);

/// How long past its deadline a reply of the compiled engine is waited for before the
/// interpreter answers instead.
const SLACK: Duration = Duration::from_millis(500);

/// After this many late replies in a row, or failed starts, the compiled engine is given up.
const MAX_LATE: u32 = 3;

/// Settings of the universal player.
#[derive(Clone, Debug)]
pub struct UniversalOptions {
    /// The search in this process (the network's, or the interpreter's; its settings, search
    /// and playout policy also go to the compiled engine).
    pub mcts: MctsOptions,
    /// Whether the rules are ground into a network that plays in this process (else the
    /// interpreter plays until the compiled game does).
    pub propnet: bool,
    /// How the game is compiled (`None`: never; the network or the interpreter plays every
    /// match).
    pub compile: Option<CompileArgs>,
    /// Search threads of the compiled engine.
    pub threads: usize,
    /// Whether the compiled engine ponders between requests (the engine in this process
    /// ponders when the match thread asks it to).
    pub ponder: Ponder,
}

/// Where the compiled engine of a match stands.
enum Compiled {
    /// Being built on another thread, since the instant given.
    Building(mpsc::Receiver<Result<PathBuf, String>>, Instant),
    /// Built; started `attempts` times without success.
    Built { binary: PathBuf, attempts: u32 },
    /// Playing; `late` replies in a row came after their deadline. In a GDL-II match
    /// `believed` counts the turns it has been told (`None`: a GDL-I match, or not yet known).
    Running {
        engine: subprocess::Engine,
        late: u32,
        believed: Option<usize>,
    },
    /// Not playing, for the reason given.
    Off(String),
}

/// The engine of one match of the universal player.
pub struct Universal {
    game: Interpreter,
    mcts: Mcts<Interpreter>,
    role: usize,
    match_id: String,
    state: <Interpreter as Game>::State,
    next: <Interpreter as Game>::State,
    /// The joint moves played so far, as the manager sent them.
    history: Vec<Vec<String>>,
    compiled: Compiled,
    network: Network,
    /// The engine that chose the last move (`None` before the first).
    played_by: Option<&'static str>,
    threads: usize,
    ponder: Ponder,
    mcts_options: MctsOptions,
    /// A GDL-II match (PLAYs with percepts, or rules with `sees`): played from beliefs, by
    /// the compiled game when it runs, else the network, else the interpreter; each catches
    /// up with `turns` when it takes over ([`imperfect`]).
    imperfect: bool,
    /// Our moves and what we saw after each, in a GDL-II match.
    turns: Vec<Observed>,
    beliefs: Beliefs<Interpreter>,
    net_beliefs: Beliefs<OwnedNetGame>,
    /// What the search of the last move did.
    report: Option<String>,
}

/// The description of a START as a file for the compiler: the name the cache gives its crate
/// (the same for every match of one game, so that a game is built once) and the rules. The
/// name holds a hash of the rules: the games' crates share the cache's target directory, where
/// cargo puts each binary under its crate's name, so that two games of one name built one
/// after the other (the build of a match outlives it) could each be handed the other's.
fn loaded_rules(start: &StartRequest) -> Loaded {
    let key = gdlc::crate_gen::cache_key(&[start.rules.as_bytes()]);
    Loaded {
        path: PathBuf::from(format!("universal_{key}.kif")),
        name: format!("the rules of {}", start.match_id),
        text: start.rules.clone(),
        json_rejection: false,
    }
}

/// Builds the compiled player of `loaded` through the cache on a thread of its own; the
/// binary's path (or why there is none) arrives on the receiver.
fn build_in_background(
    loaded: Loaded,
    args: CompileArgs,
) -> std::io::Result<mpsc::Receiver<Result<PathBuf, String>>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("compile".into())
        .spawn(move || {
            let wanted = Wanted {
                flavour: Flavour::Player,
                output: CargoOutput::Quiet,
            };
            let began = Instant::now();
            let built = cache::cached_binary(&loaded, &args, wanted)
                .map_err(|_| "the game did not compile (the errors are above)".to_string());
            if built.is_ok() {
                log(&format!(
                    "{}: the compiled game is ready ({:.1} s); it plays from the next request",
                    loaded.name,
                    began.elapsed().as_secs_f64()
                ));
            }
            let _ = sender.send(built);
        })?;
    Ok(receiver)
}

/// A tiny game whose build fills the build cache's shared target directory (`gdl-runtime`,
/// `gdl-tools`, `gdl-propnet` and `gdl-player` with its HTTP stack: it is compiled with the
/// propnet backend), so that the first real match only builds its own game.
const WARM_UP_GAME: &str = "(role only) (init (count 0)) (legal only stop) \
    (next (count 1)) (<= terminal (true (count 1))) (goal only 100)";

/// Builds [`WARM_UP_GAME`] in the background, logging when it is done.
pub fn warm_up(args: &CompileArgs) {
    let loaded = Loaded {
        path: PathBuf::from("warm-up.kif"),
        name: "warm-up".to_string(),
        text: WARM_UP_GAME.to_string(),
        json_rejection: false,
    };
    let began = Instant::now();
    log(
        "warming the build cache (the runtime and the player are built once; matches meanwhile \
         are played by the network)",
    );
    let mut args = args.clone();
    args.codegen.backend = gdlc::codegen::Backend::Propnet;
    match build_in_background(loaded, args) {
        Ok(receiver) => {
            let _ =
                std::thread::Builder::new()
                    .name("warm-up".into())
                    .spawn(move || match receiver.recv() {
                        Ok(Ok(_)) => log(&format!(
                            "the build cache is ready ({:.1} s)",
                            began.elapsed().as_secs_f64()
                        )),
                        _ => log("the build cache could not be filled: games will not be compiled"),
                    });
        }
        Err(e) => log(&format!("cannot start the warm-up build: {e}")),
    }
}

fn log(line: &str) {
    eprintln!("[player] {line}");
}

/// What the searches of a move (or of the start clock) did.
#[derive(Clone, Copy, Debug, Default)]
struct Iterations {
    interpreted: u64,
    propnet: u64,
}

impl Universal {
    /// Plays `start.role` of `game` (the START's rules, checked): grounds the rules into a
    /// network (waiting for it until the start clock ends, less the margin) while the game is
    /// compiled, then searches with the best engine ready until the start clock ends.
    pub fn start(
        game: Interpreter,
        start: &StartRequest,
        options: &UniversalOptions,
    ) -> Result<Universal, String> {
        let role = (0..game.role_count())
            .find(|&r| game.role_name(r).eq_ignore_ascii_case(&start.role))
            .ok_or_else(|| format!("the game has no role `{}`", start.role))?;
        let compiled = match &options.compile {
            None => Compiled::Off("compiling is off".to_string()),
            Some(args) => match build_in_background(loaded_rules(start), args.clone()) {
                Ok(receiver) => Compiled::Building(receiver, Instant::now()),
                Err(e) => Compiled::Off(format!("cannot start the build: {e}")),
            },
        };
        let budget = start.deadlines.budget();
        let network = match options.propnet {
            false => Network::Off("the network is off".to_string()),
            true => {
                let request = GroundRequest {
                    name: start.match_id.clone(),
                    rules: start.rules.clone(),
                    time_limit: budget.max(network::MIN_GROUND_TIME),
                };
                match network::ground_in_background(request) {
                    Ok(receiver) => Network::Grounding(receiver),
                    Err(e) => Network::Off(format!("cannot start grounding: {e}")),
                }
            }
        };
        let mut mcts = Mcts::new(options.mcts.clone());
        // No search yet: `think` searches in slices.
        mcts.start(&game, role, Instant::now());
        let state = game.initial_state();
        let mut universal = Universal {
            next: state.clone(),
            state,
            game,
            mcts,
            role,
            match_id: start.match_id.clone(),
            history: Vec::new(),
            compiled,
            network,
            played_by: None,
            threads: options.threads.max(1),
            ponder: options.ponder,
            mcts_options: options.mcts.clone(),
            imperfect: false,
            turns: Vec::new(),
            beliefs: Beliefs::new(start.spelling()),
            net_beliefs: Beliefs::new(start.spelling()),
            report: None,
        };
        let deadline = start.deadlines.search;
        universal.await_network(deadline);
        let iterations = universal.think(Clock::Start(deadline));
        // The compiled engine searches the start clock in its own process and says how much
        // at its first move; the count here is this process's.
        let searched = match universal.engine_now() {
            "compiled" => "its own search in the start clock".to_string(),
            _ => format!(
                "{} iterations in the start clock",
                iterations.propnet + iterations.interpreted
            ),
        };
        log(&format!(
            "{}: playing {} with {} ({searched})",
            universal.match_id,
            universal.game.role_name(universal.role),
            universal.detail(),
        ));
        Ok(universal)
    }

    /// Waits for the network until `deadline` (without searching: grounding has the core).
    fn await_network(&mut self, deadline: Instant) {
        let Network::Grounding(receiver) = &self.network else {
            return;
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let arrived = match receiver.recv_timeout(left) {
            Ok(grounded) => grounded,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                log(&format!(
                    "{}: the network is not ready in the start clock; the interpreter plays \
                     until it is",
                    self.match_id
                ));
                return;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("grounding stopped".to_string()),
        };
        // At START too the network's measurements are brief: a compiled game found in the
        // cache takes over at the next look at the build, with the rest of the start clock.
        self.network_arrived(arrived, Clock::Start(deadline).measure_until());
    }

    /// Looks whether the network is ready; if so, and `clock` does not make it wait, it plays
    /// from now on ([`takeover`]).
    fn poll_network(&mut self, clock: Clock) {
        let Network::Grounding(receiver) = &self.network else {
            return;
        };
        if clock.waits() {
            return;
        }
        let arrived = match receiver.try_recv() {
            Ok(grounded) => grounded,
            Err(mpsc::TryRecvError::Empty) => return,
            Err(mpsc::TryRecvError::Disconnected) => Err("grounding stopped".to_string()),
        };
        self.network_arrived(arrived, clock.measure_until());
    }

    /// The network (or why there is none) arrived: it plays from the current state, its
    /// start-clock measurements until `measure_until`.
    fn network_arrived(
        &mut self,
        arrived: Result<network::Grounded, String>,
        measure_until: Instant,
    ) {
        let step = self.step();
        let arrived = match arrived {
            Ok(grounded) if grounded.percepts => {
                log(&format!(
                    "{}: grounded in {:.2} s ({} nodes): a GDL-II game, the network plays \
                     from beliefs",
                    self.match_id,
                    grounded.took.as_secs_f64(),
                    grounded.game.net().nodes
                ));
                self.network = Network::Beliefs(Box::new(grounded.game));
                self.imperfect = true;
                return;
            }
            other => other,
        };
        let built = arrived.and_then(|grounded| {
            let took = grounded.took.as_secs_f64();
            let nodes = grounded.game.net().nodes;
            let search = NetSearch::new(
                grounded.game,
                self.role,
                &self.history,
                &self.mcts_options,
                measure_until,
            )?;
            Ok((search, took, nodes))
        });
        match built {
            Ok((mut search, took, nodes)) => {
                log(&format!(
                    "{}: grounded in {took:.2} s ({nodes} nodes): the network plays from step \
                     {step}",
                    self.match_id
                ));
                // What the interpreter's search judged of the other roles stays judged.
                if let Some(judged) = self.mcts.judgments(&self.game)
                    && let Err(why) = search.mcts.adopt_judgments(&search.game, &judged)
                {
                    log(&format!(
                        "{}: opponents not handed over: {why}",
                        self.match_id
                    ));
                }
                self.network = Network::Playing(Box::new(search));
            }
            Err(why) => {
                log(&format!("{}: no network ({why})", self.match_id));
                self.network = Network::Off(why);
            }
        }
    }

    /// Looks at the build and the network between requests (either may take over then):
    /// true when nothing searches in this process any more (the compiled game plays, or a
    /// GDL-II match, which is searched at each PLAY only).
    fn look_between(&mut self) -> bool {
        if self.poll_build(Clock::Between) || self.imperfect {
            return true;
        }
        self.poll_network(Clock::Between);
        false
    }

    /// Searches with the best engine in this process until the deadline of `clock` (or a
    /// proven root), switching to the network or the compiled engine if either is ready
    /// meanwhile and the move has time for it ([`takeover`]; the compiled engine then searches
    /// until the deadline); while the network is being ground, nothing searches in this
    /// process (the interpreter then chooses from the tree it has), nor in a GDL-II match.
    /// Returns the iterations of each engine.
    fn think(&mut self, clock: Clock) -> Iterations {
        let deadline = clock.deadline().unwrap_or_else(Instant::now);
        let mut iterations = Iterations::default();
        loop {
            if self.poll_build(clock) {
                return iterations;
            }
            self.poll_network(clock);
            // A GDL-II match is searched from beliefs at each PLAY: no tree here (the build
            // has the core meanwhile).
            if self.imperfect {
                return iterations;
            }
            let now = Instant::now();
            if now >= deadline {
                return iterations;
            }
            let until = deadline.min(now + SLICE);
            let proven = match &mut self.network {
                Network::Playing(search) => {
                    iterations.propnet += search.search(until);
                    search.mcts.root_proven().is_some()
                }
                // Grounding has the core: the network is waited for. (An iteration of the
                // interpreter may take seconds on a large game, past the deadline: chess.)
                // Too late in the move for the network to take over: it does between requests.
                Network::Grounding(_) if clock.waits() => return iterations,
                Network::Grounding(receiver) => {
                    match receiver.recv_timeout(until.saturating_duration_since(now)) {
                        Ok(arrived) => self.network_arrived(arrived, clock.measure_until()),
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => self
                            .network_arrived(Err("grounding stopped".to_string()), Instant::now()),
                    }
                    false
                }
                Network::Off(_) | Network::Beliefs(_) => {
                    if self.mcts.root_state() != Some(&self.state) {
                        // The tree stopped following (another engine played): choosing
                        // roots it at the state (and searches until now only).
                        let _ = self.mcts.choose(&self.game, &self.state, Instant::now());
                    }
                    iterations.interpreted += self.mcts.search(&self.game, until);
                    self.mcts.root_proven().is_some()
                }
            };
            // Nothing more to learn: the move is known.
            if proven {
                return iterations;
            }
        }
    }
    /// Applies the manager's joint move to the interpreter's state (and its tree), and to the
    /// network's.
    fn apply(&mut self, moves: &[String]) -> Result<(), String> {
        if moves.len() != self.game.role_count() {
            return Err(format!(
                "{} moves for {} roles",
                moves.len(),
                self.game.role_count()
            ));
        }
        let joint: Option<Vec<_>> = moves
            .iter()
            .enumerate()
            .map(|(r, m)| self.game.parse_move(r, m))
            .collect();
        let joint = joint.ok_or_else(|| format!("a move of {moves:?} is not of this game"))?;
        self.game.next_state(&self.state, &joint, &mut self.next);
        // The interpreter's tree follows only while it searches: a node costs its legal moves
        // and terminal test, which on a large game (chess) take the interpreter much of a
        // play clock.
        if self.engine_now() == "interpreted" {
            self.mcts.observe(&self.game, &joint, &self.next);
        }
        std::mem::swap(&mut self.state, &mut self.next);
        self.history.push(moves.to_vec());
        if let Network::Playing(search) = &mut self.network
            && let Err(why) = search.apply(moves)
        {
            self.give_up_network(why);
        }
        Ok(())
    }

    /// Whether `text` is a legal move of ours in the current state, as the interpreter says.
    fn legal_here(&self, text: &str) -> bool {
        self.game.parse_move(self.role, text).is_some_and(|m| {
            let mut moves = Vec::new();
            self.game.legal_moves(&self.state, self.role, &mut moves);
            moves.contains(&m)
        })
    }

    /// The network failed (a bug: it agrees with the interpreter): the interpreter plays on.
    fn give_up_network(&mut self, why: String) {
        log(&format!(
            "{}: the network failed ({why}); the interpreter plays on",
            self.match_id
        ));
        self.network = Network::Off(why);
    }
}

impl Universal {
    /// The step of the next move (1 first): the joint moves played so far, or in a GDL-II
    /// match our moves.
    fn step(&self) -> usize {
        match self.imperfect {
            true => self.turns.len() + 1,
            false => self.history.len() + 1,
        }
    }

    /// The engine that searches in this process, for the log.
    fn local_name(&self) -> &'static str {
        match self.network {
            Network::Playing(_) => "the network",
            _ => "the interpreter",
        }
    }

    /// The engine that plays now: `compiled`, `propnet` or `interpreted`.
    fn engine_now(&self) -> &'static str {
        match (&self.compiled, &self.network) {
            (Compiled::Running { .. }, _) => "compiled",
            (_, Network::Playing(_) | Network::Beliefs(_)) => "propnet",
            _ => "interpreted",
        }
    }

    /// Which engine plays, and why (for the log).
    fn detail(&self) -> String {
        let compiled = match &self.compiled {
            Compiled::Running { .. } => return "the compiled game".to_string(),
            Compiled::Building(..) | Compiled::Built { .. } => {
                "the compiled game is being built".to_string()
            }
            Compiled::Off(why) => why.clone(),
        };
        match &self.network {
            Network::Playing(_) => format!("the network ({compiled})"),
            Network::Beliefs(_) => "the network, from beliefs (a GDL-II game)".to_string(),
            Network::Grounding(..) => format!("the interpreter (being ground; {compiled})"),
            Network::Off(why) if why == "the network is off" => {
                format!("the interpreter ({compiled})")
            }
            Network::Off(why) => format!("the interpreter (no network: {why}; {compiled})"),
        }
    }
}

impl MatchEngine for Universal {
    /// The engine that chose the last move (before the first, the one that plays now):
    /// `compiled`, `propnet` (the network in this process) or `interpreted` (the log says
    /// why).
    fn describe(&self) -> String {
        self.played_by
            .unwrap_or_else(|| self.engine_now())
            .to_string()
    }

    fn last_stats(&self) -> Option<String> {
        match self.played_by {
            Some("propnet") if self.net_beliefs.used() => self.net_beliefs.stats(),
            Some("interpreted") if self.beliefs.used() => self.beliefs.stats(),
            _ => self.report.clone(),
        }
    }

    /// Looks at the build (the compiled game may take over, and ponders on its own from
    /// then on) and the network, then, in a GDL-I match, searches with the engine of this
    /// process that plays: the network, else the interpreter (while the network is being
    /// ground nothing searches: grounding has the core). Beliefs do not ponder.
    fn ponder(&mut self, until: Instant) -> u64 {
        if self.look_between() {
            return 0;
        }
        match &mut self.network {
            Network::Playing(search) => search.search(until),
            Network::Grounding(_) => 0,
            // The interpreter's tree follows the match only while it plays.
            Network::Off(_) if self.mcts.root_state() == Some(&self.state) => {
                self.mcts.ponder(&self.game, until)
            }
            Network::Off(_) | Network::Beliefs(_) => 0,
        }
    }

    /// `--ponder off`: the build and the network may still take over between requests (a
    /// move too short for a takeover during it would leave them out of the match).
    fn idle(&mut self) {
        self.look_between();
    }

    fn play_percepts(
        &mut self,
        turn: u64,
        last_move: Option<&str>,
        percepts: &[String],
        deadline: Instant,
    ) -> Result<String, String> {
        self.play_from_beliefs(turn, last_move, percepts, deadline)
    }

    fn play(
        &mut self,
        moves: Option<&[String]>,
        deadline: Instant,
        fallback: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        if let Some(moves) = moves {
            self.apply(moves)?;
        }
        // The interpreter's legal moves: the fallback sent if this move stalls.
        if let Some(m) = fallback_move(&self.game, &self.state, self.role, &mut Vec::new()) {
            fallback(m);
        }
        if let Some(moves) = moves {
            // A slow reply (a big tree to cut) is not waited for beyond the deadline: the
            // engine reads the next request when it is done with this one.
            if let Compiled::Running { engine, .. } = &mut self.compiled {
                match engine.observe(moves, deadline.saturating_duration_since(Instant::now())) {
                    Ok(()) | Err(EngineError::Timeout) => {}
                    Err(e) => self.give_up_compiled(e.to_string()),
                }
            }
        }
        let mut iterations = Iterations::default();
        if matches!(self.compiled, Compiled::Running { .. }) {
            if let Some(text) = self.compiled_move(deadline) {
                self.played_by = Some("compiled");
                return Ok(text);
            }
        } else {
            iterations = self.think(Clock::Play(deadline));
            // Built while this process searched: the compiled game searches what is left.
            if matches!(self.compiled, Compiled::Running { .. })
                && let Some(text) = self.compiled_move(deadline)
            {
                self.played_by = Some("compiled");
                return Ok(text);
            }
        }
        let by = match self.compiled {
            Compiled::Running { .. } => "the compiled game was late: ",
            _ => "",
        };
        // The network's move, checked legal by the interpreter.
        if let Network::Playing(search) = &mut self.network {
            let nodes = search.mcts.tree_size();
            let chosen = search.choose();
            let settings = search.mcts.settings();
            match chosen {
                Some(text) if self.legal_here(&text) => {
                    self.report = Some(format!(
                        "{by}{} iterations of the network, {nodes} nodes{settings}",
                        iterations.propnet
                    ));
                    self.played_by = Some("propnet");
                    return Ok(text);
                }
                Some(text) => self.give_up_network(format!("its move `{text}` is not legal")),
                None => self.give_up_network("it has no move".to_string()),
            }
        }
        // The interpreter's move: its search is done (or there was no time for it).
        let chosen = self.mcts.choose(&self.game, &self.state, Instant::now());
        let text = chosen
            .map(|m| self.game.move_text(self.role, m))
            .ok_or_else(|| "no legal move".to_string())?;
        self.report = Some(format!(
            "{by}{} iterations of the interpreter, {} nodes",
            iterations.interpreted,
            self.mcts.tree_size()
        ));
        self.played_by = Some("interpreted");
        Ok(text)
    }
}
