//! A game's network played in this process, owning all it reads: the [`Game`] a propnet
//! module implements, built from an [`Ir`] in the time it takes to build the network, without
//! generating or compiling Rust. The universal player (`gdlc play`) plays with it while the
//! compiled game is built, and the differential tests compare it with the interpreter
//! (`in_process.rs`, `gdlc/tests/mutations.rs`). It borrows nothing, so a match can keep it.
//!
//! States are the words of the state bits, moves their index in the role's move table (the
//! IR's move texts, in byte order), as in a generated module; moves are read as the match
//! protocol sends them (any layout of the same term, [`gdl_runtime::text::normalize`]).

use std::cell::RefCell;
use std::sync::Arc;

use gdl_propnet::{Engine, Net};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

use crate::ir::Ir;

/// The game of an IR played by the incremental engine of its network (see the module
/// documentation).
pub struct OwnedNetGame {
    /// The engine, which borrows `*net`. Declared before `net`, so dropped before it.
    engine: RefCell<Engine<'static>>,
    net: Arc<Net>,
    roles: Vec<String>,
    /// Per role, its move texts in byte order.
    moves: Vec<Vec<String>>,
    /// The text of each state bit's fact.
    bits: Vec<String>,
    constant_facts: Vec<String>,
    /// GDL-II: per role, the text of each percept, in the order of the network's.
    sees: Vec<Vec<String>>,
}

impl OwnedNetGame {
    /// The game of `ir`, on its network ([`module_net`](super::module_net), what a propnet
    /// module runs). Keeps the names of `ir` and drops the rest.
    pub fn new(ir: Ir) -> OwnedNetGame {
        let net = super::module_net(&ir);
        OwnedNetGame::on(ir, net)
    }

    /// The game of `ir` on `net`, which must be `module_net(ir)` or a network of the same
    /// bits, moves and outputs (differential tests give a transformed one).
    pub fn on(ir: Ir, net: Net) -> OwnedNetGame {
        let net = Arc::new(net);
        // SAFETY: the engine borrows the network behind the `Arc`, which stays at its address
        // as long as a clone of the `Arc` lives: `self.net` is one, is never replaced, and is
        // dropped after `self.engine` (fields are dropped in declaration order). The engine
        // is private, and no method hands out the engine or anything borrowed from it, so
        // the `'static` borrow is never seen outside this struct.
        let net_ref: &'static Net = unsafe { &*Arc::as_ptr(&net) };
        let engine = RefCell::new(Engine::new(net_ref));
        let Ir {
            roles,
            bits,
            constant_facts,
            moves,
            sees,
            ..
        } = ir;
        OwnedNetGame {
            engine,
            net,
            roles,
            moves,
            bits,
            constant_facts,
            sees: sees
                .into_iter()
                .map(|s| s.into_iter().map(|p| p.text).collect())
                .collect(),
        }
    }

    /// The network played.
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// Whether the game has GDL-II percepts.
    pub fn has_percepts(&self) -> bool {
        self.sees.iter().any(|s| !s.is_empty())
    }

    /// Runs `f` on the engine synced to `state`.
    fn with<T>(&self, state: &[u64], f: impl FnOnce(&mut Engine<'static>) -> T) -> T {
        let mut e = self.engine.borrow_mut();
        e.set_state(state);
        f(&mut e)
    }
}

impl Game for OwnedNetGame {
    type State = Vec<u64>;
    type Move = u32;

    fn role_count(&self) -> usize {
        self.roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        self.roles.get(role).map_or("", String::as_str)
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

    fn random_legal_move(
        &self,
        state: &Vec<u64>,
        role: RoleIndex,
        rng: &mut SplitMix64,
        _scratch: &mut Vec<u32>,
    ) -> Option<u32> {
        self.with(state, |e| e.random_legal(role, rng))
    }

    fn random_step(
        &self,
        state: &Vec<u64>,
        rng: &mut SplitMix64,
        _scratch: &mut Vec<u32>,
        _joint: &mut Vec<u32>,
        next: &mut Vec<u64>,
    ) -> Result<(), RoleIndex> {
        next.clear();
        next.resize(self.net.init.len(), 0);
        self.with(state, |e| e.random_step(rng, next))
    }

    fn next_state(&self, state: &Vec<u64>, joint: &[u32], next: &mut Vec<u64>) {
        next.clear();
        next.resize(self.net.init.len(), 0);
        self.with(state, |e| e.step(joint, next));
    }

    fn goal(&self, state: &Vec<u64>, role: RoleIndex) -> Option<i32> {
        self.with(state, |e| e.goal(role))
    }

    fn goal_values(&self, state: &Vec<u64>, role: RoleIndex, out: &mut Vec<Option<i32>>) {
        out.clear();
        self.with(state, |e| e.goal_values(role, out));
    }

    fn write_move(&self, role: RoleIndex, mv: u32, out: &mut String) {
        if let Some(text) = self.moves.get(role).and_then(|m| m.get(mv as usize)) {
            out.push_str(text);
        }
    }

    fn parse_move(&self, role: RoleIndex, text: &str) -> Option<u32> {
        let text = gdl_runtime::text::normalize(text)?;
        let moves = self.moves.get(role)?;
        let i = moves.binary_search_by(|m| m.as_str().cmp(&text)).ok()?;
        u32::try_from(i).ok()
    }

    fn write_state(&self, state: &Vec<u64>, out: &mut Vec<String>) {
        out.extend(self.constant_facts.iter().cloned());
        for (i, fact) in self.bits.iter().enumerate() {
            if state.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0) {
                out.push(fact.clone());
            }
        }
    }

