//! The one JSON writer of `info --json` and `dump --json`.
//!
//! A [`JsonWriter`] builds a line in a reused buffer (no allocation per record once the buffer
//! has grown to the longest line) and writes it to the output at [`JsonWriter::end_line`]: a line
//! reaches the output whole, or not at all when the caller returns an error before ending it.
//! Separators are its business: every value after the first of an object or array gets its
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

/// How much a line may hold before [`JsonWriter::flush_full`] writes it out.
const FULL: usize = 64 << 10;

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

    /// Starts an object, as an array item or a top-level value.
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

    /// Starts an array, as an array item or a top-level value.
    pub fn begin_array(&mut self) -> &mut Self {
        self.separate();
        self.buf.push(b'[');
        self.comma = false;
        self
    }

    /// Ends the innermost array.
    pub fn end_array(&mut self) -> &mut Self {
        self.buf.push(b']');
        self.comma = true;
        self
    }

    /// Writes the key of the next member of the current object; its value follows
    /// ([`JsonWriter::item`], [`JsonWriter::begin_object`] or [`JsonWriter::begin_array`]).
    pub fn key(&mut self, key: &str) -> &mut Self {
        self.separate();
        escaped(&mut self.buf, key);
        self.buf.push(b':');
        self.comma = false;
        self
    }

    /// A member of the current object.
    pub fn field(&mut self, key: &str, value: impl ToJson) -> &mut Self {
        self.key(key).item(value)
    }

    /// A member of the current object whose value is an object, started here.
    pub fn object(&mut self, key: &str) -> &mut Self {
        self.key(key).begin_object()
    }

    /// A member of the current object whose value is an array, started here.
    pub fn array(&mut self, key: &str) -> &mut Self {
        self.key(key).begin_array()
    }

    /// A value: an item of the current array, or the value of the key just written.
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

    /// Writes out what the line holds so far once it is long (between the items of a long
    /// list, so that the buffer does not grow with the list).
    pub fn flush_full(&mut self) -> io::Result<()> {
        if self.buf.len() < FULL {
            return Ok(());
        }
        let r = self.out.write_all(&self.buf);
        self.buf.clear();
        r
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

fn escaped_contents(buf: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x0c => b'f',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0..=0x1f => 0,
            _ => continue,
        };
        buf.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        if short == 0 {
            buf.extend_from_slice(b"\\u00");
            buf.push(HEX[usize::from(b >> 4)]);
            buf.push(HEX[usize::from(b & 15)]);
        } else {
            buf.push(b'\\');
            buf.push(short);
        }
    }
    buf.extend_from_slice(&bytes[start..]);
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

/// Bytes as a JSON string, each invalid UTF-8 sequence replaced by U+FFFD (as
/// `String::from_utf8_lossy` does).
pub struct Lossy<'b>(pub &'b [u8]);

impl ToJson for Lossy<'_> {
    fn write_json(&self, buf: &mut Vec<u8>) {
        buf.push(b'"');
        for chunk in self.0.utf8_chunks() {
            escaped_contents(buf, chunk.valid());
            if !chunk.invalid().is_empty() {
                buf.extend_from_slice("\u{fffd}".as_bytes());
            }
        }
        buf.push(b'"');
    }
}

/// A float as Rust prints it (shortest round trip, never an exponent, no `.0` on integral
/// values: `1234`, `0.00003`), `null` when not finite.
pub struct Decimal<F>(pub F);

macro_rules! decimals {
    ($($t:ty)*) => {$(
        impl ToJson for Decimal<$t> {
            fn write_json(&self, buf: &mut Vec<u8>) {
                if self.0.is_finite() {
                    let _ = write!(buf, "{}", self.0);
                } else {
                    Null.write_json(buf);
                }
            }
        }
    )*};
}

decimals!(f32 f64);

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
        w.end_line().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn objects_and_arrays_get_their_commas() {
        let s = line(|w| {
            w.begin_object()
                .field("a", 1u8)
                .array("b")
                .item(-2i64)
                .item(true)
                .begin_object()
                .end_object()
                .begin_array()
                .end_array()
                .end_array()
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
            "{\"a\":1,\"b\":[-2,true,{},[]],\"c\":{\"d\":null,\"e\":null},\"f\":\"x\",\"g\":{\"h\":[]},\"i\":7}\n"
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
                w.begin_object().field(text, text).end_object();
            })
            .trim_end(),
            serde_json::json!({ text: text }).to_string()
        );
    }

    #[test]
    fn lossy_is_from_utf8_lossy() {
        let cases: [&[u8]; 6] = [
            b"plain",
            b"\xff",
            b"a\xc3",
            b"\xe2\x82x\"\xf0\x9f\x98",
            b"\xed\xa0\x80 surrogate",
            "ok é \u{1f600}".as_bytes(),
        ];
        for b in cases {
            let want = serde_json::to_string(&String::from_utf8_lossy(b)).unwrap();
            assert_eq!(
                line(|w| {
                    w.item(Lossy(b));
                })
                .trim_end(),
                want
            );
        }
    }

    #[test]
    fn decimals_print_as_display() {
        for x in [1234.0f32, 3e-5, 0.1, 1e30, -2.5] {
            assert_eq!(
                line(|w| {
                    w.item(Decimal(x));
                })
                .trim_end(),
                x.to_string()
            );
        }
        assert_eq!(
            line(|w| {
                w.item(Decimal(f32::NAN));
            }),
            "null\n"
        );
        assert_eq!(
            line(|w| {
                w.item(Decimal(1e21f64));
            })
            .trim_end(),
            "1000000000000000000000"
        );
    }

    #[test]
    fn a_line_is_written_at_its_end_only() {
        let mut out = Vec::new();
        {
            let mut w = JsonWriter::new(&mut out);
            w.begin_object().field("a", 1u8).end_object();
            w.end_line().unwrap();
            w.begin_object().field("cut", 2u8);
        }
        assert_eq!(out, b"{\"a\":1}\n");
    }
}
