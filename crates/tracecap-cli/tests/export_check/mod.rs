//! What the `export_*` tests share: a per-format table of `tracecap_arrow` checked, row by row and
//! field by field, against the record lines `tracecap dump --json` prints, on every file given
//! (whole, at two batch sizes), on prefixes of it (its first bytes one by one, then at a stride)
//! and, on copies with one byte changed (at a stride), the number of rows and the fault.
//!
//! A record line gives the row it should be through the format's `expected` (its members in the
//! table's column order, [`line_as_row`] where they are the columns); the columns after `capture`
//! must be exactly its keys, in that order. Each cell is compared with the member of its column:
//! null for null, an Int64 with an integer (one past `i64::MAX` as `i64::MAX`, where
//! `tracecap_arrow` saturates), a Float32 or Float64 with a number as that type, a Boolean with a
//! boolean, text with a string; and JSON text, parsed, with any value (in the columns the format
//! names `nested`) or with an array or object (in any Utf8 column), its text also verbatim in the
//! line (`"key":text`): the same bytes as `dump`. The walk gives only
//! the table asked for, in batches of the table's schema that are neither empty nor larger than
//! asked. On a cut or changed file, the rows are the record lines `dump` prints before its error,
//! and the fault of the walk's summary is at the offset its error names (`error: ... at offset
//! 0x..`, exit 1); bytes that are no capture are no walk, and `dump` says so at offset 0.
#![allow(dead_code)] // each test file uses part of it

#[path = "../common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tracecap_arrow::arrow_array::cast::AsArray;
use tracecap_arrow::arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use tracecap_arrow::arrow_array::{Array, RecordBatch};
use tracecap_arrow::arrow_schema::DataType;
use tracecap_arrow::{capture_batches, Options, Table};

/// What turns a record line into the row it should give.
pub type Expect = Box<dyn Fn(&Value) -> Map<String, Value>>;

/// How a format's table is checked.
pub struct Check {
    pub table: Table,
    /// Whether a line of `dump --json` is one of the table's records.
    pub is_record: fn(&Value) -> bool,
    /// The columns that hold JSON text whatever their value (another Utf8 column holds it where
    /// the line has an array or object).
    pub nested: &'static [&'static str],
    /// From the record lines of the whole file, what turns a record line into the row it should
    /// give.
    pub expected: fn(&[Value]) -> Expect,
}

/// The row of a record line whose members are the table's columns, but those of `dropped` (a
/// member and the text every record line has there, as `("kind", "value")`): the members in the
/// table's column order. A column the line lacks, a member that is no column, or a dropped member
/// with other text fails the test.
pub fn line_as_row(table: Table, line: &Value, dropped: &[(&str, &str)]) -> Map<String, Value> {
    let mut l = line.as_object().unwrap().clone();
    for (key, text) in dropped {
        assert_eq!(l.remove(*key), Some(Value::from(*text)), "{line}");
    }
    let mut row = Map::new();
    for f in table.schema().fields().iter().skip(1) {
        let v = l.remove(f.name());
        row.insert(
            f.name().clone(),
            v.unwrap_or_else(|| panic!("no {}", f.name())),
        );
    }
    assert!(l.is_empty(), "keys not in the table: {l:?}");
    row
}

/// Cuts per file at a stride, besides its first [`HEADER_CUTS`] bytes one by one: 120 for a file
/// up to [`SMALL`] bytes, fewer for larger ones (each cut is walked and dumped whole), at least
/// [`MIN_CUTS`].
const CUTS: usize = 120;
const SMALL: usize = 64 << 10;
const MIN_CUTS: usize = 16;
const HEADER_CUTS: usize = 48;

/// Rows a batch when the walk of a cut or changed file is batched.
const CUT_BATCH_ROWS: usize = 1000;

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

/// A row as its cells' text (numbers and booleans as Rust prints them, `None` for null).
type Raw = Vec<Option<String>>;

