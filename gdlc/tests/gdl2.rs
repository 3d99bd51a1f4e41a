//! GDL-II in the compiler: `sees` rules become per-role percept outputs of the IR that survive
//! optimisation, and the generated module lists them (`SEES`, `fn percepts`). That compiled
//! games see what the interpreter sees is checked by `tests/tests/compiled.rs` and the `gdl!`
//! tests.

use gdlc::codegen::Backend;
use gdlc::ir::{Input, Ir};
use gdlc::pipeline::{CompileOptions, Pass, run};

/// A small game: `random` draws a bit; `p` sees the bit only when it asks, and always sees
/// `tick` (a static percept), never `never`.
const COIN: &str = "
    (role p) (role random)
    (init (round 0))
    (<= (legal random (draw heads)) (true (round 0)))
    (<= (legal random (draw tails)) (true (round 0)))
    (<= (legal random noop) (true (round 1)))
    (<= (legal p wait) (true (round 0)))
    (<= (legal p ask) (true (round 1)))
    (<= (legal p wait) (true (round 1)))
    (<= (next (coin ?c)) (does random (draw ?c)))
    (<= (next (coin ?c)) (true (coin ?c)))
    (<= (next (round 1)) (true (round 0)))
    (<= (next (round 2)) (true (round 1)))
    (<= (sees p (coin ?c)) (does p ask) (true (coin ?c)))
    (sees p tick)
    (<= (sees p never) (true (round 7)))
    (<= (sees random (asked ?m)) (does p ?m))
    (<= terminal (true (round 2)))
    (goal p 100) (goal random 0)";

fn ir(source: &str) -> Ir {
    let a = run(source, &CompileOptions::for_game("coin"), Pass::Optimise).expect("compiles");
    a.ir.expect("an IR")
}

fn texts(ir: &Ir, role: usize) -> Vec<&str> {
    ir.sees[role].iter().map(|p| p.text.as_str()).collect()
}

#[test]
fn percepts_are_outputs_per_role_in_byte_order() {
    let ir = ir(COIN);
    assert_eq!(ir.sees.len(), 2);
    // `never` cannot hold: grounding drops it. `tick` is a fact.
    assert_eq!(texts(&ir, 0), ["(coin heads)", "(coin tails)", "tick"]);
    assert_eq!(texts(&ir, 1), ["(asked ask)", "(asked wait)"]);
    let tick = &ir.sees[0][2];
    assert_eq!(tick.when.constant(), Some(true), "{}", tick.when);
    // The others read the move, through props that optimisation kept.
    for p in ir.sees.iter().flatten().filter(|p| p.text != "tick") {
        match p.when.input {
            Input::Prop(q) => assert!((q as usize) < ir.props.len()),
            Input::Does { .. } | Input::MoveIn(_) => {}
            other => panic!("{}: {other}", p.text),
        }
    }
    assert!(ir.to_string().contains("sees r0 (coin heads) = "));
}

#[test]
fn both_backends_generate_percepts_only_for_games_with_sees() {
    for backend in [Backend::Inline, Backend::Propnet] {
        let mut options = CompileOptions::for_game("coin");
        options.codegen.backend = backend;
        let rust = gdlc::compile(COIN, &options).expect("compiles").rust;
        assert!(rust.contains("pub const SEES: &[&[&str]]"), "{backend:?}");
        assert!(rust.contains("fn percepts("), "{backend:?}");
        let plain = COIN.replace("(sees ", "(unseen ");
        let rust = gdlc::compile(&plain, &options).expect("compiles").rust;
        assert!(!rust.contains("SEES") && !rust.contains("fn percepts("));
    }
}

/// `gdlc trace --percepts` shows what each role sees, the same with the interpreter and the
/// compiled game (both backends); without it the trace is in the reference format.
#[test]
fn trace_shows_percepts_on_request_with_every_engine() {
    use std::process::Command;
    let kif = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/montyHall.kif");
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gdl2-cache");
    let trace = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_gdlc"))
            .args(["trace", kif, "--seed", "4"])
            .args(extra)
            .env("GDLC_CACHE", &cache)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let interpreted = trace(&["--percepts"]);
    assert!(
        interpreted.contains("\nrandom random\nstep 0\n"),
        "{interpreted}"
    );
    assert!(
        interpreted.contains("\nsees candidate 1: (your_door "),
        "{interpreted}"
    );
    assert!(
        interpreted.contains("\nsees random 1: (chosen "),
        "{interpreted}"
    );
    for backend in ["inline", "propnet"] {
        let compiled = trace(&["--percepts", "--engine", "compiled", "--backend", backend]);
        assert_eq!(compiled, interpreted, "{backend}");
    }
    let plain = trace(&[]);
    assert!(!plain.contains("sees ") && !plain.contains("\nrandom "));
    assert_eq!(
        plain,
        gdl_tools::compare::reference_trace(&interpreted),
        "the same playout"
    );
}
