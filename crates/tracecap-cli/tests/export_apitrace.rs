//! The `apitrace_calls` table of every apitrace corpus file (whole, cut short and with a byte
//! changed) holds what `tracecap dump --json` prints for each call: see `export_check`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tracecap_arrow::Table;

mod export_check;
use export_check::{check_files, Check, Expect};

/// The row a call line should give: its keys in the table's order, `dump`'s `flags` object as
/// three columns, and `frame`, which `dump` does not print: the number of end-of-frame calls
/// with a lower call number among all the calls of the whole file.
fn expected(whole: &[Value]) -> Expect {
    let mut ends: BTreeMap<u64, bool> = BTreeMap::new();
    for l in whole {
        ends.insert(l["no"].as_u64().unwrap(), l["flags"]["end_frame"] == true);
    }
    let mut frame_of = BTreeMap::new();
    let mut frames = 0u64;
    for (no, end) in ends {
        frame_of.insert(no, frames);
        frames += u64::from(end);
    }
    Box::new(move |line: &Value| {
        let mut l = line.as_object().unwrap().clone();
        let mut flags = l.remove("flags").unwrap().as_object().unwrap().clone();
        let no = l["no"].as_u64().unwrap();
        let mut row = Map::new();
        for k in ["no", "thread"] {
            row.insert(k.into(), l.remove(k).unwrap());
        }
        row.insert("frame".into(), Value::from(frame_of[&no]));
        for k in ["name", "args", "ret"] {
            row.insert(k.into(), l.remove(k).unwrap());
        }
        for k in ["fake", "incomplete", "end_frame"] {
            row.insert(k.into(), flags.remove(k).unwrap());
        }
        assert!(flags.is_empty(), "flags not in the table: {flags:?}");
        for k in ["backtrace", "offset"] {
            row.insert(k.into(), l.remove(k).unwrap());
        }
        // Only the containers with pieces (snappy, zstd) have one.
        let file_offset = l.remove("file_offset").unwrap_or(Value::Null);
        row.insert("file_offset".into(), file_offset);
        assert!(l.is_empty(), "keys not in the table: {l:?}");
        row
    })
}

#[test]
fn apitrace_calls_hold_what_dump_prints() {
    let check = Check {
        table: Table::ApitraceCalls,
        is_record: |v| v.get("no").is_some(),
        nested: &["args", "ret", "backtrace"],
        expected,
    };
    let files = tracecap_testkit::corpus_paths("apitrace", &[], "trace");
    check_files(&[check], &files, "export-apitrace");
}
