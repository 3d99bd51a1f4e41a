//! The [`Game`] trait: a GDL description seen as a state machine.

use std::fmt::Debug;
use std::hash::Hash;

use crate::SplitMix64;

/// A role's position in the order of the description's `(role ...)` facts.
pub type RoleIndex = usize;

/// A game as a deterministic state machine: roles, initial state, legal moves, transition,
/// terminal test and goal values.
///
/// The interface is shaped so that a playout loop allocates nothing per step: legal moves are
/// written into a caller-owned buffer, the next state into a caller-owned state, and moves are
/// small `Copy` handles (dense indices in generated code). Text only appears at the edges
/// ([`Game::write_move`], [`Game::parse_move`], [`Game::write_state`]), for traces and the
/// match protocol.
///
/// GDL-II fits without a change of shape: the role `random` is an ordinary role whose moves the
/// caller draws uniformly ([`Game::is_random_role`]), and `sees` percepts come from
/// [`Game::percepts`], which games without `sees` leave at its default.
pub trait Game {
    /// A game state: the set of base propositions that hold.
    type State: Clone + Eq + Hash + Debug;
    /// One role's move. Meaningful only together with the role that makes it.
    type Move: Copy + Eq + Hash + Debug;

    /// The number of roles.
    fn role_count(&self) -> usize;

    /// The name of a role, as the description spells it.
    fn role_name(&self, role: RoleIndex) -> &str;

    /// The state that the `init` facts describe.
    fn initial_state(&self) -> Self::State;

    /// Whether `terminal` holds in `state`.
    fn is_terminal(&self, state: &Self::State) -> bool;

    /// Replaces the contents of `out` with the legal moves of `role` in `state`, without
    /// duplicates. The order is the game's own, fixed for a given state.
    fn legal_moves(&self, state: &Self::State, role: RoleIndex, out: &mut Vec<Self::Move>);

    /// A legal move of `role` in `state` drawn with `rng`: the `rng.below(n)`-th of the `n`
    /// moves [`Game::legal_moves`] lists (one draw, also when `n` is 1); `None`, without a
    /// draw, when there is none. The default lists them into `scratch`; generated games draw
    /// from words of legal bits without listing ([`crate::bits::pick_move`]), the same move.
    #[inline]
    fn random_legal_move(
        &self,
        state: &Self::State,
        role: RoleIndex,
        rng: &mut SplitMix64,
        scratch: &mut Vec<Self::Move>,
    ) -> Option<Self::Move> {
        self.legal_moves(state, role, scratch);
        if scratch.is_empty() {
            return None;
        }
        Some(scratch[rng.below(scratch.len())])
    }

    /// One step of a random playout: every role in order draws its move as
    /// [`Game::random_legal_move`] does (the same draws), and the state that follows the joint
    /// move is written into `next`. `Err(role)` when `role` has no legal move (the roles before
    /// it have drawn; `next` is unspecified). The default calls [`Game::random_legal_move`]
    /// (with `scratch`) and [`Game::next_state`] (with `joint`, which it fills); generated
    /// games draw and step without either buffer, the joint move held in registers.
    #[inline]
    fn random_step(
        &self,
        state: &Self::State,
        rng: &mut SplitMix64,
        scratch: &mut Vec<Self::Move>,
        joint: &mut Vec<Self::Move>,
        next: &mut Self::State,
    ) -> Result<(), RoleIndex> {
        default_random_step(self, state, rng, scratch, joint, next)
    }

    /// Writes into `next` the state that follows `state` when every role `r` plays `joint[r]`.
    /// `joint` holds one move per role, in role order.
    fn next_state(&self, state: &Self::State, joint: &[Self::Move], next: &mut Self::State);

    /// The goal value of `role` in `state`: `None` when the description gives none, or more than
    /// one.
    fn goal(&self, state: &Self::State, role: RoleIndex) -> Option<i32>;

    /// Replaces the contents of `out` with every goal value of `role` in `state`, each once, in
    /// no particular order (`None` stands for a value that is no integer). [`Game::goal`] is `Some(v)`
    /// exactly when this is `[Some(v)]`. The default knows only what [`Game::goal`] says, so it
    /// cannot tell several values from none; generated games and the interpreter give the
    /// real list (`gdl_tools::validate` needs it).
    fn goal_values(&self, state: &Self::State, role: RoleIndex, out: &mut Vec<Option<i32>>) {
        out.clear();
        out.extend(self.goal(state, role).map(Some));
    }

    /// Appends the GDL text of a move of `role`, e.g. `(mark 1 1)` or `noop`.
    fn write_move(&self, role: RoleIndex, mv: Self::Move, out: &mut String);

    /// Reads a move of `role` from GDL text (as the match protocol sends it). Whitespace between
    /// tokens is free; `None` when the text is no move this game knows for that role.
    fn parse_move(&self, role: RoleIndex, text: &str) -> Option<Self::Move>;

