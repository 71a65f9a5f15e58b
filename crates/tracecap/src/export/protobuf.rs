//! Protobuf wire encoding into a byte vector: field keys, varints, fixed-width numbers and
//! length-delimited fields whose length is written once their body is.
//!
//! Fields are written in the order the caller writes them; a caller that wants the bytes a
//! generated encoder (prost) gives writes each message's fields in field-number order, as prost
//! does.

/// Wire type of varints (integers, booleans, enums).
const VARINT: u32 = 0;
/// Wire type of 8-byte little-endian numbers (`fixed64`, `double`).
const FIXED64: u32 = 1;
/// Wire type of length-delimited fields (strings, bytes, messages).
const LEN: u32 = 2;

/// Appends `v` as a base-128 varint.
#[inline(always)]
pub(crate) fn varint(buf: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        buf.push(v as u8);
    } else if v < SPREAD_LIMIT {
        put(buf, u128::from(spread(v)), varint_len(v));
    } else {
        varint_long(buf, v);
    }
}

/// Values below this take at most eight bytes as a varint, which [`spread`] makes.
const SPREAD_LIMIT: u64 = 1 << 56;

/// `v` (below [`SPREAD_LIMIT`]) as the bytes of its varint, little-endian in a `u64`: each
/// 7-bit group in a byte of its own, the high bit set on every byte but the last.
#[inline(always)]
fn spread(v: u64) -> u64 {
    let groups = (v & 0x7f)
        | (v << 1 & 0x7f00)
        | (v << 2 & 0x7f_0000)
        | (v << 3 & 0x7f00_0000)
        | (v << 4 & 0x7f_0000_0000)
        | (v << 5 & 0x7f00_0000_0000)
        | (v << 6 & 0x7f_0000_0000_0000)
        | (v << 7 & 0x7f00_0000_0000_0000);
    // Continuation bits on the first `n - 1` bytes (`n` at most 8).
    let n = varint_len(v);
    groups | (0x0080_8080_8080_8080 & ((1u64 << (8 * (n - 1))) - 1))
}

