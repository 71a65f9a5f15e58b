//! The real captures in ../shared/corpus/syscall against the strace of the same runs.

use tracecap_syscall::{Arg, Capture, Entry, ErrorKind, Syscall};

/// One strace line: `[ N] name(args) = ret ...`.
#[derive(Debug)]
struct StraceLine {
    line_no: usize,
    number: u16,
    args: Vec<String>,
    ret: Option<i64>,
}

fn errno(name: &str) -> i64 {
    match name {
        "ENOENT" => 2,
        "EBADF" => 9,
        "EAGAIN" => 11,
        "EACCES" => 13,
        "EEXIST" => 17,
        "ENOTDIR" => 20,
        "EINVAL" => 22,
        "ENOTTY" => 25,
        "ESPIPE" => 29,
        "ERANGE" => 34,
        "ENOSYS" => 38,
        "ENODATA" => 61,
        "EOPNOTSUPP" => 95,
        other => panic!("errno {other} missing from the test's table"),
    }
}

fn parse_int(tok: &str) -> Option<i64> {
    let tok = tok.trim();
    if tok == "NULL" {
        return Some(0);
    }
    let (neg, t) = match tok.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, tok),
    };
    let v = if let Some(h) = t.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()? as i64
    } else if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| b.is_ascii_digit()) {
        i64::from_str_radix(t, 8).ok()?
    } else {
        t.parse::<i64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// Splits strace's argument text at top-level commas.
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            cur.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.push(c);
            }
            '{' | '[' | '(' => {
                depth += 1;
                cur.push(c);
            }
            '}' | ']' | ')' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parse_strace(text: &str) -> Vec<StraceLine> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let Some((nr, call)) = rest.split_once(']') else {
            continue;
        };
        let number: u16 = nr.trim().parse().expect("syscall number");
        let call = call.trim_start();
        let Some(open) = call.find('(') else {
            continue; // "+++ exited with 0 +++"
        };
        // strace pads short calls with spaces before " = ".
        let Some(eq) = call.rfind(" = ") else {
            continue;
        };
        let Some(close) = call[..eq].trim_end().strip_suffix(')') else {
            continue;
        };
        let args = split_args(&close[open + 1..]);
        let ret_text = call[eq + 3..].trim();
        let mut toks = ret_text.split_whitespace();
        let ret = match toks.next() {
            Some("?") | None => None,
            Some("-1") => match toks.next() {
                Some(e) if e.starts_with('E') => Some(-errno(e)),
                _ => Some(-1),
            },
            Some(t) => Some(parse_int(t).expect("return value")),
        };
        out.push(StraceLine {
            line_no: i + 1,
            number,
            args,
            ret,
        });
    }
    out
}

/// The bytes of a strace `-xx` string token, and whether strace cut it ("...").
fn strace_bytes(tok: &str) -> Option<(Vec<u8>, bool)> {
    let body = tok.strip_prefix('"')?;
    let (body, cut) = match body.strip_suffix("\"...") {
        Some(b) => (b, true),
        None => (body.strip_suffix('"')?, false),
    };
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let hex = rest.strip_prefix("\\x")?;
        out.push(u8::from_str_radix(hex.get(..2)?, 16).ok()?);
        rest = &hex[2..];
    }
    Some((out, cut))
}

/// True if `rec` is what strace saw in `line`: same number, return value, integer arguments,
/// data prefixes and stat size.
fn matches(rec: &Syscall<'_>, line: &StraceLine) -> bool {
    if rec.number != line.number || Some(rec.ret()) != line.ret {
        return false;
    }
    for (i, arg) in rec.args().enumerate() {
        let Some(tok) = line.args.get(i) else {
            // strace leaves out arguments a call does not use (ioctl(4, FIOCLEX)); the tracer
            // writes every declared one.
            break;
        };
        match arg {
            Arg::Int(v) => {
                if let Some(s) = parse_int(tok) {
                    // Arguments are raw registers: a 32-bit -1 is stored as 0xffffffff.
                    let same_int = (0..=i64::from(u32::MAX)).contains(&v) && s as i32 == v as i32;
                    if s != v && !same_int {
                        return false;
                    }
                }
            }
            Arg::Data(d) | Arg::Partial { data: d, .. } => {
                if let Some((bytes, cut)) = strace_bytes(tok) {
                    let ok = if cut || matches!(arg, Arg::Partial { .. }) {
                        d.starts_with(&bytes) || bytes.starts_with(d)
                    } else {
                        d == bytes.as_slice()
                    };
                    if !ok {
                        return false;
                    }
                }
            }
            Arg::Stat(st) if rec.ret() == 0 => {
                if let Some(pos) = tok.find("st_size=") {
                    let size: String = tok[pos + 8..]
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    if size.parse::<i64>().ok() != Some(st.size) {
                        return false;
                    }
                }
            }
            _ => {}
        }
    }
    true
}

