//! Times the walk behind a query's scan of one table, best of N runs, against the timeline
//! adapter alone driving a sink that keeps nothing (the floor under any table of the timeline):
//!
//! ```text
//! cargo run --release -p tracecap-arrow --example table_walk -- FILE [TABLE] [runs]
//! ```
//!
//! The table (default `slices`) is built as `tracecap query` builds it when no `args` column is
//! read, and its batches are counted and dropped.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use tracecap::timeline::Discard;
use tracecap_arrow::{Options, Table};

fn best(runs: u32, mut walk: impl FnMut() -> u64) -> (Duration, u64) {
    let mut best = Duration::MAX;
    let mut out = 0;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        out = std::hint::black_box(walk());
        best = best.min(start.elapsed());
    }
    (best, out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: table_walk FILE [TABLE] [runs]");
        return ExitCode::FAILURE;
    };
    let table = args.get(1).map_or("slices", String::as_str);
    let Some(table) = Table::from_name(table) else {
        eprintln!("no table {table}");
        return ExitCode::FAILURE;
    };
    let runs: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let input = match tracecap::open(path) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let Some(format) = tracecap::detect(&input) else {
        eprintln!("{path}: not a capture");
        return ExitCode::FAILURE;
    };
    let (adapter, slices) = best(runs, || {
        let (stats, _) = tracecap::adapter::convert_counted(format, &input, Discard);
        stats.slices
    });
    let options = Options {
        args: false,
        ..Options::only(table)
    };
    let (walk, rows) = best(runs, || {
        let mut rows = 0;
        let mut count = |_: Table, batch: arrow_array::RecordBatch| {
            rows += batch.num_rows() as u64;
            Ok(())
        };
        let _ = tracecap_arrow::capture_batches("c", &input, &options, &mut count);
        rows
    });
    println!("adapter alone: {adapter:.3?} ({slices} slices)");
    println!("{table} table: {walk:.3?} ({rows} rows)");
    println!("ratio: {:.2}", walk.as_secs_f64() / adapter.as_secs_f64());
    ExitCode::SUCCESS
}