/// A varint of nine or ten bytes, byte by byte.
#[cold]
#[inline(never)]
fn varint_long(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Appends the first `n` (at most 16) little-endian bytes of `word`: all sixteen are copied
/// (one check of the capacity, one store), then the vector is cut back.
#[inline(always)]
fn put(buf: &mut Vec<u8>, word: u128, n: usize) {
    let end = buf.len() + n.min(16);
    buf.extend_from_slice(&word.to_le_bytes());
    buf.truncate(end);
}

/// Bytes `v` takes as a varint (1 to 10).
#[inline(always)]
pub(crate) fn varint_len(v: u64) -> usize {
    // Each byte carries 7 bits; zero still takes one byte.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// The key of field `field` of wire type `wire`, as a `u64`.
#[inline(always)]
const fn key_of(field: u32, wire: u32) -> u64 {
    (field << 3 | wire) as u64
}

/// Appends a field's key and then a varint `v` (its value, or a length).
#[inline(always)]
fn key_varint(buf: &mut Vec<u8>, key: u64, v: u64) {
    if key < 0x80 && v < 0x80 {
        buf.extend_from_slice(&[key as u8, v as u8]);
    } else if key < 1 << 14 && v < SPREAD_LIMIT {
        // Key and value in one store: at most 2 + 8 bytes.
        let kn = varint_len(key);
        let word = u128::from(spread(key)) | u128::from(spread(v)) << (8 * kn);
        put(buf, word, kn + varint_len(v));
    } else {
        varint(buf, key);
        varint(buf, v);
    }
}

/// A `uint64`, `uint32` or enum field.
#[inline(always)]
pub(crate) fn uint(buf: &mut Vec<u8>, field: u32, v: u64) {
    key_varint(buf, key_of(field, VARINT), v);
}

/// An `int64` field (a negative value takes ten bytes, as protobuf's `int64` does).
#[inline]
pub(crate) fn int(buf: &mut Vec<u8>, field: u32, v: i64) {
    uint(buf, field, v as u64);
}

/// A `bool` field.
#[inline]
pub(crate) fn boolean(buf: &mut Vec<u8>, field: u32, v: bool) {
    uint(buf, field, u64::from(v));
}

/// A `fixed64` field.
#[inline]
pub(crate) fn fixed64(buf: &mut Vec<u8>, field: u32, v: u64) {
    varint(buf, key_of(field, FIXED64));
    buf.extend_from_slice(&v.to_le_bytes());
}

/// A `double` field.
#[inline]
pub(crate) fn double(buf: &mut Vec<u8>, field: u32, v: f64) {
    fixed64(buf, field, v.to_bits());
}

/// A `string` or `bytes` field.
#[inline]
pub(crate) fn bytes(buf: &mut Vec<u8>, field: u32, v: &[u8]) {
    key_varint(buf, key_of(field, LEN), v.len() as u64);
    buf.extend_from_slice(v);
}

/// The bytes a field of number `field` whose varint value (or length) is `v` takes, key
/// included.
#[inline]
pub(crate) fn field_len(field: u32, v: u64) -> usize {
    varint_len(key_of(field, VARINT)) + varint_len(v)
}

/// The bytes a `fixed64` or `double` field of number `field` takes, key included.
#[inline]
pub(crate) fn fixed64_len(field: u32) -> usize {
    varint_len(key_of(field, FIXED64)) + 8
}

/// Starts a length-delimited field (a nested message) whose body takes `len` bytes, written
/// next by the caller.
#[inline]
pub(crate) fn open_sized(buf: &mut Vec<u8>, field: u32, len: usize) {
    key_varint(buf, key_of(field, LEN), len as u64);
}

/// Starts a length-delimited field (a nested message) written in place: write its fields, then
/// call [`close`] with the mark returned here.
#[inline]
pub(crate) fn open(buf: &mut Vec<u8>, field: u32) -> usize {
    // One byte for the length, the usual case; `close` widens it when the body is longer.
    key_varint(buf, key_of(field, LEN), 0);
    buf.len()
}

/// Ends the field [`open`] started at `mark`: writes the body's length before it.
#[inline]
pub(crate) fn close(buf: &mut Vec<u8>, mark: usize) {
    let len = buf.len().wrapping_sub(mark);
    match buf.get_mut(mark.wrapping_sub(1)) {
        Some(b) if len < 0x80 => *b = len as u8,
        _ => close_long(buf, mark),
    }
}

/// [`close`] of a body of 128 bytes or more: its length takes more than the one byte kept for
/// it, so the body moves up.
#[cold]
#[inline(never)]
fn close_long(buf: &mut Vec<u8>, mark: usize) {
    let Some(len) = buf.len().checked_sub(mark).filter(|_| mark > 0) else {
        return;
    };
    let width = varint_len(len as u64);
    buf.resize(buf.len() + width - 1, 0);
    buf.copy_within(mark..mark + len, mark - 1 + width);
    let mut v = len as u64;
    for (i, b) in buf.iter_mut().skip(mark - 1).take(width).enumerate() {
        let more = if i + 1 < width { 0x80 } else { 0 };
        *b = (v & 0x7f) as u8 | more;
        v >>= 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn varints_match_prost() {
        for v in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut ours = Vec::new();
            varint(&mut ours, v);
            let mut theirs = Vec::new();
            prost::encoding::encode_varint(v, &mut theirs);
            assert_eq!(ours, theirs, "{v}");
            assert_eq!(varint_len(v), theirs.len(), "{v}");
        }
    }

    /// Every field writer gives prost's bytes, for keys of one and two bytes and values of
    /// every width, and the sizes computed before writing are the sizes written.
    #[test]
    fn fields_match_prost() {
        use prost::encoding::{encode_key, encode_varint, WireType};
        for field in [1, 8, 15, 16, 44, 66, 2047] {
            for v in [
                0,
                1,
                127,
                128,
                300,
                16_383,
                16_384,
                1 << 35,
                (1 << 56) - 1,
                1 << 56,
                1 << 63,
                u64::MAX,
            ] {
                let mut theirs = Vec::new();
                encode_key(field, WireType::Varint, &mut theirs);
                encode_varint(v, &mut theirs);
                let mut ours = vec![9];
                uint(&mut ours, field, v);
                assert_eq!(ours[1..], theirs, "uint {field} {v}");
                assert_eq!(field_len(field, v), theirs.len(), "{field} {v}");

                let mut theirs = Vec::new();
                encode_key(field, WireType::SixtyFourBit, &mut theirs);
                theirs.extend_from_slice(&v.to_le_bytes());
                let mut ours = Vec::new();
                fixed64(&mut ours, field, v);
                assert_eq!(ours, theirs, "fixed64 {field} {v}");
                assert_eq!(fixed64_len(field), theirs.len());

                let mut theirs = Vec::new();
                encode_key(field, WireType::LengthDelimited, &mut theirs);
                encode_varint(v, &mut theirs);
                let mut ours = Vec::new();
                open_sized(&mut ours, field, v as usize);
                assert_eq!(ours, theirs, "length {field} {v}");
            }
            let mut theirs = Vec::new();
            prost::encoding::bytes::encode(field, &b"abc".to_vec(), &mut theirs);
            let mut ours = Vec::new();
            bytes(&mut ours, field, b"abc");
            assert_eq!(ours, theirs, "bytes {field}");
        }
    }

    /// A nested message of every length class gets prost's bytes, whatever the width of its
    /// length prefix.
    #[test]
    fn nested_lengths_match_prost() {
        use crate::export::perfetto_proto::{EventName, InternedData};
        for n in [0, 1, 120, 125, 126, 127, 128, 200, 16_380, 16_384, 70_000] {
            let name = "x".repeat(n);
            let want = InternedData {
                event_names: vec![EventName {
                    iid: Some(7),
                    name: Some(name.clone()),
                }],
                ..Default::default()
            }
            .encode_to_vec();
            let mut ours = Vec::new();
            let mark = open(&mut ours, 2);
            uint(&mut ours, 1, 7);
            bytes(&mut ours, 2, name.as_bytes());
            close(&mut ours, mark);
            assert_eq!(ours, want, "name of {n} bytes");
        }
    }
}
