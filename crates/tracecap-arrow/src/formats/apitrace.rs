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
//! The file is decompressed piece by piece through the crate's chunked reader, so a trace of any
//! size is read without holding its stream: what is kept is the signature table, where each
//! snappy chunk or zstd frame under the reader's window starts (16 bytes each; the reader
//! releases what it has parsed, so never one per piece of the file) and, for each call that has
//! entered and not yet returned, its details as JSON text and the file offset of its piece. A
//! fault stops the walk after the rows of every call `dump` prints before it, at the file offset
//! `dump` reports (for a fault of the stream, the snappy chunk or zstd frame holding it, with its
//! stream offset).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use arrow_schema::{ArrowError, DataType, Field};
use tracecap::{ConvertError, FormatError};
use tracecap_apitrace::{
    call_flags, Backtrace, ChunkedReader, ContainerSource, Detail, Error, ErrorKind, Event,
    EventKind, OffsetMap, SigKind, SigLookup, SigTable, Space, Value, ARG_SLACK, END_FRAME,
    MAX_SIG_ARGS,
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

/// The fault `e` with its file offset: a stream offset is mapped through `offsets` (the pieces
/// the container source decoded) to the snappy chunk or zstd frame holding it.
fn fault(offsets: &OffsetMap, e: Error) -> FormatError {
    match e.kind.space() {
        Space::File => FormatError::new(e.kind, e.offset),
        Space::Stream => FormatError::in_stream(e.kind, offsets.error_offset(&e), e.offset),
    }
}

/// Every event of the trace, paired into calls whose rows go to `rows`.
fn read(data: &[u8], out: &mut Emit<'_>, rows: &mut Rows) -> Result<(), ConvertError<ArrowError>> {
    // The source keeps the start of every piece under the reader's window, however many one
    // read brings, and forgets those the reader has released: a call's piece is looked up right
    // after its ENTER is read, and a fault lies in the event being read, both in the window.
    let src = ContainerSource::new(data)
        .map_err(|e| ConvertError::Format(fault(&OffsetMap::default(), e)))?;
    let mut reader = ChunkedReader::new(src, SigTable::new());
    if let Err(e) = reader.header().map(|_| ()) {
        return Err(ConvertError::Format(fault(reader.source().offsets(), e)));
    }
    let mut calls = Calls::default();
    loop {
        // The event borrows the reader's window: what it gives is taken here, and mapped to the
        // file once it is released.
        let step = match reader.next_event() {
            None => break,
            Some(Err(e)) => Err(e),
            Some(Ok((ev, table))) => calls.event(&ev, table, rows),
        };
        let offsets = reader.source().offsets();
        match step {
            Ok(Some(no)) => calls.locate(no, offsets),
            Ok(None) => {}
            Err(e) => return Err(ConvertError::Format(fault(offsets, e))),
        }
        if rows.len >= out.batch_rows() {
            out.emit(Table::ApitraceCalls, rows.finish())
                .map_err(ConvertError::Sink)?;
        }
    }
    // The calls that never returned, as `dump` prints them at the end of a clean trace.
    let table = reader.table();
    let offsets = reader.source().offsets();
    for call in std::mem::take(&mut calls.open).into_values() {
        rows.push(&call, table, true)
            .map_err(|e| ConvertError::Format(fault(offsets, e)))?;
        if rows.len >= out.batch_rows() {
            out.emit(Table::ApitraceCalls, rows.finish())
                .map_err(ConvertError::Sink)?;
        }
    }
    Ok(())
}

/// A detail's JSON text, or the fault `dump` meets when it prints it (raised only if the call
/// is printed with that value).
type Json = Result<Vec<u8>, Error>;

/// A call that has entered and not yet returned.
struct Call {
    no: u64,
    thread: u64,
    sig: u64,
    frame: u64,
    end_frame: bool,
    args: Vec<Option<Json>>,
    ret: Option<Json>,
    backtrace: Option<Json>,
    flags: u64,
    offset: u64,
    file_offset: Option<u64>,
}

/// The open calls, by call number, and the frames counted so far.
#[derive(Default)]
struct Calls {
    open: BTreeMap<u64, Call>,
    frames: u64,
}

impl Calls {
    /// Takes one event: an ENTER opens a call, a LEAVE completes its call and writes its row (a
    /// LEAVE of no open call is ignored). Returns the number of the call whose details changed.
    fn event(
        &mut self,
        ev: &Event<'_>,
        table: &SigTable,
        rows: &mut Rows,
    ) -> Result<Option<u64>, Error> {
        match ev.kind {
            EventKind::Enter => {
                let name = table.function(ev.sig).map_or(&b""[..], |f| f.name());
                let end_frame = call_flags(name) & END_FRAME != 0;
                let n = num_args(table, ev.sig);
                let mut call = Call {
                    no: ev.call_no,
                    thread: ev.thread,
                    sig: ev.sig,
                    frame: self.frames,
                    end_frame,
                    args: std::iter::repeat_with(|| None)
                        .take(usize::try_from(n).unwrap_or(0))
                        .collect(),
                    ret: None,
                    backtrace: None,
                    flags: 0,
                    offset: ev.offset,
                    file_offset: None,
                };
                // A call entered again under the same number replaces the one still open.
                self.open.remove(&ev.call_no);
                self.frames += u64::from(end_frame);
                apply(&mut call, ev, table, n)?;
                self.open.insert(call.no, call);
                Ok(Some(ev.call_no))
            }
            EventKind::Leave => {
                let Some(mut call) = self.open.remove(&ev.call_no) else {
                    return Ok(None);
                };
                let n = num_args(table, call.sig);
                apply(&mut call, ev, table, n)?;
                rows.push(&call, table, false)?;
                Ok(None)
            }
        }
    }

    /// Notes where the ENTER of call `no` lies in the file.
    fn locate(&mut self, no: u64, offsets: &OffsetMap) {
        if let Some(call) = self.open.get_mut(&no) {
            call.file_offset = offsets.chunk_offset(call.offset);
        }
    }
}

/// The argument count of function signature `sig`, as `Calls` takes it (at most
/// [`MAX_SIG_ARGS`]); an argument index past it by [`ARG_SLACK`] or more is a fault, as there.
fn num_args(table: &SigTable, sig: u64) -> u64 {
    table.get(SigKind::Function, sig).map_or(0, |i| {
        u64::try_from(i.extra).map_or(0, |n| n.min(MAX_SIG_ARGS))
    })
}

/// Applies an event's details to its call.
fn apply(call: &mut Call, ev: &Event<'_>, table: &SigTable, num_args: u64) -> Result<(), Error> {
    for d in ev.details().iter(table) {
        match d? {
            Detail::Arg { index, value } => {
                if index >= num_args.saturating_add(ARG_SLACK) {
                    return Err(Error::new(ErrorKind::ArgIndex(index), ev.offset));
                }
                let i = usize::try_from(index).unwrap_or(usize::MAX);
                if i >= call.args.len() {
                    call.args.resize_with(i.saturating_add(1), || None);
                }
                if let Some(slot) = call.args.get_mut(i) {
                    *slot = Some(value_text(&value, table));
                }
            }
            Detail::Ret(v) => call.ret = Some(value_text(&v, table)),
            Detail::Backtrace(b) => call.backtrace = Some(backtrace_text(&b, table)),
            Detail::Flags(f) => call.flags |= f,
        }
    }
    Ok(())
}

fn value_text(v: &Value<'_>, table: &SigTable) -> Json {
    let mut buf = Vec::new();
    value_json(&mut buf, v, table)?;
    Ok(buf)
}

fn backtrace_text(bt: &Backtrace<'_>, table: &SigTable) -> Json {
    let mut buf = vec![b'['];
    for (i, id) in bt.frames(table).enumerate() {
        let f = table.frame(id?).unwrap_or_default();
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"{\"module\":");
        opt_text(&mut buf, f.module);
        buf.extend_from_slice(b",\"function\":");
        opt_text(&mut buf, f.function);
        buf.extend_from_slice(b",\"file\":");
        opt_text(&mut buf, f.filename);
        buf.extend_from_slice(b",\"line\":");
        opt_number(&mut buf, f.line);
        buf.extend_from_slice(b",\"offset\":");
        opt_number(&mut buf, f.offset);
        buf.push(b'}');
    }
    buf.push(b']');
    Ok(buf)
}

