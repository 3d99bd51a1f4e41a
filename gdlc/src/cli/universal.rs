//! The engine of the universal player (`gdlc play` without a game): it plays a match with the
//! interpreter from the moment START arrives, compiles the game in the background through the
//! build cache, and as soon as the compiled game is built, hands the match to it — the game's
//! binary run as `BIN engine` ([`gdl_runtime::subprocess`]), told the role and the joint moves
//! played so far — for the rest of the match. If the build fails, or the compiled engine fails
//! later, the interpreter plays on: it follows every move, so it can always take over.
//!
//! The interpreter searches in slices of [`SLICE`], looking for the build between them, so the
//! switch happens within a slice of the build finishing, also in the middle of a move.

use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gdl_runtime::Game;
use gdl_runtime::http::{Beliefs, MatchEngine, StartRequest};
use gdl_runtime::player::{Mcts, MctsOptions, Player};
use gdl_runtime::subprocess::{self, EngineError};
use gdlc::interp::Interpreter;

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
    /// The interpreter's search (its settings, search and playout policy also go to the
    /// compiled engine).
    pub mcts: MctsOptions,
    /// How the game is compiled (`None`: never; the interpreter plays every match).
    pub compile: Option<CompileArgs>,
    /// Search threads of the compiled engine.
    pub threads: usize,
}

/// Where the compiled engine of a match stands.
enum Compiled {
    /// Being built on another thread, since the instant given.
    Building(mpsc::Receiver<Result<PathBuf, String>>, Instant),
    /// Built; started `attempts` times without success.
    Built { binary: PathBuf, attempts: u32 },
    /// Playing; `late` replies in a row came after their deadline.
    Running {
        engine: subprocess::Engine,
        late: u32,
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
    threads: usize,
    mcts_options: MctsOptions,
    /// GDL-II matches are played from beliefs, with the interpreter.
    beliefs: Beliefs<Interpreter>,
    /// What the search of the last move did.
    report: Option<String>,
}

/// The description of a START as a file for the compiler: the name the cache gives its crate
/// (the same for every match of one game, so that a game is built once) and the rules.
fn loaded_rules(start: &StartRequest) -> Loaded {
    Loaded {
        path: PathBuf::from("universal.kif"),
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
            let built = cache::cached_binary(&loaded, &args, wanted)
                .map_err(|_| "the game did not compile (the errors are above)".to_string());
            let _ = sender.send(built);
        })?;
    Ok(receiver)
}

/// A tiny game whose build fills the build cache's shared target directory (the runtime with
/// its HTTP stack), so that the first real match only builds its own game.
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
    match build_in_background(loaded, args.clone()) {
        Ok(receiver) => {
            let _ =
                std::thread::Builder::new()
                    .name("warm-up".into())
                    .spawn(move || match receiver.recv() {
                        Ok(Ok(_)) => log(&format!(
                            "the build cache is ready ({:.1} s)",
                            began.elapsed().as_secs_f64()
                        )),
                        _ => log("the build cache could not be filled: games will be interpreted"),
                    });
        }
        Err(e) => log(&format!("cannot start the warm-up build: {e}")),
    }
}

fn log(line: &str) {
    eprintln!("[player] {line}");
}

