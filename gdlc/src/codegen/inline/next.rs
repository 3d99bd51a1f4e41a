//! The `next` function of the inline backend, dispatched on the joint move.
//!
//! A next-state bit is typically "it held and nothing touched it, or some move made it":
//! `(next (cell ?x ?y ?p))` has one disjunct per move that writes the cell. Evaluating every
//! such disjunct at every step wastes most of the work, since one move per role is played.
//! So the props that only `next` reads are taken apart: disjuncts with a positive `does`
//! literal go into a `match` on that role's move (only the played move's arm runs), disjuncts
//! that copy their own bit (`(true (cell 1 1 b))` for `(next (cell 1 1 b))`) become one mask
//! per state word, disjuncts that read only the state bit itself and one role's move (or only
//! the move) come from the per-move tables of `next_tables.rs`, and the rest is evaluated as
//! usual. Small tests of state bits that only arms read ([`NextPlan::arm_only`]) are closures
//! called in the arms, so that a step evaluates those of the played moves only.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::expr::{conj_with, dnf_with};
use super::next_tables::NextTables;
use super::tokens::{Op, join_balanced, paren};
use crate::ir::{Input, Ir, Lit};

/// Per move of a role: (bit, the rest of the conjunction) for the disjuncts that need it.
type Arms = BTreeMap<u32, Vec<(u32, Vec<Lit>)>>;

/// How each next bit is computed.
pub(super) struct NextPlan {
    /// Per state word, the bits that a disjunct copies from the state.
    frame: Vec<u64>,
    /// Per bit, the disjuncts evaluated whatever the move (`None`: the bit's root literal is
    /// read as a whole).
    free: Vec<Option<Vec<Vec<Lit>>>>,
    /// Per role, per move: (bit, the rest of the conjunction) for the disjuncts that need
    /// that move.
    arms: Vec<Arms>,
    /// Every literal the plan reads.
    pub reads: Vec<Lit>,
    /// The disjuncts read from per-move tables.
    pub tables: NextTables,
    /// Props that only the arms read, each a small test of state bits: computed in the arms
    /// that read them (`Slot::Lazy`), so that a step computes those of the played moves
    /// only (connectFour: which cell of the column is the lowest empty one).
    pub arm_only: Vec<u32>,
}

/// A prop of at most this many literals (plus one) can be computed in the arms.
const LAZY_WEIGHT: usize = 4;

/// Takes the next props apart (see the module documentation).
pub(super) fn plan(ir: &Ir) -> NextPlan {
    let n = ir.props.len();
    let mut refs = vec![0u32; n];
    let mut count = |l: &Lit| {
        if let Input::Prop(p) = l.input {
            refs[p as usize] += 1;
        }
    };
    ir.props
        .iter()
        .flat_map(|p| p.disjuncts.iter().flatten())
        .for_each(&mut count);
    ir.for_each_output(&mut |l| count(&l));
    let group_of = ir.group_of();
    let words = super::super::state_words(ir);
    let mut plan = NextPlan {
        frame: vec![0; words],
        free: Vec::with_capacity(ir.next.len()),
        arms: vec![BTreeMap::new(); ir.roles.len()],
        reads: Vec::new(),
        tables: NextTables::new(ir, words),
        arm_only: Vec::new(),
    };
    // Props read outside the arms.
    let mut outside = vec![false; n];
    for (b, &l) in ir.next.iter().enumerate() {
        let b = b as u32;
        let own = match l.input {
            Input::Prop(p)
                if !l.negated && refs[p as usize] == 1 && group_of[p as usize].is_none() =>
            {
                Some(p)
            }
            _ => None,
        };
        let Some(p) = own else {
            if let Input::Prop(q) = l.input {
                outside[q as usize] = true;
            }
            plan.reads.push(l);
            plan.free.push(None);
            continue;
        };
        let mut free = Vec::new();
        for c in &ir.props[p as usize].disjuncts {
            if c.len() == 1 && c[0] == Lit::pos(Input::Bit(b)) {
                plan.frame[b as usize / 64] |= 1 << (b % 64);
                continue;
            }
            for c in plan.tables.take(ir, b, c) {
                let trigger = c.iter().position(|x| {
                !x.negated && matches!(x.input, Input::Does { role, .. } if (role as usize) < ir.roles.len())
            });
                plan.reads.extend(c.iter().copied());
                match trigger {
                    Some(i) => {
                        let Input::Does { role, mv } = c[i].input else {
                            continue;
                        };
                        let mut rest = c.clone();
                        rest.remove(i);
                        plan.arms[role as usize]
                            .entry(mv)
                            .or_default()
                            .push((b, rest));
                    }
                    None => {
                        for x in &c {
                            if let Input::Prop(q) = x.input {
                                outside[q as usize] = true;
                            }
                        }
                        free.push(c.clone());
                    }
                }
            }
        }
        plan.free.push(Some(free));
    }
    let mut in_arms = vec![false; n];
    for arms in &plan.arms {
        for (_, rest) in arms.values().flatten() {
            for x in rest {
                if let Input::Prop(q) = x.input {
                    in_arms[q as usize] = true;
                }
            }
        }
    }
    plan.arm_only = (0..n)
        .filter(|&p| in_arms[p] && !outside[p] && group_of[p].is_none())
        .filter(|&p| {
            let prop = &ir.props[p];
            super::cone::prop_weight(ir, p as u32) <= LAZY_WEIGHT
                && prop
                    .disjuncts
                    .iter()
                    .flatten()
                    .all(|x| matches!(x.input, Input::Bit(_) | Input::Const(_)))
        })
        .map(|p| p as u32)
        .collect();
    plan
}

