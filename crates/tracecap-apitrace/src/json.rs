//! Calls as JSON (feature `json`): the lines of `tracecap dump --json` and the JSON columns of
//! the `apitrace_calls` table.
//!
//! Each function appends to a byte buffer the caller reuses (nothing is allocated per call
//! beyond the buffer's growth) and writes compact JSON as serde_json writes it: keys in the order
//! shown, no spaces, integers in decimal, floats in their shortest round-trip form (`1.0`,
//! `1e+20`, `null` when not finite), strings escaped as serde_json escapes them (`\"`, `\\`,
//! `\b`, `\f`, `\n`, `\r`, `\t`, `\u00xx` for the other control characters, everything else as
//! it is). Text from the file that is not UTF-8 has each invalid sequence replaced by U+FFFD,
//! as `String::from_utf8_lossy` replaces it. What is written is always UTF-8.
//!
//! A call ([`call`]):
//!
//! ```text
//! {"no":12,"thread":0,"name":"glViewport",
//!  "args":[{"name":"x","value":VALUE|null},...],
//!  "ret":VALUE|null,
//!  "flags":{"fake":false,"incomplete":false,"end_frame":false},
//!  "backtrace":null|[{"module":s|null,"function":s|null,"file":s|null,"line":n|null,"offset":n|null},...],
//!  "offset":4609,"file_offset":2}
//! ```
//!
//! A value ([`value`]) is an object with its `type` (`null`, `bool`, `sint`, `uint`, `float`,
//! `double`, `string`, `wstring`, `blob`, `pointer`, `enum`, `bitmask`, `array`, `struct`,
//! `repr`) and what that type holds: `{"type":"uint","value":4}`,
//! `{"type":"enum","value":1,"name":"GL_TRUE"}`, `{"type":"blob","size":16}`, ...
//!
//! ```
//! use tracecap_apitrace::{decompress, json, Calls, Stream};
//!
//! # let file = tracecap_apitrace::doc_example();
//! let whole = decompress(&file)?;
//! let stream = Stream::parse(&whole.data)?;
//! let mut events = stream.events();
//! let mut calls = Calls::new();
//! let mut line = Vec::new();
//! while let Some(event) = events.next() {
//!     if let Some(call) = calls.push(&event?, events.table())? {
//!         line.clear();
//!         json::call(&mut line, &call, events.table(), whole.chunk_offset(call.offset))?;
//!         calls.recycle(call);
//!     }
//! }
//! let last = core::str::from_utf8(&line).unwrap();
//! assert!(last.starts_with(r#"{"no":1,"thread":0,"name":"glXSwapBuffers","args":[{"name":"dpy","#));
//! # Ok::<(), tracecap_apitrace::Error>(())
//! ```

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::calls::Call;
use crate::container::Container;
use crate::error::Error;
use crate::event::Backtrace;
use crate::flags::{call_flags, END_FRAME};
use crate::table::SigTable;
use crate::value::Value;

/// Appends the JSON object of `call`: its number, thread, name, arguments, return value, flags,
/// backtrace and stream offset, and `file_offset` (the file offset of the snappy chunk or zstd
/// frame holding the call's first byte) when given.
///
/// A value that cannot be read (an array or struct whose elements fail) is the error, and
/// `out` is then left as it was: a call is written whole or not at all.
pub fn call(
    out: &mut Vec<u8>,
    call: &Call<'_>,
    table: &SigTable,
    file_offset: Option<u64>,
) -> Result<(), Error> {
    let start = out.len();
    let written = call_body(out, call, table, file_offset);
    if written.is_err() {
        out.truncate(start);
    }
    written
}

fn call_body(
    out: &mut Vec<u8>,
    call: &Call<'_>,
    table: &SigTable,
    file_offset: Option<u64>,
) -> Result<(), Error> {
    let name = table.function(call.sig).map_or(&b""[..], |s| s.name());
    out.extend_from_slice(b"{\"no\":");
    unsigned(out, call.no);
    out.extend_from_slice(b",\"thread\":");
    unsigned(out, call.thread);
    out.extend_from_slice(b",\"name\":");
    text(out, name);
    out.extend_from_slice(b",\"args\":");
    args(out, call, table)?;
    out.extend_from_slice(b",\"ret\":");
    match &call.ret {
        Some(v) => value(out, v, table)?,
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"flags\":{\"fake\":");
    boolean(out, call.is_fake());
    out.extend_from_slice(b",\"incomplete\":");
    boolean(out, call.incomplete);
    out.extend_from_slice(b",\"end_frame\":");
    boolean(out, call_flags(name) & END_FRAME != 0);
    out.extend_from_slice(b"},\"backtrace\":");
    match &call.backtrace {
        Some(bt) => backtrace(out, bt, table)?,
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"offset\":");
    unsigned(out, call.offset);
    if let Some(at) = file_offset {
        out.extend_from_slice(b",\"file_offset\":");
        unsigned(out, at);
    }
    out.push(b'}');
    Ok(())
}

