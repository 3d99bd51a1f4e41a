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

/// A set of tuples of terms, all of one width, stored flat (one allocation for all of them,
/// none per tuple): the heads a join finds, deduplicated before they are interned. Iterated in
/// the order of its hash table, which is the order a `HashSet<Vec<TermId>>` with the same
/// hasher (Fx) would visit the same insertions in.
#[derive(Clone, Debug)]
pub struct TupleSet {
    width: usize,
    data: Vec<TermId>,
    table: HashTable<u32>,
}

/// The hash of a tuple: that of a `Vec<TermId>` of its elements under Fx.
fn hash_tuple(t: &[TermId]) -> u64 {
    FxBuildHasher.hash_one(t)
}

impl TupleSet {
    /// An empty set of tuples of `width` terms.
    pub fn new(width: usize) -> TupleSet {
        TupleSet {
            width,
            data: Vec::new(),
            table: HashTable::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    fn tuple(data: &[TermId], width: usize, i: u32) -> &[TermId] {
        &data[i as usize * width..(i as usize + 1) * width]
    }

    /// Adds `t` (of the set's width); false if it was there.
    pub fn insert(&mut self, t: &[TermId]) -> bool {
        debug_assert_eq!(t.len(), self.width);
        let (width, data) = (self.width, &self.data);
        let n = self.table.len() as u32;
        let entry = self.table.entry(
            hash_tuple(t),
            // Element by element: the tuples are short, a call to `memcmp` costs more.
            |&i| {
                Self::tuple(data, width, i)
                    .iter()
                    .zip(t)
                    .all(|(a, b)| a == b)
            },
            |&i| hash_tuple(Self::tuple(data, width, i)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(n);
                self.data.extend_from_slice(t);
                true
            }
        }
    }

    /// The tuples, in the order of the hash table (see [`TupleSet`]).
    pub fn iter(&self) -> impl Iterator<Item = &[TermId]> + '_ {
        self.table
            .iter()
            .map(|&i| Self::tuple(&self.data, self.width, i))
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

    #[test]
    fn a_tuple_set_visits_its_tuples_as_a_hash_set_of_vectors_would() {
        let mut set = TupleSet::new(3);
        let mut reference: rustc_hash::FxHashSet<Vec<TermId>> = Default::default();
        for k in 0..5_000u32 {
            let t = [k % 97, k % 13, k / 7];
            assert_eq!(set.insert(&t), reference.insert(t.to_vec()));
        }
        assert_eq!(set.len(), reference.len());
        let ours: Vec<Vec<TermId>> = set.iter().map(<[TermId]>::to_vec).collect();
        let theirs: Vec<Vec<TermId>> = reference.into_iter().collect();
        assert_eq!(ours, theirs);
        let mut empty = TupleSet::new(0);
        assert!(empty.insert(&[]));
        assert!(!empty.insert(&[]));
        assert_eq!(empty.iter().count(), 1);
    }
}
