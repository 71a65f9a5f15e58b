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
#[inline]
pub(crate) fn varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Bytes `v` takes as a varint (1 to 10).
#[inline]
fn varint_len(v: u64) -> usize {
    // Each byte carries 7 bits; zero still takes one byte.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

#[inline]
fn key(buf: &mut Vec<u8>, field: u32, wire: u32) {
    varint(buf, u64::from(field << 3 | wire));
}

/// A `uint64`, `uint32` or enum field.
#[inline]
pub(crate) fn uint(buf: &mut Vec<u8>, field: u32, v: u64) {
    key(buf, field, VARINT);
    varint(buf, v);
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
    key(buf, field, FIXED64);
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
    key(buf, field, LEN);
    varint(buf, v.len() as u64);
    buf.extend_from_slice(v);
}

/// Starts a length-delimited field (a nested message) written in place: write its fields, then
/// call [`close`] with the mark returned here.
#[inline]
pub(crate) fn open(buf: &mut Vec<u8>, field: u32) -> usize {
    key(buf, field, LEN);
    // One byte for the length, the usual case; `close` widens it when the body is longer.
    buf.push(0);
    buf.len()
}

/// Ends the field [`open`] started at `mark`: writes the body's length before it.
#[inline]
pub(crate) fn close(buf: &mut Vec<u8>, mark: usize) {
    let len = buf.len() - mark;
    if len < 0x80 {
        if let Some(b) = buf.get_mut(mark - 1) {
            *b = len as u8;
        }
        return;
    }
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
