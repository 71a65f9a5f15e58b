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

use tracecap_syscall::{Arg, Capture, Entry};

fn full_walk(bytes: &[u8]) -> u64 {
    let cap = Capture::parse(bytes).unwrap();
    let mut acc = 0u64;
    for e in cap.entries() {
        match e.unwrap() {
            Entry::Syscall(s) => {
                acc = acc.wrapping_add(
                    u64::from(s.number)
                        ^ s.ret() as u64
                        ^ s.timestamp_ns.unwrap_or(0) as u64
                        ^ u64::from(s.duration_ns.unwrap_or(0.0).to_bits())
                        ^ s.tid.unwrap_or(0) as u64,
                );
                for a in s.args() {
                    acc = acc.wrapping_add(match a {
                        Arg::Int(v) => v as u64,
                        Arg::Data(d) => d.len() as u64,
                        Arg::Partial { original_len, data } => {
                            u64::from(original_len) ^ data.len() as u64
                        }
                        Arg::Stat(st) => st.size as u64 ^ u64::from(st.mode),
                        Arg::PollFds(p) => p.iter().map(|f| f.fd as u64).sum(),
                        Arg::SigAction(sa) => {
                            sa.map_or(7, |sa| sa.handler ^ sa.flags().unwrap_or(0))
                        }
                        Arg::IntP { value, .. } => value,
                    });
                }
            }
            Entry::Filler(f) => acc = acc.wrapping_add(f.len),
            Entry::Gap(g) => acc = acc.wrapping_add(g.len),
            Entry::Header(h) => acc = acc.wrapping_add(h.len),
        }
    }
    acc
}

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
