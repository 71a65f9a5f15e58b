//! apitrace's own table, `apitrace_calls`: one row per call, what `tracecap dump --json` shows
//! of it.
//!
//! Rows come in the order `dump` prints calls: each call when it returns (its LEAVE event), then,
//! when the trace and its container end cleanly, the calls that never returned (`incomplete`), by
//! call number. A call's details are those of its ENTER and LEAVE events merged: a later value of
//! an argument replaces the earlier one, the flags of both are OR-ed.
//!
//! `frame` is the number of end-of-frame calls (`glXSwapBuffers`, `eglSwapBuffers`, ...) entered
//! before the call, so an end-of-frame call belongs to the frame it ends. `args` is the JSON array
//! `dump` prints, one `{"name": ..., "value": ...}` per argument of the signature (and per
//! argument recorded past it), a value being an object with its `type` (`{"type": "uint",
//! "value": 4}`, `{"type": "enum", "value": 1, "name": "GL_TRUE"}`, ...) or `null` where none was
//! recorded; `ret` is the return value's object, `backtrace` the array of frames (`module`,
//! `function`, `file`, `line`, `offset`), each null when the call has none. `dump`'s `flags`
//! object is the three columns `fake`, `incomplete` and `end_frame`. `offset` is the position of
//! the call's ENTER event in the decompressed stream, `file_offset` the file offset of the snappy
//! chunk or zstd frame that holds it (null for gzip and brotli, one compressed stream).
//!
//! The file is read through the crate's entry point (`Capture::parse_with_events`: its
//! chunked reader), decompressed piece by piece, so a trace of any size is read without holding
//! its stream: what is kept is the signature table, where each snappy chunk or zstd frame under
//! the reader's window starts (16 bytes each; the reader releases what it has parsed, so never
//! one per piece of the file) and, for each call that has
//! entered and not yet returned, a copy of its ENTER event's details with its frame number and
//! the file offset of its piece (the crate's `KeptCalls`); a call's JSON is the crate's
//! (`tracecap_apitrace::json`), written when it returns. A fault stops the walk after the rows
//! of every call `dump` prints before it, at the file offset `dump` reports (for a fault of the
//! stream, the snappy chunk or zstd frame holding it, with its stream offset).

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use arrow_schema::{ArrowError, DataType, Field};
use tracecap::ConvertError;
use tracecap_apitrace::{
    call_flags, json, Call, Capture, Error, EventKind, FileError, KeptCalls, SigTable, END_FRAME,
};

use crate::columns::{dict_utf8, int};
use crate::emit::Emit;
use crate::table::Table;

pub(crate) fn fields(_table: Table) -> Vec<Field> {
    let i64 = |name: &str, nullable| Field::new(name, DataType::Int64, nullable);
    let text = |name: &str, nullable| Field::new(name, DataType::Utf8, nullable);
    let flag = |name: &str| Field::new(name, DataType::Boolean, false);
    vec![
        i64("no", false),
        i64("thread", false),
        i64("frame", false),
        dict_utf8("name", false),
        text("args", false),
        text("ret", true),
        flag("fake"),
        flag("incomplete"),
        flag("end_frame"),
        text("backtrace", true),
        i64("offset", false),
        i64("file_offset", true),
    ]
}

pub(crate) fn walk(data: &[u8], out: &mut Emit<'_>) -> Result<(), ConvertError<ArrowError>> {
    if !out.wants(Table::ApitraceCalls) {
        return Ok(());
    }
    let mut rows = Rows::default();
    let walked = read(data, out, &mut rows);
    if let Err(ConvertError::Sink(e)) = walked {
        return Err(ConvertError::Sink(e));
    }
    out.emit(Table::ApitraceCalls, rows.finish())
        .map_err(ConvertError::Sink)?;
    walked
}

/// A fault placed in the file by the crate, as a format error: a fault of the stream keeps its
/// stream offset beside the file offset of the snappy chunk or zstd frame holding it.
fn fault(e: FileError) -> ConvertError<ArrowError> {
    ConvertError::Format(e.into())
}

/// What is noted of a call when it enters: the frame it belongs to, and the file offset of the
/// snappy chunk or zstd frame holding its ENTER event.
#[derive(Clone, Copy)]
struct Entered {
    frame: u64,
    file_offset: Option<u64>,
}

