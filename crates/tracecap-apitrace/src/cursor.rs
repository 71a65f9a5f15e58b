//! [`Cur`]: the stream cursor of the event grammar, and [`Span`], the bytes a lazy view keeps.
//!
//! It reads what `tracecap_wire::Reader` reads, with the same errors at the same absolute
//! offsets, but is shaped for the hot path of this format: most varints are one byte and most
//! reads are one tag byte, so those are a bounds check and an increment; everything else (long
//! varints, errors) is out of line. Errors name what was being read.

use tracecap_wire::{decode_uleb64, Context};

use crate::error::{Error, ErrorKind};

/// Borrowed stream bytes whose first byte sits at absolute stream offset `base`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) base: u64,
}

impl<'a> Span<'a> {
    /// No bytes, at `base`.
    pub(crate) const fn empty(base: u64) -> Self {
        Span { data: &[], base }
    }

    /// A cursor at the first byte.
    #[inline]
    pub(crate) const fn cur(self) -> Cur<'a> {
        Cur {
            data: self.data,
            pos: 0,
            base: self.base,
        }
    }
}

/// A read position in stream bytes. A successful read advances past what it returns; after a
/// failed one the position is unspecified (callers that retry keep a copy).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cur<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) base: u64,
}

impl<'a> Cur<'a> {
    /// A cursor over `data`, whose first byte is at absolute stream offset `base`.
    #[inline]
    pub(crate) const fn new(data: &'a [u8], base: u64) -> Self {
        Cur { data, pos: 0, base }
    }

    /// Absolute offset of the next byte.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.base.wrapping_add(self.pos as u64)
    }

    /// Bytes read since the cursor was made.
    #[inline]
    pub(crate) const fn pos(&self) -> usize {
        self.pos
    }

    /// True when every byte has been read.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The bytes read since position `from` (an earlier [`Cur::pos`]), as a span.
    #[inline]
    pub(crate) fn since(&self, from: usize) -> Span<'a> {
        self.span(from, self.pos)
    }

    /// The bytes between positions `from` and `to`, as a span.
    #[inline]
    pub(crate) fn span(&self, from: usize, to: usize) -> Span<'a> {
        Span {
            data: self.data.get(from..to).unwrap_or(&[]),
            base: self.base.wrapping_add(from as u64),
        }
    }

    #[cold]
    #[inline(never)]
    fn truncated(&self, what: &'static str, needed: u64) -> Error {
        let available = self.data.len().saturating_sub(self.pos) as u64;
        Error::truncated(what, self.offset(), needed, available)
    }

    /// One byte.
    #[inline]
    pub(crate) fn byte(&mut self, what: &'static str) -> Result<u8, Error> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated(what, 1)),
        }
    }

    /// A `uint` (LEB128, at most 64 bits; overlong and overflowing encodings are errors).
    #[inline]
    pub(crate) fn uint(&mut self, what: &'static str) -> Result<u64, Error> {
        // Indexes, lengths and most values of a trace are one byte.
        match self.data.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Ok(u64::from(b))
            }
            _ => self.multi_byte_uint(what),
        }
    }

    /// A `uint` of two bytes or more: signature ids (a function's index in the tracer's
    /// tables) are two, call numbers two to four.
    #[inline(never)]
    fn multi_byte_uint(&mut self, what: &'static str) -> Result<u64, Error> {
        if let Some(&[b0, b1, b2, b3]) = self.data.get(self.pos..).and_then(|r| r.first_chunk()) {
            // `b0` has its high bit set (else `uint` would have taken it); a last byte of zero
            // would be overlong and is left to the byte layer.
            let v = u64::from(b0 & 0x7f) | u64::from(b1 & 0x7f) << 7;
            if b1 < 0x80 {
                if b1 != 0 {
                    self.pos += 2;
                    return Ok(v);
                }
            } else {
                let v = v | u64::from(b2 & 0x7f) << 14;
                if b2 < 0x80 {
                    if b2 != 0 {
                        self.pos += 3;
                        return Ok(v);
                    }
                } else if b3 < 0x80 && b3 != 0 {
                    self.pos += 4;
                    return Ok(v | u64::from(b3) << 21);
                }
            }
        }
        self.long_uint(what)
    }

    /// Any `uint`, and every malformed one, through the byte layer's decoder.
    #[cold]
    #[inline(never)]
    fn long_uint(&mut self, what: &'static str) -> Result<u64, Error> {
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        match decode_uleb64(rest) {
            Ok((v, n)) => {
                self.pos += n;
                Ok(v)
            }
            Err((kind, at)) => Err(varint_error(kind, what, self.offset(), at)),
        }
    }

    /// Skips `n` bytes.
    #[inline]
    pub(crate) fn skip(&mut self, n: usize, what: &'static str) -> Result<(), Error> {
        if n <= self.data.len().saturating_sub(self.pos) {
            self.pos += n;
            Ok(())
        } else {
            Err(self.truncated(what, n as u64))
        }
    }

    /// `n` bytes, `n` read from the stream.
    #[inline]
    pub(crate) fn bytes(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], Error> {
        let left = self.data.len().saturating_sub(self.pos);
        match usize::try_from(n) {
            Ok(k) if k <= left => {
                let s = self.data.get(self.pos..self.pos + k).unwrap_or(&[]);
                self.pos += k;
                Ok(s)
            }
            _ => Err(self.truncated(what, n)),
        }
    }

    /// A fixed number of bytes.
    #[inline]
    pub(crate) fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], Error> {
        match self.data.get(self.pos..).and_then(|r| r.first_chunk::<N>()) {
            Some(a) => {
                self.pos += N;
                Ok(*a)
            }
            None => Err(self.truncated(what, N as u64)),
        }
    }

    /// A `string`: `uint` length, then the bytes.
    #[inline]
    pub(crate) fn string(&mut self, what: &'static str) -> Result<&'a [u8], Error> {
        let n = self.uint(what)?;
        self.bytes(n, what)
    }

    /// A tagged signed integer (`0x03 uint` negative, `0x04 uint` positive).
    #[inline]
    pub(crate) fn sint(&mut self, what: &'static str) -> Result<i64, Error> {
        let at = self.offset();
        match self.byte(what)? {
            3 => self.uint(what).map(|v| (v as i64).wrapping_neg()),
            4 => self.uint(what).map(|v| v as i64),
            t => Err(Error::new(ErrorKind::BadEnumValueTag(t), at)),
        }
    }
}

/// The stream error for a varint the byte layer refused at `at` bytes past `offset`.
#[cold]
fn varint_error(
    kind: tracecap_wire::ErrorKind,
    what: &'static str,
    offset: u64,
    at: usize,
) -> Error {
    Error::new(ErrorKind::Shared(kind), offset.saturating_add(at as u64)).what(what)
}
