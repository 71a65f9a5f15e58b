//! EasyProfiler: walk every record (all fields, values decoded, nesting rebuilt) of two ~64 MB
//! captures, one synthetic (random trees) and one made of a real capture's records repeated,
//! three ways, against memcpy of the same bytes in the same group; and the first way again with the
//! bytes fed to the push parser in 64 KiB pieces, copied through a buffer (`push_walk`) or parsed
//! where they lie with only the parts that straddle two pieces copied (`push_walk_in_place`).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tracecap_easyprofiler::write::CaptureModel;

#[path = "../examples/common/ep_walks.rs"]
mod ep_walks;
use ep_walks::{
    depth_walk, full_walk, full_walk_scan, full_walk_visit, push_walk, push_walk_in_place,
};

/// The walks of one capture against memcpy, in one group.
fn walks(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let mut slots = Vec::new();
    // The walks do the same work: same result.
    let want = full_walk(bytes, &mut slots);
    assert_eq!(full_walk_visit(bytes, &mut slots), want);
    assert_eq!(full_walk_scan(bytes, &mut slots), want);
    // The push walk's buffer, owned by the caller as a socket reader's would be.
    let mut buffer = Vec::new();
    assert_eq!(push_walk(bytes, &mut slots, &mut buffer), want);
    assert_eq!(push_walk_in_place(bytes, &mut slots, &mut buffer), want);
    let mut group = c.benchmark_group(name);
    tracecap_benches::memcpy_baseline(&mut group, bytes);
    group.bench_function("full_walk", |b| {
        b.iter(|| full_walk(black_box(bytes), &mut slots))
    });
    group.bench_function("push_walk", |b| {
        b.iter(|| push_walk(black_box(bytes), &mut slots, &mut buffer))
    });
    group.bench_function("push_walk_in_place", |b| {
        b.iter(|| push_walk_in_place(black_box(bytes), &mut slots, &mut buffer))
    });
    group.bench_function("full_walk_visit", |b| {
        b.iter(|| full_walk_visit(black_box(bytes), &mut slots))
    });
    group.bench_function("full_walk_scan", |b| {
        b.iter(|| full_walk_scan(black_box(bytes), &mut slots))
    });
    group.bench_function("depth_walk", |b| {
        b.iter(|| depth_walk(black_box(bytes), &mut slots))
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    // Random trees and record kinds: the worst case for the branch predictor.
    walks(
        c,
        "easyprofiler",
        &CaptureModel::synthetic(64 << 20).to_bytes().unwrap(),
    );
    // The records of a real capture (profiler_sample's, from the corpus) repeated to 64 MiB.
    match tracecap_testkit::corpus("easyprofiler") {
        Some(dir) => {
            let real = std::fs::read(dir.join("sample_medium.prof")).unwrap();
            let model = CaptureModel::from_bytes(&real)
                .unwrap()
                .repeated(64 << 20)
                .unwrap();
            walks(c, "easyprofiler_real", &model.to_bytes().unwrap());
        }
        None => eprintln!("corpus not found: easyprofiler_real skipped"),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
