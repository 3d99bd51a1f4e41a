//! Random playouts of a game compiled into this program by the `gdl!` macro.
//!
//! ```sh
//! cargo run --release --example playouts -- [SECONDS] [ticTacToe|connectFour|breakthrough]
//! ```
//!
//! From the initial state, every role picks a uniformly random legal move until the game ends;
//! prints the playouts and states per second and each role's average goal value.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use gdl_examples::breakthrough::Breakthrough;
use gdl_examples::{GAMES, connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use gdl_runtime::Game;
use gdl_tools::bench::{self, BenchOptions};

/// `println!` that ignores a closed standard output (e.g. piped into `head`).
macro_rules! out {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = match args.next().map(|s| s.parse()) {
        None => 3.0,
        Some(Ok(s)) if s > 0.0 && s < 1e6 => s,
        Some(_) => return usage(),
    };
    let name = args.next().unwrap_or_else(|| "connectFour".to_string());
    let options = BenchOptions {
        duration: Duration::from_secs_f64(seconds),
        ..BenchOptions::default()
    };
    match name.as_str() {
        "ticTacToe" => play(&TicTacToe, &name, &options),
        "connectFour" => play(&ConnectFour, &name, &options),
        "breakthrough" => play(&Breakthrough, &name, &options),
        _ => usage(),
    }
}

fn play<G: Game>(game: &G, name: &str, options: &BenchOptions) -> ExitCode {
    match bench::run(game, options) {
        Ok(result) => {
            out!(
                "{name}: {} playouts in {:.2} s: {:.0} playouts/s, {:.0} states/s",
                result.playouts,
                result.elapsed.as_secs_f64(),
                result.playouts_per_sec(),
                result.states_per_sec()
            );
            for (r, role) in result.roles.iter().enumerate() {
                match result.avg_goal(r) {
                    Some(v) => out!("  average goal of {role}: {v:.2}"),
                    None => out!("  average goal of {role}: none"),
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: playouts [SECONDS] [{}]", GAMES.join("|"));
    ExitCode::from(2)
}