/// Walks the capture and the strace side by side (see the corpus README): start after the
/// tracer's `uname`, drop the strace lines of calls the tracer cannot see (`invisible`: the
/// dynamic loader's own calls), then every record must match the very next strace line, and the
/// strace lines left after the last record must be the tracer's own calls.
fn check_against_strace(
    dat: &str,
    strace: &str,
    expected_records: usize,
    invisible: Option<std::ops::RangeInclusive<usize>>,
) {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join(dat)).unwrap();
    let text = std::fs::read_to_string(dir.join(strace)).unwrap();
    let all = parse_strace(&text);
    let start = all
        .iter()
        .position(|l| l.number == 63)
        .expect("tracer's uname")
        + 1;
    let lines: Vec<&StraceLine> = all[start..]
        .iter()
        .filter(|l| !invisible.as_ref().is_some_and(|r| r.contains(&l.line_no)))
        .collect();
    let cap = Capture::parse(&data).expect("header");
    let mut pos = 0;
    let mut records = 0;
    let mut with_args = 0;
    let mut int_args = 0;
    for entry in cap.entries() {
        let rec = match entry.expect("clean capture") {
            Entry::Syscall(s) => s,
            _ => continue,
        };
        records += 1;
        if rec.arg_count > 0 {
            with_args += 1;
        }
        int_args += rec.args().filter(|a| matches!(a, Arg::Int(_))).count();
        let line = lines.get(pos).unwrap_or_else(|| {
            panic!(
                "{dat}: record #{records} at {:#x} has no strace line left",
                rec.offset
            )
        });
        assert!(
            matches(&rec, line),
            "{dat}: record #{records} at {:#x} ({:?} = {}, args {:?}) differs from strace line {}",
            rec.offset,
            rec.name(),
            rec.ret(),
            rec.args().collect::<Vec<_>>(),
            line.line_no
        );
        pos += 1;
    }
    assert_eq!(records, expected_records, "{dat}: record count");
    assert!(
        with_args > 0 && int_args > 0,
        "{dat}: no record had arguments"
    );
    // What strace saw after the last record: only the tracer's own calls (flush write, close,
    // munmap of its buffers, exit_group).
    for l in &lines[pos..] {
        assert!(
            matches!(l.number, 1 | 3 | 11 | 231),
            "{dat}: strace line {} (syscall {}) after the last record",
            l.line_no,
            l.number
        );
    }
    println!(
        "{dat}: {records} records equal strace lines in order ({int_args} integer arguments); {} trailing tracer calls",
        lines.len() - pos
    );
}

#[test]
fn ls_l_matches_strace() {
    check_against_strace("ls_l.dat", "ls_l.strace.txt", 139, None);
}

#[test]
fn py_args_matches_strace() {
    // strace lines 547-569: the loader bringing in _ctypes and libffi, invisible to the tracer.
    check_against_strace("py_args.dat", "py_args.strace.txt", 526, Some(547..=569));
}

#[test]
fn py_args_has_every_argument_kind() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("py_args.dat")).unwrap();
    let cap = Capture::parse(&data).unwrap();
    let (mut int4, mut int8, mut full, mut partial, mut stat, mut poll, mut sa_null, mut sa) =
        (0, 0, 0, 0, 0, 0, 0, 0);
    let mut biggest_full = 0;
    let mut failed_read_partial = false;
    for s in cap.events() {
        let s = s.unwrap();
        for a in s.args() {
            match a {
                Arg::Int(v) if i32::try_from(v).is_ok() => int4 += 1,
                Arg::Int(_) => int8 += 1,
                Arg::Data(d) => {
                    full += 1;
                    biggest_full = biggest_full.max(d.len());
                }
                Arg::Partial { original_len, data } => {
                    partial += 1;
                    if s.number == 0 && s.ret() < 0 {
                        assert_eq!((original_len, data.len()), (0, 0));
                        failed_read_partial = true;
                    } else {
                        assert_eq!(data.len(), 65_531);
                        assert!(original_len >= 65_532);
                    }
                }
                Arg::Stat(st) => {
                    stat += 1;
                    if s.number == 4 && s.ret() == 0 {
                        // strace: st_mode=S_IFREG|0755, st_size=3
                        assert_eq!(st.mode, 0o100755);
                        assert_eq!(st.size, 3);
                    }
                }
                Arg::PollFds(p) => {
                    poll += 1;
                    assert_eq!(p.len(), 2);
                }
                Arg::SigAction(None) => sa_null += 1,
                Arg::SigAction(Some(a)) => {
                    sa += 1;
                    assert_eq!(a.mask.len(), 8);
                    assert_eq!(a.handler, a.sigaction);
                }
                Arg::IntP { .. } => panic!("IntP is never written"),
            }
        }
    }
    assert!(int4 > 0 && int8 > 0 && full > 0 && partial >= 3);
    assert!(stat >= 3 && poll == 1 && sa_null > 0 && sa > 0);
    assert_eq!(biggest_full, 65_531);
    assert!(failed_read_partial);
}

