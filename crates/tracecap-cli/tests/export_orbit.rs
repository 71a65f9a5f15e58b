//! The `orbit_events` table of every Orbit corpus file (and of prefixes of it) holds what
//! `tracecap dump --json` prints for each event: see `export_check`.

use serde_json::{Map, Value};
use tracecap_arrow::Table;

mod export_check;
use export_check::{check_corpus, Check, Expect};

/// The row an event line should give: its keys in the table's order (`decoded_name` null when the
/// line has none).
fn expected(_whole: &[Value]) -> Expect {
    Box::new(|line: &Value| {
        let mut l = line.as_object().unwrap().clone();
        let mut row = Map::new();
        for k in ["offset", "length", "event", "message"] {
            row.insert(k.into(), l.remove(k).unwrap());
        }
        let name = l.remove("decoded_name").unwrap_or(Value::Null);
        row.insert("decoded_name".into(), name);
        assert!(l.is_empty(), "keys not in the table: {l:?}");
        row
    })
}

#[test]
fn orbit_events_hold_what_dump_prints() {
    check_corpus(&Check {
        format: "orbit",
        ext: "orbit",
        table: Table::OrbitEvents,
        // The header line has `format`, the USER_DATA line `kind`.
        is_record: |v| v.get("event").is_some(),
        nested: &["message"],
        expected,
    });
}
