//! Shared pieces of the benches: the memcpy baseline every format bench runs in the same group.

use criterion::{measurement::WallTime, BenchmarkGroup, Throughput};

/// Adds `memcpy` of `data` to `group`: the cost of touching every byte once, the yardstick each
/// parser's throughput is divided by in docs/performance.md.
pub fn memcpy_baseline(group: &mut BenchmarkGroup<'_, WallTime>, data: &[u8]) {
    let mut dst = vec![0u8; data.len()];
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.bench_function("memcpy", |b| {
        b.iter(|| {
            dst.copy_from_slice(std::hint::black_box(data));
            std::hint::black_box(&dst);
        })
    });
}