/// An integer as JSON (as serde_json writes it: its decimal digits).
fn number(buf: &mut Vec<u8>, x: impl std::fmt::Display) {
    // ok: writing to a Vec cannot fail
    let _ = write!(buf, "{x}");
}

fn opt_number(buf: &mut Vec<u8>, x: Option<u64>) {
    match x {
        Some(x) => number(buf, x),
        None => buf.extend_from_slice(b"null"),
    }
}

/// A float as serde_json writes it: shortest round trip (`1.0`, `1e20`), `null` when not finite.
fn float(buf: &mut Vec<u8>, x: f64) {
    // ok: writing a number to a Vec cannot fail
    let _ = serde_json::to_writer(&mut *buf, &x);
}

/// Bytes as a JSON string, each invalid UTF-8 sequence as U+FFFD.
fn text(buf: &mut Vec<u8>, bytes: &[u8]) {
    string(buf, &String::from_utf8_lossy(bytes));
}

/// Text as a JSON string, escaped as serde_json escapes it.
fn string(buf: &mut Vec<u8>, s: &str) {
    // ok: writing a string to a Vec cannot fail
    let _ = serde_json::to_writer(&mut *buf, s);
}

fn opt_text(buf: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        Some(b) => text(buf, b),
        None => buf.extend_from_slice(b"null"),
    }
}

