//! The engine over captures and datasets: the same rows as the export, pruning on `capture`,
//! damaged captures queried up to their fault, datasets and captures mixed, errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use tracecap_arrow::dataset::{export, ExportOptions, Progress, Source};
use tracecap_arrow::{capture_batches, Options, Table};
use tracecap_query::{Config, Engine, FaultKind, Inputs};
use tracecap_testkit::TempDir;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

fn scratch(tag: &str) -> TempDir {
    TempDir::new(&format!("query-{tag}"))
}

fn engine(partitions: usize, inputs: &[PathBuf]) -> Engine {
    let engine = Engine::new(&Config {
        partitions,
        batch_rows: 1000,
        ..Config::default()
    })
    .unwrap();
    engine
        .register(None, &Inputs::find(inputs).unwrap())
        .unwrap();
    engine
}

/// Column `c` of every row, as text (numbers too), for comparisons.
fn texts(batches: &[RecordBatch], c: usize) -> Vec<String> {
    let mut out = Vec::new();
    for b in batches {
        let col = cast(b.column(c), &DataType::Utf8).unwrap();
        let col = col.as_string::<i32>();
        for i in 0..col.len() {
            out.push(if col.is_null(i) {
                "NULL".into()
            } else {
                col.value(i).to_string()
            });
        }
    }
    out
}

/// `name -> (count, sum(dur))` of a capture's slices, from the export's own batches.
fn slices_by_name(id: &str, bytes: &[u8]) -> BTreeMap<String, (i64, i64)> {
    let mut by_name = BTreeMap::new();
    let mut sink = |_t: Table, b: RecordBatch| {
        let names = cast(b.column_by_name("name").unwrap(), &DataType::Utf8).unwrap();
        let names = names.as_string::<i32>();
        let durs = b.column_by_name("dur").unwrap().as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            let e = by_name.entry(names.value(i).to_string()).or_insert((0, 0));
            e.0 += 1;
            if durs.is_valid(i) {
                e.1 += durs.value(i);
            }
        }
        Ok(())
    };
    capture_batches(id, bytes, &Options::only(Table::Slices), &mut sink).unwrap();
    by_name
}

fn grouped(engine: &Engine, from: &str) -> BTreeMap<String, (i64, i64)> {
    let sql = format!(
        "SELECT CAST(name AS VARCHAR), count(*), coalesce(sum(dur), 0) FROM {from} GROUP BY 1"
    );
    let batches = engine.collect(&sql).unwrap();
    let (n, c, d) = (texts(&batches, 0), texts(&batches, 1), texts(&batches, 2));
    n.into_iter()
        .zip(c.iter().zip(&d))
        .map(|(n, (c, d))| (n, (c.parse().unwrap(), d.parse().unwrap())))
        .collect()
}

#[test]
fn a_group_by_equals_the_exported_batches_on_one_and_two_partitions() {
    let path = sample("sample_small.prof");
    let bytes = std::fs::read(&path).unwrap();
    let want = slices_by_name("x", &bytes);
    assert!(!want.is_empty());
    for partitions in [1, 2] {
        let e = engine(partitions, std::slice::from_ref(&path));
        assert_eq!(grouped(&e, "slices"), want, "{partitions} partition(s)");
        assert!(e.faults().is_empty());
    }
}

#[test]
fn many_captures_are_one_table_and_a_filter_on_capture_skips_the_others() {
    let dir = scratch("prune");
    let good = sample("sample_small.prof");
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(dir.join("a.prof"), &bytes).unwrap();
    std::fs::write(dir.join("b.prof"), &bytes).unwrap();
    // A damaged copy: its fault shows only if it is parsed.
    std::fs::write(dir.join("cut.prof"), &bytes[..bytes.len() / 2]).unwrap();
    let e = engine(2, &[dir.to_path_buf()]);
    let a = dir.join("a.prof").display().to_string();
    let one = grouped(&e, &format!("slices WHERE capture = '{a}'"));
    assert_eq!(one, slices_by_name("x", &bytes));
    assert!(
        e.faults().is_empty(),
        "the filter on capture must skip the damaged capture"
    );
    let batches = e
        .collect("SELECT count(DISTINCT capture) FROM slices WHERE capture LIKE '%.prof'")
        .unwrap();
    assert_eq!(texts(&batches, 0), ["3"]);
    let faults = e.faults();
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].capture.ends_with("cut.prof"));
    assert!(matches!(faults[0].kind, FaultKind::Damaged(_)));
}

