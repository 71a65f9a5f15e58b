//! LEB128 varints (protobuf, apitrace): seven bits a byte, low group first, high bit = "more".
//!
//! Both decoders reject two malformed shapes that lenient decoders accept: an *overlong* encoding
//! (a final group of zero after the first byte, e.g. `80 00` for 0) and a value that overflows the
//! target width.

use crate::error::ErrorKind;

/// Decodes an unsigned LEB128 value of at most 64 bits from the start of `bytes`.
///
/// Returns the value and the number of bytes it used. On error, the returned `usize` is the
/// index of the offending byte (or `bytes.len()` when the input ends mid-varint).
#[inline]
pub fn decode_uleb64(bytes: &[u8]) -> Result<(u64, usize), (ErrorKind, usize)> {
    let mut value: u64 = 0;
    // Nine bytes hold 63 bits: nothing can overflow before the tenth, so the loop has no test
    // for it.
    for (i, &b) in bytes.iter().enumerate().take(9) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            if b == 0 && i > 0 {
                return Err((ErrorKind::VarintOverlong { what: "data" }, i));
            }
            return Ok((value, i + 1));
        }
    }
    match bytes.get(9) {
        // The tenth byte may only hold the single remaining bit.
        Some(&b) if b > 1 => Err((
            ErrorKind::VarintOverflow {
                what: "data",
                bits: 64,
            },
            9,
        )),
        Some(0) => Err((ErrorKind::VarintOverlong { what: "data" }, 9)),
        Some(&b) => Ok((value | u64::from(b) << 63, 10)),
        None => {
            let len = bytes.len() as u64;
            Err((
                ErrorKind::Truncated {
                    what: "data",
                    needed: len + 1,
                    available: len,
                },
                bytes.len(),
            ))
        }
    }
}

/// Decodes an unsigned LEB128 value of at most 32 bits. See [`decode_uleb64`].
#[inline]
pub fn decode_uleb32(bytes: &[u8]) -> Result<(u32, usize), (ErrorKind, usize)> {
    // A u32 needs at most 5 bytes; decode as u64 on at most 5 bytes, then check the range.
    let head = bytes.get(..5).unwrap_or(bytes);
    match decode_uleb64(head) {
        Ok((v, n)) => match u32::try_from(v) {
            Ok(v) => Ok((v, n)),
            Err(_) => Err((
                ErrorKind::VarintOverflow {
                    what: "data",
                    bits: 32,
                },
                n - 1,
            )),
        },
        Err((ErrorKind::Truncated { .. }, _)) if head.len() == 5 => Err((
            ErrorKind::VarintOverflow {
                what: "data",
                bits: 32,
            },
            4,
        )),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(mut v: u64) -> ([u8; 10], usize) {
        let mut out = [0u8; 10];
        let mut n = 0;
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out[n] = b;
                return (out, n + 1);
            }
            out[n] = b | 0x80;
            n += 1;
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(decode_uleb64(&[0]), Ok((0, 1)));
        assert_eq!(decode_uleb64(&[0x7f]), Ok((127, 1)));
        assert_eq!(decode_uleb64(&[0x80, 0x01]), Ok((128, 2)));
        assert_eq!(decode_uleb64(&[0xe5, 0x8e, 0x26]), Ok((624_485, 3)));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(decode_uleb64(&max), Ok((u64::MAX, 10)));
        assert_eq!(
            decode_uleb32(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
            Ok((u32::MAX, 5))
        );
    }

    #[test]
    fn rejects_malformed() {
        assert_eq!(
            decode_uleb64(&[0x80, 0x00]),
            Err((ErrorKind::VarintOverlong { what: "data" }, 1))
        );
        let over = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(
            decode_uleb64(&over),
            Err((
                ErrorKind::VarintOverflow {
                    what: "data",
                    bits: 64
                },
                9
            ))
        );
        // A tenth byte of 0 adds nothing: overlong, like a shorter varint ending in 0.
        let mut ten = [0x80; 10];
        ten[9] = 0;
        assert_eq!(
            decode_uleb64(&ten),
            Err((ErrorKind::VarintOverlong { what: "data" }, 9))
        );
        assert_eq!(
            decode_uleb64(&[0x80; 9]),
            Err((
                ErrorKind::Truncated {
                    what: "data",
                    needed: 10,
                    available: 9
                },
                9
            ))
        );
        let eleven = [0x80; 11];
        assert!(matches!(
            decode_uleb64(&eleven),
            Err((
                ErrorKind::VarintOverflow {
                    what: "data",
                    bits: 64
                },
                _
            ))
        ));
        assert_eq!(
            decode_uleb32(&[0xff, 0xff, 0xff, 0xff, 0x1f]),
            Err((
                ErrorKind::VarintOverflow {
                    what: "data",
                    bits: 32
                },
                4
            ))
        );
        assert_eq!(
            decode_uleb32(&[0x80, 0x80, 0x80, 0x80, 0x80]),
            Err((
                ErrorKind::VarintOverflow {
                    what: "data",
                    bits: 32
                },
                4
            ))
        );
        assert!(matches!(
            decode_uleb64(&[0x80, 0x80]),
            Err((
                ErrorKind::Truncated {
                    what: "data",
                    needed: 3,
                    available: 2
                },
                2
            ))
        ));
        assert!(matches!(
            decode_uleb64(&[]),
            Err((ErrorKind::Truncated { .. }, 0))
        ));
    }

    proptest::proptest! {
        #[test]
        fn round_trip_u64(v: u64, tail: u8) {
            let (buf, n) = enc(v);
            let mut with_tail = buf.to_vec();
            with_tail.truncate(n);
            with_tail.push(tail);
            proptest::prop_assert_eq!(decode_uleb64(&with_tail), Ok((v, n)));
        }

        #[test]
        fn round_trip_u32(v: u32) {
            let (buf, n) = enc(u64::from(v));
            proptest::prop_assert_eq!(decode_uleb32(&buf[..n]), Ok((v, n)));
        }

        #[test]
        fn never_panics(bytes: Vec<u8>) {
            let _ = decode_uleb64(&bytes);
            let _ = decode_uleb32(&bytes);
        }
    }
}
