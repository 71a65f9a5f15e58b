//! Values: the tagged data of arguments and return values; and the precise value parser, which
//! reads every shape and names every error. The `Iterator` of [`Values`], which tries the fast
//! path first and falls back to this parser, is in `read`.

use crate::cursor::{Cur, Span};
use crate::error::{Error, ErrorKind};
use crate::sig::{extra_of, parse_definition, SigInfo, SigKind, SigLookup};

/// The stream version as values and details keep it: a byte (versions past 255 read as 255; the
/// version only decides layouts below 7).
#[inline(always)]
pub(crate) fn version_byte(version: u64) -> u8 {
    version.min(255) as u8
}

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
    pub(crate) count: u64,
    pub(crate) body: Span<'a>,
    pub(crate) version: u8,
}

/// The lazy body of a struct value.
#[derive(Clone, Copy, Debug)]
pub struct Struct<'a> {
    /// Struct signature id.
    pub sig: u64,
    pub(crate) count: u64,
    pub(crate) body: Span<'a>,
    pub(crate) version: u8,
}

/// The lazy body of a repr (human, machine) pair.
#[derive(Clone, Copy, Debug)]
pub struct Repr<'a> {
    pub(crate) body: Span<'a>,
    pub(crate) version: u8,
}

/// A wide string: `count` code units (UTF-16 on Windows hosts, UTF-32 elsewhere).
#[derive(Clone, Copy, Debug)]
pub struct WStr<'a> {
    pub(crate) count: u64,
    pub(crate) body: Span<'a>,
}

/// Iterator over the values of an array or the members of a struct.
pub struct Values<'a, 't, T: ?Sized> {
    pub(crate) count: u64,
    pub(crate) body: Cur<'a>,
    pub(crate) version: u8,
    pub(crate) table: &'t T,
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
    pub fn iter<'t, T: SigLookup + ?Sized>(&self, table: &'t T) -> Values<'a, 't, T> {
        Values {
            count: self.count,
            body: self.body.cur(),
            version: self.version,
            table,
        }
    }
    /// The encoded bytes of the elements.
    pub fn raw(&self) -> &'a [u8] {
        self.body.data
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
    pub fn iter<'t, T: SigLookup + ?Sized>(&self, table: &'t T) -> Values<'a, 't, T> {
        Values {
            count: self.count,
            body: self.body.cur(),
            version: self.version,
            table,
        }
    }
}

impl<'a> Repr<'a> {
    /// The human-readable value (what `apitrace dump` shows).
    pub fn human<T: SigLookup + ?Sized>(&self, table: &T) -> Result<Value<'a>, Error> {
        let mut r = self.body.cur();
        parse_value(&mut r, &mut Lookup(table), u64::from(self.version), 0)
    }
    /// The machine value.
    pub fn machine<T: SigLookup + ?Sized>(&self, table: &T) -> Result<Value<'a>, Error> {
        let mut r = self.body.cur();
        let version = u64::from(self.version);
        skip_value(&mut r, &mut Lookup(table), version, 0)?;
        parse_value(&mut r, &mut Lookup(table), version, 0)
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
            body: self.body.cur(),
        }
    }
}

/// Iterator over the code units of a wide string.
#[derive(Clone, Debug)]
pub struct WUnits<'a> {
    count: u64,
    body: Cur<'a>,
}

impl Iterator for WUnits<'_> {
    type Item = u64;
    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        self.body.uint("").ok()
    }
}

/// How a parse meets signature ids: defining them (first pass) or looking them up (re-reading).
pub(crate) trait Resolve {
    /// Reads a signature id (and its definition body where this is its first use).
    fn resolve(
        &mut self,
        kind: SigKind,
        r: &mut Cur<'_>,
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

impl<T: SigLookup + ?Sized> Resolve for Define<'_, T> {
    #[inline]
    fn resolve(
        &mut self,
        kind: SigKind,
        r: &mut Cur<'_>,
        version: u64,
    ) -> Result<(u64, SigInfo), Error> {
        let at = r.offset();
        let id = r.uint(what(kind))?;
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
                    .map_err(|k| Error::new(k, at))?;
                Ok((id, info))
            }
        }
    }
}

impl<T: SigLookup + ?Sized> Resolve for Lookup<'_, T> {
    #[inline]
    fn resolve(
        &mut self,
        kind: SigKind,
        r: &mut Cur<'_>,
        version: u64,
    ) -> Result<(u64, SigInfo), Error> {
        let at = r.offset();
        let id = r.uint(what(kind))?;
        match self.0.get(kind, id) {
            Some(info) if info.offset != at => Ok((id, info)),
            Some(info) => {
                parse_definition(r, kind, version)?;
                Ok((id, info))
            }
            None => Err(Error::new(ErrorKind::Undefined(kind.name()), at)),
        }
    }
}

/// The error for a compound value nested deeper than [`MAX_DEPTH`].
#[cold]
fn too_deep(at: u64) -> Error {
    Error::new(ErrorKind::TooDeep(MAX_DEPTH), at)
}

/// Parses one value at `r`. Scalars (the bulk of a trace) are read in line; compound values,
/// signatures and errors out of line.
#[inline]
pub(crate) fn parse_value<'a, R: Resolve>(
    r: &mut Cur<'a>,
    res: &mut R,
    version: u64,
    depth: u32,
) -> Result<Value<'a>, Error> {
    let at = r.offset();
    match r.byte("value tag")? {
        0x00 => Ok(Value::Null),
        0x01 => Ok(Value::Bool(false)),
        0x02 => Ok(Value::Bool(true)),
        0x03 => r
            .uint("integer")
            .map(|v| Value::SInt((v as i64).wrapping_neg())),
        0x04 => r.uint("integer").map(Value::UInt),
        0x05 => r
            .array("float")
            .map(|b| Value::Float(f32::from_le_bytes(b))),
        0x06 => r
            .array("double")
            .map(|b| Value::Double(f64::from_le_bytes(b))),
        0x0d => r.uint("pointer").map(Value::Pointer),
        tag => parse_other(tag, at, r, res, version, depth),
    }
}

