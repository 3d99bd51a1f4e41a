//! Output functions of the inline backend: the cone of props an output reads, split into
//! chunk functions when large, or computed once in shared chunks when the cones of all
//! outputs together would be too much code.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::super::CodegenOptions;
use super::expr::{Slot, View, chunk_body, lit_expr};
use super::played::{self, Played};
use super::{ConeSpec, set_locations};
use crate::ir::{Input, Ir, Lit};

pub(super) fn cone_fn(
    ir: &Ir,
    options: &CodegenOptions,
    shared: Option<&Shared>,
    spec: &ConeSpec<'_>,
) -> TokenStream {
    let name = format_ident!("{}", spec.name);
    let ret = spec.ret.as_ref().map(|r| quote! { -> #r });
    let extra = &spec.extra_param;
    let (params, args) = if spec.moves {
        let n = Literal::usize_unsuffixed(ir.roles.len());
        (
            quote! { state: &State, joint: &[u32; #n] },
            quote! { state, joint },
        )
    } else {
        (quote! { state: &State }, quote! { state })
    };
    let needed = cone(ir, &spec.roots);
    if let Some(sh) = shared {
        return shared_output_fn(ir, spec, sh, &needed, &name, &params, &args);
    }
    // Blocks of props skipped together (legal moves by the piece they move), each in one
    // chunk, which they need (the tail reads their props from the scratch words); not in a
    // function small enough to be inlined.
    let weight: usize = needed.iter().map(|&p| ir.prop_weight(p)).sum();
    let guards = match spec.guarded {
        Some(held) if weight > INLINE_WEIGHT => {
            super::guards::plan(ir, &needed, &spec.roots, held.get())
        }
        _ => super::guards::Guards::none(ir.props.len()),
    };
    let order = guards.order(&needed);
    let chunks = split(ir, &order, &guards, options.chunk_props.max(1));
    let mut slot = vec![Slot::None; ir.props.len()];
    for (c, chunk) in chunks.iter().enumerate() {
        for &p in chunk {
            slot[p as usize] = Slot::Local {
                chunk: c as u32,
                export: None,
            };
        }
    }
    let single = chunks.len() <= 1 && guards.is_empty() && !guards.found;
    if single {
        lazy_slots(ir, &needed, spec.lazy, &mut slot);
    }
    // The placed props first, at their bits; the other exports after them.
    let mut exports = 0u32;
    if !single {
        for &(p, bit) in spec.placed {
            if let Some(Slot::Local {
                export: export @ None,
                ..
            }) = slot.get_mut(p as usize)
            {
                *export = Some(bit);
                exports = exports.max(bit + 1);
            }
        }
    }
    if !single {
        // Export what a later chunk or the tail reads.
        let mut export = |p: u32, slot: &mut Vec<Slot>| {
            if let Slot::Local {
                chunk,
                export: None,
            } = slot[p as usize]
            {
                slot[p as usize] = Slot::Local {
                    chunk,
                    export: Some(exports),
                };
                exports += 1;
            }
        };
        for (c, chunk) in chunks.iter().enumerate() {
            for &p in chunk {
                for l in ir.props[p as usize].disjuncts.iter().flatten() {
                    if let Input::Prop(q) = l.input
                        && let Slot::Local { chunk: cq, .. } = slot[q as usize]
                        && cq as usize != c
                    {
                        export(q, &mut slot);
                    }
                }
            }
        }
        for l in &spec.roots {
            if let Input::Prop(p) = l.input {
                export(p, &mut slot);
            }
        }
    }
    let scratch_words = (exports as usize).div_ceil(64).max(1);
    let sw = Literal::usize_unsuffixed(scratch_words);
    let allow = quote! { #[allow(unused_doc_comments, unused_parens, unused_variables, clippy::precedence, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::identity_op, clippy::unnecessary_cast, clippy::single_match)] };
    let sets = set_locations(ir);
    let view = View {
        slot: &slot,
        sets: &sets,
        guards: (!guards.is_empty()).then_some(&guards),
    };
    let read = |l: Lit| lit_expr(l, &view, u32::MAX);
    let tail = (spec.tail)(&read);
    if single {
        let body = chunks
            .first()
            .map(|c| chunk_body(ir, options, c, 0, &view))
            .unwrap_or_default();
        // A small function may be inlined into the playout loop of another crate: few
        // literals, or few tokens (lines of a board tested by shifts of the state).
        let weight: usize =
            needed.iter().map(|&p| ir.prop_weight(p)).sum::<usize>() + spec.roots.len();
        let small = weight <= INLINE_WEIGHT
            || spec.per_state
                && super::tokens::size(&body) + super::tokens::size(&tail) <= INLINE_TOKENS;
        let inline = small.then(|| quote! { #[inline] });
        return quote! {
            #inline
            #allow
            fn #name(#params, #extra) #ret {
                #body
                #tail
            }
        };
    }
    let mut fns = Vec::new();
    let mut calls = Vec::new();
    for (c, chunk) in chunks.iter().enumerate() {
        let f = format_ident!("{}_{}", spec.name, c);
        let body = chunk_body(ir, options, chunk, c as u32, &view);
        fns.push(quote! {
            #[inline(never)]
            #allow
            fn #f(#params, scratch: &mut [u64; #sw]) {
                #body
            }
        });
        calls.push(quote! { #f(#args, &mut scratch); });
    }
    quote! {
        #(#fns)*
        #allow
        fn #name(#params, #extra) #ret {
            let mut scratch = [0u64; #sw];
            #(#calls)*
            #tail
        }
    }
}

/// Marks `Slot::Lazy` the props of `lazy` in the cone that no other prop of it reads (the
/// tail alone does).
fn lazy_slots(ir: &Ir, needed: &[u32], lazy: &[u32], slot: &mut [Slot]) {
    if lazy.is_empty() {
        return;
    }
    let mut read_by_props = vec![false; ir.props.len()];
    for &p in needed {
        for l in ir.props[p as usize].disjuncts.iter().flatten() {
            if let Input::Prop(q) = l.input {
                read_by_props[q as usize] = true;
            }
        }
    }
    for &p in lazy {
        if matches!(slot[p as usize], Slot::Local { .. }) && !read_by_props[p as usize] {
            slot[p as usize] = Slot::Lazy;
        }
    }
}

/// An output function that computes at most this many literals (plus one per prop and one
/// per root) in one piece is `#[inline]`: the call costs as much as its body.
const INLINE_WEIGHT: usize = 512;

/// An output function called at every state whose code has at most this many tokens
/// ([`super::tokens::size`]) is `#[inline]` too, whatever its literals (goals, read once per
/// playout, are not: inlined into the playout loop they made connectFour's slower).
const INLINE_TOKENS: usize = 2_000;

/// The props that the roots read, ascending (a group is needed whole).
pub(super) fn cone(ir: &Ir, roots: &[Lit]) -> Vec<u32> {
    let group_of = ir.group_of();
    let mut need = vec![false; ir.props.len()];
    let mut stack: Vec<u32> = Vec::new();
    let push = |l: &Lit, need: &mut Vec<bool>, stack: &mut Vec<u32>| {
        if let Input::Prop(p) = l.input
            && !need[p as usize]
        {
            need[p as usize] = true;
            stack.push(p);
        }
    };
    for l in roots {
        push(l, &mut need, &mut stack);
    }
    while let Some(p) = stack.pop() {
        if let Some(g) = group_of[p as usize] {
            for q in ir.groups[g as usize].clone() {
                push(&Lit::pos(Input::Prop(q)), &mut need, &mut stack);
            }
        }
        for l in ir.props[p as usize].disjuncts.iter().flatten() {
            push(l, &mut need, &mut stack);
        }
    }
    (0..ir.props.len() as u32)
        .filter(|&p| need[p as usize])
        .collect()
}

/// Splits the cone (in evaluation order) into chunks of about `size` literals, never inside
/// a group or a block of `guards`.
fn split(ir: &Ir, cone: &[u32], guards: &super::guards::Guards, size: usize) -> Vec<Vec<u32>> {
    let group_of = ir.group_of();
    let block_of = &guards.block_of;
    let mut chunks: Vec<Vec<u32>> = Vec::new();
    let mut cur: Vec<u32> = Vec::new();
    let mut weight = 0usize;
    for &p in cone {
        let in_group_middle = group_of[p as usize].is_some()
            && cur
                .last()
                .is_some_and(|&q| group_of[q as usize] == group_of[p as usize]);
        let in_block_middle = block_of[p as usize] != super::guards::NONE
            && cur
                .last()
                .is_some_and(|&q| block_of[q as usize] == block_of[p as usize]);
        if weight >= size && !in_group_middle && !in_block_middle {
            chunks.push(std::mem::take(&mut cur));
            weight = 0;
        }
        weight += ir.prop_weight(p);
        cur.push(p);
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    chunks
}

/// Props computed once per module rather than once per output function: the props in
/// evaluation order, those that read no move first, cut into chunk functions that store every
/// prop into a scratch bitset indexed by prop number.
pub(super) struct Shared {
    chunks: Vec<Vec<u32>>,
    /// Whether each chunk reads the joint move.
    chunk_moves: Vec<bool>,
    chunk_of: Vec<u32>,
    /// Per chunk, the other chunks whose props it reads.
    chunk_deps: Vec<Vec<u32>>,
    slot: Vec<Slot>,
    scratch_words: usize,
    /// Per prop, the role whose move it is computed for in `played_<r>` (`played.rs`).
    played_role: Vec<Option<u32>>,
    played: Vec<Played>,
}

/// The chunk number of the props of `played_<r>` functions (read from scratch by all).
const PLAYED_CHUNK: u32 = u32::MAX - 1;

/// The total number of props of all output functions' cones.
/// The literals (plus one per prop) that the inline code evaluates per state of a playout:
/// the cones of `terminal`, of every role's legal moves and of `next`.
pub(crate) fn cost_per_state(ir: &Ir) -> usize {
    let size = |c: Vec<u32>| c.iter().map(|&p| ir.prop_weight(p)).sum::<usize>();
    let mut total = size(cone(ir, &[ir.terminal])) + size(cone(ir, &ir.next));
    for r in 0..ir.roles.len() {
        total += size(cone(ir, &ir.legal[r]));
    }
    total + ir.next.len() + ir.legal.iter().map(Vec::len).sum::<usize>()
}

fn inlined_size(ir: &Ir) -> usize {
    let size = |c: Vec<u32>| c.iter().map(|&p| ir.prop_weight(p)).sum::<usize>();
    let mut total = size(cone(ir, &[ir.terminal])) + size(cone(ir, &ir.next));
    for r in 0..ir.roles.len() {
        total += size(cone(ir, &ir.legal[r]));
        let goals: Vec<Lit> = ir.goals[r].iter().map(|g| g.when).collect();
        total += size(cone(ir, &goals));
    }
    total
}

/// The shared chunks, when inlining every cone would make more than
/// [`CodegenOptions::inline_props`] props of code; `roots`: every literal the output
/// functions read.
pub(super) fn shared_chunks(ir: &Ir, options: &CodegenOptions, roots: &[Lit]) -> Option<Shared> {
    let size = inlined_size(ir);
    tracing::debug!(size, limit = options.inline_props, "inline cones");
    if size <= options.inline_props {
        return None;
    }
    let n = ir.props.len();
    // Which props read moves, directly or through other props (whole groups alike).
    let mut moves = vec![false; n];
    let group_of = ir.group_of();
    for p in 0..n {
        moves[p] = ir.props[p]
            .disjuncts
            .iter()
            .flatten()
            .any(|l| match l.input {
                Input::Does { .. } | Input::MoveIn(_) => true,
                Input::Prop(q) => (q as usize) < p && moves[q as usize],
                _ => false,
            });
    }
    for r in &ir.groups {
        // A group reads moves if any member does (members may read later members).
        let mut any = false;
        loop {
            for p in r.clone() {
                any |= moves[p as usize]
                    || ir.props[p as usize]
                        .disjuncts
                        .iter()
                        .flatten()
                        .any(|l| matches!(l.input, Input::Prop(q) if moves[q as usize]));
            }
            let changed = r.clone().any(|p| moves[p as usize] != any);
            for p in r.clone() {
                moves[p as usize] = any;
            }
            if !changed {
                break;
            }
        }
        // Props after the group that read it were computed before: recompute them.
        for p in r.end as usize..n {
            if group_of[p].is_none() && !moves[p] {
                moves[p] = ir.props[p]
                    .disjuncts
                    .iter()
                    .flatten()
                    .any(|l| matches!(l.input, Input::Prop(q) if moves[q as usize]));
            }
        }
    }
    // The props of every state of a playout (those of `terminal`, the legal moves and `next`)
    // come before the ones only goals read, so that their chunks read no goal chunk.
    let mut every_state = cone(ir, &[ir.terminal]);
    every_state.extend(cone(ir, &ir.next));
    for legal in &ir.legal {
        every_state.extend(cone(ir, legal));
    }
    let mut hot = vec![false; n];
    for p in every_state {
        hot[p as usize] = true;
    }
    // Evaluation order within each class: props that read no move and every state needs,
    // then those only goals need, then those that read moves.
    let class = |p: u32| -> u8 {
        match (moves[p as usize], hot[p as usize]) {
            (false, true) => 0,
            (false, false) => 1,
            (true, _) => 2,
        }
    };
    let mut live = vec![false; n];
    for p in cone(ir, roots) {
        live[p as usize] = true;
    }
    let (played_role, played) = played::plan(ir, &moves, &live);
    // Props no output reads are left out.
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&p| live[p as usize] && played_role[p as usize].is_none())
        .collect();
    order.sort_by_key(|&p| class(p));
    let size = options.chunk_props.max(1);
    let mut chunks: Vec<Vec<u32>> = Vec::new();
    let mut chunk_moves = Vec::new();
    let mut cur: Vec<u32> = Vec::new();
    let mut weight = 0usize;
    for &p in &order {
        let same_group = group_of[p as usize].is_some()
            && cur
                .last()
                .is_some_and(|&q| group_of[q as usize] == group_of[p as usize]);
        let phase_change = cur.last().is_some_and(|&q| class(q) != class(p));
        if (weight >= size && !same_group) || phase_change {
            chunk_moves.push(moves[cur[0] as usize]);
            chunks.push(std::mem::take(&mut cur));
            weight = 0;
        }
        weight += ir.prop_weight(p);
        cur.push(p);
    }
    if let Some(&first) = cur.first() {
        chunk_moves.push(moves[first as usize]);
        chunks.push(cur);
    }
    let mut chunk_of = vec![u32::MAX; n];
    let mut slot = vec![Slot::None; n];
    for (p, r) in played_role.iter().enumerate() {
        if r.is_some() {
            slot[p] = Slot::Local {
                chunk: PLAYED_CHUNK,
                export: Some(p as u32),
            };
        }
    }
    for (c, chunk) in chunks.iter().enumerate() {
        for &p in chunk {
            chunk_of[p as usize] = c as u32;
            slot[p as usize] = Slot::Local {
                chunk: c as u32,
                export: Some(p),
            };
        }
    }
    let chunk_deps = chunks
        .iter()
        .enumerate()
        .map(|(c, chunk)| {
            let mut deps: Vec<u32> = chunk
                .iter()
                .flat_map(|&p| ir.props[p as usize].disjuncts.iter().flatten())
                .filter_map(|l| match l.input {
                    Input::Prop(q) => Some(chunk_of[q as usize]),
                    _ => None,
                })
                .filter(|&d| d != c as u32 && d != u32::MAX)
                .collect();
            deps.sort_unstable();
            deps.dedup();
            deps
        })
        .collect();
    Some(Shared {
        chunks,
        chunk_moves,
        chunk_of,
        chunk_deps,
        slot,
        scratch_words: n.div_ceil(64).max(1),
        played_role,
        played,
    })
}

pub(super) fn shared_chunk_fns(ir: &Ir, options: &CodegenOptions, sh: &Shared) -> Vec<TokenStream> {
    let sw = Literal::usize_unsuffixed(sh.scratch_words);
    let n = Literal::usize_unsuffixed(ir.roles.len());
    let sets = set_locations(ir);
    let view = View {
        slot: &sh.slot,
        sets: &sets,
        guards: None,
    };
    let mut out = vec![memo_items(ir, sh)];
    out.extend(
        sh.played
            .iter()
            .map(|pl| played::played_fn(ir, options, pl, &view, sh.scratch_words)),
    );
    out.extend(sh.chunks.iter().enumerate().map(|(c, chunk)| {
        let f = format_ident!("chunk_{}", c);
        let body = chunk_body(ir, options, chunk, c as u32, &view);
        let params = if sh.chunk_moves[c] {
            quote! { state: &State, joint: &[u32; #n] }
        } else {
            quote! { state: &State }
        };
        quote! {
            #[inline(never)]
            #[allow(unused_doc_comments, unused_parens, unused_variables, clippy::precedence, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::identity_op, clippy::unnecessary_cast, clippy::single_match)]
            fn #f(#params, scratch: &mut [u64; #sw]) {
                #body
            }
        }
    }));
    out
}

/// The per-thread memo of the shared chunks that read no move: a playout asks `terminal`,
/// every role's legal moves and `next` of the same state, and these chunks are computed once
/// for it.
fn memo_items(ir: &Ir, sh: &Shared) -> TokenStream {
    let sw = Literal::usize_unsuffixed(sh.scratch_words);
    let dw = Literal::usize_unsuffixed(sh.chunks.len().div_ceil(64).max(1));
    let words = Literal::usize_unsuffixed(super::super::state_words(ir));
    quote! {
        /// The props that read no move, for the last state this thread asked about: `done`
        /// has a bit per chunk function already run for it, `scratch` a bit per prop.
        struct Memo {
            valid: bool,
            state: State,
            done: [u64; #dw],
            scratch: [u64; #sw],
        }
        impl Memo {
            /// Makes the memo hold `state`, forgetting what it held for another one.
            #[inline]
            fn at(&mut self, state: &State) {
                if !self.valid || self.state != *state {
                    self.valid = true;
                    self.state = *state;
                    self.done = [0; #dw];
                    self.scratch = [0; #sw];
                }
            }
        }
        thread_local! {
            static MEMO: std::cell::RefCell<Memo> = const {
                std::cell::RefCell::new(Memo {
                    valid: false,
                    state: State([0; #words]),
                    done: [0; #dw],
                    scratch: [0; #sw],
                })
            };
        }
    }
}

fn shared_output_fn(
    ir: &Ir,
    spec: &ConeSpec<'_>,
    sh: &Shared,
    needed: &[u32],
    name: &Ident,
    params: &TokenStream,
    args: &TokenStream,
) -> TokenStream {
    // The chunks of the needed props, and the chunks those read: a chunk computes all its
    // props, and the memo keeps them for the other outputs, so they must all be right.
    let mut wanted = vec![false; sh.chunks.len()];
    // (The props of `played_<r>` are in no chunk; the cone holds what they read.)
    let mut stack: Vec<u32> = needed
        .iter()
        .map(|&p| sh.chunk_of[p as usize])
        .filter(|&c| c != u32::MAX)
        .collect();
    while let Some(c) = stack.pop() {
        if !std::mem::replace(&mut wanted[c as usize], true) {
            stack.extend(&sh.chunk_deps[c as usize]);
        }
    }
    let chunks: Vec<u32> = (0..sh.chunks.len() as u32)
        .filter(|&c| wanted[c as usize])
        .collect();
    // Chunks that read no move come from the memo; the others run on a copy of it.
    let state_calls = chunks
        .iter()
        .filter(|&&c| !sh.chunk_moves[c as usize])
        .map(|&c| {
            let f = format_ident!("chunk_{}", c);
            let w = Literal::usize_unsuffixed(c as usize / 64);
            let bit = Literal::u64_suffixed(1 << (c % 64));
            quote! {
                if memo.done[#w] & #bit == 0 {
                    #f(state, &mut memo.scratch);
                    memo.done[#w] |= #bit;
                }
            }
        });
    // The props of the moves played first: the chunks that read moves may read them.
    let played_calls = sh
        .played
        .iter()
        .filter(|pl| {
            needed
                .iter()
                .any(|&p| sh.played_role[p as usize] == Some(pl.role))
        })
        .map(|pl| {
            let f = format_ident!("played_{}", pl.role);
            quote! { #f(#args, &mut scratch); }
        });
    let move_calls: Vec<TokenStream> = played_calls
        .chain(
            chunks
                .iter()
                .filter(|&&c| sh.chunk_moves[c as usize])
                .map(|&c| {
                    let f = format_ident!("chunk_{}", c);
                    quote! { #f(#args, &mut scratch); }
                }),
        )
        .collect();
    let sets = set_locations(ir);
    let view = View {
        slot: &sh.slot,
        sets: &sets,
        guards: None,
    };
    let read = |l: Lit| lit_expr(l, &view, u32::MAX);
    let tail = (spec.tail)(&read);
    let ret = spec.ret.as_ref().map(|r| quote! { -> #r });
    let extra = &spec.extra_param;
    let allow = quote! { #[allow(unused_parens, unused_variables, unused_mut, clippy::precedence, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::identity_op, clippy::unnecessary_cast, clippy::single_match)] };
    if move_calls.is_empty() {
        quote! {
            #allow
            fn #name(#params, #extra) #ret {
                MEMO.with_borrow_mut(|memo| {
                    memo.at(state);
                    #(#state_calls)*
                    let scratch = &memo.scratch;
                    #tail
                })
            }
        }
    } else {
        quote! {
            #allow
            fn #name(#params, #extra) #ret {
                let mut scratch = MEMO.with_borrow_mut(|memo| {
                    memo.at(state);
                    #(#state_calls)*
                    memo.scratch
                });
                #(#move_calls)*
                #tail
            }
        }
    }
}
