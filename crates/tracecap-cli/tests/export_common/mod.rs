//! What the per-format table tests share: a capture's table rows checked, field by field, against
//! the record lines `tracecap dump --json` prints for it, and its fault against dump's error.
#![allow(dead_code)] // each test file uses part of it

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use tracecap_arrow::arrow_array::cast::AsArray;
use tracecap_arrow::arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use tracecap_arrow::arrow_array::{Array, RecordBatch};
use tracecap_arrow::arrow_schema::DataType;
use tracecap_arrow::{capture_batches, CaptureSummary, Options, Table};

/// A table of a format and the dump lines it holds.
pub struct Spec {
    pub table: Table,
    /// The `kind`s of the dump lines that are its rows.
    pub kinds: &'static [&'static str],
    /// Whether the table keeps `kind` as a column (when it holds lines of several kinds).
    pub keeps_kind: bool,
}

/// A line of dump: parsed, and as printed.
pub struct Line {
    pub value: Value,
    pub text: String,
}

/// Exit code, the JSON lines of standard output and the fault offset named on standard error
/// (`error: ... at offset 0x..`) of `tracecap dump --json path`.
pub fn dump_json(path: &Path) -> (u8, Vec<Line>, Option<u64>) {
    let argv = ["tracecap", "dump", path.to_str().unwrap(), "--json"];
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = tracecap_cli::main_with(argv.iter().map(Into::into), &mut out, &mut err);
    let lines = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| Line {
            value: serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")),
            text: l.to_owned(),
        })
        .collect();
    let err = String::from_utf8_lossy(&err);
    let offset = err.lines().last().and_then(|l| {
        let (_, hex) = l.rsplit_once(" at offset 0x")?;
        u64::from_str_radix(hex, 16).ok()
    });
    (code, lines, offset)
}

/// The batches of `table` for `data`, at most `batch_rows` rows each, and the walk's summary.
pub fn table_batches(
    data: &[u8],
    table: Table,
    batch_rows: usize,
) -> Result<(Vec<RecordBatch>, CaptureSummary), tracecap_arrow::Error> {
    let mut batches = Vec::new();
    let options = Options {
        batch_rows,
        ..Options::only(table)
    };
    let summary = capture_batches("x", data, &options, &mut |t: Table, b: RecordBatch| {
        assert_eq!(t, table, "only the table asked for");
        assert_eq!(b.schema(), table.schema());
        assert!(b.num_rows() <= batch_rows, "{} rows", b.num_rows());
        assert!(b.num_rows() > 0, "an empty batch");
        batches.push(b);
        Ok(())
    })?;
    Ok((batches, summary))
}

/// The text of row `i` of a Utf8 or Dictionary(Int32, Utf8) column.
fn text(col: &dyn Array, i: usize) -> String {
    if let Some(d) = col.as_dictionary_opt::<Int32Type>() {
        let key = d.keys().value(i) as usize;
        return d.values().as_string::<i32>().value(key).to_owned();
    }
    col.as_string::<i32>().value(i).to_owned()
}

/// Checks that row `i` of `col` holds the value of the member `key` of the dump line `line`
/// (nested values as the same JSON text); `at` says where, when a check fails.
fn check_cell(col: &dyn Array, i: usize, line: &Line, key: &str, at: &dyn Fn() -> String) {
    let want = &line.value[key];
    if want.is_null() {
        assert!(col.is_null(i), "{}: not null", at());
        return;
    }
    assert!(!col.is_null(i), "{}: null, want {want}", at());
    match want {
        Value::Bool(b) => assert_eq!(col.as_boolean().value(i), *b, "{}", at()),
        Value::Number(n) => match col.data_type() {
            DataType::Int64 => {
                // Numbers past i64::MAX saturate (tracecap_arrow's columns::int).
                let w = n
                    .as_i64()
                    .or_else(|| n.as_u64().map(|_| i64::MAX))
                    .unwrap_or_else(|| panic!("{}: {n} is no integer", at()));
                assert_eq!(col.as_primitive::<Int64Type>().value(i), w, "{}", at());
            }
            DataType::Float32 => {
                let w = n.as_f64().unwrap() as f32;
                assert_eq!(col.as_primitive::<Float32Type>().value(i), w, "{}", at());
            }
            DataType::Float64 => {
                let w = n.as_f64().unwrap();
                assert_eq!(col.as_primitive::<Float64Type>().value(i), w, "{}", at());
            }
            other => panic!("{}: a number in a {other} column", at()),
        },
        Value::String(s) => assert_eq!(&text(col, i), s, "{}", at()),
        Value::Array(_) | Value::Object(_) => {
            assert_eq!(col.data_type(), &DataType::Utf8, "{}", at());
            let got = col.as_string::<i32>().value(i);
            let parsed: Value =
                serde_json::from_str(got).unwrap_or_else(|e| panic!("{}: {e}: {got}", at()));
            assert_eq!(&parsed, want, "{}", at());
            // The same text as dump's.
            let member = format!("\"{key}\":{got}");
            assert!(
                line.text.contains(&member),
                "{}: {got} is not the text of {}",
                at(),
                line.text
            );
        }
        Value::Null => unreachable!(),
    }
}

