//! The `next` function of the inline backend, dispatched on the joint move.
//!
//! A next-state bit is typically "it held and nothing touched it, or some move made it":
//! `(next (cell ?x ?y ?p))` has one disjunct per move that writes the cell. Evaluating every
//! such disjunct at every step wastes most of the work, since one move per role is played.
//! So the props that only `next` reads are taken apart: disjuncts with a positive `does`
//! literal, or a positive move set of a few moves, go into a `match` on that role's move (only
//! the played move's arm runs; a set's disjunct into the arm of each of its moves, the role's
//! other move literals decided there), the props a disjunct reads that hold only under a move
//! distributed over it first ([`split_triggered`]: checkers' "a piece jumped over this cell",
//! of jumps of both roles), disjuncts that copy their own bit (`(true (cell 1 1 b))` for
//! `(next (cell 1 1 b))`) become one mask per state word, disjuncts that read only the state bit itself and one role's move (or only
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
    // Per next bit, the prop only it reads.
    let owns: Vec<Option<u32>> = (ir.next.iter())
        .map(|l| match l.input {
            Input::Prop(p)
                if !l.negated && refs[p as usize] == 1 && group_of[p as usize].is_none() =>
            {
                Some(p)
            }
            _ => None,
        })
        .collect();
    let triggered = triggered_props(ir, &group_of, &refs, &owns);
    for (b, (&l, &own)) in ir.next.iter().zip(&owns).enumerate() {
        let b = b as u32;
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
            let split = split_triggered(ir, &triggered, c);
            for c in split.iter().flat_map(|c| plan.tables.take(ir, b, c)) {
                match trigger(ir, &c) {
                    Some((i, role, moves)) => {
                        let mut rest = c.clone();
                        rest.remove(i);
                        for mv in moves {
                            let Some(rest) = in_arm(ir, role, mv, &rest) else {
                                continue;
                            };
                            plan.reads.extend(rest.iter().copied());
                            plan.arms[role as usize]
                                .entry(mv)
                                .or_default()
                                .push((b, rest));
                        }
                    }
                    None => {
                        plan.reads.extend(c.iter().copied());
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
            ir.prop_weight(p as u32) <= LAZY_WEIGHT
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

/// A move set of at most this many moves (and at most half of its role's) sends the
/// disjuncts it triggers into the arms of its moves; a larger one leaves them to be evaluated
/// whatever the move.
const MAX_ARM_SET: usize = 32;

/// The most conjunctions one disjunct is split into over the props it reads that moves
/// trigger ([`split_triggered`]).
const MAX_SPLIT: usize = 32;

/// The move literal that sends a conjunction into arms: a positive `does`, else the smallest
/// positive move set of at most [`MAX_ARM_SET`] moves and half of its role's; (its
/// index, its role, its moves).
fn trigger(ir: &Ir, c: &[Lit]) -> Option<(usize, u32, Vec<u32>)> {
    let nroles = ir.roles.len();
    let mut best: Option<(usize, u32, &[u32])> = None;
    for (i, l) in c.iter().enumerate() {
        if l.negated {
            continue;
        }
        match l.input {
            Input::Does { role, mv } if (role as usize) < nroles => {
                return Some((i, role, vec![mv]));
            }
            Input::MoveIn(s) => {
                let Some(set) = ir.move_sets.sets.get(s as usize) else {
                    continue;
                };
                // A set of most of the role's moves (cittaceot's "a mark in another
                // column", 20 of 25) gains nothing from arms, and its arms crashed rustc 1.95
                // (kalaha5x2x3's sets of 11 of 23 moves gain 13%; at most a quarter: -41%).
                let fits = (set.role as usize) < nroles
                    && set.moves.len() <= MAX_ARM_SET
                    && set.moves.len() * 2 <= ir.moves[set.role as usize].len();
                if fits && best.is_none_or(|b| set.moves.len() < b.2.len()) {
                    best = Some((i, set.role, &set.moves));
                }
            }
            _ => {}
        }
    }
    best.map(|(i, r, ms)| (i, r, ms.to_vec()))
}

/// Per prop: whether each of its disjuncts has a trigger ([`trigger`]) or reads nothing but
/// moves, so that a disjunct reading it splits into conjunctions the arms and the per-move
/// tables take (checkers' "a piece jumped over this cell" of several moves and both roles),
/// and whether nothing but the positive literals of `next`'s own props (`own`) reads it: split
/// there, it is not computed at all (a prop computed anyway, beatMania's "a block is caught"
/// read negated too, costs less read once than its disjuncts in the arms).
fn triggered_props(
    ir: &Ir,
    group_of: &[Option<u32>],
    refs: &[u32],
    own: &[Option<u32>],
) -> Vec<bool> {
    let mut in_next = vec![0u32; ir.props.len()];
    for &p in own.iter().flatten() {
        for l in ir.props[p as usize].disjuncts.iter().flatten() {
            if let (Input::Prop(q), false) = (l.input, l.negated) {
                in_next[q as usize] += 1;
            }
        }
    }
    let moves_only = |c: &[Lit]| {
        c.iter().all(|l| {
            matches!(
                l.input,
                Input::Does { .. } | Input::MoveIn(_) | Input::Const(_)
            )
        })
    };
    (0..ir.props.len())
        .map(|p| {
            group_of[p].is_none()
                && refs[p] == in_next[p]
                && ir.props[p]
                    .disjuncts
                    .iter()
                    .all(|c| trigger(ir, c).is_some() || moves_only(c))
        })
        .collect()
}

/// `c` with the positive props of `triggered` it reads distributed over it while it has no
/// trigger; `c` itself past [`MAX_SPLIT`] conjunctions.
fn split_triggered(ir: &Ir, triggered: &[bool], c: &[Lit]) -> Vec<Vec<Lit>> {
    let mut done = Vec::new();
    let mut work = vec![c.to_vec()];
    while let Some(conj) = work.pop() {
        let at = conj
            .iter()
            .position(|l| !l.negated && matches!(l.input, Input::Prop(q) if triggered[q as usize]));
        let Some(i) = at.filter(|_| trigger(ir, &conj).is_none()) else {
            done.push(conj);
            continue;
        };
        let Input::Prop(q) = conj[i].input else {
            return vec![c.to_vec()];
        };
        for d in &ir.props[q as usize].disjuncts {
            let mut e = conj.clone();
            e.remove(i);
            for &x in d {
                if !e.contains(&x) {
                    e.push(x);
                }
            }
            work.push(e);
        }
        if done.len() + work.len() > MAX_SPLIT {
            return vec![c.to_vec()];
        }
    }
    done.reverse();
    done
}

/// `rest` in the arm of move `mv` of `role`: its literals of that role's move decided (true
/// ones dropped); `None` when one is false.
fn in_arm(ir: &Ir, role: u32, mv: u32, rest: &[Lit]) -> Option<Vec<Lit>> {
    let mut out = Vec::with_capacity(rest.len());
    for &l in rest {
        let value = match l.input {
            Input::Const(x) => Some(x),
            Input::Does { role: r, mv: m } if r == role => Some(m == mv),
            Input::MoveIn(s) => ir
                .move_sets
                .sets
                .get(s as usize)
                .filter(|set| set.role == role)
                .map(|set| set.moves.binary_search(&mv).is_ok()),
            _ => None,
        };
        match value.map(|v| v != l.negated) {
            Some(true) => {}
            Some(false) => return None,
            None => out.push(l),
        }
    }
    Some(out)
}

/// The statements of one arm of `next`'s move `match`: per (bit, the rest of a disjunct).
/// Two or more bits of one word that the move keeps under one condition (the cell a piece
/// jumps over keeps its bits unless it is captured) are one masked copy of the state word, and
/// two or more bits it sets under one condition one mask; each other bit is one statement (its
/// disjuncts or-ed), in the order the bits come.
fn arm_stmts(sets: &[(u32, Vec<Lit>)], e: &dyn Fn(Lit) -> TokenStream) -> Vec<TokenStream> {
    // (kept, word, condition) and the bits of the group; the key's condition sorted. Bits
    // copied from other bits (two of a cell in englishDraughts' arms) ran 5% slower as one
    // masked shift of the word, so they stay a statement each.
    type Key = (bool, u32, Vec<Lit>);
    let key = |b: u32, rest: &[Lit]| -> Key {
        let own = Lit::pos(Input::Bit(b));
        let kept = rest.contains(&own);
        let mut cond: Vec<Lit> = rest.iter().copied().filter(|&l| l != own).collect();
        cond.sort_unstable();
        (kept, b / 64, cond)
    };
    let mut groups: Vec<(Key, u64)> = Vec::new();
    for (b, rest) in sets {
        let k = key(*b, rest);
        match groups.iter_mut().find(|g| g.0 == k) {
            Some(g) => g.1 |= 1 << (b % 64),
            None => groups.push((k, 1 << (b % 64))),
        }
    }
    let grouped = |k: &Key| groups.iter().any(|g| g.0 == *k && g.1.count_ones() > 1);
    let mut out = Vec::new();
    let mut emitted: Vec<Key> = Vec::new();
    let mut bits: Vec<(u32, Vec<Vec<Lit>>)> = Vec::new();
    for (b, rest) in sets {
        let k = key(*b, rest);
        if !grouped(&k) {
            match bits.iter_mut().find(|x| x.0 == *b) {
                Some(x) => x.1.push(rest.clone()),
                None => bits.push((*b, vec![rest.clone()])),
            }
            continue;
        }
        if emitted.contains(&k) {
            continue;
        }
        let mask = groups.iter().find(|g| g.0 == k).map_or(0, |g| g.1);
        let (kept, w, cond) = &k;
        let m = super::masks::name(*w as usize, mask);
        let wl = Literal::usize_unsuffixed(*w as usize);
        let value = if *kept {
            quote! { state.0[#wl] & #m }
        } else {
            quote! { #m }
        };
        out.push(if cond.is_empty() {
            quote! { n[#wl] |= #value; }
        } else {
            let x = paren(conj_with(cond, e));
            quote! { n[#wl] |= #value & (#x as u64).wrapping_neg(); }
        });
        emitted.push(k);
    }
    out.extend(bits.iter().map(|(b, ds)| {
        let w = Literal::usize_unsuffixed(*b as usize / 64);
        let k = Literal::u32_unsuffixed(b % 64);
        match &ds[..] {
            _ if ds.iter().any(Vec::is_empty) => quote! { n[#w] |= 1u64 << #k; },
            [rest] => {
                let x = paren(conj_with(rest, e));
                quote! { n[#w] |= (#x as u64) << #k; }
            }
            _ => {
                let x = paren(dnf_with(ds, e));
                quote! { n[#w] |= (#x as u64) << #k; }
            }
        }
    }));
    out
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
            let stmts = arm_stmts(sets, e);
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
