//! Test support: the timeline tables of a capture checked against what `tracecap convert --to
//! chrome` writes for it, an oracle that shares no code with the tables' builders.
#![allow(dead_code)] // each test file uses part of it

use std::collections::BTreeMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use serde_json::Value;
use tracecap_arrow::{capture_batches, CaptureSummary, Options, Table};

/// Every corpus capture of every format (none without the corpus).
pub fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for (format, ext) in [
        ("easyprofiler", "prof"),
        ("syscall", "dat"),
        ("apitrace", "trace"),
        ("wtf", "wtf-trace"),
        ("orbit", "orbit"),
    ] {
        files.extend(tracecap_testkit::corpus_paths(format, &[], ext));
    }
    files
}

/// Every batch of every table of `data`, by table, with the summary.
pub fn batches(
    id: &str,
    data: &[u8],
    batch_rows: usize,
) -> (BTreeMap<Table, Vec<RecordBatch>>, CaptureSummary) {
    let mut all: BTreeMap<Table, Vec<RecordBatch>> = BTreeMap::new();
    let options = Options {
        batch_rows,
        ..Options::default()
    };
    let summary = capture_batches(id, data, &options, &mut |t: Table, b: RecordBatch| {
        assert_eq!(b.schema(), t.schema(), "{t}");
        assert!(b.num_rows() <= batch_rows, "{t}: {} rows", b.num_rows());
        all.entry(t).or_default().push(b);
        Ok(())
    })
    .expect("a capture"); // ok: test-only
    (all, summary)
}

/// The text of row `i` of a column that is Utf8 or Dictionary(Int32, Utf8); `None` for null.
pub fn text(col: &dyn Array, i: usize) -> Option<String> {
    if col.is_null(i) {
        return None;
    }
    if let Some(d) = col.as_dictionary_opt::<Int32Type>() {
        let key = d.keys().value(i) as usize;
        return Some(d.values().as_string::<i32>().value(key).to_owned());
    }
    Some(col.as_string::<i32>().value(i).to_owned())
}

/// Row `i` of an Int64 column; `None` for null.
pub fn int(col: &dyn Array, i: usize) -> Option<i64> {
    (!col.is_null(i)).then(|| col.as_primitive::<Int64Type>().value(i))
}

/// Row `i` of a Float64 column.
pub fn float(col: &dyn Array, i: usize) -> f64 {
    col.as_primitive::<Float64Type>().value(i)
}

/// A slice or an instant as both sides see it: name, category, start, duration and arguments.
type Row = (String, String, i64, Option<i64>, Option<String>);

/// Nanoseconds from a Chrome JSON time in microseconds with fractional nanoseconds.
fn ns(v: &Value) -> i64 {
    (v.as_f64().expect("a number") * 1000.0).round() as i64 // ok: test-only
}

fn args_of(v: &Value) -> Option<String> {
    v.get("args").map(|a| a.to_string())
}

/// What Chrome JSON holds: slices (B/E paired per thread, and X), instants and counter samples.
fn chrome(data: &[u8]) -> (Vec<Row>, Vec<Row>, Vec<(i64, f64)>) {
    let format = tracecap::detect(data).expect("a capture"); // ok: test-only
    let mut out = Vec::new();
    let mut sink = tracecap::export::ChromeJson::new(&mut out).expect("json"); // ok: test-only
    let _ = tracecap::convert(format, data, &mut sink);
    sink.finish().expect("finish"); // ok: test-only
    let doc: Value = serde_json::from_slice(&out).expect("Chrome JSON"); // ok: test-only
    let mut slices = Vec::new();
    let mut instants = Vec::new();
    let mut counters = Vec::new();
    let mut open: BTreeMap<(u64, u64), Vec<Value>> = BTreeMap::new();
    for e in doc["traceEvents"].as_array().expect("events") {
        // ok: test-only
        let place = (
            e["pid"].as_u64().unwrap_or(0),
            e["tid"].as_u64().unwrap_or(0),
        );
        let name = e["name"].as_str().unwrap_or("").to_owned();
        let cat = e["cat"].as_str().unwrap_or("").to_owned();
        match e["ph"].as_str().unwrap_or("") {
            "B" => open.entry(place).or_default().push(e.clone()),
            "E" => {
                let b = open.get_mut(&place).and_then(Vec::pop).expect("E after B"); // ok: test-only
                let (t0, t1) = (ns(&b["ts"]), ns(&e["ts"]));
                slices.push((
                    b["name"].as_str().unwrap_or("").to_owned(),
                    b["cat"].as_str().unwrap_or("").to_owned(),
                    t0,
                    Some(t1 - t0),
                    args_of(&b),
                ));
            }
            "X" => slices.push((name, cat, ns(&e["ts"]), Some(ns(&e["dur"])), args_of(e))),
            "i" => instants.push((name, cat, ns(&e["ts"]), None, args_of(e))),
            "C" => counters.push((
                ns(&e["ts"]),
                e["args"]["value"].as_f64().unwrap_or(f64::NAN),
            )),
            _ => {}
        }
    }
    for (_, left) in open {
        for b in left {
            let name = b["name"].as_str().unwrap_or("").to_owned();
            let cat = b["cat"].as_str().unwrap_or("").to_owned();
            slices.push((name, cat, ns(&b["ts"]), None, args_of(&b)));
        }
    }
    (slices, instants, counters)
}

