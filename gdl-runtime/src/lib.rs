//! The runtime side of `gdlc`: what compiled games and the reference interpreter have in common.
//!
//! - [`Game`]: the state-machine interface every game implements (generated code and the
//!   interpreter in `gdlc` alike).
//! - [`sexpr`]: the one hand-written reader of KIF S-expressions, with byte spans. The compiler
//!   builds its GDL parser on it; the match protocol reads its messages with it.
//! - [`rng`]: the SplitMix64 move chooser of the reference traces.
//! - [`trace`]: seeded random playouts printed in the reference trace format.
//! - [`text`]: whitespace-normalised GDL text, for generated `parse_move`.

pub mod game;
pub mod rng;
pub mod sexpr;
pub mod text;
pub mod trace;

pub use game::{Game, RoleIndex};
pub use rng::SplitMix64;
