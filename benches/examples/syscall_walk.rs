//! Walks a syscall_capture file, best of N runs, for instruction counts
//! (`valgrind --tool=callgrind`) and quick timings:
//!
//! ```text
//! syscall_walk FILE [runs]
//! ```
//!
//! The walk is the bench's `full_walk`: every entry, every fixed field and every argument.

use std::process::ExitCode;
use std::time::{Duration, Instant};

#[path = "common/syscall_walks.rs"]
mod syscall_walks;
use syscall_walks::full_walk;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: syscall_walk FILE [runs]");
        return ExitCode::FAILURE;
    };
    let runs: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut best = Duration::MAX;
    let mut acc = 0;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        acc = std::hint::black_box(full_walk(std::hint::black_box(&bytes)));
        best = best.min(t.elapsed());
    }
    println!("{acc:x} best of {runs}: {best:?}");
    ExitCode::SUCCESS
}
