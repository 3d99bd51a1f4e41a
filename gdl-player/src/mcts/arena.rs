//! The node store's arenas: items handed out in blocks of a power of two by a buddy
//! allocator, held in chunks of fixed size that never move. The arena grows a chunk at a time
//! and never copies what it holds (a search is not stalled by a growing tree), and freed
//! blocks merge with their free buddies, so a block of any size can be made again from them.
//!
//! An item is known by a flat index: chunk `index >> CHUNK_BITS`, offset `index & MASK`. A
//! block of at most a chunk lies in one chunk; a larger block has a chunk of its own, as long
//! as the block, at the index of its first item (the indices it covers past that hold nothing).
//! Items are read and written by block: [`Chunks::block`] with the block's first index.

/// Items per chunk, as a power of two.
const CHUNK_BITS: usize = 14;
const CHUNK: usize = 1 << CHUNK_BITS;
const MASK: usize = CHUNK - 1;

/// The mark of an index that starts no free block.
const TAKEN: u8 = u8::MAX;

/// Items in chunks that never move, addressed by flat index and read by block.
pub(super) struct Chunks<T> {
    chunks: Vec<Box<[T]>>,
}

impl<T: Copy> Chunks<T> {
    pub(super) fn new() -> Self {
        Chunks { chunks: Vec::new() }
    }

    /// Makes room for a block of `n` items from `start`, new items set to `fill`.
    pub(super) fn ensure(&mut self, start: u32, n: usize, fill: T) {
        let (c, o) = split(start);
        if self.chunks.len() <= c {
            self.chunks.resize_with(c + 1, Box::default);
        }
        let chunk = &mut self.chunks[c];
        let need = (o + n).max(CHUNK);
        if chunk.len() < need {
            let mut items = std::mem::take(chunk).into_vec();
            items.resize(need, fill);
            *chunk = items.into_boxed_slice();
        }
    }

    /// The block of `n` items from `start` (or part of a block: from an index inside it).
    #[inline]
    pub(super) fn block(&self, start: u32, n: usize) -> &[T] {
        let (c, o) = split(start);
        match self.chunks.get(c).and_then(|items| items.get(o..o + n)) {
            Some(items) => items,
            None => {
                let (c, o) = self.inside_large(start);
                &self.chunks[c][o..o + n]
            }
        }
    }

    #[inline]
    pub(super) fn block_mut(&mut self, start: u32, n: usize) -> &mut [T] {
        let (c, o) = split(start);
        if self.chunks.get(c).is_none_or(|items| o + n > items.len()) {
            let (c, o) = self.inside_large(start);
            return &mut self.chunks[c][o..o + n];
        }
        &mut self.chunks[c][o..o + n]
    }

    /// The chunk and offset of `index` inside a block larger than a chunk: the indices past
    /// the block's first chunk hold nothing (or are past the chunks made), the block is in the
    /// last chunk before them that holds items.
    #[cold]
    fn inside_large(&self, index: u32) -> (usize, usize) {
        let mut c = split(index).0.min(self.chunks.len().saturating_sub(1));
        while c > 0 && self.chunks[c].is_empty() {
            c -= 1;
        }
        (c, index as usize - (c << CHUNK_BITS))
    }
}

#[inline]
fn split(index: u32) -> (usize, usize) {
    let i = index as usize;
    (i >> CHUNK_BITS, i & MASK)
}

/// The size class of a block of `n` items: the exponent of the power of two it takes.
fn class(n: usize) -> usize {
    n.max(1).next_power_of_two().trailing_zeros() as usize
}

/// Items handed out in blocks of a power of two.
pub(super) struct Arena<T> {
    pub(super) items: Chunks<T>,
    /// Per index: the class of the free block that starts there, or [`TAKEN`].
    marks: Chunks<u8>,
    /// Per class, the first indices of free blocks. An entry whose mark no longer says so is
    /// stale (the block merged with its buddy, or was taken through another entry): skipped.
    free: Vec<Vec<u32>>,
    /// Per class, the free blocks (the entries of `free` that are not stale, counted once).
    free_blocks: Vec<usize>,
    /// The indices handed out so far (a multiple of [`CHUNK`]).
    top: usize,
    /// Items in blocks handed out and not given back (each block counted at its size class).
    in_use: usize,
}

impl<T: Copy> Arena<T> {
    pub(super) fn new() -> Self {
        Arena {
            items: Chunks::new(),
            marks: Chunks::new(),
            free: Vec::new(),
            free_blocks: Vec::new(),
            top: 0,
            in_use: 0,
        }
    }

    /// Items in blocks handed out and not given back.
    pub(super) fn in_use(&self) -> usize {
        self.in_use
    }

    /// A block of `n` items, all `fill`: its first index. `None` once the arena's indices
    /// (`u32`) are used up.
    pub(super) fn alloc(&mut self, n: usize, fill: T) -> Option<u32> {
        let class = class(n);
        let start = match self.take(class) {
            Some(s) => s,
            None => self.grow(class)?,
        };
        self.in_use += 1 << class;
        self.items.ensure(start, 1 << class, fill);
        self.items.block_mut(start, n).fill(fill);
        Some(start)
    }

    /// Gives back the block of `n` items at `start`; it merges with its buddy while that is
    /// free (blocks of a chunk or less).
    pub(super) fn release(&mut self, start: u32, n: usize) {
        let mut class = class(n);
        let mut start = start;
        self.in_use -= 1 << class;
        while class < CHUNK_BITS {
            let buddy = start ^ (1 << class);
            if self.mark(buddy) != class as u8 {
                break;
            }
            self.set_mark(buddy, TAKEN);
            self.free_blocks[class] -= 1;
            start = start.min(buddy);
            class += 1;
        }
        self.put(start, class);
    }

