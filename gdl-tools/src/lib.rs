//! What a compiled game's binary runs besides the game: the tools that play a
//! [`Game`](gdl_runtime::Game) to check it, compare it or time it, and the command line that
//! calls them. Games themselves need only `gdl-runtime`; the binaries `gdlc build` writes, the
//! players' binaries, `gdlc` and the test harnesses depend on this crate.
//!
//! - [`trace`]: seeded random playouts printed in the reference trace format.
//! - [`bench`](mod@bench): the benchmark loop (uniformly random playouts for T seconds).
//! - [`compare`]: differential testing of two engines of one game over seeded playouts.
//! - [`validate`]: a game's reachable graph explored (exhaustively, else sampled) for what
//!   makes it ill-formed, each finding with the moves that show it.
//! - [`cli`]: the command line of a compiled game's binary (`trace`, `bench`, `traces`,
//!   `roles`, `validate`).
//!
//! A generated binary's `main` is one call, `gdl_tools::cli::main_for(&my_game::TicTacToe,
//! "ticTacToe")`; a program can call the tools directly on any [`Game`](gdl_runtime::Game):
//!
//! ```
//! use gdl_tools::trace::{TraceOptions, write_trace};
//! # use gdl_runtime::toy::Countdown as MyGame; // a toy game of the tests
//! # let game = MyGame::new(3);
//! // `game`: any `Game`, such as a module compiled by `gdl!` or `gdlc`.
//! let mut trace = String::new();
//! write_trace(&game, &TraceOptions::default(), &mut trace).expect("plays to the end");
//! assert!(trace.contains("terminal"));
//! ```

pub mod bench;
pub mod cli;
pub mod compare;
pub mod trace;
pub mod validate;
