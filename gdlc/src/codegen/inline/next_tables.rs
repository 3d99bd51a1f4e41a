//! Per-move tables of `next`: the frame axioms and the plain effects of moves as two words per
//! state word and move.
//!
//! Most next-state bits of a board game are "the cell keeps its piece unless a move touches
//! it" and "a move puts a piece there": a disjunct `(true b) & f(move of role r)` or
//! `f(move of role r)` alone, where `f` reads only role `r`'s move (`does`, move sets, and
//! props made only of these). Both are known per move before the game runs, so the generated
//! code reads them from two tables per role, `NEXT_KEEP_<r>` and `NEXT_SET_<r>` (a row per
//! move of the role, the last one for no move, a word per state word), and a next state word
//! is `state & (frame | keep_0 | keep_1 ..) | set_0 | set_1 ..` instead of one expression per
//! bit. A disjunct `(true c) & f(move of role r)` for another bit `c` of the same word (the
//! blank cell that `(mark 1 1)` fills with an x) copies `c` a fixed distance on: a table
//! `NEXT_COPY_<r>_<k>` per distance holds the bits each move copies, and the word gains
//! `(state & copy) << distance`. A prop that reads the moves of several roles
//! (`(does white m) | (does black m)`) is distributed over the disjunct first.

use super::super::move_values::{MoveValues, distribute};
use crate::ir::{Input, Ir, Lit};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The most words (rows times state words) one table may hold.
const MAX_TABLE_WORDS: usize = 1 << 16;

/// The most distances of copied bits per role (a table each).
const MAX_COPY_DISTANCES: usize = 4;

/// The most conjunctions one disjunct is distributed into.
const MAX_EXPANSION: usize = 16;

/// The tables being filled, and what they need to know about the props.
pub(super) struct NextTables {
    /// Which roles' moves the props read, and the literals' values per move.
    moves: MoveValues,
    /// Per role: the rows of `NEXT_KEEP` and `NEXT_SET` (empty until used).
    keep: Vec<Vec<Vec<u64>>>,
    set: Vec<Vec<Vec<u64>>>,
    /// Per role: per distance `d` (next bit minus state bit, in one word), the rows of
    /// `NEXT_COPY_<r>_<k>`: the state bits whose value the move copies `d` bits on.
    copy: Vec<Vec<(i64, Vec<Vec<u64>>)>>,
    words: usize,
}

/// How a conjunction reads the state and the moves.
enum Kind {
    /// `(true b) & f(move of the role)`.
    Keep(u32),
    /// `f(move of the role)`.
    Set(u32),
    /// `(true c) & f(move of the role)` for another bit `c` of the same word: (role, `c`).
    Copy(u32, u32),
    Other,
}

impl NextTables {
    pub(super) fn new(ir: &Ir, words: usize) -> NextTables {
        let nroles = ir.roles.len();
        NextTables {
            moves: MoveValues::new(ir),
            keep: vec![Vec::new(); nroles],
            set: vec![Vec::new(); nroles],
            copy: vec![Vec::new(); nroles],
            words,
        }
    }

    /// Takes the disjunct `c` of next bit `b` into the tables as far as it goes: returns the
    /// conjunctions (whose or is `c`) left to compute otherwise. `c` itself comes back
    /// when no part of it fits.
    pub(super) fn take(&mut self, ir: &Ir, b: u32, c: &[Lit]) -> Vec<Vec<Lit>> {
        let Some(expanded) = self.expand(ir, c) else {
            return vec![c.to_vec()];
        };
        let kinds: Vec<Kind> = expanded.iter().map(|e| self.kind(ir, b, e)).collect();
        if kinds.iter().all(|k| matches!(k, Kind::Other)) {
            return vec![c.to_vec()];
        }
        let mut rest = Vec::new();
        for (e, kind) in expanded.into_iter().zip(kinds) {
            let (r, keep, copied) = match kind {
                Kind::Keep(r) => (r, true, None),
                Kind::Set(r) => (r, false, None),
                Kind::Copy(r, c) => (r, false, Some(c)),
                Kind::Other => {
                    rest.push(e);
                    continue;
                }
            };
            let moves: Vec<Lit> = e
                .iter()
                .copied()
                .filter(|l| !matches!(l.input, Input::Bit(_)))
                .collect();
            let holds = self.moves.conj_values(ir, r, &moves);
            if let Some(c) = copied {
                let d = i64::from(b) - i64::from(c);
                let tables = &mut self.copy[r as usize];
                let k = match tables.iter().position(|t| t.0 == d) {
                    Some(k) => k,
                    None if tables.len() < MAX_COPY_DISTANCES => {
                        tables.push((d, vec![vec![0u64; self.words]; holds.len()]));
                        tables.len() - 1
                    }
                    None => {
                        rest.push(e);
                        continue;
                    }
                };
                for (row, &h) in tables[k].1.iter_mut().zip(&holds) {
                    if h {
                        row[c as usize / 64] |= 1 << (c % 64);
                    }
                }
                continue;
            }
            let rows = if keep {
                &mut self.keep[r as usize]
            } else {
                &mut self.set[r as usize]
            };
            if rows.is_empty() {
                *rows = vec![vec![0u64; self.words]; holds.len()];
            }
            for (row, &h) in rows.iter_mut().zip(&holds) {
                if h {
                    row[b as usize / 64] |= 1 << (b % 64);
                }
            }
        }
        rest
    }

