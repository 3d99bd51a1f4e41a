//! The `play` sub-command of a compiled game's binary (`gdlc build` writes it): the game
//! served over HTTP with root-parallel MCTS, for the rules it was compiled from only; and the
//! `engine` sub-command, the same search for the universal player over standard input and
//! output.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::Duration;

use super::{
    EngineFactory, GameEngine, MatchEngine, Ponder, ServerOptions, StartRequest, serve_on,
};
use crate::{
    AmafMode, Expansion, Exploration, Factoring, HeuristicMode, MctsOptions, OpponentModel,
    ParallelMcts, Player, PlayoutPolicy, Search, SimultaneousRule,
};
use gdl_runtime::Game;
use gdl_runtime::sexpr;
use gdl_tools::cli::{EXIT_USAGE, run_game};

/// The usage of `play`.
pub const PLAY_USAGE: &str =
    "  BIN play [--port P] [--bind ADDR] [--name N] [--margin S] [--threads T] [--case-fold]
           [--max-nodes N] [--max-memory MB] [--exploration C|auto] [--search mcts|baseline]
           [--playout uniform|mast|nst|decisive|anti-decisive|anti-decisive-nst|auto]
           [--expansion auto|plain|decisive|decisive-at-once]
           [--simultaneous duct|rm|exp3] [--best-line on|off] [--heuristic off|on|auto]
           [--amaf off|rave|grave|auto] [--factoring auto|off] [--opponents auto|off]
           [--ponder on|off]
                                           a GGP player over HTTP for this game (MCTS: at
                                           most N tree nodes and MB MiB of them, default
                                           2048, UCB1 constant C, `auto`: from
                                           the length of random games; the search,
                                           how its playouts choose moves, default `auto`:
                                           measured at the start clock; --expansion decisive: a new
                                           node's terminal children proven at once, default auto:
                                           with three roles or more, and in the trees of a game of
                                           independent parts, which mark wins and moves that let a
                                           rival win; how roles choose at
                                           simultaneous moves, whether a puzzle plays the
                                           best line found, default on; --heuristic: cut
                                           playouts short with an evaluation learnt at the
                                           start clock, default auto: when it predicts
                                           and the roles mostly move in turn;
                                           --amaf: selection mixes each move's mean with
                                           the goals of the iterations that played it
                                           later (RAVE, GRAVE), default off; auto:
                                           GRAVE where moves are placements (never
                                           legal again once played: hex, reversi);
                                           --factoring: a tree per independent part of
                                           the game when the start clock finds parts,
                                           default auto;
                                           --opponents: with three roles or more, a
                                           role the tree predicts no better than
                                           chance is searched as chance, default auto;
                                           --ponder: search on the opponents' time,
                                           default on;
                                           --margin: seconds kept before the play clock
                                           ends, START 0.2 more, default 0.3 for a manager
                                           on this host, 1.0 advised over a network);
                                           --case-fold: lower-case rules and moves (for
                                           managers that upper-case messages, like Dresden)";

/// The usage of `engine`.
pub const ENGINE_USAGE: &str = "  BIN engine [--threads T] [--max-nodes N] [--max-memory MB] \
                                [--exploration C|auto] \
                                [--search mcts|baseline] \
                                [--playout uniform|mast|nst|decisive|anti-decisive|anti-decisive-nst|auto] \
                                [--expansion auto|plain|decisive|decisive-at-once] \
                                [--simultaneous duct|rm|exp3] [--best-line on|off] \
                                [--heuristic off|on|auto] [--amaf off|rave|grave|auto] \
                                [--factoring auto|off] [--opponents auto|off] [--ponder on|off]";

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

/// The settings of `play`, read from its arguments.
#[derive(Clone, Debug)]
struct PlayArgs {
    address: String,
    options: ServerOptions,
    threads: usize,
    search: MctsOptions,
}