/// Appends the JSON array of `call`'s arguments: `{"name": ..., "value": ...}` for each, its
/// name from the function signature (`""` past the signature's names), its value a [`value`]
/// object or `null` where none was recorded. On an error, `out` holds part of the array.
pub fn args(out: &mut Vec<u8>, call: &Call<'_>, table: &SigTable) -> Result<(), Error> {
    let sig = table.function(call.sig);
    out.push(b'[');
    for (i, a) in call.args.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"name\":");
        text(out, sig.and_then(|s| s.arg_name(i)).unwrap_or(b""));
        out.extend_from_slice(b",\"value\":");
        match a {
            Some(v) => value(out, v, table)?,
            None => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
    }
    out.push(b']');
    Ok(())
}

/// Appends the JSON array of a backtrace's frames, innermost first: `module`, `function`,
/// `file` (text or `null`), `line` and `offset` (numbers or `null`); a frame the table does not
/// know has every member `null`. On an error, `out` holds part of the array.
pub fn backtrace(out: &mut Vec<u8>, bt: &Backtrace<'_>, table: &SigTable) -> Result<(), Error> {
    out.push(b'[');
    for (i, id) in bt.frames(table).enumerate() {
        let f = table.frame(id?).unwrap_or_default();
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"module\":");
        opt_text(out, f.module);
        out.extend_from_slice(b",\"function\":");
        opt_text(out, f.function);
        out.extend_from_slice(b",\"file\":");
        opt_text(out, f.filename);
        out.extend_from_slice(b",\"line\":");
        opt_unsigned(out, f.line);
        out.extend_from_slice(b",\"offset\":");
        opt_unsigned(out, f.offset);
        out.push(b'}');
    }
    out.push(b']');
    Ok(())
}

