//! The measurement of `--playout auto` on an embedded game, alone: what it chooses in S
//! seconds of start clock, and how many games it played (an optional third argument: the
//! games each candidate should get, `TuningOptions::games`).
//!
//! ```sh
//! cargo run --release --example tune_probe -- connectFour 4
//! cargo run --release --example tune_probe -- connectFour 10 32
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_examples::breakthrough::Breakthrough;
use gdl_examples::{connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use gdl_player::{MctsOptions, PlayoutPolicy, tuning};
use gdl_runtime::Game;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: f64 = match args.get(1).map(|s| s.parse()) {
        None => 4.0,
        Some(Ok(s)) if s > 0.0 && s < 1e6 => s,
        Some(_) => return usage(),
    };
    let defaults = tuning::TuningOptions::default();
    let options = match args.get(2).map(|s| s.parse::<u32>()) {
        None => defaults,
        Some(Ok(games)) => tuning::TuningOptions { games, ..defaults },
        Some(Err(_)) => return usage(),
    };
    match args.first().map(String::as_str) {
        Some("ticTacToe") => probe(&TicTacToe, seconds, &options),
        Some("connectFour") | None => probe(&ConnectFour, seconds, &options),
        Some("breakthrough") => probe(&Breakthrough, seconds, &options),
        Some("connectFourSimultaneous") => probe(
            &gdl_examples::connect_four_simultaneous::ConnectFourSimultaneous,
            seconds,
            &options,
        ),
        #[cfg(feature = "corpus-games")]
        Some("englishDraughts") => probe(
            &gdl_examples::english_draughts::EnglishDraughts,
            seconds,
            &options,
        ),
        #[cfg(feature = "corpus-games")]
        Some("reversi") => probe(&gdl_examples::reversi::Reversi, seconds, &options),
        Some(_) => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: tune_probe [ticTacToe|connectFour|breakthrough|connectFourSimultaneous|englishDraughts|reversi] [SECONDS [GAMES]]"
    );
    ExitCode::FAILURE
}

fn probe<G: Game>(game: &G, seconds: f64, options: &tuning::TuningOptions) -> ExitCode {
    let began = Instant::now();
    let deadline = began + Duration::from_secs_f64(seconds);
    let auto = MctsOptions {
        playout: PlayoutPolicy::Auto,
        ..MctsOptions::default()
    };
    let Some(tuned) = tuning::auto_playout(game, &auto, options, deadline) else {
        return ExitCode::FAILURE;
    };
    println!("{} ({:.2} s)", tuned.summary, began.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}
