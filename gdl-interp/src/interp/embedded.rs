//! The interpreter embedded in a compiled crate: the last resort of compilation.
//!
//! A description too large to ground (even on demand, even with rules left to run-time joins)
//! still compiles: the generated module is one call of [`embedded_game!`](crate::embedded_game),
//! which declares the game struct and implements [`Game`] for it by this interpreter on the
//! description's text, built on first use and shared by every thread (behind a mutex: the
//! interpreter keeps its hash-consed terms and per-state evaluation in one place, and a state
//! is a list of its term ids, so states pass between threads unchanged). Each query does what
//! the reference interpreter does, so the compiled game is exactly as fast as it, per thread.
//!
//! The crate then depends on `gdl-interp` beside `gdl-runtime` (`gdlc`'s `crate_gen` adds it
//! when [`embeds_interpreter`] says so), not on the compiler.

use std::sync::{Mutex, MutexGuard, OnceLock};

use gdl_runtime::RoleIndex;
/// What the code [`embedded_game!`](crate::embedded_game) expands to names.
pub use gdl_runtime::{Declarations, Game};

use super::{Interpreter, TermId};
use crate::check::CheckOptions;
use crate::frontend::Source;

/// The macro call that generated modules of this kind start with (see [`embeds_interpreter`]).
pub const MARKER: &str = "gdl_interp::embedded_game!";

/// Whether the generated module `rust` embeds the interpreter (and so needs `gdl-interp`).
pub fn embeds_interpreter(rust: &str) -> bool {
    rust.lines().any(|l| l.starts_with(MARKER))
}

/// What [`Embedded`] is built from.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// The file name (it decides the syntax: KIF, or infix for `.hrf`).
    pub name: &'static str,
    pub text: &'static str,
    /// [`CheckOptions::lenient_arities`] of the compilation.
    pub lenient_arities: bool,
}

/// An interpreter built on first use from a description embedded in the binary; `Sync`.
#[derive(Debug)]
pub struct Embedded {
    rules: Rules,
    built: OnceLock<Built>,
}

#[derive(Debug)]
struct Built {
    /// `None` when the description was rejected (it passed the same checks when compiled, so
    /// only a different version could do that): the game has no roles and [`Game::fault`] says why.
    interp: Option<Mutex<Interpreter>>,
    roles: Vec<String>,
    declarations: Declarations,
    error: Option<String>,
}

impl Embedded {
    pub const fn new(rules: Rules) -> Embedded {
        Embedded {
            rules,
            built: OnceLock::new(),
        }
    }

    fn built(&self) -> &Built {
        self.built.get_or_init(|| {
            let options = CheckOptions {
                lenient_arities: self.rules.lenient_arities,
                ..CheckOptions::default()
            };
            match Interpreter::from_source(Source::new(self.rules.name, self.rules.text), &options)
            {
                Ok(i) => Built {
                    roles: (0..i.role_count()).map(|r| i.role_name(r).into()).collect(),
                    declarations: i.declarations(),
                    interp: Some(Mutex::new(i)),
                    error: None,
                },
                Err(diagnostics) => Built {
                    interp: None,
                    roles: Vec::new(),
                    declarations: Declarations::default(),
                    error: Some(format!(
                        "{}: the embedded description was rejected: {}",
                        self.rules.name,
                        diagnostics
                            .iter()
                            .map(|d| d.message.as_str())
                            .collect::<Vec<_>>()
                            .join("; ")
                    )),
                },
            }
        })
    }

    /// Runs `f` on the interpreter (`default` when there is none).
    fn with<T>(&self, default: T, f: impl FnOnce(&Interpreter) -> T) -> T {
        match &self.built().interp {
            Some(m) => f(&lock(m)),
            None => default,
        }
    }
}

