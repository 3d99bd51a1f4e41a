//! The runtime of games compiled from GDL: the [`Game`] trait they implement and what their
//! generated code calls. A game embedded with `gdl!` or built by `gdlc build` links this crate
//! (and `gdl-propnet` when it runs on a propositional network); nothing else is needed to play
//! it.
//!
//! - [`Game`]: the state-machine interface every game implements (generated code and the
//!   interpreter in `gdlc` alike).
//! - [`bits`]: legal moves as words of bits, listed or drawn (the inline code's legal moves).
//! - [`rng`]: the SplitMix64 move chooser of the reference traces.
//! - [`text`]: whitespace-normalised GDL text, for generated `parse_move`.
//! - [`sexpr`]: the one hand-written reader of KIF S-expressions, with byte spans. The compiler
//!   builds its GDL parser on it; the match protocol reads its messages with it.
//!
//! The tools that run a game (traces, the benchmark loop, the differential checker, the
//! validator, a game binary's command line) are the crate `gdl-tools`; the players and the
//! match protocol are `gdl-player`; the propositional network engine is `gdl-propnet`.
//!
//! A random playout of any game:
//!
//! ```
//! use gdl_runtime::{Game, SplitMix64};
//!
//! /// The goal values at the end of a uniformly random playout (`None`: a role had no legal
//! /// move, or no goal value at the end).
//! fn playout<G: Game>(game: &G, seed: u64) -> Option<Vec<i32>> {
//!     let mut rng = SplitMix64::new(seed);
//!     let (mut state, mut next) = (game.initial_state(), game.initial_state());
//!     let (mut joint, mut scratch) = (Vec::new(), Vec::new());
//!     while !game.is_terminal(&state) {
//!         joint.clear();
//!         for role in 0..game.role_count() {
//!             joint.push(game.random_legal_move(&state, role, &mut rng, &mut scratch)?);
//!         }
//!         game.next_state(&state, &joint, &mut next);
//!         std::mem::swap(&mut state, &mut next);
//!     }
//!     (0..game.role_count()).map(|r| game.goal(&state, r)).collect()
//! }
//! ```

/// The version of this crate: generated crates that do not name a path to it depend on it
/// by this version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod bits;
pub mod game;
pub mod rng;
pub mod sexpr;
pub mod text;

/// Toy games for unit tests (the tests of crates built on this one, with the feature `toy`):
/// not part of the API.
#[cfg(any(test, feature = "toy"))]
#[doc(hidden)]
pub mod toy;

pub use game::{Declarations, Declared, Game, RoleIndex};
pub use rng::SplitMix64;
