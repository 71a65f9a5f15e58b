//! WTF: walk every event (wire ids looked up, every argument decoded, arrays summed) of two ~64 MB
//! chunked traces, a synthetic one and a real one (cpp-big) repeated, against memcpy of the same
//! bytes in the same group: `full_walk` with `Events::try_for_each_event`, `full_walk_iter` with
//! the iterator, `push_walk` with the push parser fed 64 KiB pieces (`push_many` the same with
//! `PushParser::parse_many`, every item that can be read at each call: the loop of
//! `tracecap::push::pump`, whose `PushParse::parse_many` is `parse_many_while` for WTF),
//! `push_walk_in_place` and `push_many_in_place` the same calls on the bytes where they arrived
//! (no copy into a buffer: the parser's own cost; see `examples/common/wtf_push.rs`), and
//! `events_only`; and
//! `direct_walk`, a decoder written for the bench alone with none of the crate's event API (the
//! yardstick for `full_walk`: see its module).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

#[path = "../examples/common/wtf_direct.rs"]
mod wtf_direct;
#[path = "../examples/common/wtf_push.rs"]
mod wtf_push;
#[path = "../examples/common/wtf_synthetic.rs"]
#[allow(dead_code)] // the variants are for examples/wtf_shapes.rs
mod wtf_synthetic;
#[path = "../examples/common/wtf_walks.rs"]
mod wtf_walks;
use wtf_walks::{events_only, full_walk, full_walk_iter, repeated};

/// The walks of one trace against memcpy, in one group.
fn walks(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let mut group = c.benchmark_group(name);
    tracecap_benches::memcpy_baseline(&mut group, bytes);
    assert_eq!(full_walk(bytes), full_walk_iter(bytes));
    assert_eq!(full_walk(bytes), wtf_direct::direct_walk(bytes));
    assert_eq!(full_walk(bytes), wtf_push::push_walk(bytes));
    assert_eq!(full_walk(bytes), wtf_push::push_many(bytes));
    assert_eq!(full_walk(bytes), wtf_push::push_walk_in_place(bytes));
    assert_eq!(full_walk(bytes), wtf_push::push_many_in_place(bytes));
    group.bench_function("full_walk", |b| b.iter(|| full_walk(black_box(bytes))));
    group.bench_function("full_walk_iter", |b| {
        b.iter(|| full_walk_iter(black_box(bytes)))
    });
    group.bench_function("push_walk", |b| {
        b.iter(|| wtf_push::push_walk(black_box(bytes)))
    });
    group.bench_function("push_many", |b| {
        b.iter(|| wtf_push::push_many(black_box(bytes)))
    });
    group.bench_function("push_walk_in_place", |b| {
        b.iter(|| wtf_push::push_walk_in_place(black_box(bytes)))
    });
    group.bench_function("push_many_in_place", |b| {
        b.iter(|| wtf_push::push_many_in_place(black_box(bytes)))
    });
    group.bench_function("events_only", |b| b.iter(|| events_only(black_box(bytes))));
    group.bench_function("direct_walk", |b| {
        b.iter(|| wtf_direct::direct_walk(black_box(bytes)))
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    walks(
        c,
        "wtf",
        &wtf_synthetic::synthetic(64 << 20, wtf_synthetic::Mix::Bench).0,
    );
    // cpp-big (the C++ bindings' recorder, from the corpus) repeated to 64 MiB.
    match tracecap_testkit::corpus("wtf") {
        Some(dir) => {
            let real = std::fs::read(dir.join("cff-cpp/cpp-big.wtf-trace")).unwrap();
            walks(c, "wtf_real", &repeated(&real, 64 << 20));
        }
        None => eprintln!("corpus not found: wtf_real skipped"),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
