//! `info`'s text, `validate` and `dump` for apitrace `.trace` files (every container, versions 0-6).

use std::io::Write;

use tracecap::info::apitrace::{self as info, Info};
use tracecap::push::{Feed, PumpError, Pumped, PushParse};
use tracecap_apitrace::dump::{dump_text, Dumper};
use tracecap_apitrace::{
    json, Call, Calls, Container, Decompressed, Error, ErrorKind, Event, EventKind, KeptCalls,
    OwnedHeader, PushParser, Pushed, SigTable, Space, Stream,
};

use super::output::DumpOptions;
use crate::error::CliError;

/// A fault of the trace `d` as the tool reports it (see [`tracecap::info::apitrace::fault`]).
fn fault(d: &Decompressed, e: Error) -> CliError {
    super::output::fault(info::fault(d, e))
}

/// Decompresses a trace of any container (see [`tracecap::info::apitrace::open`]).
fn open(data: &[u8]) -> Result<Decompressed, CliError> {
    info::open(data).map_err(super::output::fault)
}

/// The text of `tracecap info`.
pub fn info_text(i: &Info, verbose: bool, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "format:       apitrace .trace")?;
    writeln!(
        out,
        "version:      {} (semantic {})",
        i.version, i.semantic_version
    )?;
    writeln!(out, "container:    {}", i.container)?;
    writeln!(
        out,
        "size:         {} bytes ({} bytes of stream)",
        i.file_bytes, i.stream_bytes
    )?;
    writeln!(out, "api:          {}", i.api.label())?;
    writeln!(
        out,
        "calls:        {} ({} incomplete)",
        i.calls,
        i.calls.saturating_sub(i.completed)
    )?;
    writeln!(out, "frames:       {}", i.frames)?;
    writeln!(out, "threads:      {}", i.threads.len())?;
    writeln!(out, "signatures:   {}", i.signatures)?;
    // Header properties (any number in a crafted file): the first few unless --verbose.
    let items = i.properties.iter().map(|(n, v)| format!("{n} = {v}"));
    super::list::write_list(out, "properties", items, verbose)
}

/// `tracecap validate`.
pub fn validate(data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    let d = open(data)?;
    // The whole walk, calls assembled and every value read again through the table.
    let trace = Stream::parse(&d.data).map_err(|e| fault(&d, info::cause(&d, e)))?;
    let mut events = trace.events();
    let mut calls = Calls::new();
    let mut text = Vec::new();
    let mut dumper = Dumper::new();
    while let Some(ev) = events.next() {
        let ev = ev.map_err(|e| fault(&d, info::cause(&d, e)))?;
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
    let s = info::report(&d, data.len() as u64).map_err(super::output::fault)?;
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

/// `tracecap dump` of a trace as its bytes arrive: call by call as the calls complete (the same
/// lines as [`dump`] of the whole file, flushed whenever the reading waits for bytes), through
/// the crate's `PushParser`, in every container; `None` for `--json` of a zstd trace, dumped
/// from its whole bytes: its first line names the container, and whether a zstd file is
/// seekable is told by its last 4 bytes.
pub fn dump_arriving(
    s: &mut crate::follow::Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<Pumped, CliError>> {
    // `buffer` holds the bytes the format was told from: the container's magic.
    let container = Container::detect(&s.buffer).ok()?;
    let zstd = matches!(container, Container::Zstd | Container::ZstdSeekable);
    if opts.json && zstd {
        return None;
    }
    if opts.json && opts.apitrace {
        return Some(Err(both_outputs()));
    }
    let mut parser = Located::default();
    let mut fed = Fed {
        enters: 0,
        container,
    };
    let pumped = {
        let feed = Feed::Arriving(&mut s.source, &mut s.buffer);
        if opts.json {
            dump_json_pushed(feed, &mut parser, &mut fed, out)
        } else {
            dump_text_pushed(feed, &mut parser, &mut fed, out)
        }
    };
    Some(pumped.map_err(|e| {
        // A fault of a zstd stream names its container as the whole file's dump does, which
        // knows the file's end: the input is read to its end to tell.
        if zstd && e.stream_fault() {
            fed.container = zstd_container(s);
        }
        e.into_cli(&parser, &fed)
    }))
}

/// Reads the rest of a zstd trace (keeping only its last 4 bytes) and says whether it ends with
/// the seek table's magic: a seekable file, as [`Container::detect`] tells it from the whole
/// file.
fn zstd_container(s: &mut crate::follow::Started) -> Container {
    let mut last = [0u8; 4];
    let mut len = 0u64;
    let mut keep = |bytes: &[u8]| {
        for &b in bytes {
            last.rotate_left(1);
            last[3] = b;
        }
        len += bytes.len() as u64;
    };
    keep(&s.buffer);
    loop {
        s.buffer.clear();
        let Ok(arrival) = s.source.read_more(&mut s.buffer) else {
            break;
        };
        keep(&s.buffer);
        if let tracecap::open::Arrival::Stopped(_) = arrival {
            break;
        }
    }
    s.buffer.clear();
    if len >= 8 && last == tracecap_apitrace::SEEKABLE_MAGIC {
        Container::ZstdSeekable
    } else {
        Container::Zstd
    }
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
struct Fed {
    /// ENTER events read.
    enters: u64,
    /// The trace's container.
    container: Container,
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
    /// Whether this is a fault of the stream (its offset counts in the decompressed stream).
    fn stream_fault(&self) -> bool {
        match self {
            PushedErr::Trace(e) | PushedErr::Value(e) => e.kind.space() == Space::Stream,
            PushedErr::Io(_) => false,
        }
    }

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
                    "{} at decompressed stream offset {:#x}, in the {} {} starting",
                    e.kind,
                    e.offset,
                    fed.container.name(),
                    match (offsets.chunk_offset(e.offset), fed.container) {
                        (Some(_), Container::Snappy) => "chunk",
                        (Some(_), _) => "frame",
                        (None, _) => "stream",
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
                json::head(&mut lines, fed.container, version, semantic, props);
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
    r.map_err(|e| fault(&d, info::cause(&d, e)))?;
    if let Some(e) = d.fault {
        return Err(fault(&d, e));
    }
    Ok(())
}

fn dump_json(d: &Decompressed, out: &mut dyn Write) -> Result<(), CliError> {
    let trace = Stream::parse(&d.data).map_err(|e| fault(d, info::cause(d, e)))?;
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
    if let Some(e) = fault_at.map(|e| info::cause(d, e)).or(d.fault) {
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
