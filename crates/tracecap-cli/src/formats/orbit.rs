//! Orbit `.orbit` captures: info, validate, dump.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use tracecap_orbit::views::{EventView, ThreadName};
use tracecap_orbit::{json, validate, Capture, Layout, UserData};

use super::{write_list, DumpOptions, Lines};
use crate::error::CliError;
use crate::json::{JsonWriter, Null, Raw};

fn fault(e: tracecap_orbit::Error) -> CliError {
    CliError::format(e.kind, e.offset)
}

/// What `info` reports, gathered in one pass.
#[derive(Default)]
struct Facts {
    counts: BTreeMap<&'static str, u64>,
    events: u64,
    first_ns: Option<u64>,
    last_ns: Option<u64>,
    process: Option<(u32, String)>,
    orbit_version: Option<(u32, u32)>,
    threads: BTreeMap<u32, Option<String>>,
    pids: BTreeSet<u32>,
    capture_end: u64,
    finished: bool,
    error: Option<tracecap_orbit::Error>,
}

/// Walks the events with the checks `validate` applies (see `tracecap_orbit::validate`), in the
/// same order, so that the first fault is the one `validate` reports; with none, also checks
/// what follows the events and returns USER_DATA.
fn gather<'a>(capture: &Capture<'a>) -> (Facts, Option<UserData<'a>>) {
    let mut f = Facts::default();
    let mut events = capture.events();
    let name_thread = |f: &mut Facts, t: &ThreadName<'_>| {
        f.threads
            .insert(t.tid, Some(String::from_utf8_lossy(t.name).into_owned()));
    };
    for ev in events.by_ref() {
        let view = match ev.and_then(|ev| {
            validate::check_event(&ev)?;
            Ok((ev, ev.view()?))
        }) {
            Ok(v) => v,
            Err(e) => {
                f.error = Some(e);
                break;
            }
        };
        let (ev, view) = view;
        f.events += 1;
        *f.counts.entry(ev.kind.name()).or_default() += 1;
        if let Some((a, b)) = view.time_span() {
            if a != 0 || b != 0 {
                f.first_ns = Some(f.first_ns.map_or(a, |x| x.min(a)));
                f.last_ns = Some(f.last_ns.map_or(b, |x| x.max(b)));
            }
        }
        if let Some(tid) = view.tid() {
            f.threads.entry(tid).or_insert(None);
        }
        match view {
            EventView::CaptureStarted(s) => {
                f.process = Some((s.process_id, s.executable_path.to_string()));
                f.pids.insert(s.process_id);
                if s.orbit_version_major != 0 || s.orbit_version_minor != 0 {
                    f.orbit_version = Some((s.orbit_version_major, s.orbit_version_minor));
                }
            }
            EventView::ThreadName(t) => name_thread(&mut f, &t),
            EventView::ThreadNamesSnapshot(s) => {
                for (bytes, off) in s.thread_names {
                    if let Ok(t) = ThreadName::parse(bytes, off) {
                        name_thread(&mut f, &t);
                        if t.pid != 0 {
                            f.pids.insert(t.pid);
                        }
                    }
                }
            }
            EventView::SchedulingSlice(s) if s.pid != 0 => {
                f.pids.insert(s.pid);
            }
            _ => {}
        }
    }
    f.finished = events.finished();
    f.capture_end = events.position();
    let mut user_data = None;
    if f.error.is_none() {
        match validate::check_end(capture, &events) {
            Ok(u) => user_data = u,
            Err(e) => f.error = Some(e),
        }
    }
    (f, user_data)
}

fn layout_name(l: Layout) -> &'static str {
    match l {
        Layout::Current => "current (Orbit 1.65+)",
        Layout::Orbit164 => "Orbit 1.64 (u16 section count, raw USER_DATA)",
    }
}

