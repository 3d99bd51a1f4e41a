//! A relation: a set of rows of ground terms, appended in order, with hash indexes on the
//! argument positions that rule bodies look up by.

use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::terms::TermId;

/// Marks the end of an index chain.
pub const NIL: u32 = u32::MAX;

/// A set of the argument positions that are bound when a relation is looked up.
pub type Mask = u64;

/// Whether position `k` is in `mask`.
pub fn has(mask: Mask, k: usize) -> bool {
    k < 64 && (mask >> k) & 1 == 1
}

fn hash_key(row: &[TermId], mask: Mask) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    for (i, t) in row.iter().enumerate() {
        if has(mask, i) {
            t.hash(&mut h);
        }
    }
    h.finish()
}

fn same_key(a: &[TermId], b: &[TermId], mask: Mask) -> bool {
    a.iter()
        .zip(b)
        .enumerate()
        .all(|(i, (x, y))| !has(mask, i) || x == y)
}

/// An index on some positions: each key's rows are chained newest first through `next`.
#[derive(Clone, Debug)]
struct Index {
    mask: Mask,
    /// (a row with this key, the newest row with this key).
    heads: HashTable<(u32, u32)>,
    next: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Relation {
    arity: usize,
    data: Vec<TermId>,
    rows: HashTable<u32>,
    indexes: Vec<Index>,
}

impl Relation {
    pub fn new(arity: usize) -> Self {
        Relation {
            arity,
            data: Vec::new(),
            rows: HashTable::new(),
            indexes: Vec::new(),
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.data
            .len()
            .checked_div(self.arity)
            .unwrap_or(self.rows.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn row(&self, i: u32) -> &[TermId] {
        let s = i as usize * self.arity;
        &self.data[s..s + self.arity]
    }

    pub fn clear(&mut self) {
        self.data.clear();
        self.rows.clear();
        for ix in &mut self.indexes {
            ix.heads.clear();
            ix.next.clear();
        }
    }

    pub fn contains(&self, row: &[TermId]) -> bool {
        let hash = hash_key(row, Mask::MAX);
        self.rows.find(hash, |&r| self.row(r) == row).is_some()
    }

    /// Adds `row`; false when it was already there.
    pub fn insert(&mut self, row: &[TermId]) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        let hash = hash_key(row, Mask::MAX);
        if self.rows.find(hash, |&r| self.row(r) == row).is_some() {
            return false;
        }
        let id = self.len() as u32;
        self.data.extend_from_slice(row);
        let (data, arity) = (&self.data, self.arity);
        let row_of = |r: u32| &data[r as usize * arity..(r as usize + 1) * arity];
        self.rows
            .insert_unique(hash, id, |&r| hash_key(row_of(r), Mask::MAX));
        for ix in &mut self.indexes {
            index_row(ix, data, arity, id);
        }
        true
    }

    /// Makes sure an index on `mask` exists; returns its number.
    pub fn ensure_index(&mut self, mask: Mask) -> usize {
        if let Some(i) = self.indexes.iter().position(|ix| ix.mask == mask) {
            return i;
        }
        let mut ix = Index {
            mask,
            heads: HashTable::new(),
            next: Vec::new(),
        };
        for r in 0..self.len() as u32 {
            index_row(&mut ix, &self.data, self.arity, r);
        }
        self.indexes.push(ix);
        self.indexes.len() - 1
    }

    /// The index number for `mask`, if built.
    pub fn index_of(&self, mask: Mask) -> Option<usize> {
        self.indexes.iter().position(|ix| ix.mask == mask)
    }

    /// The rows whose `mask` positions equal those of `key` (a full-width row whose other
    /// positions are ignored), newest first.
    /// The newest row of `key` in index `index`, or [`NIL`]; older ones follow through
    /// [`Relation::older`]. (The cursor form of [`Relation::lookup`], which holds no borrow.)
    pub fn lookup_first(&self, index: usize, key: &[TermId]) -> u32 {
        self.lookup(index, key).cur
    }

    /// The row after `r` in the chain of its key in index `index`, or [`NIL`].
    pub fn older(&self, index: usize, r: u32) -> u32 {
        self.indexes[index].next[r as usize]
    }

    pub fn lookup<'a>(&'a self, index: usize, key: &[TermId]) -> RowIter<'a> {
        let ix = &self.indexes[index];
        let hash = hash_key(key, ix.mask);
        let head = ix
            .heads
            .find(hash, |&(rep, _)| same_key(self.row(rep), key, ix.mask))
            .map_or(NIL, |&(_, newest)| newest);
        RowIter {
            next: &ix.next,
            cur: head,
        }
    }
}

fn index_row(ix: &mut Index, data: &[TermId], arity: usize, r: u32) {
    let row_of = |r: u32| &data[r as usize * arity..(r as usize + 1) * arity];
    let row = row_of(r);
    let hash = hash_key(row, ix.mask);
    let mask = ix.mask;
    ix.next.push(NIL);
    match ix
        .heads
        .find_mut(hash, |&(rep, _)| same_key(row_of(rep), row, mask))
    {
        Some(entry) => {
            ix.next[r as usize] = entry.1;
            entry.1 = r;
        }
        None => {
            ix.heads
                .insert_unique(hash, (r, r), |&(rep, _)| hash_key(row_of(rep), mask));
        }
    }
}

/// Row numbers of one index key, in decreasing order.
pub struct RowIter<'a> {
    next: &'a [u32],
    cur: u32,
}

impl Iterator for RowIter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.cur == NIL {
            return None;
        }
        let r = self.cur;
        self.cur = self.next[r as usize];
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_dedupes_and_indexes_find_rows() {
        let mut r = Relation::new(2);
        assert!(r.insert(&[1, 2]));
        assert!(r.insert(&[1, 3]));
        assert!(!r.insert(&[1, 2]));
        let ix = r.ensure_index(0b01);
        assert!(r.insert(&[4, 2]));
        let rows: Vec<u32> = r.lookup(ix, &[1, 0]).collect();
        assert_eq!(rows, vec![1, 0]);
        assert_eq!(r.lookup(ix, &[4, 0]).count(), 1);
        assert_eq!(r.lookup(ix, &[9, 0]).count(), 0);
        assert!(r.contains(&[4, 2]) && !r.contains(&[2, 4]));
        r.clear();
        assert!(r.is_empty() && r.lookup(ix, &[1, 0]).next().is_none());
    }

    #[test]
    fn zero_arity_relations_hold_or_not() {
        let mut r = Relation::new(0);
        assert!(r.is_empty());
        assert!(r.insert(&[]));
        assert!(!r.insert(&[]));
        assert_eq!(r.len(), 1);
        assert!(r.contains(&[]));
    }
}
