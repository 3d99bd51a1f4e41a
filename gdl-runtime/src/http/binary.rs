//! The `play` sub-command of a compiled game's binary (`gdlc build` writes it): the game
//! served over HTTP with root-parallel MCTS, for the rules it was compiled from only.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::Duration;

use super::{EngineFactory, GameEngine, MatchEngine, ServerOptions, StartRequest, serve_on};
use crate::Game;
use crate::cli::{EXIT_USAGE, run_game};
use crate::player::{MctsOptions, ParallelMcts};
use crate::sexpr;

/// The usage of `play`.
pub const PLAY_USAGE: &str =
    "  BIN play [--port P] [--bind ADDR] [--name N] [--margin S] [--threads T] [--case-fold]
                                           a GGP player over HTTP for this game (MCTS);
                                           --case-fold: lower-case rules and moves (for
                                           managers that upper-case messages, like Dresden)";

/// The rules of a description as a set of canonical S-expressions (`None`: not readable), so
/// that layout, comments and order do not matter.
pub fn rule_set(text: &str) -> Option<BTreeSet<String>> {
    let tree = sexpr::read(text);
    tree.errors.is_empty().then(|| {
        tree.top_level()
            .iter()
            .map(|&n| sexpr::canonical(text, &tree, n))
            .collect()
    })
}

/// The `main` of a compiled game's binary with a player: `BIN play ...` serves the game,
/// anything else is [`run_game`]. `rules` is the description the game was compiled from: a
/// START with other rules is answered `busy`.
pub fn main_with_player<G>(game: &G, name: &str, rules: &str) -> ExitCode
where
    G: Game + Clone + Send + Sync + 'static,
    G::State: Send + Sync,
    G::Move: Send,
{
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("play") {
        return run_game(game, name, &args);
    }
    let mut port = 9147u16;
    let mut bind = "0.0.0.0".to_string();
    let mut options = ServerOptions {
        name: name.to_string(),
        ..ServerOptions::default()
    };
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut it = args[1..].iter();
    while let Some(arg) = it.next() {
        if arg == "--case-fold" {
            options.case_fold = true;
            continue;
        }
        // `--flag value` or `--flag=value`.
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), v.to_string()),
            None => match it.next() {
                Some(v) => (arg.clone(), v.clone()),
                None => {
                    eprintln!("{name}: {arg} needs a value\n{PLAY_USAGE}");
                    return ExitCode::from(EXIT_USAGE);
                }
            },
        };
        let value = &value;
        let ok = match flag.as_str() {
            "--port" => value.parse().map(|p| port = p).is_ok(),
            "--bind" => {
                bind = value.clone();
                true
            }
            "--name" => {
                options.name = value.clone();
                true
            }
            "--margin" => match value.parse::<f64>() {
                Ok(s) if (0.0..3600.0).contains(&s) => {
                    options.margin = Duration::from_secs_f64(s);
                    true
                }
                _ => false,
            },
            "--threads" => match value.parse::<usize>() {
                Ok(t) if t > 0 => {
                    threads = t;
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if !ok {
            eprintln!("{name}: bad option {flag} {value}\n{PLAY_USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    }
    // Folding: the rules of a START are lower-cased, so compare them with ours lower-cased.
    let ours = match options.case_fold {
        true => {
            if let Some(warning) = super::fold::merge_warning(rules) {
                eprintln!("{name}: {warning}");
            }
            rules.to_ascii_lowercase()
        }
        false => rules.to_string(),
    };
    let Some(expected) = rule_set(&ours) else {
        eprintln!("{name}: the rules built in do not read");
        return ExitCode::FAILURE;
    };
    let game = game.clone();
    let mut matches = 0u64;
    let factory: EngineFactory = Box::new(move |start: &StartRequest| {
        if rule_set(&start.rules).as_ref() != Some(&expected) {
            return Err("the rules are not the ones this player was compiled from".into());
        }
        matches += 1;
        let player = ParallelMcts::new(
            MctsOptions {
                seed: matches,
                ..MctsOptions::default()
            },
            threads,
        );
        let engine = GameEngine::new(game.clone(), player, start, "compiled")?;
        Ok(Box::new(engine) as Box<dyn MatchEngine>)
    });
    eprintln!("{name}: {threads} search threads");
    serve_on(name, &format!("{bind}:{port}"), options, factory)
}
