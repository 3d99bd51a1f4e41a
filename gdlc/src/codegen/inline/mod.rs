//! The inline backend: straight-line code per output.
//!
//! One plain function per output: `terminal`, `legal_<r>` and `goal_<r>` per role, `next`,
//! and for GDL-II games `sees_<r>` per role that has percepts (reading the joint move, like
//! `next`).
//! Each output function computes only the props its outputs read (its *cone*), as
//! straight-line `let`s in evaluation order; a recursive group becomes a loop that runs until
//! nothing changes. A cone of more than [`CodegenOptions::chunk_props`] props is split into
//! `#[inline(never)]` chunk functions that pass the props they share through a scratch bitset,
//! so that rustc's time and memory stay bounded on large games. When the cones of all outputs
//! together are large, props are computed in chunks shared by every output instead, memoised
//! per thread for the last state asked (see `cone.rs`); there, the props that read only one
//! role's move are computed for the move played only (`played_<r>`, see `played.rs`).
//! Otherwise, when the cones of `terminal` and of the legal moves overlap much and no role's
//! legal moves have a guard, these outputs are computed together by one function, memoised
//! per thread for the last state (`together.rs`).
//!
//! `legal_<r>` tests first the state bit that most of the role's moves need (typically whose
//! turn it is): when it fails, only the moves that do not need it are evaluated
//! (`legal_<r>_idle`), otherwise all of them (`legal_<r>_turn`); moves of one pattern of state
//! bits are computed together by shifts of the state (`legal.rs`); in a large legal function,
//! the moves that need one state bit (their piece on their cell) are computed in one block
//! skipped when it is clear (`guards.rs`). For a role with up to 256
//! moves the legal functions return words of legal bits, which `random_legal_move` draws from
//! without listing the moves.
//!
//! Output functions small enough to cost about as much as their call are `#[inline]`, like
//! the `Game` methods: the playout loop is instantiated in another crate (the binary's). So
//! are the functions a playout calls at every state (`terminal`, legal moves, `next`) whose
//! code is short in tokens though their literals are many (lines tested by shifts).
//!
//! `next` reads the frame axioms and the plain effects of moves from per-move tables
//! (`next_tables.rs`); a disjunction of conjunctions that are translates of one pattern of
//! state bits is tested by shifts of the state (`shifts.rs`).
//!
//! A move set literal reads one bit of a per-role table: row `m` of `MOVE_SETS_<r>` holds one
//! bit per set of role `r`, set when move `m` is in it (the last row, for no move, is empty).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

mod cone;
mod expr;
mod guards;
mod legal;
mod masks;
mod next;
mod next_tables;
mod played;
mod shifts;
mod stuck;
mod together;
mod tokens;

use super::{CodegenOptions, GameBodies};
use crate::ir::{Ir, Lit};
use cone::{cone_fn, shared_chunk_fns, shared_chunks};
use legal::{legal_fn, legal_guard, legal_words};

/// The literals (plus one per prop) that the inline code evaluates per state of a playout
/// ([`cone::cost_per_state`]), of the code [`items`] writes: with the stuck disjuncts of
/// `terminal` read from the legal words (`stuck.rs`).
pub(crate) fn cost_per_state(ir: &Ir) -> usize {
    match stuck::split(ir) {
        Some((g, _)) => cone::cost_per_state(&g),
        None => cone::cost_per_state(ir),
    }
}

