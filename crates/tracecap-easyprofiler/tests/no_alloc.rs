//! Walking every record of `sample_medium.prof` (descriptors, context switches, blocks, events,
//! values decoded element by element, nesting rebuilt, bookmarks) allocates nothing.
//!
//! The nesting scratch (one 24-byte slot per record of the largest thread) and the kind table are
//! provided up front on the stack/heap by the caller; the walk itself must not touch the allocator.

// A counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tracecap_easyprofiler::*;

struct Counting;
// Counted per thread: the test harness's other threads allocate while a test runs.
thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count_alloc() {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count_alloc();
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count_alloc();
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

#[test]
fn full_walk_allocates_nothing() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/easyprofiler/sample_medium.prof"
    );
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("corpus not found at {path}: SKIPPED");
        return;
    };
    let mut slots = vec![NestSlot::default(); 1 << 16];

    let before = allocs();
    let c = Capture::parse(&bytes).unwrap();
    let kinds = FixedKindTable::<64>::new(&c).unwrap();
    let s = Summary::check(&c, &kinds, &mut slots[..]).unwrap();
    // And the per-record API directly, with element decoding.
    let mut elements = 0u64;
    for t in c.threads() {
        let t = t.unwrap();
        let tree = c.nest(&t, &kinds, &mut slots).unwrap();
        for (i, r) in t.records(&kinds).enumerate() {
            let _ = tree.depth(i).unwrap();
            if let Record::Value(v) = r.unwrap() {
                elements += v.elements().count() as u64;
            }
        }
    }
    let after = allocs();

    assert_eq!(s.records(), 55_594, "the corpus README's record count");
    assert!(s.values > 10_000 && elements > 0);
    assert_eq!(after - before, 0, "allocations during the walk");
    // Control: the counter does see this thread's allocations.
    let v = std::hint::black_box(vec![1u8; 16]);
    assert!(
        allocs() > after && v.len() == 16,
        "the counting allocator counts"
    );
}
