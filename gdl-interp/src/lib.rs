//! `gdl-interp`: the Game Description Language (GDL) front end and reference interpreter.
//!
//! It reads a description (KIF or infix), checks it (every finding a diagnostic with a code
//! from [`diag::codes`]) and plays it by bottom-up evaluation ([`interp::Interpreter`], a
//! [`gdl_runtime::Game`]): the semantics that the compiler `gdlc` builds on and checks its
//! generated code against. A crate of its own so that a game that embeds the interpreter
//! (a description too large to ground, compiled to one call of [`embedded_game!`]) depends
//! on this and `gdl-runtime`, not on the compiler and its code generator. `gdlc` re-exports
//! the modules under the same names (`gdlc::frontend`, `gdlc::interp`, ...).
//!
//! The library does no file I/O: it takes source text and returns programs, diagnostics and
//! games.
//!
//! ```
//! use gdl_runtime::Game;
//! use gdl_interp::interp::Interpreter;
//!
//! let rules = "(role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (q)) (does r a)) \
//!              (<= terminal (true (q))) (goal r 100)";
//! let game = Interpreter::from_source(rules, &gdl_interp::CheckOptions::default()).expect("valid");
//! let start = game.initial_state();
//! assert!(!game.is_terminal(&start));
//! let mut moves = Vec::new();
//! game.legal_moves(&start, 0, &mut moves);
//! let mut next = start.clone();
//! game.next_state(&start, &moves, &mut next);
//! assert!(game.is_terminal(&next));
//! assert_eq!(game.goal(&next, 0), Some(100));
//!
//! // A description the checker rejects is every error, each with its code.
//! let errors = Interpreter::from_source("(role r) (<= (legal r ?x) (true p))", &Default::default())
//!     .expect_err("unsafe");
//! assert!(errors.iter().any(|d| d.code == "unsafe-variable"));
//! ```

pub mod ast;
pub mod check;
pub mod depgraph;
pub mod diag;
pub mod frontend;
pub mod infix;
pub mod interp;
pub mod magic;
pub mod normalize;
mod parse;
pub mod print;
pub mod scc;
pub mod stratify;
pub mod terms;

pub use ast::Program;
pub use check::{CheckOptions, CheckReport, check};
pub use diag::Diagnostic;
pub use frontend::{Checked, Source, Syntax};
pub use interp::Interpreter;
