//! syscall_capture: walk every entry of a ~64 MB synthetic capture (every record's fixed fields,
//! every argument decoded), against memcpy of the same bytes in the same group; and the same walk
//! through the push parser, the bytes arriving in 64 KiB pieces: appended to a caller-owned buffer
//! (`push_walk`) or read where they arrive (`push_walk_in_place`).
//!
//! The capture imitates the corpus (`ls -l`, Python): timestamps and durations on, mostly
//! argument-less calls (openat, newfstatat, ...), reads and writes with data of a few hundred bytes,
//! closes, mmaps, fstats, rt_sigactions, and a filler closing each 1 MiB flush unit.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

#[path = "../examples/common/syscall_synthetic.rs"]
mod syscall_synthetic;
use syscall_synthetic::synthetic;
#[path = "../examples/common/syscall_walks.rs"]
mod syscall_walks;
use syscall_walks::full_walk;
#[path = "../examples/common/syscall_push.rs"]
mod syscall_push;
use syscall_push::{push_walk, push_walk_in_place};

fn bench(c: &mut Criterion) {
    let bytes = synthetic(64 << 20);
    let mut group = c.benchmark_group("syscall");
    tracecap_benches::memcpy_baseline(&mut group, &bytes);
    group.bench_function("full_walk", |b| b.iter(|| full_walk(black_box(&bytes))));
    let mut buffer = Vec::new();
    assert_eq!(push_walk(&bytes, &mut buffer), full_walk(&bytes));
    group.bench_function("push_walk", |b| {
        b.iter(|| push_walk(black_box(&bytes), &mut buffer))
    });
    assert_eq!(push_walk_in_place(&bytes, &mut buffer), full_walk(&bytes));
    group.bench_function("push_walk_in_place", |b| {
        b.iter(|| push_walk_in_place(black_box(&bytes), &mut buffer))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
