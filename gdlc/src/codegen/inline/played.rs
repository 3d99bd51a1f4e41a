//! Props that read the move of one role only, computed for the move played (shared chunks).
//!
//! A prop that reads moves is otherwise computed at every step for every move it could
//! follow: reversi's `(affected x y dir color)` chains, one per cell, direction and color,
//! each starting with `(does player (move ...))`, cost most of its step although only the
//! chains of the move played can hold. A prop whose move literals (directly, or through other
//! props of this kind) are all of one role `r` is specialised per move `m` of `r`: `does r m`
//! holds, `r`'s other moves do not, and what is left of the prop is computed in arm `m` of a
//! `match` on `r`'s move in `played_<r>` (the `_` arm: no move). A prop false after the move
//! is not computed at all: its scratch bit stays clear. The other props that read moves, and
//! `next`, read these from the scratch bitset as before. A role whose arms would hold more
//! than [`MAX_GROWTH`] times the code of its props keeps them in the chunks.
//!
//! `gdlc/tests/played_arms.rs` snapshots the arms of the fixture `playedArms.kif`, and
//! `tests/tests/compiled.rs` plays it (`playedArms@shared`) against the interpreter.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::super::{CodegenOptions, Comments};
use super::expr::{View, dnf_with, lit_expr, prop_ident};
use crate::ir::{Input, Ir, Lit};

/// The most code (literals plus one per prop) the arms of a role may hold, as a multiple of
/// the code of its props computed for every move.
const MAX_GROWTH: usize = 4;

/// The props of one role specialised per move.
pub(super) struct Played {
    pub role: u32,
    /// Per move of the role, then for no move: the props that may hold, ascending.
    arms: Vec<Vec<Step>>,
}

/// A prop of an arm.
struct Step {
    prop: u32,
    /// Its disjuncts left once the move is known (one empty conjunction: it holds).
    dnf: Vec<Vec<Lit>>,
    /// Whether later props of the arm read it (as a local).
    local: bool,
    /// Whether code outside the arm reads it (from its scratch bit).
    store: bool,
}

/// Per prop, the role it is specialised for (`moves[p]`: prop `p` reads moves; `live[p]`: some
/// output reads it); and the roles' arms.
pub(super) fn plan(ir: &Ir, moves: &[bool], live: &[bool]) -> (Vec<Option<u32>>, Vec<Played>) {
    let n = ir.props.len();
    let nroles = ir.roles.len();
    let group_of = ir.group_of();
    let mut role_of: Vec<Option<u32>> = vec![None; n];
    for p in 0..n {
        if !moves[p] || !live[p] || group_of[p].is_some() {
            continue;
        }
        let mut role: Option<u32> = None;
        let mut ok = true;
        for l in ir.props[p].disjuncts.iter().flatten() {
            let r = match l.input {
                Input::Does { role, .. } => Some(role),
                Input::MoveIn(s) => match ir.move_sets.sets.get(s as usize) {
                    Some(set) => Some(set.role),
                    None => {
                        ok = false;
                        break;
                    }
                },
                Input::Prop(q) if moves[q as usize] => match role_of[q as usize] {
                    Some(r) => Some(r),
                    None => {
                        ok = false;
                        break;
                    }
                },
                Input::Join(_) => {
                    ok = false;
                    break;
                }
                _ => None,
            };
            if let Some(r) = r {
                if (r as usize) >= nroles || role.is_some_and(|x| x != r) {
                    ok = false;
                    break;
                }
                role = Some(r);
            }
        }
        if ok {
            role_of[p] = role;
        }
    }
    // Whether code outside the arms reads each prop.
    let mut outside = vec![false; n];
    for (p, prop) in ir.props.iter().enumerate() {
        if role_of[p].is_none() {
            for l in prop.disjuncts.iter().flatten() {
                if let Input::Prop(q) = l.input {
                    outside[q as usize] = true;
                }
            }
        }
    }
    ir.for_each_output(&mut |l| {
        if let Input::Prop(q) = l.input {
            outside[q as usize] = true;
        }
    });
    let mut played = Vec::new();
    for r in 0..nroles as u32 {
        let props: Vec<u32> = (0..n as u32)
            .filter(|&p| role_of[p as usize] == Some(r))
            .collect();
        if props.is_empty() {
            continue;
        }
        let nmoves = ir.moves[r as usize].len() as u32;
        let arms: Vec<Vec<Step>> = (0..=nmoves)
            .map(|m| arm(ir, &role_of, &outside, r, &props, (m < nmoves).then_some(m)))
            .collect();
        let weight = |d: &[Vec<Lit>]| 1 + d.iter().map(Vec::len).sum::<usize>();
        let before: usize = props
            .iter()
            .map(|&p| weight(&ir.props[p as usize].disjuncts))
            .sum();
        let after: usize = arms.iter().flatten().map(|s| weight(&s.dnf)).sum();
        if after > before * MAX_GROWTH {
            for &p in &props {
                role_of[p as usize] = None;
            }
            continue;
        }
        played.push(Played { role: r, arms });
    }
    (role_of, played)
}

