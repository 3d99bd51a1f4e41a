//! The same description and options give the same bytes: `gdlc emit` and `gdlc dump` run in
//! separate processes (each with its own hash seeds) print the same text. The shipped games
//! always; with the corpus, larger games of both backends.

use gdl_tests::example;

use std::process::Command;

fn gdlc(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .output()
        .expect("gdlc runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `gdlc args` three times and checks the outputs are byte for byte the same.
fn same_bytes(args: &[&str]) {
    let first = gdlc(args);
    assert!(!first.is_empty(), "{args:?}: no output");
    for _ in 0..2 {
        let again = gdlc(args);
        if again != first {
            let at = first.iter().zip(&again).position(|(a, b)| a != b);
            panic!(
                "{args:?}: two runs differ ({} and {} bytes, first difference at byte {at:?})",
                first.len(),
                again.len()
            );
        }
    }
}

fn corpus_game(name: &str) -> Option<String> {
    gdl_tests::corpus_path("determinism", &format!("games/ggp-repository/{name}"))
        .map(|path| path.display().to_string())
}

#[test]
fn shipped_games_emit_the_same_bytes_every_time() {
    for game in [
        "ticTacToe.kif",
        "ticTacToe.hrf",
        "connectFour.kif",
        "montyHall.kif",
    ] {
        let file = example(game);
        for backend in ["inline", "propnet"] {
            same_bytes(&["emit", "--backend", backend, &file]);
        }
        same_bytes(&["dump", "--emit", "ground", &file]);
        same_bytes(&["dump", "--emit", "ir", &file]);
        same_bytes(&["dump", "--emit", "optimised", &file]);
    }
}

#[test]
fn corpus_games_emit_the_same_bytes_every_time() {
    // connectFour (inline), breakthrough (propnet tables).
    for (game, backend) in [("connectFour.kif", "auto"), ("breakthrough.kif", "propnet")] {
        if let Some(file) = corpus_game(game) {
            same_bytes(&["emit", "--backend", backend, &file]);
        }
    }
}

/// The interpreter lists a state's legal moves in one order whatever it was asked before: a
/// random draw then picks the same move, so that `Game::random_step` (draws, then the next
/// state) agrees with itself. In reversi the rows of `legal` came in another order once the
/// next state had been computed, and the corpus check's comparison of the two failed.
#[test]
fn the_interpreter_lists_the_moves_of_a_state_in_one_order() {
    use gdl_runtime::Game;
    let Some(file) = corpus_game("reversi.kif") else {
        return;
    };
    let source = std::fs::read_to_string(&file).expect("reversi reads");
    let game =
        gdlc::interp::Interpreter::from_source(source.as_str(), &gdlc::CheckOptions::default())
            .expect("reversi interprets");
    let mut state = game.initial_state();
    let (mut again, mut next) = (Vec::new(), Vec::new());
    for step in 0..6 {
        // Each role's moves as first listed in this state, then after the next state.
        let listed: Vec<Vec<_>> = (0..game.role_count())
            .map(|role| {
                let mut moves = Vec::new();
                game.legal_moves(&state, role, &mut moves);
                moves
            })
            .collect();
        let joint: Vec<_> = listed.iter().map(|m| m[m.len() / 2]).collect();
        game.next_state(&state, &joint, &mut next);
        for (role, first) in listed.iter().enumerate() {
            game.legal_moves(&state, role, &mut again);
            assert_eq!(first, &again, "step {step}, role {role}");
        }
        state = next.clone();
    }
}
