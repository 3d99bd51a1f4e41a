//! The start clock's measurement of independent parts ([`gdl_player::tuning::factors`]) on
//! corpus games through the network the universal player plays: games made of two games side
//! by side are factored; games whose parts meet (a capture of a piece the other role moves,
//! a board that every move shares) are not. Skipped, with a line saying so, without the
//! corpus (`GDL_CORPUS`).

use std::time::{Duration, Instant};

use gdlc::codegen::propnet::OwnedNetGame;
use gdlc::pipeline::{CompileOptions, Pass, run};

/// Each game, and whether it is two games side by side.
const GAMES: [(&str, bool); 10] = [
    ("connectFourSimultaneous", true),
    ("doubletictactoe", true),
    ("ticTacToeSerial", true),
    ("chinook", true),
    ("ticTacToe", false),
    ("connectFour", false),
    ("breakthrough", false),
    // Two roles whose pieces move apart, the game ended by meeting.
    ("pacman2p", false),
    // Moves seldom seen in random games.
    ("knightfight", false),
    ("tictactoe_3player", false),
];

#[test]
fn games_side_by_side_are_factored_and_no_others() {
    let Some(dir) = gdl_tests::corpus_path("factoring", "games/ggp-repository") else {
        return;
    };
    for (name, factored) in GAMES {
        let text = gdl_tests::read_game(&dir.join(format!("{name}.kif")));
        let mut a = run(text.as_str(), &CompileOptions::default(), Pass::Optimise)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let game = OwnedNetGame::new(a.ir.take().expect("an IR"));
        let deadline = Instant::now() + Duration::from_secs(30);
        let found = gdl_player::tuning::factors(&game, 1, deadline);
        assert_eq!(found.is_some(), factored, "{name}: {found:?}");
        if let Some(f) = found {
            assert!(f.starts_with("2 factors"), "{name}: {f}");
        }
    }
}