/// The items of the module.
pub fn items(ir: &Ir, options: &CodegenOptions) -> Vec<TokenStream> {
    // "Whose turn it is and it has no legal move" tested from the legal words (`stuck.rs`).
    let split = stuck::split(ir);
    let (ir, stuck) = match &split {
        Some((g, s)) => (g, s.as_slice()),
        None => (ir, &[][..]),
    };
    let memoised = stuck::roles(stuck);
    let nroles = ir.roles.len();
    let mut items = Vec::new();
    masks::begin(ir);
    let next_plan = next::plan(ir);
    // Every literal an output function reads (`next` reads its props taken apart).
    let mut roots = next_plan.reads.clone();
    roots.push(ir.terminal);
    for r in 0..nroles {
        roots.extend(ir.legal[r].iter().copied());
        roots.extend(ir.goals[r].iter().map(|g| g.when));
    }
    roots.extend(ir.sees.iter().flatten().map(|p| p.when));
    let shared = shared_chunks(ir, options, &roots);
    if let Some(sh) = &shared {
        items.extend(shared_chunk_fns(ir, options, sh));
    }
    // `terminal` and the legal moves computed together (`together.rs`), or each apart.
    // Not with stuck disjuncts: `terminal` reads the legal words there.
    let together = (shared.is_none() && stuck.is_empty())
        .then(|| together::plan(ir))
        .flatten();
    if let Some(words) = &together {
        items.extend(together::items(ir, options, words));
    }
    let terminal = together.is_none().then(|| {
        cone_fn(
            ir,
            options,
            shared.as_ref(),
            &ConeSpec {
                // With stuck disjuncts, `terminal` is `terminal_rest` or one of them, tested
                // outside the function (the legal words are not read under the shared
                // chunks' memo).
                name: if stuck.is_empty() {
                    "terminal"
                } else {
                    "terminal_rest"
                },
                per_state: true,
                moves: false,
                roots: vec![ir.terminal],
                ret: Some(quote! { bool }),
                extra_param: quote! {},
                tail: &|e| e(ir.terminal),
                lazy: &[],
                placed: &[],
                guarded: None,
            },
        )
    });
    items.extend(terminal);
    if together.is_none() && !stuck.is_empty() {
        let holds = stuck::holds(stuck);
        items.push(quote! {
            #[inline]
            fn terminal(state: &State) -> bool {
                terminal_rest(state) || #holds
            }
        });
    }
    // How often each state bit holds, sampled if a legal function is large enough for blocks.
    let held = guards::Held::new(ir);
    let mut legal_arms = Vec::new();
    // `None` once a role's moves are pushed rather than returned as words.
    let mut pick_arms = Some(Vec::new());
    // The same, as the elements of `random_step`'s joint move (in role order, the order of
    // the draws).
    let mut step_picks: Option<Vec<TokenStream>> = Some(Vec::new());
    let mut goal_arms = Vec::new();
    let mut goal_value_arms = Vec::new();
    for r in 0..nroles {
        let memo = memoised.contains(&r);
        // A role whose moves a stuck disjunct reads: `legal_<r>` is the memo of
        // `legal_<r>_compute`.
        let name = match memo {
            true => format!("legal_{r}_compute"),
            false => format!("legal_{r}"),
        };
        let f = format_ident!("{}", name);
        let all: Vec<usize> = (0..ir.legal[r].len()).collect();
        let words = match memo {
            true => legal::legal_words_upto(ir, r, stuck::MAX_STUCK_WORDS),
            false => legal_words(ir, r),
        };
        if let (true, Some(n)) = (memo, words) {
            items.push(stuck::memo_fn(ir, r, n));
        }
        match legal_guard(ir, r) {
            // Made by `together::items`.
            _ if together.is_some() => {}
            // Most moves need the guard (whose turn it is): when it fails, only the others
            // are evaluated.
            Some((guard, without)) => {
                let with_name = format!("legal_{r}_turn");
                let without_name = format!("legal_{r}_idle");
                let holds = Lit {
                    input: crate::ir::Input::Bit(guard.0),
                    negated: guard.1,
                };
                items.push(legal_fn(
                    ir,
                    options,
                    shared.as_ref(),
                    r,
                    &with_name,
                    &all,
                    Some(holds),
                    words,
                    &held,
                ));
                items.push(legal_fn(
                    ir,
                    options,
                    shared.as_ref(),
                    r,
                    &without_name,
                    &without,
                    None,
                    words,
                    &held,
                ));
                let (with_f, without_f) = (
                    format_ident!("{}", with_name),
                    format_ident!("{}", without_name),
                );
                let bit = Literal::usize_unsuffixed(guard.0 as usize / 64);
                let mask = masks::name(guard.0 as usize / 64, 1 << (guard.0 % 64));
                let test = if guard.1 {
                    quote! { state.0[#bit] & #mask == 0 }
                } else {
                    quote! { state.0[#bit] & #mask != 0 }
                };
                // Inlined unless the props come from the shared chunks' memo (reversi was
                // measured 10-18% slower with it).
                let inline = shared.is_none().then(|| quote! { #[inline] });
                items.push(match words {
                    Some(n) => {
                        let nl = Literal::usize_unsuffixed(n);
                        quote! {
                            #inline
                            fn #f(state: &State) -> [u64; #nl] {
                                if #test {
                                    #with_f(state)
                                } else {
                                    #without_f(state)
                                }
                            }
                        }
                    }
                    None => quote! {
                        #inline
                        fn #f(state: &State, out: &mut Vec<u32>) {
                            if #test {
                                #with_f(state, out)
                            } else {
                                #without_f(state, out)
                            }
                        }
                    },
                });
            }
            None => items.push(legal_fn(
                ir,
                options,
                shared.as_ref(),
                r,
                &name,
                &all,
                None,
                words,
                &held,
            )),
        }
        let ri = Literal::usize_unsuffixed(r);
        let f = format_ident!("legal_{}", r);
        match words {
            Some(_) => {
                legal_arms.push(quote! { #ri => gdl_runtime::bits::push_moves(&#f(state), out), });
                if let Some(arms) = &mut pick_arms {
                    arms.push(quote! { #ri => gdl_runtime::bits::pick_move(&#f(state), rng), });
                }
                if let Some(picks) = &mut step_picks {
                    picks.push(quote! {
                        match gdl_runtime::bits::pick_move(&#f(state), rng) {
                            Some(m) => m,
                            None => return Err(#ri),
                        }
                    });
                }
            }
            None => {
                legal_arms.push(quote! { #ri => #f(state, out), });
                pick_arms = None;
                step_picks = None;
            }
        }
        let name = format!("goal_{r}");
        let f = format_ident!("{}", name);
        let values: Vec<Option<i32>> = ir.goals[r].iter().map(|g| g.value).collect();
        items.push(cone_fn(
            ir,
            options,
            shared.as_ref(),
            &ConeSpec {
                name: &name,
                per_state: false,
                moves: false,
                roots: ir.goals[r].iter().map(|g| g.when).collect(),
                ret: Some(quote! { Option<i32> }),
                extra_param: quote! { mut all: Option<&mut Vec<Option<i32>>>, },
                lazy: &[],
                placed: &[],
                guarded: None,
                tail: &|e| {
                    let tests = ir.goals[r].iter().zip(&values).map(|(g, v)| {
                        let x = e(g.when);
                        let v = match v {
                            Some(v) => {
                                let v = Literal::i32_unsuffixed(*v);
                                quote! { Some(#v) }
                            }
                            None => quote! { None },
                        };
                        quote! {
                            if #x {
                                count += 1;
                                value = #v;
                                if let Some(all) = all.as_mut() {
                                    all.push(#v);
                                }
                            }
                        }
                    });
                    quote! {
                        let mut count = 0u32;
                        let mut value = None;
                        #(#tests)*
                        if count == 1 { value } else { None }
                    }
                },
            },
        ));
        goal_arms.push(quote! { #ri => #f(state, None), });
        goal_value_arms.push(quote! { #ri => { #f(state, Some(out)); } });
    }
    items.push(next_plan.tables.items(ir));
    items.push(cone_fn(
        ir,
        options,
        shared.as_ref(),
        &ConeSpec {
            name: "next",
            per_state: true,
            moves: true,
            roots: next_plan.reads.clone(),
            ret: Some(quote! { State }),
            extra_param: quote! {},
            tail: &|e| next::tail(ir, &next_plan, e),
            lazy: &next_plan.arm_only,
            placed: &[],
            guarded: None,
        },
    ));
    let (sees_fns, sees_arms) = sees_fns(ir, options, shared.as_ref());
    items.extend(sees_fns);
    let joint: Vec<TokenStream> = (0..nroles)
        .map(|r| {
            let rl = Literal::usize_unsuffixed(r);
            let n = Literal::u32_suffixed(ir.moves[r].len() as u32);
            let get = match r {
                0 => quote! { joint.first() },
                _ => quote! { joint.get(#rl) },
            };
            quote! { #get.copied().map_or(#n, |m| m.min(#n)) }
        })
        .collect();
    let nroles_lit = Literal::usize_unsuffixed(nroles);
    let bodies = GameBodies {
        is_terminal: quote! { terminal(state) },
        legal_moves: quote! {
            match role {
                #(#legal_arms)*
                _ => {}
            }
        },
        random_legal_move: pick_arms.map(|arms| {
            quote! {
                match role {
                    #(#arms)*
                    _ => None,
                }
            }
        }),
        random_step: step_picks.map(|picks| {
            quote! {
                let joint: [u32; #nroles_lit] = [#(#picks),*];
                *next_state = next(state, &joint);
                Ok(())
            }
        }),
        next_state: quote! {
            let joint: [u32; #nroles_lit] = [#(#joint),*];
            *next_state = next(state, &joint);
        },
        goal: quote! {
            match role {
                #(#goal_arms)*
                _ => None,
            }
        },
        goal_values: quote! {
            match role {
                #(#goal_value_arms)*
                _ => {}
            }
        },
        percepts: quote! {
            let joint: [u32; #nroles_lit] = [#(#joint),*];
            match role {
                #(#sees_arms)*
                _ => {}
            }
        },
    };
    let mut out = vec![super::header(ir, options)];
    out.extend(move_set_tables(ir));
    // Every function is built: the masks they test are all named.
    out.push(masks::items());
    out.extend(items);
    out.push(super::game_impl(ir, options, &bodies));
    out
}

/// GDL-II: per role with percepts, the function `sees_<r>` pushing the texts of the percepts
/// that hold after the joint move (in `SEES` order); and the arms of `percepts` calling them.
fn sees_fns(
    ir: &Ir,
    options: &CodegenOptions,
    shared: Option<&cone::Shared>,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut fns = Vec::new();
    let mut arms = Vec::new();
    for (r, percepts) in ir.sees.iter().enumerate() {
        if percepts.is_empty() {
            continue;
        }
        let name = format!("sees_{r}");
        let f = format_ident!("{}", name);
        let ri = Literal::usize_unsuffixed(r);
        fns.push(cone_fn(
            ir,
            options,
            shared,
            &ConeSpec {
                name: &name,
                per_state: false,
                moves: true,
                roots: percepts.iter().map(|p| p.when).collect(),
                ret: None,
                extra_param: quote! { out: &mut Vec<String>, },
                lazy: &[],
                placed: &[],
                guarded: None,
                tail: &|e| {
                    let pushes = percepts.iter().enumerate().filter_map(|(k, p)| {
                        let x = e(p.when);
                        let k = Literal::usize_unsuffixed(k);
                        let push = quote! { out.push(SEES[#ri][#k].to_string()); };
                        match x.to_string().as_str() {
                            "false" => None,
                            "true" => Some(push),
                            _ => Some(quote! { if #x { #push } }),
                        }
                    });
                    quote! { #(#pushes)* }
                },
            },
        ));
        arms.push(quote! { #ri => #f(state, &joint, out), });
    }
    (fns, arms)
}

/// Per move set: its role and its number among the role's sets.
pub(super) fn set_locations(ir: &Ir) -> Vec<(u32, u32)> {
    let mut count = vec![0u32; ir.roles.len()];
    ir.move_sets
        .sets
        .iter()
        .map(|s| {
            let k = count[s.role as usize];
            count[s.role as usize] += 1;
            (s.role, k)
        })
        .collect()
}

/// The `MOVE_SETS_<r>` tables that the generated functions read.
fn move_set_tables(ir: &Ir) -> Vec<TokenStream> {
    let loc = set_locations(ir);
    let mut out = Vec::new();
    for r in 0..ir.roles.len() {
        let n = loc.iter().filter(|l| l.0 == r as u32).count();
        if n == 0 || !masks::move_set_table_read(r as u32) {
            continue;
        }
        let words = n.div_ceil(64);
        let moves = ir.moves[r].len();
        let mut rows = vec![vec![0u64; words]; moves + 1];
        for (s, &(role, k)) in ir.move_sets.sets.iter().zip(&loc) {
            if role as usize == r {
                for &m in &s.moves {
                    rows[m as usize][k as usize / 64] |= 1 << (k % 64);
                }
            }
        }
        let name = masks::move_set_table(r as u32);
        let rows = rows.iter().map(|row| {
            let ws = row.iter().map(|&w| Literal::u64_suffixed(w));
            quote! { [#(#ws),*] }
        });
        let nrows = Literal::usize_unsuffixed(moves + 1);
        let wl = Literal::usize_unsuffixed(words);
        let doc = format!(
            " Row `m`: the move sets of role {r} that hold move `m` (the last row: no move)."
        );
        out.push(quote! {
            #[doc = #doc]
            static #name: [[u64; #wl]; #nrows] = [#(#rows),*];
        });
    }
    out
}

/// What one output function computes.
/// The end of an output function, given the function that makes a literal's expression.
pub(super) type Tail<'a> = dyn Fn(&dyn Fn(Lit) -> TokenStream) -> TokenStream + 'a;

pub(super) struct ConeSpec<'a> {
    name: &'a str,
    /// Whether a playout calls the function at every state (`terminal`, legal moves, `next`):
    /// then it is inlined also when its code is small though its literals are many.
    per_state: bool,
    /// Whether the function reads the joint move.
    moves: bool,
    /// The literals that `tail` reads (through the function it is given, which makes the
    /// expression of a literal).
    roots: Vec<Lit>,
    /// The return type; `None`: `()`.
    ret: Option<TokenStream>,
    extra_param: TokenStream,
    tail: &'a Tail<'a>,
    /// Props that only some branches of the tail read, computed there rather than up front
    /// (when the function is one piece): tests of state bits ([`cone::lazy_props`]).
    lazy: &'a [u32],
    /// Props (prop, bit) stored at a bit of the scratch words of their own when the function
    /// is split into chunks, before the other props the tail or a later chunk reads: a legal
    /// move's prop at its move's bit, so that the tail reads each word of legal bits as a
    /// word of scratch under a mask rather than bit by bit.
    placed: &'a [(u32, u32)],
    /// When the props of roots that need a state bit are computed in blocks skipped when
    /// it is clear ([`guards`]; a legal move's piece on its cell): how often each bit holds.
    guarded: Option<&'a guards::Held<'a>>,
}
