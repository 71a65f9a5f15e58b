//! Argument values: decoding the 4-byte slots of chunked files and the packed big-endian fields
//! of legacy files, without copying.

use tracecap_wire::{Context, Reader};

use crate::error::{Error, ErrorKind};
use crate::signature::{code, ArgType, Signature};
use crate::strings::{StringTable, NULL_ORDINAL};

/// A string argument as stored: nothing is resolved or copied until asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Str<'a> {
    /// The null string.
    Null,
    /// An ordinal into the chunk's string table ([`crate::EMPTY_ORDINAL`] is the empty string).
    Ordinal(u32),
    /// Bytes stored in place (legacy files): ASCII for `ascii`, UTF-8 (with surrogates encoded as
    /// 3-byte sequences) for `utf8` and `any`.
    Inline(&'a [u8]),
}

impl<'a> Str<'a> {
    /// The bytes, resolving an ordinal against `table`; `None` for null (or a missing ordinal).
    pub fn resolve(self, table: &StringTable<'a>) -> Option<&'a [u8]> {
        match self {
            Str::Null => None,
            Str::Ordinal(n) => table.resolve(n),
            Str::Inline(b) => Some(b),
        }
    }

    fn from_ordinal(n: u32) -> Self {
        if n == NULL_ORDINAL {
            Str::Null
        } else {
            Str::Ordinal(n)
        }
    }
}

/// One element of an array argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem {
    /// An integer element (also `char`/`wchar` codes).
    Int(i64),
    /// A `float32` element.
    Float(f32),
}

/// An array argument, borrowed: its element type, count and raw element bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Array<'a> {
    /// The array type (for example [`ArgType::Int16Array`]).
    pub ty: ArgType,
    /// `None` for a null array (count `0xFFFFFFFF` in chunked files).
    pub data: Option<&'a [u8]>,
    /// True for legacy (big-endian integers) data.
    pub big_endian: bool,
}

impl<'a> Array<'a> {
    /// True for a null array.
    pub fn is_null(&self) -> bool {
        self.data.is_none()
    }

    /// Number of elements (0 for null).
    pub fn len(&self) -> usize {
        let size = self.ty.element_size().unwrap_or(1);
        self.data.map_or(0, |d| d.len() / size)
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<Elem> {
        let size = self.ty.element_size()?;
        let start = i.checked_mul(size)?;
        let b = self.data?.get(start..start.checked_add(size)?)?;
        elem(self.ty, self.big_endian, b)
    }

    /// The elements in order. Folding them (`sum`, `fold`, `for_each`, ...) decodes the whole
    /// array in one loop for its element type.
    pub fn iter(&self) -> impl Iterator<Item = Elem> + '_ {
        Elems {
            ty: self.ty,
            big_endian: self.big_endian,
            // Nothing for a type that is not an array.
            rest: self
                .data
                .filter(|_| self.ty.element_size().is_some())
                .unwrap_or(&[]),
        }
    }
}

/// The elements of an [`Array`] (see [`Array::iter`]).
#[derive(Clone, Debug)]
struct Elems<'a> {
    ty: ArgType,
    big_endian: bool,
    /// The bytes of the elements not yet decoded (whole elements only are decoded).
    rest: &'a [u8],
}

