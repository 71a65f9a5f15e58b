//! `info`, `validate` and `dump` for EasyProfiler `.prof` files.

use std::io::Write;

use serde_json::json;
use tracecap_easyprofiler::{
    Capture, Element, Error, Header, KindTable, NestSlot, Nesting, Record, Summary, Thread,
};

use super::DumpOptions;
use crate::error::CliError;
use crate::json::{f64_num, str_lossy};

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError::format(e.kind, e.offset)
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn check(c: &Capture<'_>) -> Result<Summary, CliError> {
    let kinds = KindTable::new(c)?;
    let mut slots: Vec<NestSlot> = Vec::new();
    Ok(Summary::check(c, &kinds, &mut slots)?)
}

/// `tracecap info`.
pub fn info(data: &[u8], json: bool, out: &mut dyn Write) -> Result<(), CliError> {
    let c = Capture::parse(data)?;
    let h = *c.header();
    let s = check(&c)?;
    let kinds = KindTable::new(&c)?;
    let mut threads = Vec::new();
    for t in c.threads() {
        let t = t?;
        threads.push((
            t.id,
            lossy(t.name),
            t.records_count(),
            t.context_switches_count(),
        ));
        let _ = &kinds;
    }
    let (first, last) = (s.first.map(|t| h.to_ns(t)), s.last.map(|t| h.to_ns(t)));
    if json {
        let v = json!({
            "format": "easyprofiler",
            "version": h.version.to_string(),
            "file_size": data.len(),
            "header_size": h.size,
            "pid": h.pid,
            "cpu_frequency": h.cpu_frequency,
            "begin_ns": h.begin_ns(),
            "end_ns": h.end_ns(),
            "records_begin_ns": first,
            "records_end_ns": last,
            "descriptors": s.descriptors,
            "records": {
                "total": s.records(),
                "blocks": s.blocks,
                "events": s.events,
                "values": s.values,
                "context_switches": s.context_switches,
            },
            "header_records": h.blocks_count,
            "bookmarks": s.bookmarks,
            "levels": s.levels,
            "threads": threads.iter().map(|(id, name, n, cs)| json!({
                "id": id, "name": name, "records": n, "context_switches": cs,
            })).collect::<Vec<_>>(),
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    writeln!(out, "format:       EasyProfiler .prof")?;
    writeln!(out, "version:      {} ({:#010x})", h.version, h.version.0)?;
    writeln!(
        out,
        "size:         {} bytes (header {} bytes)",
        data.len(),
        h.size
    )?;
    match h.pid {
        Some(pid) => writeln!(out, "pid:          {pid}")?,
        None => writeln!(out, "pid:          (none in this version)")?,
    }
    if h.cpu_frequency == 0 {
        writeln!(out, "timestamps:   nanoseconds")?;
    } else {
        writeln!(out, "timestamps:   ticks at {} Hz", h.cpu_frequency)?;
    }
    let span = h.end_ns().saturating_sub(h.begin_ns());
    writeln!(
        out,
        "capture:      {} .. {} ns ({:.3} ms)",
        h.begin_ns(),
        h.end_ns(),
        span as f64 / 1e6
    )?;
    if let (Some(a), Some(b)) = (first, last) {
        writeln!(
            out,
            "records span: {a} .. {b} ns ({:.3} ms)",
            b.saturating_sub(a) as f64 / 1e6
        )?;
    }
    writeln!(out, "descriptors:  {}", s.descriptors)?;
    writeln!(
        out,
        "records:      {} ({} blocks, {} events, {} values, {} context switches)",
        s.records(),
        s.blocks,
        s.events,
        s.values,
        s.context_switches
    )?;
    writeln!(out, "nesting:      {} levels", s.levels)?;
    writeln!(out, "bookmarks:    {}", s.bookmarks)?;
    writeln!(out, "threads:      {}", threads.len())?;
    for (id, name, n, cs) in &threads {
        writeln!(
            out,
            "  {id:>10}  {name:<24} {n} records, {cs} context switches"
        )?;
    }
    Ok(())
}

/// `tracecap validate`.
pub fn validate(data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    let c = Capture::parse(data)?;
    let s = check(&c)?;
    writeln!(
        out,
        "ok: easyprofiler {}: {} descriptors, {} threads, {} records ({} blocks, {} events, {} values, {} context switches), {} bookmarks, {} levels",
        c.header().version,
        s.descriptors,
        s.threads,
        s.records(),
        s.blocks,
        s.events,
        s.values,
        s.context_switches,
        s.bookmarks,
        s.levels
    )?;
    Ok(())
}

/// `tracecap dump`: every record in file order; JSON Lines with `--json`.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let c = Capture::parse(data)?;
    let h = *c.header();
    let json = opts.json;
    if json {
        let v = json!({
            "format": "easyprofiler",
            "version": h.version.to_string(),
            "pid": h.pid,
            "cpu_frequency": h.cpu_frequency,
            "begin": h.begin_time,
            "end": h.end_time,
            "begin_ns": h.begin_ns(),
            "end_ns": h.end_ns(),
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(
            out,
            "easyprofiler {} pid={} cpu_frequency={} begin={} ({} ns) end={} ({} ns)",
            h.version,
            h.pid.map_or("none".to_string(), |p| p.to_string()),
            h.cpu_frequency,
            h.begin_time,
            h.begin_ns(),
            h.end_time,
            h.end_ns()
        )?;
    }
    let mut names: Vec<Vec<u8>> = Vec::new();
    for d in c.descriptors() {
        let d = d?;
        names.push(d.name.to_vec());
        if json {
            let v = json!({
                "kind": "descriptor", "id": d.id, "line": d.line, "color": d.color,
                "type": d.kind.name(), "status": d.status,
                "name": lossy(d.name), "file": lossy(d.file),
            });
            writeln!(out, "{v}")?;
        } else {
            writeln!(
                out,
                "descriptor {:>4} {:<5} {:?} {}:{} color={:#010x} status={}",
                d.id,
                d.kind.name(),
                lossy(d.name),
                lossy(d.file),
                d.line,
                d.color,
                d.status
            )?;
        }
    }
    let kinds = KindTable::new(&c)?;
    let mut slots: Vec<NestSlot> = Vec::new();
    let mut threads = c.threads();
    for t in threads.by_ref() {
        let t = t?;
        dump_thread(&h, &t, &kinds, &names, &mut slots, json, out)?;
    }
    for b in threads.tail()? {
        let b = b?;
        if json {
            write!(
                out,
                "{{\"kind\":\"bookmark\",\"position\":{},\"color\":{},\"text\":",
                b.position, b.color
            )?;
            str_lossy(out, b.text)?;
            writeln!(out, "}}")?;
        } else {
            writeln!(
                out,
                "bookmark {} ns color={:#010x} {:?}",
                b.position,
                b.color,
                lossy(b.text)
            )?;
        }
    }
    Ok(())
}

fn dump_thread(
    h: &Header,
    t: &Thread<'_>,
    kinds: &KindTable,
    names: &[Vec<u8>],
    slots: &mut Vec<NestSlot>,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if json {
        write!(out, "{{\"kind\":\"thread\",\"id\":{},\"name\":", t.id)?;
        str_lossy(out, t.name)?;
        writeln!(out, "}}")?;
    } else {
        writeln!(
            out,
            "thread {} {:?}: {} records, {} context switches",
            t.id,
            lossy(t.name),
            t.records_count(),
            t.context_switches_count()
        )?;
    }
    for cs in t.context_switches() {
        let cs = cs?;
        if json {
            write!(
                out,
                "{{\"kind\":\"context_switch\",\"thread\":{},\"begin\":{},\"end\":{},\"begin_ns\":{},\"end_ns\":{},\"target_thread\":{},\"name\":",
                t.id, cs.begin, cs.end, h.to_ns(cs.begin), h.to_ns(cs.end), cs.target_thread
            )?;
            str_lossy(out, cs.name)?;
            writeln!(out, "}}")?;
        } else {
            writeln!(
                out,
                "  switched out {} .. {} ns -> thread {} {:?}",
                h.to_ns(cs.begin),
                h.to_ns(cs.end),
                cs.target_thread,
                lossy(cs.name)
            )?;
        }
    }
    // Depths need the whole thread (parents come after children), so nest first; on a fault,
    // nest the records before it, print them, then report it.
    slots.resize(t.records_count() as usize, NestSlot::default());
    let mut nesting = Nesting::with_clock(slots, h.clock());
    let mut fault = None;
    for r in t.records(kinds) {
        match r {
            Ok(r) => {
                nesting.push(r.begin(), r.end());
            }
            Err(e) => fault = Some(e),
        }
    }
    let tree = nesting.finish();
    for (i, r) in t.records(kinds).enumerate() {
        let Ok(r) = r else { break };
        let depth = tree.depth(i).unwrap_or(0);
        match r {
            Record::Block(b) => {
                let kind = if b.is_event() { "event" } else { "block" };
                if json {
                    write!(
                        out,
                        "{{\"kind\":\"{kind}\",\"thread\":{},\"begin\":{},\"end\":{},\"begin_ns\":{},\"end_ns\":{},\"id\":{},\"name\":",
                        t.id, b.begin, b.end, h.to_ns(b.begin), h.to_ns(b.end), b.id
                    )?;
                    str_lossy(out, b.name)?;
                    writeln!(out, ",\"depth\":{depth}}}")?;
                } else {
                    let name = if b.name.is_empty() {
                        names.get(b.id as usize).map_or(&[][..], |n| n)
                    } else {
                        b.name
                    };
                    let (bn, en) = (h.to_ns(b.begin), h.to_ns(b.end));
                    writeln!(
                        out,
                        "  {:indent$}{kind} {:?} {bn} .. {en} ns ({} ns) desc={}",
                        "",
                        lossy(name),
                        en.saturating_sub(bn),
                        b.id,
                        indent = 2 * depth as usize
                    )?;
                }
            }
            Record::Value(v) => {
                if json {
                    write!(
                        out,
                        "{{\"kind\":\"value\",\"thread\":{},\"time\":{},\"time_ns\":{},\"id\":{},\"value_id\":{},\"type\":\"{}\",\"array\":{},\"data\":[",
                        t.id, v.time, h.to_ns(v.time), v.id, v.value_id, v.data_type.name(), v.is_array
                    )?;
                    if let Some(s) = v.string_bytes() {
                        str_lossy(out, s)?;
                    } else {
                        for (k, e) in v.elements().enumerate() {
                            if k > 0 {
                                out.write_all(b",")?;
                            }
                            element(out, e)?;
                        }
                    }
                    writeln!(out, "]}}")?;
                } else {
                    let name = names.get(v.id as usize).map_or(&[][..], |n| n);
                    write!(
                        out,
                        "  {:indent$}value {:?} {} {}{} @ {} ns = ",
                        "",
                        lossy(name),
                        v.data_type.name(),
                        if v.is_array { "array " } else { "" },
                        v.data.len(),
                        h.to_ns(v.time),
                        indent = 2 * depth as usize
                    )?;
                    if let Some(s) = v.string_bytes() {
                        writeln!(out, "{:?}", lossy(s))?;
                    } else {
                        let items: Vec<String> = v.elements().map(element_text).collect();
                        writeln!(out, "[{}]", items.join(", "))?;
                    }
                }
            }
        }
    }
    match fault {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

fn element(out: &mut dyn Write, e: Element) -> std::io::Result<()> {
    match e {
        Element::Bool(b) => write!(out, "{b}"),
        Element::Char(x) | Element::Int8(x) => write!(out, "{x}"),
        Element::Uint8(x) => write!(out, "{x}"),
        Element::Int16(x) => write!(out, "{x}"),
        Element::Uint16(x) => write!(out, "{x}"),
        Element::Int32(x) => write!(out, "{x}"),
        Element::Uint32(x) => write!(out, "{x}"),
        Element::Int64(x) => write!(out, "{x}"),
        Element::Uint64(x) => write!(out, "{x}"),
        Element::Float(x) => f64_num(out, f64::from(x)),
        Element::Double(x) => f64_num(out, x),
    }
}

fn element_text(e: Element) -> String {
    let mut v = Vec::new();
    let _ = element(&mut v, e);
    String::from_utf8_lossy(&v).into_owned()
}
