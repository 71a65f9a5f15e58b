//! syscall_capture (`.dat`, magic `78 06 17 a5`): info's text, validate and dump.

use std::io::Write;

use tracecap::info::syscall::{name_of, Info};
use tracecap::push::{Fed, Feed, Pumped};
use tracecap_syscall::push::PushItem;
use tracecap_syscall::{json, Arg, Capture, Entry, Header, PushParser};

use super::output::{DumpOptions, Lines};
use crate::error::CliError;
use crate::follow::{self, Started};
use crate::json::Raw;

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The text of `tracecap info`: the header, then the totals of the walk over every entry.
pub fn info_text(i: &Info<'_>, verbose: bool, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &i.header;
    writeln!(
        out,
        "format:        syscall (syscall_capture), version {}",
        h.version
    )?;
    writeln!(
        out,
        "byte order:    {}",
        if h.is_big_endian() {
            "big-endian"
        } else {
            "little-endian"
        }
    )?;
    writeln!(
        out,
        "header:        {} bytes ({}-byte fixed part{})",
        h.len,
        h.fixed_len,
        if h.clock_reference_ns.is_none() {
            ", no clock reference"
        } else {
            ""
        }
    )?;
    writeln!(out, "pid:           {}", h.pid)?;
    writeln!(out, "epoch:         {} s", h.epoch_seconds)?;
    if let Some(c) = h.clock_reference_ns {
        writeln!(out, "clock ref:     {c} ns (CLOCK_MONOTONIC)")?;
    }
    match &h.uname() {
        Some(u) => writeln!(
            out,
            "host:          {} {} {} {} {} {}",
            lossy(u.sysname),
            lossy(u.nodename),
            lossy(u.release),
            lossy(u.version),
            lossy(u.machine),
            lossy(u.domainname)
        )?,
        None => writeln!(out, "host:          (uname failed)")?,
    }
    writeln!(out, "file size:     {} bytes", i.file_size)?;
    writeln!(
        out,
        "syscalls:      {} ({} failed, {} with arguments)",
        i.syscalls, i.failed, i.with_args
    )?;
    writeln!(
        out,
        "fillers:       {} ({} bytes)",
        i.fillers, i.filler_bytes
    )?;
    writeln!(out, "zero gaps:     {} ({} bytes)", i.gaps, i.gap_bytes)?;
    writeln!(out, "headers:       {}", i.headers)?;
    if !i.threads.is_empty() {
        let tids = i
            .threads
            .iter()
            .map(|(t, n)| format!("{t:>10}  {n} records"));
        super::list::write_list(out, "other threads", tids, verbose)?;
    }
    if let (Some(a), Some(b)) = (i.first_ts, i.last_ts) {
        writeln!(
            out,
            "time span:     {} ns ({a} .. {b})",
            b.saturating_sub(a)
        )?;
    }
    let calls = i
        .by_number
        .iter()
        .map(|&(n, c)| format!("{:<24} {c}", name_of(n)));
    super::list::write_list(out, "syscalls by count", calls, verbose)
}

/// `tracecap validate`: walk every entry and every argument; exit 1 at the first fault.
pub fn validate(data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    let cap = Capture::parse(data)?;
    let mut records = 0u64;
    let mut args = 0u64;
    for entry in cap.entries() {
        if let Entry::Syscall(c) = entry? {
            records += 1;
            args += c.args().count() as u64;
        }
    }
    writeln!(
        out,
        "ok: syscall capture, {records} syscall records, {args} arguments, {} bytes",
        data.len()
    )?;
    Ok(())
}

/// `tracecap dump`: the header, then one line per entry; every good entry is printed before a
/// fault is reported.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    dump_from(Feed::Whole(data), opts, out).map(|_| ())
}

