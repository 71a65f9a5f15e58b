//! `info`, `validate` and `dump` for apitrace `.trace` files (every container, versions 0-6).

use std::collections::{BTreeSet, HashMap};
use std::io::Write;

use tracecap::push::{Feed, PumpError, Pumped, PushParse};
use tracecap_apitrace::dump::{dump_text, Dumper};
use tracecap_apitrace::{
    call_flags, decompress_limited, json, Api, Call, Calls, Container, Decompressed, Error,
    ErrorKind, Event, EventKind, KeptCalls, OwnedHeader, PushParser, Pushed, SigTable, Space,
    Stream, END_FRAME, MARKER_PUSH,
};

use super::DumpOptions;
use crate::error::CliError;
use crate::json::{JsonWriter, Raw};

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
    if json {
        let mut w = JsonWriter::new(out);
        w.begin_object()
            .field("format", "apitrace")
            .field("version", s.version)
            .field("semantic_version", s.semantic_version)
            .field("container", d.container.name())
            .field("calls", s.calls)
            .field("frames", s.frames)
            .field("debug_group_pushes", s.group_pushes)
            .field("threads", s.threads.len())
            .field("api", s.api.label())
            .field("file_bytes", data.len())
            .field("stream_bytes", d.data.len())
            .field("signatures", s.signatures);
        let mut props = Vec::new();
        json::properties(&mut props, trace.header().properties());
        w.key("properties")
            .item(Raw(&String::from_utf8_lossy(&props)));
        super::error_field(&mut w, bad.map(|e| super::what_and_offset(fault(&d, e))));
        w.end_object();
        w.end_line()?;
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
    let props = properties(trace.header().properties());
    let items = props.iter().map(|(n, v)| format!("{n} = {v}"));
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

/// `tracecap dump` of a trace as its bytes arrive: a snappy container call by call as the
/// calls complete (the same lines as [`dump`] of the whole file, flushed whenever the reading
/// waits for bytes), through the crate's `PushParser`; `None` for gzip, brotli and zstd, which
/// are dumped from their whole bytes.
pub fn dump_arriving(
    s: &mut crate::follow::Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<Pumped, CliError>> {
    // `buffer` holds the bytes the format was told from: the container's magic.
    if !s.buffer.starts_with(b"at") {
        return None;
    }
    if opts.json && opts.apitrace {
        return Some(Err(both_outputs()));
    }
    let mut parser = Located::default();
    let mut fed = Fed::default();
    let pumped = {
        let feed = Feed::Arriving(&mut s.source, &mut s.buffer);
        if opts.json {
            dump_json_pushed(feed, &mut parser, &mut fed, out)
        } else {
            dump_text_pushed(feed, &mut parser, &mut fed, out)
        }
    };
    Some(pumped.map_err(|e| e.into_cli(&parser, &fed)))
}

fn both_outputs() -> CliError {
    CliError::Usage("--json and --apitrace are two different outputs: pick one".into())
}

/// What a dump of pushed events is given: the stream's header, then each event with its table
/// and the file offset of its chunk, and a pause whenever the reading waits for bytes (what is
/// printed is flushed there).
enum Piece<'a> {
    Header(&'a OwnedHeader),
    Pause,
    Event(Event<'a>, &'a SigTable, Option<u64>),
}

/// The crate's push parser giving the header first.
#[derive(Default)]
struct Located {
    parser: PushParser,
    header: bool,
}

impl PushParse for Located {
    type Item<'a> = Piece<'a>;
    type Error = Error;

    fn parse<'a>(&'a mut self, data: &'a [u8], eof: bool) -> Result<Pushed<Piece<'a>>, Error> {
        Ok(if self.header {
            self.parser
                .parse_located(data, eof)?
                .map(|(ev, table, chunk)| Piece::Event(ev, table, chunk))
        } else {
            let h = self.parser.read_header(data, eof)?;
            self.header = matches!(h, Pushed::Item { .. });
            h.map(Piece::Header)
        })
    }

    fn offset(&self) -> u64 {
        self.parser.offset()
    }
}

/// What a dump of pushed events counts, for its faults' messages.
#[derive(Default)]
struct Fed {
    /// ENTER events read.
    enters: u64,
}

/// Why a dump of pushed events stopped.
enum PushedErr {
    Io(std::io::Error),
    /// A fault of the trace, found reading it or pairing its events into calls.
    Trace(Error),
    /// A value that could not be printed.
    Value(Error),
}

impl From<std::io::Error> for PushedErr {
    fn from(e: std::io::Error) -> Self {
        PushedErr::Io(e)
    }
}

impl PushedErr {
    /// The CLI error, its message and offset as [`fault`] gives them for the whole file.
    fn into_cli(self, parser: &Located, fed: &Fed) -> CliError {
        let e = match self {
            PushedErr::Io(e) => return CliError::Io(e),
            PushedErr::Trace(e) | PushedErr::Value(e) => e,
        };
        let offsets = parser.parser.offsets();
        let at = offsets.error_offset(&e);
        match e.kind.space() {
            // Too short to be a trace: refused before any decompression.
            Space::File if matches!(e.kind, ErrorKind::NotATrace(_)) => {
                CliError::format(e.kind, at)
            }
            // The container's fault, after the calls its stream held.
            Space::File => {
                let n = fed.enters;
                let calls = if n == 1 { "call was" } else { "calls were" };
                CliError::format(format!("{} after {n} {calls} read", e.kind), at)
            }
            Space::Stream => CliError::format(
                format!(
                    "{} at decompressed stream offset {:#x}, in the snappy {} starting",
                    e.kind,
                    e.offset,
                    match offsets.chunk_offset(e.offset) {
                        Some(_) => "chunk",
                        None => "stream",
                    },
                ),
                at,
            ),
        }
    }

    /// Whether calls still open are printed (as incomplete) after this error in apitrace's
    /// text, as [`dump_text`] prints them: after a cut stream or a fault of the container
    /// (the stream read before it ends cleanly or cut).
    fn prints_open_calls(&self) -> bool {
        match self {
            PushedErr::Trace(e) => {
                e.is_truncation()
                    || e.kind.space() == Space::File
                    || matches!(e.kind, ErrorKind::WindowLimit(_))
            }
            PushedErr::Io(_) | PushedErr::Value(_) => false,
        }
    }
}

/// Runs `feed` through `parser`, giving each piece to `each`; the trace's fault becomes a
/// [`PushedErr::Trace`].
fn run_pushed(
    feed: Feed<'_>,
    parser: &mut Located,
    each: impl for<'a> FnMut(Piece<'a>) -> Result<(), PushedErr>,
) -> Result<Pumped, PushedErr> {
    let mut each = each;
    let pieces = feed.run_noting(parser, |fed| match fed {
        tracecap::push::Fed::Item(piece) => each(piece),
        tracecap::push::Fed::Reading => each(Piece::Pause),
    });
    pieces.map_err(|e| match e {
        PumpError::Io(e) => PushedErr::Io(e),
        PumpError::Parse(e) => PushedErr::Trace(e),
        PumpError::Each(e) => e,
    })
}

/// apitrace's own text of pushed events, as [`dump_text`] prints the whole stream.
fn dump_text_pushed(
    feed: Feed<'_>,
    parser: &mut Located,
    fed: &mut Fed,
    out: &mut dyn Write,
) -> Result<Pumped, PushedErr> {
    let mut text = Vec::with_capacity(1 << 17);
    let mut d = Dumper::new();
    let mut calls = KeptCalls::<()>::new();
    let walked = run_pushed(feed, parser, |piece| {
        match piece {
            Piece::Header(h) => {
                let props = h.properties.iter();
                d.properties(&mut text, props.map(|(n, v)| (n.as_slice(), v.as_slice())));
            }
            Piece::Pause => {
                out.write_all(&text)?;
                text.clear();
                out.flush()?;
            }
            Piece::Event(ev, table, _) => {
                fed.enters += u64::from(ev.kind == EventKind::Enter);
                let printed = calls.feed(&ev, table, (), |call, ()| d.call(&mut text, call, table));
                if let Some(r) = printed.map_err(PushedErr::Trace)? {
                    r.map_err(PushedErr::Value)?;
                }
                if text.len() >= 1 << 16 {
                    out.write_all(&text)?;
                    text.clear();
                }
            }
        }
        Ok(())
    });
    let header = parser.header;
    if header
        && walked
            .as_ref()
            .err()
            .is_none_or(PushedErr::prints_open_calls)
    {
        let table = parser.parser.table();
        calls.finish(table, |call, ()| {
            d.call(&mut text, call, table).map_err(PushedErr::Value)?;
            if text.len() >= 1 << 16 {
                out.write_all(&text)?;
                text.clear();
            }
            Ok::<(), PushedErr>(())
        })?;
    }
    // A value that could not be printed ends the dump where it stands, as in `dump_text`.
    if !matches!(walked, Err(PushedErr::Value(_))) {
        out.write_all(&text)?;
    }
    walked
}

/// `dump --json` of pushed events, as [`dump_json`] prints the whole stream.
fn dump_json_pushed(
    feed: Feed<'_>,
    parser: &mut Located,
    fed: &mut Fed,
    out: &mut dyn Write,
) -> Result<Pumped, PushedErr> {
    // The lines are held here and written out at 64 KiB and at each pause (then flushed).
    let mut lines = Vec::with_capacity(1 << 17);
    let mut calls = KeptCalls::<Option<u64>>::new();
    let walked = run_pushed(feed, parser, |piece| {
        match piece {
            Piece::Header(h) => {
                let props = h.properties.iter().map(|(n, v)| (&n[..], &v[..]));
                let (version, semantic) = (h.version, h.semantic_version);
                json::head(&mut lines, Container::Snappy, version, semantic, props);
                lines.push(b'\n');
            }
            Piece::Pause => {
                out.write_all(&lines)?;
                lines.clear();
                out.flush()?;
            }
            Piece::Event(ev, table, chunk) => {
                fed.enters += u64::from(ev.kind == EventKind::Enter);
                let printed = calls.feed(&ev, table, chunk, |call, chunk| {
                    json_line(&mut lines, call, table, chunk)
                });
                if let Some(r) = printed.map_err(PushedErr::Trace)? {
                    r.map_err(PushedErr::Value)?;
                }
                if lines.len() >= 1 << 16 {
                    out.write_all(&lines)?;
                    lines.clear();
                }
            }
        }
        Ok(())
    });
    let finished = match walked {
        Ok(_) => {
            let table = parser.parser.table();
            calls.finish(table, |call, chunk| {
                json_line(&mut lines, call, table, chunk).map_err(PushedErr::Value)
            })
        }
        Err(_) => Ok(()),
    };
    // Every whole line, also before a fault (a line cut by a value that could not be printed
    // stays unwritten, as in `dump_json`).
    out.write_all(&lines)?;
    finished?;
    walked
}

/// `tracecap dump`: apitrace's own text (also the default), or JSON Lines with `--json`.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    if opts.json && opts.apitrace {
        return Err(both_outputs());
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
    let mut line = Vec::with_capacity(1024);
    json::head(
        &mut line,
        d.container,
        h.version,
        h.semantic_version,
        h.properties(),
    );
    line.push(b'\n');
    out.write_all(&line)?;
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
                line.clear();
                json_line(
                    &mut line,
                    &call,
                    events.table(),
                    d.chunk_offset(call.offset),
                )
                .map_err(|e| fault(d, e))?;
                out.write_all(&line)?;
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
            line.clear();
            json_line(&mut line, call, table, d.chunk_offset(call.offset))
                .map_err(|e| fault(d, e))?;
            out.write_all(&line)?;
        }
    }
    if let Some(e) = fault_at.map(|e| cause(d, e)).or(d.fault) {
        return Err(fault(d, e));
    }
    Ok(())
}

/// Appends one call's line (its JSON and a newline); `file_offset` is that of the snappy chunk
/// or zstd frame holding its first byte. A value that cannot be printed leaves `lines` as it
/// was.
fn json_line(
    lines: &mut Vec<u8>,
    call: &Call<'_>,
    table: &SigTable,
    file_offset: Option<u64>,
) -> Result<(), Error> {
    json::call(lines, call, table, file_offset)?;
    lines.push(b'\n');
    Ok(())
}

/// The header properties, names and values as text, in file order (a later property of the
/// same name replaces the earlier one's value, in the earlier one's place).
fn properties<'p>(all: impl Iterator<Item = (&'p [u8], &'p [u8])>) -> Vec<(String, String)> {
    let mut props: Vec<(String, String)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (n, v) in all {
        let n = String::from_utf8_lossy(n).into_owned();
        let v = String::from_utf8_lossy(v).into_owned();
        match at.get(&n).and_then(|&i| props.get_mut(i)) {
            Some(p) => p.1 = v,
            None => {
                at.insert(n.clone(), props.len());
                props.push((n, v));
            }
        }
    }
    props
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