    fn fact_names(&self) -> Option<Vec<String>> {
        Some(self.bits.clone())
    }

    fn fact_bits<'a>(&self, state: &'a Vec<u64>) -> Option<&'a [u64]> {
        Some(state)
    }

    fn percepts(&self, state: &Vec<u64>, joint: &[u32], role: RoleIndex, out: &mut Vec<String>) {
        let mut seen = Vec::new();
        self.with(state, |e| {
            e.set_joint(joint);
            e.sees(role, &mut seen);
        });
        let texts = self.sees.get(role).map_or(&[][..], Vec::as_slice);
        out.extend(seen.iter().filter_map(|&k| texts.get(k as usize)).cloned());
    }
}

#[cfg(test)]
mod tests {
    use gdl_tools::compare::{CompareOptions, compare};

    use super::*;

    /// The owned game of `text` and the interpreter agree on `seeds` playouts (states,
    /// legal moves, goals, percepts, move texts: what [`compare`] compares); the number of
    /// states compared.
    fn agree(text: &str, seeds: std::ops::RangeInclusive<u64>) -> u64 {
        let (a, ir) = super::super::in_process::tests::ir_of(text);
        let game = OwnedNetGame::new(ir);
        let interp = super::super::in_process::tests::interpreter(&a);
        compare(
            &interp,
            &game,
            ["interpreter", "owned network"],
            &CompareOptions {
                seeds,
                max_steps: 300,
            },
        )
        .unwrap_or_else(|m| panic!("{m}"))
        .states
    }

    #[test]
    fn the_owned_network_plays_as_the_interpreter() {
        for text in [
            include_str!("../../../../examples/ticTacToe.kif"),
            include_str!("../../../../examples/connectFour.kif"),
            include_str!("../../../../examples/breakthrough.kif"),
        ] {
            assert!(agree(text, 1..=10) > 50);
        }
    }

    #[test]
    fn random_draws_and_steps_are_the_defaults() {
        use gdl_tools::trace::{TraceExtras, TraceOptions, write_trace_with};
        let text = include_str!("../../../../examples/breakthrough.kif");
        let (_, ir) = super::super::in_process::tests::ir_of(text);
        let game = OwnedNetGame::new(ir);
        let extras = TraceExtras {
            random_moves: true,
            ..TraceExtras::default()
        };
        for seed in 1..=5 {
            let options = TraceOptions {
                seed,
                max_steps: 300,
            };
            let mut out = String::new();
            let traced = write_trace_with(&game, &options, &extras, &mut out);
            assert!(traced.is_ok(), "seed {seed}: {traced:?}");
        }
    }

    #[test]
    fn the_owned_network_sees_what_the_interpreter_sees() {
        let text = include_str!("../../../../examples/montyHall.kif");
        assert!(agree(text, 1..=20) > 0);
        let (_, ir) = super::super::in_process::tests::ir_of(text);
        assert!(OwnedNetGame::new(ir).has_percepts());
    }

    #[test]
    fn moves_are_read_in_any_layout_and_written_as_the_ir_names_them() {
        let text = include_str!("../../../../examples/ticTacToe.kif");
        let (_, ir) = super::super::in_process::tests::ir_of(text);
        let game = OwnedNetGame::new(ir);
        let mv = game.parse_move(0, "( mark  1 1 )").expect("a move");
        assert_eq!(game.move_text(0, mv), "(mark 1 1)");
        assert_eq!(game.parse_move(0, "(mark 1 9)"), None);
        assert_eq!(game.parse_move(0, "(mark 1"), None);
        assert_eq!(game.parse_move(5, "noop"), None);
        let mut legal = Vec::new();
        game.legal_moves(&game.initial_state(), 0, &mut legal);
        assert!(legal.contains(&mv));
        assert!(!game.has_percepts());
    }
}
