//! Memory: `drop_apart`, freeing a large value on a thread of its own; and process-wide
//! settings of the memory allocator for a process that compiles: the `gdlc`
//! command and the children of `cargo xtask` that compile one game each (so that the compile
//! times in BENCHMARKS.md are the command's): [`tune`] and [`CompilerAlloc`]. Only with the
//! `tuned-alloc` feature (part of `cli`), on glibc Linux; elsewhere they change nothing.

/// glibc's malloc without its fast bins (`M_MXFAST` 0): the compiler frees millions of small
/// vectors (rules, props, gates) between large allocations, and each large request first
/// consolidates the fast bins (`malloc_consolidate`, `unlink_chunk`: 10% of amazonsTorus's
/// compile). Without them a small free goes to the thread cache or is merged at once: 10-15%
/// less user time on amazonsTorus, as much or a little less on alexChess, amazonsSuicide and
/// chess, the same system time. Other allocators (mimalloc) saved more user time on some
/// games but added as much system time (see CHANGELOG). Call it first in `main`, before any
/// other thread runs.
#[cfg(all(feature = "tuned-alloc", target_os = "linux", target_env = "gnu"))]
pub fn tune() {
    const TOP_PAD: libc::c_int = 64 << 20;
    // SAFETY: `mallopt` sets one parameter of the allocator, which it applies under its own
    // lock; it is called before other threads run.
    unsafe {
        libc::mallopt(libc::M_MXFAST, 0);
        // The main heap grows 64 MiB at a time, so that [`CompilerAlloc`] advises huge pages
        // for each growth before it is touched. (Setting it fixes glibc's mmap and trim
        // thresholds at their defaults; raising them too, to 32 and 256 MiB, measured no
        // better and took 40 MiB more on amazonsTorus.)
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD);
    }
}

/// Nothing to tune on this target or without the `tuned-alloc` feature.
#[cfg(not(all(feature = "tuned-alloc", target_os = "linux", target_env = "gnu")))]
pub fn tune() {}

/// The allocator of a process that compiles (the `gdlc` command, xtask's children): the
/// system's, except that a block of at least [`HUGE_BLOCK`] bytes, and each growth of glibc's
/// main heap, are advised to be backed by transparent huge pages (`madvise(MADV_HUGEPAGE)` on
/// the 2 MiB pages inside them; what `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` does). The
/// compiler's large tables (the term store's hash table and records, the grounder's atom
/// numbers, the rules and props by id) are read at random, one cache miss and often one TLB
/// miss per read: with 4 KiB pages, a table of hundreds of MiB has far more pages than the TLB
/// holds entries. Where the system leaves huge pages to `madvise` (the default), without the
/// advice they are never used. With it, amazonsTorus compiles in 18% less CPU time (more
/// system time, zeroing 2 MiB pages, and much less user time); ruleDepthExponential, racer4
/// and chess 0-10% (see ARCHITECTURE.md). Only with the `tuned-alloc` feature, on glibc
/// Linux; elsewhere it is the system's allocator.
pub struct CompilerAlloc;

/// Blocks at least this large are advised to use huge pages (see [`CompilerAlloc`]).
pub const HUGE_BLOCK: usize = 4 << 20;

#[cfg(all(feature = "tuned-alloc", target_os = "linux", target_env = "gnu"))]
mod huge {
    use std::sync::atomic::{AtomicUsize, Ordering};

    const HUGE_PAGE: usize = 2 << 20;

    /// The end of the main heap (glibc's program break) when last seen.
    static HEAP_END: AtomicUsize = AtomicUsize::new(0);

    /// Advises huge pages for the whole 2 MiB pages of `[start, end)`.
    fn advise(start: usize, end: usize) {
        let start = start.next_multiple_of(HUGE_PAGE);
        let end = end / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: the range is memory of this process's heap or of a block the allocator
            // just handed out; the advice changes how its pages are backed, never their
            // contents. A failure (a kernel without transparent huge pages) changes nothing.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }

    /// After an allocation of `size` bytes at `ptr`: advises huge pages for a large block, and
    /// for the part of the main heap it has grown by since the last call (glibc grows it by
    /// `M_TOP_PAD` at a time, see [`super::tune`], so that most of the growth is advised
    /// before it is touched: a 2 MiB page of which one 4 KiB page is mapped stays small).
    pub(super) fn advise_after_alloc(ptr: *mut u8, size: usize) {
        if ptr.is_null() {
            return;
        }
        if size >= super::HUGE_BLOCK {
            advise(ptr as usize, ptr as usize + size);
        }
        // SAFETY: `sbrk(0)` reads the current break (glibc keeps it; no system call).
        let end = unsafe { libc::sbrk(0) } as usize;
        let seen = HEAP_END.swap(end, Ordering::Relaxed);
        if seen != 0 && end > seen {
            advise(seen, end);
        }
    }
}

#[cfg(all(feature = "tuned-alloc", target_os = "linux", target_env = "gnu"))]
fn advise_huge(ptr: *mut u8, size: usize) {
    huge::advise_after_alloc(ptr, size);
}

#[cfg(not(all(feature = "tuned-alloc", target_os = "linux", target_env = "gnu")))]
fn advise_huge(_ptr: *mut u8, _size: usize) {}

// SAFETY: every method is the system allocator's, with advice on how the pages of large
// blocks are backed added after the allocation.
unsafe impl std::alloc::GlobalAlloc for CompilerAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let ptr = unsafe { std::alloc::System.alloc(layout) };
        advise_huge(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { std::alloc::System.alloc_zeroed(layout) };
        advise_huge(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: as for `alloc`.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let new = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        advise_huge(new, new_size);
        new
    }
}

/// Drops `value` on a thread of its own when it is `large` (millions of small vectors), so
/// that the caller goes on at once; here when it is small, or when no thread can be started.
pub(crate) fn drop_apart<T: Send + 'static>(value: T, large: bool) {
    if !large {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("gdlc-free".into())
        .spawn(move || drop(value));
    // On failure the closure, and so what it holds, is dropped here.
    drop(spawned);
}

#[cfg(all(test, feature = "tuned-alloc", target_os = "linux", target_env = "gnu"))]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    /// The `VmFlags` of the mapping of `/proc/self/smaps` that holds `addr`.
    fn vm_flags(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = lo <= addr && addr < hi;
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return Some(flags.to_string());
            }
        }
        None
    }

    #[test]
    fn a_large_block_is_advised_to_use_huge_pages() {
        let transparent = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if transparent.is_empty() || transparent.contains("[never]") {
            return;
        }
        let size = 16 << 20;
        let layout = Layout::from_size_align(size, 8).expect("a valid layout");
        // SAFETY: a non-zero size; freed below with the same layout.
        let ptr = unsafe { super::CompilerAlloc.alloc(layout) };
        assert!(!ptr.is_null());
        // The middle of the block is inside one of its whole 2 MiB pages.
        let flags = vm_flags(ptr as usize + size / 2).expect("the block is mapped");
        // SAFETY: allocated above with `layout`.
        unsafe { super::CompilerAlloc.dealloc(ptr, layout) };
        assert!(
            flags.split_whitespace().any(|f| f == "hg"),
            "VmFlags: {flags}"
        );
    }
}