/// Every event of the trace, paired into calls whose rows go to `rows`.
fn read(data: &[u8], out: &mut Emit<'_>, rows: &mut Rows) -> Result<(), ConvertError<ArrowError>> {
    // The reader keeps where each piece under its window starts in the file: a call's piece is
    // known while its ENTER is read, and a fault lies in the event being read, in the window.
    let (_, mut reader) = Capture::parse_with_events(data).map_err(fault)?;
    let mut calls = KeptCalls::<Entered>::new();
    // End-of-frame calls entered so far.
    let mut frames = 0u64;
    loop {
        let step = match reader.next_located() {
            None => break,
            Some(Err(e)) => Err(e),
            Some(Ok((ev, table, file_offset))) => {
                let entered = Entered {
                    frame: frames,
                    file_offset,
                };
                if ev.kind == EventKind::Enter {
                    let name = table.function(ev.sig).map_or(&b""[..], |f| f.name());
                    frames += u64::from(call_flags(name) & END_FRAME != 0);
                }
                let row = calls.feed(&ev, table, entered, |call, entered| {
                    rows.push(call, table, entered)
                });
                row.and_then(|r| r.unwrap_or(Ok(())))
            }
        };
        if let Err(e) = step {
            return Err(fault(reader.file_error(e)));
        }
        if rows.len >= out.batch_rows() {
            out.emit(Table::ApitraceCalls, rows.finish())
                .map_err(ConvertError::Sink)?;
        }
    }
    // The calls that never returned, as `dump` prints them at the end of a clean trace.
    let table = reader.table();
    calls.finish(table, |call, entered| {
        rows.push(call, table, entered)
            .map_err(|e| fault(reader.file_error(e)))?;
        if rows.len >= out.batch_rows() {
            out.emit(Table::ApitraceCalls, rows.finish())
                .map_err(ConvertError::Sink)?;
        }
        Ok(())
    })
}

/// The rows being gathered, and the `args` text being written.
#[derive(Default)]
struct Rows {
    len: usize,
    no: Int64Builder,
    thread: Int64Builder,
    frame: Int64Builder,
    name: StringDictionaryBuilder<Int32Type>,
    args: StringBuilder,
    ret: StringBuilder,
    fake: BooleanBuilder,
    incomplete: BooleanBuilder,
    end_frame: BooleanBuilder,
    backtrace: StringBuilder,
    offset: Int64Builder,
    file_offset: Int64Builder,
    scratch: Vec<u8>,
}

impl Rows {
    /// Writes the row of `call`, or gives the fault `dump` meets printing it (its first value,
    /// in the order `dump` prints them, that cannot be read).
    fn push(&mut self, call: &Call<'_>, table: &SigTable, entered: Entered) -> Result<(), Error> {
        // The JSON columns, one after the other in `scratch`.
        let b = &mut self.scratch;
        b.clear();
        json::args(b, call, table)?;
        let args = 0..b.len();
        let ret = match &call.ret {
            Some(v) => {
                let at = b.len();
                json::value(b, v, table)?;
                Some(at..b.len())
            }
            None => None,
        };
        let backtrace = match &call.backtrace {
            Some(bt) => {
                let at = b.len();
                json::backtrace(b, bt, table)?;
                Some(at..b.len())
            }
            None => None,
        };
        // The crate writes UTF-8 only, and each part ends on a whole JSON value.
        let text = String::from_utf8_lossy(b);
        let part = |r: std::ops::Range<usize>| text.get(r).unwrap_or_default();
        let name = table.function(call.sig).map_or(&b""[..], |s| s.name());
        self.len += 1;
        self.no.append_value(int(call.no));
        self.thread.append_value(int(call.thread));
        self.frame.append_value(int(entered.frame));
        self.name.append_value(String::from_utf8_lossy(name));
        self.args.append_value(part(args));
        self.ret.append_option(ret.map(part));
        self.fake.append_value(call.is_fake());
        self.incomplete.append_value(call.incomplete);
        self.end_frame
            .append_value(call_flags(name) & END_FRAME != 0);
        self.backtrace.append_option(backtrace.map(part));
        self.offset.append_value(int(call.offset));
        self.file_offset.append_option(entered.file_offset.map(int));
        Ok(())
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.len = 0;
        vec![
            Arc::new(self.no.finish()),
            Arc::new(self.thread.finish()),
            Arc::new(self.frame.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.args.finish()),
            Arc::new(self.ret.finish()),
            Arc::new(self.fake.finish()),
            Arc::new(self.incomplete.finish()),
            Arc::new(self.end_frame.finish()),
            Arc::new(self.backtrace.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.file_offset.finish()),
        ]
    }
}

/// The version the capture declares, for its `captures` row (the stream version); `None` when the
/// header cannot be read.
pub(crate) fn version(data: &[u8]) -> Option<String> {
    tracecap_apitrace::Capture::parse(data)
        .ok()
        .map(|c| c.header().version.to_string())
}