/// One value as `dump` prints it: an object with its `type` and what that type holds.
fn value_json(buf: &mut Vec<u8>, v: &Value<'_>, table: &SigTable) -> Result<(), Error> {
    let head = |buf: &mut Vec<u8>, ty: &str| {
        buf.extend_from_slice(b"{\"type\":\"");
        buf.extend_from_slice(ty.as_bytes());
        buf.push(b'"');
    };
    match *v {
        Value::Null => head(buf, "null"),
        Value::Bool(b) => {
            head(buf, "bool");
            buf.extend_from_slice(if b {
                b",\"value\":true"
            } else {
                b",\"value\":false"
            });
        }
        Value::SInt(i) => {
            head(buf, "sint");
            buf.extend_from_slice(b",\"value\":");
            number(buf, i);
        }
        Value::UInt(u) => {
            head(buf, "uint");
            buf.extend_from_slice(b",\"value\":");
            number(buf, u);
        }
        Value::Float(f) => {
            head(buf, "float");
            buf.extend_from_slice(b",\"value\":");
            float(buf, f64::from(f));
        }
        Value::Double(f) => {
            head(buf, "double");
            buf.extend_from_slice(b",\"value\":");
            float(buf, f);
        }
        Value::String(s) => {
            head(buf, "string");
            buf.extend_from_slice(b",\"value\":");
            text(buf, s);
        }
        Value::WString(s) => {
            head(buf, "wstring");
            buf.extend_from_slice(b",\"value\":");
            let w = wide_text(s.units());
            string(buf, &w);
        }
        Value::Blob(b) => {
            head(buf, "blob");
            buf.extend_from_slice(b",\"size\":");
            number(buf, b.len());
        }
        Value::Pointer(p) => {
            head(buf, "pointer");
            buf.extend_from_slice(b",\"value\":");
            number(buf, p);
        }
        Value::Enum { sig, value } => {
            head(buf, "enum");
            buf.extend_from_slice(b",\"value\":");
            number(buf, value);
            buf.extend_from_slice(b",\"name\":");
            opt_text(buf, table.enum_sig(sig).and_then(|s| s.lookup(value)));
        }
        Value::Bitmask { sig, value } => {
            head(buf, "bitmask");
            buf.extend_from_slice(b",\"value\":");
            number(buf, value);
            buf.extend_from_slice(b",\"flags\":[");
            // The flags set in the value, in the signature's order; a zero flag only for zero.
            let mut rest = value;
            let mut first = true;
            for (name, flag) in table.bitmask_sig(sig).into_iter().flat_map(|s| s.flags()) {
                if (flag != 0 && rest & flag == flag) || (flag == 0 && value == 0) {
                    if !first {
                        buf.push(b',');
                    }
                    first = false;
                    text(buf, name);
                    rest &= !flag;
                }
            }
            buf.extend_from_slice(b"],\"rest\":");
            number(buf, rest);
        }
        Value::Array(a) => {
            head(buf, "array");
            buf.extend_from_slice(b",\"values\":[");
            for (i, e) in a.iter(table).enumerate() {
                if i > 0 {
                    buf.push(b',');
                }
                value_json(buf, &e?, table)?;
            }
            buf.push(b']');
        }
        Value::Struct(s) => {
            let sig = table.struct_sig(s.sig);
            head(buf, "struct");
            buf.extend_from_slice(b",\"name\":");
            text(buf, sig.map_or(&b""[..], |g| g.name()));
            buf.extend_from_slice(b",\"members\":[");
            for (i, m) in s.iter(table).enumerate() {
                if i > 0 {
                    buf.push(b',');
                }
                buf.extend_from_slice(b"{\"name\":");
                text(buf, sig.and_then(|g| g.member_name(i)).unwrap_or(b""));
                buf.extend_from_slice(b",\"value\":");
                value_json(buf, &m?, table)?;
                buf.push(b'}');
            }
            buf.push(b']');
        }
        Value::Repr(r) => {
            head(buf, "repr");
            buf.extend_from_slice(b",\"human\":");
            value_json(buf, &r.human(table)?, table)?;
            buf.extend_from_slice(b",\"machine\":");
            value_json(buf, &r.machine(table)?, table)?;
        }
    }
    buf.push(b'}');
    Ok(())
}

