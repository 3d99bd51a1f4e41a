//! "Whose turn it is, and it has no legal move" read from the legal words: a disjunct of
//! `terminal` that the propnet backend takes out of its network ([`propnet::stuck::split`])
//! is taken out of the inline code's `terminal` too, which then tests the role's words of legal
//! bits (`legal_<r>`, memoised per thread for the last state, since a playout asks for the
//! same words again to draw the move). Checkers' `stuck` read `has_legal_move`, the or of
//! every legal move's body: `terminal`'s cone was every legal move's, which made the cones
//! large enough for shared chunks (and no families of legal moves by shifts).
//!
//! [`propnet::stuck::split`]: super::super::propnet::stuck::split

use gdl_propnet::Stuck;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::legal;
use super::masks;
use crate::ir::{Input, Ir, Lit};

/// The most words of moves (64 moves each) of a role whose legal moves a stuck disjunct
/// reads: its legal-move functions then return words of legal bits (up to 1,024 moves; each
/// word is tested against the disjunct's moves, and drawn from without listing).
pub(super) const MAX_STUCK_WORDS: usize = 16;

/// `ir` with the stuck disjuncts of its terminal taken out, and them; `None` when it has none
/// or a role they read has more moves than [`MAX_STUCK_WORDS`] words.
pub(super) fn split(ir: &Ir) -> Option<(Ir, Vec<Stuck>)> {
    if !candidate(ir) {
        return None;
    }
    let mut g = ir.clone();
    let stuck = super::super::propnet::stuck::split(&mut g);
    let fits = |s: &Stuck| legal::legal_words_upto(&g, s.role as usize, MAX_STUCK_WORDS);
    if stuck.is_empty() || stuck.iter().any(|s| fits(s).is_none()) {
        return None;
    }
    // The props only the stuck disjuncts read leave, and the passes see what the legal moves
    // alone read (factored as a description without the disjuncts would be).
    crate::optimise::remove_dead(&mut g);
    merge_bodies(&mut g);
    crate::optimise::optimise(&mut g, &crate::optimise::OptimiseOptions::default());
    Some((g, stuck))
}

/// A legal move's conjunction reads the props of one conjunction that only it reads as their
/// literals: a stuck disjunct's `has_legal_move` read the moves' bodies apart from their guard
/// (`legal = guard & body`), each body a prop of its own, which costs a prop per move once the
/// disjunct is gone.
fn merge_bodies(ir: &mut Ir) {
    let group_of = ir.group_of();
    let mut reads = vec![0u32; ir.props.len()];
    let mut count = |l: Lit| {
        if let Input::Prop(q) = l.input
            && let Some(c) = reads.get_mut(q as usize)
        {
            *c += 1;
        }
    };
    ir.props
        .iter()
        .flat_map(|p| p.disjuncts.iter().flatten())
        .for_each(|&l| count(l));
    ir.for_each_output(&mut count);
    let single = |ir: &Ir, l: Lit| -> Option<Vec<Lit>> {
        let (Input::Prop(q), false) = (l.input, l.negated) else {
            return None;
        };
        if reads[q as usize] != 1 || group_of[q as usize].is_some() {
            return None;
        }
        match ir.props[q as usize].disjuncts.as_slice() {
            [d] => Some(d.clone()),
            _ => None,
        }
    };
    let legal: Vec<Lit> = ir.legal.iter().flatten().copied().collect();
    for l in legal {
        let (Input::Prop(p), false) = (l.input, l.negated) else {
            continue;
        };
        if group_of[p as usize].is_some() || ir.props[p as usize].disjuncts.len() != 1 {
            continue;
        }
        let d = ir.props[p as usize].disjuncts[0].clone();
        let mut merged = Vec::with_capacity(d.len());
        for x in d {
            match single(ir, x) {
                Some(body) => merged.extend(body),
                None => merged.push(x),
            }
        }
        merged.sort_unstable();
        merged.dedup();
        ir.props[p as usize].disjuncts[0] = merged;
    }
}

/// Whether `ir`'s terminal is a prop with a disjunct of a state bit and a negated prop (what a
/// stuck disjunct looks like), so that the IR is copied only when it may have one.
fn candidate(ir: &Ir) -> bool {
    let Lit {
        input: Input::Prop(t),
        negated: false,
    } = ir.terminal
    else {
        return false;
    };
    ir.props.get(t as usize).is_some_and(|p| {
        p.disjuncts.iter().any(|d| match d.as_slice() {
            [a, b] => [(a, b), (b, a)].iter().any(|(x, y)| {
                matches!(x.input, Input::Bit(_)) && matches!(y.input, Input::Prop(_)) && y.negated
            }),
            _ => false,
        })
    })
}

/// The roles whose legal moves a stuck disjunct reads (ascending, once each).
pub(super) fn roles(stuck: &[Stuck]) -> Vec<usize> {
    let mut roles: Vec<usize> = stuck.iter().map(|s| s.role as usize).collect();
    roles.sort_unstable();
    roles.dedup();
    roles
}

