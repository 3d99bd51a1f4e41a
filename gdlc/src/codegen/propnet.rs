//! The propnet backend: the circuit of the [`Ir`] as a [`Net`] for the incremental engine of
//! [`gdl_propnet`], stored in the module as text and decoded on first use.
//!
//! Nodes, in topological order: the state bits (node `b` is bit `b`), the moves of each role,
//! two constants, one gate per move set, then the gates of the props in evaluation order (the
//! and-gates of a prop's conjunctions before its or-gate; the gates of a recursive group
//! contiguous), and last the outputs, one buffer gate each: the legal moves of each role and
//! the next state in ranges aligned to 64, the terminal test, the goals and the GDL-II
//! percepts of each role.
//!
//! A move set of more than half a role's moves is built as "none of the other moves", so that
//! a move fans out to few gates.

use proc_macro2::TokenStream;
use quote::quote;

use gdl_propnet::{Net, NextRows, Stuck};

use super::{CodegenOptions, GameBodies};
use crate::ir::{Ir, Prop};
use crate::optimise;

mod build;
mod in_process;
mod owned;
mod profile;
mod rows;
mod sample;
pub(super) mod stuck;
mod unshare;

pub use owned::OwnedNetGame;
pub(crate) use sample::bits_held;

pub use build::build_net;
use build::build_plain;

/// The edges the engine visits per state in a few seeded random playouts (at most 4,000
/// states): what a step of the network costs, on average. Every edge counts, also those into
/// legal outputs that the engine tests when listing instead (a test costs about a visit).
pub fn visits_per_state(net: &Net) -> f64 {
    let limit = sample::Limit {
        states: 4000,
        work: None,
        engine: gdl_propnet::EngineOptions {
            lift_legal_inputs: false,
        },
    };
    sample::sample(net, limit, &[]).visits
}

/// The network that the module generated for `ir` ([`items`]) plays.
pub fn module_net(ir: &Ir) -> Net {
    let (g, stuck, rows) = grouped(ir);
    let mut net = build_net(&g);
    net.stuck = stuck;
    net.rows = rows;
    net
}

/// `ir` with the literals that a disjunct of one literal makes needless dropped
/// ([`optimise::absorb`]: `!c | c & x` as `!c | x`, so that a change of `c` reaches fewer
/// gates), the conjunctions that props share made props of their own
/// ([`optimise::share_conjunctions`]) and the literals shared by groups of disjuncts factored
/// out as well ([`optimise::factor_groups`]): a literal that a role's moves read, such as whose
/// turn it is, then feeds one gate instead of every move. Only the network is built from it; the cost
/// model of the backends and everything else read `ir`. First, the disjuncts of terminal that
/// say "whose turn it is, and it has no legal move" are taken out ([`stuck::split`]) and
/// returned, for the engine to test from the legal moves; last, the next-state bits that
/// per-move tables compute are taken out of the network ([`rows::extract`]) and their tables
/// returned.
fn grouped(ir: &Ir) -> (Ir, Vec<Stuck>, NextRows) {
    let mut g = network_copy(ir, tracing::enabled!(tracing::Level::TRACE));
    let stuck = stuck::split(&mut g);
    if optimise::absorb(&mut g) {
        optimise::simplify(&mut g);
    }
    optimise::share_conjunctions(&mut g);
    optimise::factor_groups(&mut g);
    optimise::distribute_units(&mut g);
    optimise::simplify(&mut g);
    optimise::remove_dead(&mut g);
    if g.joins.is_empty() {
        let bits = sample::demux(&mut g);
        optimise::simplify(&mut g);
        optimise::remove_dead(&mut g);
        if sample::guard_chains(&mut g, bits) {
            optimise::simplify(&mut g);
            optimise::remove_dead(&mut g);
        }
    }
    let rows = rows::extract(&mut g);
    unshare::unshare_legal(&mut g);
    (g, stuck, rows)
}

/// A copy of `ir` to build the network from: without `texts`, the texts of its props, moves
/// and state bits are empty and its props name no rules (only the visit profile reads them, at
/// trace level), so that a large IR is copied without a string per prop and per move.
fn network_copy(ir: &Ir, texts: bool) -> Ir {
    let strings = |v: &Vec<String>| {
        if texts {
            v.clone()
        } else {
            vec![String::new(); v.len()]
        }
    };
    Ir {
        roles: ir.roles.clone(),
        bits: strings(&ir.bits),
        init: ir.init.clone(),
        constant_facts: ir.constant_facts.clone(),
        moves: ir.moves.iter().map(strings).collect(),
        move_sets: ir.move_sets.clone(),
        props: ir
            .props
            .iter()
            .map(|p| Prop {
                text: if texts { p.text.clone() } else { String::new() },
                disjuncts: p.disjuncts.clone(),
                origins: if texts { p.origins.clone() } else { Vec::new() },
            })
            .collect(),
        groups: ir.groups.clone(),
        legal: ir.legal.clone(),
        next: ir.next.clone(),
        terminal: ir.terminal,
        goals: ir.goals.clone(),
        sees: ir.sees.clone(),
        joins: ir.joins.clone(),
        declarations: ir.declarations.clone(),
    }
}

