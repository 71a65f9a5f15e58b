//! What the `export_*` tests share: a per-format table of `tracecap_arrow` checked, row by row and
//! field by field, against the record lines `tracecap dump --json` prints, on every corpus file of
//! the format and on prefixes of it cut at a stride; and, on copies with one byte changed (at a
//! stride), the number of rows and the fault.
//!
//! A row is turned into a JSON object (Int64 as numbers, Boolean as booleans, text as strings,
//! the columns that hold JSON text parsed back) and compared with the object a record line gives
//! (the format's `expected`); the columns must be exactly the keys of that object. A column that
//! holds JSON text must also appear verbatim in the line (`"key":text`): the same bytes as `dump`.
//! On a cut or changed file, the rows are the record lines `dump` prints before its error, and the
//! fault of the walk's summary is at the offset its error names (`error: ... at offset 0x..`,
//! exit 1).
#![allow(dead_code)] // each test file uses part of it

use std::path::Path;

use serde_json::{Map, Value};
use tracecap_arrow::arrow_array::cast::AsArray;
use tracecap_arrow::arrow_array::types::{Int32Type, Int64Type};
use tracecap_arrow::arrow_array::{Array, RecordBatch};
use tracecap_arrow::arrow_schema::DataType;
use tracecap_arrow::{capture_batches, Options, Table};

/// What turns a record line into the row it should give.
pub type Expect = Box<dyn Fn(&Value) -> Map<String, Value>>;

/// How a format's table is checked.
pub struct Check {
    /// The corpus folder and the extension of its captures.
    pub format: &'static str,
    pub ext: &'static str,
    pub table: Table,
    /// Whether a line of `dump --json` is one of the table's records.
    pub is_record: fn(&Value) -> bool,
    /// The columns that hold JSON text.
    pub nested: &'static [&'static str],
    /// From the record lines of the whole file, what turns a record line into the row it should
    /// give.
    pub expected: fn(&[Value]) -> Expect,
}

/// Cuts per file (at a stride through it): this many for files up to [`SMALL`] bytes, fewer for
/// larger ones (each cut is walked and dumped whole), at least [`MIN_CUTS`].
const CUTS: usize = 48;
const SMALL: usize = 128 << 10;
const MIN_CUTS: usize = 12;

/// Exit code, stdout lines and the last stderr line of `tracecap dump --json path`.
pub fn dump_json(path: &Path) -> (u8, Vec<String>, String) {
    let argv = ["tracecap", "dump", "--json", path.to_str().unwrap()];
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = tracecap_cli::main_with(argv.iter().map(Into::into), &mut out, &mut err);
    let out = String::from_utf8(out).unwrap();
    let err = String::from_utf8_lossy(&err);
    let last = err.lines().last().unwrap_or_default().to_owned();
    (code, out.lines().map(str::to_owned).collect(), last)
}

/// The offset an error line names: `... at offset 0x..`.
pub fn fault_offset(line: &str) -> Option<u64> {
    let (_, hex) = line.rsplit_once(" at offset 0x")?;
    u64::from_str_radix(hex, 16).ok()
}

/// A row as its cells' text (numbers and booleans as JSON writes them, `None` for null).
type Raw = Vec<Option<String>>;

/// Row `i` of `col` as text.
fn raw_cell(col: &dyn Array, i: usize) -> Option<String> {
    if col.is_null(i) {
        return None;
    }
    Some(match col.data_type() {
        DataType::Int64 => col.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::Boolean => col.as_boolean().value(i).to_string(),
        _ => {
            if let Some(d) = col.as_dictionary_opt::<Int32Type>() {
                let key = d.keys().value(i) as usize;
                d.values().as_string::<i32>().value(key).to_owned()
            } else {
                col.as_string::<i32>().value(i).to_owned()
            }
        }
    })
}

/// The rows of a table: its column names (after `capture`) and types, and each row's cells.
pub struct Rows {
    names: Vec<String>,
    types: Vec<DataType>,
    rows: Vec<Raw>,
}

/// The rows of `table` in `data`, with the offset of the walk's fault; `None` when the bytes are
/// no capture.
pub fn rows(data: &[u8], table: Table, batch_rows: usize) -> Option<(Rows, Option<u64>)> {
    let schema = table.schema();
    let fields = schema.fields().iter().skip(1);
    let mut out = Rows {
        names: fields.clone().map(|f| f.name().clone()).collect(),
        types: fields.map(|f| f.data_type().clone()).collect(),
        rows: Vec::new(),
    };
    let options = Options {
        batch_rows,
        ..Options::only(table)
    };
    let summary = capture_batches("x", data, &options, &mut |t: Table, b: RecordBatch| {
        if t != table {
            return Ok(());
        }
        assert_eq!(b.schema(), table.schema());
        assert!(b.num_rows() <= batch_rows);
        for i in 0..b.num_rows() {
            let cells = b.columns().iter().skip(1);
            out.rows
                .push(cells.map(|c| raw_cell(c.as_ref(), i)).collect());
        }
        Ok(())
    });
    match summary {
        Ok(s) => Some((out, s.fault.map(|f| f.offset()))),
        Err(tracecap_arrow::Error::NotACapture { .. }) => None,
        Err(e) => panic!("{e}"),
    }
}

