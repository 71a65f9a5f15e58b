//! `info`, `validate` and `dump` for apitrace `.trace` files (every container, versions 0-6).

use std::collections::BTreeSet;
use std::io::Write;

use serde_json::json;
use tracecap_apitrace::dump::{dump_text, Dumper};
use tracecap_apitrace::{
    call_flags, decompress_limited, Api, Call, Calls, Decompressed, Error, EventKind, SigTable,
    Space, Stream, Value, END_FRAME, MARKER_PUSH,
};

use super::DumpOptions;
use crate::error::CliError;
use crate::json::{f64_num, str_lossy};

/// Turns a crate error into a CLI error with a file offset ([`Decompressed::error_offset`]: a
/// stream offset is mapped to the snappy chunk or zstd frame that holds it, 0 for the other
/// containers), the stream offset kept in the message.
fn fault(d: &Decompressed, e: Error) -> CliError {
    let at = d.error_offset(&e);
    match e.kind.space() {
        // The container's own fault: the stream before it was read whole, and the message says
        // how many calls that gave (zlib-no-eof.trace: every call, but no gzip trailer).
        Space::File if d.fault == Some(e) => {
            let n = calls_read(d);
            let calls = if n == 1 { "call was" } else { "calls were" };
            CliError::format(format!("{} after {n} {calls} read", e.kind), at)
        }
        Space::File => CliError::format(e.kind, at),
        // Both offsets: in the stream, and (printed last, as every fault's) the file offset of
        // the snappy chunk or zstd frame it was decompressed from, or of the whole compressed
        // stream for gzip and brotli.
        Space::Stream => CliError::format(
            format!(
                "{} at decompressed stream offset {:#x}, in the {} {} starting",
                e.kind,
                e.offset,
                d.container.name(),
                d.piece_at(e.offset),
            ),
            at,
        ),
    }
}

/// The calls (ENTER events) of the decompressed stream up to its first fault.
fn calls_read(d: &Decompressed) -> u64 {
    let Ok(trace) = Stream::parse(&d.data) else {
        return 0;
    };
    let mut events = trace.events();
    let mut n = 0;
    while let Some(Ok(ev)) = events.next() {
        n += u64::from(ev.kind == EventKind::Enter);
    }
    n
}

/// A stream cut short because its container was cut short: the container fault says more (a
/// truncation is always one of the stream).
fn cause(d: &Decompressed, e: Error) -> Error {
    match d.fault {
        Some(f) if e.is_truncation() => f,
        _ => e,
    }
}

fn open(data: &[u8]) -> Result<Decompressed, CliError> {
    // A few KiB of brotli or zstd can claim gigabytes: allow 1 GiB plus 1024x the file, far
    // beyond what real traces reach (snappy ~3x, zstd/brotli ~30x).
    let limit = (1u64 << 30).saturating_add((data.len() as u64).saturating_mul(1024));
    decompress_limited(data, limit).map_err(|e| CliError::format(e.kind, e.offset))
}

struct Summary {
    version: u64,
    semantic_version: u64,
    calls: u64,
    completed: u64,
    frames: u64,
    /// Calls that push a debug group (`glPushDebugGroup`, ...).
    group_pushes: u64,
    threads: BTreeSet<u64>,
    api: Api,
    signatures: usize,
}

/// The summary of everything readable, and the fault that stopped the walk (if any).
fn summarize(d: &Decompressed) -> Result<(Summary, Option<Error>), CliError> {
    let trace = Stream::parse(&d.data).map_err(|e| fault(d, cause(d, e)))?;
    let mut s = Summary {
        version: trace.version(),
        semantic_version: trace.header().semantic_version,
        calls: 0,
        completed: 0,
        frames: 0,
        group_pushes: 0,
        threads: BTreeSet::new(),
        api: Api::Unknown,
        signatures: 0,
    };
    let mut seen = BTreeSet::new();
    let mut events = trace.events();
    let mut result = None;
    while let Some(ev) = events.next() {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                result = Some(e);
                break;
            }
        };
        if ev.kind == EventKind::Enter {
            s.calls += 1;
            s.threads.insert(ev.thread);
            let name = events
                .table()
                .function(ev.sig)
                .map_or(&b""[..], |f| f.name());
            let flags = call_flags(name);
            if flags & END_FRAME != 0 {
                s.frames += 1;
            }
            if flags & MARKER_PUSH != 0 {
                s.group_pushes += 1;
            }
            if seen.insert(ev.sig) && s.api == Api::Unknown {
                s.api = Api::from_name(name);
            }
        } else {
            s.completed += 1;
        }
    }
    s.signatures = events.table().len();
    Ok((s, result.map(|e| cause(d, e)).or(d.fault)))
}

