//! The `orbit_events` table of every Orbit corpus file (whole, cut short and with a byte changed)
//! holds what `tracecap dump --json` prints for each event: see `export_check`.

use serde_json::Value;
use tracecap_arrow::Table;

mod export_check;
use export_check::{check_files, line_as_row, Check, Expect};

/// The row an event line should give: its keys in the table's order (`decoded_name` null when the
/// line has none).
fn expected(_whole: &[Value]) -> Expect {
    Box::new(|line: &Value| {
        let mut l = line.clone();
        let members = l.as_object_mut().unwrap();
        members.entry("decoded_name").or_insert(Value::Null);
        line_as_row(Table::OrbitEvents, &l, &[])
    })
}

#[test]
fn orbit_events_hold_what_dump_prints() {
    let check = Check {
        table: Table::OrbitEvents,
        // The header line has `format`, the USER_DATA line `kind`.
        is_record: |v| v.get("event").is_some(),
        nested: &["message"],
        expected,
    };
    let files = tracecap_testkit::corpus_paths("orbit", &[], "orbit");
    check_files(&[check], &files, "export-orbit");
}