/// The JSON object of a row: Int64 as numbers, Boolean as booleans, text as strings, the columns
/// in `nested` parsed.
fn row_json(rows: &Rows, row: &Raw, nested: &[&str]) -> Map<String, Value> {
    let mut m = Map::new();
    for ((name, ty), cell) in rows.names.iter().zip(&rows.types).zip(row) {
        let v = match (cell, ty) {
            (None, _) => Value::Null,
            (Some(t), DataType::Int64 | DataType::Boolean) => serde_json::from_str(t).unwrap(),
            (Some(t), _) if nested.contains(&name.as_str()) => {
                serde_json::from_str(t).unwrap_or_else(|e| panic!("{e}: {t}"))
            }
            (Some(t), _) => Value::String(t.clone()),
        };
        m.insert(name.clone(), v);
    }
    m
}

/// Compares row `i` with its record line field by field; the disagreements found.
fn compare_row(
    at: &str,
    check: &Check,
    rows: &Rows,
    i: usize,
    line: &str,
    expect: &dyn Fn(&Value) -> Map<String, Value>,
) -> Vec<String> {
    let mut bad = Vec::new();
    let row = row_json(rows, &rows.rows[i], check.nested);
    let want = expect(&serde_json::from_str(line).unwrap());
    let cols: Vec<&String> = row.keys().collect();
    let keys: Vec<&String> = want.keys().collect();
    if cols != keys {
        bad.push(format!("{at}: row {i}: columns {cols:?}, keys {keys:?}"));
    } else if row != want {
        for (k, v) in &row {
            if want.get(k) != Some(v) {
                let w = want.get(k).map(Value::to_string).unwrap_or_default();
                bad.push(format!(
                    "{at}: row {i}: column {k}: {}\n    line: {}",
                    short(&v.to_string()),
                    short(&w)
                ));
            }
        }
    }
    // The JSON text of a nested column is the bytes dump prints.
    for (name, cell) in rows.names.iter().zip(&rows.rows[i]) {
        if let (true, Some(text)) = (check.nested.contains(&name.as_str()), cell) {
            if !line.contains(&format!("\"{name}\":{text}")) {
                bad.push(format!(
                    "{at}: row {i}: {name} is not the bytes dump prints: {}",
                    short(text)
                ));
            }
        }
    }
    bad
}

