//! Web Tracing Framework (`.wtf-trace`, chunked format 10 and legacy format 3): info, validate
//! and dump.

use std::collections::BTreeMap;
use std::io::Write;

use tracecap::push::{Fed, Feed, Pumped};
use tracecap_wtf::json::ArgsJson;
use tracecap_wtf::push::{PushItem, PushParser};
use tracecap_wtf::{
    text_lossy, Builtin, Capture, Container, Definition, DefinitionLookup, Error, Event, Header,
    Str, FLAG_HIGH_RESOLUTION_TIMES, FLAG_TIMES_AS_COUNT,
};

use crate::error::CliError;
use crate::follow::{self, Started};
use crate::formats::{write_list, DumpOptions};
use crate::json::{to_string, JsonWriter, Null};

fn opt_text(b: Option<&[u8]>) -> Option<String> {
    b.map(|b| text_lossy(b).into_owned())
}

/// The file header as one JSON value: the header part of chunked files (`null` when it has
/// none), the header fields of legacy files.
fn header_json(w: &mut JsonWriter<'_>, info: &Header<'_>) -> Result<(), Error> {
    let Some(legacy) = &info.legacy else {
        w.item(info.header_value()?);
        return Ok(());
    };
    w.begin_object().array("flags");
    if legacy.flags & FLAG_HIGH_RESOLUTION_TIMES != 0 {
        w.item("has_high_resolution_times");
    }
    if legacy.flags & FLAG_TIMES_AS_COUNT != 0 {
        w.item("times_as_count");
    }
    w.end_array().field("timebase", legacy.timebase_ms);
    legacy_json_text(w, "contextInfo", legacy.context_info);
    legacy_json_text(w, "metadata", legacy.metadata);
    w.end_object();
    Ok(())
}

/// A JSON text of a legacy header as its value, or as a string when it is not JSON.
fn legacy_json_text(w: &mut JsonWriter<'_>, key: &'static str, s: Str<'_>) {
    match s.resolve(&Default::default()) {
        None => w.field(key, Null),
        Some(b) => {
            let t = text_lossy(b);
            match serde_json::from_str::<serde_json::Value>(&t) {
                Ok(v) => w.field(key, v),
                Err(_) => w.field(key, t),
            }
        }
    };
}

#[derive(Default)]
struct Zone {
    name: Option<String>,
    kind: Option<String>,
    location: Option<String>,
    events: u64,
}

#[derive(Default)]
struct Summary {
    chunks: u64,
    event_chunks: u64,
    events: u64,
    definitions: usize,
    first_time: Option<u32>,
    last_time: Option<u32>,
    zones: BTreeMap<Option<u16>, Zone>,
    by_name: BTreeMap<String, u64>,
}

fn summarize(trace: &Capture<'_>) -> (Summary, Option<Error>) {
    let mut s = Summary::default();
    for c in trace.chunks() {
        match c {
            Ok(c) => {
                s.chunks += 1;
                if c.kind == tracecap_wtf::CHUNK_EVENT_DATA {
                    s.event_chunks += 1;
                }
            }
            Err(_) => break,
        }
    }
    let mut events = trace.events();
    let mut err = None;
    for ev in events.by_ref() {
        let ev = match ev {
            Ok(e) => e,
            Err(e) => {
                err = Some(e);
                break;
            }
        };
        s.events += 1;
        s.first_time = Some(s.first_time.map_or(ev.time, |t| t.min(ev.time)));
        s.last_time = Some(s.last_time.map_or(ev.time, |t| t.max(ev.time)));
        *s.by_name.entry(ev.name().to_string()).or_default() += 1;
        if let Some(z) = ev.zone_create() {
            let zone = s.zones.entry(Some(z.id)).or_default();
            zone.name = opt_text(z.name);
            zone.kind = opt_text(z.kind);
            zone.location = opt_text(z.location);
        }
        s.zones.entry(ev.zone).or_default().events += 1;
    }
    s.definitions = events.table().len();
    (s, err)
}