impl Universal {
    /// Plays `start.role` of `game` (the START's rules, checked), searching with the
    /// interpreter until the start clock ends (less the margin) while the game is compiled.
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
            threads: options.threads.max(1),
            mcts_options: options.mcts.clone(),
            beliefs: Beliefs::new(start),
            report: None,
        };
        let deadline = start.arrived + start.start_clock.saturating_sub(start.margin);
        let iterations = universal.think(deadline);
        log(&format!(
            "{}: playing {} with {} ({iterations} interpreter iterations in the start clock)",
            universal.match_id,
            universal.game.role_name(universal.role),
            universal.detail()
        ));
        Ok(universal)
    }

    /// Searches with the interpreter until `deadline`, switching to the compiled engine if
    /// its build is done meanwhile (the compiled engine then searches until `deadline`).
    /// Returns the interpreter's iterations.
    fn think(&mut self, deadline: Instant) -> u64 {
        let mut iterations = 0;
        loop {
            if self.poll_build(deadline) {
                return iterations;
            }
            let now = Instant::now();
            if now >= deadline {
                return iterations;
            }
            iterations += self.mcts.search(&self.game, deadline.min(now + SLICE));
        }
    }

    /// Looks at the build; when it is done, starts the compiled engine (searching until
    /// `search_until`) and replays the match's moves into it. True when the compiled engine
    /// plays from now on.
    fn poll_build(&mut self, search_until: Instant) -> bool {
        match &self.compiled {
            Compiled::Running { .. } => return true,
            Compiled::Off(_) => return false,
            Compiled::Built { .. } => {}
            Compiled::Building(receiver, began) => {
                let built = match receiver.try_recv() {
                    Ok(built) => built,
                    Err(mpsc::TryRecvError::Empty) => return false,
                    Err(mpsc::TryRecvError::Disconnected) => Err("the build stopped".to_string()),
                };
                let took = began.elapsed().as_secs_f64();
                match built {
                    Ok(binary) => {
                        log(&format!(
                            "{}: the compiled game is built ({took:.1} s)",
                            self.match_id
                        ));
                        self.compiled = Compiled::Built {
                            binary,
                            attempts: 0,
                        };
                    }
                    Err(why) => {
                        log(&format!(
                            "{}: {why}; the interpreter plays on",
                            self.match_id
                        ));
                        self.compiled = Compiled::Off(why);
                        return false;
                    }
                }
            }
        }
        let Compiled::Built { binary, attempts } = &mut self.compiled else {
            return false;
        };
        *attempts += 1;
        let (binary, attempts) = (binary.clone(), *attempts);
        match self.launch(&binary, search_until) {
            Ok(engine) => {
                log(&format!(
                    "{}: the compiled game plays from step {}",
                    self.match_id,
                    self.history.len() + 1
                ));
                self.compiled = Compiled::Running { engine, late: 0 };
                // The interpreter's tree is not needed any more; it follows from a fresh one.
                self.mcts = Mcts::new(self.mcts_options.clone());
                self.mcts.start(&self.game, self.role, Instant::now());
                true
            }
            Err(e) if attempts < MAX_LATE => {
                log(&format!(
                    "{}: the compiled game did not start ({e}); trying again at the next move",
                    self.match_id
                ));
                false
            }
            Err(e) => {
                let why = format!("the compiled game did not start: {e}");
                log(&format!(
                    "{}: {why}; the interpreter plays on",
                    self.match_id
                ));
                self.compiled = Compiled::Off(why);
                false
            }
        }
    }

    /// Runs the compiled game's engine and brings it to the current state, by `search_until`
    /// (it searches until then at START, when there are no moves to replay) and a little
    /// [`SLACK`].
    fn launch(
        &self,
        binary: &std::path::Path,
        search_until: Instant,
    ) -> Result<subprocess::Engine, EngineError> {
        let mut command = Command::new(binary);
        command
            .arg("engine")
            .arg(format!("--threads={}", self.threads))
            .arg(format!(
                "--max-nodes={}",
                self.mcts_options.max_nodes.max(1)
            ))
            .arg(format!("--exploration={}", self.mcts_options.exploration))
            .arg(format!("--search={}", self.mcts_options.search.name()))
            .arg(format!("--playout={}", self.mcts_options.playout.name()));
        let mut engine = subprocess::Engine::spawn(command)?;
        let search_until = if self.history.is_empty() {
            search_until
        } else {
            Instant::now()
        };
        engine.start(self.game.role_name(self.role), search_until, SLACK)?;
        let patience = search_until.max(Instant::now() + SLACK);
        for joint in &self.history {
            engine.observe(joint, patience.saturating_duration_since(Instant::now()))?;
        }
        Ok(engine)
    }

    /// Applies the manager's joint move to the interpreter's state (and its tree).
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
        self.mcts.observe(&self.game, &joint, &self.next);
        std::mem::swap(&mut self.state, &mut self.next);
        self.history.push(moves.to_vec());
        Ok(())
    }

    /// The compiled engine's move, when it plays and its move is legal here. A late reply
    /// leaves this move to the interpreter; [`MAX_LATE`] of them in a row, or any other
    /// failure, leave it the match.
    fn compiled_move(&mut self, deadline: Instant) -> Option<String> {
        let Compiled::Running { engine, late } = &mut self.compiled else {
            return None;
        };
        let failure = match engine.choose(deadline, SLACK) {
            Ok(chosen) => {
                *late = 0;
                let legal = self
                    .game
                    .parse_move(self.role, &chosen.text)
                    .is_some_and(|m| {
                        let mut moves = Vec::new();
                        self.game.legal_moves(&self.state, self.role, &mut moves);
                        moves.contains(&m)
                    });
                if legal {
                    self.report = Some(chosen.report);
                    return Some(chosen.text);
                }
                format!("its move `{}` is not legal", chosen.text)
            }
            Err(EngineError::Timeout) if *late + 1 < MAX_LATE => {
                *late += 1;
                return None;
            }
            Err(e) => e.to_string(),
        };
        self.give_up_compiled(failure);
        None
    }

    /// The compiled engine failed: the interpreter plays on.
    fn give_up_compiled(&mut self, why: String) {
        log(&format!(
            "{}: the compiled game failed ({why}); the interpreter plays on",
            self.match_id
        ));
        self.compiled = Compiled::Off(why);
    }
}

