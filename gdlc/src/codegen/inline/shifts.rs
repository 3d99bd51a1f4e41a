//! Disjunctions of translated patterns as shifts of the state: "some line of four red
//! pieces" grounds into one conjunction of state bits per line, and the lines of one
//! direction are the same pattern of bit offsets (`{0, d, 2d, 3d}`) from different first
//! bits. For such a family the code tests all its members at once, per state word `i`:
//! `state[i] & (state >> d)[i] & (state >> 2d)[i] & (state >> 3d)[i] & FIRSTS_i != 0`, where
//! `state >> d` is the shift of the whole state (several words) and `FIRSTS_i` the first bits
//! of the members in word `i`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use rustc_hash::FxHashMap;

use super::tokens::{Op, join_balanced};
use crate::ir::{Input, Lit};

/// The fewest members of a family tested by shifts (below, one mask per member is as short).
pub(super) const MIN_FAMILY: usize = 4;

/// Splits the disjuncts `d` into families of the same pattern, each tested by shifts (their
/// expressions), and the other disjuncts (their indices in `d`).
pub(super) fn families(d: &[Vec<Lit>]) -> (Vec<TokenStream>, Vec<usize>) {
    // Pattern (offsets from the first bit, ascending, without the 0) -> first bits, and
    // the disjuncts.
    let mut by_shape: FxHashMap<Vec<u32>, (Vec<u32>, Vec<usize>)> = FxHashMap::default();
    let mut order: Vec<Vec<u32>> = Vec::new();
    let mut rest = Vec::new();
    for (i, c) in d.iter().enumerate() {
        let Some(mut bits) = positive_bits(c) else {
            rest.push(i);
            continue;
        };
        bits.sort_unstable();
        bits.dedup();
        let first = bits[0];
        let shape: Vec<u32> = bits[1..].iter().map(|b| b - first).collect();
        let e = by_shape.entry(shape.clone()).or_insert_with(|| {
            order.push(shape);
            Default::default()
        });
        e.0.push(first);
        e.1.push(i);
    }
    let mut exprs = Vec::new();
    for shape in order {
        let (firsts, members) = &by_shape[&shape];
        if firsts.len() < MIN_FAMILY {
            rest.extend(members);
            continue;
        }
        exprs.push(family_expr(&shape, firsts));
    }
    rest.sort_unstable();
    (exprs, rest)
}

/// The state bits of a conjunction of at least two positive state-bit literals.
fn positive_bits(c: &[Lit]) -> Option<Vec<u32>> {
    if c.len() < 2 {
        return None;
    }
    c.iter()
        .map(|l| match (l.folded().input, l.negated) {
            (Input::Bit(b), false) => Some(b),
            _ => None,
        })
        .collect()
}

/// Whether some first bit `f` of `firsts` has every bit `f + o` (`o` in `shape` and 0) set.
fn family_expr(shape: &[u32], firsts: &[u32]) -> TokenStream {
    let mut words: std::collections::BTreeMap<usize, u64> = Default::default();
    for &f in firsts {
        *words.entry(f as usize / 64).or_default() |= 1 << (f % 64);
    }
    let pattern: Vec<(u32, bool)> = std::iter::once(0)
        .chain(shape.iter().copied())
        .map(|o| (o, false))
        .collect();
    let tests = words.into_iter().map(|(i, firsts)| {
        let all = pattern_word(i, &pattern, firsts);
        quote! { (#all != 0) }
    });
    join_balanced(tests.collect(), Op::Or)
}

/// Word `i` of the first bits `firsts` (a mask of word `i`) from which every bit of `pattern`
/// (offset, negated: the bit must be clear) has its value: the state and its shifts anded,
/// under the mask of `firsts`.
pub(super) fn pattern_word(i: usize, pattern: &[(u32, bool)], firsts: u64) -> TokenStream {
    let mut parts: Vec<TokenStream> = pattern
        .iter()
        .map(|&(o, negated)| {
            let x = if o == 0 {
                let il = Literal::usize_unsuffixed(i);
                quote! { state.0[#il] }
            } else {
                shifted_word(i, o, firsts)
            };
            if negated {
                quote! { !#x }
            } else {
                x
            }
        })
        .collect();
    let m = super::masks::name(i, firsts);
    parts.push(quote! { #m });
    join_balanced(parts, Op::And)
}

/// Word `i` of the state shifted right by `o` bits, exact at the bits `firsts`.
pub(super) fn shifted_word(i: usize, o: u32, firsts: u64) -> TokenStream {
    let j = Literal::usize_unsuffixed(i + o as usize / 64);
    let r = o % 64;
    if r == 0 {
        return quote! { state.0[#j] };
    }
    let rl = Literal::u32_unsuffixed(r);
    // Bits of the next word reach the first bits `k >= 64 - r` only.
    if firsts >> (64 - r) == 0 {
        return quote! { (state.0[#j] >> #rl) };
    }
    let j1 = Literal::usize_unsuffixed(i + o as usize / 64 + 1);
    let ll = Literal::u32_unsuffixed(64 - r);
    quote! { ((state.0[#j] >> #rl) | (state.0[#j1] << #ll)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conj(bits: &[u32]) -> Vec<Lit> {
        bits.iter().map(|&b| Lit::pos(Input::Bit(b))).collect()
    }

    #[test]
    fn translates_of_one_pattern_make_a_family() {
        // Four lines {f, f+3, f+6} and a conjunction of another pattern.
        let mut d: Vec<Vec<Lit>> = [0, 1, 2, 70]
            .iter()
            .map(|&f| conj(&[f, f + 3, f + 6]))
            .collect();
        d.push(conj(&[5, 7]));
        let (families, rest) = families(&d);
        assert_eq!(families.len(), 1);
        assert_eq!(rest, vec![4]);
        let text = families[0].to_string();
        // Word 0 (first bits 0, 1, 2) and word 1 (first bit 70), shifted by 3 and by 6.
        assert!(text.contains("state . 0 [0] >> 3"), "{text}");
        assert!(text.contains("state . 0 [1] >> 6"), "{text}");
    }

    #[test]
    fn few_translates_or_negated_bits_stay_apart() {
        let mut d: Vec<Vec<Lit>> = [0, 1, 2].iter().map(|&f| conj(&[f, f + 3])).collect();
        d.push(vec![
            Lit::pos(Input::Bit(9)),
            Lit::pos(Input::Bit(12)).negate(),
        ]);
        let (families, rest) = families(&d);
        assert!(families.is_empty());
        assert_eq!(rest, vec![0, 1, 2, 3]);
    }
}
