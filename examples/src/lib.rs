//! The games shipped in `examples/`, compiled into Rust at build time by the `gdl!` macro, for
//! the runnable examples (`cargo run --release --example playouts`, `--example duel`).
//!
//! ```
//! use gdl_examples::tic_tac_toe::TicTacToe;
//! use gdl_runtime::Game;
//!
//! let game = TicTacToe;
//! let mut moves = Vec::new();
//! game.legal_moves(&game.initial_state(), 0, &mut moves);
//! assert_eq!((game.role_name(0), moves.len()), ("x", 9));
//! ```

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

/// Connect Four with simultaneous moves (`examples/connectFourSimultaneous.kif`): roles `red`
/// and `yellow` drop at once; discs dropped into one column clash.
pub mod connect_four_simultaneous {
    gdl_macros::gdl!(
        name = ConnectFourSimultaneous,
        file = "connectFourSimultaneous.kif"
    );
}

/// English draughts (`englishDraughts.kif` of the corpus, `../shared` next to the checkout):
/// roles `white` and `black`. With the `corpus-games` feature only.
#[cfg(feature = "corpus-games")]
pub mod english_draughts {
    gdl_macros::gdl!(
        name = EnglishDraughts,
        file = "../../shared/games/ggp-repository/englishDraughts.kif"
    );
}

/// Reversi (`reversi.kif` of the corpus, `../shared` next to the checkout). With the
/// `corpus-games` feature only.
#[cfg(feature = "corpus-games")]
pub mod reversi {
    gdl_macros::gdl!(
        name = Reversi,
        file = "../../shared/games/ggp-repository/reversi.kif"
    );
}

/// Hex on 9 x 9 (`hex.kif` of the corpus): roles `red` and `blue`, red first, no swap. With
/// the `corpus-games` feature only.
#[cfg(feature = "corpus-games")]
pub mod hex {
    gdl_macros::gdl!(
        name = Hex,
        file = "../../shared/games/ggp-repository/hex.kif"
    );
}

/// Hex on 9 x 9 with the pie rule (`hexPie.kif` of the corpus): roles `player1` (red, first)
/// and `player2`, who may swap colours instead of its first move. With the `corpus-games`
/// feature only.
#[cfg(feature = "corpus-games")]
pub mod hex_pie {
    gdl_macros::gdl!(
        name = HexPie,
        file = "../../shared/games/ggp-repository/hexPie.kif"
    );
}

/// The corpus's connectFourSimultaneous (`connectFourSimultaneous.kif` of the corpus): two
/// boards, `red` dropping on one while `black` drops on the other, the boards swapping every
/// step; not the one-board game of the same name above. With the `corpus-games` feature only.
#[cfg(feature = "corpus-games")]
pub mod two_boards {
    gdl_macros::gdl!(
        name = TwoBoards,
        file = "../../shared/games/ggp-repository/connectFourSimultaneous.kif"
    );
}

/// The corpus's 3pConnectFour: three roles (`red`, `yellow`, `blue`) on 8 x 6; the winner
/// gets 100, the role that moved just before it 50. With the `corpus-games` feature only.
#[cfg(feature = "corpus-games")]
pub mod three_player_connect_four {
    gdl_macros::gdl!(
        name = ThreePlayerConnectFour,
        file = "../../shared/games/ggp-repository/3pConnectFour.kif"
    );
}

/// The Monty Hall problem (`examples/montyHall.kif`, GDL-II): roles `candidate` and `random`.
pub mod monty_hall {
    gdl_macros::gdl!(name = MontyHall, file = "montyHall.kif");
}

/// Blind tic-tac-toe (the repository's `tests/fixtures/gdl2/blindTicTacToe.kif`, GDL-II):
/// roles `xplayer`, `oplayer` and `random` (who decides whose mark lands on a cell both try).
pub mod blind_tic_tac_toe {
    gdl_macros::gdl!(
        name = BlindTicTacToe,
        file = "../tests/fixtures/gdl2/blindTicTacToe.kif"
    );
}

/// The names the examples accept for the embedded games (the arena takes the others too).
pub const GAMES: &[&str] = &["ticTacToe", "connectFour", "breakthrough"];

#[cfg(test)]
mod tests {
    use gdl_runtime::{Game, SplitMix64};

    /// Generated games number their moves: every legal move met in random playouts has an
    /// index below the role's move count, the index is the move itself, and the count is
    /// the number of moves the game can write.
    fn moves_are_numbered<G: Game<Move = u32>>(game: &G) {
        let mut rng = SplitMix64::new(5);
        let mut moves = Vec::new();
        for r in 0..game.role_count() {
            let count = game.move_count(r).expect("a move count");
            assert!(count > 0);
            assert!(!game.move_text(r, (count - 1) as u32).is_empty());
            assert!(game.move_text(r, count as u32).is_empty());
        }
        assert_eq!(game.move_count(game.role_count()), None);
        for _ in 0..20 {
            let mut state = game.initial_state();
            while !game.is_terminal(&state) {
                let mut joint = Vec::new();
                for r in 0..game.role_count() {
                    game.legal_moves(&state, r, &mut moves);
                    for &m in &moves {
                        assert_eq!(game.move_index(r, m), Some(m as usize));
                        assert!((m as usize) < game.move_count(r).unwrap_or(0));
                    }
                    joint.push(moves[rng.below(moves.len())]);
                }
                let mut next = state.clone();
                game.next_state(&state, &joint, &mut next);
                state = next;
            }
        }
    }

    #[test]
    fn inline_and_propnet_games_number_their_moves() {
        moves_are_numbered(&super::tic_tac_toe::TicTacToe);
        moves_are_numbered(&super::connect_four::ConnectFour);
        moves_are_numbered(&super::breakthrough::Breakthrough);
        moves_are_numbered(&super::connect_four_simultaneous::ConnectFourSimultaneous);
    }

    /// The fact bits of a generated game name the facts `write_state` writes, less those of
    /// every state (`CONSTANT_FACTS`), along random playouts.
    fn fact_bits_are_the_state_facts<G: Game>(game: &G, constant: &[&str]) {
        let names = game.fact_names().expect("fact names");
        let mut rng = SplitMix64::new(9);
        let (mut scratch, mut joint) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            let mut state = game.initial_state();
            let mut next = state.clone();
            loop {
                let bits = game.fact_bits(&state).expect("fact bits");
                assert_eq!(bits.len(), names.len().div_ceil(64));
                let mut from_bits: Vec<&str> = (0..names.len())
                    .filter(|&i| bits[i / 64] >> (i % 64) & 1 != 0)
                    .map(|i| names[i].as_str())
                    .collect();
                let mut written = Vec::new();
                game.write_state(&state, &mut written);
                let mut written: Vec<&str> = written
                    .iter()
                    .map(String::as_str)
                    .filter(|f| !constant.contains(f))
                    .collect();
                from_bits.sort_unstable();
                written.sort_unstable();
                assert_eq!(from_bits, written);
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

    #[test]
    fn generated_games_show_their_fact_bits() {
        use super::*;
        fact_bits_are_the_state_facts(&tic_tac_toe::TicTacToe, tic_tac_toe::CONSTANT_FACTS);
        fact_bits_are_the_state_facts(&connect_four::ConnectFour, connect_four::CONSTANT_FACTS);
        fact_bits_are_the_state_facts(&breakthrough::Breakthrough, breakthrough::CONSTANT_FACTS);
    }
}