/// Reads the arguments after `play` (`--flag value` or `--flag=value`, `--case-fold` alone);
/// `Err`: what is wrong, for the usage message.
fn play_args(name: &str, args: &[String]) -> Result<PlayArgs, String> {
    let mut port = 9147u16;
    let mut bind = "0.0.0.0".to_string();
    let mut options = ServerOptions {
        name: name.to_string(),
        ..ServerOptions::default()
    };
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Playouts measured at the start clock unless asked (`PlayoutPolicy::Auto`); no AMAF
    // unless asked.
    let mut search = MctsOptions {
        playout: PlayoutPolicy::Auto,
        ..MctsOptions::default()
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--case-fold" {
            options.case_fold = true;
            continue;
        }
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), v.to_string()),
            None => match it.next() {
                Some(v) => (arg.clone(), v.clone()),
                None => return Err(format!("{arg} needs a value")),
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
            "--max-nodes" => match value.parse::<usize>() {
                Ok(n) if n > 0 => {
                    search.max_nodes = n;
                    true
                }
                _ => false,
            },
            "--max-memory" => match value.parse::<usize>() {
                Ok(mb) if mb > 0 => {
                    search.max_memory = mb.saturating_mul(1 << 20);
                    true
                }
                _ => false,
            },
            "--ponder" => Ponder::parse(value).map(|p| options.ponder = p).is_some(),
            "--exploration" => Exploration::parse(value)
                .map(|c| search.exploration = c)
                .is_some(),
            "--search" => Search::parse(value).map(|v| search.search = v).is_some(),
            "--playout" => PlayoutPolicy::parse(value)
                .map(|v| search.playout = v)
                .is_some(),
            "--expansion" => Expansion::parse(value)
                .map(|v| search.expansion = v)
                .is_some(),
            "--simultaneous" => SimultaneousRule::parse(value)
                .map(|v| search.simultaneous = v)
                .is_some(),
            "--best-line" => match value.as_str() {
                "on" | "off" => {
                    search.best_line = value == "on";
                    true
                }
                _ => false,
            },
            "--heuristic" => HeuristicMode::parse(value)
                .map(|v| search.heuristic.mode = v)
                .is_some(),
            "--amaf" => AmafMode::parse(value)
                .map(|v| search.amaf.mode = v)
                .is_some(),
            "--factoring" => Factoring::parse(value)
                .map(|v| search.factoring = v)
                .is_some(),
            "--opponents" => OpponentModel::parse(value)
                .map(|v| search.opponents = v)
                .is_some(),
            _ => false,
        };
        if !ok {
            return Err(format!("bad option {flag} {value}"));
        }
    }
    Ok(PlayArgs {
        address: format!("{bind}:{port}"),
        options,
        threads,
        search,
    })
}

/// The rule set a START's rules are compared with: the built-in rules', lower-cased when
/// folding (the server lower-cases the START's); `None` when they do not read.
fn expected_rules(rules: &str, case_fold: bool) -> Option<BTreeSet<String>> {
    match case_fold {
        true => rule_set(&rules.to_ascii_lowercase()),
        false => rule_set(rules),
    }
}

/// The `main` of a compiled game's binary with a player: `BIN play ...` serves the game,
/// `BIN engine [--threads T] ...` plays over standard input and output for the universal player
/// ([`crate::subprocess`]), anything else is [`run_game`]. `rules` is the description the game
/// was compiled from: a START with other rules is answered `busy`.
pub fn main_with_player<G>(game: &G, name: &str, rules: &str) -> ExitCode
where
    G: Game + Clone + Send + Sync + 'static,
    G::State: Send + Sync,
    G::Move: Send,
{
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("play") => {}
        Some("engine") => return engine(game, name, &args[1..]),
        _ => return run_game(game, name, &args),
    }
    let PlayArgs {
        address,
        options,
        threads,
        search,
    } = match play_args(name, &args[1..]) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{name}: {e}\n{PLAY_USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if options.case_fold
        && let Some(warning) = super::fold::merge_warning(rules)
    {
        eprintln!("{name}: {warning}");
    }
    let Some(expected) = expected_rules(rules, options.case_fold) else {
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
                ..search.clone()
            },
            threads,
        );
        let engine = GameEngine::new(game.clone(), player, start, "compiled")?;
        Ok(Box::new(engine) as Box<dyn MatchEngine>)
    });
    eprintln!("{name}: {threads} search threads");
    serve_on(name, &address, options, factory)
}

