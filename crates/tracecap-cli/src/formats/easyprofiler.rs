//! `info`'s text, `validate` and `dump` for EasyProfiler `.prof` files.

use std::io::Write;

use tracecap::adapter::easyprofiler::{by_thread, Part};
use tracecap::info::easyprofiler::{check, Info};
use tracecap::push::{Feed, Pumped};
use tracecap_easyprofiler::{
    json, Bookmark, Capture, Descriptor, DescriptorKind, Header, NestSlot, Record, Thread,
};

use super::output::{DumpOptions, Lines};
use crate::error::CliError;
use crate::follow;
use crate::json::{JsonWriter, Raw};

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The text of `tracecap info`: on a damaged file, the counts of everything read before the
/// fault.
pub fn info_text(i: &Info<'_>, verbose: bool, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &i.header;
    let s = &i.summary;
    writeln!(out, "format:       EasyProfiler .prof")?;
    writeln!(out, "version:      {} ({:#010x})", h.version, h.version.0)?;
    writeln!(
        out,
        "size:         {} bytes (header {} bytes)",
        i.file_size, h.size
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
    if let (Some(a), Some(b)) = (i.records_begin_ns(), i.records_end_ns()) {
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
    let lines = i.threads().map(|t| {
        format!(
            "{:>10}  {:<24} {} records, {} context switches",
            t.id,
            lossy(t.name),
            t.records_count(),
            t.context_switches_count()
        )
    });
    super::list::write_list(out, "threads", lines, verbose)
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

/// `tracecap dump` of a capture as its bytes arrive (`--follow`, standard input, a pipe): the
/// header and each descriptor as it arrives, each thread once all its records have (their depths
/// need the whole thread: the bytes of one thread are held, see
/// [`tracecap::adapter::easyprofiler::by_thread`]), each bookmark as it arrives.
pub fn dump_arriving(
    s: &mut crate::follow::Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<Pumped, CliError>> {
    Some(dump_from(
        Feed::Arriving(&mut s.source, &mut s.buffer),
        opts,
        out,
    ))
}

/// `tracecap dump`: every record in file order; JSON Lines with `--json`.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    dump_from(Feed::Whole(data), opts, out).map(|_| ())
}

/// The one dump loop, over a capture in memory or arriving: the header, the descriptors, each
/// thread whole, the bookmarks. The JSON lines are the EasyProfiler crate's
/// (`tracecap_easyprofiler::json`).
fn dump_from(feed: Feed<'_>, opts: &DumpOptions, out: &mut dyn Write) -> Result<Pumped, CliError> {
    let mut lines = Out {
        lines: Lines::new(opts.json, out),
        line: String::new(),
    };
    let mut header: Option<Header> = None;
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut slots: Vec<NestSlot> = Vec::new();
    follow::finish(by_thread(feed, |part| {
        match part {
            Part::Header(h) => {
                header = Some(h);
                dump_header(&h, &mut lines)?;
            }
            Part::Descriptor(d) => {
                names.push(d.name.to_vec());
                dump_descriptor(&d, &mut lines)?;
            }
            Part::Threads(_) => {}
            Part::Thread(t, kinds, _) => {
                if let Some(h) = &header {
                    dump_thread(h, &t, kinds, &names, &mut slots, &mut lines)?;
                }
            }
            Part::Bookmark(b) => dump_bookmark(&b, &mut lines)?,
            // What was printed shows while the rest of the capture is awaited.
            Part::Reading => lines.lines.flush()?,
        }
        Ok(())
    }))
}

/// Where `dump` prints, with the JSON line being written.
struct Out<'o> {
    lines: Lines<'o>,
    /// The JSON of the record being printed, reused from line to line.
    line: String,
}

/// Prints one JSON line: the record's JSON that `write` appends to `line`, emptied first.
fn json_line(
    w: &mut JsonWriter<'_>,
    line: &mut String,
    write: impl FnOnce(&mut String),
) -> std::io::Result<()> {
    line.clear();
    write(line);
    w.item(Raw(line));
    w.end_line()
}

fn dump_header(h: &Header, lines: &mut Out<'_>) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::header(h, s))?,
        Lines::Text(out) => writeln!(
            out,
            "easyprofiler {} pid={} cpu_frequency={} begin={} ({} ns) end={} ({} ns)",
            h.version,
            h.pid.map_or("none".to_string(), |p| p.to_string()),
            h.cpu_frequency,
            h.begin_time,
            h.begin_ns(),
            h.end_time,
            h.end_ns()
        )?,
    }
    Ok(())
}

fn dump_descriptor(d: &Descriptor<'_>, lines: &mut Out<'_>) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::descriptor(d, s))?,
        Lines::Text(out) => writeln!(
            out,
            "descriptor {:>4} {:<5} {:?} {}:{} color={:#010x} status={}",
            d.id,
            d.kind.name(),
            lossy(d.name),
            lossy(d.file),
            d.line,
            d.color,
            d.status
        )?,
    }
    Ok(())
}

fn dump_bookmark(b: &Bookmark<'_>, lines: &mut Out<'_>) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::bookmark(b, s))?,
        Lines::Text(out) => writeln!(
            out,
            "bookmark {} ns color={:#010x} {:?}",
            b.position,
            b.color,
            lossy(b.text)
        )?,
    }
    Ok(())
}

fn dump_thread(
    h: &Header,
    t: &Thread<'_>,
    kinds: &[DescriptorKind],
    names: &[Vec<u8>],
    slots: &mut Vec<NestSlot>,
    lines: &mut Out<'_>,
) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::thread(t, s))?,
        Lines::Text(out) => writeln!(
            out,
            "thread {} {:?}: {} records, {} context switches",
            t.id,
            lossy(t.name),
            t.records_count(),
            t.context_switches_count()
        )?,
    }
    for cs in t.context_switches() {
        let cs = cs?;
        match &mut lines.lines {
            Lines::Json(w) => json_line(w, &mut lines.line, |s| {
                json::context_switch(h, t.id, &cs, s)
            })?,
            Lines::Text(out) => writeln!(
                out,
                "  switched out {} .. {} ns -> thread {} {:?}",
                h.to_ns(cs.begin),
                h.to_ns(cs.end),
                cs.target_thread,
                lossy(cs.name)
            )?,
        }
    }
    // Depths need the whole thread (parents come after children), so nest first; on a fault,
    // nest the records before it, print them, then report it.
    slots.resize(t.records_count() as usize, NestSlot::default());
    let nested = t.nest(kinds, h, slots, |_, _| {});
    let tree = nested.tree;
    for (i, r) in t.records(kinds).take(tree.len()).enumerate() {
        let Ok(r) = r else { break };
        let depth = tree.depth(i).unwrap_or(0);
        match r {
            Record::Block(b) => match &mut lines.lines {
                Lines::Json(w) => {
                    json_line(w, &mut lines.line, |s| json::block(h, t.id, &b, depth, s))?
                }
                Lines::Text(out) => {
                    let kind = if b.is_event() { "event" } else { "block" };
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
            },
            Record::Value(v) => match &mut lines.lines {
                Lines::Json(w) => json_line(w, &mut lines.line, |s| json::value(h, t.id, &v, s))?,
                Lines::Text(out) => {
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
                        // Each element as its JSON, separated by ", ".
                        let items = &mut lines.line;
                        items.clear();
                        for (i, e) in v.elements().enumerate() {
                            if i > 0 {
                                items.push_str(", ");
                            }
                            json::element(e, items);
                        }
                        writeln!(out, "[{items}]")?;
                    }
                }
            },
        }
    }
    match nested.fault {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