/// Checks that `batches` hold exactly `lines`, in order: every key of a line (but a dropped
/// `kind`) is a column, every column but `capture` is a key, and the values are equal.
pub fn check_rows(batches: &[RecordBatch], lines: &[&Line], spec: &Spec, at: &str) {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, lines.len(), "{at}: {} rows", spec.table);
    let schema = spec.table.schema();
    let columns: BTreeSet<&str> = schema
        .fields()
        .iter()
        .skip(1)
        .map(|f| f.name().as_str())
        .collect();
    let mut lines = lines.iter();
    for batch in batches {
        for i in 0..batch.num_rows() {
            let line = lines.next().unwrap();
            let keys: BTreeSet<&str> = line
                .value
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .filter(|k| spec.keeps_kind || *k != "kind")
                .collect();
            assert_eq!(keys, columns, "{at}: the columns of {}", spec.table);
            for key in keys {
                let col = batch.column_by_name(key).unwrap();
                let here = || {
                    let offset = &line.value["offset"];
                    format!("{at}: {} offset {offset} `{key}`", spec.table)
                };
                check_cell(col.as_ref(), i, line, key, &here);
            }
        }
    }
}

/// Checks every table of `specs` for the capture `bytes` (written to `path` for dump), walked
/// with each of `batch_rows`: the rows are dump's record lines of the table's kinds (those before
/// dump's error on a damaged file), and the walk's fault is at the offset dump's error names.
/// Returns the rows checked.
pub fn check_capture(
    path: &Path,
    bytes: &[u8],
    specs: &[Spec],
    batch_rows: &[usize],
    at: &str,
) -> usize {
    std::fs::write(path, bytes).unwrap();
    let (code, lines, fault) = dump_json(path);
    if tracecap::detect(bytes).is_none() {
        for spec in specs {
            assert!(
                table_batches(bytes, spec.table, 1).is_err(),
                "{at}: no capture, yet a walk"
            );
        }
        assert_ne!(code, 0, "{at}: dump of no capture");
        return 0;
    }
    let mut checked = 0;
    for spec in specs {
        let mine: Vec<&Line> = lines
            .iter()
            .filter(|l| {
                let kind = l.value["kind"].as_str();
                kind.is_some_and(|k| spec.kinds.contains(&k))
            })
            .collect();
        for &rows in batch_rows {
            let at = format!("{at} ({rows} rows a batch)");
            let (batches, summary) =
                table_batches(bytes, spec.table, rows).unwrap_or_else(|e| panic!("{at}: {e}"));
            check_rows(&batches, &mine, spec, &at);
            match code {
                0 => assert!(summary.fault.is_none(), "{at}: {:?}", summary.fault),
                1 => {
                    let got = summary.fault.map(|f| f.offset());
                    assert!(fault.is_some(), "{at}: dump's error names no offset");
                    assert_eq!(got, fault, "{at}: the fault");
                }
                other => panic!("{at}: dump exits {other}"),
            }
            checked += mine.len();
        }
    }
    checked
}

/// `f(item)` for every item, on two threads taking the next item as they finish; the results in
/// no particular order.
pub fn on_two_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(item) =
                    items.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let r = f(item);
                    results.lock().unwrap().push(r);
                }
            });
        }
    });
    results.into_inner().unwrap()
}

/// The cut points of a file of `len` bytes: the first bytes one by one (where the header is
/// cut), then a stride giving about 120 cuts of a file up to 64 KiB and 16 of a larger one (whose
/// every cut is a walk of up to megabytes, dumped and parsed).
pub fn cuts(len: usize) -> Vec<usize> {
    let count = if len <= 64 << 10 { 120 } else { 16 };
    let stride = (len / count).max(1);
    let mut cuts: Vec<usize> = (0..len.min(48)).chain((0..len).step_by(stride)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// A scratch path in the temporary directory, unique to the process and `name`.
pub fn scratch(tag: &str, name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "tracecap-{tag}-{}-{}",
        std::process::id(),
        name.replace('/', "_")
    ))
}
