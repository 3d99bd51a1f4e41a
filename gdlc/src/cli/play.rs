//! `gdlc play`: a GGP player over HTTP (the HTTP player of `gdl_player::http` with MCTS).
//!
//! Without a file it plays any game it is sent: on START it reads and checks the rules, grounds
//! them into a network that plays in this process from the first move (the interpreter when
//! they do not ground in time) and compiles them in the background, switching to the compiled
//! game as soon as it is built ([`super::universal`]). With a file it plays that game only, and
//! answers `busy` to a START whose rules are not the file's (as a set of rules, whatever their
//! order and layout): compiled (the game's player is built through the cache, then runs), with
//! the network, or with the interpreter.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use gdl_player::http::{EngineFactory, MatchEngine, Ponder, ServerOptions, StartRequest};
use gdl_player::{
    AmafMode, AmafOptions, Expansion, Factoring, HeuristicMode, HeuristicOptions, MctsOptions,
    OpponentModel, PlayoutPolicy, Search, SimultaneousRule,
};
use gdlc::interp::Interpreter;
use gdlc::{CheckOptions, Program, Source};

use super::universal::{Universal, UniversalOptions};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game to play; without it, any game a manager sends.
    pub file: Option<PathBuf>,
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 9147)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    pub bind: String,
    /// The name INFO answers.
    #[arg(long, default_value = "gdlc")]
    pub name: String,
    /// Seconds kept in hand before the play clock ends (counted from the request's
    /// arrival); START keeps 0.2 s more, as managers give no grace there. The default is for
    /// a manager on this host; over a network add the round trip and its jitter: 1.0 is
    /// advised (e.g. Tiltyard, Dresden).
    #[arg(long, default_value_t = gdl_player::time_control::DEFAULT_MARGIN.as_secs_f64())]
    pub margin: f64,
    /// The most nodes of the search tree.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_nodes: usize,
    /// The most memory of the search tree's nodes and move statistics, in MiB: past it the
    /// nodes least recently visited are freed, as past --max-nodes.
    #[arg(long, default_value_t = (gdl_player::DEFAULT_MAX_MEMORY >> 20) as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: u64,
    /// The UCB1 exploration constant of the search (goals scaled to 0..1), or `auto`: set at
    /// the start clock from the length of random games, in choices (more for short games).
    #[arg(long, default_value_t = gdl_player::MctsOptions::default().exploration, value_parser = parse_exploration)]
    pub exploration: gdl_player::Exploration,
    /// The search of the compiled game: `mcts` (transpositions, recycling of old nodes, tree
    /// reuse) or `baseline` (the search before those, kept to compare with).
    #[arg(long, default_value = "mcts", value_parser = ["mcts", "baseline"])]
    pub search: String,
    /// How the search's playouts choose moves: `uniform` (uniformly random), `mast` (each
    /// role's moves by their mean goal so far, with some random ones), `nst` (MAST, and the
    /// mean of each reply to the previous role's last move), `decisive` (a mover
    /// takes a win in one), `anti-decisive` (and avoids giving one), `anti-decisive-nst` (in
    /// NST's order) or `auto` (the one that
    /// the start clock chooses: anti-decisive (decisive with three roles or more) where a
    /// timed search shows their checks change enough playouts, else uniform; in NST's order
    /// when two roles take turns).
    #[arg(long, default_value = "auto", value_parser = ["uniform", "mast", "nst", "decisive", "anti-decisive", "anti-decisive-nst", "auto"])]
    pub playout: String,
    /// What the search does when it makes a node: `plain` (nothing more) or `decisive` (the
    /// state after each of the mover's moves is computed and a terminal one proven at once;
    /// in the trees of a game of independent parts, moves that win at once and moves that let
    /// a rival win at once are marked); `auto`: `decisive` in the trees of a game of
    /// independent parts and in a game of three roles or more, else `plain`.
    #[arg(long, default_value = gdl_player::Expansion::default().name(), value_parser = ["auto", "plain", "decisive", "decisive-at-once"])]
    pub expansion: String,
    /// How the roles choose where two or more move at once: `duct` (each by UCB1 on its own
    /// statistics, the most visited move played), `rm` (regret matching) or `exp3`, the move
    /// played drawn from the average strategy.
    #[arg(long, default_value = "duct", value_parser = ["duct", "rm", "exp3"])]
    pub simultaneous: String,
    /// In a game of one role (a puzzle), play the line of moves to the best goal found unless
    /// a move is proven as good (`on`), or the most visited move (`off`).
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub best_line: String,
    /// Whether the search cuts playouts short with an evaluation learnt at the start clock
    /// from piece counts and the like: `off`, `on`, or `auto` (when it predicts the results
    /// of sample playouts well enough, in a game whose roles mostly move in turn).
    #[arg(long, default_value = "auto", value_parser = ["off", "on", "auto"])]
    pub heuristic: String,
    /// Whether selection mixes each move's mean goal with the goals of the iterations in
    /// which the same role played it later (all moves as first): `off`, `rave` (a node's own
    /// statistics), `grave` (those of the closest ancestor with enough iterations) or `auto`
    /// (GRAVE where the start clock finds the moves are placements, never legal again once
    /// played: hex, reversi; else off). Default off: with NST playouts, GRAVE lost on hex and
    /// reversi both.
    #[arg(long, default_value = "off", value_parser = ["off", "rave", "grave", "auto"])]
    pub amaf: String,
    /// Whether a game made of independent parts (two boards played side by side) is
    /// searched with a tree per part: `auto` (when the start clock's measurement finds two or
    /// more parts) or `off` (one tree over the whole state).
    #[arg(long, default_value = "auto", value_parser = ["auto", "off"])]
    pub factoring: String,
    /// In a game of three roles or more, whether a role whose moves the tree predicted no
    /// better than chance (four moves or more) is searched as chance for the rest of the
    /// match: `auto`, or `off` (every role searched as a player who takes its best move).
    #[arg(long, default_value = "auto", value_parser = ["auto", "off"])]
    pub opponents: String,
    /// The engine that plays: `compiled` is the compiled game with root-parallel MCTS (with
    /// FILE, built through the cache before the player starts; without, built in the
    /// background at each START while the network plays, which the compiled game then takes
    /// over from); `propnet` is the network in this process (the rules ground at START; the
    /// interpreter until it is ready), nothing compiled; `interpreted` is the interpreter
    /// only.
    #[arg(long, value_enum, default_value = "compiled")]
    pub engine: PlayEngine,
    /// Search threads of the compiled game.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Search on the opponents' time, between requests: `on` or `off`.
    #[arg(long, default_value = "on", value_parser = parse_ponder)]
    pub ponder: Ponder,
    /// Lower-case the rules and moves of a match (for managers that upper-case the whole
    /// message, like Dresden's); warns at START when that merges two constants.
    #[arg(long)]
    pub case_fold: bool,
    #[command(flatten)]
    pub compile: super::cache::CompileArgs,
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// Which engine `gdlc play` plays with (see [`Args::engine`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayEngine {
    /// The compiled game (the network, then the compiled game, without FILE).
    Compiled,
    /// The network in this process, nothing compiled.
    Propnet,
    /// The interpreter only.
    Interpreted,
}

