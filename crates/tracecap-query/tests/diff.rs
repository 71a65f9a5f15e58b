//! `diff`: a capture against itself shows no change; two captures written with known
//! differences (one function twice as slow, one added, one removed) show exactly those; groups
//! of captures give per-capture means, their spread and Welch's t.

use std::path::{Path, PathBuf};

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use tracecap_easyprofiler::write::{CaptureModel, DescriptorModel, RecordModel, ThreadModel};
use tracecap_easyprofiler::{DescriptorKind, Version};
use tracecap_query::diff::{self, Key};
use tracecap_query::{Config, Engine, Inputs};
use tracecap_testkit::TempDir;

const NAMES: [&str; 4] = ["f", "g", "h", "k"];

/// An EasyProfiler capture (1 tick = 1 ns) of one thread running, one after the other, `n`
/// blocks of each `(name, duration)`.
fn capture(path: &Path, blocks: &[(&str, u64, u64)]) {
    let descriptors = NAMES
        .iter()
        .zip(0..)
        .map(|(name, id)| DescriptorModel {
            id,
            line: 1,
            color: 0,
            kind: DescriptorKind::Block,
            status: 1,
            name: name.as_bytes().to_vec(),
            file: b"f.cpp".to_vec(),
        })
        .collect();
    let mut records = Vec::new();
    let mut t = 1000;
    for &(name, n, dur) in blocks {
        let id = NAMES.iter().position(|x| *x == name).unwrap() as u32;
        for _ in 0..n {
            records.push(RecordModel::Block {
                begin: t,
                end: t + dur,
                id,
                name: Vec::new(),
            });
            t += dur + 10;
        }
    }
    let model = CaptureModel {
        version: Version::V2_1_0,
        pid: 1,
        cpu_frequency: 1_000_000_000,
        begin_time: 0,
        end_time: t,
        descriptors,
        threads: vec![ThreadModel {
            id: 7,
            name: b"main".to_vec(),
            context_switches: Vec::new(),
            records,
        }],
        bookmarks: Vec::new(),
    };
    std::fs::write(path, model.to_bytes().unwrap()).unwrap();
}

fn scratch(tag: &str) -> TempDir {
    TempDir::new(&format!("diff-{tag}"))
}

/// The diff of `a` and `b` by name: one row per name, its columns as text.
fn run(a: &[PathBuf], b: &[PathBuf]) -> Vec<Vec<String>> {
    let engine = Engine::new(&Config::default()).unwrap();
    engine
        .register(Some("a"), &Inputs::find(a).unwrap())
        .unwrap();
    engine
        .register(Some("b"), &Inputs::find(b).unwrap())
        .unwrap();
    let batches = engine.collect(&diff::sql(&[Key::Name])).unwrap();
    rows(&batches)
}

fn rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for b in batches {
        assert_eq!(b.schema().fields().len(), 1 + diff::COLUMNS.len());
        for (f, c) in b.schema().fields().iter().skip(1).zip(diff::COLUMNS) {
            assert_eq!(f.name(), c);
        }
        let cols: Vec<_> = b
            .columns()
            .iter()
            .map(|c| cast(c, &DataType::Utf8).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            out.push(
                cols.iter()
                    .map(|c| {
                        let c = c.as_string::<i32>();
                        if c.is_null(i) {
                            "NULL".to_string()
                        } else {
                            c.value(i).to_string()
                        }
                    })
                    .collect(),
            );
        }
    }
    out
}

/// `(name, change, status)` of each row.
fn summary(rows: &[Vec<String>]) -> Vec<(String, String, String)> {
    rows.iter()
        .map(|r| (r[0].clone(), r[11].clone(), r[16].clone()))
        .collect()
}

#[test]
fn a_capture_against_itself_shows_no_change() {
    let dir = scratch("self");
    let a = dir.join("a.prof");
    capture(&a, &[("f", 10, 100), ("g", 10, 50), ("h", 5, 30)]);
    let same = std::slice::from_ref(&a);
    let rows = run(same, same);
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r[11], "0", "{r:?}");
        assert_eq!(r[16], "same", "{r:?}");
        assert_eq!(r[1], r[2], "counts {r:?}");
        assert_eq!(r[3], r[4], "totals {r:?}");
    }
}

#[test]
fn known_differences_are_reported_exactly_largest_first() {
    let dir = scratch("known");
    let (a, b) = (dir.join("a.prof"), dir.join("b.prof"));
    capture(&a, &[("f", 10, 100), ("g", 10, 50), ("h", 5, 30)]);
    capture(&b, &[("f", 10, 200), ("g", 10, 50), ("k", 5, 40)]);
    let rows = run(&[a], &[b]);
    assert_eq!(
        summary(&rows),
        [
            ("f".into(), "1000".into(), "slower".into()),
            ("k".into(), "200".into(), "added".into()),
            ("h".into(), "-150".into(), "removed".into()),
            ("g".into(), "0".into(), "same".into()),
        ]
    );
    let f = &rows[0];
    // a_count b_count a_total b_total a_mean b_mean a_p50 b_p50 a_p95 b_p95
    assert_eq!(
        f[1..11],
        ["10", "10", "1000", "2000", "100", "200", "100", "200", "100", "200"]
    );
    assert_eq!(f[12], "100.0", "change_pct");
    assert_eq!(
        (f[13].as_str(), f[14].as_str(), f[15].as_str()),
        ("NULL", "NULL", "NULL")
    );
    let h = &rows[2];
    assert_eq!((h[1].as_str(), h[2].as_str()), ("5", "0"));
    assert_eq!(h[12], "-100.0");
}

