//! The data of value records: 13 data types, scalars, arrays and strings.

use crate::error::{Error, ErrorKind};

/// The data type byte of a value record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// 1 byte, non-zero = true.
    Bool,
    /// 1 byte, C `char` (signed).
    Char,
    /// Signed 8-bit.
    Int8,
    /// Unsigned 8-bit.
    Uint8,
    /// Signed 16-bit.
    Int16,
    /// Unsigned 16-bit.
    Uint16,
    /// Signed 32-bit.
    Int32,
    /// Unsigned 32-bit.
    Uint32,
    /// Signed 64-bit.
    Int64,
    /// Unsigned 64-bit.
    Uint64,
    /// IEEE-754 single.
    Float,
    /// IEEE-754 double.
    Double,
    /// Bytes of text (with a NUL when written by `EASY_TEXT`, without one when sized).
    String,
}

impl DataType {
    /// All 13 types in wire order.
    pub const ALL: [DataType; 13] = [
        DataType::Bool,
        DataType::Char,
        DataType::Int8,
        DataType::Uint8,
        DataType::Int16,
        DataType::Uint16,
        DataType::Int32,
        DataType::Uint32,
        DataType::Int64,
        DataType::Uint64,
        DataType::Float,
        DataType::Double,
        DataType::String,
    ];

    /// Decodes the type byte.
    pub fn from_u8(b: u8, offset: u64) -> Result<Self, Error> {
        DataType::ALL
            .get(usize::from(b))
            .copied()
            .ok_or(Error::new(ErrorKind::UnknownValueType(b), offset))
    }

    /// The type byte.
    pub fn to_u8(self) -> u8 {
        self as u8
    }

    /// Bytes per element (1 for strings).
    pub const fn element_size(self) -> usize {
        match self {
            DataType::Bool | DataType::Char | DataType::Int8 | DataType::Uint8 => 1,
            DataType::String => 1,
            DataType::Int16 | DataType::Uint16 => 2,
            DataType::Int32 | DataType::Uint32 | DataType::Float => 4,
            DataType::Int64 | DataType::Uint64 | DataType::Double => 8,
        }
    }

    /// The name as the format facts spell it (`Bool`, `Uint64`, `String`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DataType::Bool => "Bool",
            DataType::Char => "Char",
            DataType::Int8 => "Int8",
            DataType::Uint8 => "Uint8",
            DataType::Int16 => "Int16",
            DataType::Uint16 => "Uint16",
            DataType::Int32 => "Int32",
            DataType::Uint32 => "Uint32",
            DataType::Int64 => "Int64",
            DataType::Uint64 => "Uint64",
            DataType::Float => "Float",
            DataType::Double => "Double",
            DataType::String => "String",
        }
    }
}

/// One decoded element of a value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Element {
    /// A `Bool`.
    Bool(bool),
    /// A `Char` (signed, as C's `char` on the platforms EasyProfiler runs on).
    Char(i8),
    /// An `Int8`.
    Int8(i8),
    /// A `Uint8`.
    Uint8(u8),
    /// An `Int16`.
    Int16(i16),
    /// A `Uint16`.
    Uint16(u16),
    /// An `Int32`.
    Int32(i32),
    /// A `Uint32`.
    Uint32(u32),
    /// An `Int64`.
    Int64(i64),
    /// A `Uint64`.
    Uint64(u64),
    /// A `Float`.
    Float(f32),
    /// A `Double`.
    Double(f64),
}

/// The elements of a non-string value, decoded on the fly from the borrowed data.
///
/// Trailing bytes that do not fill a whole element are not yielded (the upstream reader ignores
/// them the same way).
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    ty: DataType,
    /// Bytes per element.
    size: usize,
    /// The whole elements not yet yielded.
    data: &'a [u8],
}