/// The guard of `m`; a poisoned lock (a panic on another thread) still gives the interpreter,
/// whose every query starts from a state it loads itself.
fn lock(m: &Mutex<Interpreter>) -> MutexGuard<'_, Interpreter> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Game for Embedded {
    type State = Vec<TermId>;
    type Move = TermId;

    fn role_count(&self) -> usize {
        self.built().roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        self.built().roles.get(role).map_or("", String::as_str)
    }

    fn initial_state(&self) -> Vec<TermId> {
        self.with(Vec::new(), |i| i.initial_state())
    }

    fn is_terminal(&self, state: &Vec<TermId>) -> bool {
        // Without an interpreter, every state is terminal: nothing plays on.
        self.with(true, |i| i.is_terminal(state))
    }

    fn legal_moves(&self, state: &Vec<TermId>, role: RoleIndex, out: &mut Vec<TermId>) {
        out.clear();
        self.with((), |i| i.legal_moves(state, role, out))
    }

    fn next_state(&self, state: &Vec<TermId>, joint: &[TermId], next: &mut Vec<TermId>) {
        next.clear();
        self.with((), |i| i.next_state(state, joint, next))
    }

    fn goal(&self, state: &Vec<TermId>, role: RoleIndex) -> Option<i32> {
        self.with(None, |i| i.goal(state, role))
    }

    fn goal_values(&self, state: &Vec<TermId>, role: RoleIndex, out: &mut Vec<Option<i32>>) {
        out.clear();
        self.with((), |i| i.goal_values(state, role, out))
    }

    fn write_move(&self, role: RoleIndex, mv: TermId, out: &mut String) {
        self.with((), |i| i.write_move(role, mv, out))
    }

    fn parse_move(&self, role: RoleIndex, text: &str) -> Option<TermId> {
        self.with(None, |i| i.parse_move(role, text))
    }

    fn write_state(&self, state: &Vec<TermId>, out: &mut Vec<String>) {
        self.with((), |i| i.write_state(state, out))
    }

    fn declarations(&self) -> Declarations {
        self.built().declarations
    }

    fn undeclared_facts(&self, state: &Vec<TermId>, out: &mut Vec<String>) {
        out.clear();
        self.with((), |i| i.undeclared_facts(state, out))
    }

    fn is_declared_move(&self, role: RoleIndex, mv: TermId) -> bool {
        self.with(true, |i| i.is_declared_move(role, mv))
    }

    fn is_random_role(&self, role: RoleIndex) -> bool {
        self.role_name(role) == "random"
    }

    fn percepts(
        &self,
        state: &Vec<TermId>,
        joint: &[TermId],
        role: RoleIndex,
        out: &mut Vec<String>,
    ) {
        self.with((), |i| i.percepts(state, joint, role, out))
    }

    fn fault(&self) -> Option<String> {
        let built = self.built();
        match &built.interp {
            Some(m) => Game::fault(&*lock(m)),
            None => built.error.clone(),
        }
    }
}