impl Iterator for Elems<'_> {
    type Item = Elem;

    #[inline]
    fn next(&mut self) -> Option<Elem> {
        let size = self.ty.element_size()?;
        let (b, rest) = self.rest.split_at_checked(size)?;
        self.rest = rest;
        elem(self.ty, self.big_endian, b)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rest.len() / self.ty.element_size().unwrap_or(1);
        (n, Some(n))
    }

    /// One look at the element type, then a plain loop over the elements of that width.
    #[inline]
    fn fold<B, F: FnMut(B, Elem) -> B>(self, init: B, f: F) -> B {
        let int = |v: i64| Elem::Int(v);
        let (ty, be, rest) = (self.ty, self.big_endian, self.rest);
        match ty {
            ArgType::Int8Array => rest.iter().map(|&b| int(i64::from(b as i8))).fold(init, f),
            ArgType::Uint8Array | ArgType::CharArray => {
                rest.iter().map(|&b| int(i64::from(b))).fold(init, f)
            }
            ArgType::Int16Array if be => {
                words::<2, B>(rest, |w| int(i64::from(i16::from_be_bytes(w))), init, f)
            }
            ArgType::Int16Array => {
                words::<2, B>(rest, |w| int(i64::from(i16::from_le_bytes(w))), init, f)
            }
            ArgType::Uint16Array | ArgType::WCharArray if be => {
                words::<2, B>(rest, |w| int(i64::from(u16::from_be_bytes(w))), init, f)
            }
            ArgType::Uint16Array | ArgType::WCharArray => {
                words::<2, B>(rest, |w| int(i64::from(u16::from_le_bytes(w))), init, f)
            }
            ArgType::Int32Array if be => {
                words::<4, B>(rest, |w| int(i64::from(i32::from_be_bytes(w))), init, f)
            }
            ArgType::Int32Array => {
                words::<4, B>(rest, |w| int(i64::from(i32::from_le_bytes(w))), init, f)
            }
            ArgType::Uint32Array if be => {
                words::<4, B>(rest, |w| int(i64::from(u32::from_be_bytes(w))), init, f)
            }
            ArgType::Uint32Array => {
                words::<4, B>(rest, |w| int(i64::from(u32::from_le_bytes(w))), init, f)
            }
            // float32 is little-endian in both formats.
            ArgType::Float32Array => {
                words::<4, B>(rest, |w| Elem::Float(f32::from_le_bytes(w)), init, f)
            }
            _ => init,
        }
    }
}

/// Folds `f` over the `N`-byte elements of `bytes`, each decoded by `decode`.
#[inline(always)]
fn words<const N: usize, B>(
    bytes: &[u8],
    decode: impl Fn([u8; N]) -> Elem,
    init: B,
    f: impl FnMut(B, Elem) -> B,
) -> B {
    bytes
        .chunks_exact(N)
        .map(|w| decode(w.try_into().unwrap_or([0; N])))
        .fold(init, f)
}

/// Decodes one element of an array of type `ty` from its bytes `b`.
#[inline(always)]
fn elem(ty: ArgType, be: bool, b: &[u8]) -> Option<Elem> {
    Some(match (ty, b) {
        (ArgType::Int8Array, &[x]) => Elem::Int(i64::from(x as i8)),
        (ArgType::Uint8Array | ArgType::CharArray, &[x]) => Elem::Int(i64::from(x)),
        (ArgType::Int16Array, &[x, y]) => Elem::Int(i64::from(if be {
            i16::from_be_bytes([x, y])
        } else {
            i16::from_le_bytes([x, y])
        })),
        (ArgType::Uint16Array | ArgType::WCharArray, &[x, y]) => Elem::Int(i64::from(if be {
            u16::from_be_bytes([x, y])
        } else {
            u16::from_le_bytes([x, y])
        })),
        (ArgType::Int32Array, &[a, b, c, d]) => Elem::Int(i64::from(if be {
            i32::from_be_bytes([a, b, c, d])
        } else {
            i32::from_le_bytes([a, b, c, d])
        })),
        (ArgType::Uint32Array, &[a, b, c, d]) => Elem::Int(i64::from(if be {
            u32::from_be_bytes([a, b, c, d])
        } else {
            u32::from_le_bytes([a, b, c, d])
        })),
        // float32 is little-endian in both formats.
        (ArgType::Float32Array, &[a, b, c, d]) => Elem::Float(f32::from_le_bytes([a, b, c, d])),
        _ => return None,
    })
}

