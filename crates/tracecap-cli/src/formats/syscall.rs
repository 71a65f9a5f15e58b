//! syscall_capture (`.dat`, magic `78 06 17 a5`): info, validate and dump.

use std::collections::BTreeMap;
use std::io::Write;

use tracecap_syscall::{Arg, Capture, Entry, Error, Header, Syscall};

use crate::error::CliError;
use crate::formats::DumpOptions;

/// Totals of one walk over a capture.
#[derive(Default)]
struct Summary {
    syscalls: u64,
    failed: u64,
    with_args: u64,
    fillers: u64,
    filler_bytes: u64,
    gaps: u64,
    gap_bytes: u64,
    headers: u64,
    first_ts: Option<i64>,
    last_ts: Option<i64>,
    tids: BTreeMap<i32, u64>,
    by_number: BTreeMap<u16, u64>,
    end: u64,
}

fn summarize(cap: &Capture<'_>) -> (Summary, Option<Error>) {
    let mut s = Summary {
        end: cap.header().end(),
        ..Summary::default()
    };
    for entry in cap.entries() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => return (s, Some(e)),
        };
        match entry {
            Entry::Syscall(c) => {
                s.syscalls += 1;
                if c.result.is_some_and(|r| r < 0) {
                    s.failed += 1;
                }
                if c.arg_count > 0 {
                    s.with_args += 1;
                }
                if let Some(ts) = c.timestamp_ns {
                    s.first_ts = Some(s.first_ts.map_or(ts, |f| f.min(ts)));
                    s.last_ts = Some(s.last_ts.map_or(ts, |l| l.max(ts)));
                }
                if let Some(t) = c.tid {
                    *s.tids.entry(t).or_default() += 1;
                }
                *s.by_number.entry(c.number).or_default() += 1;
            }
            Entry::Filler(f) => {
                s.fillers += 1;
                s.filler_bytes += f.len;
            }
            Entry::Gap(g) => {
                s.gaps += 1;
                s.gap_bytes += g.len;
            }
            Entry::Header(_) => s.headers += 1,
        }
    }
    s.end = cap.data().len() as u64;
    (s, None)
}