/// Row `i` of `col` as text.
fn raw_cell(col: &dyn Array, i: usize) -> Option<String> {
    if col.is_null(i) {
        return None;
    }
    Some(match col.data_type() {
        DataType::Int64 => col.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::Float32 => col.as_primitive::<Float32Type>().value(i).to_string(),
        DataType::Float64 => col.as_primitive::<Float64Type>().value(i).to_string(),
        DataType::Boolean => col.as_boolean().value(i).to_string(),
        DataType::Utf8 => col.as_string::<i32>().value(i).to_owned(),
        DataType::Dictionary(..) => {
            let d = col.as_dictionary::<Int32Type>();
            let key = d.keys().value(i) as usize;
            d.values().as_string::<i32>().value(key).to_owned()
        }
        other => panic!("a {other} column"),
    })
}

/// The rows of a table: its column names (after `capture`) and types, and each row's cells.
pub struct Rows {
    names: Vec<String>,
    types: Vec<DataType>,
    rows: Vec<Raw>,
}

/// The rows of `table` in `data`, walked in batches of at most `batch_rows` rows, with the offset
/// of the walk's fault; `None` when the bytes are no capture.
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
        assert_eq!(t, table, "only the table asked for");
        assert_eq!(b.schema(), table.schema());
        assert!(b.num_rows() <= batch_rows, "{} rows", b.num_rows());
        assert!(b.num_rows() > 0, "an empty batch");
        for i in 0..b.num_rows() {
            let cells = b.columns().iter().skip(1);
            out.rows
                .push(cells.map(|c| raw_cell(c.as_ref(), i)).collect());
        }
        Ok(())
    });
    match summary {
        Ok(s) => Some((out, s.fault.map(|f| f.offset()))),
        Err(tracecap_arrow::Error::NotACapture(_)) => None,
        Err(e) => panic!("{e}"),
    }
}

