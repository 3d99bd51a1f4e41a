//! Hash-consed ground terms: every distinct ground term has one [`TermId`], so equality of
//! terms is equality of ids.

use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::ast::{Sym, Symbols};

/// A ground term in a [`TermStore`].
pub type TermId = u32;

#[derive(Clone, Copy, Debug)]
struct Node {
    functor: Sym,
    args_start: u32,
    arity: u32,
}

/// The store of ground terms. Terms are only ever added.
#[derive(Clone, Debug, Default)]
pub struct TermStore {
    nodes: Vec<Node>,
    args: Vec<TermId>,
    table: HashTable<TermId>,
}

fn hash_node(functor: Sym, args: &[TermId]) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    functor.0.hash(&mut h);
    args.hash(&mut h);
    h.finish()
}

impl TermStore {
    pub fn functor(&self, id: TermId) -> Sym {
        self.nodes[id as usize].functor
    }

    pub fn args(&self, id: TermId) -> &[TermId] {
        let n = self.nodes[id as usize];
        &self.args[n.args_start as usize..(n.args_start + n.arity) as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The id of `functor(args)` (a constant when `args` is empty), if it exists.
    pub fn get(&self, functor: Sym, args: &[TermId]) -> Option<TermId> {
        let hash = hash_node(functor, args);
        self.table
            .find(hash, |&id| {
                // Compared element by element: the slices are short, a call to `memcmp` costs
                // more than the comparison.
                let found = self.args(id);
                self.functor(id) == functor
                    && found.len() == args.len()
                    && found.iter().zip(args).all(|(a, b)| a == b)
            })
            .copied()
    }

    /// The id of `functor(args)`, added if new.
    pub fn intern(&mut self, functor: Sym, args: &[TermId]) -> TermId {
        if let Some(id) = self.get(functor, args) {
            return id;
        }
        let id = self.nodes.len() as TermId;
        self.nodes.push(Node {
            functor,
            args_start: self.args.len() as u32,
            arity: args.len() as u32,
        });
        self.args.extend_from_slice(args);
        let (nodes, all_args) = (&self.nodes, &self.args);
        self.table
            .insert_unique(hash_node(functor, args), id, |&t| {
                let n = nodes[t as usize];
                hash_node(
                    n.functor,
                    &all_args[n.args_start as usize..(n.args_start + n.arity) as usize],
                )
            });
        id
    }

    /// Appends the KIF text of a term, e.g. `(cell 1 1 b)`.
    pub fn write(&self, symbols: &Symbols, id: TermId, out: &mut String) {
        out.push_str(if self.args(id).is_empty() { "" } else { "(" });
        out.push_str(symbols.name(self.functor(id)));
        let args = self.args(id);
        if args.is_empty() {
            return;
        }
        for &a in args {
            out.push(' ');
            self.write(symbols, a, out);
        }
        out.push(')');
    }

    pub fn text(&self, symbols: &Symbols, id: TermId) -> String {
        let mut s = String::new();
        self.write(symbols, id, &mut s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_terms_share_an_id() {
        let mut symbols = Symbols::default();
        let (f, a) = (symbols.intern("f"), symbols.intern("a"));
        let mut s = TermStore::default();
        let ca = s.intern(a, &[]);
        let t1 = s.intern(f, &[ca, ca]);
        let t2 = s.intern(f, &[ca, ca]);
        assert_eq!(t1, t2);
        assert_ne!(s.intern(f, &[ca]), t1);
        assert_eq!(s.get(f, &[ca, ca]), Some(t1));
        assert_eq!(s.text(&symbols, t1), "(f a a)");
    }
}
