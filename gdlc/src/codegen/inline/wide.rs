//! Props of one shape, evaluated for all their translates at once (word parallel; used when
//! `CodegenOptions::wide_families` is on). A board game's rules ground into many props that
//! test the same pattern of state bits from different squares: draughts'
//! `(legal2 white (capture b 3 d 5))` is "a white piece on b3, a black piece on c4, nothing on
//! d5", its translates the same from other squares. A prop whose disjuncts read only state
//! bits and props already so described is an and/or tree of state bits and of members of
//! other families ("`hasPiece` at this bit plus 32"); props with one tree up to a translation
//! of the bits are a *family*. For a family of enough members the code computes, per state
//! word `i`, one word whose bit `f` says whether the member whose first bit is `f` holds: the
//! tree with each state bit `o` further read as the state shifted right by `o`, each member
//! of another family as that family's words shifted (or its tree, when that family is not
//! computed word parallel), under the mask of the members' first bits. A member then reads
//! one bit of its family's word.
//!
//! Measured on englishDraughts (session 11): `terminal` and the legal moves executed 14% fewer
//! instructions (cachegrind), yet playouts were 8-10% slower per CPU second, hence off by
//! default.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap;

use super::tokens::{Op, join_balanced};
use crate::ir::{Input, Ir};

/// A formula over state bits in negation normal form, reading other families' words.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tree {
    /// A state bit (offset from the first bit once made relative), negated.
    Leaf(u32, bool),
    /// The member of family `g` whose first bit is this one (offset once relative), negated.
    Sub(usize, u32, bool),
    And(Vec<Tree>),
    Or(Vec<Tree>),
}

impl Tree {
    /// The state bits it reads when every `Sub` is expanded.
    fn size(&self, groups: &[Group]) -> usize {
        match self {
            Tree::Leaf(..) => 1,
            Tree::Sub(g, ..) => groups[*g].size,
            Tree::And(c) | Tree::Or(c) => c.iter().map(|t| t.size(groups)).sum(),
        }
    }

    fn min_bit(&self) -> Option<u32> {
        match self {
            Tree::Leaf(b, _) | Tree::Sub(_, b, _) => Some(*b),
            Tree::And(c) | Tree::Or(c) => c.iter().filter_map(Tree::min_bit).min(),
        }
    }

    /// The tree with every bit made relative to `first`, children sorted: translates of one
    /// tree are equal.
    fn relative(&self, first: u32) -> Tree {
        match self {
            Tree::Leaf(b, n) => Tree::Leaf(b - first, *n),
            Tree::Sub(g, b, n) => Tree::Sub(*g, b - first, *n),
            Tree::And(c) => Tree::And(sorted(c.iter().map(|t| t.relative(first)).collect())),
            Tree::Or(c) => Tree::Or(sorted(c.iter().map(|t| t.relative(first)).collect())),
        }
    }

    /// A text naming the tree (the key of its family).
    fn key(&self, out: &mut String) {
        match self {
            Tree::Leaf(b, n) | Tree::Sub(_, b, n) => {
                out.push_str(if *n { "!" } else { "" });
                if let Tree::Sub(g, ..) = self {
                    out.push_str(&format!("g{g}@"));
                }
                out.push_str(&b.to_string());
                out.push(' ');
            }
            Tree::And(c) | Tree::Or(c) => {
                out.push_str(if matches!(self, Tree::And(_)) {
                    "&("
                } else {
                    "|("
                });
                for t in c {
                    t.key(out);
                }
                out.push_str(") ");
            }
        }
    }
}

fn sorted(mut c: Vec<Tree>) -> Vec<Tree> {
    c.sort_by_cached_key(|t| {
        let mut s = String::new();
        t.key(&mut s);
        s
    });
    c
}

/// The most state bits a member reads (its tree with every `Sub` expanded).
const MAX_LEAVES: usize = 32;

/// The fewest members of a family.
const MIN_MEMBERS: usize = 4;

/// The tree of prop `p` (one level: the props it reads are `Sub`s of their groups, `info`:
/// group and first bit of each prop seen); `None` when it reads something else than state
/// bits and such props.
fn prop_tree(ir: &Ir, info: &FxHashMap<u32, (usize, u32)>, p: u32) -> Option<Tree> {
    let d = &ir.props[p as usize].disjuncts;
    let mut outer = Vec::with_capacity(d.len());
    for c in d {
        let mut inner = Vec::with_capacity(c.len());
        for &x in c {
            let x = x.folded();
            inner.push(match x.input {
                Input::Bit(b) => Tree::Leaf(b, x.negated),
                Input::Const(v) if v != x.negated => Tree::And(Vec::new()),
                Input::Const(_) => Tree::Or(Vec::new()),
                Input::Prop(q) => {
                    let &(g, f) = info.get(&q)?;
                    Tree::Sub(g, f, x.negated)
                }
                _ => return None,
            });
        }
        outer.push(collapse(Tree::And(inner)));
    }
    Some(collapse(Tree::Or(outer)))
}