/// A decoded argument value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// `bool`.
    Bool(bool),
    /// `int8`.
    Int8(i8),
    /// `uint8`.
    Uint8(u8),
    /// `int16`.
    Int16(i16),
    /// `uint16`.
    Uint16(u16),
    /// `int32`.
    Int32(i32),
    /// `uint32`.
    Uint32(u32),
    /// `float32`.
    Float32(f32),
    /// `ascii`.
    Ascii(Str<'a>),
    /// `utf8`.
    Utf8(Str<'a>),
    /// `any`: JSON text.
    Any(Str<'a>),
    /// `char`: an 8-bit character code.
    Char(u8),
    /// `wchar`: a UTF-16 code unit.
    WChar(u16),
    /// `flowId`.
    FlowId(u32),
    /// `time32`, as stored (microseconds).
    Time32(u32),
    /// Any array type.
    Array(Array<'a>),
}

impl Value<'_> {
    /// The value as an unsigned integer, for the integer types.
    pub fn as_u32(&self) -> Option<u32> {
        Some(match *self {
            Value::Uint8(v) => u32::from(v),
            Value::Uint16(v) => u32::from(v),
            Value::Uint32(v) | Value::FlowId(v) | Value::Time32(v) => v,
            Value::Int8(v) => v as u32,
            Value::Int16(v) => v as u32,
            Value::Int32(v) => v as u32,
            _ => return None,
        })
    }
}

/// Which encoding argument bytes use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Chunked,
    Legacy,
}

#[cold]
fn trunc(e: tracecap_wire::Error) -> Error {
    Error::from(e).what("event argument")
}

/// Reads a legacy `utf8`/`any` string: u16 code-unit count (0 = null, 0xFFFF = table ordinal),
/// u16 byte count, bytes.
pub(crate) fn read_legacy_utf8<'a>(r: &mut Reader<'a>) -> Result<Str<'a>, Error> {
    let count = r.u16_be().map_err(trunc)?;
    match count {
        0 => Ok(Str::Null),
        0xFFFF => Ok(Str::from_ordinal(r.u32_be().map_err(trunc)?)),
        _ => {
            let bytes = r.u16_be().map_err(trunc)?;
            Ok(Str::Inline(r.bytes(usize::from(bytes)).map_err(trunc)?))
        }
    }
}

/// Reads a legacy `ascii` string: u16 length (0 = null, 0xFFFF = table ordinal), bytes.
fn read_legacy_ascii<'a>(r: &mut Reader<'a>) -> Result<Str<'a>, Error> {
    let len = r.u16_be().map_err(trunc)?;
    match len {
        0 => Ok(Str::Null),
        0xFFFF => Ok(Str::from_ordinal(r.u32_be().map_err(trunc)?)),
        n => Ok(Str::Inline(r.bytes(usize::from(n)).map_err(trunc)?)),
    }
}

/// Decodes one argument of type `ty` at the reader, advancing past it.
#[inline]
pub(crate) fn read_value<'a>(
    ty: ArgType,
    r: &mut Reader<'a>,
    enc: Encoding,
) -> Result<Value<'a>, Error> {
    match enc {
        Encoding::Chunked => read_chunked(ty, r),
        Encoding::Legacy => read_legacy(ty, r),
    }
}

#[inline]
fn read_chunked<'a>(ty: ArgType, r: &mut Reader<'a>) -> Result<Value<'a>, Error> {
    let start = r.offset();
    let w = r.array::<4>().map_err(trunc)?;
    let word = u32::from_le_bytes(w);
    Ok(match ty {
        ArgType::Bool => Value::Bool(w[0] != 0),
        ArgType::Int8 => Value::Int8(w[0] as i8),
        ArgType::Uint8 => Value::Uint8(w[0]),
        ArgType::Int16 => Value::Int16(i16::from_le_bytes([w[0], w[1]])),
        ArgType::Uint16 => Value::Uint16(u16::from_le_bytes([w[0], w[1]])),
        ArgType::Int32 => Value::Int32(word as i32),
        ArgType::Uint32 => Value::Uint32(word),
        ArgType::Float32 => Value::Float32(f32::from_le_bytes(w)),
        ArgType::Ascii => Value::Ascii(Str::from_ordinal(word)),
        ArgType::Utf8 => Value::Utf8(Str::from_ordinal(word)),
        ArgType::Any => Value::Any(Str::from_ordinal(word)),
        ArgType::Char => Value::Char(w[0]),
        ArgType::WChar => Value::WChar(u16::from_le_bytes([w[0], w[1]])),
        ArgType::FlowId => Value::FlowId(word),
        ArgType::Time32 => Value::Time32(word),
        _ => {
            let size = ty.element_size().unwrap_or(1);
            if word == NULL_ORDINAL {
                return Ok(Value::Array(Array {
                    ty,
                    data: None,
                    big_endian: false,
                }));
            }
            let n = (word as usize).checked_mul(size);
            let padded = n.and_then(|n| n.checked_add(3)).map(|n| n & !3);
            let (Some(n), Some(padded)) = (n, padded) else {
                return Err(Error::truncated(
                    "event argument",
                    start,
                    u64::from(word).saturating_mul(size as u64),
                    r.remaining() as u64,
                ));
            };
            let body = r.bytes(padded).map_err(trunc)?;
            Value::Array(Array {
                ty,
                data: body.get(..n),
                big_endian: false,
            })
        }
    })
}

