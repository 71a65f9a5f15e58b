//! Walks an EasyProfiler capture one way, best of N runs, for instruction counts
//! (`valgrind --tool=callgrind --toggle-collect='*run_walk*'`) and quick timings:
//!
//! ```text
//! easyprofiler_walk FILE [check|iter|visit|scan|depth|bare] [runs]
//! ```
//!
//! `check` is what `tracecap validate` does (`Summary::check`); `iter`, `visit` and `scan` are
//! the bench's `full_walk`, `full_walk_visit` and `full_walk_scan` (every field, every value
//! element, nesting levels); `depth` its `depth_walk` (what `tracecap dump` does); `bare` is
//! `Events::visit` with a visitor that keeps only the levels.

#[path = "common/ep_walks.rs"]
mod ep_walks;

use std::process::ExitCode;

use tracecap_easyprofiler::{
    Capture, Error, FixedKindTable, KindTable, Nest, NestSlot, Record, Summary, Visitor,
};

fn check(bytes: &[u8], slots: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let s = Summary::check(&c, &kinds, slots).unwrap();
    s.records() ^ u64::from(s.levels)
}

fn bare(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    struct Levels(u32);
    impl<'a> Visitor<'a> for Levels {
        #[inline(always)]
        fn record(&mut self, _: Record<'a>, nest: Nest) -> Result<(), Error> {
            self.0 = self.0.max(nest.height);
            Ok(())
        }
    }
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut levels = Levels(0);
    c.events_with(&kinds).visit(stack, &mut levels).unwrap();
    u64::from(levels.0)
}

#[inline(never)]
fn run_walk(walk: fn(&[u8], &mut Vec<NestSlot>) -> u64, bytes: &[u8]) -> u64 {
    walk(bytes, &mut Vec::new())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), mode) = (args.first(), args.get(1).map_or("check", String::as_str)) else {
        eprintln!("usage: easyprofiler_walk FILE [check|iter|visit|scan|depth|bare] [runs]");
        return ExitCode::FAILURE;
    };
    let runs: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let walk: fn(&[u8], &mut Vec<NestSlot>) -> u64 = match mode {
        "check" => check,
        "iter" => ep_walks::full_walk,
        "visit" => ep_walks::full_walk_visit,
        "scan" => ep_walks::full_walk_scan,
        "depth" => ep_walks::depth_walk,
        "bare" => bare,
        _ => {
            eprintln!("unknown mode {mode}");
            return ExitCode::FAILURE;
        }
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (best, digest) = tracecap_benches::best_of(runs, || run_walk(walk, &bytes));
    println!(
        "{}",
        tracecap_benches::timing_line(mode, digest, runs, best, bytes.len())
    );
    ExitCode::SUCCESS
}
