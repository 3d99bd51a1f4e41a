//! The network the universal player plays in its process ([`OwnedNetGame`]) plays as the
//! interpreter does on games of the corpus: seeded random playouts compared state by state
//! (legal moves, goals, move texts). Skipped, with a line saying so, without the corpus
//! (`GDL_CORPUS`); the games shipped in `examples/` are compared in the unit tests.

use gdl_runtime::compare::{CompareOptions, compare};
use gdlc::codegen::propnet::OwnedNetGame;
use gdlc::interp::Interpreter;
use gdlc::pipeline::{CompileOptions, Stage, run};

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
    let dir = gdl_tests::corpus_dir().join("games/ggp-repository");
    if !dir.is_dir() {
        eprintln!(
            "owned_network: no corpus at {}: skipped (set GDL_CORPUS)",
            dir.display()
        );
        return;
    }
    for name in GAMES {
        let text = gdl_tests::read_game(&dir.join(format!("{name}.kif")));
        let mut a = run(text.as_str(), &CompileOptions::default(), Stage::Ir)
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