#[test]
fn a_damaged_capture_is_queried_up_to_its_fault_which_is_in_captures() {
    let dir = scratch("damaged");
    let bytes = std::fs::read(sample("sample_small.prof")).unwrap();
    let cut = dir.join("cut.prof");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let mut want_fault = None;
    let mut want = BTreeMap::new();
    let mut sink = |_t: Table, _b: RecordBatch| Ok(());
    let summary = capture_batches(
        "x",
        &bytes[..bytes.len() * 2 / 3],
        &Options::only(Table::Slices),
        &mut sink,
    )
    .unwrap();
    if let Some(f) = summary.fault {
        want_fault = Some(f.offset());
        want = slices_by_name("x", &bytes[..bytes.len() * 2 / 3]);
    }
    let offset = want_fault.expect("a cut capture is damaged");
    let e = engine(1, std::slice::from_ref(&cut));
    assert_eq!(grouped(&e, "slices"), want);
    let rows = e
        .collect("SELECT fault IS NOT NULL, fault_offset, path FROM captures")
        .unwrap();
    assert_eq!(texts(&rows, 0), ["true"]);
    assert_eq!(texts(&rows, 1), [offset.to_string()]);
    assert_eq!(
        texts(&rows, 2),
        [std::path::absolute(&cut).unwrap().display().to_string()]
    );
    assert_eq!(e.faults().len(), 1);
}

