//! Values: the tagged data of arguments and return values.

use tracecap_wire::Reader;

use crate::error::{Error, ErrorKind, WireExt};
use crate::sig::{extra_of, parse_definition, uint, SigInfo, SigKind, Table};

/// How deep values may nest (arrays of structs of arrays ...). Real traces use fewer than 8.
pub const MAX_DEPTH: u32 = 64;

/// One value, borrowed from the stream. Compound values (array, struct, repr) are lazy views:
/// walk them with the signature table the stream was parsed with.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// Tag 0x00: null pointer (also a null string or blob).
    Null,
    /// Tags 0x01/0x02: C++ bool.
    Bool(bool),
    /// Tag 0x03: a negative integer (stored as its magnitude).
    SInt(i64),
    /// Tag 0x04: a non-negative integer.
    UInt(u64),
    /// Tag 0x05: binary32, little-endian (the tracing host's order; every real host is LE).
    Float(f32),
    /// Tag 0x06: binary64, little-endian.
    Double(f64),
    /// Tag 0x07: bytes of a string, without terminator (not validated as UTF-8).
    String(&'a [u8]),
    /// Tag 0x08: raw bytes.
    Blob(&'a [u8]),
    /// Tag 0x09: an enum value and its signature id.
    Enum {
        /// Enum signature id.
        sig: u64,
        /// The value.
        value: i64,
    },
    /// Tag 0x0a: a bitmask value and its signature id.
    Bitmask {
        /// Bitmask signature id.
        sig: u64,
        /// The value.
        value: u64,
    },
    /// Tag 0x0b: an array.
    Array(Array<'a>),
    /// Tag 0x0c: a struct.
    Struct(Struct<'a>),
    /// Tag 0x0d: an opaque pointer.
    Pointer(u64),
    /// Tag 0x0e: a human-readable value and a machine value.
    Repr(Repr<'a>),
    /// Tag 0x0f: a wide string (code units).
    WString(WStr<'a>),
}

/// The lazy body of an array value.
#[derive(Clone, Copy, Debug)]
pub struct Array<'a> {
    count: u64,
    body: Reader<'a>,
    version: u64,
}

/// The lazy body of a struct value.
#[derive(Clone, Copy, Debug)]
pub struct Struct<'a> {
    /// Struct signature id.
    pub sig: u64,
    count: u64,
    body: Reader<'a>,
    version: u64,
}

/// The lazy body of a repr (human, machine) pair.
#[derive(Clone, Copy, Debug)]
pub struct Repr<'a> {
    body: Reader<'a>,
    version: u64,
}

/// A wide string: `count` code units (UTF-16 on Windows hosts, UTF-32 elsewhere).
#[derive(Clone, Copy, Debug)]
pub struct WStr<'a> {
    count: u64,
    body: Reader<'a>,
}

/// Iterator over the values of an array or the members of a struct.
pub struct Values<'a, 't, T: ?Sized> {
    count: u64,
    body: Reader<'a>,
    version: u64,
    table: &'t T,
}

impl<'a, T: Table + ?Sized> Iterator for Values<'a, '_, T> {
    type Item = Result<Value<'a>, Error>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        let r = parse_value(&mut self.body, &mut Lookup(self.table), self.version, 0);
        if r.is_err() {
            self.count = 0;
        }
        Some(r)
    }
}

impl<'a> Array<'a> {
    /// Number of elements.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True for an empty array.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The elements.
    pub fn iter<'t, T: Table + ?Sized>(&self, table: &'t T) -> Values<'a, 't, T> {
        Values {
            count: self.count,
            body: self.body,
            version: self.version,
            table,
        }
    }
    /// The encoded bytes of the elements.
    pub fn raw(&self) -> &'a [u8] {
        self.body.data()
    }
}

impl<'a> Struct<'a> {
    /// Number of members (from the signature).
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True for a struct without members.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The member values, in signature order.
    pub fn iter<'t, T: Table + ?Sized>(&self, table: &'t T) -> Values<'a, 't, T> {
        Values {
            count: self.count,
            body: self.body,
            version: self.version,
            table,
        }
    }
}

impl<'a> Repr<'a> {
    /// The human-readable value (what `apitrace dump` shows).
    pub fn human<T: Table + ?Sized>(&self, table: &T) -> Result<Value<'a>, Error> {
        let mut r = self.body;
        parse_value(&mut r, &mut Lookup(table), self.version, 0)
    }
    /// The machine value.
    pub fn machine<T: Table + ?Sized>(&self, table: &T) -> Result<Value<'a>, Error> {
        let mut r = self.body;
        parse_value(&mut r, &mut Lookup(table), self.version, 0)?;
        parse_value(&mut r, &mut Lookup(table), self.version, 0)
    }
}