/// `tracecap dump` of a capture as its bytes arrive (`--follow`, standard input, a pipe): each
/// record is printed as it completes, holding only the record being read.
pub fn dump_arriving(
    s: &mut Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Result<Pumped, CliError> {
    dump_from(Feed::Arriving(&mut s.source, &mut s.buffer), opts, out)
}

/// The one dump loop, over bytes in memory or arriving: the header, then each entry. The JSON
/// lines are the format crate's (`tracecap_syscall::json`).
fn dump_from(feed: Feed<'_>, opts: &DumpOptions, out: &mut dyn Write) -> Result<Pumped, CliError> {
    let mut parser = PushParser::new();
    let mut lines = Lines::new(opts.json, out);
    let mut line = String::with_capacity(256);
    follow::finish(feed.run_noting(&mut parser, |fed| {
        let item = match fed {
            Fed::Item(item) => item,
            Fed::Reading => return Ok(lines.flush()?),
        };
        match (&mut lines, item) {
            (_, PushItem::GapPart(_)) => return Ok(()),
            (Lines::Json(w), PushItem::Header(h)) => {
                line.clear();
                json::header(&h, &mut line);
                w.item(Raw(&line)).end_line()?;
            }
            (Lines::Json(w), PushItem::Entry(e)) => {
                line.clear();
                json::entry(&e, &mut line);
                w.item(Raw(&line)).end_line()?;
            }
            (Lines::Text(out), PushItem::Header(h)) => {
                line.clear();
                header_text(&mut line, &h);
                writeln!(out, "{line}")?;
            }
            (Lines::Text(out), PushItem::Entry(e)) => {
                line.clear();
                entry_text(&mut line, &e);
                writeln!(out, "{line}")?;
            }
        }
        Ok(())
    }))
}

fn header_text(s: &mut String, h: &Header<'_>) {
    use std::fmt::Write as _;
    let _ = write!(
        s,
        "{:#010x} header v{} {} pid={} epoch={}s clock_ref=",
        h.offset,
        h.version,
        if h.is_big_endian() {
            "big-endian"
        } else {
            "little-endian"
        },
        h.pid,
        h.epoch_seconds
    );
    match h.clock_reference_ns {
        Some(c) => {
            let _ = write!(s, "{c}ns");
        }
        None => s.push_str("none"),
    }
    if let Some(u) = &h.uname() {
        let _ = write!(
            s,
            " host=\"{} {} {} {}\"",
            lossy(u.sysname),
            lossy(u.nodename),
            lossy(u.release),
            lossy(u.machine)
        );
    }
}

/// Up to 32 bytes as an escaped string, `...` when longer.
fn push_text_bytes(s: &mut String, d: &[u8]) {
    use std::fmt::Write as _;
    s.push('"');
    for &b in d.iter().take(32) {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\x{b:02x}");
            }
        }
    }
    s.push('"');
    if d.len() > 32 {
        s.push_str("...");
    }
}

fn arg_text(s: &mut String, a: &Arg<'_>) {
    use std::fmt::Write as _;
    match a {
        Arg::Int(v) if *v > 0xffff || *v < -0xffff => {
            let _ = write!(s, "{:#x}", *v as u64);
        }
        Arg::Int(v) => {
            let _ = write!(s, "{v}");
        }
        Arg::Data(d) => push_text_bytes(s, d),
        Arg::Partial { original_len, data } => {
            push_text_bytes(s, data);
            let _ = write!(s, "<{} of {original_len} bytes>", data.len());
        }
        Arg::Stat(st) => {
            let _ = write!(
                s,
                "{{dev={:#x}, ino={}, mode={:#o}, nlink={}, uid={}, gid={}, size={}, mtime={}.{:09}}}",
                st.dev, st.ino, st.mode, st.nlink, st.uid, st.gid, st.size, st.mtim.sec, st.mtim.nsec
            );
        }
        Arg::PollFds(p) => {
            s.push('[');
            for (i, fd) in p.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(
                    s,
                    "{{fd={}, events={:#x}, revents={:#x}}}",
                    fd.fd, fd.events, fd.revents
                );
            }
            s.push(']');
        }
        Arg::SigAction(None) => s.push_str("NULL"),
        Arg::SigAction(Some(sa)) => {
            let _ = write!(s, "{{handler={:#x}", sa.handler);
            if let Some(f) = sa.flags() {
                let _ = write!(s, ", flags={f:#x}");
            }
            s.push('}');
        }
        Arg::IntP { pointer, value } => {
            let _ = write!(s, "{pointer:#x}->{value}");
        }
    }
}

fn entry_text(s: &mut String, e: &Entry<'_>) {
    use std::fmt::Write as _;
    match e {
        Entry::Syscall(c) => {
            let _ = write!(s, "{:#010x} {}(", c.offset, name_of(c.number));
            for (i, a) in c.args().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                arg_text(s, &a);
            }
            s.push(')');
            match c.result {
                Some(r) if (-4095..0).contains(&r) => {
                    let _ = write!(s, " = {r}");
                }
                Some(r) if r > 0xffff => {
                    let _ = write!(s, " = {r:#x}");
                }
                Some(r) => {
                    let _ = write!(s, " = {r}");
                }
                None => s.push_str(" = (0)"),
            }
            if let Some(t) = c.tid {
                let _ = write!(s, " tid={t}");
            }
            if let Some(t) = c.timestamp_ns {
                let _ = write!(s, " ts={t}");
            }
            if let Some(d) = c.duration_ns {
                let _ = write!(s, " dur={d}ns");
            }
        }
        Entry::Filler(f) => {
            let _ = write!(s, "{:#010x} filler {} bytes", f.offset, f.len);
        }
        Entry::Gap(g) => {
            let _ = write!(s, "{:#010x} zero gap {} bytes", g.offset, g.len);
        }
        Entry::Header(h) => header_text(s, h),
    }
}