/// Declares `pub struct $ty` (a unit struct) and implements [`Game`] for it by an
/// [`Embedded`] interpreter of the description `$text` (file name `$name`, which decides the
/// syntax). What a generated module of a description too large to ground consists of.
#[macro_export]
macro_rules! embedded_game {
    ($ty:ident, $name:expr, $lenient:expr, $text:expr) => {
        /// The game, played by the reference interpreter embedded in the binary.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $ty;

        static ENGINE: $crate::interp::embedded::Embedded =
            $crate::interp::embedded::Embedded::new($crate::interp::embedded::Rules {
                name: $name,
                text: $text,
                lenient_arities: $lenient,
            });

        impl $crate::interp::embedded::Game for $ty {
            type State = ::std::vec::Vec<$crate::interp::TermId>;
            type Move = $crate::interp::TermId;
            fn role_count(&self) -> usize {
                ENGINE.role_count()
            }
            fn role_name(&self, role: usize) -> &str {
                ENGINE.role_name(role)
            }
            fn initial_state(&self) -> Self::State {
                ENGINE.initial_state()
            }
            fn is_terminal(&self, state: &Self::State) -> bool {
                ENGINE.is_terminal(state)
            }
            fn legal_moves(
                &self,
                state: &Self::State,
                role: usize,
                out: &mut ::std::vec::Vec<Self::Move>,
            ) {
                ENGINE.legal_moves(state, role, out)
            }
            fn next_state(
                &self,
                state: &Self::State,
                joint: &[Self::Move],
                next: &mut Self::State,
            ) {
                ENGINE.next_state(state, joint, next)
            }
            fn goal(&self, state: &Self::State, role: usize) -> Option<i32> {
                ENGINE.goal(state, role)
            }
            fn goal_values(
                &self,
                state: &Self::State,
                role: usize,
                out: &mut ::std::vec::Vec<Option<i32>>,
            ) {
                ENGINE.goal_values(state, role, out)
            }
            fn write_move(&self, role: usize, mv: Self::Move, out: &mut ::std::string::String) {
                ENGINE.write_move(role, mv, out)
            }
            fn parse_move(&self, role: usize, text: &str) -> Option<Self::Move> {
                ENGINE.parse_move(role, text)
            }
            fn write_state(
                &self,
                state: &Self::State,
                out: &mut ::std::vec::Vec<::std::string::String>,
            ) {
                ENGINE.write_state(state, out)
            }
            fn declarations(&self) -> $crate::interp::embedded::Declarations {
                ENGINE.declarations()
            }
            fn undeclared_facts(
                &self,
                state: &Self::State,
                out: &mut ::std::vec::Vec<::std::string::String>,
            ) {
                ENGINE.undeclared_facts(state, out)
            }
            fn is_declared_move(&self, role: usize, mv: Self::Move) -> bool {
                ENGINE.is_declared_move(role, mv)
            }
            fn is_random_role(&self, role: usize) -> bool {
                ENGINE.is_random_role(role)
            }
            fn percepts(
                &self,
                state: &Self::State,
                joint: &[Self::Move],
                role: usize,
                out: &mut ::std::vec::Vec<::std::string::String>,
            ) {
                ENGINE.percepts(state, joint, role, out)
            }
            fn fault(&self) -> Option<::std::string::String> {
                ENGINE.fault()
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNTDOWN: &str = "(role a) (role b) (init (n 2)) (init (turn a)) \
        (succ 0 1) (succ 1 2) \
        (<= (legal ?r dec) (true (turn ?r))) (<= (legal ?r noop) (role ?r) (not (true (turn ?r)))) \
        (<= (next (n ?x)) (true (n ?y)) (succ ?x ?y)) \
        (<= (next (turn a)) (true (turn b))) (<= (next (turn b)) (true (turn a))) \
        (<= terminal (true (n 0))) \
        (<= (goal a 100) (true (turn b))) (<= (goal a 0) (true (turn a))) \
        (<= (goal b 100) (true (turn a))) (<= (goal b 0) (true (turn b)))";

    mod game {
        crate::embedded_game!(Countdown, "countdown.kif", false, super::COUNTDOWN);
    }

    #[test]
    fn the_embedded_game_plays_as_the_interpreter() {
        let g = game::Countdown;
        let reference = Interpreter::from_source(COUNTDOWN, &CheckOptions::default()).unwrap();
        assert_eq!(g.role_count(), 2);
        assert_eq!(g.role_name(1), "b");
        let mut state = g.initial_state();
        let mut expected = reference.initial_state();
        let (mut moves, mut joint, mut next) = (Vec::new(), Vec::new(), Vec::new());
        let mut steps = 0;
        while !g.is_terminal(&state) {
            assert!(!reference.is_terminal(&expected));
            let mut texts = Vec::new();
            g.write_state(&state, &mut texts);
            let mut reference_texts = Vec::new();
            reference.write_state(&expected, &mut reference_texts);
            assert_eq!(texts, reference_texts);
            joint.clear();
            let mut reference_joint = Vec::new();
            for r in 0..2 {
                g.legal_moves(&state, r, &mut moves);
                assert_eq!(moves.len(), 1);
                let text = g.move_text(r, moves[0]);
                reference_joint.push(reference.parse_move(r, &text).unwrap());
                joint.push(moves[0]);
            }
            g.next_state(&state, &joint, &mut next);
            std::mem::swap(&mut state, &mut next);
            let mut reference_next = Vec::new();
            reference.next_state(&expected, &reference_joint, &mut reference_next);
            expected = reference_next;
            steps += 1;
        }
        assert_eq!(steps, 2);
        assert!(reference.is_terminal(&expected));
        // Two steps: a moved, then b; a state where a is to move again.
        assert_eq!(g.goal(&state, 0), Some(0));
        assert_eq!(g.goal(&state, 1), Some(100));
        assert_eq!(g.fault(), None);
        let dec = g.parse_move(0, "dec");
        assert!(dec.is_some_and(|m| g.move_text(0, m) == "dec"));
    }

    #[test]
    fn a_rejected_description_is_a_fault_not_a_panic() {
        static BROKEN: Embedded = Embedded::new(Rules {
            name: "broken.kif",
            text: "(role a) (<= (legal a ?x) (true (p)))",
            lenient_arities: false,
        });
        assert_eq!(BROKEN.role_count(), 0);
        assert!(BROKEN.is_terminal(&Vec::new()));
        assert!(BROKEN.fault().is_some_and(|f| f.contains("rejected")));
    }

    #[test]
    fn the_marker_is_found_at_a_line_start() {
        assert!(embeds_interpreter(
            "//! x\ngdl_interp::embedded_game!(A, \"a.kif\", false, \"\");\n"
        ));
        assert!(!embeds_interpreter(
            "//! gdl_interp::embedded_game! in a comment\n"
        ));
    }
}
