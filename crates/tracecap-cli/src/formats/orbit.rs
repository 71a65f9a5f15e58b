//! Orbit `.orbit` captures: info's text, validate, dump.

use std::io::Write;

use tracecap::info::orbit::{layout_name, Info};
use tracecap_orbit::{json, validate, Capture, Layout};

use super::list::write_list;
use super::output::{DumpOptions, Lines};
use crate::error::CliError;
use crate::json::Raw;

fn fault(e: tracecap_orbit::Error) -> CliError {
    CliError::format(e.kind, e.offset)
}

/// The text of `tracecap info`.
pub fn info_text(i: &Info<'_>, verbose: bool, out: &mut dyn Write) -> std::io::Result<()> {
    let h = i.header();
    writeln!(out, "format: orbit (ORBT version {})", h.version)?;
    writeln!(out, "layout: {}", layout_name(i.capture.layout()))?;
    writeln!(out, "file size: {} bytes", i.file_size)?;
    if let Some((a, b)) = i.orbit_version {
        writeln!(out, "written by: Orbit {a}.{b}")?;
    }
    writeln!(
        out,
        "capture section: offset {}, events end at {}, bound {}",
        h.capture_section_offset,
        i.capture_end,
        i.capture.capture_section_bound()
    )?;
    write_list(
        out,
        "sections",
        i.capture.sections().map(|s| {
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
        verbose,
    )?;
    if let Some(ids) = &i.frame_tracks {
        write_list(out, "frame track function ids", ids.iter(), verbose)?;
    }
    writeln!(
        out,
        "events: {}{}",
        i.events,
        if i.finished {
            ""
        } else {
            " (no CaptureFinished)"
        }
    )?;
    for (k, n) in &i.counts {
        writeln!(out, "  {k}: {n}")?;
    }
    if let (Some(a), Some(b)) = (i.first_ns, i.last_ns) {
        writeln!(
            out,
            "time span: {a} .. {b} ns ({:.3} s)",
            b.saturating_sub(a) as f64 / 1e9
        )?;
    }
    if let Some((pid, path)) = &i.process {
        writeln!(out, "process: {pid} {path}")?;
    }
    write_list(
        out,
        "threads",
        i.threads
            .iter()
            .map(|(tid, name)| format!("{tid} {}", name.as_deref().unwrap_or(""))),
        verbose,
    )
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