/// `tracecap info`.
pub fn info(data: &[u8], opts: &super::InfoOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let json = opts.json;
    let d = open(data)?;
    let (s, bad) = summarize(&d)?;
    let trace = Stream::parse(&d.data).map_err(|e| fault(&d, cause(&d, e)))?;
    let props: serde_json::Map<String, serde_json::Value> = trace
        .header()
        .properties()
        .map(|(n, v)| {
            (
                String::from_utf8_lossy(n).into_owned(),
                String::from_utf8_lossy(v).into_owned().into(),
            )
        })
        .collect();
    if json {
        let v = json!({
            "format": "apitrace",
            "version": s.version,
            "semantic_version": s.semantic_version,
            "container": d.container.name(),
            "calls": s.calls,
            "frames": s.frames,
            "debug_group_pushes": s.group_pushes,
            "threads": s.threads.len(),
            "api": s.api.label(),
            "file_bytes": data.len(),
            "stream_bytes": d.data.len(),
            "signatures": s.signatures,
            "properties": props,
            "fault": bad.map(|e| fault(&d, e).to_string()),
        });
        writeln!(out, "{v}")?;
        return bad.map_or(Ok(()), |e| Err(fault(&d, e)));
    }
    writeln!(out, "format:       apitrace .trace")?;
    writeln!(
        out,
        "version:      {} (semantic {})",
        s.version, s.semantic_version
    )?;
    writeln!(out, "container:    {}", d.container.name())?;
    writeln!(
        out,
        "size:         {} bytes ({} bytes of stream)",
        data.len(),
        d.data.len()
    )?;
    writeln!(out, "api:          {}", s.api.label())?;
    writeln!(
        out,
        "calls:        {} ({} incomplete)",
        s.calls,
        s.calls.saturating_sub(s.completed)
    )?;
    writeln!(out, "frames:       {}", s.frames)?;
    writeln!(out, "threads:      {}", s.threads.len())?;
    writeln!(out, "signatures:   {}", s.signatures)?;
    // Header properties (any number in a crafted file): the first few unless --verbose.
    let items = props
        .iter()
        .map(|(n, v)| format!("{n} = {}", v.as_str().unwrap_or("")));
    super::write_list(out, "properties", items, opts.verbose)?;
    bad.map_or(Ok(()), |e| Err(fault(&d, e)))
}

/// `tracecap validate`.
pub fn validate(data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    let d = open(data)?;
    // The whole walk, calls assembled and every value read again through the table.
    let trace = Stream::parse(&d.data).map_err(|e| fault(&d, cause(&d, e)))?;
    let mut events = trace.events();
    let mut calls = Calls::new();
    let mut text = Vec::new();
    let mut dumper = Dumper::new();
    while let Some(ev) = events.next() {
        let ev = ev.map_err(|e| fault(&d, cause(&d, e)))?;
        if let Some(call) = calls.push(&ev, events.table()).map_err(|e| fault(&d, e))? {
            text.clear();
            dumper
                .call(&mut text, &call, events.table())
                .map_err(|e| fault(&d, e))?;
            calls.recycle(call);
        }
    }
    if let Some(e) = d.fault {
        return Err(fault(&d, e));
    }
    let (s, _) = summarize(&d)?;
    writeln!(
        out,
        "ok: apitrace version {} ({}): {} calls ({} incomplete), {} frames, {} threads, {} signatures",
        s.version,
        d.container.name(),
        s.calls,
        s.calls.saturating_sub(s.completed),
        s.frames,
        s.threads.len(),
        s.signatures
    )?;
    Ok(())
}

