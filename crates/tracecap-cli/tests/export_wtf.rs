//! The `wtf_events` table of every WTF corpus file (and of prefixes of it) holds what
//! `tracecap dump --json` prints for each event: see `export_check`.

use serde_json::{Map, Value};
use tracecap_arrow::Table;

mod export_check;
use export_check::{check_corpus, Check, Expect};

/// The row an `event` line should give: every key but `kind` (every row is an event), in the
/// table's order.
fn expected(_whole: &[Value]) -> Expect {
    Box::new(|line: &Value| {
        let mut l = line.as_object().unwrap().clone();
        assert_eq!(l.remove("kind").unwrap(), "event");
        let mut row = Map::new();
        for k in ["offset", "zone", "time_us", "name", "flags", "args"] {
            row.insert(k.into(), l.remove(k).unwrap());
        }
        assert!(l.is_empty(), "keys not in the table: {l:?}");
        row
    })
}

#[test]
fn wtf_events_hold_what_dump_prints() {
    check_corpus(&Check {
        format: "wtf",
        ext: "wtf-trace",
        table: Table::WtfEvents,
        is_record: |v| v["kind"] == "event",
        nested: &["args"],
        expected,
    });
}