/// An IR of the network of more props than this is freed on a thread of its own.
const FREED_APART: usize = 100_000;

/// The states of playouts the visit profile (`profile.rs`, at trace level) plays.
const PROFILE_STATES: u64 = 2000;

/// The items of the module, and the text of the network to append after them.
pub fn items(ir: &Ir, options: &CodegenOptions) -> (Vec<TokenStream>, String) {
    let (g, stuck, rows) = grouped(ir);
    let (plain, signals) = build_plain(&g);
    let net = if tracing::enabled!(tracing::Level::TRACE) {
        let mut net = plain.clone();
        net.simplify();
        // The engine tests the stuck disjuncts of terminal, as the module's does.
        net.stuck = stuck.clone();
        net.rows = rows.clone();
        tracing::trace!(
            "{}",
            profile::report(&g, &plain, &signals, &net, PROFILE_STATES)
        );
        net
    } else {
        // Only the profile reads the IR of the network, a large one freed apart (millions of
        // small vectors).
        let large = g.props.len() > FREED_APART;
        crate::alloc::drop_apart(g, large);
        let mut net = plain;
        net.simplify();
        net
    };
    let net = Net { stuck, rows, ..net };
    let text = net.encode();
    let bodies = GameBodies {
        is_terminal: quote! { with_engine(state, |e| e.terminal()) },
        legal_moves: quote! { with_engine(state, |e| e.legal(role, out)) },
        random_legal_move: Some(quote! { with_engine(state, |e| e.random_legal(role, rng)) }),
        random_step: Some(quote! { with_engine(state, |e| e.random_step(rng, &mut next_state.0)) }),
        next_state: quote! { with_engine(state, |e| e.step(joint, &mut next_state.0)) },
        goal: quote! { with_engine(state, |e| e.goal(role)) },
        goal_values: quote! { with_engine(state, |e| e.goal_values(role, out)) },
        percepts: quote! {
            let mut seen = Vec::new();
            with_engine(state, |e| {
                e.set_joint(joint);
                e.sees(role, &mut seen);
            });
            let texts = SEES.get(role).copied().unwrap_or(&[]);
            out.extend(
                seen.iter()
                    .filter_map(|&k| texts.get(k as usize))
                    .map(|t| t.to_string()),
            );
        },
    };
    let format_version = gdl_propnet::FORMAT_VERSION;
    let engine = quote! {
        use gdl_propnet::{Engine, Net};

        // The tables below are in the network format this runtime reads: a gdl-runtime of
        // another format version is a compile error here, not a game that plays wrong.
        const _: () = assert!(
            gdl_propnet::FORMAT_VERSION == #format_version,
            "this game was generated for another version of gdl-propnet's network format"
        );

        /// The network, decoded on first use. The tables were written by the compiler in the
        /// format checked above, so they decode; if they were altered, the game stops here
        /// with the reason rather than playing a wrong game.
        fn net() -> &'static Net {
            static NET: std::sync::OnceLock<Net> = std::sync::OnceLock::new();
            NET.get_or_init(|| match Net::decode(NET_TEXT) {
                Ok(net) => net,
                Err(e) => panic!("the network tables of this game do not decode: {}", e.0),
            })
        }

        thread_local! {
            /// This thread's engine.
            static ENGINE: std::cell::RefCell<Option<Engine<'static>>> =
                const { std::cell::RefCell::new(None) };
        }

        /// Runs `f` on this thread's engine, synced to `state`.
        fn with_engine<R>(state: &State, f: impl FnOnce(&mut Engine<'static>) -> R) -> R {
            ENGINE.with(|cell| {
                let mut slot = cell.borrow_mut();
                let engine = slot.get_or_insert_with(|| Engine::new(net()));
                engine.set_state(&state.0);
                f(engine)
            })
        }
    };
    let items = vec![
        super::header(ir, options),
        engine,
        super::game_impl(ir, options, &bodies),
    ];
    let mut data = String::from(
        "\n/// The network (see `gdl_propnet::Net::encode`).\n#[rustfmt::skip]\nstatic NET_TEXT: &str = \"\\\n",
    );
    for chunk in text.as_bytes().chunks(100) {
        data.push_str(std::str::from_utf8(chunk).unwrap_or(""));
        data.push_str("\\\n");
    }
    data.push_str("\";\n");
    (items, data)
}
