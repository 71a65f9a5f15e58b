//! The one JSON writer of `dump --json`.
//!
//! A [`JsonWriter`] builds a line in a reused buffer (no allocation per record once the buffer
//! has grown to the longest line) and writes it to the output at [`JsonWriter::end_line`]: a line
//! reaches the output whole, or not at all when the caller returns an error before ending it.
//! Separators are its business: every value after the first of an object gets its
//! comma. Number formatting is serde_json's (shortest round-trip floats, non-finite floats as
//! `null`), and strings are escaped as serde_json escapes them; keys are written in the order they
//! are given.
//!
//! ```text
//! w.begin_object()
//!     .field("kind", "thread")
//!     .field("offset", t.offset)
//!     .field("name", Lossy(t.name))
//!     .end_object();
//! w.end_line()?;
//! ```

use std::fmt::Display;
use std::io::{self, Write};

/// Writes JSON values, one line at a time, to an output.
pub struct JsonWriter<'o> {
    out: &'o mut dyn Write,
    buf: Vec<u8>,
    /// Whether the next value or key needs a comma before it.
    comma: bool,
}

impl<'o> JsonWriter<'o> {
    /// A writer to `out` (buffered already or not: each line is one `write_all`).
    pub fn new(out: &'o mut dyn Write) -> Self {
        JsonWriter {
            out,
            buf: Vec::with_capacity(1024),
            comma: false,
        }
    }

    fn separate(&mut self) {
        if self.comma {
            self.buf.push(b',');
        }
    }

    /// Starts an object, as a top-level value or a member's.
    pub fn begin_object(&mut self) -> &mut Self {
        self.separate();
        self.buf.push(b'{');
        self.comma = false;
        self
    }

    /// Ends the innermost object.
    pub fn end_object(&mut self) -> &mut Self {
        self.buf.push(b'}');
        self.comma = true;
        self
    }

    /// Writes the key of the next member of the current object, a name of the program's own
    /// (`"offset"`), written as it is: it must need no escaping (checked in debug builds). Its
    /// value follows ([`JsonWriter::item`] or [`JsonWriter::begin_object`]).
    pub fn key(&mut self, name: &'static str) -> &mut Self {
        debug_assert!(
            !name.bytes().any(|b| ESCAPE[usize::from(b)] != 0),
            "the key {name:?} needs escaping: write it with key_escaped"
        );
        self.buf.reserve(name.len() + 4);
        self.separate();
        self.buf.push(b'"');
        self.buf.extend_from_slice(name.as_bytes());
        self.buf.extend_from_slice(b"\":");
        self.comma = false;
        self
    }

    /// Writes the key of the next member of the current object, a name from the file (an
    /// argument's, a property's), escaped.
    pub fn key_escaped(&mut self, key: &str) -> &mut Self {
        self.separate();
        escaped(&mut self.buf, key);
        self.buf.push(b':');
        self.comma = false;
        self
    }

    /// A member of the current object (its key as [`JsonWriter::key`] takes it).
    pub fn field(&mut self, name: &'static str, value: impl ToJson) -> &mut Self {
        self.key(name).item(value)
    }

    /// A member of the current object whose key is a name from the file, escaped.
    pub fn field_escaped(&mut self, key: &str, value: impl ToJson) -> &mut Self {
        self.key_escaped(key).item(value)
    }

    /// A member of the current object whose value is an object, started here.
    pub fn object(&mut self, name: &'static str) -> &mut Self {
        self.key(name).begin_object()
    }

    /// A value: a top-level one, or the value of the key just written.
    pub fn item(&mut self, value: impl ToJson) -> &mut Self {
        self.separate();
        value.write_json(&mut self.buf);
        self.comma = true;
        self
    }

    /// Text as it is, for text lines that show JSON values (WTF's `dump`); the value after it
    /// gets no comma.
    pub fn text(&mut self, text: std::fmt::Arguments<'_>) -> &mut Self {
        let _ = self.buf.write_fmt(text);
        self.comma = false;
        self
    }

    /// Ends the line: writes it and a newline to the output.
    pub fn end_line(&mut self) -> io::Result<()> {
        self.buf.push(b'\n');
        self.comma = false;
        let r = self.out.write_all(&self.buf);
        self.buf.clear();
        r
    }

    /// Writes out what the line holds so far and flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        let r = self.out.write_all(&self.buf);
        self.buf.clear();
        r.and_then(|()| self.out.flush())
    }
}