/// Decodes one chunked argument of the type with code `code` (see [`ArgType::code`]) whose bytes
/// the walker has already checked: no error path, so the value is built directly where the caller
/// wants it, and one jump on the code both picks the type and builds the value. `None` for code 0
/// (the end of a packed list) and the other codes that are not types, with `rest` moved past a
/// word anyway (if it had one): the caller stops there.
#[inline(always)]
pub(crate) fn chunked_value<'a>(code: u32, rest: &mut &'a [u8]) -> Option<Value<'a>> {
    let (&w, tail) = rest.split_first_chunk::<4>()?;
    *rest = tail;
    // 8- and 16-bit values are the low bytes of the little-endian word.
    let word = u32::from_le_bytes(w);
    let value = match code as u8 {
        code::BOOL => Value::Bool(word as u8 != 0),
        code::INT8 => Value::Int8(word as i8),
        code::UINT8 => Value::Uint8(word as u8),
        code::INT16 => Value::Int16(word as i16),
        code::UINT16 => Value::Uint16(word as u16),
        code::INT32 => Value::Int32(word as i32),
        code::UINT32 => Value::Uint32(word),
        code::FLOAT32 => Value::Float32(f32::from_bits(word)),
        code::ASCII => Value::Ascii(Str::from_ordinal(word)),
        code::UTF8 => Value::Utf8(Str::from_ordinal(word)),
        code::ANY => Value::Any(Str::from_ordinal(word)),
        code::CHAR => Value::Char(word as u8),
        code::WCHAR => Value::WChar(word as u16),
        code::FLOW_ID => Value::FlowId(word),
        code::TIME32 => Value::Time32(word),
        // One arm per array type (rather than a range and a second look at the code), so that
        // arrays share the one jump on the code.
        code::INT8_ARRAY => chunked_array(ArgType::Int8Array, word, rest)?,
        code::UINT8_ARRAY => chunked_array(ArgType::Uint8Array, word, rest)?,
        code::INT16_ARRAY => chunked_array(ArgType::Int16Array, word, rest)?,
        code::UINT16_ARRAY => chunked_array(ArgType::Uint16Array, word, rest)?,
        code::INT32_ARRAY => chunked_array(ArgType::Int32Array, word, rest)?,
        code::UINT32_ARRAY => chunked_array(ArgType::Uint32Array, word, rest)?,
        code::FLOAT32_ARRAY => chunked_array(ArgType::Float32Array, word, rest)?,
        code::CHAR_ARRAY => chunked_array(ArgType::CharArray, word, rest)?,
        code::WCHAR_ARRAY => chunked_array(ArgType::WCharArray, word, rest)?,
        // Every other 5-bit code by name (not as a range), so that the jump on the code covers
        // all of them and needs no range check.
        0 | 25 | 26 | 27 | 28 | 29 | 30 | 31 => return None,
        _ => return None,
    };
    Some(value)
}

/// The chunked array of `count` elements (`NULL_ORDINAL` = null array) whose body starts `rest`;
/// moves `rest` past it.
#[inline(always)]
fn chunked_array<'a>(ty: ArgType, count: u32, rest: &mut &'a [u8]) -> Option<Value<'a>> {
    let data = if count == NULL_ORDINAL {
        None
    } else {
        let size = ty.element_size().unwrap_or(1);
        let n = (count as usize).checked_mul(size)?;
        let (body, after) = rest.split_at_checked(n.checked_add(3)? & !3)?;
        *rest = after;
        body.get(..n)
    };
    Some(Value::Array(Array {
        ty,
        data,
        big_endian: false,
    }))
}

