//! Each entry as the JSON object that `tracecap dump --json` prints on a line of its own, and a
//! record's arguments as the JSON array the `syscall_calls` table keeps (feature `json`).
//!
//! Every function appends to a `String` that the caller clears and reuses, so writing an entry
//! allocates nothing once that string has grown to the longest entry. The JSON has no spaces and
//! keeps its members in the order `docs/syscall.md` gives. Integers are written in decimal, the
//! duration (an `f32`) as Rust prints it (`1234`, `0.5`, never an exponent) or `null` when it is
//! not finite. The host's uname strings become JSON strings, each invalid UTF-8 sequence replaced
//! by U+FFFD (as `String::from_utf8_lossy` does), with `"` and `\` escaped, the short escapes
//! `\b \f \n \r \t`, and `\u00xx` for the other control characters. Argument data and signal
//! sets are strings of lowercase hex digits.
//!
//! ```
//! use tracecap_syscall::{json, Capture};
//!
//! # // The crate example's capture: a 28-byte header, no host information, one `close(3) = 0`.
//! # let mut file = vec![0x78, 0x06, 0x17, 0xa5, 1, 0, 0, 0];
//! # file.extend_from_slice(&4242i32.to_le_bytes());
//! # file.extend_from_slice(&1_700_000_000i64.to_le_bytes());
//! # file.extend_from_slice(&5_000i64.to_le_bytes());
//! # file.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0x01, 0]);
//! # file.extend_from_slice(&0i64.to_le_bytes());
//! # file.extend_from_slice(&[1, 0, 4, 0, 3, 0, 0, 0]);
//! let capture = Capture::parse(&file)?;
//! let mut line = String::new();
//! json::header(capture.header(), &mut line);
//! assert_eq!(
//!     line,
//!     r#"{"format":"syscall","version":1,"big_endian":false,"pid":4242,"epoch_seconds":1700000000,"clock_reference_ns":5000,"uname":null}"#
//! );
//! for entry in capture.entries() {
//!     line.clear();
//!     json::entry(&entry?, &mut line);
//!     assert_eq!(
//!         line,
//!         r#"{"kind":"syscall","offset":36,"number":3,"name":"close","ret":0,"tid":null,"timestamp_ns":null,"duration_ns":null,"args":[{"int":3}]}"#
//!     );
//! }
//! # Ok::<(), tracecap_syscall::Error>(())
//! ```

use alloc::string::String;
use core::fmt::{Display, Write as _};

use crate::arg::{Arg, Args, Stat, Timespec};
use crate::capture::Entry;
use crate::header::{Header, Uname};
use crate::record::Syscall;

/// Appends the header line of a capture: `{"format":"syscall",...,"uname":...}`.
pub fn header(h: &Header<'_>, out: &mut String) {
    out.push('{');
    header_members(h, out);
    out.push('}');
}

/// Appends the line of one entry: a system call, a filler, a zero gap, or the header of a
/// capture appended after a fork (`{"kind":"header","offset":...}` and the header line's members).
pub fn entry(e: &Entry<'_>, out: &mut String) {
    match e {
        Entry::Syscall(c) => syscall(c, out),
        Entry::Filler(f) => span("filler", f.offset, f.len, out),
        Entry::Gap(g) => span("gap", g.offset, g.len, out),
        Entry::Header(h) => {
            out.push_str("{\"kind\":\"header\",\"offset\":");
            number(h.offset, out);
            out.push(',');
            header_members(h, out);
            out.push('}');
        }
    }
}

/// Appends the line of one system call record:
/// `{"kind":"syscall","offset":...,"number":...,"name":...,"ret":...,"tid":...,"timestamp_ns":...,"duration_ns":...,"args":[...]}`.
/// `name` is `syscall_<n>` for a number no x86-64 kernel assigns; `ret` is 0 when the record
/// carries no return value.
pub fn syscall(c: &Syscall<'_>, out: &mut String) {
    out.push_str("{\"kind\":\"syscall\",\"offset\":");
    number(c.offset, out);
    out.push_str(",\"number\":");
    number(c.number, out);
    out.push_str(",\"name\":");
    match c.name() {
        Some(name) => string(name, out),
        None => {
            out.push_str("\"syscall_");
            number(c.number, out);
            out.push('"');
        }
    }
    out.push_str(",\"ret\":");
    number(c.ret(), out);
    out.push_str(",\"tid\":");
    opt_number(c.tid, out);
    out.push_str(",\"timestamp_ns\":");
    opt_number(c.timestamp_ns, out);
    out.push_str(",\"duration_ns\":");
    match c.duration_ns {
        Some(d) if d.is_finite() => number(d, out),
        _ => out.push_str("null"),
    }
    out.push_str(",\"args\":");
    args(c.args(), out);
    out.push('}');
}

/// Appends a record's arguments as a JSON array of [`arg`] objects (`[]` when it has none).
pub fn args(args: Args<'_>, out: &mut String) {
    out.push('[');
    for (i, a) in args.enumerate() {
        if i > 0 {
            out.push(',');
        }
        arg(&a, out);
    }
    out.push(']');
}

