//! syscall_capture's own table: `syscall_calls`, one row per system call record, in file order,
//! with what `tracecap dump --json` shows of it.
//!
//! `name` is the x86-64 name of the call (`syscall_<n>` for a number no kernel assigns). `ret` is
//! the raw return value (`-errno` on failure, 0 when the record has none); `tid` is null when the
//! record has no thread id (the call ran on the capture's main thread, the header's pid);
//! `timestamp_ns` (CLOCK_MONOTONIC) and `duration_ns` are null when the capture was made without
//! times, and `duration_ns` also when its float is not finite (only in damaged files). `args` is
//! the JSON array `dump` prints (`tracecap_syscall::json::args`): one single-member object per
//! argument, named after its kind (`int`, `data` and `partial` with the bytes in lowercase hex,
//! `stat`, `pollfds`, `sigaction`, `intp`).
//!
//! Fillers, zero gaps and the headers of captures appended after a fork have no rows; a damaged
//! entry stops the walk after the rows of every call before it.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::builder::{Float32Builder, Int64Builder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use arrow_schema::{ArrowError, DataType, Field};
use tracecap::ConvertError;
use tracecap_syscall::{json, Capture, Error, Syscall};

use crate::columns::{dict_utf8, int};
use crate::emit::Emit;
use crate::table::Table;

pub(crate) fn fields(table: Table) -> Vec<Field> {
    match table {
        Table::SyscallCalls => vec![
            Field::new("offset", DataType::Int64, false),
            Field::new("number", DataType::Int64, false),
            dict_utf8("name", false),
            Field::new("ret", DataType::Int64, false),
            Field::new("tid", DataType::Int64, true),
            Field::new("timestamp_ns", DataType::Int64, true),
            Field::new("duration_ns", DataType::Float32, true),
            Field::new("args", DataType::Utf8, false),
        ],
        _ => Vec::new(),
    }
}

pub(crate) fn walk(data: &[u8], out: &mut Emit<'_>) -> Result<(), ConvertError<ArrowError>> {
    if !out.wants(Table::SyscallCalls) {
        return Ok(());
    }
    let mut calls = Calls::default();
    let walked = read(data, out, &mut calls);
    if let Err(ConvertError::Sink(e)) = walked {
        return Err(ConvertError::Sink(e));
    }
    out.emit(Table::SyscallCalls, calls.finish())
        .map_err(ConvertError::Sink)?;
    walked
}

fn fault(e: Error) -> ConvertError<ArrowError> {
    ConvertError::Format(e.into())
}

fn read(
    data: &[u8],
    out: &mut Emit<'_>,
    calls: &mut Calls,
) -> Result<(), ConvertError<ArrowError>> {
    let capture = Capture::parse(data).map_err(fault)?;
    for call in capture.events() {
        calls.push(&call.map_err(fault)?);
        if calls.rows >= out.batch_rows() {
            out.emit(Table::SyscallCalls, calls.finish())
                .map_err(ConvertError::Sink)?;
        }
    }
    Ok(())
}

#[derive(Default)]
struct Calls {
    rows: usize,
    offset: Int64Builder,
    number: Int64Builder,
    name: StringDictionaryBuilder<Int32Type>,
    ret: Int64Builder,
    tid: Int64Builder,
    timestamp_ns: Int64Builder,
    duration_ns: Float32Builder,
    args: StringBuilder,
    /// The name of an unassigned number being written.
    unnamed: String,
    /// The arguments being written.
    json: String,
}

impl Calls {
    fn push(&mut self, c: &Syscall<'_>) {
        self.rows += 1;
        self.offset.append_value(int(c.offset));
        self.number.append_value(i64::from(c.number));
        match c.name() {
            Some(name) => self.name.append_value(name),
            None => {
                self.unnamed.clear();
                let _ = write!(self.unnamed, "syscall_{}", c.number);
                self.name.append_value(&self.unnamed);
            }
        }
        self.ret.append_value(c.ret());
        self.tid.append_option(c.tid.map(i64::from));
        self.timestamp_ns.append_option(c.timestamp_ns);
        self.duration_ns
            .append_option(c.duration_ns.filter(|d| d.is_finite()));
        self.json.clear();
        json::args(c.args(), &mut self.json);
        self.args.append_value(&self.json);
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.rows = 0;
        vec![
            Arc::new(self.offset.finish()),
            Arc::new(self.number.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.ret.finish()),
            Arc::new(self.tid.finish()),
            Arc::new(self.timestamp_ns.finish()),
            Arc::new(self.duration_ns.finish()),
            Arc::new(self.args.finish()),
        ]
    }
}

/// The version the capture declares, for its `captures` row (the header version); `None` when the
/// header cannot be read.
pub(crate) fn version(data: &[u8]) -> Option<String> {
    tracecap_syscall::Capture::parse(data)
        .ok()
        .map(|c| c.header().version.to_string())
}
