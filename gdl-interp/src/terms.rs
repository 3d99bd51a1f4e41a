//! Hash-consed ground terms: every distinct ground term has one [`TermId`], so equality of
//! terms is equality of ids.

use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::ast::{Sym, Symbols};

/// A ground term in a [`TermStore`].
pub type TermId = u32;

/// A slot of the store's hash table: the high half of a term's hash and where its record
/// starts (`EMPTY`: a free slot).
#[derive(Clone, Copy, Debug)]
struct Slot {
    tag: u32,
    start: u32,
}

const EMPTY: u32 = u32::MAX;

/// A term's record in `TermStore::data`: functor, arity, id, then the arguments.
const HEADER: usize = 3;

/// The store of ground terms. Terms are only ever added.
///
/// Laid out for lookups in a store of millions of terms, where each memory access is a cache
/// miss (ruleDepthExponential looks up millions of atoms of 20 arguments): a slot of the
/// open-addressed table holds a tag of the hash and the start of the term's record, and the
/// record holds the functor, arity and id beside the arguments, so that a lookup reads one slot
/// and one record (hashbrown's control bytes, its bucket, a node and the arguments were four
/// places).
#[derive(Clone, Debug, Default)]
pub struct TermStore {
    /// Where each term's record starts in `data`, by id.
    starts: Vec<u32>,
    data: Vec<u32>,
    /// Linear probing; its length a power of two (or 0), at most 5/8 full.
    slots: Vec<Slot>,
}

fn hash_node(functor: Sym, args: &[TermId]) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    functor.0.hash(&mut h);
    args.hash(&mut h);
    h.finish()
}

impl TermStore {
    pub fn functor(&self, id: TermId) -> Sym {
        Sym(self.data[self.starts[id as usize] as usize])
    }

    pub fn args(&self, id: TermId) -> &[TermId] {
        let s = self.starts[id as usize] as usize;
        let n = self.data[s + 1] as usize;
        &self.data[s + HEADER..s + HEADER + n]
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The id of `functor(args)` (a constant when `args` is empty), if it exists.
    pub fn get(&self, functor: Sym, args: &[TermId]) -> Option<TermId> {
        if self.slots.is_empty() {
            return None;
        }
        self.find(hash_node(functor, args), functor, args).ok()
    }

    /// The ids of `functor(k)` for each key `k` of `keys` (`width` ids each, `width` > 0),
    /// appended to `out` in order: [`Self::get`] of each, with the memory reads of the whole
    /// batch issued before the first is compared, so that their cache misses overlap (a lookup
    /// alone waits for its slot, then for its record: ruleDepthExponential's millions of head
    /// atoms of 20 arguments).
    pub fn get_many(
        &self,
        functor: Sym,
        width: usize,
        keys: &[TermId],
        out: &mut Vec<Option<TermId>>,
    ) {
        let width = width.max(1);
        if self.slots.is_empty() {
            out.extend(keys.chunks(width).map(|_| None));
            return;
        }
        let mask = self.slots.len() - 1;
        let hashes: smallvec::SmallVec<[u64; 64]> =
            keys.chunks(width).map(|k| hash_node(functor, k)).collect();
        // Each key's first slot, then the record it points to: independent reads.
        let mut touched = 0u32;
        for &h in &hashes {
            touched ^= self.slots[h as usize & mask].tag;
        }
        for &h in &hashes {
            let start = self.slots[h as usize & mask].start;
            if start != EMPTY {
                touched ^= self.data[start as usize];
            }
        }
        std::hint::black_box(touched);
        for (k, &h) in keys.chunks(width).zip(&hashes) {
            out.push(self.find(h, functor, k).ok());
        }
    }

    /// The id of `functor(args)` (hashed to `hash`), or the free slot where it would go.
    #[inline]
    fn find(&self, hash: u64, functor: Sym, args: &[TermId]) -> Result<TermId, usize> {
        let mask = self.slots.len() - 1;
        let tag = (hash >> 32) as u32;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.start == EMPTY {
                return Err(i);
            }
            if slot.tag == tag {
                let s = slot.start as usize;
                let (head, rest) = self.data[s..].split_at(HEADER);
                // Compared element by element: the slices are short, a call to `memcmp`
                // costs more than the comparison.
                if head[0] == functor.0
                    && head[1] as usize == args.len()
                    && rest[..args.len()].iter().zip(args).all(|(a, b)| a == b)
                {
                    return Ok(head[2]);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `functor(args)`, added if new.
    pub fn intern(&mut self, functor: Sym, args: &[TermId]) -> TermId {
        if (self.starts.len() + 1) * 8 > self.slots.len() * 5 {
            self.grow();
        }
        let hash = hash_node(functor, args);
        let free = match self.find(hash, functor, args) {
            Ok(id) => return id,
            Err(free) => free,
        };
        let id = self.starts.len() as TermId;
        let start = self.data.len() as u32;
        self.starts.push(start);
        self.data
            .extend_from_slice(&[functor.0, args.len() as u32, id]);
        self.data.extend_from_slice(args);
        self.slots[free] = Slot {
            tag: (hash >> 32) as u32,
            start,
        };
        id
    }

    /// Doubles the table (at least 16 slots) and places every term again.
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(16);
        self.slots = vec![
            Slot {
                tag: 0,
                start: EMPTY,
            };
            len
        ];
        let mask = len - 1;
        for &start in &self.starts {
            let s = start as usize;
            let n = self.data[s + 1] as usize;
            let hash = hash_node(Sym(self.data[s]), &self.data[s + HEADER..s + HEADER + n]);
            let mut i = hash as usize & mask;
            while self.slots[i].start != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = Slot {
                tag: (hash >> 32) as u32,
                start,
            };
        }
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
    fn a_batch_of_lookups_finds_what_each_lookup_finds() {
        let mut symbols = Symbols::default();
        let (f, g) = (symbols.intern("f"), symbols.intern("g"));
        let mut s = TermStore::default();
        let mut out = Vec::new();
        s.get_many(f, 2, &[0, 0], &mut out);
        assert_eq!(out, [None], "an empty store");
        let c: Vec<TermId> = (0..50)
            .map(|i| s.intern(symbols.intern(&i.to_string()), &[]))
            .collect();
        for i in 0..50 {
            s.intern(f, &[c[i], c[(i * 7) % 50]]);
        }
        s.intern(g, &[c[1], c[7]]);
        let keys: Vec<TermId> = (0..50)
            .flat_map(|i| [c[i], c[(i * 7 + i % 2) % 50]])
            .collect();
        out.clear();
        s.get_many(f, 2, &keys, &mut out);
        let each: Vec<Option<TermId>> = keys.chunks(2).map(|k| s.get(f, k)).collect();
        assert_eq!(out, each);
        assert_eq!(out.iter().filter(|x| x.is_some()).count(), 25);
        out.clear();
        s.get_many(g, 2, &[c[1], c[7]], &mut out);
        assert_eq!(out, [s.get(g, &[c[1], c[7]])]);
        assert!(out[0].is_some());
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
