//! Orbit's own table, `orbit_events`: one row per client capture event, what
//! `tracecap dump --json` shows of it.
//!
//! Rows come in file order. `offset` is the file offset of the event's length prefix, `length`
//! the length of its message, `event` its kind (the name of the `ClientCaptureEvent` member it
//! holds: `capture_started`, `scheduling_slice`, ...), and `message` the whole
//! `ClientCaptureEvent` as proto3 canonical JSON, as the Orbit crate prints it for `dump` (`{}`
//! for an event that holds none). `decoded_name` is the name an `api_*` event carries in its
//! integer fields, decoded (null for the other events). The USER_DATA section, which `dump`
//! prints last, is no event and has no row.
//!
//! The walk applies the checks `tracecap validate` applies, in its order: a fault (in an event,
//! or in what follows the last one) stops it after the rows of every event before it, at the
//! offset `dump` reports.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use arrow_schema::{ArrowError, DataType, Field};
use tracecap::ConvertError;
use tracecap_orbit::{json, validate, Capture, Error, Event};

use crate::columns::{dict_utf8, int};
use crate::emit::Emit;
use crate::table::Table;

pub(crate) fn fields(_table: Table) -> Vec<Field> {
    vec![
        Field::new("offset", DataType::Int64, false),
        Field::new("length", DataType::Int64, false),
        dict_utf8("event", false),
        Field::new("message", DataType::Utf8, false),
        dict_utf8("decoded_name", true),
    ]
}

pub(crate) fn walk(data: &[u8], out: &mut Emit<'_>) -> Result<(), ConvertError<ArrowError>> {
    if !out.wants(Table::OrbitEvents) {
        return Ok(());
    }
    let mut rows = Rows::default();
    let walked = read(data, out, &mut rows);
    if let Err(ConvertError::Sink(e)) = walked {
        return Err(ConvertError::Sink(e));
    }
    out.emit(Table::OrbitEvents, rows.finish())
        .map_err(ConvertError::Sink)?;
    walked
}

fn fault(e: Error) -> ConvertError<ArrowError> {
    ConvertError::Format(e.into())
}

fn read(data: &[u8], out: &mut Emit<'_>, rows: &mut Rows) -> Result<(), ConvertError<ArrowError>> {
    let capture = Capture::parse(data).map_err(fault)?;
    let mut events = capture.events();
    for ev in events.by_ref() {
        let ev = ev.map_err(fault)?;
        validate::check_event(&ev).map_err(fault)?;
        rows.push(&ev).map_err(fault)?;
        if rows.len >= out.batch_rows() {
            out.emit(Table::OrbitEvents, rows.finish())
                .map_err(ConvertError::Sink)?;
        }
    }
    validate::check_end(&capture, &events).map_err(fault)?;
    Ok(())
}

/// The rows being gathered.
#[derive(Default)]
struct Rows {
    len: usize,
    offset: Int64Builder,
    length: Int64Builder,
    event: StringDictionaryBuilder<Int32Type>,
    message: StringBuilder,
    decoded_name: StringDictionaryBuilder<Int32Type>,
}

impl Rows {
    /// Writes the row of `ev`; fails, writing nothing, on a message that cannot be printed.
    fn push(&mut self, ev: &Event<'_>) -> Result<(), Error> {
        let message = json::event_message(ev)?;
        let name = ev.view().ok().and_then(|v| v.api_name());
        self.len += 1;
        self.offset.append_value(int(ev.offset));
        self.length.append_value(i64::from(ev.length));
        self.event.append_value(ev.kind.name());
        self.message.append_value(message);
        self.decoded_name
            .append_option(name.map(|n| n.to_string_lossy()));
        Ok(())
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.len = 0;
        vec![
            Arc::new(self.offset.finish()),
            Arc::new(self.length.finish()),
            Arc::new(self.event.finish()),
            Arc::new(self.message.finish()),
            Arc::new(self.decoded_name.finish()),
        ]
    }
}

/// The version the capture declares, for its `captures` row (the header version); `None` when the
/// header cannot be read.
pub(crate) fn version(data: &[u8]) -> Option<String> {
    tracecap_orbit::Capture::parse(data)
        .ok()
        .map(|c| c.header().version.to_string())
}