/// How cell `cell` of column `name` (of type `ty`; JSON text whatever its value when `nested`)
/// differs from `want`, the member of its column in the record line `line`; `None` when it holds
/// it.
fn cell_differs(
    (name, ty, nested): (&str, &DataType, bool),
    cell: Option<&str>,
    want: &Value,
    line: &str,
) -> Option<String> {
    let Some(text) = cell else {
        return (!want.is_null()).then(|| format!("null, want {want}"));
    };
    let holds = match (want, ty) {
        (Value::Null, _) => false,
        (_, DataType::Utf8) if nested || want.is_array() || want.is_object() => {
            let parsed: Result<Value, _> = serde_json::from_str(text);
            if !parsed.is_ok_and(|p| p == *want) {
                false
            } else if !line.contains(&format!("\"{name}\":{text}")) {
                return Some(format!("{} is not the bytes dump prints", short(text)));
            } else {
                true
            }
        }
        (Value::Bool(b), DataType::Boolean) => text == b.to_string(),
        // Numbers past i64::MAX saturate (tracecap_arrow's columns::int).
        (Value::Number(n), DataType::Int64) => {
            let w = n.as_i64().or_else(|| n.as_u64().map(|_| i64::MAX));
            w.is_some() && text.parse::<i64>().ok() == w
        }
        (Value::Number(n), DataType::Float32) => {
            let w = n.as_f64().map(|w| w as f32);
            w.is_some() && text.parse::<f32>().ok() == w
        }
        (Value::Number(n), DataType::Float64) => {
            n.as_f64().is_some() && text.parse::<f64>().ok() == n.as_f64()
        }
        (Value::String(s), DataType::Utf8 | DataType::Dictionary(..)) => text == s,
        _ => false,
    };
    (!holds).then(|| format!("{} ({ty}), want {}", short(text), short(&want.to_string())))
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
    let want = expect(&serde_json::from_str(line).unwrap());
    let keys: Vec<&String> = want.keys().collect();
    let cols: Vec<&String> = rows.names.iter().collect();
    if cols != keys {
        return vec![format!("{at}: row {i}: columns {cols:?}, keys {keys:?}")];
    }
    let cells = rows.names.iter().zip(&rows.types).zip(&rows.rows[i]);
    let mut bad = Vec::new();
    for ((name, ty), cell) in cells {
        let column = (name.as_str(), ty, check.nested.contains(&name.as_str()));
        if let Some(why) = cell_differs(column, cell.as_deref(), &want[name], line) {
            bad.push(format!(
                "{at}: row {i}: column {name}: {why}\n    line: {}",
                short(line)
            ));
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

/// The whole file's rows of one table: which of its dump lines are records, and the rows.
struct Whole {
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
    whole: Option<(&[String], &Whole)>,
    expect: &dyn Fn(&Value) -> Map<String, Value>,
) -> Vec<String> {
    let mut bad = Vec::new();
    let mut n = 0;
    for (j, line) in lines.iter().enumerate() {
        let same_line = whole.is_some_and(|(l, _)| l.get(j) == Some(line));
        let is_record = match whole {
            Some((_, w)) if same_line => w.record[j],
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
        let same_row = whole.is_some_and(|(_, w)| w.rows.rows.get(i) == Some(row));
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

/// The dump exit code and the fault offset its error names, `None` for a clean dump; any exit
/// but 0 and 1, or a failed dump that names no offset, is a disagreement.
fn dump_fault(at: &str, code: u8, last: &str, bad: &mut Vec<String>) -> Option<u64> {
    match code {
        0 => None,
        1 => {
            let at_offset = fault_offset(last);
            if at_offset.is_none() {
                bad.push(format!("{at}: dump's error names no offset: {last}"));
            }
            at_offset
        }
        _ => {
            bad.push(format!("{at}: dump exit {code}: {last}"));
            None
        }
    }
}

/// Checks `bytes`, which are no capture: no walk, and dump says so at offset 0.
fn no_capture(at: &str, checks: &[Check], bytes: &[u8], code: u8, last: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for check in checks {
        if rows(bytes, check.table, CUT_BATCH_ROWS).is_some() {
            bad.push(format!("{at}: no capture, yet a walk of {}", check.table));
        }
    }
    if (code, fault_offset(last)) != (1, Some(0)) {
        bad.push(format!("{at}: no capture, but dump: {last}"));
    }
    bad
}

/// What checking a file found: the disagreements, the rows of each table of the whole file and
/// the number of cuts and changed copies with rows before a fault.
struct Found {
    bad: Vec<String>,
    rows: Vec<usize>,
    damaged: usize,
}

/// Checks one file, its prefixes and copies with a byte changed; `cut_path` is where those are
/// written for dump.
fn check_file(checks: &[Check], path: &Path, cut_path: &Path) -> Found {
    let name = path.display().to_string();
    let bytes = tracecap_testkit::read(path);
    let mut found = Found {
        bad: Vec::new(),
        rows: vec![0; checks.len()],
        damaged: 0,
    };
    std::fs::write(cut_path, &bytes).unwrap();
    let (code, lines, last) = dump_json(cut_path);
    if tracecap::detect(&bytes).is_none() {
        found.bad = no_capture(&name, checks, &bytes, code, &last);
        return found;
    }
    let want = dump_fault(&name, code, &last, &mut found.bad);
    let parsed: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    let mut wholes = Vec::new();
    let mut expects = Vec::new();
    for (k, check) in checks.iter().enumerate() {
        let record: Vec<bool> = parsed.iter().map(|v| (check.is_record)(v)).collect();
        let records: Vec<Value> = parsed
            .iter()
            .zip(&record)
            .filter(|(_, r)| **r)
            .map(|(v, _)| v.clone())
            .collect();
        let expect = (check.expected)(&records);
        let mut whole: Option<Whole> = None;
        for batch_rows in [7, 1 << 16] {
            let at = format!("{name} ({} in batches of {batch_rows})", check.table);
            let Some((rows, fault)) = rows(&bytes, check.table, batch_rows) else {
                found.bad.push(format!("{at}: a capture, yet no walk"));
                return found;
            };
            if fault != want {
                found
                    .bad
                    .push(format!("{at}: fault at {fault:?}, dump: {last}"));
            }
            match &whole {
                None => {
                    found
                        .bad
                        .extend(compare(&at, check, &rows, &lines, None, &*expect));
                    found.rows[k] = rows.rows.len();
                    whole = Some(Whole {
                        record: record.clone(),
                        rows,
                    });
                }
                Some(w) if rows.rows != w.rows.rows => {
                    found
                        .bad
                        .push(format!("{at}: other rows than in batches of 7"));
                }
                Some(_) => {}
            }
        }
        wholes.extend(whole);
        expects.push(expect);
    }
    let count = (CUTS * SMALL / bytes.len().max(1)).clamp(MIN_CUTS, CUTS);
    let stride = (bytes.len() / count).max(1);
    let mut cuts: Vec<usize> = (0..bytes.len().min(HEADER_CUTS))
        .chain((0..bytes.len()).step_by(stride))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    for cut in cuts {
        let at = format!("{name} cut at {cut:#x}");
        check_damaged(
            &at,
            checks,
            &bytes[..cut],
            cut_path,
            &mut found,
            |k, at, rows, got| {
                let whole = Some((&lines[..], &wholes[k]));
                compare(at, &checks[k], rows, got, whole, &*expects[k])
            },
        );
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
        check_damaged(
            &what,
            checks,
            &copy,
            cut_path,
            &mut found,
            |k, what, rows, got| {
                let records = got
                    .iter()
                    .enumerate()
                    .filter(|&(j, l)| match lines.get(j) {
                        Some(w) if w == l => wholes[k].record[j],
                        _ => (checks[k].is_record)(&serde_json::from_str(l).unwrap()),
                    })
                    .count();
                if rows.rows.len() == records {
                    return Vec::new();
                }
                vec![format!(
                    "{what}: {} rows, {records} record lines",
                    rows.rows.len()
                )]
            },
        );
        copy[at] = old;
    }
    found
}

/// Checks damaged `bytes` (a cut or changed copy of a file) against what dump prints for them
/// (written to `path`): when they are no capture, that neither walks; else, for each table (by
/// its index in `checks`), `lines_agree` on its rows and dump's lines, and the walk's fault at the
/// offset dump's error names. Adds what it finds to `found`.
fn check_damaged(
    at: &str,
    checks: &[Check],
    bytes: &[u8],
    path: &Path,
    found: &mut Found,
    lines_agree: impl Fn(usize, &str, &Rows, &[String]) -> Vec<String>,
) {
    std::fs::write(path, bytes).unwrap();
    let (code, lines, last) = dump_json(path);
    if tracecap::detect(bytes).is_none() {
        found.bad.extend(no_capture(at, checks, bytes, code, &last));
        return;
    }
    let want = dump_fault(at, code, &last, &mut found.bad);
    for (k, check) in checks.iter().enumerate() {
        let at = format!("{at} ({})", check.table);
        let Some((rows, fault)) = rows(bytes, check.table, CUT_BATCH_ROWS) else {
            found.bad.push(format!("{at}: a capture, yet no walk"));
            continue;
        };
        found.bad.extend(lines_agree(k, &at, &rows, &lines));
        if fault != want {
            found
                .bad
                .push(format!("{at}: fault at {fault:?}, dump: {last}"));
        }
        found.damaged += usize::from(fault.is_some() && !rows.rows.is_empty());
    }
}

/// Checks the tables of `checks` on every file of `files` (an empty list: the corpus is missing,
/// and its loader said so), two files at a time; `tag` names their scratch folder. Every table
/// must have rows, and some cut or changed copy rows before its fault.
pub fn check_files(checks: &[Check], files: &[PathBuf], tag: &str) {
    if files.is_empty() {
        return;
    }
    let scratch = std::env::temp_dir().join(format!("tracecap-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let found = common::on_two_threads(files, |i, path| {
        let file = path.file_name().unwrap().to_string_lossy();
        let cut_path = scratch.join(format!("{i}-{file}"));
        let found = check_file(checks, path, &cut_path);
        let _ = std::fs::remove_file(&cut_path);
        found
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let mut bad = Vec::new();
    let mut rows = vec![0; checks.len()];
    let mut damaged = 0;
    for f in found {
        bad.extend(f.bad);
        for (total, n) in rows.iter_mut().zip(f.rows) {
            *total += n;
        }
        damaged += f.damaged;
    }
    for (check, n) in checks.iter().zip(&rows) {
        assert!(*n > 0, "the files have no {} rows", check.table);
    }
    assert!(damaged > 0, "some cuts have rows before their fault");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