/// The expression of whether one of the stuck disjuncts holds in `state` (`false` for none):
/// its guard bit holds and none of its moves is in the words `legal_<r>(state)`.
pub(super) fn holds(stuck: &[Stuck]) -> TokenStream {
    let tests = stuck.iter().map(|s| {
        let bit = (s.guard >> 1) as usize;
        let word = Literal::usize_unsuffixed(bit / 64);
        let mask = masks::name(bit / 64, 1 << (bit % 64));
        let guard = if s.guard & 1 != 0 {
            quote! { state.0[#word] & #mask == 0 }
        } else {
            quote! { state.0[#word] & #mask != 0 }
        };
        let f = format_ident!("legal_{}", s.role);
        let any = s
            .moves
            .iter()
            .enumerate()
            .filter(|(_, m)| **m != 0)
            .map(|(i, &m)| {
                let i = Literal::usize_unsuffixed(i);
                let m = Literal::u64_suffixed(m);
                quote! { (legal[#i] & #m) }
            });
        let any: Vec<TokenStream> = any.collect();
        if any.is_empty() {
            return quote! { (#guard) };
        }
        let any = super::tokens::join_balanced(any, super::tokens::Op::Or);
        quote! {
            (#guard && {
                let legal = #f(state);
                #any == 0
            })
        }
    });
    let tests: Vec<TokenStream> = tests.collect();
    if tests.is_empty() {
        return quote! { false };
    }
    super::tokens::join_balanced(tests, super::tokens::Op::Or)
}

/// `legal_<r>` for a role whose legal moves a stuck disjunct reads: the words of
/// `legal_<r>_compute` memoised per thread for the last state (`terminal` asks for them, and
/// then the draw of the move), `words` of them.
pub(super) fn memo_fn(ir: &Ir, r: usize, words: usize) -> TokenStream {
    let f = format_ident!("legal_{}", r);
    let compute = format_ident!("legal_{}_compute", r);
    let memo = format_ident!("LEGAL_{}_MEMO", r);
    let nl = Literal::usize_unsuffixed(words);
    let state_words = Literal::usize_unsuffixed(super::super::state_words(ir));
    quote! {
        thread_local! {
            /// The words of legal bits of the last state this thread asked about (when `.0`).
            static #memo: std::cell::Cell<(bool, State, [u64; #nl])> =
                const { std::cell::Cell::new((false, State([0; #state_words]), [0; #nl])) };
        }
        #[inline]
        fn #f(state: &State) -> [u64; #nl] {
            #memo.with(|memo| {
                let (valid, last, legal) = memo.get();
                if valid && last == *state {
                    return legal;
                }
                let legal = #compute(state);
                memo.set((true, *state, legal));
                legal
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::codegen::{Backend, CodegenOptions, generate};
    use crate::pipeline::{CompileOptions, Pass, run};

    const TAKE: &str = include_str!("../../../tests/fixtures/stuckTake.kif");

    /// The inline code of `text`.
    fn inline_code(text: &str) -> String {
        let mut a = run(text, &CompileOptions::default(), Pass::Optimise).expect("compiles");
        let ir = a.ir.take().expect("an IR");
        let options = CodegenOptions {
            backend: Backend::Inline,
            ..CodegenOptions::default()
        };
        generate(&ir, &options)
    }

    /// The text of function `name` in `code`, up to the next item.
    fn function<'a>(code: &'a str, name: &str) -> &'a str {
        let start = code
            .find(&format!("fn {name}("))
            .unwrap_or_else(|| panic!("no fn {name}"));
        let rest = &code[start..];
        let end = rest.find("\n}\n").map_or(rest.len(), |e| e + 3);
        &rest[..end]
    }

    #[test]
    fn terminal_reads_the_memoised_legal_words_of_the_stuck_role() {
        let code = inline_code(TAKE);
        let terminal = function(&code, "terminal");
        for r in 0..2 {
            assert!(
                terminal.contains(&format!("legal_{r}(state)")),
                "terminal tests role {r}'s legal words: {terminal}"
            );
            assert!(code.contains(&format!("fn legal_{r}_compute(")), "{code}");
        }
        // The props of "has a legal move" are gone from the rest of terminal.
        let rest = function(&code, "terminal_rest");
        assert!(!rest.contains("hasmove"), "{rest}");
    }

    #[test]
    fn a_stuck_prop_that_a_goal_reads_is_kept_for_the_goal() {
        let text = TAKE.replace(
            "(<= (goal ?p 0) (true (control ?p)))",
            "(<= (goal ?p 0) (true (control ?p)) (hasmove ?p))
             (<= (goal ?p 0) (true (control ?p)) (not (hasmove ?p)))",
        );
        let code = inline_code(&text);
        assert!(function(&code, "goal_0").contains("hasmove"), "{code}");
    }
}
