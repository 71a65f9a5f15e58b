//! `stack_samples` and `stack_frames` through SQL: for every Orbit capture of the corpus (and those
//! named by `TRACECAP_ORBIT_CAPTURES`), `count(*)` of `stack_samples` is the number of
//! `CallstackSample` events (counted in `orbit_events`, the format's own walk), the stacks folded
//! in SQL (the query of docs/export.md) are those the export's batches give, and an exported
//! Parquet dataset gives the same answers as the capture.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int32Type, Int64Type, UInt64Type};
use tracecap_arrow::dataset::{export, ExportOptions, Progress, Source};
use tracecap_arrow::{capture_batches, Options, Table};
use tracecap_query::{Config, Engine, Inputs};
use tracecap_testkit::TempDir;

/// The folding query of docs/export.md.
const FOLDED: &str = "WITH folded AS (
  SELECT capture, stack, string_agg(function, ';' ORDER BY depth DESC) AS frames
  FROM stack_frames GROUP BY capture, stack
)
SELECT f.frames, sum(s.weight) AS samples
FROM stack_samples s JOIN folded f ON s.capture = f.capture AND s.stack = f.stack
GROUP BY f.frames ORDER BY samples DESC";

fn orbit_captures() -> Vec<PathBuf> {
    let mut files = tracecap_testkit::corpus_paths("orbit", &["real"], "orbit");
    if let Some(more) = std::env::var_os("TRACECAP_ORBIT_CAPTURES") {
        files.extend(std::env::split_paths(&more));
    }
    files
}

fn engine(inputs: &[PathBuf]) -> Engine {
    let engine = Engine::new(&Config {
        partitions: 2,
        batch_rows: 1000,
        ..Config::default()
    })
    .unwrap();
    engine
        .register(None, &Inputs::find(inputs).unwrap())
        .unwrap();
    engine
}

/// Every row of a result, its columns as text.
fn rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for b in batches {
        let columns: Vec<_> = b
            .columns()
            .iter()
            .map(|c| cast(c, &DataType::Utf8).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            out.push(
                columns
                    .iter()
                    .map(|c| c.as_string::<i32>().value(i).to_string())
                    .collect(),
            );
        }
    }
    out
}

fn one_number(engine: &Engine, sql: &str) -> i64 {
    rows(&engine.collect(sql).unwrap())[0][0].parse().unwrap()
}

/// Folded stacks (root first) and their samples, from the export's own batches.
fn folded_from_batches(data: &[u8]) -> BTreeMap<String, i64> {
    let mut frames: HashMap<u64, BTreeMap<i32, String>> = HashMap::new();
    let mut samples: Vec<(u64, i64)> = Vec::new();
    let options = Options {
        tables: tracecap_arrow::Tables::only(Table::StackSamples).with(Table::StackFrames),
        ..Options::default()
    };
    capture_batches("c", data, &options, &mut |t: Table, b: RecordBatch| {
        let stack = b
            .column_by_name("stack")
            .unwrap()
            .as_primitive::<UInt64Type>();
        match t {
            Table::StackFrames => {
                let depth = b
                    .column_by_name("depth")
                    .unwrap()
                    .as_primitive::<Int32Type>();
                let function = cast(b.column_by_name("function").unwrap(), &DataType::Utf8)?;
                let function = function.as_string::<i32>();
                for i in 0..b.num_rows() {
                    frames
                        .entry(stack.value(i))
                        .or_default()
                        .insert(depth.value(i), function.value(i).to_string());
                }
            }
            _ => {
                let weight = b
                    .column_by_name("weight")
                    .unwrap()
                    .as_primitive::<Int64Type>();
                for i in 0..b.num_rows() {
                    samples.push((stack.value(i), weight.value(i)));
                }
            }
        }
        Ok(())
    })
    .unwrap();
    let mut out = BTreeMap::new();
    for (stack, weight) in samples {
        let line: Vec<&str> = frames[&stack].values().rev().map(|s| s.as_str()).collect();
        *out.entry(line.join(";")).or_default() += weight;
    }
    out
}

#[test]
fn stacks_in_sql_equal_the_samples() {
    let files = orbit_captures();
    if files.is_empty() {
        println!("SKIPPED: no Orbit capture in the corpus");
        return;
    }
    let mut compared = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        if !data.starts_with(b"ORBT") {
            println!("{}: not an ORBT capture", path.display());
            continue;
        }
        let expected = folded_from_batches(&data);
        let direct = engine(std::slice::from_ref(path));
        let samples = one_number(&direct, "SELECT count(*) FROM stack_samples");
        let events = one_number(
            &direct,
            "SELECT count(*) FROM orbit_events WHERE event = 'callstack_sample'",
        );
        assert_eq!(samples, events, "{}", path.display());
        assert!(samples > 0, "{}", path.display());
        let folded: BTreeMap<String, i64> = rows(&direct.collect(FOLDED).unwrap())
            .into_iter()
            .map(|r| (r[0].clone(), r[1].parse().unwrap()))
            .collect();
        assert_eq!(folded, expected, "{}", path.display());
        assert_eq!(folded.values().sum::<i64>(), samples);
        if path
            .file_name()
            .is_some_and(|n| n == "OrbitTest_1-72.orbit")
        {
            let distinct = one_number(&direct, "SELECT count(DISTINCT stack) FROM stack_samples");
            assert_eq!((samples, distinct, folded.len() as i64), (1583, 213, 148));
        }

        // The same from an exported Parquet dataset.
        let dir = TempDir::new("query-stacks");
        let ds = dir.join("ds");
        let source = Source {
            id: "c".into(),
            path: path.clone(),
        };
        let report = export(
            &[source],
            &ds,
            &ExportOptions::default(),
            &Progress::default(),
        )
        .unwrap();
        assert_eq!(report.exported, 1);
        let from_dataset = engine(std::slice::from_ref(&ds));
        assert_eq!(
            one_number(&from_dataset, "SELECT count(*) FROM stack_samples"),
            samples
        );
        let again: BTreeMap<String, i64> = rows(&from_dataset.collect(FOLDED).unwrap())
            .into_iter()
            .map(|r| (r[0].clone(), r[1].parse().unwrap()))
            .collect();
        assert_eq!(again, expected, "{} exported", path.display());
        println!(
            "{}: {samples} samples, {} folded stacks",
            path.display(),
            folded.len()
        );
        compared += 1;
    }
    assert!(compared > 0, "no ORBT capture compared");
}
