//! Each part of a capture as one JSON object (feature `json`): the lines of `tracecap dump
//! --json`, and the `data` of a value that the per-format table keeps.
//!
//! Every function appends to a `String` the caller owns and reuses, and allocates nothing else.
//! Members come in a fixed order; times are given in the file's unit (`begin`, `end`, `time`) and
//! in nanoseconds (`*_ns`, through [`Header::to_ns`]). Text from the file (names, a `String`
//! value) becomes a JSON string with each invalid UTF-8 sequence replaced by U+FFFD, as
//! `String::from_utf8_lossy` replaces them, and escaped as serde_json escapes: `\"`, `\\`, the
//! short escapes `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00xx` for the other control characters.
//! Numbers are written as serde_json writes them: integers in decimal, a float in its shortest
//! form that reads back to the same double (`1.0`, `1e+20`), `null` when it is not finite.
//!
//! ```
//! use tracecap_easyprofiler::{json, Capture};
//!
//! # fn main() -> Result<(), tracecap_easyprofiler::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
//! # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
//! let capture = Capture::parse(&bytes)?;
//! let mut line = String::new();
//! json::header(capture.header(), &mut line);
//! assert!(line.starts_with(r#"{"format":"easyprofiler","version":"#));
//! # Ok(())
//! # }
//! ```

use alloc::string::String;
use core::fmt::Write;

use crate::bookmark::Bookmark;
use crate::context_switch::ContextSwitch;
use crate::descriptor::Descriptor;
use crate::header::Header;
use crate::record::{Block, Value};
use crate::thread::Thread;
use crate::value::Element;

/// The header: `{"format":"easyprofiler","version":..,"pid":..,"cpu_frequency":..,"begin":..,
/// "end":..,"begin_ns":..,"end_ns":..}`, the version as text (`"2.1.0"`), the pid `null` in
/// versions without one.
pub fn header(h: &Header, out: &mut String) {
    let mut o = Object::begin(out);
    o.field("format", Str("easyprofiler"));
    o.key("version");
    let _ = write!(o.out, "\"{}\"", h.version);
    o.field("pid", h.pid)
        .field("cpu_frequency", h.cpu_frequency)
        .field("begin", h.begin_time)
        .field("end", h.end_time)
        .field("begin_ns", h.begin_ns())
        .field("end_ns", h.end_ns())
        .end();
}

/// A descriptor: `{"kind":"descriptor","offset":..,"id":..,"line":..,"color":..,"type":..,
/// "status":..,"name":..,"file":..}`, its kind's name as `type`.
pub fn descriptor(d: &Descriptor<'_>, out: &mut String) {
    Object::begin(out)
        .field("kind", Str("descriptor"))
        .field("offset", d.offset)
        .field("id", d.id)
        .field("line", d.line)
        .field("color", d.color)
        .field("type", Str(d.kind.name()))
        .field("status", d.status)
        .field("name", Lossy(d.name))
        .field("file", Lossy(d.file))
        .end();
}

/// A thread's head: `{"kind":"thread","offset":..,"id":..,"name":..}`.
pub fn thread(t: &Thread<'_>, out: &mut String) {
    Object::begin(out)
        .field("kind", Str("thread"))
        .field("offset", t.offset)
        .field("id", t.id)
        .field("name", Lossy(t.name))
        .end();
}

/// A context switch of the thread whose id is `thread`: `{"kind":"context_switch","offset":..,
/// "thread":..,"begin":..,"end":..,"begin_ns":..,"end_ns":..,"target_thread":..,"name":..}`.
pub fn context_switch(h: &Header, thread: u64, cs: &ContextSwitch<'_>, out: &mut String) {
    Object::begin(out)
        .field("kind", Str("context_switch"))
        .field("offset", cs.offset)
        .field("thread", thread)
        .field("begin", cs.begin)
        .field("end", cs.end)
        .field("begin_ns", h.to_ns(cs.begin))
        .field("end_ns", h.to_ns(cs.end))
        .field("target_thread", cs.target_thread)
        .field("name", Lossy(cs.name))
        .end();
}