/// Appends the JSON object of one value: `{"type": ..., ...}`. Names (enum values, bitmask
/// flags, struct names and members) come from `table`; an enum value no name matches has
/// `"name":null`, and a bitmask's `rest` holds the bits no flag names. On an error (an element
/// of an array, struct or repr that cannot be read), `out` holds part of the object.
pub fn value(out: &mut Vec<u8>, v: &Value<'_>, table: &SigTable) -> Result<(), Error> {
    let head = |out: &mut Vec<u8>, ty: &[u8]| {
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(ty);
        out.push(b'"');
    };
    match *v {
        Value::Null => head(out, b"null"),
        Value::Bool(b) => {
            head(out, b"bool");
            out.extend_from_slice(b",\"value\":");
            boolean(out, b);
        }
        Value::SInt(i) => {
            head(out, b"sint");
            out.extend_from_slice(b",\"value\":");
            signed(out, i);
        }
        Value::UInt(u) => {
            head(out, b"uint");
            out.extend_from_slice(b",\"value\":");
            unsigned(out, u);
        }
        Value::Float(f) => {
            head(out, b"float");
            out.extend_from_slice(b",\"value\":");
            float(out, f64::from(f));
        }
        Value::Double(f) => {
            head(out, b"double");
            out.extend_from_slice(b",\"value\":");
            float(out, f);
        }
        Value::String(s) => {
            head(out, b"string");
            out.extend_from_slice(b",\"value\":");
            text(out, s);
        }
        Value::WString(s) => {
            head(out, b"wstring");
            out.extend_from_slice(b",\"value\":");
            wide_text(out, s.units());
        }
        Value::Blob(b) => {
            head(out, b"blob");
            out.extend_from_slice(b",\"size\":");
            unsigned(out, b.len() as u64);
        }
        Value::Pointer(p) => {
            head(out, b"pointer");
            out.extend_from_slice(b",\"value\":");
            unsigned(out, p);
        }
        Value::Enum { sig, value } => {
            head(out, b"enum");
            out.extend_from_slice(b",\"value\":");
            signed(out, value);
            out.extend_from_slice(b",\"name\":");
            opt_text(out, table.enum_sig(sig).and_then(|s| s.lookup(value)));
        }
        Value::Bitmask { sig, value } => {
            head(out, b"bitmask");
            out.extend_from_slice(b",\"value\":");
            unsigned(out, value);
            out.extend_from_slice(b",\"flags\":[");
            // The flags set in the value, in the signature's order; a zero flag only for zero.
            let mut rest = value;
            let mut first = true;
            for (name, flag) in table.bitmask_sig(sig).into_iter().flat_map(|s| s.flags()) {
                if (flag != 0 && rest & flag == flag) || (flag == 0 && value == 0) {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    text(out, name);
                    rest &= !flag;
                }
            }
            out.extend_from_slice(b"],\"rest\":");
            unsigned(out, rest);
        }
        Value::Array(a) => {
            head(out, b"array");
            out.extend_from_slice(b",\"values\":[");
            for (i, e) in a.iter(table).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(out, &e?, table)?;
            }
            out.push(b']');
        }
        Value::Struct(s) => {
            let sig = table.struct_sig(s.sig);
            head(out, b"struct");
            out.extend_from_slice(b",\"name\":");
            text(out, sig.map_or(&b""[..], |g| g.name()));
            out.extend_from_slice(b",\"members\":[");
            for (i, m) in s.iter(table).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"name\":");
                text(out, sig.and_then(|g| g.member_name(i)).unwrap_or(b""));
                out.extend_from_slice(b",\"value\":");
                value(out, &m?, table)?;
                out.push(b'}');
            }
            out.push(b']');
        }
        Value::Repr(r) => {
            head(out, b"repr");
            out.extend_from_slice(b",\"human\":");
            value(out, &r.human(table)?, table)?;
            out.extend_from_slice(b",\"machine\":");
            value(out, &r.machine(table)?, table)?;
        }
    }
    out.push(b'}');
    Ok(())
}

/// Appends the JSON object that heads `tracecap dump --json`: `format` (`"apitrace"`),
/// `version`, `semantic_version`, `container` (its [`Container::name`]) and `properties` (see
/// [`properties`]).
pub fn head<'p>(
    out: &mut Vec<u8>,
    container: Container,
    version: u64,
    semantic_version: u64,
    props: impl IntoIterator<Item = (&'p [u8], &'p [u8])>,
) {
    out.extend_from_slice(b"{\"format\":\"apitrace\",\"version\":");
    unsigned(out, version);
    out.extend_from_slice(b",\"semantic_version\":");
    unsigned(out, semantic_version);
    out.extend_from_slice(b",\"container\":");
    text(out, container.name().as_bytes());
    out.extend_from_slice(b",\"properties\":");
    properties(out, props);
    out.push(b'}');
}

/// Appends the header properties as one JSON object, names and values as text, in stream
/// order; a later property of the same name (as text) replaces the earlier one's value, in the
/// earlier one's place.
pub fn properties<'p>(out: &mut Vec<u8>, props: impl IntoIterator<Item = (&'p [u8], &'p [u8])>) {
    // Gathered as text first (once per file, not per call), to put each name once; the map
    // keeps that linear in the number of properties a crafted header may hold.
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for (name, v) in props {
        let name = String::from_utf8_lossy(name).into_owned();
        let v = String::from_utf8_lossy(v).into_owned();
        match at.get(&name).and_then(|&i| kept.get_mut(i)) {
            Some(p) => p.1 = v,
            None => {
                at.insert(name.clone(), kept.len());
                kept.push((name, v));
            }
        }
    }
    out.push(b'{');
    for (i, (name, v)) in kept.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, name);
        out.push(b':');
        string(out, v);
    }
    out.push(b'}');
}

fn boolean(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

/// An unsigned integer in decimal.
fn unsigned(out: &mut Vec<u8>, mut x: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (x % 10) as u8;
        }
        x /= 10;
        if x == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(at..).unwrap_or_default());
}

/// A signed integer in decimal.
fn signed(out: &mut Vec<u8>, x: i64) {
    if x < 0 {
        out.push(b'-');
    }
    unsigned(out, x.unsigned_abs());
}

