//! A walk that names the columns it reads (`Options::columns`) hands over, batch for batch,
//! those columns of what a walk of every column hands over: the columns it does not build change
//! nothing in the ones it does.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use tracecap_arrow::{capture_batches, Options, Table};

/// The batches of `table` of `data`, reading `columns` (all for `None`).
fn walk(
    data: &[u8],
    table: Table,
    columns: Option<&[usize]>,
    batch_rows: usize,
) -> Vec<RecordBatch> {
    let options = Options {
        batch_rows,
        columns: columns.map(Arc::from),
        ..Options::only(table)
    };
    let mut out = Vec::new();
    capture_batches("c", data, &options, &mut |t: Table, b: RecordBatch| {
        assert_eq!(t, table);
        out.push(b);
        Ok(())
    })
    .expect("a capture"); // ok: test-only
    out
}

/// Projections of each timeline table's schema: each column alone, two out of order, none (a
/// `count(*)`), and every column in reverse.
fn projections(table: Table) -> Vec<Vec<usize>> {
    let n = table.schema().fields().len();
    let mut all: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    all.extend([vec![n - 1, 2], vec![], (0..n).rev().collect()]);
    all
}

fn captures() -> Vec<PathBuf> {
    let samples = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples"));
    let mut files = vec![
        samples.join("sample_small.prof"),
        samples.join("gen_small.prof"),
    ];
    files.extend(common::corpus_files());
    files
}

#[test]
fn the_columns_read_are_those_of_a_full_walk() {
    let mut rows = 0;
    for path in captures() {
        let data = tracecap_testkit::read(&path);
        if tracecap::detect(&data).is_none() {
            continue;
        }
        for table in [Table::Slices, Table::Instants, Table::Counters] {
            for batch_rows in [65536, 7] {
                let full = walk(&data, table, None, batch_rows);
                for columns in projections(table) {
                    let some = walk(&data, table, Some(&columns), batch_rows);
                    let what = format!("{} {table} {columns:?} {batch_rows}", path.display());
                    assert_eq!(full.len(), some.len(), "{what}: batches");
                    for (f, s) in full.iter().zip(&some) {
                        let expected = f.project(&columns).expect("projected"); // ok: test-only
                        assert_eq!(s, &expected, "{what}");
                        rows += s.num_rows();
                    }
                }
            }
        }
    }
    assert!(rows > 0, "the samples have rows");
}

#[test]
fn a_column_past_the_schema_is_an_error() {
    let data = tracecap_testkit::read(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/sample_small.prof"
    )));
    let options = Options {
        columns: Some(Arc::from([1, 99].as_slice())),
        ..Options::only(Table::Slices)
    };
    let e = capture_batches("c", &data, &options, &mut |_: Table, _: RecordBatch| Ok(()))
        .expect_err("no column 99"); // ok: test-only
    assert!(e.to_string().contains("slices has no column 99"), "{e}");
}