/// `tracecap info`: versions, chunks, zones and events by name.
pub fn info(data: &[u8], opts: &super::InfoOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let json = opts.json;
    let trace = Capture::parse(data)?;
    let info = trace.header();
    let (s, err) = summarize(&trace);
    let mut top: Vec<(&String, &u64)> = s.by_name.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let container = match info.container {
        Container::Chunked => "chunked",
        Container::Legacy => "legacy",
    };
    if json {
        let mut w = JsonWriter::new(out);
        w.begin_object()
            .field("format", "wtf")
            .field("container", container)
            .field("format_version", info.format_version)
            .field("wtf_version", info.wtf_version)
            .field("file_size", data.len())
            .key("header");
        header_json(&mut w, info)?;
        w.field("chunks", s.chunks)
            .field("event_chunks", s.event_chunks)
            .field("definitions", s.definitions)
            .field("events", s.events)
            .field("first_time_us", s.first_time)
            .field("last_time_us", s.last_time)
            .array("zones");
        for (id, z) in &s.zones {
            w.begin_object()
                .field("id", id)
                .field("name", &z.name)
                .field("type", &z.kind)
                .field("location", &z.location)
                .field("events", z.events)
                .end_object();
        }
        w.end_array().object("events_by_name");
        for (n, c) in &top {
            w.field_escaped(n, c);
        }
        w.end_object();
        super::error_field(&mut w, err.map(|e| (e.kind, e.offset)));
        w.end_object();
        w.end_line()?;
    } else {
        header_json(&mut JsonWriter::new(&mut std::io::sink()), info)?;
        writeln!(
            out,
            "format:        wtf ({container}), format version {}, wtf version {:#010x}",
            info.format_version, info.wtf_version
        )?;
        writeln!(out, "file size:     {} bytes", data.len())?;
        if info.container == Container::Chunked {
            writeln!(
                out,
                "chunks:        {} ({} with events)",
                s.chunks, s.event_chunks
            )?;
        }
        writeln!(out, "definitions:   {}", s.definitions)?;
        writeln!(out, "events:        {}", s.events)?;
        if let (Some(a), Some(b)) = (s.first_time, s.last_time) {
            writeln!(out, "time span:     {} us ({a} .. {b})", b - a)?;
        }
        write_list(
            out,
            "zones",
            s.zones.iter().map(|(id, z)| {
                let id = id.map_or_else(|| "-".to_string(), |i| i.to_string());
                format!(
                    "{id}: {} type={} location={} ({} events)",
                    to_string(&z.name),
                    to_string(&z.kind),
                    to_string(&z.location),
                    z.events
                )
            }),
            opts.verbose,
        )?;
        write_list(
            out,
            "events by name",
            top.iter().map(|(n, c)| format!("{c:>9}  {n}")),
            opts.verbose,
        )?;
    }
    match err {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// `tracecap validate`: walk every event and decode every argument; exit 1 at the first fault.
pub fn validate(data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    let trace = Capture::parse(data)?;
    header_json(&mut JsonWriter::new(&mut std::io::sink()), trace.header())?;
    let mut events = 0u64;
    let mut args = 0u64;
    let mut walk = trace.events();
    for ev in walk.by_ref() {
        let ev = ev?;
        events += 1;
        for a in ev.args() {
            a?;
            args += 1;
        }
    }
    writeln!(
        out,
        "ok: wtf format {}, {events} events, {args} arguments, {} definitions, {} bytes",
        trace.header().format_version,
        walk.table().len(),
        data.len()
    )?;
    Ok(())
}

/// The arguments of `ev` as one JSON object, in the event's order.
fn args_object(
    w: &mut JsonWriter<'_>,
    fmt: &mut ArgsJson<'_>,
    ev: &Event<'_>,
) -> Result<(), Error> {
    w.begin_object();
    for a in ev.args() {
        let a = a?;
        w.field_escaped(a.name, fmt.value(ev, a.value));
    }
    w.end_object();
    Ok(())
}

/// `tracecap dump` of a capture as its bytes arrive (`--follow`, standard input, a pipe): each
/// event is printed as it completes, holding only the chunk being read (a legacy file: the
/// event).
pub fn dump_arriving(
    s: &mut Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<Pumped, CliError>> {
    Some(dump_from(
        Feed::Arriving(&mut s.source, &mut s.buffer),
        opts,
        out,
    ))
}

/// `tracecap dump`: a header line, then every event in file order (built-ins included, raw), with
/// a `define` line after each `wtf.event#define` and a `zone` line after each `wtf.zone#create`.
/// The text lines show the header and the arguments as JSON too.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    dump_from(Feed::Whole(data), opts, out).map(|_| ())
}

/// The one dump loop, over bytes in memory or arriving: the push parser's header, events and
/// definitions as lines.
fn dump_from(feed: Feed<'_>, opts: &DumpOptions, out: &mut dyn Write) -> Result<Pumped, CliError> {
    let json = opts.json;
    let mut parser = PushParser::new();
    let mut w = JsonWriter::new(out);
    let mut fmt = ArgsJson::new();
    // The offset of the last event: a definition comes right after the event that made it.
    let mut last = 0u64;
    follow::finish(feed.run_noting(&mut parser, |fed| {
        let item = match fed {
            Fed::Item(item) => item,
            // What was printed shows while more bytes are awaited.
            Fed::Reading => return Ok(w.flush()?),
        };
        match item {
            PushItem::Header(info) => header_line(&mut w, &info, json)?,
            PushItem::Chunk(_) => {}
            PushItem::Event(ev) => {
                last = ev.offset;
                event_lines(&mut w, &mut fmt, &ev, json)?;
            }
            PushItem::Defined(def) => define_line(&mut w, &def, last, json)?,
        }
        Ok(())
    }))
}

/// The first line of `dump`: format, versions and header.
fn header_line(w: &mut JsonWriter<'_>, info: &Header<'_>, json: bool) -> Result<(), CliError> {
    if json {
        w.begin_object()
            .field("format", "wtf")
            .field("format_version", info.format_version)
            .field("wtf_version", info.wtf_version)
            .key("header");
        header_json(w, info)?;
        w.end_object();
    } else {
        w.text(format_args!(
            "wtf format {} wtf_version {:#010x} header ",
            info.format_version, info.wtf_version
        ));
        header_json(w, info)?;
    }
    w.end_line()?;
    Ok(())
}

/// An event's line, and a `zone` line after a `wtf.zone#create`.
fn event_lines(
    w: &mut JsonWriter<'_>,
    fmt: &mut ArgsJson<'_>,
    ev: &Event<'_>,
    json: bool,
) -> Result<(), CliError> {
    if json {
        w.begin_object()
            .field("kind", "event")
            .field("offset", ev.offset)
            .field("zone", ev.zone)
            .field("time_us", ev.time)
            .field("name", ev.name())
            .field("flags", ev.flags())
            .key("args");
        args_object(w, fmt, ev)?;
        w.end_object();
    } else {
        w.text(format_args!("{:#010x} t={} zone=", ev.offset, ev.time));
        match ev.zone {
            Some(z) => w.text(format_args!("{z}")),
            None => w.text(format_args!("-")),
        };
        w.text(format_args!(" {} flags={} ", ev.name(), ev.flags()));
        args_object(w, fmt, ev)?;
    }
    w.end_line()?;
    if ev.flags() & tracecap_wtf::FLAG_BUILTIN == 0 || ev.builtin() != Some(Builtin::ZoneCreate) {
        return Ok(());
    }
    let Some(z) = ev.zone_create() else {
        return Ok(());
    };
    let (name, kind, location) = (
        z.name.map(text_lossy),
        z.kind.map(text_lossy),
        z.location.map(text_lossy),
    );
    if json {
        w.begin_object()
            .field("kind", "zone")
            .field("id", z.id)
            .field("name", name)
            .field("type", kind)
            .field("location", location)
            .field("offset", ev.offset)
            .end_object();
    } else {
        w.text(format_args!("  zone id={} ", z.id))
            .item(name)
            .text(format_args!(" type="))
            .item(kind)
            .text(format_args!(" location="))
            .item(location);
    }
    w.end_line()?;
    Ok(())
}

/// The `define` line after the `wtf.event#define` at `offset`: the definition then in force for
/// the wire id it names.
fn define_line(
    w: &mut JsonWriter<'_>,
    def: &Definition<'_>,
    offset: u64,
    json: bool,
) -> Result<(), CliError> {
    let class = if def.is_scope() { "scope" } else { "instance" };
    if json {
        w.begin_object()
            .field("kind", "define")
            .field("wire_id", def.wire_id)
            .field("name", def.name)
            .field("class", class)
            .field("flags", def.flags)
            .field("signature", def.signature)
            .field("offset", offset)
            .end_object();
    } else {
        w.text(format_args!(
            "  define wire_id={} {} class={class} flags={} ({})",
            def.wire_id, def.name, def.flags, def.signature
        ));
    }
    w.end_line()?;
    Ok(())
}
