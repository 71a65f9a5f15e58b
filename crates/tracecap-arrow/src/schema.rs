//! The columns of each table: [`Table::schema`]. The shared tables' columns are here; a
//! per-format table's come from its module of `formats`, beside the walk that fills them.

use std::sync::{Arc, OnceLock};

use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::columns::{capture_field, dict_utf8};
use crate::formats;
use crate::table::Table;

impl Table {
    /// Its schema (the same for every capture; the first column is always `capture`).
    pub fn schema(self) -> SchemaRef {
        static SCHEMAS: OnceLock<Vec<SchemaRef>> = OnceLock::new();
        let all = SCHEMAS.get_or_init(|| Table::ALL.iter().map(|t| Arc::new(t.build())).collect());
        match all.get(self as usize) {
            Some(s) => Arc::clone(s),
            None => Arc::new(self.build()), // ok: never, ALL holds every table in order
        }
    }

    fn build(self) -> Schema {
        let mut fields = vec![capture_field()];
        fields.extend(match self {
            Table::Captures => captures_fields(),
            Table::Tracks => tracks_fields(),
            Table::Slices => slices_fields(),
            Table::Instants => instants_fields(),
            Table::Counters => counters_fields(),
            Table::StackSamples => stack_samples_fields(),
            Table::StackFrames => stack_frames_fields(),
            other => formats::fields(other),
        });
        Schema::new(fields)
    }
}

fn captures_fields() -> Vec<Field> {
    vec![
        Field::new("path", DataType::Utf8, false),
        dict_utf8("format", false),
        Field::new("version", DataType::Utf8, true),
        Field::new("bytes", DataType::Int64, false),
        Field::new("start_ns", DataType::Int64, true),
        Field::new("end_ns", DataType::Int64, true),
        Field::new("fault", DataType::Utf8, true),
        Field::new("fault_offset", DataType::Int64, true),
    ]
}

fn tracks_fields() -> Vec<Field> {
    vec![
        Field::new("track", DataType::Int64, false),
        Field::new("parent", DataType::Int64, true),
        dict_utf8("kind", false),
        Field::new("name", DataType::Utf8, false),
        Field::new("pid", DataType::Int64, true),
        Field::new("tid", DataType::Int64, true),
    ]
}

fn slices_fields() -> Vec<Field> {
    vec![
        Field::new("track", DataType::Int64, false),
        Field::new("ts", DataType::Int64, false),
        Field::new("dur", DataType::Int64, true),
        Field::new("depth", DataType::Int32, false),
        dict_utf8("name", false),
        dict_utf8("category", false),
        Field::new("args", DataType::Utf8, true),
    ]
}

fn instants_fields() -> Vec<Field> {
    vec![
        Field::new("track", DataType::Int64, false),
        Field::new("ts", DataType::Int64, false),
        dict_utf8("name", false),
        dict_utf8("category", false),
        Field::new("args", DataType::Utf8, true),
    ]
}

fn counters_fields() -> Vec<Field> {
    vec![
        Field::new("track", DataType::Int64, false),
        Field::new("ts", DataType::Int64, false),
        Field::new("value", DataType::Float64, false),
    ]
}

fn stack_samples_fields() -> Vec<Field> {
    vec![
        Field::new("track", DataType::Int64, false),
        Field::new("ts", DataType::Int64, false),
        Field::new("stack", DataType::UInt64, false),
        Field::new("weight", DataType::Int64, false),
        dict_utf8("kind", false),
        Field::new("call", DataType::Utf8, true),
    ]
}

fn stack_frames_fields() -> Vec<Field> {
    vec![
        Field::new("stack", DataType::UInt64, false),
        Field::new("depth", DataType::Int32, false),
        dict_utf8("function", false),
        dict_utf8("module", false),
        dict_utf8("file", false),
        Field::new("line", DataType::Int64, true),
        Field::new("address", DataType::UInt64, true),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_start_with_the_capture() {
        for t in Table::ALL {
            let schema = t.schema();
            assert_eq!(schema.field(0).name(), "capture");
            assert!(schema.fields().len() > 1, "{t}");
        }
    }
}