impl<'a> WStr<'a> {
    /// Number of code units.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True for an empty string.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The code units as stored (each a `uint`).
    pub fn units(&self) -> WUnits<'a> {
        WUnits {
            count: self.count,
            body: self.body,
        }
    }
}

/// Iterator over the code units of a wide string.
#[derive(Clone, Debug)]
pub struct WUnits<'a> {
    count: u64,
    body: Reader<'a>,
}

impl Iterator for WUnits<'_> {
    type Item = u64;
    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        self.body.uleb64().ok()
    }
}

/// How a parse meets signature ids: defining them (first pass) or looking them up (re-reading).
pub(crate) trait Resolve {
    /// Reads a signature id (and its definition body where this is its first use).
    fn resolve(
        &mut self,
        kind: SigKind,
        r: &mut Reader<'_>,
        version: u64,
    ) -> Result<(u64, SigInfo), Error>;
}

/// First pass: undefined ids get defined in the table.
pub(crate) struct Define<'t, T: ?Sized>(pub &'t mut T);
/// Re-reading: every id must already be defined.
pub(crate) struct Lookup<'t, T: ?Sized>(pub &'t T);

const fn what(kind: SigKind) -> &'static str {
    match kind {
        SigKind::Function => "function signature id",
        SigKind::Struct => "struct signature id",
        SigKind::Enum => "enum signature id",
        SigKind::Bitmask => "bitmask signature id",
        SigKind::Frame => "frame id",
    }
}

impl<T: Table + ?Sized> Resolve for Define<'_, T> {
    #[inline]
    fn resolve(
        &mut self,
        kind: SigKind,
        r: &mut Reader<'_>,
        version: u64,
    ) -> Result<(u64, SigInfo), Error> {
        let at = r.offset();
        let id = uint(r, what(kind))?;
        match self.0.get(kind, id) {
            Some(info) if info.offset != at => Ok((id, info)),
            Some(info) => {
                parse_definition(r, kind, version)?;
                Ok((id, info))
            }
            None => {
                let def = parse_definition(r, kind, version)?;
                let info = SigInfo {
                    offset: at,
                    extra: extra_of(&def),
                };
                self.0
                    .define(kind, id, info, &def)
                    .map_err(|k| Error::stream(k, at))?;
                Ok((id, info))
            }
        }
    }
}

impl<T: Table + ?Sized> Resolve for Lookup<'_, T> {
    #[inline]
    fn resolve(
        &mut self,
        kind: SigKind,
        r: &mut Reader<'_>,
        version: u64,
    ) -> Result<(u64, SigInfo), Error> {
        let at = r.offset();
        let id = uint(r, what(kind))?;
        match self.0.get(kind, id) {
            Some(info) if info.offset != at => Ok((id, info)),
            Some(info) => {
                parse_definition(r, kind, version)?;
                Ok((id, info))
            }
            None => Err(Error::stream(ErrorKind::Undefined(kind.name()), at)),
        }
    }
}

/// Reads the bytes of `count` values as one bounded view.
#[inline]
fn body_of<'a>(start: Reader<'a>, end: &Reader<'a>) -> Reader<'a> {
    let len = end.position().saturating_sub(start.position());
    let mut s = start;
    s.sub(len as u64).unwrap_or(Reader::at(&[], end.offset()))
}

