//! The EasyProfiler tables of the export (`easyprofiler_blocks`, `easyprofiler_values`) hold, row
//! for row and field for field, the `block`/`event` and `value` lines of `tracecap dump --json`:
//! on every corpus capture and bundled sample, whole, cut short and with a byte changed: see
//! `export_check`.

mod export_check;

use std::path::Path;

use export_check::{check_files, line_as_row, Check, Expect};
use serde_json::Value;
use tracecap_arrow::Table;

/// The row a `block` or `event` line should give: its members (`kind` among them), in the
/// table's order.
fn block(_whole: &[Value]) -> Expect {
    Box::new(|line: &Value| line_as_row(Table::EasyProfilerBlocks, line, &[]))
}

/// The row a `value` line should give: every member but `kind`, in the table's order.
fn value(_whole: &[Value]) -> Expect {
    Box::new(|line: &Value| line_as_row(Table::EasyProfilerValues, line, &[("kind", "value")]))
}

#[test]
fn the_tables_hold_the_record_lines_of_dump() {
    // The corpus captures (SKIPPED when the corpus is missing) and the bundled samples.
    let mut files = tracecap_testkit::corpus_paths("easyprofiler", &[], "prof");
    let samples = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples"));
    files.extend(["sample_small.prof", "gen_small.prof"].map(|n| samples.join(n)));
    let checks = [
        Check {
            table: Table::EasyProfilerBlocks,
            is_record: |v| v["kind"] == "block" || v["kind"] == "event",
            nested: &[],
            expected: block,
        },
        Check {
            table: Table::EasyProfilerValues,
            is_record: |v| v["kind"] == "value",
            // `data`: JSON text of an array, or a string value's text.
            nested: &[],
            expected: value,
        },
    ];
    check_files(&checks, &files, "export-ep");
}
