//! Hybrid grounding that defers a dynamic relation to run time: a rule evaluated at run time
//! whose head would have too many atoms makes its relation *lazy* (asked by its readers with
//! the arguments they bind), and a reader's variables that only a lazy literal binds are bound
//! to the values they can take. The game compiled so (its propagation network run in this
//! process) must play as the interpreter does.

use std::cell::RefCell;

use gdl_propnet::{Engine, Net};
use gdl_runtime::{Game, RoleIndex};
use gdl_tools::compare::{CompareOptions, compare};
use gdlc::check::CheckOptions;
use gdlc::codegen::propnet::build_net;
use gdlc::ground::GroundOptions;
use gdlc::interp::Interpreter;
use gdlc::ir::Ir;
use gdlc::pipeline::{CompileOptions, Pass, run};

/// `far` (static, too large under the test's limits) becomes lazy; `hop` reads it, and its
/// head would have too many atoms: deferred. `legal` reads `hop` positively (`?y`, `?z` bound
/// by no other literal) and `far` negatively.
const HOPS: &str = include_str!("fixtures/hops.kif");

/// Limits small enough that `far` is too large to compute and `hop` too large to list.
fn options() -> CompileOptions {
    let mut options = CompileOptions::for_game("hops");
    options.ground = GroundOptions {
        max_atoms: 200,
        max_join_heads: 100,
        ..GroundOptions::default()
    };
    options
}

/// A game played by the propagation network of an IR, in this process.
struct NetGame {
    ir: Ir,
    net: &'static Net,
    engine: RefCell<Engine<'static>>,
}

impl NetGame {
    fn new(ir: Ir) -> NetGame {
        let net: &'static Net = Box::leak(Box::new(build_net(&ir)));
        NetGame {
            ir,
            net,
            engine: RefCell::new(Engine::new(net)),
        }
    }

    fn at<T>(&self, state: &[u64], f: impl FnOnce(&mut Engine<'static>) -> T) -> T {
        let mut e = self.engine.borrow_mut();
        e.set_state(state);
        f(&mut e)
    }
}

impl Game for NetGame {
    type State = Vec<u64>;
    type Move = u32;

    fn role_count(&self) -> usize {
        self.ir.roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        &self.ir.roles[role]
    }

    fn initial_state(&self) -> Vec<u64> {
        self.net.init.clone()
    }

    fn is_terminal(&self, state: &Vec<u64>) -> bool {
        self.at(state, |e| e.terminal())
    }

    fn legal_moves(&self, state: &Vec<u64>, role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.at(state, |e| e.legal(role, out));
    }

    fn next_state(&self, state: &Vec<u64>, joint: &[u32], next: &mut Vec<u64>) {
        next.resize(state.len(), 0);
        self.at(state, |e| e.step(joint, next));
    }

    fn goal(&self, state: &Vec<u64>, role: RoleIndex) -> Option<i32> {
        self.at(state, |e| e.goal(role))
    }

    fn write_move(&self, role: RoleIndex, mv: u32, out: &mut String) {
        out.push_str(&self.ir.moves[role][mv as usize]);
    }

    fn parse_move(&self, role: RoleIndex, text: &str) -> Option<u32> {
        let m = self.ir.moves[role].iter().position(|m| m == text)?;
        Some(m as u32)
    }

