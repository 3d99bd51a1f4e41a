//! The runtime side of `gdlc`: what compiled games and the reference interpreter have in common.
//!
//! - [`Game`]: the state-machine interface every game implements (generated code and the
//!   interpreter in `gdlc` alike).
//! - [`sexpr`]: the one hand-written reader of KIF S-expressions, with byte spans. The compiler
//!   builds its GDL parser on it; the match protocol reads its messages with it.
//! - [`rng`]: the SplitMix64 move chooser of the reference traces.
//! - [`trace`]: seeded random playouts printed in the reference trace format.
//! - [`text`]: whitespace-normalised GDL text, for generated `parse_move`.
//! - [`propnet`]: the incremental propositional network that large compiled games run on.
//! - [`bench`](mod@bench): the benchmark loop (uniformly random playouts for T seconds).
//! - [`bits`]: legal moves as words of bits, listed or drawn (the inline code's legal moves).
//! - [`validate`]: a game's reachable graph explored (exhaustively, else sampled) for what
//!   makes it ill-formed, each finding with the moves that show it.
//! - [`compare`]: differential testing of two engines of one game over seeded playouts.
//! - [`cli`]: the command line of a compiled game's binary (`trace`, `bench`, `traces`,
//!   `validate`).
//!
//! The players and the match protocol are the crate `gdl-player`.

/// The version of this crate: generated crates that do not name a path to it depend on it
/// by this version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod bench;
pub mod bits;
pub mod cli;
pub mod compare;
pub mod game;
pub mod propnet;
pub mod rng;
pub mod sexpr;
pub mod text;
pub mod trace;
pub mod validate;

/// Toy games for unit tests (this crate's, and with the feature `toy` those of crates built
/// on it): not part of the API.
#[cfg(any(test, feature = "toy"))]
#[doc(hidden)]
pub mod toy;

pub use game::{Declarations, Declared, Game, RoleIndex};
pub use rng::SplitMix64;