fn name_of(number: u16) -> String {
    tracecap_syscall::syscall_name(number)
        .map_or_else(|| format!("syscall_{number}"), str::to_string)
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `tracecap info`: the header, then totals of a walk over every entry. A fault is reported after
/// the totals of what came before it.
pub fn info(data: &[u8], opts: &super::InfoOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let json = opts.json;
    let cap = Capture::parse(data)?;
    let h = cap.header();
    let (s, err) = summarize(&cap);
    let mut top: Vec<(u16, u64)> = s.by_number.iter().map(|(&n, &c)| (n, c)).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if json {
        let by_name: serde_json::Map<String, serde_json::Value> = top
            .iter()
            .map(|&(n, c)| (name_of(n), serde_json::Value::from(c)))
            .collect();
        let v = serde_json::json!({
            "format": "syscall",
            "version": h.version,
            "big_endian": h.is_big_endian(),
            "file_size": data.len(),
            "header_len": h.len,
            "fixed_header_len": h.fixed_len,
            "pid": h.pid,
            "epoch_seconds": h.epoch_seconds,
            "clock_reference_ns": h.clock_reference_ns,
            "uname": uname_json(h),
            "syscalls": s.syscalls,
            "failed": s.failed,
            "with_args": s.with_args,
            "fillers": s.fillers,
            "filler_bytes": s.filler_bytes,
            "gaps": s.gaps,
            "gap_bytes": s.gap_bytes,
            "headers": 1 + s.headers,
            "threads": s.tids.keys().collect::<Vec<_>>(),
            "first_timestamp_ns": s.first_ts,
            "last_timestamp_ns": s.last_ts,
            "by_name": by_name,
            "error": err.map(|e| serde_json::json!({"what": e.kind.to_string(), "offset": e.offset})),
        });
        writeln!(out, "{v}")?;
    } else {
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
        writeln!(out, "file size:     {} bytes", data.len())?;
        writeln!(
            out,
            "syscalls:      {} ({} failed, {} with arguments)",
            s.syscalls, s.failed, s.with_args
        )?;
        writeln!(
            out,
            "fillers:       {} ({} bytes)",
            s.fillers, s.filler_bytes
        )?;
        writeln!(out, "zero gaps:     {} ({} bytes)", s.gaps, s.gap_bytes)?;
        writeln!(out, "headers:       {}", 1 + s.headers)?;
        if !s.tids.is_empty() {
            let tids = s.tids.iter().map(|(t, n)| format!("{t:>10}  {n} records"));
            super::write_list(out, "other threads", tids, opts.verbose)?;
        }
        if let (Some(a), Some(b)) = (s.first_ts, s.last_ts) {
            writeln!(
                out,
                "time span:     {} ns ({a} .. {b})",
                b.saturating_sub(a)
            )?;
        }
        let calls = top.iter().map(|&(n, c)| format!("{:<24} {c}", name_of(n)));
        super::write_list(out, "syscalls by count", calls, opts.verbose)?;
    }
    match err {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
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
    let cap = Capture::parse(data)?;
    let mut line = String::with_capacity(256);
    if opts.json {
        line.push('{');
        header_json(&mut line, cap.header());
        line.push('}');
    } else {
        header_text(&mut line, cap.header());
    }
    writeln!(out, "{line}")?;
    for entry in cap.entries() {
        let entry = entry?;
        line.clear();
        if opts.json {
            entry_json(&mut line, &entry);
        } else {
            entry_text(&mut line, &entry);
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn uname_json(h: &Header<'_>) -> serde_json::Value {
    match &h.uname() {
        Some(u) => serde_json::json!({
            "sysname": lossy(u.sysname),
            "nodename": lossy(u.nodename),
            "release": lossy(u.release),
            "version": lossy(u.version),
            "machine": lossy(u.machine),
            "domainname": lossy(u.domainname),
        }),
        None => serde_json::Value::Null,
    }
}

fn opt<T: std::fmt::Display>(s: &mut String, v: Option<T>) {
    use std::fmt::Write as _;
    match v {
        Some(v) => {
            let _ = write!(s, "{v}");
        }
        None => s.push_str("null"),
    }
}

/// The header fields, without braces: `"format":"syscall",...,"uname":{...}`.
fn header_json(s: &mut String, h: &Header<'_>) {
    use std::fmt::Write as _;
    let _ = write!(
        s,
        "\"format\":\"syscall\",\"version\":{},\"big_endian\":{},\"pid\":{},\"epoch_seconds\":{},\"clock_reference_ns\":",
        h.version,
        h.is_big_endian(),
        h.pid,
        h.epoch_seconds
    );
    opt(s, h.clock_reference_ns);
    let _ = write!(s, ",\"uname\":{}", uname_json(h));
}

fn push_hex(s: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    s.reserve(bytes.len() * 2);
    for &b in bytes {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
}

fn arg_json(s: &mut String, a: &Arg<'_>) {
    use std::fmt::Write as _;
    match a {
        Arg::Int(v) => {
            let _ = write!(s, "{{\"int\":{v}}}");
        }
        Arg::Data(d) => {
            s.push_str("{\"data\":\"");
            push_hex(s, d);
            s.push_str("\"}");
        }
        Arg::Partial { original_len, data } => {
            let _ = write!(
                s,
                "{{\"partial\":{{\"original_len\":{original_len},\"data\":\""
            );
            push_hex(s, data);
            s.push_str("\"}}");
        }
        Arg::Stat(st) => {
            let _ = write!(
                s,
                "{{\"stat\":{{\"dev\":{},\"ino\":{},\"mode\":{},\"nlink\":{},\"uid\":{},\"gid\":{},\"rdev\":{},\"size\":{},\"blksize\":{},\"blocks\":{},\"atim\":{{\"sec\":{},\"nsec\":{}}},\"mtim\":{{\"sec\":{},\"nsec\":{}}},\"ctim\":{{\"sec\":{},\"nsec\":{}}}}}}}",
                st.dev,
                st.ino,
                st.mode,
                st.nlink,
                st.uid,
                st.gid,
                st.rdev,
                st.size,
                st.blksize,
                st.blocks,
                st.atim.sec,
                st.atim.nsec,
                st.mtim.sec,
                st.mtim.nsec,
                st.ctim.sec,
                st.ctim.nsec
            );
        }
        Arg::PollFds(p) => {
            s.push_str("{\"pollfds\":[");
            for (i, fd) in p.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(
                    s,
                    "{{\"fd\":{},\"events\":{},\"revents\":{}}}",
                    fd.fd, fd.events, fd.revents
                );
            }
            s.push_str("]}");
        }
        Arg::SigAction(None) => s.push_str("{\"sigaction\":null}"),
        Arg::SigAction(Some(sa)) => {
            let _ = write!(
                s,
                "{{\"sigaction\":{{\"handler\":{},\"sigaction\":{},\"flags\":",
                sa.handler, sa.sigaction
            );
            match sa.flags() {
                Some(f) => {
                    let _ = write!(s, "{f}");
                }
                None => {
                    s.push('"');
                    push_hex(s, sa.mask);
                    s.push('"');
                }
            }
            let _ = write!(
                s,
                ",\"stale_flags\":{},\"stale_restorer\":{}}}}}",
                sa.stale_flags, sa.stale_restorer
            );
        }
        Arg::IntP { pointer, value } => {
            let _ = write!(
                s,
                "{{\"intp\":{{\"pointer\":{pointer},\"value\":{value}}}}}"
            );
        }
    }
}

fn syscall_json(s: &mut String, c: &Syscall<'_>) {
    use std::fmt::Write as _;
    let _ = write!(
        s,
        "{{\"kind\":\"syscall\",\"offset\":{},\"number\":{},\"name\":",
        c.offset, c.number
    );
    // Always a string: numbers no x86-64 kernel assigns print as `syscall_<n>`, as in `info`.
    let _ = write!(s, "\"{}\"", name_of(c.number));
    let _ = write!(s, ",\"ret\":{},\"tid\":", c.ret());
    opt(s, c.tid);
    s.push_str(",\"timestamp_ns\":");
    opt(s, c.timestamp_ns);
    s.push_str(",\"duration_ns\":");
    // Non-finite floats (only in damaged files) have no JSON form.
    opt(s, c.duration_ns.filter(|d| d.is_finite()));
    s.push_str(",\"args\":[");
    for (i, a) in c.args().enumerate() {
        if i > 0 {
            s.push(',');
        }
        arg_json(s, &a);
    }
    s.push_str("]}");
}

fn entry_json(s: &mut String, e: &Entry<'_>) {
    use std::fmt::Write as _;
    match e {
        Entry::Syscall(c) => syscall_json(s, c),
        Entry::Filler(f) => {
            let _ = write!(
                s,
                "{{\"kind\":\"filler\",\"offset\":{},\"len\":{}}}",
                f.offset, f.len
            );
        }
        Entry::Gap(g) => {
            let _ = write!(
                s,
                "{{\"kind\":\"gap\",\"offset\":{},\"len\":{}}}",
                g.offset, g.len
            );
        }
        Entry::Header(h) => {
            let _ = write!(s, "{{\"kind\":\"header\",\"offset\":{},", h.offset);
            header_json(s, h);
            s.push('}');
        }
    }
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