/// `--ponder`: `on` or `off`.
fn parse_ponder(text: &str) -> Result<Ponder, String> {
    Ponder::parse(text).ok_or_else(|| format!("`{text}` is not `on` or `off`"))
}

/// The rules of a program as a set of texts (order and layout do not matter).
fn rule_set(program: &Program) -> BTreeSet<String> {
    program
        .rules
        .iter()
        .map(|r| {
            let mut s = String::new();
            gdlc::print::write_rule_kif(&program.symbols, r, &mut s);
            s
        })
        .collect()
}

/// `--exploration`: a number `>= 0` or `auto`.
fn parse_exploration(text: &str) -> Result<gdl_player::Exploration, String> {
    gdl_player::Exploration::parse(text).ok_or_else(|| "a number >= 0, or `auto`".to_string())
}

pub fn run(args: Args) -> ExitCode {
    if !(args.margin.is_finite() && (0.0..3600.0).contains(&args.margin)) {
        eprintln!("gdlc play: --margin must be a number of seconds");
        return ExitCode::from(super::EXIT_USAGE);
    }
    let engine = args.engine;
    let expected = match &args.file {
        None => None,
        Some(path) => {
            let loaded = match super::Loaded::read(path) {
                Ok(l) => l,
                Err(code) => return code,
            };
            if engine == PlayEngine::Compiled {
                return match super::cache::compiled_player(&loaded, &args.compile) {
                    Ok(binary) => super::cache::exec_binary(
                        &binary,
                        &[
                            "play".to_string(),
                            format!("--port={}", args.port),
                            format!("--bind={}", args.bind),
                            format!("--name={}", args.name),
                            format!("--margin={}", args.margin),
                            format!("--threads={}", args.threads.max(1)),
                            format!("--max-nodes={}", args.max_nodes.max(1)),
                            format!("--max-memory={}", args.max_memory),
                            format!("--exploration={}", args.exploration),
                            format!("--ponder={}", args.ponder.as_str()),
                            format!("--search={}", args.search),
                            format!("--playout={}", args.playout),
                            format!("--expansion={}", args.expansion),
                            format!("--simultaneous={}", args.simultaneous),
                            format!("--best-line={}", args.best_line),
                            format!("--heuristic={}", args.heuristic),
                            format!("--amaf={}", args.amaf),
                            format!("--factoring={}", args.factoring),
                            format!("--opponents={}", args.opponents),
                        ]
                        .into_iter()
                        .chain(args.case_fold.then(|| "--case-fold".to_string()))
                        .collect::<Vec<_>>(),
                    ),
                    Err(code) => code,
                };
            }
            match gdlc::frontend::load(loaded.source(), &CheckOptions::default()) {
                // Folding lower-cases the rules of START: compare with ours lower-cased.
                Ok(checked) => Some(
                    rule_set(&checked.program)
                        .into_iter()
                        .map(|r| match args.case_fold {
                            true => r.to_ascii_lowercase(),
                            false => r,
                        })
                        .collect::<BTreeSet<_>>(),
                ),
                Err(errors) => return loaded.report(&errors),
            }
        }
    };
    let limits = args.limits.limits();
    let mut options = UniversalOptions {
        mcts: MctsOptions {
            max_nodes: args.max_nodes,
            max_memory: usize::try_from(args.max_memory)
                .unwrap_or(usize::MAX)
                .saturating_mul(1 << 20),
            exploration: args.exploration,
            search: Search::parse(&args.search).unwrap_or_default(),
            playout: PlayoutPolicy::parse(&args.playout).unwrap_or_default(),
            expansion: Expansion::parse(&args.expansion).unwrap_or_default(),
            simultaneous: SimultaneousRule::parse(&args.simultaneous).unwrap_or_default(),
            best_line: args.best_line != "off",
            heuristic: HeuristicOptions {
                mode: HeuristicMode::parse(&args.heuristic).unwrap_or_default(),
                ..HeuristicOptions::default()
            },
            amaf: AmafOptions {
                mode: AmafMode::parse(&args.amaf).unwrap_or_default(),
                ..AmafOptions::default()
            },
            factoring: Factoring::parse(&args.factoring).unwrap_or_default(),
            opponents: OpponentModel::parse(&args.opponents).unwrap_or_default(),
            ..MctsOptions::default()
        },
        // A player of one game given by FILE that is asked for the interpreter keeps to it.
        propnet: engine != PlayEngine::Interpreted,
        compile: (engine == PlayEngine::Compiled).then(|| args.compile.clone()),
        threads: args.threads.max(1),
        ponder: args.ponder,
    };
    if let Some(compile) = &options.compile {
        super::universal::warm_up(compile);
    }
    let factory: EngineFactory = Box::new(move |start: &StartRequest| {
        let checked = gdlc::frontend::load(
            Source::new(&start.match_id, &start.rules),
            &CheckOptions::default(),
        )
        .map_err(|errors| {
            let first = errors.iter().find(|d| d.is_error()).or(errors.first());
            format!(
                "the rules do not check: {}",
                first.map_or("", |d| d.message.as_str())
            )
        })?;
        if let Some(expected) = &expected
            && *expected != rule_set(&checked.program)
        {
            return Err("the rules are not the ones this player plays".to_string());
        }
        let game = Interpreter::from_checked(&checked, limits)
            .map_err(|e| format!("the rules cannot be played: {:?}", e.first()))?;
        options.mcts.seed += 1;
        let engine = Universal::start(game, start, &options)?;
        Ok(Box::new(engine) as Box<dyn MatchEngine>)
    });
    let options = ServerOptions {
        name: args.name.clone(),
        margin: Duration::from_secs_f64(args.margin),
        case_fold: args.case_fold,
        ponder: args.ponder,
        ..ServerOptions::default()
    };
    gdl_player::http::serve_on(
        "gdlc play",
        &format!("{}:{}", args.bind, args.port),
        options,
        factory,
    )
}
