//! The set of states seen, each numbered in the order it was first inserted: an open-addressing
//! table of numbers into one vector of states, so that every state is stored once.

use std::hash::{Hash, Hasher};

/// A slot holding no state.
const EMPTY: u32 = u32::MAX;

/// States numbered from 0 in insertion order, found again by value. Each state's hash is
/// kept: growing does not hash again, and a probe compares hashes before states.
pub(super) struct StateTable<S> {
    states: Vec<S>,
    hashes: Vec<u64>,
    slots: Vec<u32>,
}

impl<S: Hash + Eq + Clone> StateTable<S> {
    pub fn new() -> Self {
        StateTable {
            states: Vec::new(),
            hashes: Vec::new(),
            slots: vec![EMPTY; 1024],
        }
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn get(&self, i: u32) -> &S {
        &self.states[i as usize]
    }

    /// The number of `s` (whose hash is `hash`, [`hash_of`]), if it is in the table. Reads
    /// only: the threads that expand states look their successors up at once.
    pub fn find(&self, s: &S, hash: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match self.slots[i] {
                EMPTY => return None,
                n if self.hashes[n as usize] == hash && self.states[n as usize] == *s => {
                    return Some(n);
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The number of `s`, and whether it was inserted now. `None` when the table is full (more
    /// than `u32::MAX - 1` states).
    pub fn insert(&mut self, s: &S) -> Option<(u32, bool)> {
        self.insert_hashed(s, hash_of(s))
    }

    /// [`StateTable::insert`] of `s` whose hash is `hash` ([`hash_of`]).
    pub fn insert_hashed(&mut self, s: &S, hash: u64) -> Option<(u32, bool)> {
        if (self.states.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match self.slots[i] {
                EMPTY => {
                    let n = u32::try_from(self.states.len())
                        .ok()
                        .filter(|&n| n != EMPTY)?;
                    self.slots[i] = n;
                    self.states.push(s.clone());
                    self.hashes.push(hash);
                    return Some((n, true));
                }
                n if self.hashes[n as usize] == hash && self.states[n as usize] == *s => {
                    return Some((n, false));
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let mask = size - 1;
        let mut slots = vec![EMPTY; size];
        for (n, &h) in self.hashes.iter().enumerate() {
            let mut i = h as usize & mask;
            while slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = n as u32;
        }
        self.slots = slots;
    }
}

/// The hash of a state in the table.
pub(super) fn hash_of<S: Hash>(s: &S) -> u64 {
    let mut h = WordHasher(0);
    s.hash(&mut h);
    h.finish()
}

/// A fast hasher for states (words of bits, vectors of term numbers): each word folded in
/// with a multiply, the result mixed at the end so that the low bits (the slot) depend on all.
struct WordHasher(u64);

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ (rest.len() as u64) << 56);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // The finaliser of MurmurHash3.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_states_in_insertion_order() {
        let mut t = StateTable::new();
        for i in 0..5000u64 {
            assert_eq!(t.insert(&[i, i * 3]), Some((i as u32, true)));
        }
        for i in (0..5000u64).rev() {
            assert_eq!(t.insert(&[i, i * 3]), Some((i as u32, false)));
        }
        assert_eq!(t.len(), 5000);
        assert_eq!(t.get(17), &[17, 51]);
        assert_eq!(t.find(&[17, 51], hash_of(&[17u64, 51])), Some(17));
        assert_eq!(t.find(&[17, 52], hash_of(&[17u64, 52])), None);
    }
}
