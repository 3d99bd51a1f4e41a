//! Hybrid grounding that defers a dynamic relation to run time: a rule evaluated at run time
//! whose head would have too many atoms makes its relation *lazy* (asked by its readers with
//! the arguments they bind), and a reader's variables that only a lazy literal binds are bound
//! to the values they can take. The game compiled so (its propagation network run in this
//! process) must play as the interpreter does.

use std::cell::RefCell;

use gdl_runtime::compare::{CompareOptions, compare};
use gdl_runtime::propnet::{Engine, Net, Step};
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

/// A walker on a 6x6 board with walls: `shift` (dynamic: it reads the walls of the state)
/// lists every step from every square, `near` reads it with the square the walker is on.
/// Under small limits both are evaluated at run time.
const WALKER: &str = "
    (role p)
    (index 1) (index 2) (index 3) (index 4) (index 5) (index 6)
    (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
    (dir north) (dir south) (dir east) (dir west)
    (init (loc me 1 1))
    (init (loc goal 6 6))
    (init (wall 3 3))
    (init (count 1))
    (<= (shift ?x ?y north ?x ?y2) (index ?x) (succ ?y ?y2) (not (true (wall ?x ?y2))))
    (<= (shift ?x ?y south ?x ?y2) (index ?x) (succ ?y2 ?y) (not (true (wall ?x ?y2))))
    (<= (shift ?x ?y east ?x2 ?y) (index ?y) (succ ?x ?x2) (not (true (wall ?x2 ?y))))
    (<= (shift ?x ?y west ?x2 ?y) (index ?y) (succ ?x2 ?x) (not (true (wall ?x2 ?y))))
    (<= (near ?d ?x2 ?y2) (does p (move ?d)) (shift ?x ?y ?d ?x2 ?y2) (true (loc me ?x ?y)))
    (<= (moved) (does p (move ?d)) (near ?d ?x ?y))
    (<= (legal p (move ?d)) (dir ?d))
    (<= (next (loc me ?x ?y)) (near ?d ?x ?y))
    (<= (next (loc me ?x ?y)) (true (loc me ?x ?y)) (not (moved)))
    (<= (next (loc goal ?x ?y)) (true (loc goal ?x ?y)))
    (<= (next (wall ?x ?y)) (true (wall ?x ?y)))
    (<= (next (count ?n)) (true (count ?m)) (succ ?m ?n))
    (<= terminal (true (count 6)))
    (<= terminal (true (loc me 6 6)))
    (<= (goal p 100) (true (loc me 6 6)))
    (<= (goal p 0) (not (true (loc me 6 6))))";

#[test]
fn a_join_scans_the_state_fact_that_holds_once_before_a_wide_relation() {
    let mut options = CompileOptions::for_game("walker");
    options.ground = GroundOptions {
        max_rule_instances: 60,
        ..GroundOptions::default()
    };
    let a = run(WALKER, &options, Stage::Ir).expect("compiles under small limits");
    let g = a.ground.as_ref().expect("ground");
    let near = g
        .joins
        .joins
        .iter()
        .find(|j| j.outputs.iter().any(|&o| g.text(o).starts_with("(near ")))
        .unwrap_or_else(|| panic!("`near` evaluated at run time: {:?}", g.stats));
    // The tables scanned, by width: the move (1), the walker's square (2, one row holds
    // though the table lists every square), then `shift` (5) looked up by all but its last
    // two columns. Ordered by bound variables alone, `shift` came second (by the direction).
    let widths: Vec<u32> = near
        .rule
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Scan { table, .. } => Some(g.joins.tables[*table as usize].width),
            _ => None,
        })
        .collect();
    assert_eq!(widths, [1, 2, 5], "{:?}", near.rule.steps);
    let game = NetGame::new(a.ir.expect("an IR"));
    let interp = Interpreter::from_source(WALKER, &CheckOptions::default()).expect("interpreted");
    let options = CompareOptions {
        seeds: 1..=40,
        ..CompareOptions::default()
    };
    let stats = compare(&game, &interp, ["network", "interpreter"], &options)
        .unwrap_or_else(|m| panic!("{m}\n{}\n{}", m.lines[0], m.lines[1]));
    assert!(stats.states > 40, "{stats:?}");
}
