//! The macro's game plays exactly like the reference interpreter on the same description.

mod tic_tac_toe {
    gdl_macros::gdl!(name = TicTacToe, file = "../examples/ticTacToe.kif");
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

use gdl_runtime::trace::{TraceOptions, write_trace};

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
    let (program, _) = gdlc::parse_kif(&text);
    let reference = gdlc::interp::Interpreter::new(&program).unwrap();
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
