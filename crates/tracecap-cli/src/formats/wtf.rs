//! Web Tracing Framework (`.wtf-trace`, chunked format 10 and legacy format 3): info's text,
//! validate and dump.

use std::io::Write;

use tracecap::info::wtf::{HeaderJson, Info};
use tracecap::push::{Fed, Feed, Pumped};
use tracecap_wtf::json::ArgsJson;
use tracecap_wtf::push::{PushItem, PushParser};
use tracecap_wtf::{
    text_lossy, Builtin, Capture, Container, Definition, DefinitionLookup, Error, Event, Header,
};

use super::list::write_list;
use super::output::DumpOptions;
use crate::error::CliError;
use crate::follow::{self, Started};
use crate::json::{to_string, JsonWriter, Raw};

/// The file header as one JSON value (see [`HeaderJson`]): the header part of chunked files
/// (`null` when it has none), the header fields of legacy files.
fn header_json(w: &mut JsonWriter<'_>, info: &Header<'_>) -> Result<(), Error> {
    let header = HeaderJson::of(info)?;
    // Writing it cannot fail: every key of its objects is a string.
    w.item(Raw(&serde_json::to_string(&header).unwrap_or_default()));
    Ok(())
}

/// The text of `tracecap info`: versions, chunks, zones and events by name.
pub fn info_text(i: &Info, verbose: bool, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "format:        wtf ({}), format version {}, wtf version {:#010x}",
        i.container_name(),
        i.format_version,
        i.wtf_version
    )?;
    writeln!(out, "file size:     {} bytes", i.file_size)?;
    if i.container == Container::Chunked {
        writeln!(
            out,
            "chunks:        {} ({} with events)",
            i.chunks, i.event_chunks
        )?;
    }
    writeln!(out, "definitions:   {}", i.definitions)?;
    writeln!(out, "events:        {}", i.events)?;
    if let (Some(a), Some(b)) = (i.first_time, i.last_time) {
        writeln!(out, "time span:     {} us ({a} .. {b})", b - a)?;
    }
    write_list(
        out,
        "zones",
        i.zones.iter().map(|(id, z)| {
            let id = id.map_or_else(|| "-".to_string(), |i| i.to_string());
            format!(
                "{id}: {} type={} location={} ({} events)",
                to_string(&z.name),
                to_string(&z.kind),
                to_string(&z.location),
                z.events
            )
        }),
        verbose,
    )?;
    write_list(
        out,
        "events by name",
        i.by_name.iter().map(|(n, c)| format!("{c:>9}  {n}")),
        verbose,
    )
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
