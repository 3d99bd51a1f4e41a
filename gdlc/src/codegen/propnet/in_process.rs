//! Differential tests of the network in this process: the [`Game`](gdl_runtime::Game) a
//! propnet module implements, played by [`OwnedNetGame`](super::OwnedNetGame) without
//! generating or compiling its Rust, compared with the interpreter, so that grounding,
//! lowering, optimisation and the incremental engine are checked on descriptions no one
//! compiled (mutants), in milliseconds rather than a rustc build each. The inline backend is
//! not covered: its code only exists once compiled.

#[cfg(test)]
pub(super) mod tests {
    use gdl_propnet::Net;
    use gdl_tools::compare::{CompareOptions, compare};

    use super::super::OwnedNetGame;
    use crate::interp::Interpreter;
    use crate::ir::Ir;
    use crate::pipeline::{Artifacts, CompileOptions, Pass, run};

    /// The IR of `text` (compiled up to the IR stage), with the artifacts it came from.
    pub(in crate::codegen::propnet) fn ir_of(text: &str) -> (Artifacts, Ir) {
        let mut a = run(text, &CompileOptions::default(), Pass::Optimise).expect("compiles");
        let ir = a.ir.take().expect("an IR");
        (a, ir)
    }

    /// The interpreter of the program the pipeline checked in `a`.
    pub(in crate::codegen::propnet) fn interpreter(a: &Artifacts) -> Interpreter {
        let checked = crate::frontend::Checked {
            program: a.program.clone(),
            strata: None,
            warnings: Vec::new(),
        };
        Interpreter::from_checked(&checked, Default::default()).expect("plays")
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
        let game = OwnedNetGame::on(ir.clone(), net.clone());
        let interp = interpreter(a);
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