/// A block or event of the thread whose id is `thread`, `depth` blocks deep:
/// `{"kind":"block"|"event","offset":..,"thread":..,"begin":..,"end":..,"begin_ns":..,
/// "end_ns":..,"id":..,"name":..,"depth":..}`, `name` the record's own (often empty: the
/// descriptor's is not looked up).
pub fn block(h: &Header, thread: u64, b: &Block<'_>, depth: u32, out: &mut String) {
    Object::begin(out)
        .field("kind", Str(if b.is_event() { "event" } else { "block" }))
        .field("offset", b.offset)
        .field("thread", thread)
        .field("begin", b.begin)
        .field("end", b.end)
        .field("begin_ns", h.to_ns(b.begin))
        .field("end_ns", h.to_ns(b.end))
        .field("id", b.id)
        .field("name", Lossy(b.name))
        .field("depth", depth)
        .end();
}

/// A value of the thread whose id is `thread`: `{"kind":"value","offset":..,"thread":..,
/// "time":..,"time_ns":..,"id":..,"value_id":..,"type":..,"array":..,"data":..}`, `data` as
/// [`value_data`] writes it.
pub fn value(h: &Header, thread: u64, v: &Value<'_>, out: &mut String) {
    let mut o = Object::begin(out);
    o.field("kind", Str("value"))
        .field("offset", v.offset)
        .field("thread", thread)
        .field("time", v.time)
        .field("time_ns", h.to_ns(v.time))
        .field("id", v.id)
        .field("value_id", v.value_id)
        .field("type", Str(v.data_type.name()))
        .field("array", v.is_array)
        .key("data");
    value_data(v, o.out);
    o.end();
}

/// A value's data as a JSON array: its elements as numbers or booleans ([`element`]), or, for a
/// `String` value, its text as one string (`["text"]`, every byte stored, a trailing NUL
/// included).
pub fn value_data(v: &Value<'_>, out: &mut String) {
    out.push('[');
    if let Some(text) = v.string_bytes() {
        Lossy(text).write(out);
    } else {
        for (i, e) in v.elements().enumerate() {
            if i > 0 {
                out.push(',');
            }
            element(e, out);
        }
    }
    out.push(']');
}

/// One element of a value: `true`/`false` for a `Bool`, an integer for the integer types (a
/// `Char` as its signed number), a float for `Double`, and for `Float` the double it widens to
/// (`0.10000000149011612`); `null` for a float that is not finite.
pub fn element(e: Element, out: &mut String) {
    match e {
        Element::Bool(x) => x.write(out),
        Element::Char(x) | Element::Int8(x) => x.write(out),
        Element::Uint8(x) => x.write(out),
        Element::Int16(x) => x.write(out),
        Element::Uint16(x) => x.write(out),
        Element::Int32(x) => x.write(out),
        Element::Uint32(x) => x.write(out),
        Element::Int64(x) => x.write(out),
        Element::Uint64(x) => x.write(out),
        Element::Float(x) => f64::from(x).write(out),
        Element::Double(x) => x.write(out),
    }
}

/// A bookmark: `{"kind":"bookmark","offset":..,"position":..,"color":..,"text":..}`.
pub fn bookmark(b: &Bookmark<'_>, out: &mut String) {
    Object::begin(out)
        .field("kind", Str("bookmark"))
        .field("offset", b.offset)
        .field("position", b.position)
        .field("color", b.color)
        .field("text", Lossy(b.text))
        .end();
}

/// Bytes from the file as a JSON string: each invalid UTF-8 sequence replaced by U+FFFD, then
/// escaped.
pub fn string(bytes: &[u8], out: &mut String) {
    Lossy(bytes).write(out);
}

/// An object being written: its members after the first get their commas.
struct Object<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Object<'o> {
    fn begin(out: &'o mut String) -> Self {
        out.push('{');
        Object { out, first: true }
    }

    /// The key of the next member (a name of this module's, which needs no escaping); its
    /// value follows.
    fn key(&mut self, name: &str) -> &mut Self {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(name);
        self.out.push_str("\":");
        self
    }

    fn field(&mut self, name: &str, value: impl Json) -> &mut Self {
        self.key(name);
        value.write(self.out);
        self
    }

    fn end(&mut self) {
        self.out.push('}');
    }
}

/// A value this module writes.
trait Json {
    fn write(&self, out: &mut String);
}

macro_rules! integers {
    ($($t:ty)*) => {$(
        impl Json for $t {
            #[inline]
            fn write(&self, out: &mut String) {
                // Writing to a String cannot fail.
                let _ = write!(out, "{self}");
            }
        }
    )*};
}

integers!(u8 u16 u32 u64 i8 i16 i32 i64);