    /// `c` with its positive props that read the moves of several roles (and nothing else)
    /// distributed, or `None` past [`MAX_EXPANSION`] conjunctions.
    fn expand(&self, ir: &Ir, c: &[Lit]) -> Option<Vec<Vec<Lit>>> {
        distribute(ir, c, MAX_EXPANSION, |l| {
            self.moves.roles(ir, l).is_some_and(|m| m.count_ones() > 1)
        })
    }

    fn kind(&self, ir: &Ir, b: u32, c: &[Lit]) -> Kind {
        let mut keeps = false;
        let mut copied = None;
        let mut roles = 0u64;
        for &l in c {
            match (l.input, l.negated) {
                (Input::Bit(x), false) if x == b && !keeps => keeps = true,
                (Input::Bit(x), false) if x / 64 == b / 64 && copied.is_none() => copied = Some(x),
                _ => match self.moves.roles(ir, l) {
                    Some(m) => roles |= m,
                    None => return Kind::Other,
                },
            }
        }
        if roles.count_ones() != 1 {
            return Kind::Other;
        }
        let r = roles.trailing_zeros();
        let rows = ir.moves[r as usize].len() + 1;
        if rows * self.words > MAX_TABLE_WORDS {
            return Kind::Other;
        }
        match (keeps, copied) {
            (true, None) => Kind::Keep(r),
            (false, None) => Kind::Set(r),
            (false, Some(x)) => Kind::Copy(r, x),
            (true, Some(_)) => Kind::Other,
        }
    }

    /// The `static` tables.
    pub(super) fn items(&self, ir: &Ir) -> TokenStream {
        let mut out = TokenStream::new();
        for (r, role) in ir.roles.iter().enumerate() {
            for (kind, rows) in [("KEEP", &self.keep[r]), ("SET", &self.set[r])] {
                if rows.is_empty() {
                    continue;
                }
                let name = format_ident!("NEXT_{}_{}", kind, r);
                let wl = Literal::usize_unsuffixed(self.words);
                let nl = Literal::usize_unsuffixed(rows.len());
                let rows = rows.iter().map(|row| {
                    let ws = row.iter().map(|&w| Literal::u64_suffixed(w));
                    quote! { [#(#ws),*] }
                });
                let doc = if kind == "KEEP" {
                    format!(
                        " Row `m`: the state bits that stay set when {role} plays its move `m` \
                         (the last row: no move)."
                    )
                } else {
                    format!(
                        " Row `m`: the state bits that {role}'s move `m` sets (the last row: \
                         no move)."
                    )
                };
                out.extend(quote! {
                    #[doc = #doc]
                    static #name: [[u64; #wl]; #nl] = [#(#rows),*];
                });
            }
            for (k, (d, rows)) in self.copy[r].iter().enumerate() {
                let name = format_ident!("NEXT_COPY_{}_{}", r, k);
                let wl = Literal::usize_unsuffixed(self.words);
                let nl = Literal::usize_unsuffixed(rows.len());
                let rows = rows.iter().map(|row| {
                    let ws = row.iter().map(|&w| Literal::u64_suffixed(w));
                    quote! { [#(#ws),*] }
                });
                let doc = format!(
                    " Row `m`: the state bits whose value {role}'s move `m` copies to the next \
                     state bit {d} places on (the last row: no move)."
                );
                out.extend(quote! {
                    #[doc = #doc]
                    static #name: [[u64; #wl]; #nl] = [#(#rows),*];
                });
            }
        }
        out
    }

    /// The `let`s that pick the rows of the joint move, and per state word the masks to and
    /// with the state (besides the frame) and to or in.
    pub(super) fn rows(&self) -> (TokenStream, Vec<WordParts>) {
        let mut lets = TokenStream::new();
        let mut per_word = vec![(Vec::new(), Vec::new()); self.words];
        for r in 0..self.keep.len() {
            let rl = Literal::usize_unsuffixed(r);
            for (kind, rows) in [("KEEP", &self.keep[r]), ("SET", &self.set[r])] {
                if rows.is_empty() {
                    continue;
                }
                let table = format_ident!("NEXT_{}_{}", kind, r);
                let row = format_ident!("{}_{}", kind.to_lowercase(), r);
                lets.extend(quote! { let #row = &#table[joint[#rl] as usize]; });
                for (w, slot) in per_word.iter_mut().enumerate() {
                    if rows.iter().all(|x| x[w] == 0) {
                        continue;
                    }
                    let wl = Literal::usize_unsuffixed(w);
                    let part = quote! { #row[#wl] };
                    if kind == "KEEP" {
                        slot.0.push(part);
                    } else {
                        slot.1.push(part);
                    }
                }
            }
            for (k, (d, rows)) in self.copy[r].iter().enumerate() {
                let table = format_ident!("NEXT_COPY_{}_{}", r, k);
                let row = format_ident!("copy_{}_{}", r, k);
                lets.extend(quote! { let #row = &#table[joint[#rl] as usize]; });
                for (w, slot) in per_word.iter_mut().enumerate() {
                    if rows.iter().all(|x| x[w] == 0) {
                        continue;
                    }
                    let wl = Literal::usize_unsuffixed(w);
                    let shift = Literal::u32_unsuffixed(d.unsigned_abs() as u32);
                    slot.1.push(if *d > 0 {
                        quote! { ((state.0[#wl] & #row[#wl]) << #shift) }
                    } else {
                        quote! { ((state.0[#wl] & #row[#wl]) >> #shift) }
                    });
                }
            }
        }
        (lets, per_word)
    }
}

/// Per state word: the row words to and with the state (besides the frame), and those to or
/// in.
pub(super) type WordParts = (Vec<TokenStream>, Vec<TokenStream>);