/// Parses one value at `r`.
pub(crate) fn parse_value<'a, R: Resolve>(
    r: &mut Reader<'a>,
    res: &mut R,
    version: u64,
    depth: u32,
) -> Result<Value<'a>, Error> {
    let at = r.offset();
    let tag = r.u8().what("value tag")?;
    Ok(match tag {
        0x00 => Value::Null,
        0x01 => Value::Bool(false),
        0x02 => Value::Bool(true),
        0x03 => Value::SInt((uint(r, "integer")? as i64).wrapping_neg()),
        0x04 => Value::UInt(uint(r, "integer")?),
        0x05 => Value::Float(r.f32_le().what("float")?),
        0x06 => Value::Double(r.f64_le().what("double")?),
        0x07 => {
            let n = uint(r, "string length")?;
            Value::String(r.bytes_u64(n).what("string")?)
        }
        0x08 => {
            let n = uint(r, "blob size")?;
            Value::Blob(r.bytes_u64(n).what("blob")?)
        }
        0x09 => {
            let (sig, info) = res.resolve(SigKind::Enum, r, version)?;
            let value = if version >= 3 {
                crate::sig::sint(r, "enum value")?
            } else {
                info.extra
            };
            Value::Enum { sig, value }
        }
        0x0a => {
            let (sig, _) = res.resolve(SigKind::Bitmask, r, version)?;
            Value::Bitmask {
                sig,
                value: uint(r, "bitmask value")?,
            }
        }
        0x0b => {
            let count = uint(r, "array length")?;
            if depth >= MAX_DEPTH {
                return Err(Error::stream(ErrorKind::TooDeep(MAX_DEPTH), at));
            }
            let start = *r;
            let mut i = 0;
            while i < count {
                skip_value(r, res, version, depth + 1)?;
                i += 1;
            }
            Value::Array(Array {
                count,
                body: body_of(start, r),
                version,
            })
        }
        0x0c => {
            let (sig, info) = res.resolve(SigKind::Struct, r, version)?;
            if depth >= MAX_DEPTH {
                return Err(Error::stream(ErrorKind::TooDeep(MAX_DEPTH), at));
            }
            let count = info.extra as u64;
            let start = *r;
            let mut i = 0;
            while i < count {
                skip_value(r, res, version, depth + 1)?;
                i += 1;
            }
            Value::Struct(Struct {
                sig,
                count,
                body: body_of(start, r),
                version,
            })
        }
        0x0d => Value::Pointer(uint(r, "pointer")?),
        0x0e => {
            if depth >= MAX_DEPTH {
                return Err(Error::stream(ErrorKind::TooDeep(MAX_DEPTH), at));
            }
            let start = *r;
            skip_value(r, res, version, depth + 1)?;
            skip_value(r, res, version, depth + 1)?;
            Value::Repr(Repr {
                body: body_of(start, r),
                version,
            })
        }
        0x0f => {
            let count = uint(r, "wide string length")?;
            let start = *r;
            let mut i = 0;
            while i < count {
                uint(r, "wide string")?;
                i += 1;
            }
            Value::WString(WStr {
                count,
                body: body_of(start, r),
            })
        }
        t => return Err(Error::stream(ErrorKind::UnknownTag(t), at)),
    })
}

/// Reads past one value at `r` (validating it and resolving its signatures) without building
/// it: the first pass over an event, and the bodies of compound values.
pub(crate) fn skip_value<R: Resolve>(
    r: &mut Reader<'_>,
    res: &mut R,
    version: u64,
    depth: u32,
) -> Result<(), Error> {
    let at = r.offset();
    match r.u8().what("value tag")? {
        0x00..=0x02 => {}
        0x03 | 0x04 => {
            uint(r, "integer")?;
        }
        0x05 => r.skip(4).what("float")?,
        0x06 => r.skip(8).what("double")?,
        0x07 => {
            let n = uint(r, "string length")?;
            r.bytes_u64(n).what("string")?;
        }
        0x08 => {
            let n = uint(r, "blob size")?;
            r.bytes_u64(n).what("blob")?;
        }
        0x09 => {
            res.resolve(SigKind::Enum, r, version)?;
            if version >= 3 {
                crate::sig::sint(r, "enum value")?;
            }
        }
        0x0a => {
            res.resolve(SigKind::Bitmask, r, version)?;
            uint(r, "bitmask value")?;
        }
        0x0b => {
            let count = uint(r, "array length")?;
            if depth >= MAX_DEPTH {
                return Err(Error::stream(ErrorKind::TooDeep(MAX_DEPTH), at));
            }
            let mut i = 0;
            while i < count {
                skip_value(r, res, version, depth + 1)?;
                i += 1;
            }
        }
        0x0c => {
            let (_, info) = res.resolve(SigKind::Struct, r, version)?;
            if depth >= MAX_DEPTH {
                return Err(Error::stream(ErrorKind::TooDeep(MAX_DEPTH), at));
            }
            let count = info.extra as u64;
            let mut i = 0;
            while i < count {
                skip_value(r, res, version, depth + 1)?;
                i += 1;
            }
        }
        0x0d => {
            uint(r, "pointer")?;
        }
        0x0e => {
            if depth >= MAX_DEPTH {
                return Err(Error::stream(ErrorKind::TooDeep(MAX_DEPTH), at));
            }
            skip_value(r, res, version, depth + 1)?;
            skip_value(r, res, version, depth + 1)?;
        }
        0x0f => {
            let count = uint(r, "wide string length")?;
            let mut i = 0;
            while i < count {
                uint(r, "wide string")?;
                i += 1;
            }
        }
        t => return Err(Error::stream(ErrorKind::UnknownTag(t), at)),
    }
    Ok(())
}