fn opt_unsigned(out: &mut Vec<u8>, x: Option<u64>) {
    match x {
        Some(x) => unsigned(out, x),
        None => out.extend_from_slice(b"null"),
    }
}

/// A float as serde_json writes it: shortest round trip (`1.0`, `1e+20`), `null` when not
/// finite.
fn float(out: &mut Vec<u8>, x: f64) {
    match serde_json::Number::from_f64(x) {
        // Writing to a Vec cannot fail.
        Some(n) => {
            let _ = fmt::Write::write_fmt(&mut Bytes(out), format_args!("{n}"));
        }
        None => out.extend_from_slice(b"null"),
    }
}

/// A byte buffer that `core::fmt` writes into.
struct Bytes<'o>(&'o mut Vec<u8>);

impl fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Bytes from the file as a JSON string, each invalid UTF-8 sequence as U+FFFD.
fn text(out: &mut Vec<u8>, bytes: &[u8]) {
    tracecap_wire::json::lossy(bytes, |piece| out.extend_from_slice(piece.as_bytes()));
}

fn opt_text(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        Some(b) => text(out, b),
        None => out.extend_from_slice(b"null"),
    }
}

/// Text as a JSON string.
fn string(out: &mut Vec<u8>, s: &str) {
    tracecap_wire::json::string(s, |piece| out.extend_from_slice(piece.as_bytes()));
}

/// A wide string's text as a JSON string: UTF-16 when any unit is a surrogate (each unit taken
/// as its low 16 bits, an unpaired surrogate as U+FFFD), else one code point per unit (U+FFFD
/// for a unit that is none).
fn wide_text(out: &mut Vec<u8>, units: impl Iterator<Item = u64> + Clone) {
    let put = |out: &mut Vec<u8>, c: char| {
        let mut utf8 = [0u8; 4];
        escaped(out, c.encode_utf8(&mut utf8));
    };
    out.push(b'"');
    if units.clone().any(|u| (0xd800..=0xdfff).contains(&u)) {
        for c in char::decode_utf16(units.map(|u| u as u16)) {
            put(out, c.unwrap_or(char::REPLACEMENT_CHARACTER));
        }
    } else {
        for u in units {
            let c = u32::try_from(u).ok().and_then(char::from_u32);
            put(out, c.unwrap_or(char::REPLACEMENT_CHARACTER));
        }
    }
    out.push(b'"');
}