/// A wide string's text: UTF-16 when any unit is a surrogate, else one code point per unit
/// (U+FFFD for units that are none).
fn wide_text(units: impl Iterator<Item = u64> + Clone) -> String {
    let surrogate = |u: &u64| (0xd800..=0xdfff).contains(u);
    if units.clone().any(|u| surrogate(&u)) {
        let v: Vec<u16> = units.map(|u| u as u16).collect();
        return String::from_utf16_lossy(&v);
    }
    units
        .map(|u| {
            u32::try_from(u)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or(char::REPLACEMENT_CHARACTER)
        })
        .collect()
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
    fn push(&mut self, call: &Call, table: &SigTable, incomplete: bool) -> Result<(), Error> {
        let sig = table.function(call.sig);
        let b = &mut self.scratch;
        b.clear();
        b.push(b'[');
        for (i, a) in call.args.iter().enumerate() {
            if i > 0 {
                b.push(b',');
            }
            b.extend_from_slice(b"{\"name\":");
            text(b, sig.and_then(|s| s.arg_name(i)).unwrap_or(b""));
            b.extend_from_slice(b",\"value\":");
            match a {
                Some(Ok(json)) => b.extend_from_slice(json),
                Some(Err(e)) => return Err(*e),
                None => b.extend_from_slice(b"null"),
            }
            b.push(b'}');
        }
        b.push(b']');
        let ret = call
            .ret
            .as_ref()
            .map(|r| r.as_ref().map_err(|e| *e))
            .transpose()?;
        let backtrace = call
            .backtrace
            .as_ref()
            .map(|r| r.as_ref().map_err(|e| *e))
            .transpose()?;
        self.len += 1;
        self.no.append_value(int(call.no));
        self.thread.append_value(int(call.thread));
        self.frame.append_value(int(call.frame));
        self.name
            .append_value(String::from_utf8_lossy(sig.map_or(&b""[..], |s| s.name())));
        self.args
            .append_value(String::from_utf8_lossy(&self.scratch));
        self.ret
            .append_option(ret.map(|r| String::from_utf8_lossy(r)));
        self.fake.append_value(call.flags & 1 != 0);
        self.incomplete.append_value(incomplete);
        self.end_frame.append_value(call.end_frame);
        self.backtrace
            .append_option(backtrace.map(|r| String::from_utf8_lossy(r)));
        self.offset.append_value(int(call.offset));
        self.file_offset.append_option(call.file_offset.map(int));
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
