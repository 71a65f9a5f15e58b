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

/// Runs `walk` `runs` times (at least once) and returns the fastest time in seconds and the
/// walk's last result, for the examples that time one walk outside criterion.
pub fn best_of(runs: u32, mut walk: impl FnMut() -> u64) -> (f64, u64) {
    let (mut best, mut digest) = (f64::MAX, 0);
    for _ in 0..runs.max(1) {
        let start = std::time::Instant::now();
        digest = std::hint::black_box(walk());
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best, digest)
}

/// [`best_of`] for the memcpy of [`memcpy_baseline`]: `data` copied into one buffer allocated up
/// front (its pages are faulted in by the first copy, which the best of several runs leaves out);
/// the digest is the copy's first byte.
pub fn best_memcpy(runs: u32, data: &[u8]) -> (f64, u64) {
    let mut dst = vec![0u8; data.len()];
    best_of(runs, || {
        dst.copy_from_slice(std::hint::black_box(data));
        u64::from(std::hint::black_box(&dst).first().copied().unwrap_or(0))
    })
}

/// The line the timing examples print for a walk over `len` bytes.
pub fn timing_line(mode: &str, digest: u64, runs: u32, secs: f64, len: usize) -> String {
    let gib = len as f64 / secs / f64::from(1u32 << 30);
    format!(
        "{mode}: {digest:#x}, best of {runs}: {:.2} ms, {gib:.2} GiB/s",
        secs * 1e3
    )
}
