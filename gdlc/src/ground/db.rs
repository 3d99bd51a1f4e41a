//! The grounder's database of ground atoms: insertion sequence numbers and indexes per
//! argument, per compound shape and per argument of a compound argument (the `1` of
//! `(true (cell 1 ?y ?p))`), read by the joins of [`super::join`].

use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

use crate::ast::Sym;
use crate::terms::{TermId, TermStore};

/// A relation: name and arity.
pub type RelKey = (Sym, u32);

const ABSENT: u32 = u32::MAX;

/// A set of ground atoms with insertion order and indexes.
#[derive(Debug, Default)]
pub struct Db {
    /// The insertion number of each term that is an atom of the database, by term id.
    pub(super) seq: Vec<u32>,
    count: u32,
    /// The atoms of each relation, in insertion order.
    by_rel: HashMap<RelKey, Vec<TermId>>,
    /// The atoms of each relation with a given argument at a given position, in insertion
    /// order.
    by_arg: HashMap<(RelKey, u32, TermId), Vec<TermId>>,
    /// The number of distinct arguments at each position of each relation.
    distinct: HashMap<(RelKey, u32), u32>,
    /// The atoms of each relation with a compound argument of a given functor and arity at a
    /// given position (`does` atoms by the kind of move), in insertion order.
    by_shape: HashMap<(RelKey, u32, Sym, u32), Vec<TermId>>,
    /// The atoms of each relation whose compound argument at a given position, of a given
    /// functor, has a given argument at a given position (`(true (cell 1 ?y ?p))` with `1`
    /// bound reads the atoms `(true (cell 1 ..))` only), in insertion order.
    by_sub: HashMap<SubKey, Vec<TermId>>,
    /// The number of distinct arguments at each position of each compound argument shape.
    distinct_sub: HashMap<(RelKey, u32, Sym, u32), u32>,
    /// Composite indexes, made on demand ([`Db::ensure_index`]): for a relation and a set of
    /// argument positions (a bit mask), the atoms with given arguments there (in position
    /// order), in insertion order.
    composite: HashMap<(RelKey, u64), HashMap<IndexKey, Vec<TermId>>>,
    /// The position sets of the composite indexes of each relation.
    composite_masks: HashMap<RelKey, Vec<u64>>,
}

/// The arguments of an atom at the positions of a composite index, in position order.
pub type IndexKey = SmallVec<[TermId; 4]>;

/// The arguments of `args` at the positions of `mask`.
fn index_key(args: &[TermId], mask: u64) -> IndexKey {
    args.iter()
        .enumerate()
        .filter(|&(pos, _)| pos < 64 && mask >> pos & 1 == 1)
        .map(|(_, &a)| a)
        .collect()
}

/// An argument of a compound argument: relation, position, functor of the compound,
/// position inside it, and the argument there.
type SubKey = (RelKey, u32, Sym, u32, TermId);

impl Db {
    /// Adds `atom` (of relation `rel`); false if it was there.
    pub fn insert(&mut self, store: &TermStore, rel: RelKey, atom: TermId) -> bool {
        let i = atom as usize;
        if i >= self.seq.len() {
            self.seq.resize((i + 1).max(self.seq.len() * 2), ABSENT);
        }
        if self.seq[i] != ABSENT {
            return false;
        }
        self.seq[i] = self.count;
        self.count += 1;
        self.by_rel.entry(rel).or_default().push(atom);
        if let Some(masks) = self.composite_masks.get(&rel) {
            for &mask in masks {
                if let Some(index) = self.composite.get_mut(&(rel, mask)) {
                    index
                        .entry(index_key(store.args(atom), mask))
                        .or_default()
                        .push(atom);
                }
            }
        }
        for (pos, &arg) in store.args(atom).iter().enumerate() {
            let list = self.by_arg.entry((rel, pos as u32, arg)).or_default();
            if list.is_empty() {
                *self.distinct.entry((rel, pos as u32)).or_default() += 1;
            }
            list.push(atom);
            let sub = store.args(arg);
            if !sub.is_empty() {
                let f = store.functor(arg);
                let key = (rel, pos as u32, f, sub.len() as u32);
                self.by_shape.entry(key).or_default().push(atom);
                for (k, &x) in sub.iter().enumerate() {
                    let list = self
                        .by_sub
                        .entry((rel, pos as u32, f, k as u32, x))
                        .or_default();
                    if list.is_empty() {
                        *self
                            .distinct_sub
                            .entry((rel, pos as u32, f, k as u32))
                            .or_default() += 1;
                    }
                    list.push(atom);
                }
            }
        }
        true
    }