fn canonical_args(text: Option<String>) -> Option<String> {
    text.map(|t| {
        serde_json::from_str::<Value>(&t)
            .expect("args are JSON") // ok: test-only
            .to_string()
    })
}

/// Checks that the `slices`, `instants` and `counters` tables of `data` hold exactly what Chrome
/// JSON holds for it (as multisets), whatever the batch size; returns the number of slices.
pub fn check_against_chrome(data: &[u8], batch_rows: usize) -> usize {
    let (tables, summary) = batches("x", data, batch_rows);
    let empty = Vec::new();
    let mut slices = Vec::new();
    for b in tables.get(&Table::Slices).unwrap_or(&empty) {
        for i in 0..b.num_rows() {
            slices.push((
                text(b.column(5), i).unwrap_or_default(),
                text(b.column(6), i).unwrap_or_default(),
                int(b.column(2), i).expect("ts"), // ok: test-only
                int(b.column(3), i),
                canonical_args(text(b.column(7), i)),
            ));
        }
    }
    let mut instants = Vec::new();
    for b in tables.get(&Table::Instants).unwrap_or(&empty) {
        for i in 0..b.num_rows() {
            instants.push((
                text(b.column(3), i).unwrap_or_default(),
                text(b.column(4), i).unwrap_or_default(),
                int(b.column(2), i).expect("ts"), // ok: test-only
                None,
                canonical_args(text(b.column(5), i)),
            ));
        }
    }
    let mut counters = Vec::new();
    for b in tables.get(&Table::Counters).unwrap_or(&empty) {
        for i in 0..b.num_rows() {
            counters.push((int(b.column(2), i).expect("ts"), float(b.column(3), i)));
            // ok: test-only
        }
    }
    let (mut want_slices, mut want_instants, mut want_counters) = chrome(data);
    for v in [
        &mut slices,
        &mut want_slices,
        &mut instants,
        &mut want_instants,
    ] {
        for r in v.iter_mut() {
            r.4 = canonical_args(r.4.take());
        }
        v.sort();
    }
    let key = |c: &(i64, f64)| (c.0, c.1.to_bits());
    counters.sort_by_key(key);
    want_counters.sort_by_key(key);
    assert_eq!(slices.len(), want_slices.len(), "slice count");
    assert_eq!(slices, want_slices, "slices");
    assert_eq!(instants, want_instants, "instants");
    assert_eq!(counters.len(), want_counters.len(), "counter samples");
    for (a, b) in counters.iter().zip(&want_counters) {
        assert_eq!(a.0, b.0, "counter time");
        assert!(
            (a.1 - b.1).abs() <= 1e-9 * b.1.abs().max(1.0),
            "{a:?} vs {b:?}"
        );
    }
    assert_eq!(summary.stats.slices as usize, slices.len());
    assert_eq!(summary.stats.instants as usize, instants.len());
    assert_eq!(summary.stats.counter_samples as usize, counters.len());
    // One captures row, last.
    let caps = tables.get(&Table::Captures).expect("a captures row"); // ok: test-only
    assert_eq!(caps.iter().map(RecordBatch::num_rows).sum::<usize>(), 1);
    slices.len()
}