    /// Appends the GDL text of every base proposition true in `state`, one string each, in no
    /// particular order and without duplicates.
    fn write_state(&self, state: &Self::State, out: &mut Vec<String>);

    /// The text of each state fact a state can hold, by bit: fact `i` holds in a state when
    /// bit `i % 64` of word `i / 64` of [`Game::fact_bits`] is set. `None` (the default) when
    /// the game does not see its states as words of fact bits; generated games and the
    /// in-process network do. The search's heuristics read it once, at the start clock.
    fn fact_names(&self) -> Option<Vec<String>> {
        None
    }

    /// The words of fact bits of `state` ([`Game::fact_names`] names the bits); `None` (the
    /// default) when the game has no such view. Facts that hold in every state are not bits.
    fn fact_bits<'a>(&self, state: &'a Self::State) -> Option<&'a [u64]> {
        let _ = state;
        None
    }

    /// Which of `base` (the state facts) and `input` (the moves) the description declares,
    /// for [`Game::undeclared_facts`] and [`Game::is_declared_move`]. The default: neither.
    fn declarations(&self) -> Declarations {
        Declarations::default()
    }

    /// Replaces the contents of `out` with the GDL text of every fact of `state` that no
    /// `base` fact declares, in [`Game::write_state`]'s order; empty unless
    /// [`Game::declarations`] says `base` was [`Declared::Given`]. Generated games test a mask
    /// of the state words, so the empty answer is cheap.
    fn undeclared_facts(&self, state: &Self::State, out: &mut Vec<String>) {
        let _ = state;
        out.clear();
    }

    /// Whether an `input` fact declares `mv` of `role` (`true` unless [`Game::declarations`]
    /// says `input` was [`Declared::Given`]).
    fn is_declared_move(&self, role: RoleIndex, mv: Self::Move) -> bool {
        let _ = (role, mv);
        true
    }

    /// How many moves `role` has in the whole game when moves are dense indices: then
    /// [`Game::move_index`] maps each of them below this number. `None` (the default) when
    /// moves are not numbered so; generated games number them.
    fn move_count(&self, role: RoleIndex) -> Option<usize> {
        let _ = role;
        None
    }

    /// The dense index of `mv` among `role`'s moves (below [`Game::move_count`]), for tables
    /// of per-move statistics; `None` (the default) when moves are not numbered so.
    fn move_index(&self, role: RoleIndex, mv: Self::Move) -> Option<usize> {
        let _ = (role, mv);
        None
    }

    /// Whether `role` is GDL-II's `random`, whose moves are drawn uniformly by the caller.
    fn is_random_role(&self, role: RoleIndex) -> bool {
        self.role_name(role) == "random"
    }

    /// GDL-II: appends the GDL text of every percept `p` such that `(sees role p)` holds after
    /// `joint` is played in `state`, in byte order of the text and without duplicates (the
    /// interpreter and compiled games agree on the order). Games without `sees` see nothing.
    fn percepts(
        &self,
        state: &Self::State,
        joint: &[Self::Move],
        role: RoleIndex,
        out: &mut Vec<String>,
    ) {
        let _ = (state, joint, role, out);
    }

    /// Why the game could not answer a query, if it could not: an engine past its step or
    /// memory budget (the interpreter) says so here, names the rule, and answers nothing
    /// more. Callers that play on check it after each step (`gdl_tools::trace` does). Compiled
    /// games always answer.
    fn fault(&self) -> Option<String> {
        None
    }

    /// The text of one move; a convenience over [`Game::write_move`].
    fn move_text(&self, role: RoleIndex, mv: Self::Move) -> String {
        let mut s = String::new();
        self.write_move(role, mv, &mut s);
        s
    }
}

/// Whether a description declares its state facts (`base`) or its moves (`input`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Declared {
    /// It has no such rule.
    #[default]
    Absent,
    /// It has, and the engine knows every declared fact.
    Given,
    /// It has, but they could not be evaluated (they read the state, or are too large).
    Unevaluated,
}

/// What [`Game::declarations`] says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Declarations {
    pub base: Declared,
    pub input: Declared,
}

/// What [`Game::random_step`] does unless a game overrides it (and what a compiled binary's
/// `traces` check compares an override with): each role's [`Game::random_legal_move`] into
/// `joint`, then [`Game::next_state`].
pub fn default_random_step<G: Game + ?Sized>(
    game: &G,
    state: &G::State,
    rng: &mut SplitMix64,
    scratch: &mut Vec<G::Move>,
    joint: &mut Vec<G::Move>,
    next: &mut G::State,
) -> Result<(), RoleIndex> {
    joint.clear();
    for r in 0..game.role_count() {
        let m = game.random_legal_move(state, r, rng, scratch).ok_or(r)?;
        joint.push(m);
    }
    game.next_state(state, joint, next);
    Ok(())
}