/// `tracecap dump`: apitrace's own text (also the default), or JSON Lines with `--json`.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    if opts.json && opts.apitrace {
        return Err(CliError::Usage(
            "--json and --apitrace are two different outputs: pick one".into(),
        ));
    }
    let d = open(data)?;
    if opts.json {
        return dump_json(&d, out);
    }
    let mut io = Ok(());
    let r = dump_text(&d.data, |b| {
        if io.is_ok() {
            io = out.write_all(b);
        }
    });
    io?;
    r.map_err(|e| fault(&d, cause(&d, e)))?;
    if let Some(e) = d.fault {
        return Err(fault(&d, e));
    }
    Ok(())
}

fn dump_json(d: &Decompressed, out: &mut dyn Write) -> Result<(), CliError> {
    let trace = Stream::parse(&d.data).map_err(|e| fault(d, cause(d, e)))?;
    let h = trace.header();
    let props: serde_json::Map<String, serde_json::Value> = h
        .properties()
        .map(|(n, v)| {
            (
                String::from_utf8_lossy(n).into_owned(),
                String::from_utf8_lossy(v).into_owned().into(),
            )
        })
        .collect();
    let head = json!({
        "format": "apitrace",
        "version": h.version,
        "semantic_version": h.semantic_version,
        "container": d.container.name(),
        "properties": props,
    });
    writeln!(out, "{head}")?;
    let mut events = trace.events();
    let mut calls = Calls::new();
    let mut fault_at = None;
    while let Some(ev) = events.next() {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                fault_at = Some(e);
                break;
            }
        };
        match calls.push(&ev, events.table()) {
            Ok(Some(call)) => {
                json_call(out, d, &call, events.table()).map_err(|e| e.into_cli(d))?;
                calls.recycle(call);
            }
            Ok(None) => {}
            Err(e) => {
                fault_at = Some(e);
                break;
            }
        }
    }
    // Calls never left are printed (as incomplete) only when the stream and its container end
    // cleanly: after a fault, whether they returned is not known, and the lines printed are
    // exactly the first lines of the whole file's dump.
    if fault_at.is_none() && d.fault.is_none() {
        let table = events.table();
        let open: Vec<Call<'_>> = calls.finish().collect();
        for call in &open {
            json_call(out, d, call, table).map_err(|e| e.into_cli(d))?;
        }
    }
    if let Some(e) = fault_at.map(|e| cause(d, e)).or(d.fault) {
        return Err(fault(d, e));
    }
    Ok(())
}

enum JsonErr {
    Io(std::io::Error),
    Stream(Error),
}

impl From<std::io::Error> for JsonErr {
    fn from(e: std::io::Error) -> Self {
        JsonErr::Io(e)
    }
}

impl From<Error> for JsonErr {
    fn from(e: Error) -> Self {
        JsonErr::Stream(e)
    }
}

impl JsonErr {
    fn into_cli(self, d: &Decompressed) -> CliError {
        match self {
            JsonErr::Io(e) => CliError::Io(e),
            JsonErr::Stream(e) => fault(d, e),
        }
    }
}