#[inline]
fn read_legacy<'a>(ty: ArgType, r: &mut Reader<'a>) -> Result<Value<'a>, Error> {
    Ok(match ty {
        ArgType::Bool => Value::Bool(r.u8().map_err(trunc)? != 0),
        ArgType::Int8 => Value::Int8(r.i8().map_err(trunc)?),
        ArgType::Uint8 => Value::Uint8(r.u8().map_err(trunc)?),
        ArgType::Int16 => Value::Int16(r.i16_be().map_err(trunc)?),
        ArgType::Uint16 => Value::Uint16(r.u16_be().map_err(trunc)?),
        ArgType::Int32 => Value::Int32(r.i32_be().map_err(trunc)?),
        ArgType::Uint32 => Value::Uint32(r.u32_be().map_err(trunc)?),
        ArgType::FlowId => Value::FlowId(r.u32_be().map_err(trunc)?),
        ArgType::Time32 => Value::Time32(r.u32_be().map_err(trunc)?),
        // float32 is written in host order (little-endian) even in big-endian files.
        ArgType::Float32 => Value::Float32(r.f32_le().map_err(trunc)?),
        ArgType::Ascii => Value::Ascii(read_legacy_ascii(r)?),
        ArgType::Utf8 => Value::Utf8(read_legacy_utf8(r)?),
        ArgType::Any => Value::Any(read_legacy_utf8(r)?),
        ArgType::Char | ArgType::WChar | ArgType::CharArray | ArgType::WCharArray => {
            return Err(Error::new(ErrorKind::LegacyUnsupportedType, r.offset()))
        }
        _ => {
            let start = r.offset();
            let size = ty.element_size().unwrap_or(1);
            let count = r.u32_be().map_err(trunc)?;
            let Some(n) = (count as usize).checked_mul(size) else {
                return Err(Error::truncated(
                    "event argument",
                    start,
                    u64::from(count).saturating_mul(size as u64),
                    r.remaining() as u64,
                ));
            };
            Value::Array(Array {
                ty,
                data: Some(r.bytes(n).map_err(trunc)?),
                big_endian: true,
            })
        }
    })
}

/// Skips one argument of type `ty` (the walker's fast path).
#[inline]
pub(crate) fn skip_value(ty: ArgType, r: &mut Reader<'_>, enc: Encoding) -> Result<(), Error> {
    if enc == Encoding::Chunked && ty.element_size().is_none() {
        return r.skip(4).map_err(trunc);
    }
    read_value(ty, r, enc).map(|_| ())
}

/// One named argument of an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arg<'a> {
    /// Name from the signature.
    pub name: &'a str,
    /// The value.
    pub value: Value<'a>,
}

/// The arguments of an event, decoded lazily in signature order. Fused after the first error.
#[derive(Clone, Debug)]
pub struct Args<'a> {
    sig: Signature<'a>,
    r: Reader<'a>,
    enc: Encoding,
    done: bool,
}

impl<'a> Args<'a> {
    pub(crate) fn new(signature: Signature<'a>, r: Reader<'a>, enc: Encoding) -> Self {
        Args {
            sig: signature,
            r,
            enc,
            done: false,
        }
    }
}

