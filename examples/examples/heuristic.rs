//! What the evaluation learnt at the start clock (`--heuristic`) finds in an embedded game:
//! the held-out R², the samples, and each feature kept with its weight per role.
//!
//! ```sh
//! cargo run --release --example heuristic -- breakthrough 1.0
//! cargo run --release --example heuristic --features corpus-games -- englishDraughts 3.0
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_examples::breakthrough::Breakthrough;
use gdl_examples::{GAMES, connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use gdl_player::{HeuristicMode, HeuristicOptions, Mcts, MctsOptions, Player};
use gdl_runtime::Game;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, rest @ ..] = &args[..] else {
        return usage();
    };
    let seconds = match rest.first().map(|s| s.parse::<f64>()) {
        None => 1.0,
        Some(Ok(s)) if s > 0.0 && s.is_finite() => s,
        Some(_) => return usage(),
    };
    match game.as_str() {
        "ticTacToe" => probe(&TicTacToe, seconds),
        "connectFour" => probe(&ConnectFour, seconds),
        "breakthrough" => probe(&Breakthrough, seconds),
        #[cfg(feature = "corpus-games")]
        "englishDraughts" => probe(&gdl_examples::english_draughts::EnglishDraughts, seconds),
        #[cfg(feature = "corpus-games")]
        "reversi" => probe(&gdl_examples::reversi::Reversi, seconds),
        _ => return usage(),
    }
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: heuristic [{}|englishDraughts|reversi] [START_SECONDS]",
        GAMES.join("|")
    );
    ExitCode::FAILURE
}

/// Learns as a player's start does with `seconds` of start clock and prints what it kept.
fn probe<G: Game>(game: &G, seconds: f64) {
    let mut p = Mcts::new(MctsOptions {
        heuristic: HeuristicOptions {
            mode: HeuristicMode::On,
            ..HeuristicOptions::default()
        },
        max_iterations: Some(1),
        ..MctsOptions::default()
    });
    let start = Instant::now();
    p.start(game, 0, start + Duration::from_secs_f64(seconds));
    println!("learnt in {:.3} s", start.elapsed().as_secs_f64());
    let Some(h) = p.heuristic() else {
        println!("no evaluation");
        return;
    };
    println!(
        "held-out R2 {:.3} (the state's own {:.3}) on {} samples: {}",
        h.r2,
        h.ceiling,
        h.samples,
        if h.predicts() {
            "used by auto"
        } else {
            "not used by auto"
        }
    );
    for (i, f) in h.features.iter().enumerate() {
        let w: Vec<String> = h.weights.iter().map(|w| format!("{:+.4}", w[i])).collect();
        println!("  {:30} {}", f.name, w.join(" "));
    }
}
