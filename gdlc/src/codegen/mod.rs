//! Code generation: the [`Ir`] of a game as one Rust module implementing
//! [`gdl_runtime::Game`].
//!
//! Every module holds a unit struct for the game, a `Copy` bitset `State([u64; N])` over the
//! state bits, and name tables (`ROLES`, `BITS`, `CONSTANT_FACTS`, `MOVES`; for a description
//! with `base` / `input`, what they do not declare: `declared`). Moves are `u32`
//! indices into the role's `MOVES` table, which is in byte order of the texts: legal moves are
//! listed in that order and `parse_move` binary-searches the table. How the outputs are
//! computed depends on the [`Backend`]:
//!
//! - [`Backend::Inline`] ([`inline`]): one plain function per output, straight-line code over
//!   the state words (the fastest for small and medium games);
//! - [`Backend::Propnet`] ([`propnet`]): the circuit as data for the incremental engine of
//!   [`gdl_propnet`], which re-evaluates only what a step changes. Its code is small
//!   whatever the game, so rustc builds it in seconds.
//!
//! [`Backend::Auto`] picks the inline code when the circuit is small enough
//! ([`CodegenOptions::inline_limit`]), the cost model expects it to be faster, and its text
//! stays short enough for rustc to build quickly ([`CodegenOptions::inline_max_bytes`]).

mod declared;
pub mod embedded;
pub mod inline;
mod move_values;
mod moves;
pub mod propnet;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::Ir;
use crate::progress::ProgressHook;

/// How the outputs of a game are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Inline code for small circuits, the propnet engine for large ones.
    #[default]
    Auto,
    /// Straight-line code per output.
    Inline,
    /// Tables for the incremental propnet engine of `gdl-runtime`.
    Propnet,
}

impl Backend {
    /// Every backend, in the order of [`Backend::name`]'s documentation.
    pub const ALL: [Backend; 3] = [Backend::Auto, Backend::Inline, Backend::Propnet];

    /// Its name on command lines and in reports: `auto`, `inline` or `propnet`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Inline => "inline",
            Backend::Propnet => "propnet",
        }
    }

    /// The backend called `name` ([`Backend::name`]).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// Options of [`generate`].
#[derive(Clone, Debug)]
pub struct CodegenOptions {
    /// The name of the game struct, a Rust type name (`TicTacToe`).
    pub type_name: String,
    /// Where the description came from, for the header comment.
    pub source_name: String,
    /// The most literals (plus one per prop) that one generated function computes before
    /// the cone is split into `#[inline(never)]` chunks.
    pub chunk_props: usize,
    /// When inlining the cone of every output function into it would make more literals
    /// (plus one per prop) than this, props are computed once, in shared chunk functions.
    pub inline_props: usize,
    /// How much of the GDL to repeat in comments.
    pub comments: Comments,
    /// The backend.
    pub backend: Backend,
    /// The line of each source rule (by its index in `Program::rules`), for the comments that
    /// say which rules derive a prop; empty: no lines.
    pub rule_lines: Vec<u32>,
    /// [`Backend::Auto`] generates inline code when the circuit has at most this many
    /// literals (plus one per prop), and the propnet otherwise.
    pub inline_limit: usize,
    /// [`Backend::Auto`] generates the propnet when the inline code would be longer than this
    /// many bytes, which rustc would take too long to build with the release profile of
    /// generated crates (BENCHMARKS.md: about 10 s for 1.5-2 MB, 30 s for 5 MB, over 90 s for
    /// 7-8 MB; 3 MB of kalaha5x2x3 took 93 s on a loaded machine). 2.1 MB: reversi's
    /// per-move arms (`played_<r>`) bring it to 2.0 MB.
    pub inline_max_bytes: usize,
    /// Past this many moves (of all roles), the `MOVES` table is one text per role, split
    /// on first use, rather than a string literal per move (`codegen/moves.rs`).
    pub moves_text_min: usize,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            type_name: "Game".to_string(),
            source_name: "a GDL description".to_string(),
            chunk_props: 3000,
            inline_props: 20_000,
            comments: Comments::Props,
            backend: Backend::Auto,
            inline_limit: 40_000,
            inline_max_bytes: 2_100_000,
            rule_lines: Vec::new(),
            moves_text_min: 20_000,
        }
    }
}

