//! The outputs a playout asks of every state, computed together: when the cones of
//! `terminal` and of every role's legal moves overlap much (draughts: whether the game ends
//! and which moves are legal both depend on every capture of both sides), one function
//! computes the props of their union once, and a per-thread memo keeps its answers for the
//! last state asked; `terminal` and `legal_<r>` read the memo.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::super::CodegenOptions;
use super::cone::cone;
use super::legal::{LegalPlan, legal_guard, legal_words};
use super::{ConeSpec, cone_fn};
use crate::ir::Ir;

/// The outputs are computed together when the sum of the weights of the cones of `terminal`
/// and of every role's legal moves is at least this many times the weight of their union.
/// Measured (playouts per CPU second, together / apart, under load): englishDraughts (1.85)
/// 1.2x, blockerParallel (1.57) 1.1-1.35x, connect4 (1.22) 1.1-1.2x. Roles whose legal moves
/// have a guard are left apart: together, checkersTiny (1.52) and pentago (1.31) were
/// 0.65x and 0.57x, computing the moves of the role whose turn it is not.
const MIN_OVERLAP: f64 = 1.2;

/// ... and when together they save at least this many literals (plus one per prop) a state:
/// the memo costs a comparison and a copy of the state at every call (the smallest saving
/// measured, connect4's, was 189; a fixture of five props stays apart).
const MIN_SAVED: usize = 128;

/// The words of legal bits of every role, when `terminal` and the legal moves are computed
/// together: their cones overlap by at least [`MIN_OVERLAP`] and [`MIN_SAVED`], every role's moves fit in
/// words of bits ([`legal_words`]) and no role's legal moves are guarded by whose turn it is
/// ([`legal_guard`]: the idle role's moves cost little apart).
pub(super) fn plan(ir: &Ir) -> Option<Vec<usize>> {
    let words = (0..ir.roles.len())
        .map(|r| legal_words(ir, r).filter(|_| legal_guard(ir, r).is_none()))
        .collect::<Option<Vec<usize>>>()?;
    let (sum, union) = overlap(ir);
    (sum >= union + MIN_SAVED && sum as f64 >= MIN_OVERLAP * union as f64).then_some(words)
}

/// The weights of the cones of `terminal` and of every role's legal moves: their sum, and
/// the weight of their union.
fn overlap(ir: &Ir) -> (usize, usize) {
    let mut cones = vec![cone(ir, &[ir.terminal])];
    cones.extend(ir.legal.iter().map(|l| cone(ir, l)));
    let mut seen = vec![false; ir.props.len()];
    let (mut sum, mut union) = (0, 0);
    for &p in cones.iter().flatten() {
        let w = ir.prop_weight(p);
        sum += w;
        if !std::mem::replace(&mut seen[p as usize], true) {
            union += w;
        }
    }
    (sum, union)
}

/// The items: the `PerState` answers, their memo, the function computing them, and
/// `terminal` and `legal_<r>` reading the memo; `words`: from [`plan`].
pub(super) fn items(ir: &Ir, options: &CodegenOptions, words: &[usize]) -> Vec<TokenStream> {
    let plans: Vec<LegalPlan> = (0..ir.roles.len())
        .map(|r| {
            let all: Vec<usize> = (0..ir.legal[r].len()).collect();
            LegalPlan::new(ir, options, r, &format!("legal_{r}"), &all, None)
        })
        .collect();
    let mut roots = vec![ir.terminal];
    for p in &plans {
        roots.extend(p.roots(ir));
    }
    let fields: Vec<_> = (0..ir.roles.len())
        .map(|r| format_ident!("legal_{}", r))
        .collect();
    let types: Vec<_> = words
        .iter()
        .map(|&n| {
            let nl = Literal::usize_unsuffixed(n);
            quote! { [u64; #nl] }
        })
        .collect();
    let compute =
        cone_fn(
            ir,
            options,
            None,
            &ConeSpec {
                name: "per_state_outputs",
                per_state: true,
                moves: false,
                roots,
                ret: Some(quote! { PerState }),
                extra_param: quote! {},
                tail: &|e| {
                    let terminal = e(ir.terminal);
                    let legal = plans.iter().zip(words).zip(&fields).zip(&types).map(
                        |(((p, &n), f), t)| {
                            let tail = p.tail(ir, e, Some(n));
                            quote! { let #f: #t = { #tail }; }
                        },
                    );
                    quote! {
                        #(#legal)*
                        PerState {
                            valid: true,
                            state: *state,
                            terminal: #terminal,
                            #(#fields),*
                        }
                    }
                },
                lazy: &[],
                placed: &[],
                guarded: None,
            },
        );
    let tables = plans.iter().map(|p| &p.tables);
    let state_words = Literal::usize_unsuffixed(super::super::state_words(ir));
    let zeros = words.iter().map(|&n| {
        let nl = Literal::usize_unsuffixed(n);
        quote! { [0; #nl] }
    });
    let legal_fns = fields.iter().zip(&types).map(|(f, t)| {
        quote! {
            #[inline]
            fn #f(state: &State) -> #t {
                per_state(state).#f
            }
        }
    });
    vec![quote! {
        #(#tables)*
        /// What a playout asks of a state: whether it is terminal, and every role's legal
        /// moves (words of legal bits), for `state` when `valid`.
        #[derive(Clone, Copy)]
        struct PerState {
            valid: bool,
            state: State,
            terminal: bool,
            #(#fields: #types),*
        }
        thread_local! {
            /// The answers of the last state this thread asked about.
            static PER_STATE: std::cell::Cell<PerState> = const {
                std::cell::Cell::new(PerState {
                    valid: false,
                    state: State([0; #state_words]),
                    terminal: false,
                    #(#fields: #zeros),*
                })
            };
        }
        #compute
        /// The answers for `state`, from the memo when it holds them.
        #[inline]
        fn per_state(state: &State) -> PerState {
            PER_STATE.with(|memo| {
                let last = memo.get();
                if last.valid && last.state == *state {
                    return last;
                }
                let now = per_state_outputs(state);
                memo.set(now);
                now
            })
        }
        #[inline]
        fn terminal(state: &State) -> bool {
            per_state(state).terminal
        }
        #(#legal_fns)*
    }]
}
