//! Memory: [`drop_apart`], freeing a large value on a thread of its own; and process-wide
//! settings of the memory allocator for a process that compiles: the `gdlc`
//! command and the children of `cargo xtask` that compile one game each (so that the compile
//! times in BENCHMARKS.md are the command's). Only with the `tuned-alloc` feature (part of `cli`), on glibc Linux;
//! elsewhere [`tune`] does nothing.

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
    // SAFETY: `mallopt` sets one parameter of the allocator, which it applies under its own
    // lock; it is called before other threads run.
    unsafe {
        libc::mallopt(libc::M_MXFAST, 0);
    }
}

/// Nothing to tune on this target or without the `tuned-alloc` feature.
#[cfg(not(all(feature = "tuned-alloc", target_os = "linux", target_env = "gnu")))]
pub fn tune() {}

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