/// Comments in generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comments {
    /// None beyond the header.
    None,
    /// The ground atom of every prop, as a doc comment on its `let`.
    Props,
}

/// The backend [`generate`] uses for `ir`.
pub fn chosen_backend(ir: &Ir, options: &CodegenOptions) -> Backend {
    if !ir.joins.is_empty() {
        // Joins are evaluated by the propnet engine.
        return Backend::Propnet;
    }
    match options.backend {
        Backend::Auto => {
            let size: usize = (0..ir.props.len() as u32).map(|p| ir.prop_weight(p)).sum();
            if size > options.inline_limit {
                return Backend::Propnet;
            }
            let inline = inline::cost_per_state(ir) as f64;
            let net = propnet::build_net(ir);
            let visits = propnet::visits_per_state(&net);
            tracing::debug!(size, inline, visits, "backend cost model");
            if inline_nanos(inline) <= propnet_nanos(visits) {
                Backend::Inline
            } else {
                Backend::Propnet
            }
        }
        b => b,
    }
}

/// The estimated time (ns) of a state of a playout in inline code whose output functions
/// evaluate `literals` literals in all (each counted once per output that reads it). Fitted to
/// both backends measured in alternating pairs on this project's machines (2026-11-24,
/// `gdlc bench --engine compiled --backend inline|propnet`): about 0.06-0.19 ns per literal up
/// to a few thousand (tic-tac-toe 323 literals: 47 ns; nineBoardTicTacToe 3,291: 320-420 ns),
/// and more per literal as the code outgrows the caches (englishDraughts 10,475: 3,100-4,300 ns;
/// reversi 23,885: 6,700-8,400 ns; checkers 31,733: 11,000 ns). Refitted (2026-11-28, per CPU
/// s, three alternating pairs each, load 1.0-1.3) when inline code got cheaper per literal
/// (shift families, terminal's stuck test from the legal words): the five corpus games whose
/// choice a superlinear term of `literals / 25,000` instead of `/ 15,000` flips, inline /
/// propnet: knightwar 128-132k / 66-70k, futoshiki6 309-312k / 160-162k, checkers
/// 12.1-12.7k / 10.0-10.5k, checkers-newgoals 12.0-12.3k / 11.0-11.1k, 4pffa 30.8-31.6k /
/// 36.5-37.8k (the one it gets wrong, by 1.2x; no term of this form separates it from
/// checkers).
fn inline_nanos(literals: f64) -> f64 {
    0.15 * literals * (1.0 + literals / 25_000.0)
}

/// The estimated time (ns) of a state of a playout on the propnet engine that visits `visits`
/// edges per state (and syncs its state at every call), fitted with [`inline_nanos`]: 5-13 ns
/// per visit measured (tic-tac-toe 100 visits: 680 ns; englishDraughts 398: 4,000 ns; checkers
/// 767: 6,200 ns; reversi 2,092: 27,500 ns), the smallest games paying a few hundred ns per state
/// whatever they visit. Refitted after the depth-first engine (2026-11-24, per CPU second,
/// alternating pairs, load 3-5.5): the engine's playouts got 15-20% faster, so 7.5 ns per
/// visit (was 9); the ratio of the backends then matches englishDraughts (inline 1.6x propnet,
/// predicted 1.7x).
fn propnet_nanos(visits: f64) -> f64 {
    7.5 * visits + 100.0
}

/// The Rust source of the module for `ir`, formatted.
pub fn generate(ir: &Ir, options: &CodegenOptions) -> String {
    generate_chosen(ir, options).0
}

/// [`generate`], and the backend it used (never [`Backend::Auto`]): [`chosen_backend`], except
/// that with [`Backend::Auto`] inline code longer than [`CodegenOptions::inline_max_bytes`]
/// is given up for the propnet as soon as it is that long.
pub fn generate_chosen(ir: &Ir, options: &CodegenOptions) -> (String, Backend) {
    generate_reporting(ir, options, &ProgressHook::default())
}

