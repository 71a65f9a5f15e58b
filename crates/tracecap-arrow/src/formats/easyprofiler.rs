//! EasyProfiler's own tables: what `tracecap dump --json` shows of each block, event and value
//! record.
//!
//! `easyprofiler_blocks` has one row per block or event record, `easyprofiler_values` one row per
//! value record, in file order (each thread's records in the order they ended). Times are in the
//! file's unit (`begin`, `end`, `time`: CPU ticks, or nanoseconds when the header's CPU frequency
//! is 0) and in nanoseconds (`*_ns`). `depth` is the number of blocks around the record, from the
//! block tree that upstream's reader rebuilds over the whole thread (over the records before the
//! fault in a damaged thread). A value's `data` is the JSON array `dump` prints
//! (`tracecap_easyprofiler::json::value_data`): its elements as numbers or booleans (a `Float` as
//! the double it widens to, `null` when not finite), or a `String` value's text as one string.
//!
//! The walk reads the capture as `dump` does, thread by thread: a damaged descriptor, thread,
//! context switch, record or trailer stops it at the same offset, after the rows of every record
//! before it.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use arrow_schema::{ArrowError, DataType, Field};
use tracecap::adapter::scratch::{Scratch, HEAP_BUDGET};
use tracecap::ConvertError;
use tracecap_easyprofiler::{
    json, Block, Capture, Error, Header, KindTable, NestSlot, Record, Thread, Value,
};

use crate::columns::{dict_utf8, int};
use crate::emit::Emit;
use crate::table::Table;

pub(crate) fn fields(table: Table) -> Vec<Field> {
    let i64 = |name: &str| Field::new(name, DataType::Int64, false);
    match table {
        Table::EasyProfilerBlocks => vec![
            i64("offset"),
            dict_utf8("kind", false),
            i64("thread"),
            i64("begin"),
            i64("end"),
            i64("begin_ns"),
            i64("end_ns"),
            i64("id"),
            dict_utf8("name", false),
            i64("depth"),
        ],
        Table::EasyProfilerValues => vec![
            i64("offset"),
            i64("thread"),
            i64("time"),
            i64("time_ns"),
            i64("id"),
            i64("value_id"),
            dict_utf8("type", false),
            Field::new("array", DataType::Boolean, false),
            Field::new("data", DataType::Utf8, false),
        ],
        _ => Vec::new(),
    }
}

pub(crate) fn walk(data: &[u8], out: &mut Emit<'_>) -> Result<(), ConvertError<ArrowError>> {
    let mut rows = Rows {
        blocks: out.wants(Table::EasyProfilerBlocks).then(Blocks::default),
        values: out.wants(Table::EasyProfilerValues).then(Values::default),
        json: String::new(),
    };
    let walked = read(data, out, &mut rows);
    if let Err(ConvertError::Sink(e)) = walked {
        return Err(ConvertError::Sink(e));
    }
    if let Some(b) = rows.blocks.as_mut() {
        out.emit(Table::EasyProfilerBlocks, b.finish())
            .map_err(ConvertError::Sink)?;
    }
    if let Some(v) = rows.values.as_mut() {
        out.emit(Table::EasyProfilerValues, v.finish())
            .map_err(ConvertError::Sink)?;
    }
    walked
}

fn fault(e: Error) -> ConvertError<ArrowError> {
    ConvertError::Format(e.into())
}

/// The rows being gathered (`None` for a table nobody wants), and a value's `data` being written.
struct Rows {
    blocks: Option<Blocks>,
    values: Option<Values>,
    json: String,
}

/// Every thread, then the trailer, in the order `dump` reads them.
fn read(data: &[u8], out: &mut Emit<'_>, rows: &mut Rows) -> Result<(), ConvertError<ArrowError>> {
    let c = Capture::parse(data).map_err(fault)?;
    let h = *c.header();
    let kinds = KindTable::new(&c).map_err(fault)?;
    // The nesting needs 24 bytes per record of a thread: on the heap up to the umbrella's budget,
    // in a mapped temporary file beyond, as the timeline adapter keeps its own.
    let mut slots = Scratch::new(HEAP_BUDGET);
    let mut threads = c.threads();
    for t in threads.by_ref() {
        let t = t.map_err(fault)?;
        for cs in t.context_switches() {
            cs.map_err(fault)?;
        }
        thread(&h, &t, &kinds, &mut slots, out, rows)?;
    }
    for b in threads.tail().map_err(fault)? {
        b.map_err(fault)?;
    }
    Ok(())
}