    /// Makes the composite index of `rel` over the argument positions of `mask` if there is
    /// none yet; it is kept up to date from then on.
    pub fn ensure_index(&mut self, store: &TermStore, rel: RelKey, mask: u64) {
        if self.composite.contains_key(&(rel, mask)) {
            return;
        }
        let mut index: HashMap<IndexKey, Vec<TermId>> = HashMap::default();
        for &atom in self.atoms(rel) {
            index
                .entry(index_key(store.args(atom), mask))
                .or_default()
                .push(atom);
        }
        self.composite.insert((rel, mask), index);
        self.composite_masks.entry(rel).or_default().push(mask);
    }

    /// The atoms of `rel` whose arguments at the positions of `mask` are `key`, in insertion
    /// order; `None` when there is no such index.
    pub fn atoms_indexed(&self, rel: RelKey, mask: u64, key: &[TermId]) -> Option<&[TermId]> {
        let index = self.composite.get(&(rel, mask))?;
        Some(index.get(key).map_or(&[][..], Vec::as_slice))
    }

    /// The atoms of `rel` whose argument at `pos` is a compound of `functor` with `arg` at
    /// position `sub` (of any arity), in insertion order.
    pub fn atoms_with_sub(
        &self,
        rel: RelKey,
        pos: u32,
        functor: Sym,
        sub: u32,
        arg: TermId,
    ) -> &[TermId] {
        self.by_sub
            .get(&(rel, pos, functor, sub, arg))
            .map_or(&[][..], Vec::as_slice)
    }

    /// The number of distinct arguments at position `sub` of the compound arguments of
    /// `functor` at position `pos` of `rel`.
    pub fn distinct_sub_args(&self, rel: RelKey, pos: u32, functor: Sym, sub: u32) -> u32 {
        self.distinct_sub
            .get(&(rel, pos, functor, sub))
            .copied()
            .unwrap_or(0)
    }

    /// The atoms of `rel` with a compound argument `functor(..)` of `arity` arguments at
    /// `pos`, in insertion order.
    pub fn atoms_shaped(&self, rel: RelKey, pos: u32, functor: Sym, arity: u32) -> &[TermId] {
        self.by_shape
            .get(&(rel, pos, functor, arity))
            .map_or(&[][..], Vec::as_slice)
    }

    /// The number of distinct arguments at position `pos` of `rel`.
    pub fn distinct_args(&self, rel: RelKey, pos: u32) -> u32 {
        self.distinct.get(&(rel, pos)).copied().unwrap_or(0)
    }

    /// The atoms of `rel` whose argument at `pos` is `arg`, in insertion order.
    pub fn atoms_with(&self, rel: RelKey, pos: u32, arg: TermId) -> &[TermId] {
        self.by_arg
            .get(&(rel, pos, arg))
            .map_or(&[][..], Vec::as_slice)
    }

    /// The insertion number of an atom of the database.
    pub fn seq(&self, atom: TermId) -> Option<u32> {
        self.seq
            .get(atom as usize)
            .copied()
            .filter(|&s| s != ABSENT)
    }

    /// Whether the database holds `atom`.
    pub fn contains(&self, atom: TermId) -> bool {
        self.seq.get(atom as usize).is_some_and(|&s| s != ABSENT)
    }

    /// The number of atoms inserted so far: the end of the current window.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The atoms of `rel`, in insertion order.
    pub fn atoms(&self, rel: RelKey) -> &[TermId] {
        self.by_rel.get(&rel).map_or(&[], Vec::as_slice)
    }