/// A one-child `And`/`Or` as its child; children of the same kind merged into the parent.
fn collapse(t: Tree) -> Tree {
    let and = matches!(t, Tree::And(_));
    match t {
        Tree::And(c) | Tree::Or(c) => {
            let mut out = Vec::new();
            for x in c {
                match x {
                    Tree::And(cc) if and => out.extend(cc),
                    Tree::Or(cc) if !and => out.extend(cc),
                    x => out.push(x),
                }
            }
            match (out.len(), and) {
                (1, _) => out.pop().unwrap_or(Tree::Or(Vec::new())),
                (_, true) => Tree::And(out),
                (_, false) => Tree::Or(out),
            }
        }
        leaf => leaf,
    }
}

/// Props of one tree up to translation.
struct Group {
    /// Bits relative to the first.
    tree: Tree,
    /// The state bits a member reads.
    size: usize,
    /// (first bit, prop).
    members: Vec<(u32, u32)>,
    /// When computed word parallel: the mask of first bits per state word.
    words: Option<Vec<(usize, u64)>>,
}

/// The families among the props of a cone: each member's family and first bit.
#[derive(Default)]
pub(super) struct Wide {
    groups: Vec<Group>,
    /// Per prop of a family computed word parallel: (family, first bit).
    member: FxHashMap<u32, (usize, u32)>,
}

impl Wide {
    /// The families among the props `props` (ascending: a prop after those it reads).
    pub(super) fn new(ir: &Ir, props: &[u32]) -> Wide {
        let group_of = ir.group_of();
        let mut by_key: FxHashMap<String, usize> = FxHashMap::default();
        let mut groups: Vec<Group> = Vec::new();
        let mut info: FxHashMap<u32, (usize, u32)> = FxHashMap::default();
        for &p in props {
            if group_of[p as usize].is_some() {
                continue;
            }
            let Some(t) = prop_tree(ir, &info, p) else {
                continue;
            };
            let size = t.size(&groups);
            if !(2..=MAX_LEAVES).contains(&size) {
                continue;
            }
            let Some(first) = t.min_bit() else {
                continue;
            };
            let rel = t.relative(first);
            let mut key = String::new();
            rel.key(&mut key);
            let k = *by_key.entry(key).or_insert_with(|| {
                groups.push(Group {
                    tree: rel,
                    size,
                    members: Vec::new(),
                    words: None,
                });
                groups.len() - 1
            });
            groups[k].members.push((first, p));
            info.insert(p, (k, first));
        }
        let mut member = FxHashMap::default();
        for (k, g) in groups.iter_mut().enumerate() {
            let mut words: std::collections::BTreeMap<usize, u64> = Default::default();
            for &(f, _) in &g.members {
                *words.entry(f as usize / 64).or_default() |= 1 << (f % 64);
            }
            // Two members with one first bit (the same tree twice) cannot share a word bit.
            let distinct: usize = words.values().map(|m| m.count_ones() as usize).sum();
            let n = g.members.len();
            if n < MIN_MEMBERS || distinct != n || n < 2 * words.len() {
                continue;
            }
            g.words = Some(words.into_iter().collect());
            for &(f, p) in &g.members {
                member.insert(p, (k, f));
            }
        }
        Wide { groups, member }
    }

    /// The family and first bit of prop `p` when it is computed word parallel.
    pub(super) fn member(&self, p: u32) -> Option<(usize, u32)> {
        self.member.get(&p).copied()
    }

    /// The name of the local holding word `w` of family `k`.
    fn word_ident(k: usize, w: usize) -> Ident {
        format_ident!("wide_{}_{}", k, w)
    }

    /// The mask of first bits of family `k` in word `w` (0: none, or not word parallel).
    fn firsts(&self, k: usize, w: usize) -> u64 {
        self.groups[k]
            .words
            .as_ref()
            .and_then(|ws| ws.iter().find(|&&(i, _)| i == w))
            .map_or(0, |&(_, m)| m)
    }