/// The props of role `r` (`props`, ascending) once it plays `mv` (`None`: no move): those
/// that may hold and that something reads, with what is left of their disjuncts. A prop left
/// one literal is not a local: its readers read the literal.
fn arm(
    ir: &Ir,
    role_of: &[Option<u32>],
    outside: &[bool],
    r: u32,
    props: &[u32],
    mv: Option<u32>,
) -> Vec<Step> {
    // Per prop of the role: what it is once the move is known, when a constant or one literal.
    let mut known: Vec<Option<Lit>> = vec![None; ir.props.len()];
    let mut steps = Vec::new();
    for &p in props {
        let mut left: Vec<Vec<Lit>> = Vec::new();
        let mut holds = false;
        for c in &ir.props[p as usize].disjuncts {
            let mut conj = Vec::new();
            let mut dead = false;
            for &l in c {
                let l = match l.input {
                    Input::Does { mv: m, .. } => {
                        negated_if(Lit::pos(Input::Const(Some(m) == mv)), l.negated)
                    }
                    Input::MoveIn(s) => {
                        let holds = mv.is_some_and(|m| {
                            ir.move_sets
                                .sets
                                .get(s as usize)
                                .is_some_and(|set| set.moves.binary_search(&m).is_ok())
                        });
                        negated_if(Lit::pos(Input::Const(holds)), l.negated)
                    }
                    // False unless this arm computes it.
                    Input::Prop(q) if role_of[q as usize] == Some(r) => {
                        negated_if(known[q as usize].unwrap_or(Lit::FALSE), l.negated)
                    }
                    _ => l,
                };
                match l.constant() {
                    Some(true) => {}
                    Some(false) => {
                        dead = true;
                        break;
                    }
                    None => conj.push(l),
                }
            }
            if dead {
                continue;
            }
            if conj.is_empty() {
                holds = true;
                break;
            }
            left.push(conj);
        }
        let here = Lit::pos(Input::Prop(p));
        let (dnf, k) = if holds {
            (vec![Vec::new()], Lit::TRUE)
        } else if left.is_empty() {
            known[p as usize] = Some(Lit::FALSE);
            continue;
        } else if let [c] = &left[..]
            && let [l] = c[..]
        {
            (left, l)
        } else {
            (left, here)
        };
        known[p as usize] = Some(k);
        steps.push(Step {
            prop: p,
            dnf,
            local: false,
            store: outside[p as usize],
        });
    }
    // Locals: the props later ones read.
    let mut read = vec![false; ir.props.len()];
    for s in &steps {
        for l in s.dnf.iter().flatten() {
            if let Input::Prop(q) = l.input
                && role_of[q as usize] == Some(r)
            {
                read[q as usize] = true;
            }
        }
    }
    steps.retain_mut(|s| {
        s.local = read[s.prop as usize];
        s.local || s.store
    });
    steps
}

