//! Reads for a format's fast path, and the read-ahead touch of record walks.
//!
//! Each `split_*` function reads from the front of a slice and returns the value with the rest,
//! or `None` when the bytes are not there (or, for a varint, not well formed). A fast path reads
//! whole records this way and, on `None`, hands the record to its precise reader (a
//! [`Reader`](crate::Reader)), which reports the fault with its offset. The two paths must agree
//! on every input; each format crate tests that in its `fast_path` test.
//!
//! ```
//! use tracecap_wire::fast::{split_u32_le, split_uleb64};
//!
//! let bytes = [0x2a, 0, 0, 0, 0xe5, 0x8e, 0x26, 9];
//! let (n, rest) = split_u32_le(&bytes).unwrap();
//! let (v, rest) = split_uleb64(rest).unwrap();
//! assert_eq!((n, v, rest), (42, 624_485, &[9u8][..]));
//! assert_eq!(split_u32_le(rest), None);
//! ```

use crate::endian::Endian;
use crate::leb128::decode_uleb64;

/// How far ahead of the current record a record walk touches the input.
///
/// In a stream of variable-sized records, each record's size says where the next starts: a chain
/// of dependent loads. Touching the byte this far ahead starts the next cache miss early.
pub const READ_AHEAD: usize = 256;

/// Touches the byte [`READ_AHEAD`] bytes into `rest`, if there is one (see [`READ_AHEAD`]).
#[inline(always)]
pub fn touch_ahead(rest: &[u8]) {
    core::hint::black_box(rest.get(READ_AHEAD).copied());
}

/// The first `N` bytes, and the rest.
#[inline(always)]
pub fn split_array<const N: usize>(rest: &[u8]) -> Option<(&[u8; N], &[u8])> {
    rest.split_first_chunk::<N>()
}

/// The first `n` bytes, and the rest.
#[inline(always)]
pub fn split_bytes(rest: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    rest.split_at_checked(n)
}

/// The first byte, and the rest.
#[inline(always)]
pub fn split_u8(rest: &[u8]) -> Option<(u8, &[u8])> {
    rest.split_first().map(|(&b, r)| (b, r))
}

macro_rules! split_fixed {
    ($name:ident, $t:ty, $from:ident) => {
        #[doc = concat!("A `", stringify!($t), "` (`", stringify!($from), "`), and the rest.")]
        #[inline(always)]
        pub fn $name(rest: &[u8]) -> Option<($t, &[u8])> {
            split_array(rest).map(|(a, r)| (<$t>::$from(*a), r))
        }
    };
}

split_fixed!(split_u16_le, u16, from_le_bytes);
split_fixed!(split_u32_le, u32, from_le_bytes);
split_fixed!(split_u64_le, u64, from_le_bytes);
split_fixed!(split_i64_le, i64, from_le_bytes);

/// A `u32` in the byte order `e`, and the rest.
#[inline(always)]
pub fn split_u32(rest: &[u8], e: Endian) -> Option<(u32, &[u8])> {
    split_array(rest).map(|(a, r)| (e.u32(*a), r))
}

/// A `u64` in the byte order `e`, and the rest.
#[inline(always)]
pub fn split_u64(rest: &[u8], e: Endian) -> Option<(u64, &[u8])> {
    split_array(rest).map(|(a, r)| (e.u64(*a), r))
}

/// An unsigned LEB128 varint of at most 64 bits, and the rest; `None` when it is cut short,
/// overlong or overflowing (the same rules as [`Reader::uleb64`](crate::Reader::uleb64)).
#[inline(always)]
pub fn split_uleb64(rest: &[u8]) -> Option<(u64, &[u8])> {
    match rest.split_first() {
        Some((&b, r)) if b < 0x80 => Some((u64::from(b), r)),
        _ => {
            let (v, n) = decode_uleb64(rest).ok()?;
            Some((v, rest.get(n..)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;

    #[test]
    fn splits_agree_with_the_reader() {
        let bytes = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
        for cut in 0..=bytes.len() {
            let b = &bytes[..cut];
            assert_eq!(split_u8(b).map(|x| x.0), Reader::new(b).u8().ok());
            assert_eq!(split_u16_le(b).map(|x| x.0), Reader::new(b).u16_le().ok());
            assert_eq!(split_u32_le(b).map(|x| x.0), Reader::new(b).u32_le().ok());
            assert_eq!(split_u64_le(b).map(|x| x.0), Reader::new(b).u64_le().ok());
            assert_eq!(split_i64_le(b).map(|x| x.0), Reader::new(b).i64_le().ok());
            for e in [Endian::Little, Endian::Big] {
                assert_eq!(split_u32(b, e).map(|x| x.0), Reader::new(b).u32(e).ok());
                assert_eq!(split_u64(b, e).map(|x| x.0), Reader::new(b).u64(e).ok());
            }
            assert_eq!(split_bytes(b, 3).map(|x| x.0), Reader::new(b).bytes(3).ok());
            if let Some((v, r)) = split_u32_le(b) {
                assert_eq!(r.len(), cut - 4);
                assert_eq!(v, u32::from_le_bytes([1, 2, 3, 4]));
            }
        }
    }

    #[test]
    fn varints_follow_the_reader() {
        let cases: [&[u8]; 7] = [
            &[0x05, 1],
            &[0xe5, 0x8e, 0x26],
            &[0x80, 0x00],
            &[0x80],
            &[],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
            &[
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 7,
            ],
        ];
        for b in cases {
            let mut r = Reader::new(b);
            let precise = r.uleb64().ok().map(|v| (v, r.remaining()));
            assert_eq!(
                split_uleb64(b).map(|(v, rest)| (v, rest.len())),
                precise,
                "{b:?}"
            );
        }
    }

    #[test]
    fn touch_ahead_reads_nothing_visible() {
        touch_ahead(&[]);
        touch_ahead(&[0; READ_AHEAD + 1]);
    }
}
