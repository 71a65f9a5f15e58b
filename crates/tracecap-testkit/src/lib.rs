//! Helpers the integration tests of every tracecap crate share (a dev-dependency only).
//!
//! - [`corpus`]: the directory of a format's real files in `../shared/corpus`, or `None` with a
//!   loud message, so that a checkout without the corpus still runs the other tests;
//! - [`read`]: a corpus file's bytes, `.xz` files decompressed;
//! - [`CountingAlloc`] and [`allocs`]: a global allocator that counts the allocations of the
//!   current thread, for the "walking allocates nothing" tests.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// `../shared/corpus/<format>` beside the workspace, when it is there.
pub fn corpus(format: &str) -> Option<PathBuf> {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus"
    ))
    .join(format);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("!!! corpus not found at {}: skipped", dir.display());
        None
    }
}

/// The bytes of `path`, decompressed when its name ends in `.xz`. Panics (it is for tests) when
/// the file cannot be read.
pub fn read(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "xz") {
        let mut out = Vec::new();
        lzma_rs::xz_decompress(&mut &raw[..], &mut out)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out
    } else {
        raw
    }
}

// Counted per thread: the test harness's other threads allocate while a test runs (libtest, for
// one, when a test has been running for over 60 seconds).
thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: allocations during thread teardown, after the counter is gone, are not counted.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

/// Allocations (and reallocations) made so far by the current thread, when the test binary
/// declares `#[global_allocator] static A: CountingAlloc = CountingAlloc;`.
pub fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

/// The system allocator, counting each allocation of the calling thread (see [`allocs`]).
pub struct CountingAlloc;

// SAFETY: every call forwards unchanged to the system allocator; counting touches only a
// thread-local integer and never allocates.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
