//! The legal-move functions of the inline backend.
//!
//! `legal_<r>` tests first the state bit that most of the role's moves need (typically whose
//! turn it is; [`legal_guard`]): when it fails, only the moves that do not need it are
//! evaluated (`legal_<r>_idle`), otherwise all of them (`legal_<r>_turn`, where the guard is
//! known to hold).
//!
//! The legal moves are words of legal bits (bit `m % 64` of word `m / 64` for move `m`)
//! computed without branches: returned as an array when the role has at most
//! [`MAX_LEGAL_WORDS`] words of moves (`Game::legal_moves` lists them with
//! `gdl_runtime::bits::push_moves`, `Game::random_legal_move` draws one with
//! `gdl_runtime::bits::pick_move` without listing), otherwise listed from their set bits
//! onto a vector (one `if` per move when there are only a couple to test). Moves whose rule is
//! one conjunction of state bits of one pattern, translated ("a white piece on a cell and the
//! cell ahead empty", one move per cell) are a *family*, tested for all its members at once
//! by shifts of the state ([`super::shifts::pattern_word`]); the bits of its members that
//! hold are moved to their moves' bits by one shift when the moves are numbered like their
//! first bits, or else through a table from first bit to move (`LEGAL_<r>_<k>`).

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::super::CodegenOptions;
use super::tokens::{Op, join_balanced, paren};
use super::{ConeSpec, cone, cone_fn, shifts};
use crate::ir::{Input, Ir, Lit};