#[test]
fn groups_give_means_per_capture_their_spread_and_tell_noise_from_change() {
    let dir = scratch("groups");
    let mut a = Vec::new();
    let mut b = Vec::new();
    // f: 1000 ns per capture on A (990, 1000, 1010), 2000 on B: a real change.
    // g: totals that overlap (500 +- 30 against 510 +- 30): noise.
    for (i, (fa, fb, ga, gb)) in [(99, 199, 47, 48), (100, 200, 50, 51), (101, 201, 53, 54)]
        .into_iter()
        .enumerate()
    {
        let (pa, pb) = (
            dir.join(format!("a{i}.prof")),
            dir.join(format!("b{i}.prof")),
        );
        capture(&pa, &[("f", 10, fa), ("g", 10, ga)]);
        capture(&pb, &[("f", 10, fb), ("g", 10, gb)]);
        a.push(pa);
        b.push(pb);
    }
    let rows = run(&a, &b);
    let s = summary(&rows);
    assert_eq!(s[0], ("f".into(), "1000".into(), "slower".into()));
    assert_eq!(s[1], ("g".into(), "10".into(), "noise".into()));
    let f = &rows[0];
    assert_eq!(
        (f[3].as_str(), f[4].as_str()),
        ("1000", "2000"),
        "means per capture"
    );
    assert_eq!(
        (f[13].as_str(), f[14].as_str()),
        ("10", "10"),
        "sd of the totals"
    );
    let t: f64 = f[15].parse().unwrap();
    assert!(t > 100.0, "{t}");
    let g_t: f64 = rows[1][15].parse().unwrap();
    assert!(g_t.abs() < 2.0, "{g_t}");
    // A side with a function missing in one of its captures counts it as 0 there.
    let extra = dir.join("a3.prof");
    capture(&extra, &[("f", 10, 100)]);
    a.push(extra);
    let rows = run(&a, &b);
    let g = rows.iter().find(|r| r[0] == "g").unwrap();
    assert_eq!(g[1], "8", "g: 30 slices over 4 captures, 7.5 rounded");
}

#[test]
fn by_track_and_category_group_by_those_columns() {
    let dir = scratch("by");
    let a = dir.join("a.prof");
    capture(&a, &[("f", 2, 100)]);
    let engine = Engine::new(&Config::default()).unwrap();
    engine
        .register(Some("a"), &Inputs::find(std::slice::from_ref(&a)).unwrap())
        .unwrap();
    engine
        .register(Some("b"), &Inputs::find(&[a]).unwrap())
        .unwrap();
    let batches = engine
        .collect(&diff::sql(&[Key::Track, Key::Name]))
        .unwrap();
    let schema = batches[0].schema();
    assert_eq!(schema.field(0).name(), "track");
    assert_eq!(schema.field(1).name(), "name");
    let track = cast(batches[0].column(0), &DataType::Utf8).unwrap();
    assert!(track.as_string::<i32>().value(0).contains("main"));
    let batches = engine.collect(&diff::sql(&[Key::Category])).unwrap();
    assert_eq!(batches[0].schema().field(0).name(), "category");
}

#[test]
fn percentiles_are_over_every_slice_of_a_side_not_per_capture() {
    let dir = scratch("percentiles");
    // Side A: f takes 10 ns three times in one capture and 1010 ns once in the other; its
    // median over the four slices is 10, though one capture's own median is 1010.
    let (a0, a1, b0) = (
        dir.join("a0.prof"),
        dir.join("a1.prof"),
        dir.join("b0.prof"),
    );
    capture(&a0, &[("f", 3, 10)]);
    capture(&a1, &[("f", 1, 1010)]);
    capture(&b0, &[("f", 4, 10)]);
    let rows = run(&[a0, a1], &[b0]);
    let f = &rows[0];
    assert_eq!(f[0], "f");
    // a_p50 b_p50 a_p95 b_p95
    assert_eq!((f[7].as_str(), f[8].as_str()), ("10", "10"), "medians");
    // 95th percentile of 10, 10, 10, 1010: 10 + 0.85 * 1000, interpolated.
    assert_eq!(
        (f[9].as_str(), f[10].as_str()),
        ("860", "10"),
        "95th percentiles"
    );
    // Two captures on A: f's total per capture is (30 + 1010) / 2.
    assert_eq!(f[3], "520");
}

#[test]
fn each_side_streams_through_the_cross_join_in_its_partitions() {
    // The cross join holds its first input whole: that must be the two-row `sets`, not a side's
    // slices (held whole, a side's rows were gathered into one partition first, and a diff of
    // captures took seven times as long).
    let dir = scratch("plan");
    let (a, b) = (dir.join("a.prof"), dir.join("b.prof"));
    capture(&a, &[("f", 3, 10)]);
    capture(&b, &[("f", 3, 10)]);
    let engine = Engine::new(&Config::default()).unwrap();
    engine
        .register(Some("a"), &Inputs::find(&[a]).unwrap())
        .unwrap();
    engine
        .register(Some("b"), &Inputs::find(&[b]).unwrap())
        .unwrap();
    let sql = format!("EXPLAIN {}", diff::sql(&[Key::Name]));
    let batches = engine.collect(&sql).unwrap();
    let mut text = String::new();
    for batch in &batches {
        let col = cast(batch.column(1), &DataType::Utf8).unwrap();
        let col = col.as_string::<i32>();
        for i in 0..col.len() {
            text.push_str(col.value(i));
            text.push('\n');
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    let joins: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with("CrossJoinExec"))
        .collect();
    assert_eq!(joins.len(), 2, "one cross join per side:\n{text}");
    for i in joins {
        let first = lines[i + 1];
        assert!(
            !first.contains("Coalesce")
                && !first.contains("Filter")
                && !first.contains("Streaming"),
            "the cross join holds a side's rows:\n{text}"
        );
    }
}