/// Appends one argument as a one-member object named after its kind: `{"int":...}`,
/// `{"data":"<hex>"}`, `{"partial":{"original_len":...,"data":"<hex>"}}`, `{"stat":{...}}`,
/// `{"pollfds":[{"fd":...,"events":...,"revents":...},...]}`, `{"sigaction":null}` or
/// `{"sigaction":{...}}` (its `flags` the kernel's word when the signal set has 8 bytes, else
/// the set's bytes in hex), `{"intp":{"pointer":...,"value":...}}`.
pub fn arg(a: &Arg<'_>, out: &mut String) {
    match a {
        Arg::Int(v) => {
            out.push_str("{\"int\":");
            number(v, out);
        }
        Arg::Data(d) => {
            out.push_str("{\"data\":");
            hex(d, out);
        }
        Arg::Partial { original_len, data } => {
            out.push_str("{\"partial\":{\"original_len\":");
            number(original_len, out);
            out.push_str(",\"data\":");
            hex(data, out);
            out.push('}');
        }
        Arg::Stat(st) => stat(st, out),
        Arg::PollFds(p) => {
            out.push_str("{\"pollfds\":[");
            for (i, fd) in p.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"fd\":");
                number(fd.fd, out);
                out.push_str(",\"events\":");
                number(fd.events, out);
                out.push_str(",\"revents\":");
                number(fd.revents, out);
                out.push('}');
            }
            out.push(']');
        }
        Arg::SigAction(None) => out.push_str("{\"sigaction\":null"),
        Arg::SigAction(Some(sa)) => {
            out.push_str("{\"sigaction\":{\"handler\":");
            number(sa.handler, out);
            out.push_str(",\"sigaction\":");
            number(sa.sigaction, out);
            out.push_str(",\"flags\":");
            match sa.flags() {
                Some(f) => number(f, out),
                None => hex(sa.mask, out),
            }
            out.push_str(",\"stale_flags\":");
            number(sa.stale_flags, out);
            out.push_str(",\"stale_restorer\":");
            number(sa.stale_restorer, out);
            out.push('}');
        }
        Arg::IntP { pointer, value } => {
            out.push_str("{\"intp\":{\"pointer\":");
            number(pointer, out);
            out.push_str(",\"value\":");
            number(value, out);
            out.push('}');
        }
    }
    out.push('}');
}

/// Appends the host's uname strings,
/// `{"sysname":...,"nodename":...,"release":...,"version":...,"machine":...,"domainname":...}`,
/// or `null` when the capture has none (the tracer's `uname` call failed).
pub fn uname(u: Option<&Uname<'_>>, out: &mut String) {
    let Some(u) = u else {
        out.push_str("null");
        return;
    };
    out.push_str("{\"sysname\":");
    lossy(u.sysname, out);
    out.push_str(",\"nodename\":");
    lossy(u.nodename, out);
    out.push_str(",\"release\":");
    lossy(u.release, out);
    out.push_str(",\"version\":");
    lossy(u.version, out);
    out.push_str(",\"machine\":");
    lossy(u.machine, out);
    out.push_str(",\"domainname\":");
    lossy(u.domainname, out);
    out.push('}');
}

/// The header's members, without the braces around them.
fn header_members(h: &Header<'_>, out: &mut String) {
    out.push_str("\"format\":\"syscall\",\"version\":");
    number(h.version, out);
    out.push_str(",\"big_endian\":");
    out.push_str(if h.is_big_endian() { "true" } else { "false" });
    out.push_str(",\"pid\":");
    number(h.pid, out);
    out.push_str(",\"epoch_seconds\":");
    number(h.epoch_seconds, out);
    out.push_str(",\"clock_reference_ns\":");
    opt_number(h.clock_reference_ns, out);
    out.push_str(",\"uname\":");
    uname(h.uname().as_ref(), out);
}

/// `{"kind":<kind>,"offset":...,"len":...}`: a filler or a zero gap.
fn span(kind: &str, offset: u64, len: u64, out: &mut String) {
    out.push_str("{\"kind\":\"");
    out.push_str(kind);
    out.push_str("\",\"offset\":");
    number(offset, out);
    out.push_str(",\"len\":");
    number(len, out);
    out.push('}');
}

/// `{"stat":{...}}` without its closing brace.
fn stat(st: &Stat, out: &mut String) {
    out.push_str("{\"stat\":{\"dev\":");
    number(st.dev, out);
    out.push_str(",\"ino\":");
    number(st.ino, out);
    out.push_str(",\"mode\":");
    number(st.mode, out);
    out.push_str(",\"nlink\":");
    number(st.nlink, out);
    out.push_str(",\"uid\":");
    number(st.uid, out);
    out.push_str(",\"gid\":");
    number(st.gid, out);
    out.push_str(",\"rdev\":");
    number(st.rdev, out);
    out.push_str(",\"size\":");
    number(st.size, out);
    out.push_str(",\"blksize\":");
    number(st.blksize, out);
    out.push_str(",\"blocks\":");
    number(st.blocks, out);
    out.push_str(",\"atim\":");
    time(&st.atim, out);
    out.push_str(",\"mtim\":");
    time(&st.mtim, out);
    out.push_str(",\"ctim\":");
    time(&st.ctim, out);
    out.push('}');
}

