//! Web Tracing Framework (`.wtf-trace`, chunked format 10 and legacy format 3): info, validate
//! and dump.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::Value as J;
use tracecap_wtf::json::ArgsJson;
use tracecap_wtf::{
    text_lossy, Builtin, Capture, Container, DefinitionLookup, Error, Event, Header,
    FLAG_HIGH_RESOLUTION_TIMES, FLAG_TIMES_AS_COUNT,
};

use crate::error::CliError;
use crate::formats::{write_list, DumpOptions};

fn opt_text(b: Option<&[u8]>) -> J {
    b.map_or(J::Null, |b| J::String(text_lossy(b).into_owned()))
}

/// The file header as one JSON object: the header part of chunked files, the header fields of
/// legacy files.
fn header_json(info: &Header<'_>) -> Result<J, Error> {
    if let Some(legacy) = &info.legacy {
        let parse = |s: tracecap_wtf::Str<'_>| match s.resolve(&Default::default()) {
            None => J::Null,
            Some(b) => {
                let t = text_lossy(b);
                serde_json::from_str(&t).unwrap_or_else(|_| J::String(t.into_owned()))
            }
        };
        let mut flags = Vec::new();
        if legacy.flags & FLAG_HIGH_RESOLUTION_TIMES != 0 {
            flags.push(J::from("has_high_resolution_times"));
        }
        if legacy.flags & FLAG_TIMES_AS_COUNT != 0 {
            flags.push(J::from("times_as_count"));
        }
        return Ok(serde_json::json!({
            "flags": flags,
            "timebase": legacy.timebase_ms,
            "contextInfo": parse(legacy.context_info),
            "metadata": parse(legacy.metadata),
        }));
    }
    Ok(info.header_value()?.unwrap_or(J::Null))
}