/// The rows of one thread's records. Depths need the whole thread (a record's parents come after
/// it), so the records are nested first, then read again for their rows.
fn thread(
    h: &Header,
    t: &Thread<'_>,
    kinds: &KindTable,
    slots: &mut Scratch<NestSlot>,
    out: &mut Emit<'_>,
    rows: &mut Rows,
) -> Result<(), ConvertError<ArrowError>> {
    // The count is of records whose framing was checked against the file.
    let slots = slots.reset(t.records_count() as usize, NestSlot::default());
    let nested = t.nest(kinds, h, slots, |_, _| {});
    let tree = nested.tree;
    // The records the tree holds: every record before the damage.
    for (i, r) in t.records(kinds).take(tree.len()).enumerate() {
        let Ok(r) = r else { break };
        let depth = tree.depth(i).unwrap_or(0);
        match r {
            Record::Block(b) => {
                if let Some(blocks) = rows.blocks.as_mut() {
                    blocks.push(h, t.id, &b, depth);
                    if blocks.rows >= out.batch_rows() {
                        out.emit(Table::EasyProfilerBlocks, blocks.finish())
                            .map_err(ConvertError::Sink)?;
                    }
                }
            }
            Record::Value(v) => {
                if let Some(values) = rows.values.as_mut() {
                    rows.json.clear();
                    json::value_data(&v, &mut rows.json);
                    values.push(h, t.id, &v, &rows.json);
                    if values.rows >= out.batch_rows() {
                        out.emit(Table::EasyProfilerValues, values.finish())
                            .map_err(ConvertError::Sink)?;
                    }
                }
            }
        }
    }
    nested.fault.map_or(Ok(()), |e| Err(fault(e)))
}

fn lossy(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

#[derive(Default)]
struct Blocks {
    rows: usize,
    offset: Int64Builder,
    kind: StringDictionaryBuilder<Int32Type>,
    thread: Int64Builder,
    begin: Int64Builder,
    end: Int64Builder,
    begin_ns: Int64Builder,
    end_ns: Int64Builder,
    id: Int64Builder,
    name: StringDictionaryBuilder<Int32Type>,
    depth: Int64Builder,
}

impl Blocks {
    fn push(&mut self, h: &Header, thread: u64, b: &Block<'_>, depth: u32) {
        self.rows += 1;
        self.offset.append_value(int(b.offset));
        self.kind
            .append_value(if b.is_event() { "event" } else { "block" });
        self.thread.append_value(int(thread));
        self.begin.append_value(int(b.begin));
        self.end.append_value(int(b.end));
        self.begin_ns.append_value(int(h.to_ns(b.begin)));
        self.end_ns.append_value(int(h.to_ns(b.end)));
        self.id.append_value(i64::from(b.id));
        self.name.append_value(lossy(b.name));
        self.depth.append_value(i64::from(depth));
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.rows = 0;
        vec![
            Arc::new(self.offset.finish()),
            Arc::new(self.kind.finish()),
            Arc::new(self.thread.finish()),
            Arc::new(self.begin.finish()),
            Arc::new(self.end.finish()),
            Arc::new(self.begin_ns.finish()),
            Arc::new(self.end_ns.finish()),
            Arc::new(self.id.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.depth.finish()),
        ]
    }
}

#[derive(Default)]
struct Values {
    rows: usize,
    offset: Int64Builder,
    thread: Int64Builder,
    time: Int64Builder,
    time_ns: Int64Builder,
    id: Int64Builder,
    value_id: Int64Builder,
    data_type: StringDictionaryBuilder<Int32Type>,
    array: BooleanBuilder,
    data: StringBuilder,
}

impl Values {
    fn push(&mut self, h: &Header, thread: u64, v: &Value<'_>, data: &str) {
        self.rows += 1;
        self.offset.append_value(int(v.offset));
        self.thread.append_value(int(thread));
        self.time.append_value(int(v.time));
        self.time_ns.append_value(int(h.to_ns(v.time)));
        self.id.append_value(i64::from(v.id));
        self.value_id.append_value(int(v.value_id));
        self.data_type.append_value(v.data_type.name());
        self.array.append_value(v.is_array);
        self.data.append_value(data);
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.rows = 0;
        vec![
            Arc::new(self.offset.finish()),
            Arc::new(self.thread.finish()),
            Arc::new(self.time.finish()),
            Arc::new(self.time_ns.finish()),
            Arc::new(self.id.finish()),
            Arc::new(self.value_id.finish()),
            Arc::new(self.data_type.finish()),
            Arc::new(self.array.finish()),
            Arc::new(self.data.finish()),
        ]
    }
}

/// The version the capture declares, for its `captures` row (the header's, as `2.1.0`); `None` when
/// the header cannot be read.
pub(crate) fn version(data: &[u8]) -> Option<String> {
    tracecap_easyprofiler::Capture::parse(data)
        .ok()
        .map(|c| c.header().version.to_string())
}