/// The function `name` computing the legal moves `moves` (ascending) of role `r`: with
/// `words` (the role's words of moves, [`legal_words`]), returning the words of legal bits,
/// otherwise pushing the moves onto `out`; `assume`: a state-bit literal known to hold when
/// it is called (the guard of `legal_<r>_turn`); `held`: how often each state bit holds, for
/// its blocks ([`super::guards`]). Also returns the `static` tables it reads.
#[allow(clippy::too_many_arguments)]
pub(super) fn legal_fn(
    ir: &Ir,
    options: &CodegenOptions,
    shared: Option<&cone::Shared>,
    r: usize,
    name: &str,
    moves: &[usize],
    assume: Option<Lit>,
    words: Option<usize>,
    held: &super::guards::Held<'_>,
) -> TokenStream {
    // Where the props are computed in the function (not in shared chunks), the guard known
    // to hold is a constant of its code.
    let assumed;
    let ir = match (shared, assume.map(|a| (a.input, a.negated))) {
        (None, Some((Input::Bit(b), negated))) => {
            let mut g = ir.clone();
            crate::optimise::assume_bit(&mut g, b, !negated);
            assumed = g;
            &assumed
        }
        _ => ir,
    };
    // Families only where the props are computed in the function (not in shared chunks).
    let plan = match shared {
        None => LegalPlan::new(ir, options, r, name, moves, assume),
        Some(_) => LegalPlan::without_families(ir, r, name, moves),
    };
    let (ret, extra_param) = match words {
        Some(n) => {
            let nl = Literal::usize_unsuffixed(n);
            (Some(quote! { [u64; #nl] }), quote! {})
        }
        None => (None, quote! { out: &mut Vec<u32>, }),
    };
    let f = cone_fn(
        ir,
        options,
        shared,
        &ConeSpec {
            name,
            per_state: true,
            moves: false,
            roots: plan.roots(ir),
            ret,
            extra_param,
            tail: &|e| plan.tail(ir, e, words),
            lazy: &[],
            placed: &plan.placed(ir),
            guarded: Some(held),
        },
    );
    let tables = &plan.tables;
    quote! { #tables #f }
}

/// How the legal moves of a role are computed: the moves tested one by one from the props
/// of the cone, and the families tested by shifts of the state.
pub(super) struct LegalPlan {
    r: usize,
    /// The name of the function (the tables are named after it).
    name: String,
    families: Families,
    /// The moves not in a family, ascending.
    rest: Vec<usize>,
    /// The `static` tables of the families.
    pub(super) tables: TokenStream,
}

impl LegalPlan {
    /// The plan of the function `name` computing the legal moves `moves` (ascending) of
    /// role `r`; `assume`: a state-bit literal known to hold when it is called.
    pub(super) fn new(
        ir: &Ir,
        options: &CodegenOptions,
        r: usize,
        name: &str,
        moves: &[usize],
        assume: Option<Lit>,
    ) -> LegalPlan {
        Self::with(ir, r, name, moves, families(ir, options, r, moves, assume))
    }

    fn without_families(ir: &Ir, r: usize, name: &str, moves: &[usize]) -> LegalPlan {
        Self::with(ir, r, name, moves, Families::default())
    }

    fn with(ir: &Ir, r: usize, name: &str, moves: &[usize], families: Families) -> LegalPlan {
        let in_family: Vec<usize> = families.members.iter().flatten().map(|&(_, m)| m).collect();
        let rest = moves
            .iter()
            .copied()
            .filter(|m| !in_family.contains(m))
            .collect();
        let tables = families.tables(ir, r, name);
        LegalPlan {
            r,
            name: name.to_string(),
            families,
            rest,
            tables,
        }
    }

    /// The literals the moves tested one by one read.
    pub(super) fn roots(&self, ir: &Ir) -> Vec<Lit> {
        self.rest.iter().map(|&m| ir.legal[self.r][m]).collect()
    }

    /// The props of the moves tested one by one, each at its move's bit (see
    /// `ConeSpec::placed`).
    fn placed(&self, ir: &Ir) -> Vec<(u32, u32)> {
        self.rest
            .iter()
            .filter_map(|&m| match ir.legal[self.r][m] {
                Lit {
                    input: Input::Prop(p),
                    negated: false,
                } => Some((p, m as u32)),
                _ => None,
            })
            .collect()
    }

    /// The end of the function, given the expressions of literals: with `words`, an
    /// expression of the words of legal bits, otherwise statements pushing onto `out`.
    pub(super) fn tail(
        &self,
        ir: &Ir,
        e: &dyn Fn(Lit) -> TokenStream,
        words: Option<usize>,
    ) -> TokenStream {
        legal_pushes(
            &self.rest,
            &|m| e(ir.legal[self.r][m]),
            &self.families,
            &self.name,
            words,
        )
    }
}

/// State bits (offset from the first bit, negated) that a move needs.
type Pattern = Vec<(u32, bool)>;

/// Families of moves of one pattern of state bits: per family, the pattern (offset from the
/// first bit, negated) and the members (first bit, move).
#[derive(Default)]
struct Families {
    patterns: Vec<Pattern>,
    members: Vec<Vec<(u32, usize)>>,
    /// Per family: what it stands for (the rule of its first member, how many more).
    docs: Vec<String>,
}

impl Families {
    /// The tables of first bit to move of the families that need one.
    fn tables(&self, ir: &Ir, r: usize, name: &str) -> TokenStream {
        let mut out = TokenStream::new();
        for (k, members) in self.members.iter().enumerate() {
            if by_shift(members).is_some() {
                continue;
            }
            let words = members
                .iter()
                .map(|&(f, _)| f as usize / 64 + 1)
                .max()
                .unwrap_or(1);
            let mut rows = vec![[0u32; 64]; words];
            for &(f, m) in members {
                rows[f as usize / 64][f as usize % 64] = m as u32;
            }
            let id = table_ident(name, k);
            let rows = rows.iter().map(|row| {
                let ms = row.iter().map(|&m| Literal::u32_unsuffixed(m));
                quote! { [#(#ms),*] }
            });
            let wl = Literal::usize_unsuffixed(words);
            let example = ir.moves[r].get(members[0].1).map_or("", String::as_str);
            let doc = format!(
                " `{name}`: per first state bit of the pattern {:?} (offset, negated), the move \
                 of role {} it makes legal: {example} and {} more.",
                self.patterns[k],
                ir.roles[r],
                members.len() - 1
            );
            out.extend(quote! {
                #[doc = #doc]
                static #id: [[u32; 64]; #wl] = [#(#rows),*];
            });
        }
        out
    }
}

fn table_ident(name: &str, k: usize) -> proc_macro2::Ident {
    format_ident!("{}_{}", name.to_uppercase(), k)
}

/// When every member's move is its first bit plus one constant and all are in one word of
/// first bits and one word of moves: (word of first bits, word of moves, move bit - first
/// bit).
fn by_shift(members: &[(u32, usize)]) -> Option<(usize, usize, i64)> {
    let &(f0, m0) = members.first()?;
    let d = (m0 % 64) as i64 - (f0 % 64) as i64;
    members
        .iter()
        .all(|&(f, m)| {
            f / 64 == f0 / 64 && m / 64 == m0 / 64 && (m % 64) as i64 - (f % 64) as i64 == d
        })
        .then_some((f0 as usize / 64, m0 / 64, d))
}

/// The families among the moves `moves` of role `r`.
fn families(
    ir: &Ir,
    options: &CodegenOptions,
    r: usize,
    moves: &[usize],
    assume: Option<Lit>,
) -> Families {
    let group_of = ir.group_of();
    let mut by_pattern: BTreeMap<Pattern, Vec<(u32, usize)>> = BTreeMap::new();
    for &m in moves {
        let mut bits: Vec<(u32, bool)> = Vec::new();
        if !state_bits(ir, &group_of, ir.legal[r][m], FLATTEN_DEPTH, &mut bits) {
            continue;
        }
        if let Some(a) = assume
            && let Input::Bit(b) = a.input
        {
            bits.retain(|&x| x != (b, a.negated));
            if bits.contains(&(b, !a.negated)) {
                continue;
            }
        }
        bits.sort_unstable();
        bits.dedup();
        // A bit both set and clear, or none: left to the general code.
        if bits.is_empty() || bits.windows(2).any(|w| w[0].0 == w[1].0) {
            continue;
        }
        let first = bits[0].0;
        let pattern = bits.iter().map(|&(b, n)| (b - first, n)).collect();
        by_pattern.entry(pattern).or_default().push((first, m));
    }
    let mut out = Families::default();
    for (pattern, members) in by_pattern {
        if members.len() < shifts::MIN_FAMILY {
            continue;
        }
        // Members numbered like their first bits (one constant apart) are moved by a shift;
        // the others through a table.
        let mut by_offset: BTreeMap<(u32, usize, i64), Vec<(u32, usize)>> = BTreeMap::new();
        for &(f, m) in &members {
            let d = (m % 64) as i64 - (f % 64) as i64;
            by_offset
                .entry((f / 64, m / 64, d))
                .or_default()
                .push((f, m));
        }
        let mut others = Vec::new();
        for (_, group) in by_offset {
            if group.len() >= 2 {
                out.patterns.push(pattern.clone());
                out.members.push(group);
            } else {
                others.extend(group);
            }
        }
        // A table maps a first bit to one move: members sharing a first bit (a knight's
        // moves from one square) go to separate tables, the i-th move of each first bit to
        // the i-th table (knightsTour listed one move a square when they shared one).
        others.sort_unstable();
        let mut tables: Vec<Vec<(u32, usize)>> = Vec::new();
        let mut nth = 0;
        for (k, &(f, m)) in others.iter().enumerate() {
            nth = if k > 0 && others[k - 1].0 == f {
                nth + 1
            } else {
                0
            };
            if tables.len() <= nth {
                tables.push(Vec::new());
            }
            tables[nth].push((f, m));
        }
        for table in tables {
            if table.len() >= MIN_TABLE_FAMILY {
                out.patterns.push(pattern.clone());
                out.members.push(table);
            }
        }
    }
    out.docs = out
        .members
        .iter()
        .zip(&out.patterns)
        .map(|(members, pattern)| {
            let first = match ir.legal[r][members[0].1].input {
                Input::Prop(p) => super::super::prop_doc(ir, options, p).trim().to_string(),
                _ => ir.moves[r].get(members[0].1).cloned().unwrap_or_default(),
            };
            format!(
                " {first} and {} more: the state bits {pattern:?} (offset, negated) from a first \
                 bit",
                members.len() - 1
            )
        })
        .collect();
    out
}

/// The fewest members of a family listed through a table: each member that holds costs about
/// as much as testing a move alone, so the table pays only when few of its members hold (the
/// 8 drops of connectFour are mostly legal; the 16 to 56 moves of one direction of
/// breakthrough mostly not).
const MIN_TABLE_FAMILY: usize = 16;

/// How deep [`state_bits`] looks through props.
const FLATTEN_DEPTH: u32 = 4;

/// Pushes onto `bits` the state bits (bit, negated) whose conjunction `l` is, looking through
/// props of one disjunct and negated props of single-literal disjuncts (`(cellEmpty 1 5)`:
/// no white and no black piece there) at most `depth` deep; false when `l` is not such a
/// conjunction.
fn state_bits(
    ir: &Ir,
    group_of: &[Option<u32>],
    l: Lit,
    depth: u32,
    bits: &mut Vec<(u32, bool)>,
) -> bool {
    let l = l.folded();
    match l.input {
        Input::Bit(b) => {
            bits.push((b, l.negated));
            true
        }
        Input::Const(x) => x != l.negated,
        Input::Prop(p) if depth > 0 && group_of[p as usize].is_none() => {
            let d = &ir.props[p as usize].disjuncts;
            if !l.negated {
                match &d[..] {
                    [c] => c
                        .iter()
                        .all(|&x| state_bits(ir, group_of, x, depth - 1, bits)),
                    _ => false,
                }
            } else {
                !d.is_empty()
                    && d.iter().all(|c| match c[..] {
                        [x] => state_bits(ir, group_of, x.negate(), depth - 1, bits),
                        _ => false,
                    })
            }
        }
        _ => false,
    }
}

/// The statements computing the moves `moves` (ascending) that hold (`holds`: the expression
/// of whether move `m` is legal) and the members of the families `plan` that hold: as bits of
/// words (bit `m % 64` of word `m / 64`) computed without a branch, returned as an array of
/// `words` words when given, otherwise listed from their set bits onto `out` (with few moves
/// to test, one `if` per move instead: the branch per move of the `if`s is mispredicted about
/// as often as the move is legal).
fn legal_pushes(
    moves: &[usize],
    holds: &dyn Fn(usize) -> TokenStream,
    plan: &Families,
    name: &str,
    words_out: Option<usize>,
) -> TokenStream {
    let tested: Vec<(usize, TokenStream)> = moves
        .iter()
        .map(|&m| (m, holds(m)))
        .filter(|(_, x)| x.to_string() != "false")
        .collect();
    if words_out.is_none() && tested.len() <= LEGAL_IFS && plan.members.is_empty() {
        let pushes = tested.iter().map(|(m, x)| {
            let m = Literal::u32_suffixed(*m as u32);
            if x.to_string() == "true" {
                quote! { out.push(#m); }
            } else {
                quote! { if #x { out.push(#m); } }
            }
        });
        return quote! { #(#pushes)* };
    }
    let mut words: BTreeMap<usize, Vec<TokenStream>> = Default::default();
    for (m, x) in tested {
        let k = Literal::u32_unsuffixed((m % 64) as u32);
        let bit = if x.to_string() == "true" {
            quote! { (1u64 << #k) }
        } else {
            let x = paren(x);
            quote! { ((#x as u64) << #k) }
        };
        words.entry(m / 64).or_default().push(bit);
    }
    if let (true, Some(n)) = (plan.members.is_empty(), words_out) {
        let inits = (0..n).map(|w| match words.remove(&w) {
            Some(bits) => join_balanced(bits, Op::Or),
            None => quote! { 0u64 },
        });
        return quote! { [#(#inits),*] };
    }
    if plan.members.is_empty() {
        let loops = words.into_iter().map(|(w, bits)| {
            let word = join_balanced(bits, Op::Or);
            let m = if w == 0 {
                quote! { legal.trailing_zeros() }
            } else {
                let base = Literal::u32_suffixed(w as u32 * 64);
                quote! { #base + legal.trailing_zeros() }
            };
            quote! {
                let mut legal: u64 = #word;
                while legal != 0 {
                    out.push(#m);
                    legal &= legal - 1;
                }
            }
        });
        return quote! { #(#loops)* };
    }
    // The families: by a shift into their word of moves, or through their table.
    let mut scattered = Vec::new();
    for (k, (pattern, members)) in plan.patterns.iter().zip(&plan.members).enumerate() {
        let mut firsts: BTreeMap<usize, u64> = BTreeMap::new();
        for &(f, _) in members {
            *firsts.entry(f as usize / 64).or_default() |= 1 << (f % 64);
        }
        let doc = &plan.docs[k];
        if let Some((_, w, d)) = by_shift(members) {
            let (i, mask) = firsts
                .iter()
                .next()
                .map(|(&i, &m)| (i, m))
                .unwrap_or((0, 0));
            let x = shifts::pattern_word(i, pattern, mask);
            let moved = match d {
                0 => quote! { family },
                d if d > 0 => {
                    let dl = Literal::u32_unsuffixed(d as u32);
                    quote! { family << #dl }
                }
                d => {
                    let dl = Literal::u32_unsuffixed((-d) as u32);
                    quote! { family >> #dl }
                }
            };
            let wl = Literal::usize_unsuffixed(w);
            words.entry(w).or_default();
            scattered.push(quote! {
                #[doc = #doc]
                let family: u64 = #x;
                legal[#wl] |= #moved;
            });
            continue;
        }
        let table = table_ident(name, k);
        for (i, mask) in firsts {
            let il = Literal::usize_unsuffixed(i);
            let x = shifts::pattern_word(i, pattern, mask);
            scattered.push(quote! {
                #[doc = #doc]
                let mut family: u64 = #x;
                while family != 0 {
                    let m = #table[#il][family.trailing_zeros() as usize];
                    legal[(m / 64) as usize] |= 1u64 << (m % 64);
                    family &= family - 1;
                }
            });
        }
    }
    // Every word of moves some member may set.
    for members in &plan.members {
        for &(_, m) in members {
            words.entry(m / 64).or_default();
        }
    }
    let nwords = words_out.unwrap_or(words.keys().next_back().map_or(0, |&w| w + 1));
    let inits = (0..nwords).map(|w| match words.get(&w) {
        Some(bits) if !bits.is_empty() => join_balanced(bits.clone(), Op::Or),
        _ => quote! { 0u64 },
    });
    let nl = Literal::usize_unsuffixed(nwords);
    if words_out.is_some() {
        return quote! {
            let mut legal: [u64; #nl] = [#(#inits),*];
            #(#scattered)*
            legal
        };
    }
    let loops = words.keys().map(|&w| {
        let wl = Literal::usize_unsuffixed(w);
        let m = if w == 0 {
            quote! { word.trailing_zeros() }
        } else {
            let base = Literal::u32_suffixed(w as u32 * 64);
            quote! { #base + word.trailing_zeros() }
        };
        quote! {
            let mut word = legal[#wl];
            while word != 0 {
                out.push(#m);
                word &= word - 1;
            }
        }
    });
    quote! {
        let mut legal: [u64; #nl] = [#(#inits),*];
        #(#scattered)*
        #(#loops)*
    }
}

/// Up to this many moves to test, [`legal_pushes`] tests each with an `if`.
const LEGAL_IFS: usize = 2;

/// The most words of moves (64 moves each) of a role whose legal-move functions return
/// their words of legal bits (listed by `gdl_runtime::bits::push_moves`, drawn from by
/// `gdl_runtime::bits::pick_move` without listing); a role with more moves has them pushed
/// one by one (a state has few of them, and scanning every word would cost more).
const MAX_LEGAL_WORDS: usize = 4;

/// The words of moves of role `r` when its legal-move functions return words of legal bits
/// (at most [`MAX_LEGAL_WORDS`]).
pub(super) fn legal_words(ir: &Ir, r: usize) -> Option<usize> {
    legal_words_upto(ir, r, MAX_LEGAL_WORDS)
}

/// The words of moves of role `r`, when at most `max`.
pub(super) fn legal_words_upto(ir: &Ir, r: usize, max: usize) -> Option<usize> {
    let n = ir.moves[r].len().div_ceil(64).max(1);
    (n <= max).then_some(n)
}

/// A state-bit literal (bit, negated) that at least half of role `r`'s legal moves (and at
/// least 8) need in every disjunct, typically whose turn it is, and the moves that do not
/// need it.
pub(super) fn legal_guard(ir: &Ir, r: usize) -> Option<((u32, bool), Vec<usize>)> {
    let needs = |l: Lit, g: Lit| -> bool {
        if l == g {
            return true;
        }
        match (l.input, l.negated) {
            (crate::ir::Input::Prop(p), false) => {
                let d = &ir.props[p as usize].disjuncts;
                !d.is_empty() && d.iter().all(|c| c.contains(&g))
            }
            _ => false,
        }
    };
    let legal = &ir.legal[r];
    let mut counts: rustc_hash::FxHashMap<Lit, usize> = rustc_hash::FxHashMap::default();
    for &l in legal {
        let candidates: Vec<Lit> = match (l.input, l.negated) {
            (crate::ir::Input::Prop(p), false) => ir.props[p as usize]
                .disjuncts
                .first()
                .map(|c| c.to_vec())
                .unwrap_or_default(),
            _ => vec![l],
        };
        for g in candidates {
            if matches!(g.input, crate::ir::Input::Bit(_)) && needs(l, g) {
                *counts.entry(g).or_default() += 1;
            }
        }
    }
    let (&g, &n) = counts
        .iter()
        .max_by_key(|(g, n)| (**n, std::cmp::Reverse(**g)))?;
    if n < 8 || n * 2 < legal.len() {
        return None;
    }
    let crate::ir::Input::Bit(bit) = g.input else {
        return None;
    };
    let without = (0..legal.len()).filter(|&m| !needs(legal[m], g)).collect();
    Some(((bit, g.negated), without))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_numbered_like_their_first_bits_move_by_one_shift() {
        // Moves 3, 4, 6 from first bits 1, 2, 4: two apart.
        assert_eq!(by_shift(&[(1, 3), (2, 4), (4, 6)]), Some((0, 0, 2)));
        // Moves 1, 2 from first bits 65, 66: one word of first bits down, 64 apart.
        assert_eq!(by_shift(&[(65, 1), (66, 2)]), Some((1, 0, 0)));
        // Not one constant apart, or first bits in two words.
        assert_eq!(by_shift(&[(1, 3), (2, 5)]), None);
        assert_eq!(by_shift(&[(1, 3), (65, 3)]), None);
    }
}