/// `{"sec":...,"nsec":...}`.
fn time(t: &Timespec, out: &mut String) {
    out.push_str("{\"sec\":");
    number(t.sec, out);
    out.push_str(",\"nsec\":");
    number(t.nsec, out);
    out.push('}');
}

/// A number as Rust prints it: integers in decimal, a finite float in its shortest round-trip
/// form without an exponent.
#[inline]
fn number(v: impl Display, out: &mut String) {
    // Writing to a String cannot fail.
    let _ = write!(out, "{v}");
}

/// A number, or `null`.
#[inline]
fn opt_number(v: Option<impl Display>, out: &mut String) {
    match v {
        Some(v) => number(v, out),
        None => out.push_str("null"),
    }
}

/// Bytes as a string of lowercase hex digits, two per byte.
fn hex(bytes: &[u8], out: &mut String) {
    out.reserve(bytes.len().saturating_mul(2).saturating_add(2));
    out.push('"');
    for &b in bytes {
        out.push(hex_digit(b >> 4));
        out.push(hex_digit(b & 15));
    }
    out.push('"');
}

/// The lowercase hex digit of a value below 16.
#[inline]
fn hex_digit(n: u8) -> char {
    char::from(if n < 10 { b'0' + n } else { b'a' + (n - 10) })
}

/// Text as a JSON string.
fn string(s: &str, out: &mut String) {
    tracecap_wire::json::string(s, |piece| out.push_str(piece));
}

/// Bytes as a JSON string, each invalid UTF-8 sequence replaced by U+FFFD.
fn lossy(bytes: &[u8], out: &mut String) {
    tracecap_wire::json::lossy(bytes, |piece| out.push_str(piece));
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn with(f: impl FnOnce(&mut String)) -> String {
        let mut s = String::new();
        f(&mut s);
        s
    }

    #[test]
    fn control_characters_quotes_and_backslashes_are_escaped() {
        let all: String = (0u8..0x80).map(char::from).collect();
        let mut want = String::from("\"");
        for b in 0u8..0x80 {
            match b {
                0x08 => want.push_str("\\b"),
                0x09 => want.push_str("\\t"),
                0x0a => want.push_str("\\n"),
                0x0c => want.push_str("\\f"),
                0x0d => want.push_str("\\r"),
                b'"' => want.push_str("\\\""),
                b'\\' => want.push_str("\\\\"),
                0..=0x1f => {
                    let _ = write!(want, "\\u{b:04x}");
                }
                _ => want.push(char::from(b)),
            }
        }
        want.push('"');
        assert_eq!(with(|s| string(&all, s)), want);
        assert!(want.contains("\\u0000") && want.contains("\\u001f") && want.contains('\u{7f}'));
        // Escapes at the edges and side by side keep the text between them.
        assert_eq!(with(|s| string("\n", s)), "\"\\n\"");
        assert_eq!(with(|s| string("a\"\"b\\", s)), "\"a\\\"\\\"b\\\\\"");
        assert_eq!(with(|s| string("é\u{1}ü", s)), "\"é\\u0001ü\"");
    }

    #[test]
    fn bytes_that_are_not_utf8_become_replacement_characters() {
        let cases: [&[u8]; 7] = [
            b"",
            b"plain",
            b"\xff",
            b"a\xc3",
            b"\xe2\x82x\"\xf0\x9f\x98",
            b"\xed\xa0\x80 surrogate\x01",
            "ok é \u{1f600}".as_bytes(),
        ];
        for b in cases {
            let text = String::from_utf8_lossy(b);
            assert_eq!(with(|s| lossy(b, s)), with(|s| string(&text, s)), "{b:?}");
        }
        assert_eq!(with(|s| lossy(b"a\xffb\n", s)), "\"a\u{fffd}b\\n\"");
        assert_eq!(
            with(|s| lossy(b"\xe2\x82x", s)),
            "\"\u{fffd}x\"",
            "one replacement for a cut sequence"
        );
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(with(|s| hex(&[], s)), "\"\"");
        let all: alloc::vec::Vec<u8> = (0..=255).collect();
        let got = with(|s| hex(&all, s));
        let mut want = String::from("\"");
        for b in &all {
            let _ = write!(want, "{b:02x}");
        }
        want.push('"');
        assert_eq!(got, want);
    }

    #[test]
    fn numbers_print_as_rust_prints_them() {
        assert_eq!(with(|s| number(i64::MIN, s)), i64::MIN.to_string());
        assert_eq!(with(|s| number(u64::MAX, s)), "18446744073709551615");
        assert_eq!(with(|s| number(1234.0f32, s)), "1234");
        assert_eq!(with(|s| number(3e-5f32, s)), "0.00003");
        assert_eq!(
            with(|s| number(1e30f32, s)),
            "1000000000000000000000000000000"
        );
        assert_eq!(with(|s| opt_number(None::<i32>, s)), "null");
        assert_eq!(with(|s| opt_number(Some(-7i32), s)), "-7");
    }
}
