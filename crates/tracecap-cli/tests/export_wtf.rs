//! The `wtf_events` table of every WTF corpus file (whole, cut short and with a byte changed)
//! holds what `tracecap dump --json` prints for each event: see `export_check`.

use serde_json::Value;
use tracecap_arrow::Table;

mod export_check;
use export_check::{check_files, line_as_row, Check, Expect};

/// The row an `event` line should give: every key but `kind` (every row is an event), in the
/// table's order.
fn expected(_whole: &[Value]) -> Expect {
    Box::new(|line: &Value| line_as_row(Table::WtfEvents, line, &[("kind", "event")]))
}

#[test]
fn wtf_events_hold_what_dump_prints() {
    let check = Check {
        table: Table::WtfEvents,
        is_record: |v| v["kind"] == "event",
        nested: &["args"],
        expected,
    };
    let files = tracecap_testkit::corpus_paths("wtf", &[], "wtf-trace");
    check_files(&[check], &files, "export-wtf");
}