/// `BIN engine` with [`ENGINE_USAGE`]'s flags: root-parallel MCTS served over standard input
/// and output ([`crate::subprocess::serve`], pondering between requests unless `--ponder off`)
/// until the input ends.
fn engine<G>(game: &G, name: &str, args: &[String]) -> ExitCode
where
    G: Game + Sync,
    G::State: Send + Sync,
    G::Move: Send,
{
    // The flags of `play` (those about HTTP have no use here).
    let (threads, search, ponder) = match play_args(name, args) {
        Ok(a) => (a.threads, a.search, a.options.ponder),
        Err(e) => {
            eprintln!("{name}: {e}\n{ENGINE_USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut player = ParallelMcts::new(search, threads);
    let requests = match crate::subprocess::read_lines(std::io::BufReader::new(std::io::stdin())) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name}: engine: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = crate::subprocess::serve(
        game,
        &mut player,
        requests,
        std::io::stdout().lock(),
        ponder,
        |p: &ParallelMcts<G>| p.report().unwrap_or_default(),
    );
    match served {
        Ok(()) => ExitCode::SUCCESS,
        // The universal player went away.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: engine: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn play_arguments() {
        let a = play_args("g", &args(&["--port", "0", "--case-fold", "--margin=0.5"])).unwrap();
        assert_eq!(a.address, "0.0.0.0:0");
        assert!(a.options.case_fold);
        assert_eq!(a.options.margin, Duration::from_millis(500));
        assert_eq!(a.options.name, "g");
        assert!(!play_args("g", &[]).unwrap().options.case_fold);
        assert!(play_args("g", &args(&["--port"])).is_err());
        assert!(play_args("g", &args(&["--threads", "0"])).is_err());
        assert!(play_args("g", &args(&["--case-fold=yes"])).is_err());
        let a = play_args("g", &args(&["--max-nodes", "5000", "--exploration=0.5"])).unwrap();
        assert_eq!(
            (a.search.max_nodes, a.search.exploration),
            (5000, Exploration::Fixed(0.5))
        );
        let a = play_args("g", &args(&["--exploration", "auto"])).unwrap();
        assert_eq!(a.search.exploration, Exploration::Length);
        assert!(play_args("g", &args(&["--max-nodes", "0"])).is_err());
        let a = play_args("g", &args(&["--max-memory=64"])).unwrap();
        assert_eq!(a.search.max_memory, 64 << 20);
        assert!(play_args("g", &args(&["--max-memory", "0"])).is_err());
        assert!(play_args("g", &args(&["--exploration", "NaN"])).is_err());
        assert_eq!(play_args("g", &[]).unwrap().options.ponder, Ponder::On);
        let off = play_args("g", &args(&["--ponder", "off"])).unwrap();
        assert_eq!(off.options.ponder, Ponder::Off);
        let on = play_args("g", &args(&["--ponder=on"])).unwrap();
        assert_eq!(on.options.ponder, Ponder::On);
        for bad in ["--ponder=yes", "--ponder=", "--ponder=OFF"] {
            assert!(play_args("g", &args(&[bad])).is_err(), "{bad}");
        }
        assert!(play_args("g", &args(&["--ponder"])).is_err());
        let a = play_args("g", &[]).unwrap();
        assert_eq!(a.search.search, Search::Mcts);
        assert_eq!(a.search.playout, PlayoutPolicy::Auto);
        let a = play_args("g", &args(&["--search=baseline", "--playout", "mast"])).unwrap();
        assert_eq!(a.search.search, Search::Baseline);
        assert_eq!(a.search.playout, PlayoutPolicy::Mast);
        let a = play_args("g", &args(&["--search", "mcts", "--playout=uniform"])).unwrap();
        assert_eq!(a.search.search, Search::Mcts);
        assert_eq!(a.search.playout, PlayoutPolicy::Uniform);
        let a = play_args("g", &args(&["--playout", "auto"])).unwrap();
        assert_eq!(a.search.playout, PlayoutPolicy::Auto);
        let a = play_args("g", &args(&["--playout=decisive"])).unwrap();
        assert_eq!(a.search.playout, PlayoutPolicy::Decisive);
        assert_eq!(a.search.heuristic.mode, HeuristicMode::default());
        let a = play_args("g", &args(&["--heuristic", "auto"])).unwrap();
        assert_eq!(a.search.heuristic.mode, HeuristicMode::Auto);
        let a = play_args("g", &args(&["--heuristic=on"])).unwrap();
        assert_eq!(a.search.heuristic.mode, HeuristicMode::On);
        assert_eq!(a.search.amaf.mode, AmafMode::Off);
        let a = play_args("g", &args(&["--amaf", "auto"])).unwrap();
        assert_eq!(a.search.amaf.mode, AmafMode::Auto);
        let a = play_args("g", &args(&["--amaf", "off"])).unwrap();
        assert_eq!(a.search.amaf.mode, AmafMode::Off);
        let a = play_args("g", &args(&["--amaf", "grave"])).unwrap();
        assert_eq!(a.search.amaf.mode, AmafMode::Grave);
        let a = play_args("g", &args(&["--amaf=rave"])).unwrap();
        assert_eq!(a.search.amaf.mode, AmafMode::Rave);
        assert!(play_args("g", &args(&["--amaf", "amaf"])).is_err());
        let a = play_args("g", &[]).unwrap();
        assert_eq!(a.search.factoring, Factoring::Auto);
        let a = play_args("g", &args(&["--factoring=off"])).unwrap();
        assert_eq!(a.search.factoring, Factoring::Off);
        assert!(play_args("g", &args(&["--factoring", "on"])).is_err());
        assert_eq!(a.search.opponents, OpponentModel::Auto);
        let a = play_args("g", &args(&["--opponents", "off"])).unwrap();
        assert_eq!(a.search.opponents, OpponentModel::Off);
        assert!(play_args("g", &args(&["--opponents", "random"])).is_err());
        for bad in [
            ["--search", "uct"],
            ["--playout", "gibbs"],
            ["--search", ""],
            ["--heuristic", "yes"],
        ] {
            let e = play_args("g", &args(&bad)).unwrap_err();
            assert!(e.contains(bad[0]), "{e}");
        }
        assert!(play_args("g", &args(&["--playout"])).is_err());
        let a = play_args("g", &args(&["--simultaneous", "rm"])).unwrap();
        assert_eq!(a.search.simultaneous, SimultaneousRule::RegretMatching);
        let a = play_args("g", &args(&["--simultaneous=exp3"])).unwrap();
        assert_eq!(a.search.simultaneous, SimultaneousRule::Exp3);
        assert!(play_args("g", &args(&["--simultaneous", "ucb"])).is_err());
        assert_eq!(
            play_args("g", &[]).unwrap().search.expansion,
            Expansion::default()
        );
        let a = play_args("g", &args(&["--expansion", "decisive"])).unwrap();
        assert_eq!(a.search.expansion, Expansion::Decisive);
        let a = play_args("g", &args(&["--expansion=plain"])).unwrap();
        assert_eq!(a.search.expansion, Expansion::Plain);
        assert!(play_args("g", &args(&["--expansion", "eager"])).is_err());
        assert!(play_args("g", &[]).unwrap().search.best_line);
        assert!(
            !play_args("g", &args(&["--best-line=off"]))
                .unwrap()
                .search
                .best_line
        );
        assert!(play_args("g", &args(&["--best-line", "no"])).is_err());
    }

    /// Folding: an upper-cased START of rules spelled in mixed case is the game's.
    #[test]
    fn folded_rules_compare_folded() {
        let ours = "(role white) (<= (legal white (moveFile ?x)) (file ?x)) (file a)";
        let sent = ours.to_ascii_uppercase().to_ascii_lowercase();
        assert_eq!(expected_rules(ours, true), rule_set(&sent));
        assert_ne!(expected_rules(ours, false), rule_set(&sent));
    }
}