impl Universal {
    /// Which engine plays, and why (for the log).
    fn detail(&self) -> String {
        match &self.compiled {
            Compiled::Running { .. } => "the compiled game".to_string(),
            Compiled::Building(..) | Compiled::Built { .. } => {
                "the interpreter (the compiled game is being built)".to_string()
            }
            Compiled::Off(why) => format!("the interpreter ({why})"),
        }
    }
}

impl MatchEngine for Universal {
    /// `compiled` while the compiled game plays, else `interpreted` (the log says why).
    fn describe(&self) -> String {
        match &self.compiled {
            Compiled::Running { .. } => "compiled".to_string(),
            _ => "interpreted".to_string(),
        }
    }

    fn last_stats(&self) -> Option<String> {
        match self.beliefs.used() {
            true => self.beliefs.stats(),
            false => self.report.clone(),
        }
    }

    fn play_percepts(
        &mut self,
        turn: u64,
        last_move: Option<&str>,
        percepts: &[String],
        deadline: Instant,
    ) -> Result<String, String> {
        self.beliefs
            .play(&self.game, self.role, turn, last_move, percepts, deadline)
    }

    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, String> {
        if let Some(moves) = moves {
            self.apply(moves)?;
            // A slow reply (a big tree to cut) is not waited for beyond the deadline: the
            // engine reads the next request when it is done with this one.
            if let Compiled::Running { engine, .. } = &mut self.compiled {
                match engine.observe(moves, deadline.saturating_duration_since(Instant::now())) {
                    Ok(()) | Err(EngineError::Timeout) => {}
                    Err(e) => self.give_up_compiled(e.to_string()),
                }
            }
        }
        let mut iterations = 0;
        if matches!(self.compiled, Compiled::Running { .. }) {
            if let Some(text) = self.compiled_move(deadline) {
                return Ok(text);
            }
        } else {
            iterations = self.think(deadline);
            // Built while the interpreter searched: the compiled game searches what is left.
            if matches!(self.compiled, Compiled::Running { .. })
                && let Some(text) = self.compiled_move(deadline)
            {
                return Ok(text);
            }
        }
        // The interpreter's move: its search is done (or there was no time for it).
        let chosen = self.mcts.choose(&self.game, &self.state, Instant::now());
        let text = chosen
            .map(|m| self.game.move_text(self.role, m))
            .ok_or_else(|| "no legal move".to_string())?;
        let by = match self.compiled {
            Compiled::Running { .. } => "the compiled game was late: ",
            _ => "",
        };
        self.report = Some(format!(
            "{by}{iterations} iterations of the interpreter, {} nodes",
            self.mcts.tree_size()
        ));
        Ok(text)
    }
}
