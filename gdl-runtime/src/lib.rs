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
//! - [`cli`]: the command line of a compiled game's binary (`trace`, `bench`, `traces`).
//! - `player` (feature `player`): random, flat Monte Carlo and MCTS players over any [`Game`].
//! - `protocol` (feature `player`): the messages of the GGP match protocol and the replies.
//! - `subprocess` (feature `player`): a player in another process over its standard input and
//!   output (how the universal player hands a match to the compiled game).
//! - `http` (feature `http`): the HTTP player, with tokio and hyper.

/// The version of this crate: generated crates that do not name a path to it depend on it
/// by this version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod bench;
pub mod bits;
pub mod cli;
pub mod compare;
pub mod game;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "player")]
pub mod player;
pub mod propnet;
#[cfg(feature = "player")]
pub mod protocol;
pub mod rng;
pub mod sexpr;
#[cfg(feature = "player")]
pub mod subprocess;
pub mod text;
pub mod trace;
pub mod validate;

#[cfg(test)]
mod toy;

pub use game::{Declarations, Declared, Game, RoleIndex};
pub use rng::SplitMix64;
