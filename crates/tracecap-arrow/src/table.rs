//! The tables: their names, which format each belongs to, and their schemas.

use std::sync::{Arc, OnceLock};

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use tracecap::Format;

use crate::columns::{capture_field, dict_utf8};
use crate::formats;

/// A table of the export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Table {
    /// One row per capture.
    Captures,
    /// One row per track of the timeline.
    Tracks,
    /// One row per slice of the timeline.
    Slices,
    /// One row per instant of the timeline.
    Instants,
    /// One row per counter sample of the timeline.
    Counters,
    /// EasyProfiler: one row per block.
    EasyProfilerBlocks,
    /// EasyProfiler: one row per value (arbitrary value) record.
    EasyProfilerValues,
    /// syscall_capture: one row per system call.
    SyscallCalls,
    /// apitrace: one row per call.
    ApitraceCalls,
    /// Web Tracing Framework: one row per event.
    WtfEvents,
    /// Orbit: one row per client capture event.
    OrbitEvents,
}

impl Table {
    /// Every table, the five shared ones first.
    pub const ALL: [Table; 11] = [
        Table::Captures,
        Table::Tracks,
        Table::Slices,
        Table::Instants,
        Table::Counters,
        Table::EasyProfilerBlocks,
        Table::EasyProfilerValues,
        Table::SyscallCalls,
        Table::ApitraceCalls,
        Table::WtfEvents,
        Table::OrbitEvents,
    ];

    /// Its name: the folder of a dataset, the table name in SQL.
    pub const fn name(self) -> &'static str {
        match self {
            Table::Captures => "captures",
            Table::Tracks => "tracks",
            Table::Slices => "slices",
            Table::Instants => "instants",
            Table::Counters => "counters",
            Table::EasyProfilerBlocks => "easyprofiler_blocks",
            Table::EasyProfilerValues => "easyprofiler_values",
            Table::SyscallCalls => "syscall_calls",
            Table::ApitraceCalls => "apitrace_calls",
            Table::WtfEvents => "wtf_events",
            Table::OrbitEvents => "orbit_events",
        }
    }

    /// The table named `name`, if any.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The format whose captures fill it; `None` for the five shared tables.
    pub const fn format(self) -> Option<Format> {
        match self {
            Table::Captures | Table::Tracks | Table::Slices | Table::Instants | Table::Counters => {
                None
            }
            Table::EasyProfilerBlocks | Table::EasyProfilerValues => Some(Format::EasyProfiler),
            Table::SyscallCalls => Some(Format::Syscall),
            Table::ApitraceCalls => Some(Format::Apitrace),
            Table::WtfEvents => Some(Format::Wtf),
            Table::OrbitEvents => Some(Format::Orbit),
        }
    }

    /// Whether a capture of `format` has rows in it.
    pub fn holds(self, format: Format) -> bool {
        self.format().is_none_or(|f| f == format)
    }

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
            other => formats::fields(other),
        });
        Schema::new(fields)
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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

/// A set of tables: which ones a walk builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tables(u32);

impl Tables {
    /// Every table.
    pub const fn all() -> Tables {
        Tables((1 << Table::ALL.len()) - 1)
    }

    /// No table.
    pub const fn none() -> Tables {
        Tables(0)
    }

    /// `table` alone.
    pub const fn only(table: Table) -> Tables {
        Tables(1 << table as u32)
    }

    /// This set and `table`.
    #[must_use]
    pub const fn with(self, table: Table) -> Tables {
        Tables(self.0 | 1 << table as u32)
    }

    /// Whether `table` is in the set.
    pub const fn contains(self, table: Table) -> bool {
        self.0 & (1 << table as u32) != 0
    }

    /// The tables of the set, in [`Table::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Table> {
        Table::ALL.into_iter().filter(move |t| self.contains(*t))
    }
}

impl Default for Tables {
    fn default() -> Self {
        Tables::all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_schemas_start_with_the_capture() {
        for t in Table::ALL {
            assert_eq!(Table::from_name(t.name()), Some(t));
            let schema = t.schema();
            assert_eq!(schema.field(0).name(), "capture");
            assert!(schema.fields().len() > 1, "{t}");
        }
        assert_eq!(Table::from_name("nope"), None);
    }

    #[test]
    fn sets() {
        let s = Tables::only(Table::Slices).with(Table::Captures);
        assert!(s.contains(Table::Slices) && s.contains(Table::Captures));
        assert!(!s.contains(Table::Tracks));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [Table::Captures, Table::Slices]
        );
        assert_eq!(Tables::all().iter().count(), Table::ALL.len());
        assert_eq!(Tables::none().iter().count(), 0);
    }
}