    /// A free block of `class`, split from a larger one of the same chunk if need be.
    fn take(&mut self, class: usize) -> Option<u32> {
        let largest = if class <= CHUNK_BITS {
            CHUNK_BITS
        } else {
            class
        };
        for k in class..=largest {
            while let Some(s) = self.free.get_mut(k)?.pop() {
                if self.mark(s) != k as u8 {
                    continue;
                }
                self.set_mark(s, TAKEN);
                self.free_blocks[k] -= 1;
                for j in (class..k).rev() {
                    self.put(s + (1 << j), j);
                }
                return Some(s);
            }
        }
        None
    }

    /// A block of `class` from indices not handed out before: a new chunk (the rest of it
    /// free), or for a block larger than a chunk a chunk of its own.
    fn grow(&mut self, class: usize) -> Option<u32> {
        let size = (1usize << class).max(CHUNK);
        let start = u32::try_from(self.top).ok()?;
        u32::try_from(self.top + size - 1).ok()?;
        self.top += size;
        for j in (class..CHUNK_BITS).rev() {
            self.put(start + (1 << j), j);
        }
        Some(start)
    }

    /// Puts the block of `class` at `start` on the free list.
    fn put(&mut self, start: u32, class: usize) {
        if self.free.len() <= class {
            self.free.resize_with(class + 1, Vec::new);
            self.free_blocks.resize(class + 1, 0);
        }
        self.set_mark(start, class as u8);
        self.free[class].push(start);
        self.free_blocks[class] += 1;
        if self.free[class].len() > 2 * self.free_blocks[class] + 64 {
            self.drop_stale(class);
        }
    }

    /// Keeps one entry per free block of `class`.
    fn drop_stale(&mut self, class: usize) {
        let mut list = std::mem::take(&mut self.free[class]);
        list.retain(|&s| {
            let keep = self.mark(s) == class as u8;
            if keep {
                // Marked taken while the list is filtered: a second entry of it is dropped.
                self.set_mark(s, TAKEN);
            }
            keep
        });
        for &s in &list {
            self.set_mark(s, class as u8);
        }
        self.free[class] = list;
    }

    fn mark(&self, index: u32) -> u8 {
        let (c, o) = split(index);
        self.marks
            .chunks
            .get(c)
            .and_then(|m| m.get(o))
            .copied()
            .unwrap_or(TAKEN)
    }

    fn set_mark(&mut self, index: u32, mark: u8) {
        self.marks.ensure(index, 1, TAKEN);
        self.marks.block_mut(index, 1)[0] = mark;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks handed out never overlap, and hold what was written in them.
    #[test]
    fn blocks_do_not_overlap_and_keep_their_items() {
        let mut arena = Arena::new();
        let mut rng = gdl_runtime::SplitMix64::new(7);
        let mut live: Vec<(u32, usize, u32)> = Vec::new();
        for step in 0..20_000u32 {
            if live.len() > 200 || (!live.is_empty() && rng.next_u64() % 3 == 0) {
                let (start, n, tag) = live.swap_remove(rng.below(live.len()));
                assert!(arena.items.block(start, n).iter().all(|&x| x == tag));
                // A part of a block is read from an index inside it (past its first chunk
                // in a large block).
                let half = n / 2;
                let part = arena.items.block(start + half as u32, n - half);
                assert!(part.iter().all(|&x| x == tag));
                arena.release(start, n);
            } else {
                let n = 1 + rng.below(if step % 97 == 0 { 40_000 } else { 300 });
                let start = arena.alloc(n, step).expect("room");
                live.push((start, n, step));
            }
        }
        let mut spans: Vec<(usize, usize)> = live
            .iter()
            .map(|&(s, n, _)| (s as usize, s as usize + n))
            .collect();
        spans.sort_unstable();
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "{spans:?}");
        let held: usize = live.iter().map(|&(_, n, _)| n.next_power_of_two()).sum();
        assert_eq!(arena.in_use(), held);
    }

    /// Blocks given back merge: the space of many small blocks serves a large one.
    #[test]
    fn freed_small_blocks_merge_into_a_large_one() {
        let mut arena = Arena::new();
        let small: Vec<u32> = (0..CHUNK / 4)
            .map(|_| arena.alloc(4, 0u8).unwrap())
            .collect();
        assert_eq!(arena.top, CHUNK);
        for &s in &small {
            arena.release(s, 4);
        }
        assert_eq!(arena.in_use(), 0);
        assert_eq!(arena.alloc(CHUNK, 1).unwrap(), 0);
        assert_eq!(arena.top, CHUNK, "the chunk was used again, not a new one");
    }

    /// A block larger than a chunk has a chunk of its own, used again once given back.
    #[test]
    fn a_block_larger_than_a_chunk_is_held_whole() {
        let mut arena = Arena::new();
        let a = arena.alloc(3, 1u16).unwrap();
        let big = arena.alloc(CHUNK + 5, 2).unwrap();
        assert_eq!(big as usize % CHUNK, 0);
        assert!(arena.items.block(big, CHUNK + 5).iter().all(|&x| x == 2));
        assert_eq!(arena.items.block(a, 3), &[1, 1, 1]);
        arena.release(big, CHUNK + 5);
        assert_eq!(arena.alloc(CHUNK + 1, 3), Some(big));
    }
}