/// The inside of a JSON string for `s` (the shared escaping of `tracecap_wire::json`).
fn escaped(out: &mut Vec<u8>, s: &str) {
    tracecap_wire::json::escaped(s, |piece| out.extend_from_slice(piece.as_bytes()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy(b: &[u8]) -> String {
        serde_json::to_string(&String::from_utf8_lossy(b)).unwrap()
    }

    #[test]
    fn text_is_escaped_as_serde_json_escapes_from_utf8_lossy() {
        let cases: [&[u8]; 9] = [
            b"plain",
            b"q\"\\/\n\r\t\x08\x0c\x01\x1f\x7f",
            b"\x00",
            b"\xff",
            b"a\xc3",
            b"\xe2\x82x\"\xf0\x9f\x98",
            b"\xed\xa0\x80 surrogate",
            "ok \u{e9} \u{1f600}".as_bytes(),
            b"",
        ];
        for b in cases {
            let mut out = Vec::new();
            text(&mut out, b);
            assert_eq!(String::from_utf8(out).unwrap(), lossy(b), "{b:?}");
        }
    }

    #[test]
    fn numbers_are_serde_jsons() {
        for x in [0u64, 1, 9, 10, 99, 100, 12345, u64::MAX] {
            let mut out = Vec::new();
            unsigned(&mut out, x);
            assert_eq!(out, serde_json::to_vec(&x).unwrap());
        }
        for x in [0i64, -1, 7, -10, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            signed(&mut out, x);
            assert_eq!(out, serde_json::to_vec(&x).unwrap());
        }
        for (x, want) in [
            (1.0, "1.0"),
            (1e20, "1e+20"),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
        ] {
            let mut out = Vec::new();
            float(&mut out, x);
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    #[test]
    fn wide_strings_are_code_points_or_utf16() {
        let cases: [(&[u64], &str); 5] = [
            (&[0x68, 0x69], "hi"),
            (&[0x1f600, 0x0a], "\u{1f600}\n"),
            (&[0x11_0000, 0x41], "\u{fffd}A"),
            (&[0xd83d, 0xde00, 0x22], "\u{1f600}\""),
            (&[0xd83d, 0x41, 0x1_0041], "\u{fffd}AA"),
        ];
        for (units, want) in cases {
            let mut out = Vec::new();
            wide_text(&mut out, units.iter().copied());
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(want).unwrap(),
                "{units:x?}"
            );
        }
    }

    #[test]
    fn properties_keep_the_first_place_and_the_last_value() {
        let mut out = Vec::new();
        let props: [(&[u8], &[u8]); 4] =
            [(b"a", b"1"), (b"b\n", b"\xff"), (b"a", b"3"), (b"c", b"")];
        head(&mut out, Container::Zstd, 6, 2, props);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"format":"apitrace","version":6,"semantic_version":2,"container":"zstd","properties":{"a":"3","b\n":"�","c":""}}"#
        );
    }

    /// The calls of a stream, as [`call`] writes them, one line each: those a LEAVE completes,
    /// then those never left (with a file offset of 7).
    #[cfg(feature = "write")]
    fn lines(stream: &[u8]) -> Vec<String> {
        let s = crate::Stream::parse(stream).unwrap();
        let mut events = s.events();
        let mut calls = crate::Calls::new();
        let mut out = Vec::new();
        while let Some(ev) = events.next() {
            if let Some(c) = calls.push(&ev.unwrap(), events.table()).unwrap() {
                call(&mut out, &c, events.table(), None).unwrap();
                out.push(b'\n');
            }
        }
        let table = events.table();
        for c in calls.finish() {
            call(&mut out, &c, table, Some(7)).unwrap();
            out.push(b'\n');
        }
        let text = String::from_utf8(out).unwrap();
        text.lines().map(String::from).collect()
    }

    #[cfg(feature = "write")]
    #[test]
    fn every_value_kind() {
        use crate::write::{WDetail, WValue, Writer};
        let cases = [
            (WValue::Null, r#"{"type":"null"}"#),
            (WValue::Bool(true), r#"{"type":"bool","value":true}"#),
            (WValue::SInt(-5), r#"{"type":"sint","value":-5}"#),
            (WValue::UInt(7), r#"{"type":"uint","value":7}"#),
            (WValue::Float(0.5), r#"{"type":"float","value":0.5}"#),
            (WValue::Double(1e20), r#"{"type":"double","value":1e+20}"#),
            (
                WValue::Double(f64::INFINITY),
                r#"{"type":"double","value":null}"#,
            ),
            (
                WValue::String(b"x\x01\xff\"".to_vec()),
                "{\"type\":\"string\",\"value\":\"x\\u0001\u{fffd}\\\"\"}",
            ),
            (
                WValue::WString(vec![0xd83d, 0xde00]),
                "{\"type\":\"wstring\",\"value\":\"\u{1f600}\"}",
            ),
            (
                WValue::WString(vec![0x41, 0x11_0000, 0x09]),
                "{\"type\":\"wstring\",\"value\":\"A\u{fffd}\\t\"}",
            ),
            (WValue::Blob(vec![1, 2, 3]), r#"{"type":"blob","size":3}"#),
            (
                WValue::Pointer(0xdead),
                r#"{"type":"pointer","value":57005}"#,
            ),
            (
                WValue::Enum { sig: 0, value: 1 },
                r#"{"type":"enum","value":1,"name":"GL_TRUE"}"#,
            ),
            (
                WValue::Enum { sig: 0, value: -9 },
                r#"{"type":"enum","value":-9,"name":null}"#,
            ),
            (
                WValue::Bitmask { sig: 0, value: 0 },
                r#"{"type":"bitmask","value":0,"flags":["ZERO"],"rest":0}"#,
            ),
            (
                WValue::Bitmask {
                    sig: 0,
                    value: 0x0f,
                },
                r#"{"type":"bitmask","value":15,"flags":["X","Y"],"rest":8}"#,
            ),
            (
                WValue::Array(vec![WValue::UInt(1), WValue::SInt(-1)]),
                r#"{"type":"array","values":[{"type":"uint","value":1},{"type":"sint","value":-1}]}"#,
            ),
            (
                WValue::Struct {
                    sig: 0,
                    members: vec![WValue::UInt(1), WValue::Null],
                },
                r#"{"type":"struct","name":"S","members":[{"name":"m","value":{"type":"uint","value":1}},{"name":"n","value":{"type":"null"}}]}"#,
            ),
            (
                WValue::Repr(
                    Box::new(WValue::UInt(2)),
                    Box::new(WValue::String(b"two".to_vec())),
                ),
                r#"{"type":"repr","human":{"type":"uint","value":2},"machine":{"type":"string","value":"two"}}"#,
            ),
        ];
        let mut w = Writer::new(6, 6, &[]);
        w.function(1, b"f", &[b"x"]);
        w.enum_sig(0, &[(b"GL_TRUE", 1), (b"GL_ONE", 1)]);
        w.bitmask_sig(0, &[(b"ZERO", 0), (b"X", 1), (b"Y", 6)]);
        w.struct_sig(0, b"S", &[b"m", b"n"]);
        for (v, _) in &cases {
            let no = w.enter(0, 1, &[WDetail::Arg(0, v.clone())]);
            w.leave(no, &[]);
        }
        let lines = lines(&w.finish());
        assert_eq!(lines.len(), cases.len());
        for (i, ((_, want), line)) in cases.iter().zip(&lines).enumerate() {
            let head = format!(r#"{{"no":{i},"thread":0,"name":"f","args":[{{"name":"x","value":"#);
            let tail = r#"}],"ret":null,"flags":{"fake":false,"incomplete":false,"end_frame":false},"backtrace":null,"offset":"#;
            let rest = line.strip_prefix(&head).unwrap();
            let (value, rest) = rest.split_at(want.len());
            assert_eq!(value, *want);
            let offset = rest.strip_prefix(tail).unwrap().strip_suffix('}').unwrap();
            assert!(offset.parse::<u64>().is_ok(), "{line}");
        }
    }

    #[cfg(feature = "write")]
    #[test]
    fn calls_with_every_part() {
        use crate::write::{WDetail, WFrame, WValue, Writer};
        let mut w = Writer::new(6, 6, &[]);
        w.function(0, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
        w.function(1, b"g\xff", &[]);
        w.frame(
            0,
            WFrame {
                module: Some(b"libGL.so".to_vec()),
                function: Some(b"swap\n".to_vec()),
                filename: None,
                line: Some(12),
                offset: Some(0x40),
            },
        );
        w.frame(1, WFrame::default());
        let no = w.enter(
            3,
            0,
            &[
                WDetail::Arg(0, WValue::UInt(1)),
                WDetail::Arg(3, WValue::SInt(-2)),
                WDetail::Backtrace(vec![0, 1]),
            ],
        );
        w.leave(
            no,
            &[
                WDetail::Arg(0, WValue::UInt(5)),
                WDetail::Ret(WValue::Bool(false)),
                WDetail::Flags(1),
            ],
        );
        w.enter(1, 1, &[]);
        let lines = lines(&w.finish());
        let offset = |line: &str| line.rsplit_once("\"offset\":").unwrap().1.to_string();
        assert_eq!(
            lines[0],
            format!(
                "{}{}",
                r#"{"no":0,"thread":3,"name":"glXSwapBuffers","args":[{"name":"dpy","value":{"type":"uint","value":5}},{"name":"drawable","value":null},{"name":"","value":null},{"name":"","value":{"type":"sint","value":-2}}],"ret":{"type":"bool","value":false},"flags":{"fake":true,"incomplete":false,"end_frame":true},"backtrace":[{"module":"libGL.so","function":"swap\n","file":null,"line":12,"offset":64},{"module":null,"function":null,"file":null,"line":null,"offset":null}],"offset":"#,
                offset(&lines[0])
            )
        );
        assert_eq!(
            lines[1],
            format!(
                "{}{}",
                "{\"no\":1,\"thread\":1,\"name\":\"g\u{fffd}\",\"args\":[],\"ret\":null,\"flags\":{\"fake\":false,\"incomplete\":true,\"end_frame\":false},\"backtrace\":null,\"offset\":",
                offset(&lines[1])
            )
        );
        assert!(lines[1].ends_with(",\"file_offset\":7}"));
        assert_eq!(lines.len(), 2);
    }
}
