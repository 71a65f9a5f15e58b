//! Writes the bench's synthetic WTF trace, or a variant of it, to a file, and prints its number
//! of events (to turn `wtf_walk` times into times per event):
//!
//! ```text
//! wtf_shapes bench|shuffled|2|5|6|7|8|9 OUT [MiB]
//! ```
//!
//! `bench` is the bench's trace (64 MiB unless told), `shuffled` the same events of each step in a
//! random order, a wire id a trace of that one event kind (see `common/wtf_synthetic.rs`).

#[path = "common/wtf_synthetic.rs"]
mod wtf_synthetic;

use std::process::ExitCode;
use wtf_synthetic::{synthetic, Mix};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(kind), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: wtf_shapes bench|shuffled|2|5|6|7|8|9 OUT [MiB]");
        return ExitCode::FAILURE;
    };
    let mix = match kind.as_str() {
        "bench" => Mix::Bench,
        "shuffled" => Mix::Shuffled,
        id @ ("2" | "5" | "6" | "7" | "8" | "9") => Mix::Only(id.parse().unwrap_or(2)),
        _ => {
            eprintln!("unknown trace {kind}");
            return ExitCode::FAILURE;
        }
    };
    let mib = args
        .get(2)
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(64);
    let (bytes, events) = synthetic(mib << 20, mix);
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("{out}: {e}");
        return ExitCode::FAILURE;
    }
    println!("{kind}: {} bytes, {events} events", bytes.len());
    ExitCode::SUCCESS
}
