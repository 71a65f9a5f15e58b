//! Web Tracing Framework's own table, `wtf_events`: one row per event record, what
//! `tracecap dump --json` shows of it.
//!
//! Rows come in file order, built-in events included (`wtf.event#define`, `wtf.zone#create`,
//! `wtf.scope#leave`, ...): a definition is an event record like any other, and its row is the
//! `event` line `dump` prints for it (the `define` and `zone` lines `dump` adds after some
//! built-ins describe the same record and are not rows). `offset` is the event's file offset,
//! `zone` the zone it belongs to (null when none is set), `time_us` its time in the file's
//! microseconds, `name` and `flags` those of its definition, and `args` the JSON object `dump`
//! prints: each argument by its name, in the event's order, as the official loader presents it
//! (numbers, strings, `null` for the null string, arrays, `any` as its parsed JSON).
//!
//! A fault (in the header, an event or its arguments) stops the walk after the rows of every
//! event before it, at the offset `dump` reports.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use arrow_schema::{ArrowError, DataType, Field};
use tracecap::ConvertError;
use tracecap_wtf::json::ArgsJson;
use tracecap_wtf::{Capture, Error, Event};

use crate::columns::dict_utf8;
use crate::emit::Emit;
use crate::table::Table;

pub(crate) fn fields(_table: Table) -> Vec<Field> {
    vec![
        Field::new("offset", DataType::Int64, false),
        Field::new("zone", DataType::Int64, true),
        Field::new("time_us", DataType::Int64, false),
        dict_utf8("name", false),
        Field::new("flags", DataType::Int64, false),
        Field::new("args", DataType::Utf8, false),
    ]
}

pub(crate) fn walk(data: &[u8], out: &mut Emit<'_>) -> Result<(), ConvertError<ArrowError>> {
    if !out.wants(Table::WtfEvents) {
        return Ok(());
    }
    let mut rows = Rows::default();
    let walked = read(data, out, &mut rows);
    if let Err(ConvertError::Sink(e)) = walked {
        return Err(ConvertError::Sink(e));
    }
    out.emit(Table::WtfEvents, rows.finish())
        .map_err(ConvertError::Sink)?;
    walked
}

fn fault(e: Error) -> ConvertError<ArrowError> {
    ConvertError::Format(e.into())
}

fn read(data: &[u8], out: &mut Emit<'_>, rows: &mut Rows) -> Result<(), ConvertError<ArrowError>> {
    let trace = Capture::parse(data).map_err(fault)?;
    let mut args = ArgsJson::new();
    for ev in trace.events() {
        let ev = ev.map_err(fault)?;
        rows.push(&ev, &mut args).map_err(fault)?;
        if rows.len >= out.batch_rows() {
            out.emit(Table::WtfEvents, rows.finish())
                .map_err(ConvertError::Sink)?;
        }
    }
    Ok(())
}

/// The rows being gathered, and the `args` text being written.
#[derive(Default)]
struct Rows {
    len: usize,
    offset: Int64Builder,
    zone: Int64Builder,
    time_us: Int64Builder,
    name: StringDictionaryBuilder<Int32Type>,
    flags: Int64Builder,
    args: StringBuilder,
    json: Vec<u8>,
}

impl Rows {
    /// Writes the row of `ev`; fails, writing nothing, on an argument that cannot be read.
    fn push<'a>(&mut self, ev: &Event<'a>, fmt: &mut ArgsJson<'a>) -> Result<(), Error> {
        // The arguments as one object, in the event's order (a name that repeats, repeated).
        let b = &mut self.json;
        b.clear();
        b.push(b'{');
        for (i, a) in ev.args().enumerate() {
            let a = a?;
            if i > 0 {
                b.push(b',');
            }
            // ok: writing JSON to a Vec cannot fail
            let _ = serde_json::to_writer(&mut *b, a.name);
            b.push(b':');
            let _ = serde_json::to_writer(&mut *b, &fmt.value(ev, a.value));
        }
        b.push(b'}');
        self.len += 1;
        self.offset.append_value(crate::columns::int(ev.offset));
        self.zone.append_option(ev.zone.map(i64::from));
        self.time_us.append_value(i64::from(ev.time));
        self.name.append_value(ev.name());
        self.flags.append_value(i64::from(ev.flags()));
        self.args.append_value(String::from_utf8_lossy(&self.json));
        Ok(())
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.len = 0;
        vec![
            Arc::new(self.offset.finish()),
            Arc::new(self.zone.finish()),
            Arc::new(self.time_us.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.flags.finish()),
            Arc::new(self.args.finish()),
        ]
    }
}

/// The version the capture declares, for its `captures` row (the format version); `None` when the
/// header cannot be read.
pub(crate) fn version(data: &[u8]) -> Option<String> {
    tracecap_wtf::Capture::parse(data)
        .ok()
        .map(|c| c.header().format_version.to_string())
}