/// [`generate_chosen`], telling `progress` how far formatting is ([`crate::progress`]).
pub fn generate_reporting(
    ir: &Ir,
    options: &CodegenOptions,
    progress: &ProgressHook,
) -> (String, Backend) {
    let backend = chosen_backend(ir, options);
    let max_bytes = match (options.backend, backend) {
        (Backend::Auto, Backend::Inline) => options.inline_max_bytes,
        _ => usize::MAX,
    };
    if let Some(text) = module(ir, options, backend, max_bytes, progress) {
        return (text, backend);
    }
    tracing::debug!(max_bytes, "inline code too long for rustc: propnet");
    let text = module(ir, options, Backend::Propnet, usize::MAX, progress).unwrap_or_else(|| {
        // `module` gives up only past `max_bytes`, which no text is longer than.
        debug_assert!(false, "the propnet module was given up");
        tracing::error!("gdlc generated no code (a bug of gdlc's): the module is empty");
        String::new()
    });
    (text, Backend::Propnet)
}

/// The module with `backend`, or `None` when its body grows past `max_bytes`.
fn module(
    ir: &Ir,
    options: &CodegenOptions,
    backend: Backend,
    max_bytes: usize,
    progress: &ProgressHook,
) -> Option<String> {
    let (items, data) = match backend {
        Backend::Propnet => propnet::items(ir, options),
        _ => (inline::items(ir, options), String::new()),
    };
    // Formatted piece by piece, so that memory stays proportional to the largest function.
    let mut body = String::new();
    let total = items.len() as u64;
    for (i, tokens) in items.into_iter().enumerate() {
        progress.step("items formatted", i as u64, total);
        match syn::parse2::<syn::File>(tokens.clone()) {
            Ok(file) => body.push_str(&prettyplease::unparse(&file)),
            // Not expected: generated tokens always parse. Unformatted code may still compile.
            Err(e) => {
                debug_assert!(false, "generated tokens do not parse: {e}");
                tracing::error!(
                    "gdlc generated code that does not parse (a bug of gdlc's): {e}; \
                     the item is left unformatted"
                );
                body.push_str(&tokens.to_string());
            }
        }
        if body.len() > max_bytes {
            return None;
        }
    }
    progress.step("items formatted", total, total);
    body.push_str(&data);
    body.push_str(&moves::data(ir, options));
    // Not `ir.stats()`: its count of literals walks every prop (1% of amazonsTorus's compile).
    let moves: usize = ir.moves.iter().map(Vec::len).sum();
    Some(format!(
        "// @generated by gdlc {} from {}. Do not edit.\n//\n// {} state bits, {} constant facts, \
         {} props, {} moves, {} move sets; {} backend. `gdlc dump --emit optimised` prints the props\n\
         // (`p<N>`) with their ground atoms.\n\n{body}",
        env!("CARGO_PKG_VERSION"),
        options.source_name.replace('\n', " "),
        ir.bits.len(),
        ir.constant_facts.len(),
        ir.props.len(),
        moves,
        ir.move_sets.sets.len(),
        match backend {
            Backend::Propnet => "propnet",
            _ => "inline",
        },
    ))
}

/// The number of `u64` words of the state.
pub fn state_words(ir: &Ir) -> usize {
    ir.bits.len().div_ceil(64).max(1)
}

/// How the `Game` methods of the module compute their answers: token streams for the bodies.
pub(crate) struct GameBodies {
    pub is_terminal: TokenStream,
    /// Has `out` cleared; pushes the legal moves of `role`.
    pub legal_moves: TokenStream,
    /// `Game::random_legal_move` without listing the moves (from `state`, `role`, `rng`),
    /// where the backend can; `None`: the trait's default.
    pub random_legal_move: Option<TokenStream>,
    /// `Game::random_step` without the buffers (from `state`, `rng`, writing `*next_state`),
    /// where the backend can; `None`: the trait's default.
    pub random_step: Option<TokenStream>,
    /// Writes `*next_state`.
    pub next_state: TokenStream,
    pub goal: TokenStream,
    /// Has `out` cleared; pushes every goal value of `role` that holds.
    pub goal_values: TokenStream,
    /// GDL-II: appends to `out` the texts (from `SEES`) of the percepts of `role` after
    /// `joint` in `state`, in `SEES` order. Unused when the game has no percepts.
    pub percepts: TokenStream,
}