/// `tracecap info`.
pub fn info(data: &[u8], opts: &super::InfoOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let json_out = opts.json;
    let capture = Capture::parse(data).map_err(fault)?;
    let h = capture.header();
    let (facts, user_data) = gather(&capture);
    let frame_tracks: Option<Vec<u64>> = user_data
        .and_then(|u| u.view().ok())
        .and_then(|v| v.frame_tracks().ok())
        .map(|f| f.frame_track_function_ids.iter().collect());
    if json_out {
        let mut w = JsonWriter::new(out);
        w.begin_object()
            .field("format", "orbit")
            .field("version", h.version)
            .field("layout", layout_name(capture.layout()))
            .field("file_size", data.len())
            .field("capture_section_offset", h.capture_section_offset)
            .field("section_list_offset", h.section_list_offset)
            .field("capture_section_end", capture.capture_section_bound())
            .field("end_of_capture_finished", facts.capture_end)
            .field("finished", facts.finished)
            .array("sections");
        for s in capture.sections() {
            w.begin_object()
                .field("type", s.section_type)
                .field("offset", s.offset)
                .field("size", s.size)
                .end_object();
        }
        w.end_array()
            .field(
                "orbit_version",
                facts.orbit_version.map(|(a, b)| format!("{a}.{b}")),
            )
            .field("event_count", facts.events)
            .object("event_counts");
        for (kind, n) in &facts.counts {
            w.field_escaped(kind, n);
        }
        w.end_object();
        match (facts.first_ns, facts.last_ns) {
            (Some(a), Some(b)) => w
                .object("time_span_ns")
                .field("first", a)
                .field("last", b)
                .field("duration", b.saturating_sub(a))
                .end_object(),
            _ => w.field("time_span_ns", Null),
        };
        match &facts.process {
            Some((pid, path)) => w
                .object("process")
                .field("pid", pid)
                .field("executable", path)
                .end_object(),
            None => w.field("process", Null),
        };
        w.array("pids");
        for pid in &facts.pids {
            w.item(pid);
        }
        w.end_array().array("threads");
        for (tid, name) in &facts.threads {
            w.begin_object()
                .field("tid", tid)
                .field("name", name)
                .end_object();
        }
        w.end_array();
        match &frame_tracks {
            Some(ids) => {
                w.array("frame_track_function_ids");
                for id in ids {
                    w.item(id);
                }
                w.end_array();
            }
            None => {
                w.field("frame_track_function_ids", Null);
            }
        }
        super::error_field(&mut w, facts.error.map(|e| (e.kind, e.offset)));
        w.end_object();
        w.end_line()?;
    } else {
        writeln!(out, "format: orbit (ORBT version {})", h.version)?;
        writeln!(out, "layout: {}", layout_name(capture.layout()))?;
        writeln!(out, "file size: {} bytes", data.len())?;
        if let Some((a, b)) = facts.orbit_version {
            writeln!(out, "written by: Orbit {a}.{b}")?;
        }
        writeln!(
            out,
            "capture section: offset {}, events end at {}, bound {}",
            h.capture_section_offset,
            facts.capture_end,
            capture.capture_section_bound()
        )?;
        write_list(
            out,
            "sections",
            capture.sections().map(|s| {
                let kind = if s.section_type == 1 {
                    "USER_DATA"
                } else {
                    "unknown"
                };
                format!(
                    "[{}] type {} ({kind}) offset {} size {}",
                    s.index, s.section_type, s.offset, s.size
                )
            }),
            opts.verbose,
        )?;
        if let Some(ids) = &frame_tracks {
            write_list(out, "frame track function ids", ids.iter(), opts.verbose)?;
        }
        writeln!(
            out,
            "events: {}{}",
            facts.events,
            if facts.finished {
                ""
            } else {
                " (no CaptureFinished)"
            }
        )?;
        for (k, n) in &facts.counts {
            writeln!(out, "  {k}: {n}")?;
        }
        if let (Some(a), Some(b)) = (facts.first_ns, facts.last_ns) {
            writeln!(
                out,
                "time span: {a} .. {b} ns ({:.3} s)",
                b.saturating_sub(a) as f64 / 1e9
            )?;
        }
        if let Some((pid, path)) = &facts.process {
            writeln!(out, "process: {pid} {path}")?;
        }
        write_list(
            out,
            "threads",
            facts
                .threads
                .iter()
                .map(|(tid, name)| format!("{tid} {}", name.as_deref().unwrap_or(""))),
            opts.verbose,
        )?;
    }
    match facts.error {
        Some(e) => Err(fault(e)),
        None => Ok(()),
    }
}

/// `tracecap validate`.
pub fn validate(data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    let s = validate::validate(data).map_err(fault)?;
    let capture = Capture::parse(data).map_err(fault)?;
    writeln!(
        out,
        "ok: orbit, {} events, capture section ends at {} ({} trailing bytes), {} sections{}",
        s.events,
        s.capture_end,
        s.trailing,
        capture.sections().len(),
        match capture.layout() {
            Layout::Orbit164 => ", Orbit 1.64 layout",
            Layout::Current => "",
        }
    )?;
    Ok(())
}

/// `tracecap dump` of a capture as its bytes arrive: `None`, an Orbit capture is dumped from its
/// whole bytes once they have all arrived. The dump's first lines are the header's section list
/// offset and the sections, which Orbit writes after the events (docs/orbit.md, "A capture read
/// from a pipe or followed").
pub fn dump_arriving(
    s: &mut crate::follow::Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<tracecap::push::Pumped, CliError>> {
    let _ = (s, opts, out);
    None
}

/// `tracecap dump`. The JSON lines are the Orbit crate's (`tracecap_orbit::json`: the header,
/// each event's proto3 JSON, USER_DATA), written as they come.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let capture = Capture::parse(data).map_err(fault)?;
    let mut lines = Lines::new(opts.json, out);
    match &mut lines {
        Lines::Json(w) => {
            w.item(Raw(&json::header_line(&capture)));
            w.end_line()?;
        }
        Lines::Text(out) => {
            let h = capture.header();
            writeln!(
                out,
                "ORBT version {} capture section at {} (bound {}), section list at {}",
                h.version,
                h.capture_section_offset,
                capture.capture_section_bound(),
                h.section_list_offset
            )?;
            for s in capture.sections() {
                writeln!(
                    out,
                    "section {} type {} offset {} size {}",
                    s.index, s.section_type, s.offset, s.size
                )?;
            }
        }
    }
    let mut events = capture.events();
    for ev in events.by_ref() {
        let ev = ev.map_err(fault)?;
        validate::check_event(&ev).map_err(fault)?;
        match &mut lines {
            Lines::Json(w) => {
                w.item(Raw(&json::event_line(&ev).map_err(fault)?));
                w.end_line()?;
            }
            Lines::Text(out) => {
                let message = json::event_message(&ev).map_err(fault)?;
                let name = match ev.view().map_err(fault)?.api_name() {
                    Some(n) => format!(" name={:?}", n.to_string_lossy()),
                    None => String::new(),
                };
                let kind = ev.kind.name();
                writeln!(
                    out,
                    "{:#010x} {:>6} {kind}{name} {message}",
                    ev.offset, ev.length
                )?;
            }
        }
    }
    if let Some(ud) = validate::check_end(&capture, &events).map_err(fault)? {
        let line = json::user_data_line(&ud).map_err(fault)?;
        match &mut lines {
            Lines::Json(w) => {
                w.item(Raw(&line));
                w.end_line()?;
            }
            Lines::Text(out) => writeln!(
                out,
                "user data at {} ({} unused bytes): {line}",
                ud.message_offset, ud.unused
            )?,
        }
    }
    Ok(())
}
