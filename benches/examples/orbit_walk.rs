//! Walks an Orbit capture's events and counts them by kind, as the `orbit/classify_views` bench
//! does, `ROUNDS` times: a fixed amount of work for instruction counts
//! (`valgrind --tool=callgrind --toggle-collect='*classify*'`).
//!
//! `orbit_walk FILE [ROUNDS]`

use tracecap_orbit::{Capture, EventKind};

#[inline(never)]
fn classify(data: &[u8]) -> [u64; EventKind::ALL.len()] {
    let capture = Capture::parse(std::hint::black_box(data)).expect("an Orbit capture");
    let mut counts = [0u64; EventKind::ALL.len()];
    for ev in capture.events() {
        match ev {
            Ok(ev) => counts[ev.kind.index()] += 1,
            Err(e) => {
                eprintln!("{e}");
                break;
            }
        }
    }
    counts
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: orbit_walk FILE [ROUNDS]");
    let rounds: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("ROUNDS is a number"));
    let data = std::fs::read(&path).expect("readable file");
    let mut total = 0;
    for _ in 0..rounds {
        total += classify(&data).iter().sum::<u64>();
    }
    println!("{total} events");
}
