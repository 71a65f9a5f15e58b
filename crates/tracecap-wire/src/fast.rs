//! Reads for a format's fast path, and the read-ahead touch of record walks.
//!
//! Each `split_*` function reads from the front of a slice and returns the value with the rest,
//! or `None` when the bytes are not there. A fast path reads whole records this way and, on
//! `None`, hands the record to its precise reader (a [`Reader`](crate::Reader)), which reports
//! the fault with its offset. The two paths must agree
//! on every input; each format crate tests that in its `fast_path` test.
//!
//! ```
//! use tracecap_wire::fast::{split_array, split_bytes, split_u16_le};
//!
//! let bytes = [0x2a, 0, b'a', b'b', 7, 8, 9];
//! let (n, rest) = split_u16_le(&bytes).unwrap();
//! let (name, rest) = split_bytes(rest, 2).unwrap();
//! let (pair, rest) = split_array::<2>(rest).unwrap();
//! assert_eq!((n, name, pair, rest), (42, &b"ab"[..], &[7, 8], &[9u8][..]));
//! assert_eq!(split_u16_le(rest), None);
//! ```

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

/// A little-endian `u16`, and the rest.
#[inline(always)]
pub fn split_u16_le(rest: &[u8]) -> Option<(u16, &[u8])> {
    split_array(rest).map(|(a, r)| (u16::from_le_bytes(*a), r))
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
            assert_eq!(split_u16_le(b).map(|x| x.0), Reader::new(b).u16_le().ok());
            assert_eq!(
                split_array::<4>(b).map(|x| *x.0),
                Reader::new(b).array::<4>().ok()
            );
            assert_eq!(split_bytes(b, 3).map(|x| x.0), Reader::new(b).bytes(3).ok());
            if let Some((v, r)) = split_u16_le(b) {
                assert_eq!(r.len(), cut - 2);
                assert_eq!(v, u16::from_le_bytes([1, 2]));
            }
        }
    }

    #[test]
    fn touch_ahead_reads_nothing_visible() {
        touch_ahead(&[]);
        touch_ahead(&[0; READ_AHEAD + 1]);
    }
}
