//! The inline backend: straight-line code per output.
//!
//! One plain function per output: `terminal`, `legal_<r>` and `goal_<r>` per role, `next`.
//! Each output function computes only the props its outputs read (its *cone*), as
//! straight-line `let`s in evaluation order; a recursive group becomes a loop that runs until
//! nothing changes. A cone of more than [`CodegenOptions::chunk_props`] props is split into
//! `#[inline(never)]` chunk functions that pass the props they share through a scratch bitset,
//! so that rustc's time and memory stay bounded on large games.
//!
//! A move set literal reads one bit of a per-role table: row `m` of `MOVE_SETS_<r>` holds one
//! bit per set of role `r`, set when move `m` is in it (the last row, for no move, is empty).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::{CodegenOptions, Comments, GameBodies};
use crate::ir::{Input, Ir, Lit};

/// The items of the module.
pub fn items(ir: &Ir, options: &CodegenOptions) -> Vec<TokenStream> {
    let nroles = ir.roles.len();
    let mut items = Vec::new();
    let shared = shared_chunks(ir, options);
    if let Some(sh) = &shared {
        items.extend(shared_chunk_fns(ir, options, sh));
    }
    let terminal = cone_fn(
        ir,
        options,
        shared.as_ref(),
        &ConeSpec {
            name: "terminal",
            moves: false,
            roots: vec![ir.terminal],
            ret: quote! { bool },
            extra_param: quote! {},
            tail: &|e| {
                let t = &e[0];
                quote! { #t }
            },
        },
    );
    items.push(terminal);
    let mut legal_arms = Vec::new();
    let mut goal_arms = Vec::new();
    for r in 0..nroles {
        let name = format!("legal_{r}");
        let f = format_ident!("{}", name);
        items.push(cone_fn(
            ir,
            options,
            shared.as_ref(),
            &ConeSpec {
                name: &name,
                moves: false,
                roots: ir.legal[r].clone(),
                ret: quote! { () },
                extra_param: quote! { out: &mut Vec<u32>, },
                tail: &|e| {
                    let pushes = e.iter().enumerate().filter_map(|(m, x)| {
                        let m = Literal::u32_suffixed(m as u32);
                        match x.to_string().as_str() {
                            "false" => None,
                            "true" => Some(quote! { out.push(#m); }),
                            _ => Some(quote! { if #x { out.push(#m); } }),
                        }
                    });
                    quote! { #(#pushes)* }
                },
            },
        ));
        let ri = Literal::usize_unsuffixed(r);
        legal_arms.push(quote! { #ri => #f(state, out), });
        let name = format!("goal_{r}");
        let f = format_ident!("{}", name);
        let values: Vec<Option<i32>> = ir.goals[r].iter().map(|g| g.value).collect();
        items.push(cone_fn(
            ir,
            options,
            shared.as_ref(),
            &ConeSpec {
                name: &name,
                moves: false,
                roots: ir.goals[r].iter().map(|g| g.when).collect(),
                ret: quote! { Option<i32> },
                extra_param: quote! {},
                tail: &|e| {
                    let tests = e.iter().zip(&values).map(|(x, v)| {
                        let v = match v {
                            Some(v) => {
                                let v = Literal::i32_unsuffixed(*v);
                                quote! { Some(#v) }
                            }
                            None => quote! { None },
                        };
                        quote! { if #x { count += 1; value = #v; } }
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
        goal_arms.push(quote! { #ri => #f(state), });
    }
    let nwords = super::state_words(ir);
    items.push(cone_fn(
        ir,
        options,
        shared.as_ref(),
        &ConeSpec {
            name: "next",
            moves: true,
            roots: ir.next.clone(),
            ret: quote! { State },
            extra_param: quote! {},
            tail: &|e| {
                let ws = (0..nwords).map(|w| {
                    let parts: Vec<TokenStream> = e
                        .iter()
                        .enumerate()
                        .skip(w * 64)
                        .take(64)
                        .filter(|(_, x)| x.to_string() != "false")
                        .map(|(b, x)| {
                            let k = Literal::u32_unsuffixed((b % 64) as u32);
                            if x.to_string() == "true" {
                                quote! { (1u64 << #k) }
                            } else {
                                quote! { ((#x) as u64) << #k }
                            }
                        })
                        .collect();
                    if parts.is_empty() {
                        quote! { 0u64 }
                    } else {
                        quote! { #(#parts)|* }
                    }
                });
                quote! { State([#(#ws),*]) }
            },
        },
    ));
    let joint = (0..nroles).map(|r| {
        let rl = Literal::usize_unsuffixed(r);
        let n = Literal::u32_suffixed(ir.moves[r].len() as u32);
        quote! { joint.get(#rl).copied().map_or(#n, |m| m.min(#n)) }
    });
    let nroles_lit = Literal::usize_unsuffixed(nroles);
    let bodies = GameBodies {
        is_terminal: quote! { terminal(state) },
        legal_moves: quote! {
            match role {
                #(#legal_arms)*
                _ => {}
            }
        },
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
    };
    let mut out = vec![super::header(ir, options)];
    out.extend(move_set_tables(ir));
    out.extend(items);
    out.push(super::game_impl(ir, options, &bodies));
    out
}

/// Per move set: its role and its number among the role's sets.
fn set_locations(ir: &Ir) -> Vec<(u32, u32)> {
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

/// The `MOVE_SETS_<r>` tables.
fn move_set_tables(ir: &Ir) -> Vec<TokenStream> {
    let loc = set_locations(ir);
    let mut out = Vec::new();
    for r in 0..ir.roles.len() {
        let n = loc.iter().filter(|l| l.0 == r as u32).count();
        if n == 0 {
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
        let name = format_ident!("MOVE_SETS_{}", r);
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
struct ConeSpec<'a> {
    name: &'a str,
    /// Whether the function reads the joint move.
    moves: bool,
    /// The output literals; `tail` gets one boolean expression per root.
    roots: Vec<Lit>,
    ret: TokenStream,
    extra_param: TokenStream,
    tail: &'a dyn Fn(&[TokenStream]) -> TokenStream,
}

/// Where a prop's value is read from inside generated code.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Not computed by this cone.
    None,
    /// A local of chunk `chunk`, stored to scratch slot `export` if other chunks read it.
    Local { chunk: u32, export: Option<u32> },
}

/// What expressions read: where each prop is, and where each move set is.
struct View<'a> {
    slot: &'a [Slot],
    /// Per move set: its role and its bit in the role's `MOVE_SETS` rows.
    sets: &'a [(u32, u32)],
}

fn cone_fn(
    ir: &Ir,
    options: &CodegenOptions,
    shared: Option<&Shared>,
    spec: &ConeSpec<'_>,
) -> TokenStream {
    let name = format_ident!("{}", spec.name);
    let ret = &spec.ret;
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
    let chunks = split(ir, &needed, options.chunk_props.max(1));
    let mut slot = vec![Slot::None; ir.props.len()];
    for (c, chunk) in chunks.iter().enumerate() {
        for &p in chunk {
            slot[p as usize] = Slot::Local {
                chunk: c as u32,
                export: None,
            };
        }
    }
    let single = chunks.len() <= 1;
    let mut exports = 0u32;
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
    let allow =
        quote! { #[allow(unused_doc_comments, unused_parens, unused_variables, clippy::all)] };
    let sets = set_locations(ir);
    let view = View {
        slot: &slot,
        sets: &sets,
    };
    let tail_exprs: Vec<TokenStream> = spec
        .roots
        .iter()
        .map(|&l| lit_expr(l, &view, u32::MAX))
        .collect();
    let tail = (spec.tail)(&tail_exprs);
    if single {
        let body = chunks
            .first()
            .map(|c| chunk_body(ir, options, c, 0, &view))
            .unwrap_or_default();
        return quote! {
            #allow
            fn #name(#params, #extra) -> #ret {
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
        fn #name(#params, #extra) -> #ret {
            let mut scratch = [0u64; #sw];
            #(#calls)*
            #tail
        }
    }
}

/// The props that the roots read, ascending (a group is needed whole).
fn cone(ir: &Ir, roots: &[Lit]) -> Vec<u32> {
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

/// The size of a prop's code: one plus its number of literals.
pub(crate) fn prop_weight(ir: &Ir, p: u32) -> usize {
    1 + ir.props[p as usize]
        .disjuncts
        .iter()
        .map(Vec::len)
        .sum::<usize>()
}

/// Splits the cone into chunks of about `size` literals, never inside a group.
fn split(ir: &Ir, cone: &[u32], size: usize) -> Vec<Vec<u32>> {
    let group_of = ir.group_of();
    let mut chunks: Vec<Vec<u32>> = Vec::new();
    let mut cur: Vec<u32> = Vec::new();
    let mut weight = 0usize;
    for &p in cone {
        let in_group_middle = group_of[p as usize].is_some()
            && cur
                .last()
                .is_some_and(|&q| group_of[q as usize] == group_of[p as usize]);
        if weight >= size && !in_group_middle {
            chunks.push(std::mem::take(&mut cur));
            weight = 0;
        }
        weight += prop_weight(ir, p);
        cur.push(p);
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    chunks
}

fn prop_ident(p: u32) -> Ident {
    format_ident!("p{}", p)
}

/// The expression of a literal read from chunk `chunk` (`u32::MAX`: the tail, after every
/// chunk).
fn lit_expr(l: Lit, v: &View<'_>, chunk: u32) -> TokenStream {
    let slot = v.slot;
    let l = l.folded();
    match l.input {
        Input::Const(b) => {
            if b != l.negated {
                quote! { true }
            } else {
                quote! { false }
            }
        }
        Input::Bit(b) => {
            let w = Literal::usize_unsuffixed(b as usize / 64);
            let mask = Literal::u64_suffixed(1u64 << (b % 64));
            if l.negated {
                quote! { (state.0[#w] & #mask == 0) }
            } else {
                quote! { (state.0[#w] & #mask != 0) }
            }
        }
        Input::Does { role, mv } => {
            let r = Literal::usize_unsuffixed(role as usize);
            let m = Literal::u32_suffixed(mv);
            if l.negated {
                quote! { (joint[#r] != #m) }
            } else {
                quote! { (joint[#r] == #m) }
            }
        }
        Input::MoveIn(set) => {
            let (role, k) = v.sets.get(set as usize).copied().unwrap_or((0, 0));
            let table = format_ident!("MOVE_SETS_{}", role);
            let r = Literal::usize_unsuffixed(role as usize);
            let w = Literal::usize_unsuffixed(k as usize / 64);
            let mask = Literal::u64_suffixed(1u64 << (k % 64));
            if l.negated {
                quote! { (#table[joint[#r] as usize][#w] & #mask == 0) }
            } else {
                quote! { (#table[joint[#r] as usize][#w] & #mask != 0) }
            }
        }
        Input::Prop(p) => {
            let value = match slot.get(p as usize) {
                Some(Slot::Local { chunk: c, export }) => {
                    if *c == chunk || (chunk == u32::MAX && export.is_none()) {
                        let id = prop_ident(p);
                        quote! { #id }
                    } else {
                        let e = export.unwrap_or(0);
                        let w = Literal::usize_unsuffixed(e as usize / 64);
                        let mask = Literal::u64_suffixed(1u64 << (e % 64));
                        quote! { (scratch[#w] & #mask != 0) }
                    }
                }
                // Not expected: cones are closed.
                _ => quote! { false },
            };
            if l.negated {
                quote! { !#value }
            } else {
                value
            }
        }
    }
}

fn dnf_expr(d: &[Vec<Lit>], v: &View<'_>, chunk: u32) -> TokenStream {
    if d.is_empty() {
        return quote! { false };
    }
    let conj = d.iter().map(|c| conj_expr(c, v, chunk));
    quote! { #(#conj)|* }
}

/// A conjunction; the state bits of one word are tested together with one mask.
fn conj_expr(c: &[Lit], v: &View<'_>, chunk: u32) -> TokenStream {
    if c.is_empty() {
        return quote! { true };
    }
    // Per word: (mask of the bits read, mask of those that must be set).
    let mut words: Vec<(usize, u64, u64)> = Vec::new();
    let mut others = Vec::new();
    for &l in c {
        match l.folded().input {
            Input::Bit(b) => {
                let w = b as usize / 64;
                let m = 1u64 << (b % 64);
                let i = match words.iter().position(|x| x.0 == w) {
                    Some(i) => i,
                    None => {
                        words.push((w, 0, 0));
                        words.len() - 1
                    }
                };
                words[i].1 |= m;
                if !l.negated {
                    words[i].2 |= m;
                }
            }
            _ => others.push(lit_expr(l, v, chunk)),
        }
    }
    let mut parts: Vec<TokenStream> = Vec::new();
    for (w, read, set) in words {
        if read.count_ones() == 1 {
            let b = (w * 64) as u32 + read.trailing_zeros();
            parts.push(lit_expr(
                Lit {
                    input: Input::Bit(b),
                    negated: set == 0,
                },
                v,
                chunk,
            ));
            continue;
        }
        let wl = Literal::usize_unsuffixed(w);
        let rl = Literal::u64_suffixed(read);
        let sl = Literal::u64_suffixed(set);
        parts.push(if set == 0 {
            quote! { (state.0[#wl] & #rl == 0) }
        } else if set == read {
            quote! { (state.0[#wl] & #rl == #rl) }
        } else {
            quote! { (state.0[#wl] & #rl == #sl) }
        });
    }
    parts.extend(others);
    quote! { #(#parts)&* }
}

fn chunk_body(
    ir: &Ir,
    options: &CodegenOptions,
    chunk: &[u32],
    c: u32,
    v: &View<'_>,
) -> TokenStream {
    let slot = v.slot;
    let group_of = ir.group_of();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < chunk.len() {
        let p = chunk[i];
        let doc = |p: u32| match options.comments {
            Comments::Props => {
                let t = format!(" {}", ir.props[p as usize].text);
                quote! { #[doc = #t] }
            }
            Comments::None => quote! {},
        };
        if let Some(g) = group_of[p as usize] {
            let r = ir.groups[g as usize].clone();
            let members: Vec<u32> = r.collect();
            let decls = members.iter().map(|&q| {
                let id = prop_ident(q);
                let d = doc(q);
                quote! { #d let mut #id = false; }
            });
            let updates = members.iter().map(|&q| {
                let id = prop_ident(q);
                let e = dnf_expr(&ir.props[q as usize].disjuncts, v, c);
                quote! {
                    let value = #e;
                    changed |= value != #id;
                    #id = value;
                }
            });
            out.extend(quote! {
                #(#decls)*
                loop {
                    let mut changed = false;
                    #(#updates)*
                    if !changed {
                        break;
                    }
                }
            });
            for &q in &members {
                out.extend(store_export(q, slot));
            }
            i += members.len();
            continue;
        }
        let id = prop_ident(p);
        let e = dnf_expr(&ir.props[p as usize].disjuncts, v, c);
        let d = doc(p);
        out.extend(quote! { #d let #id = #e; });
        out.extend(store_export(p, slot));
        i += 1;
    }
    out
}

fn store_export(p: u32, slot: &[Slot]) -> TokenStream {
    match slot[p as usize] {
        Slot::Local {
            export: Some(e), ..
        } => {
            let id = prop_ident(p);
            let w = Literal::usize_unsuffixed(e as usize / 64);
            let k = Literal::u32_unsuffixed(e % 64);
            quote! { scratch[#w] |= (#id as u64) << #k; }
        }
        _ => quote! {},
    }
}

/// Props computed once per module rather than once per output function: the props in
/// evaluation order, those that read no move first, cut into chunk functions that store every
/// prop into a scratch bitset indexed by prop number.
struct Shared {
    chunks: Vec<Vec<u32>>,
    /// Whether each chunk reads the joint move.
    chunk_moves: Vec<bool>,
    chunk_of: Vec<u32>,
    slot: Vec<Slot>,
    scratch_words: usize,
}

/// The total number of props of all output functions' cones.
/// The literals (plus one per prop) that the inline code evaluates per state of a playout:
/// the cones of `terminal`, of every role's legal moves and of `next`.
pub(crate) fn cost_per_state(ir: &Ir) -> usize {
    let size = |c: Vec<u32>| c.iter().map(|&p| prop_weight(ir, p)).sum::<usize>();
    let mut total = size(cone(ir, &[ir.terminal])) + size(cone(ir, &ir.next));
    for r in 0..ir.roles.len() {
        total += size(cone(ir, &ir.legal[r]));
    }
    total + ir.next.len() + ir.legal.iter().map(Vec::len).sum::<usize>()
}

fn inlined_size(ir: &Ir) -> usize {
    let size = |c: Vec<u32>| c.iter().map(|&p| prop_weight(ir, p)).sum::<usize>();
    let mut total = size(cone(ir, &[ir.terminal])) + size(cone(ir, &ir.next));
    for r in 0..ir.roles.len() {
        total += size(cone(ir, &ir.legal[r]));
        let goals: Vec<Lit> = ir.goals[r].iter().map(|g| g.when).collect();
        total += size(cone(ir, &goals));
    }
    total
}

/// The shared chunks, when inlining every cone would make more than
/// [`CodegenOptions::inline_props`] props of code.
fn shared_chunks(ir: &Ir, options: &CodegenOptions) -> Option<Shared> {
    if inlined_size(ir) <= options.inline_props {
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
    let order: Vec<u32> = (0..n as u32)
        .filter(|&p| !moves[p as usize])
        .chain((0..n as u32).filter(|&p| moves[p as usize]))
        .collect();
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
        let phase_change = cur
            .last()
            .is_some_and(|&q| moves[q as usize] != moves[p as usize]);
        if (weight >= size && !same_group) || phase_change {
            chunk_moves.push(moves[cur[0] as usize]);
            chunks.push(std::mem::take(&mut cur));
            weight = 0;
        }
        weight += prop_weight(ir, p);
        cur.push(p);
    }
    if let Some(&first) = cur.first() {
        chunk_moves.push(moves[first as usize]);
        chunks.push(cur);
    }
    let mut chunk_of = vec![u32::MAX; n];
    let mut slot = vec![Slot::None; n];
    for (c, chunk) in chunks.iter().enumerate() {
        for &p in chunk {
            chunk_of[p as usize] = c as u32;
            slot[p as usize] = Slot::Local {
                chunk: c as u32,
                export: Some(p),
            };
        }
    }
    Some(Shared {
        chunks,
        chunk_moves,
        chunk_of,
        slot,
        scratch_words: n.div_ceil(64).max(1),
    })
}

fn shared_chunk_fns(ir: &Ir, options: &CodegenOptions, sh: &Shared) -> Vec<TokenStream> {
    let sw = Literal::usize_unsuffixed(sh.scratch_words);
    let n = Literal::usize_unsuffixed(ir.roles.len());
    let sets = set_locations(ir);
    let view = View {
        slot: &sh.slot,
        sets: &sets,
    };
    sh.chunks
        .iter()
        .enumerate()
        .map(|(c, chunk)| {
            let f = format_ident!("chunk_{}", c);
            let body = chunk_body(ir, options, chunk, c as u32, &view);
            let params = if sh.chunk_moves[c] {
                quote! { state: &State, joint: &[u32; #n] }
            } else {
                quote! { state: &State }
            };
            quote! {
                #[inline(never)]
                #[allow(unused_doc_comments, unused_parens, unused_variables, clippy::all)]
                fn #f(#params, scratch: &mut [u64; #sw]) {
                    #body
                }
            }
        })
        .collect()
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
    let _ = ir;
    let mut chunks: Vec<u32> = needed.iter().map(|&p| sh.chunk_of[p as usize]).collect();
    chunks.sort_unstable();
    chunks.dedup();
    let calls = chunks.iter().map(|&c| {
        let f = format_ident!("chunk_{}", c);
        if sh.chunk_moves[c as usize] {
            quote! { #f(#args, &mut scratch); }
        } else {
            quote! { #f(state, &mut scratch); }
        }
    });
    let sw = Literal::usize_unsuffixed(sh.scratch_words);
    let sets = set_locations(ir);
    let view = View {
        slot: &sh.slot,
        sets: &sets,
    };
    let tail_exprs: Vec<TokenStream> = spec
        .roots
        .iter()
        .map(|&l| lit_expr(l, &view, u32::MAX))
        .collect();
    let tail = (spec.tail)(&tail_exprs);
    let ret = &spec.ret;
    let extra = &spec.extra_param;
    quote! {
        #[allow(unused_parens, unused_variables, unused_mut, clippy::all)]
        fn #name(#params, #extra) -> #ret {
            let mut scratch = [0u64; #sw];
            #(#calls)*
            #tail
        }
    }
}
