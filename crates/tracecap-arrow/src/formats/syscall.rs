//! syscall_capture's own table: `syscall_calls`, one row per system call record, in file order,
//! with what `tracecap dump --json` shows of it.
//!
//! `name` is the x86-64 name of the call (`syscall_<n>` for a number no kernel assigns). `ret` is
//! the raw return value (`-errno` on failure, 0 when the record has none); `tid` is null when the
//! record has no thread id (the call ran on the capture's main thread, the header's pid);
//! `timestamp_ns` (CLOCK_MONOTONIC) and `duration_ns` are null when the capture was made without
//! times, and `duration_ns` also when its float is not finite (only in damaged files). `args` is
//! the JSON array `dump` prints: one single-member object per argument, named after its kind
//! (`int`, `data` and `partial` with the bytes in lowercase hex, `stat`, `pollfds`, `sigaction`,
//! `intp`).
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
use tracecap_syscall::{Arg, Capture, Error, Syscall};

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
    json: Vec<u8>,
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
        self.json.push(b'[');
        for (i, a) in c.args().enumerate() {
            if i > 0 {
                self.json.push(b',');
            }
            arg_json(&mut self.json, &a);
        }
        self.json.push(b']');
        // The JSON written here is UTF-8 (hex digits, numbers, keys).
        self.args
            .append_value(std::str::from_utf8(&self.json).unwrap_or(""));
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

/// A JSON object written member by member into a buffer.
struct Object<'b> {
    buf: &'b mut Vec<u8>,
    first: bool,
}

impl<'b> Object<'b> {
    fn open(buf: &'b mut Vec<u8>) -> Self {
        buf.push(b'{');
        Object { buf, first: true }
    }

    /// Writes the key of the next member (a name of this module's own, needing no escape) and
    /// gives the buffer for its value.
    fn key(&mut self, key: &str) -> &mut Vec<u8> {
        if !self.first {
            self.buf.push(b',');
        }
        self.first = false;
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf.extend_from_slice(b"\":");
        self.buf
    }

    /// A member whose value is a number.
    fn num(&mut self, key: &str, value: impl Into<serde_json::Value>) -> &mut Self {
        // Writing a number to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *self.key(key), &value.into());
        self
    }

    /// A member whose value is bytes as a string of lowercase hex digits.
    fn hex(&mut self, key: &str, bytes: &[u8]) -> &mut Self {
        hex(self.key(key), bytes);
        self
    }

    /// A member whose value is `{"sec": ..., "nsec": ...}`.
    fn time(&mut self, key: &str, sec: i64, nsec: i64) -> &mut Self {
        Object::open(self.key(key))
            .num("sec", sec)
            .num("nsec", nsec)
            .close();
        self
    }

    fn close(&mut self) {
        self.buf.push(b'}');
    }
}

fn hex(buf: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    buf.reserve(bytes.len() * 2 + 2);
    buf.push(b'"');
    for &b in bytes {
        for nibble in [b >> 4, b & 15] {
            if let Some(&d) = DIGITS.get(usize::from(nibble)) {
                buf.push(d);
            }
        }
    }
    buf.push(b'"');
}

/// One argument as `dump` prints it: a one-member object named after its kind.
fn arg_json(buf: &mut Vec<u8>, a: &Arg<'_>) {
    let mut o = Object::open(buf);
    match a {
        Arg::Int(v) => {
            o.num("int", *v);
        }
        Arg::Data(d) => {
            o.hex("data", d);
        }
        Arg::Partial { original_len, data } => {
            Object::open(o.key("partial"))
                .num("original_len", *original_len)
                .hex("data", data)
                .close();
        }
        Arg::Stat(st) => {
            Object::open(o.key("stat"))
                .num("dev", st.dev)
                .num("ino", st.ino)
                .num("mode", st.mode)
                .num("nlink", st.nlink)
                .num("uid", st.uid)
                .num("gid", st.gid)
                .num("rdev", st.rdev)
                .num("size", st.size)
                .num("blksize", st.blksize)
                .num("blocks", st.blocks)
                .time("atim", st.atim.sec, st.atim.nsec)
                .time("mtim", st.mtim.sec, st.mtim.nsec)
                .time("ctim", st.ctim.sec, st.ctim.nsec)
                .close();
        }
        Arg::PollFds(p) => {
            let list = o.key("pollfds");
            list.push(b'[');
            for (i, fd) in p.iter().enumerate() {
                if i > 0 {
                    list.push(b',');
                }
                Object::open(list)
                    .num("fd", fd.fd)
                    .num("events", fd.events)
                    .num("revents", fd.revents)
                    .close();
            }
            list.push(b']');
        }
        Arg::SigAction(None) => {
            o.key("sigaction").extend_from_slice(b"null");
        }
        Arg::SigAction(Some(sa)) => {
            let mut s = Object::open(o.key("sigaction"));
            s.num("handler", sa.handler).num("sigaction", sa.sigaction);
            match sa.flags() {
                Some(f) => s.num("flags", f),
                None => s.hex("flags", sa.mask),
            };
            s.num("stale_flags", sa.stale_flags)
                .num("stale_restorer", sa.stale_restorer)
                .close();
        }
        Arg::IntP { pointer, value } => {
            Object::open(o.key("intp"))
                .num("pointer", *pointer)
                .num("value", *value)
                .close();
        }
    }
    o.close();
}