    /// The statements computing word `w` of family `k` and the words it reads that
    /// `done` (updated) does not hold.
    pub(super) fn word_stmts(
        &self,
        k: usize,
        w: usize,
        done: &mut Vec<(usize, usize)>,
    ) -> TokenStream {
        if done.contains(&(k, w)) {
            return TokenStream::new();
        }
        done.push((k, w));
        let firsts = self.firsts(k, w);
        let mut deps = Vec::new();
        let e = self.word_expr(&self.groups[k].tree, w, firsts, 0, &mut deps);
        let mut out = TokenStream::new();
        for (g, j) in deps {
            out.extend(self.word_stmts(g, j, done));
        }
        let id = Self::word_ident(k, w);
        let m = super::masks::name(w, firsts);
        out.extend(quote! { let #id: u64 = (#e) & #m; });
        out
    }

    /// The expression of member `p` (family `k`, first bit `f`) from its family's word.
    pub(super) fn member_expr(k: usize, f: u32) -> TokenStream {
        let id = Self::word_ident(k, f as usize / 64);
        let bit = Literal::u64_suffixed(1u64 << (f % 64));
        quote! { (#id & #bit != 0) }
    }

    /// Word `i` of the tree `t` with its bits `base` further, evaluated at every first bit
    /// of `firsts` (exact there only); `deps`: the family words it reads.
    fn word_expr(
        &self,
        t: &Tree,
        i: usize,
        firsts: u64,
        base: u32,
        deps: &mut Vec<(usize, usize)>,
    ) -> TokenStream {
        let not = |negated: bool, x: TokenStream| {
            if negated {
                quote! { !#x }
            } else {
                x
            }
        };
        match t {
            Tree::Leaf(o, negated) => {
                not(*negated, super::shifts::shifted_word(i, base + o, firsts))
            }
            Tree::Sub(g, o, negated) => {
                let o = base + o;
                if self.groups[*g].words.is_none() {
                    let x = self.word_expr(&self.groups[*g].tree, i, firsts, o, deps);
                    return not(*negated, quote! { (#x) });
                }
                let mut word = |j: usize| {
                    if self.firsts(*g, j) == 0 {
                        quote! { 0u64 }
                    } else {
                        deps.push((*g, j));
                        let id = Self::word_ident(*g, j);
                        quote! { #id }
                    }
                };
                let j = i + o as usize / 64;
                let r = o % 64;
                let x = if r == 0 {
                    word(j)
                } else {
                    let rl = Literal::u32_unsuffixed(r);
                    let lo = word(j);
                    if firsts >> (64 - r) == 0 {
                        quote! { (#lo >> #rl) }
                    } else {
                        let hi = word(j + 1);
                        let ll = Literal::u32_unsuffixed(64 - r);
                        quote! { ((#lo >> #rl) | (#hi << #ll)) }
                    }
                };
                not(*negated, x)
            }
            Tree::And(c) if c.is_empty() => quote! { u64::MAX },
            Tree::Or(c) if c.is_empty() => quote! { 0u64 },
            Tree::And(c) | Tree::Or(c) => {
                let op = if matches!(t, Tree::And(_)) {
                    Op::And
                } else {
                    Op::Or
                };
                let parts = c.iter().map(|t| {
                    let e = self.word_expr(t, i, firsts, base, deps);
                    quote! { (#e) }
                });
                join_balanced(parts.collect(), op)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translated_trees_have_one_key() {
        let a = Tree::And(vec![
            Tree::Leaf(7, true),
            Tree::Or(vec![Tree::Leaf(3, false), Tree::Leaf(5, false)]),
        ]);
        let b = Tree::And(vec![
            Tree::Or(vec![Tree::Leaf(15, false), Tree::Leaf(13, false)]),
            Tree::Leaf(17, true),
        ]);
        let key = |t: &Tree| {
            let mut s = String::new();
            t.relative(t.min_bit().unwrap_or(0)).key(&mut s);
            s
        };
        assert_eq!(key(&a), key(&b));
        assert_eq!(a.size(&[]), 3);
    }

    #[test]
    fn collapse_merges_nested_kinds() {
        let t = collapse(Tree::Or(vec![
            Tree::Or(vec![Tree::Leaf(1, false), Tree::Leaf(2, false)]),
            Tree::And(vec![Tree::Leaf(3, false)]),
        ]));
        assert_eq!(
            t,
            Tree::Or(vec![
                Tree::Leaf(1, false),
                Tree::Leaf(2, false),
                Tree::And(vec![Tree::Leaf(3, false)])
            ])
        );
    }
}