#[test]
fn a_dataset_gives_the_rows_of_its_captures_and_mixes_with_capture_files() {
    let dir = scratch("dataset");
    let path = sample("sample_small.prof");
    let ds = dir.join("ds");
    let source = Source {
        id: "sample".into(),
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
    let want = slices_by_name("x", &std::fs::read(&path).unwrap());

    let from_dataset = engine(2, std::slice::from_ref(&ds));
    assert_eq!(grouped(&from_dataset, "slices"), want);
    let ids = from_dataset
        .collect("SELECT DISTINCT CAST(capture AS VARCHAR) FROM slices")
        .unwrap();
    assert_eq!(texts(&ids, 0), ["sample"]);

    let both = engine(2, &[ds, path]);
    let doubled: BTreeMap<_, _> = want
        .iter()
        .map(|(k, (c, d))| (k.clone(), (2 * c, 2 * d)))
        .collect();
    assert_eq!(grouped(&both, "slices"), doubled);
    let rows = both.collect("SELECT count(*) FROM captures").unwrap();
    assert_eq!(texts(&rows, 0), ["2"]);
}

#[test]
fn every_table_can_be_scanned_and_joined() {
    let e = engine(2, &[sample("sample_small.prof"), sample("gen_small.prof")]);
    for table in Table::ALL {
        let rows = e
            .collect(&format!("SELECT count(*) FROM {}", table.name()))
            .unwrap();
        let n: u64 = texts(&rows, 0)[0].parse().unwrap();
        // EasyProfiler captures have no call stacks: their stack tables are empty.
        let stacks = matches!(table, Table::StackSamples | Table::StackFrames);
        let holds = !stacks
            && table
                .format()
                .is_none_or(|f| f == tracecap::Format::EasyProfiler);
        assert_eq!(n > 0, holds, "{table}");
    }
    let rows = e
        .collect(
            "SELECT count(*) FROM slices s JOIN tracks t
             ON s.capture = t.capture AND s.track = t.track",
        )
        .unwrap();
    let all = e.collect("SELECT count(*) FROM slices").unwrap();
    assert_eq!(texts(&rows, 0), texts(&all, 0));
}

#[test]
fn a_limit_ends_the_query_early() {
    let e = engine(2, &[sample("sample_small.prof")]);
    let rows = e.collect("SELECT * FROM slices LIMIT 3").unwrap();
    assert_eq!(rows.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
}

#[test]
fn bad_sql_is_a_query_error_with_datafusion_s_message() {
    let e = engine(1, &[sample("sample_small.prof")]);
    let err = e.query("SELEC 1").unwrap_err();
    assert!(err.is_query(), "{err}");
    let err = e.query("SELECT nope FROM slices").unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    let err = e.query("SELECT * FROM no_such_table").unwrap_err();
    assert!(err.to_string().contains("no_such_table"), "{err}");
}

#[test]
fn a_directory_without_captures_finds_nothing() {
    let dir = scratch("empty");
    std::fs::write(dir.join("notes.txt"), b"hello").unwrap();
    let inputs = Inputs::find(&[dir.to_path_buf()]).unwrap();
    assert!(inputs.is_empty());
    assert_eq!(inputs.skipped, 1);
    assert!(Inputs::find(&[PathBuf::from("/no/such/file")]).is_err());
}

#[test]
fn args_are_built_when_a_query_reads_them() {
    let path = sample("sample_small.prof");
    let bytes = std::fs::read(&path).unwrap();
    for table in [Table::Slices, Table::Instants] {
        let mut with_args = 0;
        let mut sink = |_t: Table, b: RecordBatch| {
            with_args += b.num_rows() - b.column_by_name("args").unwrap().null_count();
            Ok(())
        };
        capture_batches("x", &bytes, &Options::only(table), &mut sink).unwrap();
        assert!(with_args > 0, "{table}: the sample has arguments");
        let e = engine(2, std::slice::from_ref(&path));
        let sql = format!("SELECT count(args), count(*) FROM {table}");
        let rows = e.collect(&sql).unwrap();
        assert_eq!(texts(&rows, 0), [with_args.to_string()], "{table}");
        let rows = e
            .collect(&format!("SELECT count(*) FROM {table} WHERE args LIKE '%'"))
            .unwrap();
        assert_eq!(
            texts(&rows, 0),
            [with_args.to_string()],
            "{table}: args in a filter"
        );
    }
}

#[test]
fn partitions_share_the_captures_and_a_query_run_again_reads_them_all_again() {
    let dir = scratch("shared");
    let bytes = std::fs::read(sample("sample_small.prof")).unwrap();
    for name in ["a", "b", "c", "d", "e"] {
        std::fs::write(dir.join(format!("{name}.prof")), &bytes).unwrap();
    }
    let e = engine(2, &[dir.to_path_buf()]);
    let one = slices_by_name("x", &bytes)
        .values()
        .map(|v| v.0)
        .sum::<i64>();
    let batches = e
        .collect("SELECT count(*), count(DISTINCT capture) FROM slices")
        .unwrap();
    assert_eq!(texts(&batches, 0), [(5 * one).to_string()]);
    assert_eq!(texts(&batches, 1), ["5"]);
    // The recursive part of a recursive query runs its scan of `slices` once per step: every
    // step must read every capture.
    let sql = "WITH RECURSIVE steps(n, k) AS ( \
                 SELECT 1, CAST(0 AS BIGINT) \
                 UNION ALL \
                 SELECT steps.n + 1, counted.k FROM steps \
                 CROSS JOIN (SELECT count(*) AS k FROM slices) counted WHERE steps.n < 4 \
               ) SELECT k FROM steps WHERE n > 1 ORDER BY n";
    let batches = e.collect(sql).unwrap();
    assert_eq!(texts(&batches, 0), vec![(5 * one).to_string(); 3]);
}
