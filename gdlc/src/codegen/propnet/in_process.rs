//! A game's network played in this process: the [`Game`] a propnet module implements, without
//! generating or compiling its Rust. The network is [`module_net`](super::module_net)'s (what
//! the module would decode and run) and the names are the IR's, so that differential tests
//! can compare grounding, lowering, optimisation and the incremental engine with the
//! interpreter on descriptions no one compiled (mutants), in milliseconds rather than a rustc
//! build each. The inline backend is not covered: its code only exists once compiled.

use std::cell::RefCell;

use gdl_runtime::propnet::{Engine, Net};
use gdl_runtime::{Game, RoleIndex};

use crate::ir::Ir;

/// The game of `ir` played by the engine of `net` (see the [module documentation](self)).
/// States are the words of the state bits, moves their index in the role's move table, as in
/// a generated module.
pub struct NetGame<'a> {
    ir: &'a Ir,
    net: &'a Net,
    engine: RefCell<Engine<'a>>,
}

impl<'a> NetGame<'a> {
    /// The game of `ir` on `net`, which must be `module_net(ir)` (or a network of the same
    /// bits, moves and outputs).
    pub fn new(ir: &'a Ir, net: &'a Net) -> NetGame<'a> {
        NetGame {
            ir,
            net,
            engine: RefCell::new(Engine::new(net)),
        }
    }

    /// Runs `f` on the engine synced to `state`.
    fn with<T>(&self, state: &[u64], f: impl FnOnce(&mut Engine<'a>) -> T) -> T {
        let mut e = self.engine.borrow_mut();
        e.set_state(state);
        f(&mut e)
    }
}

impl Game for NetGame<'_> {
    type State = Vec<u64>;
    type Move = u32;

    fn role_count(&self) -> usize {
        self.ir.roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        self.ir.roles.get(role).map_or("", String::as_str)
    }

    fn initial_state(&self) -> Vec<u64> {
        self.net.init.clone()
    }

    fn is_terminal(&self, state: &Vec<u64>) -> bool {
        self.with(state, |e| e.terminal())
    }

    fn legal_moves(&self, state: &Vec<u64>, role: RoleIndex, out: &mut Vec<u32>) {
        out.clear();
        self.with(state, |e| e.legal(role, out));
    }

    fn next_state(&self, state: &Vec<u64>, joint: &[u32], next: &mut Vec<u64>) {
        next.clear();
        next.resize(self.net.init.len(), 0);
        self.with(state, |e| {
            e.set_joint(joint);
            e.next(next);
        });
    }

    fn goal(&self, state: &Vec<u64>, role: RoleIndex) -> Option<i32> {
        self.with(state, |e| e.goal(role))
    }

    fn goal_values(&self, state: &Vec<u64>, role: RoleIndex, out: &mut Vec<Option<i32>>) {
        out.clear();
        self.with(state, |e| e.goal_values(role, out));
    }

    fn write_move(&self, role: RoleIndex, mv: u32, out: &mut String) {
        if let Some(text) = self.ir.moves.get(role).and_then(|m| m.get(mv as usize)) {
            out.push_str(text);
        }
    }

    fn parse_move(&self, role: RoleIndex, text: &str) -> Option<u32> {
        // The move texts are in byte order.
        let moves = self.ir.moves.get(role)?;
        let i = moves.binary_search_by(|m| m.as_str().cmp(text)).ok()?;
        u32::try_from(i).ok()
    }

    fn write_state(&self, state: &Vec<u64>, out: &mut Vec<String>) {
        out.extend(self.ir.constant_facts.iter().cloned());
        for (i, fact) in self.ir.bits.iter().enumerate() {
            if state.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0) {
                out.push(fact.clone());
            }
        }
    }

    fn percepts(&self, state: &Vec<u64>, joint: &[u32], role: RoleIndex, out: &mut Vec<String>) {
        let mut seen = Vec::new();
        self.with(state, |e| {
            e.set_joint(joint);
            e.sees(role, &mut seen);
        });
        let texts = self.ir.sees.get(role).map_or(&[][..], Vec::as_slice);
        out.extend(
            seen.iter()
                .filter_map(|&k| texts.get(k as usize))
                .map(|p| p.text.clone()),
        );
    }
}

#[cfg(test)]
pub(super) mod tests {
    use gdl_runtime::compare::{CompareOptions, compare};
    use gdl_runtime::propnet::Net;

    use super::*;
    use crate::interp::Interpreter;
    use crate::pipeline::{Artifacts, CompileOptions, Stage, run};

    /// The IR of `text` (compiled up to the IR stage), with the artifacts it came from.
    pub(in crate::codegen::propnet) fn ir_of(text: &str) -> (Artifacts, Ir) {
        let mut a = run(text, &CompileOptions::default(), Stage::Ir).expect("compiles");
        let ir = a.ir.take().expect("an IR");
        (a, ir)
    }

    /// `net`, the network of `ir`, plays `seeds` playouts of at most `max_steps` as the
    /// interpreter of `a`'s program does; states compared.
    pub(in crate::codegen::propnet) fn plays_as_interpreter(
        a: &Artifacts,
        ir: &Ir,
        net: &Net,
        seeds: std::ops::RangeInclusive<u64>,
        max_steps: usize,
    ) -> u64 {
        let game = NetGame::new(ir, net);
        let interp = Interpreter::new(&a.program).expect("plays");
        let stats = compare(
            &interp,
            &game,
            ["interpreter", "network"],
            &CompareOptions { seeds, max_steps },
        )
        .unwrap_or_else(|m| panic!("{m}"));
        stats.states
    }

    /// The network of `text` and the interpreter agree on `seeds` playouts.
    fn agree(text: &str, seeds: std::ops::RangeInclusive<u64>) {
        let (a, ir) = ir_of(text);
        let net = super::super::module_net(&ir);
        assert!(plays_as_interpreter(&a, &ir, &net, seeds, 200) > 0);
    }

    #[test]
    fn the_network_of_tic_tac_toe_plays_as_the_interpreter() {
        let text = include_str!("../../../../examples/ticTacToe.kif");
        agree(text, 1..=20);
    }

    #[test]
    fn the_network_of_a_gdl2_game_sees_what_the_interpreter_sees() {
        let text = include_str!("../../../../examples/montyHall.kif");
        agree(text, 1..=20);
    }
}
