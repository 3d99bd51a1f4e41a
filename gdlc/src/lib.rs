//! `gdlc`: a compiler from the Game Description Language (GDL) to specialised Rust.
//!
//! The library does no file I/O: it takes source text and returns programs, diagnostics and
//! code. See `ARCHITECTURE.md` at the repository root for the passes and their invariants.
//!
//! A description compiled into a Rust module (what `gdlc emit` prints and `gdl!` expands to),
//! and played by the reference interpreter:
//!
//! ```
//! use gdl_runtime::Game;
//!
//! let rules = "(role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (q)) (does r a)) \
//!              (<= terminal (true (q))) (goal r 100)";
//! let compiled = gdlc::compile(rules, &gdlc::CompileOptions::for_game("tiny")).expect("valid");
//! assert_eq!(compiled.type_name, "Tiny");
//! assert!(compiled.rust.contains("impl Game for Tiny"));
//!
//! let options = gdlc::CheckOptions::default();
//! let game = gdlc::interp::Interpreter::from_source(rules, &options).expect("valid");
//! assert!(!game.is_terminal(&game.initial_state()));
//! ```

pub mod alloc;
pub mod cargo;
pub mod codegen;
pub mod crate_gen;
pub mod ground;
pub mod inert;
pub mod ir;
pub mod optimise;
pub mod pipeline;
pub mod progress;
pub mod project;

// The front end, the checker and the interpreter live in `gdl-interp` (which a game that
// embeds the interpreter depends on without the compiler); under their old paths here.
pub use gdl_interp::{
    ast, check, depgraph, diag, frontend, infix, interp, magic, normalize, print, scc, stratify,
    terms,
};

pub use ast::Program;
pub use check::{CheckOptions, CheckReport};
pub use diag::Diagnostic;
pub use frontend::{Checked, Source, Syntax};
pub use pipeline::{CompileOptions, Compiled, compile};
pub use progress::{Pass, Progress, ProgressHook};