/// Whether the game has GDL-II percepts (`sees` rules that can hold).
pub fn has_percepts(ir: &Ir) -> bool {
    ir.sees.iter().any(|ps| !ps.is_empty())
}

/// The `SEES` table of a game with percepts: per role, its percept texts in byte order.
fn sees_table(ir: &Ir) -> TokenStream {
    if !has_percepts(ir) {
        return TokenStream::new();
    }
    let rows = ir.sees.iter().map(|ps| {
        let texts = ps.iter().map(|p| &p.text);
        quote! { &[#(#texts),*] }
    });
    quote! {
        /// GDL-II: the percepts of each role, in byte order of the text; `percepts` lists
        /// those that hold in this order.
        pub const SEES: &[&[&str]] = &[#(#rows),*];
    }
}

/// The `percepts` method of a game with percepts.
fn percepts_fn(ir: &Ir, body: &TokenStream) -> TokenStream {
    if !has_percepts(ir) {
        return TokenStream::new();
    }
    quote! {
        fn percepts(&self, state: &State, joint: &[u32], role: RoleIndex, out: &mut Vec<String>) {
            #body
        }
    }
}

/// The items every module starts with: imports, the game struct, `State`, the name tables and
/// `INIT`.
pub(crate) fn header(ir: &Ir, options: &CodegenOptions) -> TokenStream {
    let ty = format_ident!("{}", options.type_name);
    let words = state_words(ir);
    let roles = &ir.roles;
    let bits = &ir.bits;
    let constants = &ir.constant_facts;
    let moves = moves::table(ir, options);
    let mut init = vec![0u64; words];
    for &b in &ir.init {
        init[b as usize / 64] |= 1 << (b % 64);
    }
    let init = init.iter().map(|&w| Literal::u64_suffixed(w));
    let doc_game = format!(" The game of {}.", options.source_name);
    let words_lit = Literal::usize_unsuffixed(words);
    let sees = sees_table(ir);
    let (declared, _) = declared::items(ir);
    quote! {
        use gdl_runtime::{Game, RoleIndex};

        #[doc = #doc_game]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #ty;

        /// A state: bit `i` of the words is the state fact `BITS[i]`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct State(pub [u64; #words_lit]);

        /// The roles, in the order of the description.
        pub const ROLES: &[&str] = &[#(#roles),*];
        /// The state facts that can change, by bit.
        pub const BITS: &[&str] = &[#(#bits),*];
        /// The state facts that hold in every reachable state.
        pub const CONSTANT_FACTS: &[&str] = &[#(#constants),*];
        #moves
        /// The initial state.
        pub const INIT: State = State([#(#init),*]);
        #sees
        #declared
    }
}

/// The `impl Game` of the module.
pub(crate) fn game_impl(ir: &Ir, options: &CodegenOptions, b: &GameBodies) -> TokenStream {
    let ty = format_ident!("{}", options.type_name);
    let nroles_lit = Literal::usize_unsuffixed(ir.roles.len());
    let GameBodies {
        is_terminal,
        legal_moves,
        random_legal_move,
        random_step,
        next_state,
        goal,
        goal_values,
        percepts,
    } = b;
    let percepts = percepts_fn(ir, percepts);
    let random_legal_move = random_legal_move.as_ref().map(|body| {
        quote! {
            #[inline]
            fn random_legal_move(
                &self,
                state: &State,
                role: RoleIndex,
                rng: &mut gdl_runtime::SplitMix64,
                _scratch: &mut Vec<u32>,
            ) -> Option<u32> {
                #body
            }
        }
    });
    let random_step = random_step.as_ref().map(|body| {
        quote! {
            #[inline]
            fn random_step(
                &self,
                state: &State,
                rng: &mut gdl_runtime::SplitMix64,
                _scratch: &mut Vec<u32>,
                _joint: &mut Vec<u32>,
                next_state: &mut State,
            ) -> Result<(), RoleIndex> {
                #body
            }
        }
    });
    let (_, declared) = declared::items(ir);
    let (write_move, parse_move, move_count) = moves::methods(ir, options);
    quote! {
        // With one role, `match role { 0 => .., _ => {} }` has one arm; each arm of `next`
        // carries its move as a doc comment, which rustdoc does not show. The methods a
        // playout calls are `#[inline]`: the playout loop is instantiated in the binary's
        // crate, and without the hint every call would cross the crate boundary.
        #[allow(clippy::single_match, unused_doc_comments)]
        impl Game for #ty {
            type State = State;
            type Move = u32;

            fn role_count(&self) -> usize {
                #nroles_lit
            }

            fn role_name(&self, role: RoleIndex) -> &str {
                ROLES.get(role).copied().unwrap_or("")
            }

            fn initial_state(&self) -> State {
                INIT
            }

            #[inline]
            fn is_terminal(&self, state: &State) -> bool {
                #is_terminal
            }

            #[inline]
            fn legal_moves(&self, state: &State, role: RoleIndex, out: &mut Vec<u32>) {
                out.clear();
                #legal_moves
            }

            #random_legal_move

            #random_step

            #[inline]
            fn next_state(&self, state: &State, joint: &[u32], next_state: &mut State) {
                #next_state
            }

            #[inline]
            fn goal(&self, state: &State, role: RoleIndex) -> Option<i32> {
                #goal
            }

            fn goal_values(&self, state: &State, role: RoleIndex, out: &mut Vec<Option<i32>>) {
                out.clear();
                #goal_values
            }

            fn write_move(&self, role: RoleIndex, mv: u32, out: &mut String) {
                #write_move
            }

            fn parse_move(&self, role: RoleIndex, text: &str) -> Option<u32> {
                #parse_move
            }

            fn move_count(&self, role: RoleIndex) -> Option<usize> {
                #move_count
            }

            #[inline]
            fn move_index(&self, _role: RoleIndex, mv: u32) -> Option<usize> {
                Some(mv as usize)
            }

            fn write_state(&self, state: &State, out: &mut Vec<String>) {
                out.extend(CONSTANT_FACTS.iter().map(|f| f.to_string()));
                for (i, fact) in BITS.iter().enumerate() {
                    if state.0[i / 64] >> (i % 64) & 1 != 0 {
                        out.push(fact.to_string());
                    }
                }
            }

            fn fact_names(&self) -> Option<Vec<String>> {
                Some(BITS.iter().map(|f| f.to_string()).collect())
            }

            #[inline]
            fn fact_bits<'a>(&self, state: &'a State) -> Option<&'a [u64]> {
                Some(&state.0)
            }

            #percepts
            #declared
        }
    }
}

/// The comment of prop `p`: its atom, and the lines of the rules that derive it (`(line o)
/// (rules at lines 40, 44)`).
pub(crate) fn prop_doc(ir: &Ir, options: &CodegenOptions, p: u32) -> String {
    let prop = &ir.props[p as usize];
    let lines: Vec<String> = prop
        .origins
        .iter()
        .filter_map(|&o| options.rule_lines.get(o as usize))
        .map(u32::to_string)
        .collect();
    match &lines[..] {
        [] => format!(" {}", prop.text),
        [one] => format!(" {} (rule at line {one})", prop.text),
        [first @ .., last] if lines.len() <= 6 => {
            format!(
                " {} (rules at lines {}, {last})",
                prop.text,
                first.join(", ")
            )
        }
        _ => format!(
            " {} (rules at lines {} and {} more)",
            prop.text,
            lines[..5].join(", "),
            lines.len() - 5
        ),
    }
}
