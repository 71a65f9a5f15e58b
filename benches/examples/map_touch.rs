//! The floor of any reader that maps its input: map FILE as `tracecap` does and read one byte of
//! every 4 KiB page, on one thread or two (halves), then exit. No parsing at all.
//!
//! ```text
//! map_touch FILE [1|2]
//! ```
//!
//! Timed against `cat FILE` with `hyperfine -N --output=null`, it shows what the page faults of
//! a map (and its unmapping at exit) cost on a machine, which no parser speed can win back: see
//! docs/performance.md, "EasyProfiler: `validate` against `cat`".

use std::process::ExitCode;

const PAGE: usize = 4096;

/// Sums one byte of every page of `bytes`.
fn touch(bytes: &[u8]) -> u64 {
    bytes.iter().step_by(PAGE).map(|&b| u64::from(b)).sum()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: map_touch FILE [1|2]");
        return ExitCode::FAILURE;
    };
    let threads = args.get(1).map_or(1, |s| s.parse().unwrap_or(1));
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // SAFETY: read-only map of a file nobody writes during the run (a bench input).
    #[allow(unsafe_code)]
    let map = match unsafe { memmap2::Mmap::map(&file) } {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bytes: &[u8] = &map;
    let sum = if threads >= 2 {
        // Split on a page boundary, each half faulted in by its own thread.
        let mid = (bytes.len() / 2) / PAGE * PAGE;
        let (front, back) = bytes.split_at(mid);
        std::thread::scope(|s| {
            let b = s.spawn(|| touch(back));
            touch(front) + b.join().unwrap_or(0)
        })
    } else {
        touch(bytes)
    };
    std::hint::black_box(sum);
    ExitCode::SUCCESS
}
