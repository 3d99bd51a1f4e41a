//! Expressions of the inline backend: literals, conjunctions and disjunctions as Rust
//! expressions, and the body of a chunk of props.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::super::{CodegenOptions, Comments};
use super::tokens::{Op, join_balanced, paren};
use crate::ir::{Input, Ir, Lit};

/// Where a prop's value is read from inside generated code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// Not computed by this cone.
    None,
    /// A local of chunk `chunk`, stored to scratch slot `export` if other chunks read it.
    Local { chunk: u32, export: Option<u32> },
    /// A closure of the one chunk, called where the tail reads it: a test of state bits
    /// that only some arms of `next`'s move matches read ([`super::next`]).
    Lazy,
}

/// What expressions read: where each prop is, and where each move set is.
pub(super) struct View<'a> {
    pub slot: &'a [Slot],
    /// Per move set: its role and its bit in the role's `MOVE_SETS` rows.
    pub sets: &'a [(u32, u32)],
    /// The blocks of props computed under a test of a state bit ([`super::guards`]).
    pub guards: Option<&'a super::guards::Guards>,
}

pub(super) fn prop_ident(p: u32) -> Ident {
    format_ident!("p{}", p)
}

/// The expression of a literal read from chunk `chunk` (`u32::MAX`: the tail, after every
/// chunk).
pub(super) fn lit_expr(l: Lit, v: &View<'_>, chunk: u32) -> TokenStream {
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
            let mask = super::masks::name(b as usize / 64, 1u64 << (b % 64));
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
        // Not expected: games with joins use the propnet backend.
        Input::Join(_) => quote! { false },
        Input::MoveIn(set) => {
            let (role, k) = v.sets.get(set as usize).copied().unwrap_or((0, 0));
            let table = super::masks::move_set_table(role);
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
                Some(Slot::Lazy) => {
                    let id = prop_ident(p);
                    quote! { #id() }
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
    dnf_with(d, &|l| lit_expr(l, v, chunk))
}

/// A disjunction of conjunctions, `lit` making the expression of a literal that is not a
/// state bit. Literals in every disjunct are tested once, families of one pattern of state
/// bits by shifts ([`super::shifts`]), disjuncts of one state bit per word with one mask.
pub(super) fn dnf_with(d: &[Vec<Lit>], lit: &dyn Fn(Lit) -> TokenStream) -> TokenStream {
    if d.is_empty() {
        return quote! { false };
    }
    if d.iter().any(|c| c.is_empty()) {
        return quote! { true };
    }
    if d.len() > 1 {
        let mut common: Vec<Lit> = Vec::new();
        for &l in &d[0] {
            if !common.contains(&l) && d[1..].iter().all(|c| c.contains(&l)) {
                common.push(l);
            }
        }
        if !common.is_empty() {
            let head = conj_with(&common, lit);
            let rest: Vec<Vec<Lit>> = d
                .iter()
                .map(|c| c.iter().copied().filter(|l| !common.contains(l)).collect())
                .collect();
            if rest.iter().any(Vec::is_empty) {
                return head;
            }
            let tail = paren(dnf_with(&rest, lit));
            return join_balanced(vec![paren(head), tail], Op::And);
        }
    }
    let (mut parts, rest) = super::shifts::families(d);
    // Per word: the bits one of which is set, the bits one of which is clear.
    let mut any: std::collections::BTreeMap<(usize, bool), u64> = Default::default();
    for i in rest {
        match d[i][..] {
            [l] if matches!(l.folded().input, Input::Bit(_)) => {
                let Input::Bit(b) = l.folded().input else {
                    continue;
                };
                *any.entry((b as usize / 64, l.negated)).or_default() |= 1 << (b % 64);
            }
            _ => parts.push(conj_with(&d[i], lit)),
        }
    }
    for ((w, negated), m) in any {
        if m.count_ones() == 1 {
            let b = (w * 64) as u32 + m.trailing_zeros();
            parts.push(lit(Lit {
                input: Input::Bit(b),
                negated,
            }));
            continue;
        }
        let wl = Literal::usize_unsuffixed(w);
        let ml = super::masks::name(w, m);
        parts.push(if negated {
            quote! { (state.0[#wl] & #ml != #ml) }
        } else {
            quote! { (state.0[#wl] & #ml != 0) }
        });
    }
    join_balanced(parts, Op::Or)
}

/// A conjunction; the state bits of one word are tested together with one mask, `lit` makes
/// the expressions of the other literals (and of a lone state bit).
pub(super) fn conj_with(c: &[Lit], lit: &dyn Fn(Lit) -> TokenStream) -> TokenStream {
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
            _ => others.push(lit(l)),
        }
    }
    let mut parts: Vec<TokenStream> = Vec::new();
    for (w, read, set) in words {
        if read.count_ones() == 1 {
            let b = (w * 64) as u32 + read.trailing_zeros();
            parts.push(lit(Lit {
                input: Input::Bit(b),
                negated: set == 0,
            }));
            continue;
        }
        let wl = Literal::usize_unsuffixed(w);
        let rl = super::masks::name(w, read);
        parts.push(if set == 0 {
            quote! { (state.0[#wl] & #rl == 0) }
        } else if set == read {
            quote! { (state.0[#wl] & #rl == #rl) }
        } else {
            let sl = super::masks::name(w, set);
            quote! { (state.0[#wl] & #rl == #sl) }
        });
    }
    parts.extend(others);
    join_balanced(parts, Op::And)
}

pub(super) fn chunk_body(
    ir: &Ir,
    options: &CodegenOptions,
    chunk: &[u32],
    c: u32,
    v: &View<'_>,
) -> TokenStream {
    let block_of = |p: u32| {
        v.guards
            .map_or(super::guards::NONE, |g| g.block_of[p as usize])
    };
    let group_of = ir.group_of();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < chunk.len() {
        let b = block_of(chunk[i]);
        let run = chunk[i..].iter().take_while(|&&p| block_of(p) == b).count();
        let assume = v
            .guards
            .filter(|_| b != super::guards::NONE)
            .map(|g| g.bits[b as usize]);
        let props = props_code(ir, options, &group_of, &chunk[i..i + run], c, v, assume);
        i += run;
        let (Some(g), false) = (v.guards, b == super::guards::NONE) else {
            out.extend(props);
            continue;
        };
        // A block: skipped when the state bit all its moves need is clear.
        let bit = g.bits[b as usize];
        let test = lit_expr(Lit::pos(Input::Bit(bit)), v, c);
        let doc = format!(
            " The moves below need {}: their props are false without it.",
            ir.bits.get(bit as usize).map_or("", String::as_str)
        );
        out.extend(quote! {
            #[doc = #doc]
            let guard = #test;
            if guard {
                #props
            }
        });
    }
    out
}

/// The code of the props `chunk` (a part of chunk `c`, whole groups; `group_of`: per prop,
/// its recursive group).
fn props_code(
    ir: &Ir,
    options: &CodegenOptions,
    group_of: &[Option<u32>],
    chunk: &[u32],
    c: u32,
    v: &View<'_>,
    assume: Option<u32>,
) -> TokenStream {
    let slot = v.slot;
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < chunk.len() {
        let p = chunk[i];
        let doc = |p: u32| match options.comments {
            Comments::Props => {
                let t = super::super::prop_doc(ir, options, p);
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
        let e = match assume {
            // In a block, its bit is known to be set.
            Some(b) => {
                let set = Lit::pos(Input::Bit(b));
                let d: Vec<Vec<Lit>> = ir.props[p as usize]
                    .disjuncts
                    .iter()
                    .filter(|c| !c.contains(&set.negate()))
                    .map(|c| c.iter().copied().filter(|&l| l != set).collect())
                    .collect();
                dnf_expr(&d, v, c)
            }
            None => dnf_expr(&ir.props[p as usize].disjuncts, v, c),
        };
        let d = doc(p);
        if matches!(slot[p as usize], Slot::Lazy) {
            out.extend(quote! { #d let #id = || #e; });
            i += 1;
            continue;
        }
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