/// The JSON of one value, for text that shows it.
pub fn to_string(value: impl ToJson) -> String {
    let mut buf = Vec::new();
    value.write_json(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// A value [`JsonWriter`] can write.
pub trait ToJson {
    /// Appends the value's JSON to `buf`.
    fn write_json(&self, buf: &mut Vec<u8>);
}

/// `s` as a JSON string, escaped as serde_json escapes: `\"`, `\\`, the short escapes of
/// backspace, form feed, newline, carriage return and tab, `\u00xx` for the other control
/// characters, everything else as it is.
fn escaped(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    escaped_contents(buf, s);
    buf.push(b'"');
}

/// What a byte becomes inside a JSON string: 0 for itself, `u` for `\u00xx`, else the letter of
/// its short escape.
const ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[0x08] = b'b';
    t[0x0c] = b'f';
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Whether one of the eight bytes of `x` needs an escape (a control character, `"` or `\`).
#[inline]
fn word_needs_escape(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below n (n <= 0x80) sets its high bit in (x - n * ONES) & !x.
    let below = |x: u64, n: u64| x.wrapping_sub(n * ONES) & !x & HIGH;
    below(x, 0x20)
        | below(x ^ (u64::from(b'"') * ONES), 1)
        | below(x ^ (u64::from(b'\\') * ONES), 1)
        != 0
}

fn escaped_contents(buf: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    // Bytes before `done` are in `buf`; `i` is the next byte to look at.
    let mut done = 0;
    let mut i = 0;
    loop {
        // Eight bytes at a time while none needs an escape.
        while let Some((word, _)) = bytes.get(i..).and_then(|r| r.split_first_chunk::<8>()) {
            if word_needs_escape(u64::from_le_bytes(*word)) {
                break;
            }
            i += 8;
        }
        let Some(&b) = bytes.get(i) else { break };
        let escape = ESCAPE[usize::from(b)];
        i += 1;
        if escape == 0 {
            continue;
        }
        buf.extend_from_slice(bytes.get(done..i - 1).unwrap_or_default());
        done = i;
        if escape == b'u' {
            buf.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]);
        } else {
            buf.extend_from_slice(&[b'\\', escape]);
        }
    }
    buf.extend_from_slice(bytes.get(done..).unwrap_or_default());
}

/// Writing to a `Vec` cannot fail, and serde_json fails only on values not written here (maps
/// with keys that are not strings), so its result is not looked at.
macro_rules! serde_number {
    ($buf:expr, $value:expr) => {
        let _ = serde_json::to_writer(&mut *$buf, $value);
    };
}

macro_rules! integers {
    ($($t:ty)*) => {$(
        impl ToJson for $t {
            #[inline]
            fn write_json(&self, buf: &mut Vec<u8>) {
                serde_number!(buf, self);
            }
        }
    )*};
}

integers!(u8 u16 u32 u64 usize i8 i16 i32 i64 isize);

/// A float in its shortest round-trip form (`1.0`, `1e20`), `null` when not finite.
impl ToJson for f64 {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        serde_number!(buf, self);
    }
}

impl ToJson for bool {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(if *self { b"true" } else { b"false" });
    }
}

/// A string.
impl ToJson for str {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        escaped(buf, self);
    }
}

impl ToJson for String {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        escaped(buf, self);
    }
}

impl ToJson for std::borrow::Cow<'_, str> {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        escaped(buf, self);
    }
}

/// `null`.
pub struct Null;

impl ToJson for Null {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(b"null");
    }
}

/// The value, or `null`.
impl<T: ToJson> ToJson for Option<T> {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        match self {
            Some(v) => v.write_json(buf),
            None => Null.write_json(buf),
        }
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        (**self).write_json(buf);
    }
}

/// Text that is already JSON (a format crate's own conversion), written as it is.
pub struct Raw<'s>(pub &'s str);

impl ToJson for Raw<'_> {
    #[inline]
    fn write_json(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(self.0.as_bytes());
    }
}

/// A JSON value parsed from the file (WTF's header) or made by a format crate's own
/// conversion (WTF's arguments).
impl ToJson for serde_json::Value {
    fn write_json(&self, buf: &mut Vec<u8>) {
        serde_number!(buf, self);
    }
}

/// Something that prints itself (a version, an error) as a JSON string.
pub struct Text<T>(pub T);

impl<T: Display> ToJson for Text<T> {
    fn write_json(&self, buf: &mut Vec<u8>) {
        escaped(buf, &self.0.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(f: impl FnOnce(&mut JsonWriter<'_>)) -> String {
        let mut out = Vec::new();
        let mut w = JsonWriter::new(&mut out);
        f(&mut w);
        w.end_line().unwrap(); // ok: test, writing to a Vec
        String::from_utf8(out).unwrap() // ok: test
    }

    #[test]
    fn objects_get_their_commas() {
        let s = line(|w| {
            w.begin_object()
                .field("a", 1u8)
                .object("b")
                .field("x", -2i64)
                .field("y", true)
                .object("z")
                .end_object()
                .end_object()
                .object("c")
                .field("d", Null)
                .field("e", None::<u32>)
                .end_object()
                .field("f", "x")
                .key("g")
                .item(Raw("{\"h\":[]}"))
                .field("i", Raw("7"))
                .end_object();
        });
        assert_eq!(
            s,
            "{\"a\":1,\"b\":{\"x\":-2,\"y\":true,\"z\":{}},\"c\":{\"d\":null,\"e\":null},\"f\":\"x\",\"g\":{\"h\":[]},\"i\":7}\n"
        );
    }

    #[test]
    fn values_print_as_serde_json_prints_them() {
        let floats = [0.1, 1.0, 1e20, -0.0, 1.5e-7, f64::MAX, f64::MIN_POSITIVE];
        for x in floats {
            let s = line(|w| {
                w.item(x);
            });
            assert_eq!(s.trim_end(), serde_json::json!(x).to_string());
        }
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                line(|w| {
                    w.item(x);
                }),
                "null\n"
            );
        }
        let text = "q\"\\/\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}é\u{fffd}";
        assert_eq!(
            line(|w| {
                w.begin_object().field_escaped(text, text).end_object();
            })
            .trim_end(),
            serde_json::json!({ text: text }).to_string()
        );
    }

    #[test]
    fn a_line_is_written_at_its_end_only() {
        let mut out = Vec::new();
        {
            let mut w = JsonWriter::new(&mut out);
            w.begin_object().field("a", 1u8).end_object();
            w.end_line().unwrap(); // ok: test-only
            w.begin_object().field("cut", 2u8);
        }
        assert_eq!(out, b"{\"a\":1}\n");
    }
}
