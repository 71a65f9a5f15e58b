//! [`Reader`]: a cursor over borrowed bytes that knows where it is in the file.

use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::endian::Endian;
use crate::error::{Error, ErrorKind};
use crate::leb128::{decode_uleb32, decode_uleb64};

/// A cursor over `&'a [u8]` whose first byte sits at absolute file offset `base`.
///
/// Every read either advances past what it returns or leaves the cursor where it was and returns
/// an [`Error`] carrying the absolute offset of the failed read. Slices it returns borrow from the
/// input (`'a`), never from the reader.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

macro_rules! fixed_read {
    ($name:ident, $t:ty, $from:ident) => {
        #[doc = concat!("Reads a `", stringify!($t), "` (`", stringify!($from), "`).")]
        #[inline]
        pub fn $name(&mut self) -> Result<$t, Error> {
            self.array().map(<$t>::$from)
        }
    };
}

macro_rules! endian_read {
    ($name:ident, $t:ty, $n:expr) => {
        #[doc = concat!("Reads a `", stringify!($t), "` in the byte order `e`.")]
        #[inline]
        pub fn $name(&mut self, e: Endian) -> Result<$t, Error> {
            self.array::<$n>().map(|b| e.$name(b))
        }
    };
}

impl<'a> Reader<'a> {
    /// A reader over `data`, which starts the file (offset 0).
    #[inline]
    pub const fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
        }
    }

    /// A reader over `data`, whose first byte is at absolute file offset `base`.
    #[inline]
    pub const fn at(data: &'a [u8], base: u64) -> Self {
        Reader { data, pos: 0, base }
    }

    /// Absolute file offset of the next byte to be read.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    /// Absolute file offset of the reader's first byte.
    #[inline]
    pub const fn base(&self) -> u64 {
        self.base
    }

    /// Bytes consumed so far (relative to the reader's start).
    #[inline]
    pub const fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// True when every byte has been read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes, without consuming them.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// The whole input this reader was made over, read or not.
    #[inline]
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// An error of `kind` at the current offset.
    #[cold]
    pub fn error(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.offset())
    }

    #[cold]
    fn truncated(&self, needed: u64) -> Error {
        Error::truncated("data", self.offset(), needed, self.remaining() as u64)
    }

    /// Consumes everything left and returns it.
    #[inline]
    pub fn take_rest(&mut self) -> &'a [u8] {
        let rest = self.rest();
        self.pos = self.data.len();
        rest
    }

    /// Reads `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end.and_then(|end| self.data.get(self.pos..end).map(|s| (s, end))) {
            Some((s, end)) => {
                self.pos = end;
                Ok(s)
            }
            None => Err(self.truncated(n as u64)),
        }
    }

    /// Reads `n` bytes where `n` comes from the file as a `u64` (checked against what is left
    /// before anything is done with it).
    #[inline]
    pub fn bytes_u64(&mut self, n: u64) -> Result<&'a [u8], Error> {
        match usize::try_from(n) {
            Ok(n) => self.bytes(n),
            Err(_) => Err(self.truncated(n)),
        }
    }

    /// Skips `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<(), Error> {
        self.bytes(n).map(|_| ())
    }

    /// Reads a fixed-size array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let s = self.bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Looks at the next `n` bytes without consuming them.
    #[inline]
    pub fn peek(&self, n: usize) -> Result<&'a [u8], Error> {
        let mut copy = *self;
        copy.bytes(n)
    }

    /// A sub-reader over the next `len` bytes, which this reader skips. The sub-reader's offsets
    /// stay absolute, and it cannot read past `len`: use it for length-prefixed parts.
    #[inline]
    pub fn sub(&mut self, len: u64) -> Result<Reader<'a>, Error> {
        let base = self.offset();
        let bytes = self.bytes_u64(len)?;
        Ok(Reader::at(bytes, base))
    }

    /// A typed view of a fixed layout at the cursor (a zerocopy struct with byte-order fields).
    #[inline]
    pub fn view<T>(&mut self) -> Result<&'a T, Error>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        match T::ref_from_prefix(self.rest()) {
            Ok((v, _)) => {
                self.pos = self.pos.saturating_add(core::mem::size_of::<T>());
                Ok(v)
            }
            Err(_) => Err(self.truncated(core::mem::size_of::<T>() as u64)),
        }
    }

    /// Reads bytes up to a NUL, consumes the NUL too, and returns the bytes before it.
    #[inline]
    pub fn cstr(&mut self) -> Result<&'a [u8], Error> {
        let rest = self.rest();
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = rest.get(..n).unwrap_or(&[]);
                self.pos = self.pos.saturating_add(n).saturating_add(1);
                Ok(s)
            }
            None => Err(Error::new(
                ErrorKind::MissingNul { what: "data" },
                self.offset().saturating_add(rest.len() as u64),
            )),
        }
    }

    /// Skips to the next multiple of `align` (relative to absolute file offset 0), and returns the
    /// skipped padding bytes. `align` must be a power of two; 0 and 1 skip nothing.
    #[inline]
    pub fn align(&mut self, align: u64) -> Result<&'a [u8], Error> {
        let pad = padding_to(self.offset(), align);
        self.bytes_u64(pad)
    }

    /// Like [`Reader::align`], but the padding must be zero bytes.
    #[inline]
    pub fn align_zeroed(&mut self, align: u64) -> Result<(), Error> {
        let start = *self;
        let pad = self.align(align)?;
        match pad.iter().position(|&b| b != 0) {
            None => Ok(()),
            Some(i) => {
                *self = start;
                Err(Error::new(
                    ErrorKind::NonZeroPadding { what: "data" },
                    start.offset().saturating_add(i as u64),
                ))
            }
        }
    }

    fixed_read!(u16_le, u16, from_le_bytes);
    fixed_read!(u32_le, u32, from_le_bytes);
    fixed_read!(u64_le, u64, from_le_bytes);
    fixed_read!(i16_le, i16, from_le_bytes);
    fixed_read!(i32_le, i32, from_le_bytes);
    fixed_read!(i64_le, i64, from_le_bytes);
    fixed_read!(f32_le, f32, from_le_bytes);
    fixed_read!(f64_le, f64, from_le_bytes);
    fixed_read!(u16_be, u16, from_be_bytes);
    fixed_read!(u32_be, u32, from_be_bytes);
    fixed_read!(u64_be, u64, from_be_bytes);
    fixed_read!(i16_be, i16, from_be_bytes);
    fixed_read!(i32_be, i32, from_be_bytes);
    fixed_read!(i64_be, i64, from_be_bytes);
    fixed_read!(f32_be, f32, from_be_bytes);
    fixed_read!(f64_be, f64, from_be_bytes);
    endian_read!(u16, u16, 2);
    endian_read!(u32, u32, 4);
    endian_read!(u64, u64, 8);
    endian_read!(i16, i16, 2);
    endian_read!(i32, i32, 4);
    endian_read!(i64, i64, 8);
    endian_read!(f32, f32, 4);
    endian_read!(f64, f64, 8);

    /// Reads one byte.
    #[inline]
    pub fn u8(&mut self) -> Result<u8, Error> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos = self.pos.saturating_add(1);
                Ok(b)
            }
            None => Err(self.truncated(1)),
        }
    }

    /// Reads one signed byte.
    #[inline]
    pub fn i8(&mut self) -> Result<i8, Error> {
        self.u8().map(|b| b as i8)
    }

    /// Reads an unsigned LEB128 varint of at most 64 bits (overlong and overflowing encodings are
    /// errors).
    #[inline]
    pub fn uleb64(&mut self) -> Result<u64, Error> {
        match decode_uleb64(self.rest()) {
            Ok((v, n)) => {
                self.pos = self.pos.saturating_add(n);
                Ok(v)
            }
            Err((kind, at)) => Err(Error::new(kind, self.offset().saturating_add(at as u64))),
        }
    }

    /// Reads an unsigned LEB128 varint of at most 32 bits.
    #[inline]
    pub fn uleb32(&mut self) -> Result<u32, Error> {
        match decode_uleb32(self.rest()) {
            Ok((v, n)) => {
                self.pos = self.pos.saturating_add(n);
                Ok(v)
            }
            Err((kind, at)) => Err(Error::new(kind, self.offset().saturating_add(at as u64))),
        }
    }

    /// Reads a zigzag-encoded signed LEB128 varint (protobuf `sint64`).
    #[inline]
    pub fn zigzag64(&mut self) -> Result<i64, Error> {
        self.uleb64().map(|v| ((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Reads a signed (two's complement, sign-extended) LEB128 varint of at most 64 bits.
    pub fn sleb64(&mut self) -> Result<i64, Error> {
        let start = self.offset();
        let mut value: i64 = 0;
        let mut shift: u32 = 0;
        loop {
            let b = self.u8()?;
            if shift == 63 && b != 0 && b != 0x7f {
                return Err(Error::new(
                    ErrorKind::VarintOverflow {
                        what: "data",
                        bits: 64,
                    },
                    self.offset().saturating_sub(1),
                ));
            }
            value |= i64::from(b & 0x7f) << shift;
            shift = shift.saturating_add(7);
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 {
                    value |= -1i64 << shift;
                }
                return Ok(value);
            }
            if shift > 63 {
                return Err(Error::new(
                    ErrorKind::VarintOverflow {
                        what: "data",
                        bits: 64,
                    },
                    start,
                ));
            }
        }
    }
}

/// Bytes of padding needed to move `offset` up to a multiple of `align` (a power of two; 0 and 1
/// need none).
#[inline]
pub fn padding_to(offset: u64, align: u64) -> u64 {
    if align <= 1 {
        return 0;
    }
    let rem = offset & (align.wrapping_sub(1));
    if rem == 0 {
        0
    } else {
        align.wrapping_sub(rem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::byteorder::{BigEndian, LittleEndian, U16, U32};

    #[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
    #[repr(C)]
    struct Head {
        magic: U32<LittleEndian>,
        count: U16<BigEndian>,
    }

    #[test]
    fn reads_and_offsets() {
        let data = [1u8, 0, 0, 0, 0, 2, b'h', b'i', 0, 9];
        let mut r = Reader::at(&data, 100);
        let h = r.view::<Head>().unwrap(); // ok: unit test
        assert_eq!(h.magic.get(), 1);
        assert_eq!(h.count.get(), 2);
        assert_eq!(r.offset(), 106);
        assert_eq!(r.cstr().unwrap(), b"hi"); // ok: unit test
        assert_eq!(r.u8().unwrap(), 9); // ok: unit test
        let e = r.u8().unwrap_err();
        assert_eq!(e, Error::truncated("data", 110, 1, 0));
    }

    #[test]
    fn failed_read_does_not_move() {
        let data = [1u8, 2, 3];
        let mut r = Reader::new(&data);
        assert!(r.u32_le().is_err());
        assert_eq!(r.position(), 0);
        assert!(r.bytes_u64(u64::MAX).is_err());
        assert!(r.view::<Head>().is_err());
        assert_eq!(r.u16_be().unwrap(), 0x0102); // ok: unit test
    }

    #[test]
    fn sub_reader_is_bounded_and_absolute() {
        let data = [0u8, 0, 5, 6, 7, 8];
        let mut r = Reader::at(&data, 10);
        r.skip(2).unwrap(); // ok: unit test
        let mut s = r.sub(2).unwrap(); // ok: unit test
        assert_eq!(s.offset(), 12);
        assert_eq!(s.u16_le().unwrap(), 0x0605); // ok: unit test
        assert_eq!(s.u8().unwrap_err().offset, 14);
        assert_eq!(r.offset(), 14);
        assert!(r.sub(3).is_err());
    }

    #[test]
    fn endian_and_floats() {
        let data = 1.5f64.to_be_bytes();
        assert_eq!(Reader::new(&data).f64(Endian::Big).unwrap(), 1.5); // ok: unit test
        let data = 0x1234u16.to_le_bytes();
        assert_eq!(Reader::new(&data).u16(Endian::Little).unwrap(), 0x1234); // ok: unit test
        assert_eq!(Reader::new(&data).u16(Endian::Big).unwrap(), 0x3412); // ok: unit test
    }

    #[test]
    fn alignment() {
        assert_eq!(padding_to(0, 4), 0);
        assert_eq!(padding_to(5, 4), 3);
        assert_eq!(padding_to(8, 8), 0);
        assert_eq!(padding_to(7, 0), 0);
        let data = [9u8, 0, 0, 0, 1, 2, 3, 4];
        let mut r = Reader::new(&data);
        r.u8().unwrap(); // ok: unit test
        r.align_zeroed(4).unwrap(); // ok: unit test
        assert_eq!(r.offset(), 4);
        let data = [9u8, 0, 7, 0];
        let mut r = Reader::new(&data);
        r.u8().unwrap(); // ok: unit test
        assert_eq!(r.align_zeroed(4).unwrap_err().offset, 2);
        assert_eq!(r.offset(), 1);
    }

    #[test]
    fn varints_report_absolute_offsets() {
        let data = [0x80u8, 0x00];
        let e = Reader::at(&data, 50).uleb64().unwrap_err();
        assert_eq!(
            e,
            Error::new(ErrorKind::VarintOverlong { what: "data" }, 51)
        );
        let data = [0x03u8];
        assert_eq!(Reader::new(&data).zigzag64().unwrap(), -2); // ok: unit test
        for (bytes, v) in [
            (&[0x7fu8][..], -1i64),
            (&[0x80, 0x7f][..], -128),
            (&[0x3f][..], 63),
            (&[0xc0, 0x00][..], 64),
        ] {
            assert_eq!(Reader::new(bytes).sleb64().unwrap(), v); // ok: unit test
        }
    }

    proptest::proptest! {
        #[test]
        fn cstr_never_panics(bytes: Vec<u8>, base: u64) {
            let mut r = Reader::at(&bytes, base);
            while !r.is_empty() {
                if r.cstr().is_err() { break; }
            }
        }
    }
}