impl<'a> Iterator for Args<'a> {
    type Item = Result<Arg<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let decl = match self.sig.next()? {
            Ok(d) => d,
            Err(kind) => {
                self.done = true;
                return Some(Err(Error::new(kind, self.r.offset())));
            }
        };
        match read_value(decl.ty, &mut self.r, self.enc) {
            Ok(value) => Some(Ok(Arg {
                name: decl.name,
                value,
            })),
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Args<'_> {}

/// Decodes string bytes the way the loader does: UTF-8, also accepting surrogate halves encoded as
/// 3-byte sequences (legacy files); anything undecodable becomes U+FFFD. Yields UTF-16 code units.
pub fn utf16_units(bytes: &[u8]) -> impl Iterator<Item = u16> + '_ {
    let mut i = 0usize;
    let mut pending: Option<u16> = None;
    core::iter::from_fn(move || {
        if let Some(p) = pending.take() {
            return Some(p);
        }
        let b0 = *bytes.get(i)?;
        let cont = |k: usize| {
            bytes
                .get(i + k)
                .map(|&b| u32::from(b & 0x3F))
                .filter(|_| bytes.get(i + k).is_some_and(|&b| b & 0xC0 == 0x80))
        };
        let (cp, n) = if b0 < 0x80 {
            (u32::from(b0), 1)
        } else if b0 & 0xE0 == 0xC0 {
            match cont(1) {
                Some(c1) => ((u32::from(b0 & 0x1F) << 6) | c1, 2),
                None => (0xFFFD, 1),
            }
        } else if b0 & 0xF0 == 0xE0 {
            match (cont(1), cont(2)) {
                (Some(c1), Some(c2)) => ((u32::from(b0 & 0x0F) << 12) | (c1 << 6) | c2, 3),
                _ => (0xFFFD, 1),
            }
        } else if b0 & 0xF8 == 0xF0 {
            match (cont(1), cont(2), cont(3)) {
                (Some(c1), Some(c2), Some(c3)) => (
                    (u32::from(b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3,
                    4,
                ),
                _ => (0xFFFD, 1),
            }
        } else {
            (0xFFFD, 1)
        };
        i += n;
        if (0x1_0000..=0x10_FFFF).contains(&cp) {
            let v = cp - 0x1_0000;
            pending = Some(0xDC00 | (v & 0x3FF) as u16);
            Some(0xD800 | (v >> 10) as u16)
        } else if cp > 0x10_FFFF {
            Some(0xFFFD)
        } else {
            Some(cp as u16)
        }
    })
}

/// [`utf16_units`] collected into a `String` (lone surrogates become U+FFFD). Borrows when the
/// bytes are already UTF-8.
#[cfg(feature = "alloc")]
pub fn text_lossy(bytes: &[u8]) -> alloc::borrow::Cow<'_, str> {
    match core::str::from_utf8(bytes) {
        Ok(s) => alloc::borrow::Cow::Borrowed(s),
        Err(_) => alloc::borrow::Cow::Owned(
            core::char::decode_utf16(utf16_units(bytes))
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect(),
        ),
    }
}

/// Latin-1 (`char[]`, `char`) bytes as text.
#[cfg(feature = "alloc")]
pub fn latin1(bytes: &[u8]) -> alloc::string::String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cesu_surrogates() {
        // U+1F600 as two 3-byte surrogate encodings.
        let b = [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80];
        assert_eq!(text_lossy(&b), "\u{1F600}");
        assert_eq!(text_lossy("é€😀".as_bytes()), "é€😀");
        assert_eq!(text_lossy(&[0xFF, b'a']), "\u{FFFD}a");
    }

    /// Folding an array's elements (one loop per element type) gives what stepping through them
    /// gives, for every array type, both byte orders and odd lengths.
    #[test]
    fn folded_elements_match_stepped_ones() {
        let bytes: Vec<u8> = (0..23u8).map(|i| i.wrapping_mul(37) ^ 0x80).collect();
        for ty in ArgType::ALL {
            for big_endian in [false, true] {
                for data in [None, Some(&bytes[..]), Some(&bytes[..0]), Some(&bytes[..7])] {
                    let a = Array {
                        ty,
                        data,
                        big_endian,
                    };
                    // A `for` loop steps with `next`.
                    let mut stepped = Vec::new();
                    for e in a.iter() {
                        stepped.push(e);
                    }
                    let folded = a.iter().fold(Vec::new(), |mut v, e| {
                        v.push(e);
                        v
                    });
                    assert_eq!(folded, stepped, "{ty:?} {big_endian}");
                    let by_index: Vec<Elem> = (0..a.len()).map_while(|i| a.get(i)).collect();
                    assert_eq!(folded, by_index, "{ty:?} {big_endian}");
                    assert_eq!(a.iter().size_hint().0, stepped.len());
                }
            }
        }
    }

    #[test]
    fn chunked_arrays() {
        let bytes = [3, 0, 0, 0, 1, 0xFF, 7, 0xAA];
        let mut r = Reader::new(&bytes);
        let v = read_value(ArgType::Int8Array, &mut r, Encoding::Chunked).unwrap(); // ok: unit test
        let Value::Array(a) = v else { panic!() }; // ok: unit test
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [Elem::Int(1), Elem::Int(-1), Elem::Int(7)]
        );
        assert!(r.is_empty());
        let huge = [0xFE, 0xFF, 0xFF, 0x7F];
        assert!(read_value(
            ArgType::Int32Array,
            &mut Reader::new(&huge),
            Encoding::Chunked
        )
        .is_err());
    }
}