#[derive(Default)]
struct Zone {
    name: J,
    kind: J,
    location: J,
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
    let header = header_json(info)?;
    let (s, err) = summarize(&trace);
    let mut top: Vec<(&String, &u64)> = s.by_name.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let container = match info.container {
        Container::Chunked => "chunked",
        Container::Legacy => "legacy",
    };
    if json {
        let zones: Vec<J> = s
            .zones
            .iter()
            .map(|(id, z)| {
                serde_json::json!({
                    "id": id, "name": z.name, "type": z.kind, "location": z.location,
                    "events": z.events,
                })
            })
            .collect();
        let by_name: serde_json::Map<String, J> = top
            .iter()
            .map(|(n, c)| ((*n).clone(), J::from(**c)))
            .collect();
        let v = serde_json::json!({
            "format": "wtf",
            "container": container,
            "format_version": info.format_version,
            "wtf_version": info.wtf_version,
            "file_size": data.len(),
            "header": header,
            "chunks": s.chunks,
            "event_chunks": s.event_chunks,
            "definitions": s.definitions,
            "events": s.events,
            "first_time_us": s.first_time,
            "last_time_us": s.last_time,
            "zones": zones,
            "events_by_name": by_name,
            "error": err.map(|e| serde_json::json!({"what": e.kind.to_string(), "offset": e.offset})),
        });
        writeln!(out, "{v}")?;
    } else {
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
                    z.name, z.kind, z.location, z.events
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
    header_json(trace.header())?;
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

fn push_json(s: &mut String, v: &J) {
    s.push_str(&v.to_string());
}

fn push_str(s: &mut String, text: &str) {
    push_json(s, &J::from(text));
}

fn args_object<'a>(s: &mut String, fmt: &mut ArgsJson<'a>, ev: &Event<'a>) -> Result<(), Error> {
    s.push('{');
    for (i, a) in ev.args().enumerate() {
        let a = a?;
        if i > 0 {
            s.push(',');
        }
        push_str(s, a.name);
        s.push(':');
        let v = fmt.value(ev, a.value);
        push_json(s, &v);
    }
    s.push('}');
    Ok(())
}

/// `tracecap dump`: a header line, then every event in file order (built-ins included, raw), with
/// a `define` line after each `wtf.event#define` and a `zone` line after each `wtf.zone#create`.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let trace = Capture::parse(data)?;
    let info = trace.header();
    let header = header_json(info)?;
    let mut line = String::with_capacity(256);
    if opts.json {
        // Keys in the order of the issue.
        line.push_str("{\"format\":\"wtf\",\"format_version\":");
        line.push_str(&info.format_version.to_string());
        line.push_str(",\"wtf_version\":");
        line.push_str(&info.wtf_version.to_string());
        line.push_str(",\"header\":");
        push_json(&mut line, &header);
        line.push('}');
    } else {
        line = format!(
            "wtf format {} wtf_version {:#010x} header {header}",
            info.format_version, info.wtf_version
        );
    }
    writeln!(out, "{line}")?;
    let mut fmt = ArgsJson::new();
    let mut walk = trace.events();
    while let Some(ev) = walk.next() {
        let ev = ev?;
        line.clear();
        if opts.json {
            line.push_str("{\"kind\":\"event\",\"offset\":");
            line.push_str(&ev.offset.to_string());
            line.push_str(",\"zone\":");
            line.push_str(
                &ev.zone
                    .map_or_else(|| "null".to_string(), |z| z.to_string()),
            );
            line.push_str(",\"time_us\":");
            line.push_str(&ev.time.to_string());
            line.push_str(",\"name\":");
            push_str(&mut line, ev.name());
            line.push_str(",\"flags\":");
            line.push_str(&ev.flags().to_string());
            line.push_str(",\"args\":");
            args_object(&mut line, &mut fmt, &ev)?;
            line.push('}');
        } else {
            let zone = ev.zone.map_or_else(|| "-".to_string(), |z| z.to_string());
            line.push_str(&format!(
                "{:#010x} t={} zone={zone} {} flags={} ",
                ev.offset,
                ev.time,
                ev.name(),
                ev.flags()
            ));
            args_object(&mut line, &mut fmt, &ev)?;
        }
        writeln!(out, "{line}")?;
        if ev.flags() & tracecap_wtf::FLAG_BUILTIN == 0 {
            continue;
        }
        match ev.builtin() {
            Some(Builtin::EventDefine) => {
                let Some(wire) = ev.arg(0).and_then(|v| v.as_u32()) else {
                    continue;
                };
                let Some((def, _)) = walk.table().lookup(wire) else {
                    continue;
                };
                let class = if def.is_scope() { "scope" } else { "instance" };
                line.clear();
                if opts.json {
                    line.push_str("{\"kind\":\"define\",\"wire_id\":");
                    line.push_str(&def.wire_id.to_string());
                    line.push_str(",\"name\":");
                    push_str(&mut line, def.name);
                    line.push_str(",\"class\":\"");
                    line.push_str(class);
                    line.push_str("\",\"flags\":");
                    line.push_str(&def.flags.to_string());
                    line.push_str(",\"signature\":");
                    push_str(&mut line, def.signature);
                    line.push_str(",\"offset\":");
                    line.push_str(&ev.offset.to_string());
                    line.push('}');
                } else {
                    line = format!(
                        "  define wire_id={} {} class={class} flags={} ({})",
                        def.wire_id, def.name, def.flags, def.signature
                    );
                }
                writeln!(out, "{line}")?;
            }
            Some(Builtin::ZoneCreate) => {
                let Some(z) = ev.zone_create() else { continue };
                let (name, kind, location) =
                    (opt_text(z.name), opt_text(z.kind), opt_text(z.location));
                if opts.json {
                    line = format!(
                        "{{\"kind\":\"zone\",\"id\":{},\"name\":{name},\"type\":{kind},\"location\":{location},\"offset\":{}}}",
                        z.id, ev.offset
                    );
                } else {
                    line = format!("  zone id={} {name} type={kind} location={location}", z.id);
                }
                writeln!(out, "{line}")?;
            }
            _ => {}
        }
    }
    Ok(())
}