#[test]
fn header_and_uname() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("ls_l.dat")).unwrap();
    let cap = Capture::parse(&data).unwrap();
    let h = cap.header();
    assert_eq!((h.version, h.flags, h.fixed_len), (1, 0, 28));
    assert!(!h.is_big_endian());
    assert_eq!(h.pid, 15159); // strace: gettid() = 15159
    assert!(h.clock_reference_ns.is_some());
    let u = h.uname().unwrap();
    assert_eq!(u.sysname, b"Linux");
    assert_eq!(u.nodename, b"vm");
    assert_eq!(u.release, b"6.18.44-fc-v669");
    assert_eq!(u.machine, b"x86_64");
    assert_eq!(u.domainname, b"(none)");
    assert_eq!(h.len, 0x6c);
}

#[test]
fn big_filler_and_zero_gap() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("py_big_filler_zerogap.dat")).unwrap();
    let cap = Capture::parse(&data).unwrap();
    let entries: Vec<Entry> = cap.entries().map(|e| e.unwrap()).collect();
    let fillers: Vec<_> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Filler(f) => Some(*f),
            _ => None,
        })
        .collect();
    assert_eq!(fillers.len(), 1);
    assert_eq!(fillers[0].offset + 8 + fillers[0].len, 1_048_576);
    assert_eq!(fillers[0].len, 8);
    let gaps: Vec<_> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Gap(g) => Some(*g),
            _ => None,
        })
        .collect();
    assert_eq!(gaps.len(), 1);
    assert_eq!(gaps[0].len, 131_040);
    let i = entries
        .iter()
        .position(|e| matches!(e, Entry::Gap(_)))
        .unwrap();
    assert_eq!(entries[i - 1].offset(), 1_048_576);
    assert!(matches!(entries[i - 1], Entry::Syscall(_)));
    assert_eq!(entries[i + 1].offset(), 1_179_672);
    assert_eq!(gaps[0].offset + gaps[0].len, 1_179_672);
    // RECORD_TIMES=false: no timestamps, no durations.
    for e in &entries {
        if let Entry::Syscall(s) = e {
            assert_eq!((s.timestamp_ns, s.duration_ns, s.tid), (None, None, None));
        }
    }
    let writes = entries
        .iter()
        .filter(|e| matches!(e, Entry::Syscall(s) if s.number == 1 && s.ret() == 16))
        .count();
    assert_eq!(writes, 30_000);
}

#[test]
fn sigkill_after_flush_is_one_unit() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("py_sigkill_after_flush.dat")).unwrap();
    let cap = Capture::parse(&data).unwrap();
    let entries: Vec<Entry> = cap.entries().map(|e| e.unwrap()).collect();
    match entries.last().unwrap() {
        Entry::Filler(f) => {
            assert_eq!(f.len, 44);
            assert_eq!(f.offset + 8 + 44, 1_048_576);
        }
        other => panic!("last entry {other:?}"),
    }
    assert!(entries.len() > 1000);
}

#[test]
fn stale_tail_stops_where_old_bytes_start() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("stale_tail_no_otrunc.dat")).unwrap();
    let cap = Capture::parse(&data).unwrap();
    let mut good = 0;
    let mut last_end = 0;
    let mut err = None;
    for e in cap.entries() {
        match e {
            Ok(Entry::Syscall(s)) => {
                good += 1;
                last_end = s.offset;
            }
            Ok(_) => {}
            Err(e) => err = Some(e),
        }
    }
    let err = err.expect("stale tail must be an error");
    assert_eq!(err.offset, 6_524);
    assert!(matches!(err.kind, ErrorKind::UnknownSegment(_)), "{err}");
    assert!(good > 10 && last_end < 6_524);
}

#[test]
fn empty_file_is_an_error_at_zero() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join("py_thread_crash_empty.dat")).unwrap();
    assert!(data.is_empty());
    let err = Capture::parse(&data).unwrap_err();
    assert_eq!((err.kind, err.offset), (ErrorKind::Empty, 0));
}

#[test]
fn forked_child_capture_after_the_parent() {
    // fork() without exec: parent and child each write a whole capture, one after the other.
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let one = std::fs::read(dir.join("ls_l.dat")).unwrap();
    let mut two = one.clone();
    two.extend_from_slice(&one);
    let cap = Capture::parse(&two).unwrap();
    let entries: Vec<Entry> = cap.entries().map(|e| e.unwrap()).collect();
    let at = entries
        .iter()
        .position(|e| matches!(e, Entry::Header(_)))
        .expect("second header");
    assert_eq!(entries[at].offset(), one.len() as u64);
    let Entry::Header(h) = entries[at] else {
        unreachable!()
    };
    assert_eq!(h.pid, cap.header().pid);
    assert_eq!(h.uname(), cap.header().uname());
    let calls = |es: &[Entry]| es.iter().filter(|e| matches!(e, Entry::Syscall(_))).count();
    assert_eq!(calls(&entries[..at]), 139);
    assert_eq!(calls(&entries[at + 1..]), 139);
}