/// `l`, negated if `negated`.
fn negated_if(l: Lit, negated: bool) -> Lit {
    if negated { l.negate() } else { l.folded() }
}

/// The function `played_<r>`: the role's props for the move it plays, into the scratch
/// bitset (by prop number).
pub(super) fn played_fn(
    ir: &Ir,
    options: &CodegenOptions,
    played: &Played,
    view: &View<'_>,
    scratch_words: usize,
) -> TokenStream {
    let r = played.role;
    let f = format_ident!("played_{}", r);
    let rl = Literal::usize_unsuffixed(r as usize);
    let nroles = Literal::usize_unsuffixed(ir.roles.len());
    let sw = Literal::usize_unsuffixed(scratch_words);
    let body = |arm: &[Step]| {
        let lit = |l: Lit| match l.input {
            Input::Prop(q) if arm.iter().any(|s| s.prop == q && s.local) => {
                let id = prop_ident(q);
                if l.negated {
                    quote! { !#id }
                } else {
                    quote! { #id }
                }
            }
            _ => lit_expr(l, view, u32::MAX),
        };
        let stmts = arm.iter().map(|s| {
            let p = s.prop;
            let w = Literal::usize_unsuffixed(p as usize / 64);
            let k = Literal::u32_unsuffixed(p % 64);
            let doc = match options.comments {
                Comments::Props => {
                    let t = super::super::prop_doc(ir, options, p);
                    quote! { #[doc = #t] }
                }
                Comments::None => quote! {},
            };
            // (A doc comment goes on a `let`, not on an expression statement.)
            let e = dnf_with(&s.dnf, &lit);
            let id = prop_ident(p);
            let store = s
                .store
                .then(|| quote! { scratch[#w] |= (#id as u64) << #k; });
            quote! {
                #doc
                let #id = #e;
                #store
            }
        });
        quote! { #(#stmts)* }
    };
    let nmoves = ir.moves[r as usize].len();
    let default = body(&played.arms[nmoves]);
    let default_text = default.to_string();
    // Moves whose arms are alike share one.
    let mut arms: Vec<(String, Vec<u32>, TokenStream)> = Vec::new();
    for (m, arm) in played.arms[..nmoves].iter().enumerate() {
        let b = body(arm);
        let text = b.to_string();
        if text == default_text {
            continue;
        }
        match arms.iter_mut().find(|a| a.0 == text) {
            Some(a) => a.1.push(m as u32),
            None => arms.push((text, vec![m as u32], b)),
        }
    }
    let arms = arms.into_iter().map(|(_, ms, b)| {
        let shown: Vec<&str> = ms
            .iter()
            .take(4)
            .filter_map(|&m| ir.moves[r as usize].get(m as usize).map(String::as_str))
            .collect();
        let mut text = format!(" {}", shown.join(" "));
        if ms.len() > shown.len() {
            text.push_str(&format!(" and {} more", ms.len() - shown.len()));
        }
        let pats = ms.iter().map(|&m| Literal::u32_suffixed(m));
        quote! { #[doc = #text] #(#pats)|* => { #b } }
    });
    let arms: Vec<TokenStream> = arms.collect();
    let body = if arms.is_empty() {
        default
    } else {
        quote! {
            match joint[#rl] {
                #(#arms)*
                _ => { #default }
            }
        }
    };
    let role = &ir.roles[r as usize];
    let doc = format!(
        " The props that read only {role}'s move, for the move it plays (those false after it \
         are not computed: their scratch bits stay clear)."
    );
    quote! {
        #[doc = #doc]
        #[inline(never)]
        #[allow(unused_doc_comments, unused_parens, unused_variables, clippy::precedence, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::identity_op, clippy::unnecessary_cast, clippy::single_match)]
        fn #f(state: &State, joint: &[u32; #nroles], scratch: &mut [u64; #sw]) {
            #body
        }
    }
}