/// serde_json's own float printing (its `Number` displays as it serializes), `null` when not
/// finite.
impl Json for f64 {
    fn write(&self, out: &mut String) {
        match serde_json::Number::from_f64(*self) {
            Some(n) => {
                let _ = write!(out, "{n}");
            }
            None => out.push_str("null"),
        }
    }
}

impl Json for bool {
    #[inline]
    fn write(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl<T: Json> Json for Option<T> {
    #[inline]
    fn write(&self, out: &mut String) {
        match self {
            Some(v) => v.write(out),
            None => out.push_str("null"),
        }
    }
}

/// A name of this crate's own (a kind, a type), escaped all the same.
struct Str<'s>(&'s str);

impl Json for Str<'_> {
    fn write(&self, out: &mut String) {
        tracecap_wire::json::string(self.0, |piece| out.push_str(piece));
    }
}

/// Bytes from the file, as [`string`] writes them.
struct Lossy<'b>(&'b [u8]);

impl Json for Lossy<'_> {
    fn write(&self, out: &mut String) {
        tracecap_wire::json::lossy(self.0, |piece| out.push_str(piece));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::DescriptorKind;
    use crate::value::DataType;
    use crate::version::Version;

    fn json(f: impl FnOnce(&mut String)) -> String {
        let mut s = String::new();
        f(&mut s);
        s
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let all: String = (0u8..0x80).map(char::from).collect();
        let text = format!("q\"\\/{all}é\u{fffd}\u{1f600}");
        assert_eq!(
            json(|s| string(text.as_bytes(), s)),
            serde_json::to_string(&text).unwrap() // ok: test
        );
        assert_eq!(
            json(|s| string(b"a\x01\x1fb\x7f\x08\x0c\n\r\t", s)),
            "\"a\\u0001\\u001fb\x7f\\b\\f\\n\\r\\t\""
        );
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters_as_from_utf8_lossy() {
        let cases: [&[u8]; 7] = [
            b"",
            b"\xff",
            b"a\xc3",
            b"\xe2\x82x\"\xf0\x9f\x98",
            b"\xed\xa0\x80 surrogate\n",
            b"\xc0\x80\x00",
            "ok é \u{1f600}".as_bytes(),
        ];
        for b in cases {
            let want = serde_json::to_string(&String::from_utf8_lossy(b)).unwrap(); // ok: test
            assert_eq!(json(|s| string(b, s)), want, "{b:?}");
        }
        assert_eq!(json(|s| string(b"x\xffy", s)), "\"x\u{fffd}y\"");
    }

    #[test]
    fn header_with_and_without_pid() {
        let h = Header::with_times(Version::V2_1_0, Some(42), 0, 10, 250);
        assert_eq!(
            json(|s| header(&h, s)),
            r#"{"format":"easyprofiler","version":"2.1.0","pid":42,"cpu_frequency":0,"begin":10,"end":250,"begin_ns":10,"end_ns":250}"#
        );
        let h = Header::with_times(Version::V1_0_0, None, 2_000_000_000, 10, 250);
        assert_eq!(
            json(|s| header(&h, s)),
            r#"{"format":"easyprofiler","version":"1.0.0","pid":null,"cpu_frequency":2000000000,"begin":10,"end":250,"begin_ns":5,"end_ns":125}"#
        );
    }

    #[test]
    fn descriptor_thread_switch_and_bookmark() {
        let d = Descriptor {
            offset: 7,
            index: 0,
            id: 3,
            line: -1,
            color: 0xff00_00ff,
            kind: DescriptorKind::Value,
            status: 1,
            name: b"n\"ame",
            file: b"f\xffile.cpp",
            empty: false,
        };
        assert_eq!(
            json(|s| descriptor(&d, s)),
            "{\"kind\":\"descriptor\",\"offset\":7,\"id\":3,\"line\":-1,\"color\":4278190335,\"type\":\"value\",\"status\":1,\"name\":\"n\\\"ame\",\"file\":\"f\u{fffd}ile.cpp\"}"
        );
        let b = Bookmark {
            offset: 9,
            position: u64::MAX,
            color: 0,
            text: b"line\none",
        };
        assert_eq!(
            json(|s| bookmark(&b, s)),
            r#"{"kind":"bookmark","offset":9,"position":18446744073709551615,"color":0,"text":"line\none"}"#
        );
        let h = Header::with_times(Version::V2_1_0, Some(1), 1_000_000_000, 0, 0);
        let cs = ContextSwitch {
            offset: 100,
            begin: 20,
            end: 30,
            target_thread: 5,
            name: b"\tproc",
        };
        assert_eq!(
            json(|s| context_switch(&h, 77, &cs, s)),
            r#"{"kind":"context_switch","offset":100,"thread":77,"begin":20,"end":30,"begin_ns":20,"end_ns":30,"target_thread":5,"name":"\tproc"}"#
        );
    }

    #[test]
    fn blocks_and_events() {
        let h = Header::with_times(Version::V2_1_0, Some(1), 2_000_000_000, 0, 0);
        let mut b = Block {
            offset: 64,
            begin: 100,
            end: 300,
            id: 2,
            name: b"",
            kind: DescriptorKind::Block,
        };
        assert_eq!(
            json(|s| block(&h, 1, &b, 3, s)),
            r#"{"kind":"block","offset":64,"thread":1,"begin":100,"end":300,"begin_ns":50,"end_ns":150,"id":2,"name":"","depth":3}"#
        );
        b.kind = DescriptorKind::Event;
        b.name = b"\x00e";
        assert_eq!(
            json(|s| block(&h, 1, &b, 0, s)),
            r#"{"kind":"event","offset":64,"thread":1,"begin":100,"end":300,"begin_ns":50,"end_ns":150,"id":2,"name":"\u0000e","depth":0}"#
        );
    }

    fn value_of(data_type: DataType, is_array: bool, data: &[u8]) -> Value<'_> {
        Value {
            offset: 5,
            time: 40,
            id: 9,
            value_id: 11,
            data_type,
            is_array,
            data,
        }
    }

    #[test]
    fn values_of_every_type() {
        let h = Header::with_times(Version::V2_1_0, Some(1), 0, 0, 0);
        let v = value_of(
            DataType::Int32,
            true,
            &[1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 9],
        );
        assert_eq!(
            json(|s| value(&h, 4, &v, s)),
            r#"{"kind":"value","offset":5,"thread":4,"time":40,"time_ns":40,"id":9,"value_id":11,"type":"Int32","array":true,"data":[1,-2]}"#
        );
        let data_of = |ty, data: &[u8]| json(|s| value_data(&value_of(ty, false, data), s));
        assert_eq!(data_of(DataType::Bool, &[1, 0]), "[true,false]");
        assert_eq!(data_of(DataType::Char, &[0xff]), "[-1]");
        assert_eq!(data_of(DataType::Int8, &[0x80]), "[-128]");
        assert_eq!(data_of(DataType::Uint8, &[0xff]), "[255]");
        assert_eq!(data_of(DataType::Int16, &[0, 0x80]), "[-32768]");
        assert_eq!(data_of(DataType::Uint16, &[0xff, 0xff]), "[65535]");
        assert_eq!(data_of(DataType::Uint32, &[0xff; 4]), "[4294967295]");
        assert_eq!(data_of(DataType::Int64, &[0xff; 8]), "[-1]");
        assert_eq!(
            data_of(DataType::Uint64, &[0xff; 8]),
            "[18446744073709551615]"
        );
        assert_eq!(
            data_of(DataType::Float, &0.1f32.to_le_bytes()),
            "[0.10000000149011612]"
        );
        assert_eq!(data_of(DataType::Float, &f32::NAN.to_le_bytes()), "[null]");
        let mut two = 1.0f64.to_le_bytes().to_vec();
        two.extend_from_slice(&1e20f64.to_le_bytes());
        assert_eq!(data_of(DataType::Double, &two), "[1.0,1e+20]");
        assert_eq!(
            data_of(DataType::Double, &f64::NEG_INFINITY.to_le_bytes()),
            "[null]"
        );
        assert_eq!(data_of(DataType::Uint16, &[]), "[]");
        assert_eq!(
            data_of(DataType::String, b"a\"\xff\x00"),
            "[\"a\\\"\u{fffd}\\u0000\"]"
        );
    }

    #[test]
    fn floats_print_as_serde_json_prints_them() {
        let floats = [
            0.1,
            1.0,
            -0.0,
            1e20,
            1e16,
            1.5e-7,
            123456.789,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from(f32::MAX),
        ];
        for x in floats {
            assert_eq!(
                json(|s| element(Element::Double(x), s)),
                serde_json::to_string(&x).unwrap() // ok: test
            );
        }
    }
}
