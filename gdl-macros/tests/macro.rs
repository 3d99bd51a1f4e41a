//! The macro's game plays exactly like the reference interpreter on the same description.

mod tic_tac_toe {
    gdl_macros::gdl!(name = TicTacToe, file = "../examples/ticTacToe.kif");
}

mod monty_hall {
    gdl_macros::gdl!(name = MontyHall, file = "../examples/montyHall.kif");
}

mod blind_tic_tac_toe {
    gdl_macros::gdl!(
        name = BlindTicTacToe,
        file = "../tests/fixtures/gdl2/blindTicTacToe.kif"
    );
}

mod inline {
    gdl_macros::gdl!(
        name = Counter,
        source = "(role p) (init (n 0)) (succ 0 1) (succ 1 2) (succ 2 3)
                  (<= (legal p inc) (true (n ?x)))
                  (<= (next (n ?y)) (true (n ?x)) (succ ?x ?y))
                  (<= terminal (true (n 3)))
                  (goal p 100)"
    );
}

use gdl_tools::trace::{TraceOptions, write_trace};

fn trace<G: gdl_runtime::Game>(game: &G, seed: u64) -> String {
    let mut out = String::new();
    write_trace(
        game,
        &TraceOptions {
            seed,
            max_steps: 1000,
        },
        &mut out,
    )
    .expect("plays to the end");
    out
}

#[test]
fn the_macro_game_agrees_with_the_interpreter() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/ticTacToe.kif"
    ))
    .unwrap();
    let reference =
        gdlc::interp::Interpreter::from_source(&text, &gdlc::CheckOptions::default()).unwrap();
    for seed in 1..=50 {
        assert_eq!(
            trace(&tic_tac_toe::TicTacToe, seed),
            trace(&reference, seed),
            "seed {seed}"
        );
    }
}

#[test]
fn inline_sources_compile_too() {
    let out = trace(&inline::Counter, 1);
    assert!(out.ends_with("terminal 3 goals p=100\n"), "{out}");
}

#[test]
fn bad_descriptions_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

fn interpreter(path: &str) -> gdlc::interp::Interpreter {
    let text =
        std::fs::read_to_string(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    gdlc::interp::Interpreter::from_source(&text, &gdlc::CheckOptions::default()).unwrap()
}

/// GDL-II: the percepts of every role after every joint move, and which role is `random`,
/// are the interpreter's.
#[test]
fn the_macro_game_sees_what_the_interpreter_sees() {
    use gdl_runtime::Game;
    use gdl_tools::compare::{CompareOptions, compare};
    let options = CompareOptions {
        seeds: 1..=200,
        ..CompareOptions::default()
    };
    let reference = interpreter("examples/montyHall.kif");
    let game = monty_hall::MontyHall;
    compare(&game, &reference, ["gdl!", "interpreter"], &options).unwrap();
    let reference = interpreter("tests/fixtures/gdl2/blindTicTacToe.kif");
    let blind = blind_tic_tac_toe::BlindTicTacToe;
    compare(&blind, &reference, ["gdl!", "interpreter"], &options).unwrap();
    assert_eq!(
        (0..game.role_count())
            .map(|r| game.is_random_role(r))
            .collect::<Vec<_>>(),
        [false, true]
    );
    // Play: the host hides the car behind door 2, the candidate chooses door 1, the host
    // opens door 3; the candidate switches. Percepts are listed in byte order.
    let mv = |role: usize, text: &str| game.parse_move(role, text).unwrap();
    let mut state = game.initial_state();
    let mut play = |joint: [u32; 2]| {
        let mut percepts = [Vec::new(), Vec::new()];
        for (r, p) in percepts.iter_mut().enumerate() {
            game.percepts(&state, &joint, r, p);
        }
        let mut next = state;
        game.next_state(&state, &joint, &mut next);
        state = next;
        percepts
    };
    let none = Vec::<String>::new();
    assert_eq!(
        play([mv(0, "noop"), mv(1, "(hide_car 2)")]),
        [none.clone(), none.clone()]
    );
    assert_eq!(
        play([mv(0, "(choose 1)"), mv(1, "noop")]),
        [vec!["(your_door 1)"], vec!["(chosen 1)"]]
    );
    assert_eq!(
        play([mv(0, "noop"), mv(1, "(open_door 3)")]),
        [vec!["(opened 3)".to_string()], none.clone()]
    );
    assert_eq!(
        play([mv(0, "switch"), mv(1, "noop")]),
        [
            vec!["(car 2)".to_string(), "(switched_to 2)".to_string()],
            none
        ]
    );
    assert!(game.is_terminal(&state));
    assert_eq!(game.goal(&state, 0), Some(100));
}
