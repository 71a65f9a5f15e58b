//! Test support for the per-format tables: a table's rows as JSON objects.
#![allow(dead_code)] // each test file uses part of it

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use serde_json::{Map, Value};
use tracecap_arrow::{capture_batches, CaptureSummary, Options, Table};

/// Row `i` of `col` as JSON: Int64 as a number, Boolean as a boolean, text as a string (parsed
/// when `nested`: the column holds JSON text), null as null.
pub fn cell(col: &dyn Array, i: usize, nested: bool) -> Value {
    if col.is_null(i) {
        return Value::Null;
    }
    match col.data_type() {
        DataType::Int64 => Value::from(col.as_primitive::<Int64Type>().value(i)),
        DataType::Boolean => Value::Bool(col.as_boolean().value(i)),
        _ => {
            let text = match col.as_dictionary_opt::<Int32Type>() {
                Some(d) => {
                    let key = d.keys().value(i) as usize;
                    d.values().as_string::<i32>().value(key).to_owned()
                }
                None => col.as_string::<i32>().value(i).to_owned(),
            };
            if nested {
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
            } else {
                Value::String(text)
            }
        }
    }
}

/// The rows of `table` in `data` as JSON objects keyed by column (without `capture`), the
/// columns in `nested` parsed, in batches of `batch_rows`; and the walk's summary.
pub fn rows(
    data: &[u8],
    table: Table,
    nested: &[&str],
    batch_rows: usize,
) -> (Vec<Map<String, Value>>, CaptureSummary) {
    let mut rows = Vec::new();
    let options = Options {
        batch_rows,
        ..Options::only(table)
    };
    let summary = capture_batches("x", data, &options, &mut |t: Table, b: RecordBatch| {
        if t == table {
            assert_eq!(b.schema(), table.schema());
            assert!(b.num_rows() > 0 && b.num_rows() <= batch_rows);
            let schema = b.schema();
            for i in 0..b.num_rows() {
                let mut row = Map::new();
                for (f, col) in schema.fields().iter().zip(b.columns()).skip(1) {
                    let is_nested = nested.contains(&f.name().as_str());
                    row.insert(f.name().clone(), cell(col.as_ref(), i, is_nested));
                }
                rows.push(row);
            }
        }
        Ok(())
    })
    .expect("a capture"); // ok: test-only
    (rows, summary)
}
