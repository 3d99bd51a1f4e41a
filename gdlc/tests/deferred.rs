//! Hybrid grounding that defers a dynamic relation to run time: a rule evaluated at run time
//! whose head would have too many atoms makes its relation *lazy* (asked by its readers with
//! the arguments they bind), and a reader's variables that only a lazy literal binds are bound
//! to the values they can take. The game compiled so (its propagation network run in this
//! process) must play as the interpreter does.

use std::cell::RefCell;

use gdl_runtime::compare::{CompareOptions, compare};
use gdl_runtime::propnet::{Engine, Net};
use gdl_runtime::{Game, RoleIndex};
use gdlc::check::CheckOptions;
use gdlc::codegen::propnet::build_net;
use gdlc::ground::GroundOptions;
use gdlc::interp::Interpreter;
use gdlc::ir::Ir;
use gdlc::pipeline::{CompileOptions, Stage, run};

/// `far` (static, too large under the test's limits) becomes lazy; `hop` reads it, and its
/// head would have too many atoms: deferred. `legal` reads `hop` positively (`?y`, `?z` bound
/// by no other literal) and `far` negatively.
const HOPS: &str = "
    (role p)
    (num 0) (num 1) (num 2) (num 3) (num 4) (num 5)
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
    (<= (far ?x ?y ?z) (num ?x) (num ?y) (num ?z) (distinct ?x ?y) (distinct ?y ?z))
    (init (at 0))
    (init (count 0))
    (<= (hop ?x ?y ?z) (true (at ?x)) (far ?x ?y ?z) (succ ?y ?z))
    (<= (legal p (go ?y ?z)) (true (at ?x)) (hop ?x ?y ?z))
    (<= (legal p (jump ?y)) (true (at ?x)) (num ?y) (not (far ?x ?y 0)))
    (<= (next (at ?z)) (does p (go ?y ?z)))
    (<= (next (at ?y)) (does p (jump ?y)))
    (<= (next (count ?n)) (true (count ?m)) (succ ?m ?n))
    (<= terminal (true (count 5)))
    (<= (goal p 100) (true (at 5)))
    (<= (goal p 0) (not (true (at 5))))";

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
        self.at(state, |e| {
            e.set_joint(joint);
            e.next(next);
        });
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
    let a = run(HOPS, &options(), Stage::Ir).expect("compiles under small limits");
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
    let errors = run(HOPS, &options, Stage::Ir).expect_err("too large");
    assert!(
        errors.iter().any(|d| d.code == "grounding-too-large"),
        "{errors:?}"
    );
}