    /// Every relation with at least one atom.
    pub fn relations(&self) -> impl Iterator<Item = RelKey> + '_ {
        self.by_rel.keys().copied()
    }

    /// Removes the atoms of `rels` inserted at or after `mark` (a count from
    /// [`Db::count`]); atoms of other relations must not have been inserted since.
    pub fn truncate(&mut self, store: &TermStore, rels: &[RelKey], mark: u32) {
        for &rel in rels {
            let Some(list) = self.by_rel.get_mut(&rel) else {
                continue;
            };
            let mut removed = Vec::new();
            while let Some(&a) = list.last() {
                if self.seq[a as usize] < mark {
                    break;
                }
                list.pop();
                removed.push(a);
            }
            for a in removed {
                self.seq[a as usize] = ABSENT;
                for &mask in self.composite_masks.get(&rel).into_iter().flatten() {
                    if let Some(index) = self.composite.get_mut(&(rel, mask)) {
                        let key = index_key(store.args(a), mask);
                        if let Some(l) = index.get_mut(&key) {
                            l.pop();
                            if l.is_empty() {
                                index.remove(&key);
                            }
                        }
                    }
                }
                for (pos, &arg) in store.args(a).iter().enumerate() {
                    let key = (rel, pos as u32, arg);
                    if let Some(l) = self.by_arg.get_mut(&key) {
                        l.pop();
                        if l.is_empty() {
                            self.by_arg.remove(&key);
                            if let Some(d) = self.distinct.get_mut(&(rel, pos as u32)) {
                                *d -= 1;
                            }
                        }
                    }
                    let sub = store.args(arg);
                    if !sub.is_empty() {
                        let f = store.functor(arg);
                        let key = (rel, pos as u32, f, sub.len() as u32);
                        if let Some(l) = self.by_shape.get_mut(&key) {
                            l.pop();
                        }
                        for (k, &x) in sub.iter().enumerate() {
                            let key = (rel, pos as u32, f, k as u32, x);
                            if let Some(l) = self.by_sub.get_mut(&key) {
                                l.pop();
                                if l.is_empty() {
                                    self.by_sub.remove(&key);
                                    if let Some(d) =
                                        self.distinct_sub.get_mut(&(rel, pos as u32, f, k as u32))
                                    {
                                        *d -= 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        self.count = self.count.min(mark);
    }

    /// Whether `rel` has an atom inserted within `lo..hi`.
    pub fn has_in_window(&self, rel: RelKey, lo: u32, hi: u32) -> bool {
        let atoms = self.atoms(rel);
        let start = atoms.partition_point(|&a| self.seq[a as usize] < lo);
        atoms.get(start).is_some_and(|&a| self.seq[a as usize] < hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Symbols;

    #[test]
    fn a_composite_index_follows_insertions_and_truncation() {
        let mut symbols = Symbols::default();
        let mut store = TermStore::default();
        let cell = symbols.intern("cell");
        let rel: RelKey = (cell, 3);
        let c: Vec<TermId> = ["1", "2", "x", "o"]
            .iter()
            .map(|n| store.intern(symbols.intern(n), &[]))
            .collect();
        let mut db = Db::default();
        let atom = |db: &mut Db, store: &mut TermStore, args: [TermId; 3]| {
            let a = store.intern(cell, &args);
            db.insert(store, rel, a);
            a
        };
        let a = atom(&mut db, &mut store, [c[0], c[1], c[2]]);
        let b = atom(&mut db, &mut store, [c[0], c[0], c[2]]);
        // Positions 0 and 2.
        let mask = 0b101;
        assert_eq!(db.atoms_indexed(rel, mask, &[c[0], c[2]]), None);
        db.ensure_index(&store, rel, mask);
        assert_eq!(
            db.atoms_indexed(rel, mask, &[c[0], c[2]]),
            Some(&[a, b][..])
        );
        let mark = db.count();
        let d = atom(&mut db, &mut store, [c[0], c[1], c[2]]);
        assert_eq!(d, a, "the same atom again");
        let e = atom(&mut db, &mut store, [c[0], c[1], c[3]]);
        assert_eq!(db.atoms_indexed(rel, mask, &[c[0], c[3]]), Some(&[e][..]));
        db.truncate(&store, &[rel], mark);
        assert_eq!(db.atoms_indexed(rel, mask, &[c[0], c[3]]), Some(&[][..]));
        assert_eq!(
            db.atoms_indexed(rel, mask, &[c[0], c[2]]),
            Some(&[a, b][..])
        );
    }
}