/// One call as a JSON object; `offset` is the stream offset of its ENTER event, `file_offset`
/// the file offset of the snappy chunk or zstd frame that holds it (absent for gzip and brotli,
/// one compressed stream).
fn json_call(
    out: &mut dyn Write,
    d: &Decompressed,
    call: &Call<'_>,
    table: &SigTable,
) -> Result<(), JsonErr> {
    let sig = table.function(call.sig);
    let name = sig.map_or(&b""[..], |s| s.name());
    write!(
        out,
        "{{\"no\":{},\"thread\":{},\"name\":",
        call.no, call.thread
    )?;
    str_lossy(out, name)?;
    out.write_all(b",\"args\":[")?;
    for (i, a) in call.args.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"{\"name\":")?;
        str_lossy(out, sig.and_then(|s| s.arg_name(i)).unwrap_or(b""))?;
        out.write_all(b",\"value\":")?;
        match a {
            Some(v) => json_value(out, v, table)?,
            None => out.write_all(b"null")?,
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"],\"ret\":")?;
    match &call.ret {
        Some(v) => json_value(out, v, table)?,
        None => out.write_all(b"null")?,
    }
    write!(
        out,
        ",\"flags\":{{\"fake\":{},\"incomplete\":{},\"end_frame\":{}}},\"backtrace\":",
        call.is_fake(),
        call.incomplete,
        call_flags(name) & END_FRAME != 0
    )?;
    match &call.backtrace {
        None => out.write_all(b"null")?,
        Some(bt) => {
            out.write_all(b"[")?;
            for (i, id) in bt.frames(table).enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                let f = table.frame(id?).unwrap_or_default();
                out.write_all(b"{\"module\":")?;
                opt_str(out, f.module)?;
                out.write_all(b",\"function\":")?;
                opt_str(out, f.function)?;
                out.write_all(b",\"file\":")?;
                opt_str(out, f.filename)?;
                out.write_all(b",\"line\":")?;
                opt_num(out, f.line)?;
                out.write_all(b",\"offset\":")?;
                opt_num(out, f.offset)?;
                out.write_all(b"}")?;
            }
            out.write_all(b"]")?;
        }
    }
    write!(out, ",\"offset\":{}", call.offset)?;
    if let Some(at) = d.chunk_offset(call.offset) {
        write!(out, ",\"file_offset\":{at}")?;
    }
    out.write_all(b"}\n")?;
    Ok(())
}

fn opt_str(out: &mut dyn Write, s: Option<&[u8]>) -> std::io::Result<()> {
    match s {
        Some(s) => str_lossy(out, s),
        None => out.write_all(b"null"),
    }
}

fn opt_num(out: &mut dyn Write, n: Option<u64>) -> std::io::Result<()> {
    match n {
        Some(n) => write!(out, "{n}"),
        None => out.write_all(b"null"),
    }
}

/// A wide string's text: UTF-16 when any unit is a surrogate, else code points.
fn wide_text(units: impl Iterator<Item = u64> + Clone) -> String {
    if units.clone().any(|u| (0xd800..=0xdfff).contains(&u)) {
        let v: Vec<u16> = units.map(|u| u as u16).collect();
        String::from_utf16_lossy(&v)
    } else {
        units
            .map(|u| {
                u32::try_from(u)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or(char::REPLACEMENT_CHARACTER)
            })
            .collect()
    }
}