/// The body of `next` after the props it reads: builds and returns the state.
pub(super) fn tail(ir: &Ir, plan: &NextPlan, e: &dyn Fn(Lit) -> TokenStream) -> TokenStream {
    let (rows, table_parts) = plan.tables.rows();
    let mut inits = Vec::new();
    for (w, (keeps, sets)) in table_parts.into_iter().enumerate() {
        let wl = Literal::usize_unsuffixed(w);
        let mut parts: Vec<TokenStream> = Vec::new();
        let mut kept = keeps;
        if plan.frame[w] != 0 {
            let m = super::masks::name(w, plan.frame[w]);
            kept.insert(0, quote! { #m });
        }
        if !kept.is_empty() {
            let k = paren(join_balanced(kept, Op::Or));
            parts.push(quote! { (state.0[#wl] & #k) });
        }
        parts.extend(sets);
        for b in (w * 64)..((w + 1) * 64).min(ir.next.len()) {
            let k = Literal::u32_unsuffixed((b % 64) as u32);
            let x = match &plan.free[b] {
                None => e(ir.next[b]),
                Some(ds) if ds.is_empty() => continue,
                Some(ds) => paren(dnf_with(ds, e)),
            };
            match x.to_string().as_str() {
                "false" => {}
                "true" => parts.push(quote! { (1u64 << #k) }),
                _ => {
                    let x = paren(x);
                    parts.push(quote! { ((#x as u64) << #k) })
                }
            }
        }
        inits.push(if parts.is_empty() {
            quote! { 0u64 }
        } else {
            join_balanced(parts, Op::Or)
        });
    }
    let mut matches = Vec::new();
    for (r, arms) in plan.arms.iter().enumerate() {
        if arms.is_empty() {
            continue;
        }
        let rl = Literal::usize_unsuffixed(r);
        let arms = arms.iter().map(|(&mv, sets)| {
            let m = Literal::u32_suffixed(mv);
            let stmts = sets.iter().map(|(b, rest)| {
                let w = Literal::usize_unsuffixed(*b as usize / 64);
                let k = Literal::u32_unsuffixed(b % 64);
                if rest.is_empty() {
                    quote! { n[#w] |= 1u64 << #k; }
                } else {
                    let x = paren(conj_with(rest, e));
                    quote! { n[#w] |= (#x as u64) << #k; }
                }
            });
            // The move, as a doc comment (`/// (mark 1 1)`) on its arm.
            let text = format!(
                " {}",
                ir.moves[r].get(mv as usize).map_or("", String::as_str)
            );
            quote! { #[doc = #text] #m => { #(#stmts)* } }
        });
        matches.push(quote! {
            match joint[#rl] {
                #(#arms)*
                _ => {}
            }
        });
    }
    if matches.is_empty() {
        return quote! { #rows State([#(#inits),*]) };
    }
    quote! {
        #rows
        let mut n = [#(#inits),*];
        #(#matches)*
        State(n)
    }
}
