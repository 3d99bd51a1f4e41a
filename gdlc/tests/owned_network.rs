//! The network the universal player plays in its process ([`OwnedNetGame`]) plays as the
//! interpreter does on games of the corpus: seeded random playouts compared state by state
//! (legal moves, goals, move texts). Skipped, with a line saying so, without the corpus
//! (`GDL_CORPUS`); the games shipped in `examples/` are compared in the unit tests.

use gdl_tools::compare::{CompareOptions, compare};
use gdlc::codegen::propnet::OwnedNetGame;
use gdlc::interp::Interpreter;
use gdlc::pipeline::{CompileOptions, Pass, run};

/// Games of the ggp.org repository, of several kinds: turn-taking boards, simultaneous moves,
/// three and six roles, must-jump rules.
const GAMES: [&str; 9] = [
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "connectFourSimultaneous",
    "tictactoe_3player",
    "tictactoe_3d_small_6player",
    "checkers-mustjump",
    "pentago",
    "sheepAndWolf",
];

#[test]
fn the_owned_network_plays_corpus_games_as_the_interpreter() {
    let Some(dir) = gdl_tests::corpus_path("owned_network", "games/ggp-repository") else {
        return;
    };
    for name in GAMES {
        let text = gdl_tests::read_game(&dir.join(format!("{name}.kif")));
        let mut a = run(text.as_str(), &CompileOptions::default(), Pass::Optimise)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let ir = a.ir.take().expect("an IR");
        assert!(ir.joins.is_empty(), "{name}: rules left to run time");
        let game = OwnedNetGame::new(ir);
        let interp = Interpreter::from_source(text.as_str(), &Default::default()).expect("plays");
        let stats = compare(
            &interp,
            &game,
            ["interpreter", "owned network"],
            &CompareOptions {
                seeds: 1..=5,
                max_steps: 400,
            },
        )
        .unwrap_or_else(|m| panic!("{name}: {m}"));
        assert!(stats.states > 10, "{name}: {} states", stats.states);
    }
}

/// The fact bits of the owned network name the facts `write_state` writes (less those that
/// hold in every state), along random playouts.
#[test]
fn fact_bits_are_the_state_facts() {
    use gdl_runtime::{Game, SplitMix64};
    let Some(dir) = gdl_tests::corpus_path("owned_network", "games/ggp-repository") else {
        return;
    };
    for name in ["breakthrough", "checkers-mustjump"] {
        let text = gdl_tests::read_game(&dir.join(format!("{name}.kif")));
        let mut a = run(text.as_str(), &CompileOptions::default(), Pass::Optimise)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let game = OwnedNetGame::new(a.ir.take().expect("an IR"));
        let names = game.fact_names().expect("fact names");
        let mut rng = SplitMix64::new(7);
        let (mut scratch, mut joint) = (Vec::new(), Vec::new());
        let mut state = game.initial_state();
        let mut next = state.clone();
        let mut constant = Vec::new();
        game.write_state(&Vec::new(), &mut constant);
        for _ in 0..60 {
            let bits = game.fact_bits(&state).expect("fact bits");
            let mut from_bits: Vec<String> = (0..names.len())
                .filter(|&i| bits[i / 64] >> (i % 64) & 1 != 0)
                .map(|i| names[i].clone())
                .collect();
            let mut written = Vec::new();
            game.write_state(&state, &mut written);
            written.retain(|f| !constant.contains(f));
            from_bits.sort();
            written.sort();
            assert_eq!(from_bits, written, "{name}");
            if game.is_terminal(&state)
                || game
                    .random_step(&state, &mut rng, &mut scratch, &mut joint, &mut next)
                    .is_err()
            {
                break;
            }
            std::mem::swap(&mut state, &mut next);
        }
    }
}

/// What the evaluation learnt at the start clock finds in capture and board-filling games
/// (a probe, not a check: `cargo test --release -p gdlc --test owned_network -- --ignored
/// --nocapture`).
#[test]
#[ignore]
fn probe_the_heuristic() {
    use gdl_player::{HeuristicMode, HeuristicOptions, Mcts, MctsOptions, Player};
    use std::time::{Duration, Instant};
    let dir = gdl_tests::corpus_dir().join("games/ggp-repository");
    let seconds: f64 = std::env::var("PROBE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let games = std::env::var("PROBE_GAMES")
        .unwrap_or("reversi,englishDraughts,checkers-mustjump,breakthrough,connectFour".into());
    for name in games.split(',') {
        let text = gdl_tests::read_game(&dir.join(format!("{name}.kif")));
        let mut a = run(text.as_str(), &CompileOptions::default(), Pass::Optimise)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let game = OwnedNetGame::new(a.ir.take().expect("an IR"));
        let mut p = Mcts::new(MctsOptions {
            heuristic: HeuristicOptions {
                mode: HeuristicMode::On,
                ..HeuristicOptions::default()
            },
            max_iterations: Some(1),
            ..MctsOptions::default()
        });
        let start = Instant::now();
        p.start(&game, 0, start + Duration::from_secs_f64(seconds));
        println!("{name}: learnt in {:.2} s", start.elapsed().as_secs_f64());
        if let Some(h) = p.heuristic() {
            println!(
                "  R2 {:.3} of {:.3} on {} samples, auto: {}",
                h.r2,
                h.ceiling,
                h.samples,
                h.predicts()
            );
            for (i, f) in h.features.iter().enumerate().take(8) {
                let w: Vec<String> = h.weights.iter().map(|w| format!("{:+.4}", w[i])).collect();
                println!("  {:30} {}", f.name, w.join(" "));
            }
        }
    }
}
