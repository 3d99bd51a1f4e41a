//! The games shipped in `examples/`, compiled into Rust at build time by the `gdl!` macro, for
//! the runnable examples (`cargo run --release --example playouts`, `--example duel`).

/// Tic-tac-toe (`examples/ticTacToe.kif`): roles `x` and `o`.
pub mod tic_tac_toe {
    gdl_macros::gdl!(name = TicTacToe, file = "ticTacToe.kif");
}

/// Connect Four on 7 x 6 (`examples/connectFour.kif`): roles `red` and `yellow`.
pub mod connect_four {
    gdl_macros::gdl!(name = ConnectFour, file = "connectFour.kif");
}

/// Breakthrough on 8 x 8 (`examples/breakthrough.kif`): roles `white` and `black`.
pub mod breakthrough {
    gdl_macros::gdl!(name = Breakthrough, file = "breakthrough.kif");
}

/// The names the examples accept for the embedded games.
pub const GAMES: &[&str] = &["ticTacToe", "connectFour", "breakthrough"];