/// [`parse_value`] past the tag byte, for everything but the fixed-size scalars.
#[inline(never)]
fn parse_other<'a, R: Resolve>(
    tag: u8,
    at: u64,
    r: &mut Cur<'a>,
    res: &mut R,
    version: u64,
    depth: u32,
) -> Result<Value<'a>, Error> {
    let v8 = version_byte(version);
    Ok(match tag {
        0x07 => {
            let n = r.uint("string length")?;
            Value::String(r.bytes(n, "string")?)
        }
        0x08 => {
            let n = r.uint("blob size")?;
            Value::Blob(r.bytes(n, "blob")?)
        }
        0x09 => {
            let (sig, info) = res.resolve(SigKind::Enum, r, version)?;
            let value = if version >= 3 {
                r.sint("enum value")?
            } else {
                info.extra
            };
            Value::Enum { sig, value }
        }
        0x0a => {
            let (sig, _) = res.resolve(SigKind::Bitmask, r, version)?;
            Value::Bitmask {
                sig,
                value: r.uint("bitmask value")?,
            }
        }
        0x0b => {
            let count = r.uint("array length")?;
            if depth >= MAX_DEPTH {
                return Err(too_deep(at));
            }
            let start = r.pos();
            skip_values(r, res, version, depth + 1, count)?;
            Value::Array(Array {
                count,
                body: r.since(start),
                version: v8,
            })
        }
        0x0c => {
            let (sig, info) = res.resolve(SigKind::Struct, r, version)?;
            if depth >= MAX_DEPTH {
                return Err(too_deep(at));
            }
            let count = info.extra as u64;
            let start = r.pos();
            skip_values(r, res, version, depth + 1, count)?;
            Value::Struct(Struct {
                sig,
                count,
                body: r.since(start),
                version: v8,
            })
        }
        0x0e => {
            if depth >= MAX_DEPTH {
                return Err(too_deep(at));
            }
            let start = r.pos();
            skip_values(r, res, version, depth + 1, 2)?;
            Value::Repr(Repr {
                body: r.since(start),
                version: v8,
            })
        }
        0x0f => {
            let count = r.uint("wide string length")?;
            let start = r.pos();
            skip_units(r, count)?;
            Value::WString(WStr {
                count,
                body: r.since(start),
            })
        }
        t => return Err(Error::new(ErrorKind::UnknownTag(t), at)),
    })
}

/// Reads past one value at `r` (validating it and resolving its signatures) without building
/// it: the first pass over an event, and the bodies of compound values.
#[inline]
pub(crate) fn skip_value<R: Resolve>(
    r: &mut Cur<'_>,
    res: &mut R,
    version: u64,
    depth: u32,
) -> Result<(), Error> {
    let at = r.offset();
    match r.byte("value tag")? {
        0x00..=0x02 => Ok(()),
        0x03 | 0x04 => r.uint("integer").map(drop),
        0x05 => r.skip(4, "float"),
        0x06 => r.skip(8, "double"),
        0x0d => r.uint("pointer").map(drop),
        tag => skip_other(tag, at, r, res, version, depth),
    }
}

/// Reads past `count` values.
#[inline]
fn skip_values<R: Resolve>(
    r: &mut Cur<'_>,
    res: &mut R,
    version: u64,
    depth: u32,
    count: u64,
) -> Result<(), Error> {
    let mut i = 0;
    while i < count {
        skip_value(r, res, version, depth)?;
        i += 1;
    }
    Ok(())
}

/// Reads past `count` wide-string code units.
fn skip_units(r: &mut Cur<'_>, count: u64) -> Result<(), Error> {
    let mut i = 0;
    while i < count {
        r.uint("wide string")?;
        i += 1;
    }
    Ok(())
}

/// [`skip_value`] past the tag byte, for everything but the fixed-size scalars.
#[inline(never)]
fn skip_other<R: Resolve>(
    tag: u8,
    at: u64,
    r: &mut Cur<'_>,
    res: &mut R,
    version: u64,
    depth: u32,
) -> Result<(), Error> {
    match tag {
        0x07 => {
            let n = r.uint("string length")?;
            r.bytes(n, "string")?;
        }
        0x08 => {
            let n = r.uint("blob size")?;
            r.bytes(n, "blob")?;
        }
        0x09 => {
            res.resolve(SigKind::Enum, r, version)?;
            if version >= 3 {
                r.sint("enum value")?;
            }
        }
        0x0a => {
            res.resolve(SigKind::Bitmask, r, version)?;
            r.uint("bitmask value")?;
        }
        0x0b => {
            let count = r.uint("array length")?;
            if depth >= MAX_DEPTH {
                return Err(too_deep(at));
            }
            skip_values(r, res, version, depth + 1, count)?;
        }
        0x0c => {
            let (_, info) = res.resolve(SigKind::Struct, r, version)?;
            if depth >= MAX_DEPTH {
                return Err(too_deep(at));
            }
            skip_values(r, res, version, depth + 1, info.extra as u64)?;
        }
        0x0e => {
            if depth >= MAX_DEPTH {
                return Err(too_deep(at));
            }
            skip_values(r, res, version, depth + 1, 2)?;
        }
        0x0f => {
            let count = r.uint("wide string length")?;
            skip_units(r, count)?;
        }
        t => return Err(Error::new(ErrorKind::UnknownTag(t), at)),
    }
    Ok(())
}