fn short(s: &str) -> &str {
    let mut end = s.len().min(300);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The whole file: its dump lines, which of them are records, and its rows.
struct Whole {
    lines: Vec<String>,
    record: Vec<bool>,
    rows: Rows,
}

/// Compares the rows of a file (or of a prefix of it) with its dump lines; the disagreements
/// found. A prefix's line that is the whole file's line, with a row that is the whole file's
/// row (already compared), is not compared again.
fn compare(
    at: &str,
    check: &Check,
    rows: &Rows,
    lines: &[String],
    whole: Option<&Whole>,
    expect: &dyn Fn(&Value) -> Map<String, Value>,
) -> Vec<String> {
    let mut bad = Vec::new();
    let mut n = 0;
    for (j, line) in lines.iter().enumerate() {
        let same_line = whole.is_some_and(|w| w.lines.get(j) == Some(line));
        let is_record = match whole {
            Some(w) if same_line => w.record[j],
            _ => (check.is_record)(&serde_json::from_str(line).unwrap()),
        };
        if !is_record {
            continue;
        }
        let i = n;
        n += 1;
        let Some(row) = rows.rows.get(i) else {
            continue;
        };
        let same_row = whole.is_some_and(|w| w.rows.rows.get(i) == Some(row));
        if !(same_line && same_row) {
            bad.extend(compare_row(at, check, rows, i, line, expect));
        }
        if bad.len() > 20 {
            return bad;
        }
    }
    if rows.rows.len() != n {
        bad.push(format!("{at}: {} rows, {n} record lines", rows.rows.len()));
    }
    bad
}

/// Checks one file and its prefixes; returns the disagreements, the rows of the whole file and
/// the number of cuts with rows before a fault.
fn check_file(check: &Check, path: &Path, scratch: &Path) -> (Vec<String>, usize, usize) {
    let name = path.display().to_string();
    let bytes = tracecap_testkit::read(path);
    let (code, lines, last) = dump_json(path);
    assert!(code <= 1, "{name}: exit {code}: {last}");
    let parsed: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    let record: Vec<bool> = parsed.iter().map(|v| (check.is_record)(v)).collect();
    let records: Vec<Value> = parsed
        .into_iter()
        .zip(&record)
        .filter(|(_, r)| **r)
        .map(|(v, _)| v)
        .collect();
    let expect = (check.expected)(&records);
    let mut bad = Vec::new();
    let want = if code == 1 { fault_offset(&last) } else { None };
    let mut whole = None;
    for batch_rows in [7, 1 << 16] {
        let Some((rows, fault)) = rows(&bytes, check.table, batch_rows) else {
            // No capture at all: dump says so at offset 0.
            assert_eq!((code, want), (1, Some(0)), "{name}: {last}");
            return (bad, 0, 0);
        };
        if fault != want {
            bad.push(format!("{name}: fault at {fault:?}, dump: {last}"));
        }
        match &whole {
            None => {
                bad.extend(compare(&name, check, &rows, &lines, None, &*expect));
                whole = Some(Whole {
                    lines: lines.clone(),
                    record: record.clone(),
                    rows,
                });
            }
            Some(w) => {
                if rows.rows != w.rows.rows {
                    bad.push(format!("{name}: other rows in batches of {batch_rows}"));
                }
            }
        }
    }
    let Some(whole) = whole else {
        return (bad, 0, 0);
    };
    let mut damaged = 0;
    let cuts = (CUTS * SMALL / bytes.len().max(1)).clamp(MIN_CUTS, CUTS);
    let stride = (bytes.len() / cuts).max(1);
    let cut_path = scratch.join(path.file_name().unwrap());
    for cut in (1..bytes.len()).step_by(stride) {
        let at = format!("{name} cut at {cut:#x}");
        let prefix = &bytes[..cut];
        std::fs::write(&cut_path, prefix).unwrap();
        let (code, lines, last) = dump_json(&cut_path);
        let Some((rows, fault)) = rows(prefix, check.table, 1 << 16) else {
            if (code, fault_offset(&last)) != (1, Some(0)) {
                bad.push(format!("{at}: no capture, but dump: {last}"));
            }
            continue;
        };
        bad.extend(compare(&at, check, &rows, &lines, Some(&whole), &*expect));
        let want = match code {
            0 => None,
            1 => fault_offset(&last),
            _ => {
                bad.push(format!("{at}: dump exit {code}: {last}"));
                continue;
            }
        };
        if fault != want {
            bad.push(format!("{at}: fault at {fault:?}, dump: {last}"));
        }
        damaged += usize::from(fault.is_some() && !rows.rows.is_empty());
    }
    // Single bytes changed at a stride: the same rows and fault as dump's (the rows' values are
    // compared on the cuts; here, how many there are and where the walk stops).
    let mut rng = tracecap_testkit::Rng(0x5eed ^ bytes.len() as u64);
    let mut copy = bytes.clone();
    for at in (0..bytes.len()).step_by(stride * 2) {
        let at = (at + rng.below(stride)).min(bytes.len() - 1);
        let old = copy[at];
        copy[at] ^= 1 << rng.below(8);
        let what = format!("{name} with the byte at {at:#x} changed");
        std::fs::write(&cut_path, &copy).unwrap();
        let (code, lines, last) = dump_json(&cut_path);
        let got = rows(&copy, check.table, 1 << 16);
        copy[at] = old;
        let Some((rows, fault)) = got else {
            if (code, fault_offset(&last)) != (1, Some(0)) {
                bad.push(format!("{what}: no capture, but dump: {last}"));
            }
            continue;
        };
        let records = lines
            .iter()
            .enumerate()
            .filter(|&(j, l)| match whole.lines.get(j) {
                Some(w) if w == l => whole.record[j],
                _ => (check.is_record)(&serde_json::from_str(l).unwrap()),
            })
            .count();
        if rows.rows.len() != records {
            bad.push(format!(
                "{what}: {} rows, {records} record lines",
                rows.rows.len()
            ));
        }
        let want = if code == 1 { fault_offset(&last) } else { None };
        if code > 1 || fault != want {
            bad.push(format!(
                "{what}: fault at {fault:?}, dump exit {code}: {last}"
            ));
        }
        damaged += usize::from(fault.is_some() && !rows.rows.is_empty());
    }
    let _ = std::fs::remove_file(&cut_path);
    (bad, whole.rows.rows.len(), damaged)
}

/// Checks every corpus file of the format (SKIPPED when the corpus is missing).
pub fn check_corpus(check: &Check) {
    let files = tracecap_testkit::corpus_paths(check.format, &[], check.ext);
    if files.is_empty() {
        return;
    }
    let scratch = std::env::temp_dir().join(format!(
        "tracecap-export-{}-{}",
        check.format,
        std::process::id()
    ));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut bad = Vec::new();
    let mut total = 0;
    let mut damaged = 0;
    for path in &files {
        let (b, n, d) = check_file(check, path, &scratch);
        bad.extend(b);
        total += n;
        damaged += d;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(total > 0, "the corpus has {} rows", check.table);
    assert!(damaged > 0, "some cuts have rows before their fault");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