    fn write_state(&self, state: &Vec<u64>, out: &mut Vec<String>) {
        for (b, text) in self.ir.bits.iter().enumerate() {
            if state[b / 64] >> (b % 64) & 1 == 1 {
                out.push(text.clone());
            }
        }
        out.extend(self.ir.constant_facts.iter().cloned());
    }
}

#[test]
fn a_relation_too_large_to_list_is_asked_at_run_time_and_plays_as_the_interpreter() {
    let a = run(HOPS, &options(), Pass::Optimise).expect("compiles under small limits");
    let stats = a.ground.as_ref().expect("ground").stats;
    // `far` and `hop` lazy; `legal` evaluated at run time.
    assert_eq!(stats.lazy_relations, 2, "{stats:?}");
    assert!(stats.join_rules >= 2, "{stats:?}");
    let game = NetGame::new(a.ir.expect("an IR"));
    let interp = Interpreter::from_source(HOPS, &CheckOptions::default()).expect("interpreted");
    let options = CompareOptions {
        seeds: 1..=40,
        ..CompareOptions::default()
    };
    let stats = compare(&game, &interp, ["network", "interpreter"], &options)
        .unwrap_or_else(|m| panic!("{m}\n{}\n{}", m.lines[0], m.lines[1]));
    assert!(stats.states > 40, "{stats:?}");
}

#[test]
fn an_output_too_large_to_list_is_a_diagnostic_not_a_panic() {
    let mut options = options();
    // With `legal` itself too large to list (it is read by the game, so it cannot be lazy),
    // grounding fails with a diagnostic, not a panic.
    options.ground.max_join_heads = 2;
    let errors = run(HOPS, &options, Pass::Optimise).expect_err("too large");
    assert!(
        errors.iter().any(|d| d.code == "grounding-too-large"),
        "{errors:?}"
    );
}

/// `path` is recursive, reads the state, and goes round cycles (1 -> 2 -> 1, 4 -> 3 -> 5 ->
/// 6 -> 4); edges are cut as the game goes. Too large under the test's limits, it is asked at
/// run time: a recursion over calls that must end on the cycles and agree with the
/// interpreter in every state.
const PATHS: &str = "
    (role p)
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
    (node 1) (node 2) (node 3) (node 4) (node 5) (node 6)
    (init (edge 1 2)) (init (edge 2 1)) (init (edge 1 4)) (init (edge 4 3))
    (init (edge 3 5)) (init (edge 5 6)) (init (edge 6 4))
    (init (at 1))
    (init (count 0))
    (<= (path ?x ?y) (true (edge ?x ?y)))
    (<= (path ?x ?z) (true (edge ?x ?y)) (node ?y) (path ?y ?z))
    (<= (legal p (go ?y)) (true (at ?x)) (path ?x ?y))
    (<= (legal p (cut ?x ?y)) (true (edge ?x ?y)))
    (<= (next (at ?y)) (does p (go ?y)))
    (<= (next (at ?x)) (true (at ?x)) (does p (cut ?a ?b)))
    (<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does p (cut ?x ?y))))
    (<= (next (count ?n)) (true (count ?m)) (succ ?m ?n))
    (<= terminal (true (count 5)))
    (<= (goal p 100) (true (at ?x)) (path ?x ?x))
    (<= (goal p 0) (true (at ?x)) (not (path ?x ?x)))";

#[test]
fn a_recursive_relation_that_reads_the_state_is_asked_at_run_time_and_plays_as_the_interpreter() {
    let mut options = CompileOptions::for_game("paths");
    // Too few atoms for `path` in full: it is deferred to run time.
    options.ground = GroundOptions {
        max_atoms: PATHS_MAX_ATOMS,
        ..GroundOptions::default()
    };
    let a = run(PATHS, &options, Pass::Optimise).expect("compiles under small limits");
    let stats = a.ground.as_ref().expect("ground").stats;
    assert_eq!(stats.lazy_relations, 1, "{stats:?}");
    assert!(stats.join_rules >= 2, "{stats:?}");
    let game = NetGame::new(a.ir.expect("an IR"));
    let interp = Interpreter::from_source(PATHS, &CheckOptions::default()).expect("interpreted");
    let options = CompareOptions {
        seeds: 1..=60,
        ..CompareOptions::default()
    };
    let stats = compare(&game, &interp, ["network", "interpreter"], &options)
        .unwrap_or_else(|m| panic!("{m}\n{}\n{}", m.lines[0], m.lines[1]));
    assert!(stats.states > 60, "{stats:?}");
}

/// Fewer atoms than `PATHS` has with `path` listed, more than without.
const PATHS_MAX_ATOMS: usize = 100;
