//! Walks a WTF trace one way, best of N runs, for profiles and quick timings:
//!
//! ```text
//! wtf_walk FILE [full|iter|events|direct|push|many|push_in_place|many_in_place|memcpy] [runs]
//!     [repeat-to-MiB]
//! ```
//!
//! `full`, `iter`, `events` and `direct` are the bench's `full_walk`, `full_walk_iter`,
//! `events_only` and `direct_walk`; `push`, `many`, `push_in_place` and `many_in_place` its
//! `push_walk`, `push_many`, `push_walk_in_place` and `push_many_in_place` (the push parser fed
//! 64 KiB pieces: see `common/wtf_push.rs`),
//! `memcpy` the bench's baseline ([`tracecap_benches::best_memcpy`]): best-of times of the walks
//! and of memcpy taken in turns give a ratio less at the mercy of a noisy machine than one run;
//! with a size, the trace's chunks are repeated to about that many MiB first (as the bench does
//! with cpp-big). `FILE` `synthetic` is the bench's synthetic trace (of that many MiB, 64 when no
//! size is given), made in memory.

#[path = "common/wtf_direct.rs"]
mod wtf_direct;
#[path = "common/wtf_push.rs"]
mod wtf_push;
#[path = "common/wtf_synthetic.rs"]
#[allow(dead_code)] // the other mixes are for examples/wtf_shapes.rs
mod wtf_synthetic;
#[path = "common/wtf_walks.rs"]
mod wtf_walks;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), mode) = (args.first(), args.get(1).map_or("full", String::as_str)) else {
        eprintln!(
            "usage: wtf_walk FILE [full|iter|events|direct|push|many|push_in_place|many_in_place\
             |memcpy] [runs] [repeat-to-MiB]"
        );
        return ExitCode::FAILURE;
    };
    let runs: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let walk: Option<fn(&[u8]) -> u64> = match mode {
        "memcpy" => None,
        "full" => Some(wtf_walks::full_walk),
        "iter" => Some(wtf_walks::full_walk_iter),
        "events" => Some(wtf_walks::events_only),
        "direct" => Some(wtf_direct::direct_walk),
        "push" => Some(wtf_push::push_walk),
        "many" => Some(wtf_push::push_many),
        "push_in_place" => Some(wtf_push::push_walk_in_place),
        "many_in_place" => Some(wtf_push::push_many_in_place),
        _ => {
            eprintln!("unknown mode {mode}");
            return ExitCode::FAILURE;
        }
    };
    let size = args.get(3).and_then(|s| s.parse::<usize>().ok());
    let bytes = if path == "synthetic" {
        let mib = size.unwrap_or(64);
        wtf_synthetic::synthetic(mib << 20, wtf_synthetic::Mix::Bench).0
    } else {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        };
        match size {
            Some(mib) => wtf_walks::repeated(&bytes, mib << 20),
            None => bytes,
        }
    };
    let (best, digest) = match walk {
        Some(walk) => tracecap_benches::best_of(runs, || walk(&bytes)),
        None => tracecap_benches::best_memcpy(runs, &bytes),
    };
    println!(
        "{}",
        tracecap_benches::timing_line(mode, digest, runs, best, bytes.len())
    );
    ExitCode::SUCCESS
}