impl<'a> Elements<'a> {
    pub(crate) fn new(ty: DataType, data: &'a [u8]) -> Self {
        // Element sizes are powers of two: a mask, not a division (this runs for every value).
        let size = ty.element_size();
        let whole = data.len() & !(size - 1);
        Elements {
            ty,
            size,
            data: data.get(..whole).unwrap_or(&[]),
        }
    }
}

fn arr<const N: usize>(c: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    if let Some(src) = c.get(..N) {
        a.copy_from_slice(src);
    }
    a
}

impl Iterator for Elements<'_> {
    type Item = Element;

    #[inline]
    fn next(&mut self) -> Option<Element> {
        let (c, rest) = self.data.split_at_checked(self.size)?;
        self.data = rest;
        let b0 = c.first().copied().unwrap_or(0);
        Some(match self.ty {
            DataType::Bool => Element::Bool(b0 != 0),
            DataType::Char => Element::Char(b0 as i8),
            DataType::Int8 => Element::Int8(b0 as i8),
            // A string is not a sequence of elements; read its bytes as Uint8 if asked.
            DataType::Uint8 | DataType::String => Element::Uint8(b0),
            DataType::Int16 => Element::Int16(i16::from_le_bytes(arr(c))),
            DataType::Uint16 => Element::Uint16(u16::from_le_bytes(arr(c))),
            DataType::Int32 => Element::Int32(i32::from_le_bytes(arr(c))),
            DataType::Uint32 => Element::Uint32(u32::from_le_bytes(arr(c))),
            DataType::Int64 => Element::Int64(i64::from_le_bytes(arr(c))),
            DataType::Uint64 => Element::Uint64(u64::from_le_bytes(arr(c))),
            DataType::Float => Element::Float(f32::from_le_bytes(arr(c))),
            DataType::Double => Element::Double(f64::from_le_bytes(arr(c))),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.data.len() >> self.size.trailing_zeros();
        (n, Some(n))
    }

    /// The same elements as `next`, with the type matched once for all of them (`for_each`,
    /// `sum` and friends go through here).
    #[inline(always)]
    fn fold<B, F: FnMut(B, Element) -> B>(self, init: B, mut f: F) -> B {
        let d = self.data;
        match self.ty {
            DataType::Bool => d.iter().fold(init, |a, &b| f(a, Element::Bool(b != 0))),
            DataType::Char => d.iter().fold(init, |a, &b| f(a, Element::Char(b as i8))),
            DataType::Int8 => d.iter().fold(init, |a, &b| f(a, Element::Int8(b as i8))),
            DataType::Uint8 | DataType::String => {
                d.iter().fold(init, |a, &b| f(a, Element::Uint8(b)))
            }
            DataType::Int16 => each(d, init, |c| Element::Int16(i16::from_le_bytes(c)), f),
            DataType::Uint16 => each(d, init, |c| Element::Uint16(u16::from_le_bytes(c)), f),
            DataType::Int32 => each(d, init, |c| Element::Int32(i32::from_le_bytes(c)), f),
            DataType::Uint32 => each(d, init, |c| Element::Uint32(u32::from_le_bytes(c)), f),
            DataType::Float => each(d, init, |c| Element::Float(f32::from_le_bytes(c)), f),
            DataType::Int64 => each(d, init, |c| Element::Int64(i64::from_le_bytes(c)), f),
            DataType::Uint64 => each(d, init, |c| Element::Uint64(u64::from_le_bytes(c)), f),
            DataType::Double => each(d, init, |c| Element::Double(f64::from_le_bytes(c)), f),
        }
    }
}

/// Folds the `N`-byte elements of `data` (whole ones only), each decoded by `decode`.
#[inline(always)]
fn each<const N: usize, B>(
    data: &[u8],
    init: B,
    decode: impl Fn([u8; N]) -> Element,
    mut f: impl FnMut(B, Element) -> B,
) -> B {
    data.chunks_exact(N).fold(init, |a, c| f(a, decode(arr(c))))
}

impl ExactSizeIterator for Elements<'_> {}