fn json_value(out: &mut dyn Write, v: &Value<'_>, table: &SigTable) -> Result<(), JsonErr> {
    match *v {
        Value::Null => out.write_all(b"{\"type\":\"null\"}")?,
        Value::Bool(b) => write!(out, "{{\"type\":\"bool\",\"value\":{b}}}")?,
        Value::SInt(i) => write!(out, "{{\"type\":\"sint\",\"value\":{i}}}")?,
        Value::UInt(u) => write!(out, "{{\"type\":\"uint\",\"value\":{u}}}")?,
        Value::Float(f) => {
            out.write_all(b"{\"type\":\"float\",\"value\":")?;
            f64_num(out, f64::from(f))?;
            out.write_all(b"}")?;
        }
        Value::Double(f) => {
            out.write_all(b"{\"type\":\"double\",\"value\":")?;
            f64_num(out, f)?;
            out.write_all(b"}")?;
        }
        Value::String(s) => {
            out.write_all(b"{\"type\":\"string\",\"value\":")?;
            str_lossy(out, s)?;
            out.write_all(b"}")?;
        }
        Value::WString(w) => {
            out.write_all(b"{\"type\":\"wstring\",\"value\":")?;
            let s = wide_text(w.units());
            serde_json::to_writer(&mut *out, &s).map_err(std::io::Error::other)?;
            out.write_all(b"}")?;
        }
        Value::Blob(b) => write!(out, "{{\"type\":\"blob\",\"size\":{}}}", b.len())?,
        Value::Pointer(p) => write!(out, "{{\"type\":\"pointer\",\"value\":{p}}}")?,
        Value::Enum { sig, value } => {
            write!(out, "{{\"type\":\"enum\",\"value\":{value},\"name\":")?;
            opt_str(out, table.enum_sig(sig).and_then(|s| s.lookup(value)))?;
            out.write_all(b"}")?;
        }
        Value::Bitmask { sig, value } => {
            write!(out, "{{\"type\":\"bitmask\",\"value\":{value},\"flags\":[")?;
            let mut rest = value;
            let mut n = 0;
            if let Some(s) = table.bitmask_sig(sig) {
                for (name, fv) in s.flags() {
                    if (fv != 0 && rest & fv == fv) || (fv == 0 && value == 0) {
                        if n > 0 {
                            out.write_all(b",")?;
                        }
                        str_lossy(out, name)?;
                        rest &= !fv;
                        n += 1;
                    }
                }
            }
            write!(out, "],\"rest\":{rest}}}")?;
        }
        Value::Array(a) => {
            out.write_all(b"{\"type\":\"array\",\"values\":[")?;
            for (i, e) in a.iter(table).enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                json_value(out, &e?, table)?;
            }
            out.write_all(b"]}")?;
        }
        Value::Struct(s) => {
            let sig = table.struct_sig(s.sig);
            out.write_all(b"{\"type\":\"struct\",\"name\":")?;
            str_lossy(out, sig.map_or(&b""[..], |g| g.name()))?;
            out.write_all(b",\"members\":[")?;
            for (i, m) in s.iter(table).enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                out.write_all(b"{\"name\":")?;
                str_lossy(out, sig.and_then(|g| g.member_name(i)).unwrap_or(b""))?;
                out.write_all(b",\"value\":")?;
                json_value(out, &m?, table)?;
                out.write_all(b"}")?;
            }
            out.write_all(b"]}")?;
        }
        Value::Repr(r) => {
            out.write_all(b"{\"type\":\"repr\",\"human\":")?;
            json_value(out, &r.human(table)?, table)?;
            out.write_all(b",\"machine\":")?;
            json_value(out, &r.machine(table)?, table)?;
            out.write_all(b"}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw snappy block holding `data` as literals (at most 60 bytes).
    fn snappy_literal(data: &[u8]) -> Vec<u8> {
        assert!(!data.is_empty() && data.len() <= 60 && data.len() < 0x80);
        let mut b = vec![data.len() as u8, ((data.len() - 1) as u8) << 2];
        b.extend_from_slice(data);
        b
    }

    /// A snappy container with one chunk per piece.
    fn snappy_file(pieces: &[&[u8]]) -> (Vec<u8>, Vec<u64>) {
        let mut file = b"at".to_vec();
        let mut offsets = Vec::new();
        for p in pieces {
            let block = snappy_literal(p);
            offsets.push(file.len() as u64);
            file.extend_from_slice(&(block.len() as u32).to_le_bytes());
            file.extend_from_slice(&block);
        }
        (file, offsets)
    }

    #[test]
    fn stream_faults_name_the_stream_offset_and_the_chunk() {
        // Version 5; call 0 `f(x = 1)` entered and left; call 1 enters with value tag 0x20.
        let first: &[u8] = &[5, 0, 0, 1, 1, b'f', 1, 1, b'x', 1, 0, 4, 1, 0, 1, 0, 0];
        let second: &[u8] = &[0, 0, 1, 1, 0, 0x20, 0];
        let (file, chunks) = snappy_file(&[first, second]);
        let bad = first.len() + 5;
        let want = format!(
            "unknown value tag 0x20 at decompressed stream offset {bad:#x}, in the snappy chunk \
             starting at offset {:#x}",
            chunks[1]
        );
        let err = validate(&file, &mut Vec::new()).unwrap_err().to_string();
        assert_eq!(err, want);
        let opts = DumpOptions {
            json: false,
            apitrace: true,
        };
        let err = dump(&file, &opts, &mut Vec::new()).unwrap_err().to_string();
        assert_eq!(err, want);
    }
}
