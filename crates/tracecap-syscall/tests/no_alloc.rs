//! Walking every record and every argument of py_args.dat allocates nothing.
#![allow(unsafe_code)] // a counting global allocator cannot be written without it

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use tracecap_syscall::{Arg, Capture, Entry};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counter only observes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn walking_py_args_allocates_nothing() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/syscall"
    ));
    if !dir.is_dir() {
        println!("corpus not found: skipped ({})", dir.display());
        return;
    }
    let data = std::fs::read(dir.join("py_args.dat")).unwrap();

    // Make sure the counter works before trusting a zero.
    COUNTING.with(|c| c.set(true));
    drop(std::hint::black_box(vec![1u8; 16]));
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.swap(0, Ordering::Relaxed), 1);

    COUNTING.with(|c| c.set(true));
    let mut records = 0u64;
    let mut args = 0u64;
    let mut sum = 0u64;
    let cap = Capture::parse(&data).unwrap();
    for e in cap.entries() {
        if let Entry::Syscall(s) = e.unwrap() {
            records += 1;
            sum = sum.wrapping_add(s.ret() as u64);
            for a in s.args() {
                args += 1;
                sum = sum.wrapping_add(match a {
                    Arg::Int(v) => v as u64,
                    Arg::Data(d) => d.len() as u64,
                    Arg::Partial { original_len, data } => {
                        u64::from(original_len) + data.len() as u64
                    }
                    Arg::Stat(st) => st.size as u64,
                    Arg::PollFds(p) => p.iter().map(|f| f.fd as u64).sum(),
                    Arg::SigAction(sa) => sa.map_or(0, |sa| sa.handler),
                    Arg::IntP { value, .. } => value,
                });
            }
        }
    }
    COUNTING.with(|c| c.set(false));
    std::hint::black_box(sum);
    assert_eq!(records, 526);
    assert!(args > 500);
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed),
        0,
        "allocations while walking"
    );
}
