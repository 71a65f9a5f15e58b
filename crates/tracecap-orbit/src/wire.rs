//! The protobuf wire format, read in place: tags, varints, fixed-width values and
//! length-delimited slices, each with its absolute file offset.
//!
//! [`Fields`] walks the fields of one message's bytes without decoding them into anything; the
//! views in [`crate::views`] and the event classifier build on it. Varints follow protobuf's own
//! rules (up to 10 bytes, non-minimal encodings accepted, the tenth byte may hold only one bit),
//! so every message that protobuf libraries accept is accepted here too; groups (wire types 3
//! and 4) are rejected because no Orbit message uses them.

use crate::error::{what, Error, ErrorKind};

/// Wire type 0: a varint.
pub const WIRE_VARINT: u8 = 0;
/// Wire type 1: eight little-endian bytes.
pub const WIRE_FIXED64: u8 = 1;
/// Wire type 2: a varint length and that many bytes.
pub const WIRE_LEN: u8 = 2;
/// Wire type 5: four little-endian bytes.
pub const WIRE_FIXED32: u8 = 5;

/// The value of one field as it sits on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: the bytes after the length.
    Len(&'a [u8]),
    /// Wire type 5.
    Fixed32(u32),
}

impl Value<'_> {
    /// The protobuf wire type number of this value.
    #[inline]
    pub fn wire_type(&self) -> u8 {
        match self {
            Value::Varint(_) => WIRE_VARINT,
            Value::Fixed64(_) => WIRE_FIXED64,
            Value::Len(_) => WIRE_LEN,
            Value::Fixed32(_) => WIRE_FIXED32,
        }
    }
}

/// One field of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The field number (1 ..= 2^29 - 1).
    pub number: u32,
    /// Its value.
    pub value: Value<'a>,
    /// Absolute offset of the field's tag.
    pub offset: u64,
    /// Absolute offset of the value (for `Len`, of the first byte after the length).
    pub value_offset: u64,
}

/// Decodes a protobuf varint at `data[*pos..]`, advancing `pos`.
///
/// `Err(true)` when the data ends inside the varint, `Err(false)` when it is malformed (more than
/// ten bytes, or a tenth byte above 1).
#[inline(always)]
pub(crate) fn varint(data: &[u8], pos: &mut usize) -> Result<u64, bool> {
    let start = *pos;
    match data.get(start..) {
        Some([b0, ..]) if *b0 < 0x80 => {
            *pos = start + 1;
            return Ok(u64::from(*b0));
        }
        Some([b0, b1, ..]) if *b1 < 0x80 => {
            *pos = start + 2;
            return Ok(u64::from(*b0 & 0x7f) | (u64::from(*b1) << 7));
        }
        None | Some([]) => return Err(true),
        _ => {}
    }
    // Ten bytes available: a loop over a fixed-size array, without bounds checks.
    if let Some(chunk) = data.get(start..start.saturating_add(10)) {
        if let Ok(chunk) = <&[u8; 10]>::try_from(chunk) {
            let mut value = 0u64;
            for (i, &b) in chunk.iter().enumerate() {
                if i == 9 && b > 1 {
                    return Err(false);
                }
                value |= u64::from(b & 0x7f) << (7 * i as u32);
                if b < 0x80 {
                    *pos = start + i + 1;
                    return Ok(value);
                }
            }
            return Err(false);
        }
    }
    let mut value = 0u64;
    for i in 0..10usize {
        let Some(&b) = data.get(start.wrapping_add(i)) else {
            return Err(true);
        };
        if i == 9 && b > 1 {
            return Err(false);
        }
        value |= u64::from(b & 0x7f) << (7 * i as u32);
        if b < 0x80 {
            *pos = start + i + 1;
            return Ok(value);
        }
    }
    Err(false)
}

/// The error for a varint that [`varint`] rejects as malformed at `data[start..]` (absolute
/// offset `offset`): a tenth byte holding bits above bit 63 overflows 64 bits; a tenth byte
/// holding at most bit 63 but followed by more bytes makes the varint longer than ten bytes.
#[cold]
pub(crate) fn malformed_varint(
    data: &[u8],
    start: usize,
    what: &'static str,
    offset: u64,
) -> Error {
    let kind = match data.get(start.saturating_add(9)) {
        Some(&b) if b & 0x7f > 1 => tracecap_wire::ErrorKind::VarintOverflow { what, bits: 64 },
        _ => tracecap_wire::ErrorKind::VarintOverlong { what },
    };
    Error::new(kind.into(), offset)
}

/// Encoded size of `v` as a varint (1 ..= 10 bytes).
#[inline]
pub fn varint_len(v: u64) -> usize {
    // Bits needed, rounded up to groups of 7; zero still takes one byte.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// An iterator over the fields of one message's bytes; fused after the first error.
#[derive(Clone, Debug)]
pub struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    done: bool,
}

impl<'a> Fields<'a> {
    /// The fields of `data`, whose first byte is at absolute offset `base`.
    #[inline]
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Fields {
            data,
            pos: 0,
            base,
            done: false,
        }
    }

    #[inline]
    fn at(&self, pos: usize) -> u64 {
        self.base.saturating_add(pos as u64)
    }

    #[cold]
    fn fail(&mut self, kind: ErrorKind, pos: usize) -> Option<Result<Field<'a>, Error>> {
        self.done = true;
        Some(Err(Error::new(kind, self.at(pos))))
    }

    #[cold]
    fn varint_fail(&mut self, truncated: bool, pos: usize) -> Option<Result<Field<'a>, Error>> {
        self.done = true;
        let at = self.at(pos);
        Some(Err(if truncated {
            let available = self.data.len().saturating_sub(pos) as u64;
            Error::truncated(what::FIELD, at, available.saturating_add(1), available)
        } else {
            malformed_varint(self.data, pos, what::FIELD, at)
        }))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.data.len() {
            return None;
        }
        let tag_pos = self.pos;
        let mut pos = self.pos;
        let key = match varint(self.data, &mut pos) {
            Ok(k) => k,
            Err(t) => return self.varint_fail(t, tag_pos),
        };
        if key > u64::from(u32::MAX) || key >> 3 == 0 {
            return self.fail(ErrorKind::InvalidFieldNumber(key >> 3), tag_pos);
        }
        let number = (key >> 3) as u32;
        let value_pos = pos;
        let value = match (key & 7) as u8 {
            WIRE_VARINT => match varint(self.data, &mut pos) {
                Ok(v) => Value::Varint(v),
                Err(t) => return self.varint_fail(t, value_pos),
            },
            WIRE_FIXED64 => match self.data.get(pos..pos.saturating_add(8)) {
                Some(b) => {
                    pos += 8;
                    let mut a = [0u8; 8];
                    a.copy_from_slice(b);
                    Value::Fixed64(u64::from_le_bytes(a))
                }
                None => return self.truncated(8, pos),
            },
            WIRE_LEN => {
                let len = match varint(self.data, &mut pos) {
                    Ok(v) => v,
                    Err(t) => return self.varint_fail(t, value_pos),
                };
                let avail = self.data.len().saturating_sub(pos);
                if len > avail as u64 {
                    return self.truncated(len, pos);
                }
                let start = pos;
                pos += len as usize;
                match self.data.get(start..pos) {
                    Some(s) => {
                        self.pos = pos;
                        return Some(Ok(Field {
                            number,
                            value: Value::Len(s),
                            offset: self.at(tag_pos),
                            value_offset: self.at(start),
                        }));
                    }
                    None => return self.truncated(len, start),
                }
            }
            WIRE_FIXED32 => match self.data.get(pos..pos.saturating_add(4)) {
                Some(b) => {
                    pos += 4;
                    let mut a = [0u8; 4];
                    a.copy_from_slice(b);
                    Value::Fixed32(u32::from_le_bytes(a))
                }
                None => return self.truncated(4, pos),
            },
            3 | 4 => return self.fail(ErrorKind::Group(number), tag_pos),
            wt => return self.fail(ErrorKind::InvalidWireType(wt), tag_pos),
        };
        self.pos = pos;
        Some(Ok(Field {
            number,
            value,
            offset: self.at(tag_pos),
            value_offset: self.at(value_pos),
        }))
    }
}

impl Fields<'_> {
    #[cold]
    fn truncated(&mut self, needed: u64, pos: usize) -> Option<Result<Field<'static>, Error>> {
        let available = self.data.len().saturating_sub(pos) as u64;
        self.done = true;
        Some(Err(Error::truncated(
            what::FIELD,
            self.at(pos),
            needed,
            available,
        )))
    }
}

impl core::iter::FusedIterator for Fields<'_> {}

/// Packed varints (a `repeated` scalar field's `Len` payload), read in place.
#[derive(Clone, Debug)]
pub struct PackedVarints<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> PackedVarints<'a> {
    /// The varints of a packed payload.
    pub fn new(data: &'a [u8]) -> Self {
        PackedVarints { data, pos: 0 }
    }

    /// Checks that `data` is a whole number of well-formed varints; the error offset is absolute.
    pub fn check(data: &[u8], base: u64) -> Result<(), Error> {
        let mut pos = 0;
        while pos < data.len() {
            let at = pos;
            if let Err(t) = varint(data, &mut pos) {
                let offset = base.saturating_add(at as u64);
                if !t {
                    return Err(malformed_varint(data, at, what::FIELD, offset));
                }
                let available = data.len().saturating_sub(at) as u64;
                return Err(Error::truncated(
                    what::FIELD,
                    offset,
                    available.saturating_add(1),
                    available,
                ));
            }
        }
        Ok(())
    }
}

impl Iterator for PackedVarints<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.pos >= self.data.len() {
            return None;
        }
        match varint(self.data, &mut self.pos) {
            Ok(v) => Some(v),
            Err(_) => {
                self.pos = self.data.len();
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_follow_protobuf_rules() {
        let mut p = 0;
        assert_eq!(varint(&[0x80, 0x00], &mut p), Ok(0)); // non-minimal accepted
        p = 0;
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(varint(&max, &mut p), Ok(u64::MAX));
        p = 0;
        let over = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(varint(&over, &mut p), Err(false));
        p = 0;
        assert_eq!(varint(&[0x80, 0x80], &mut p), Err(true));
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(u64::MAX), 10);
    }

    #[test]
    fn fields_and_errors() {
        // field 1 varint 150, field 2 len "hi", field 3 fixed32, field 4 fixed64
        let msg = [
            0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0,
            0,
        ];
        let f: Vec<_> = Fields::new(&msg, 100).collect::<Result<_, _>>().unwrap(); // ok: unit test
        assert_eq!(f[0].value, Value::Varint(150));
        assert_eq!(f[1].value, Value::Len(b"hi"));
        assert_eq!(f[1].value_offset, 105);
        assert_eq!(f[2].value, Value::Fixed32(1));
        assert_eq!(f[3].value, Value::Fixed64(2));
        // a length claiming 4 GiB fails without allocating anything
        let huge = [0x12, 0xff, 0xff, 0xff, 0xff, 0x0f];
        let e = Fields::new(&huge, 0).next().unwrap().unwrap_err(); // ok: unit test
        assert!(matches!(
            e.kind,
            ErrorKind::Shared(tracecap_wire::ErrorKind::Truncated {
                what: what::FIELD,
                ..
            })
        ));
        let group = [0x0b];
        let e = Fields::new(&group, 7).next().unwrap().unwrap_err(); // ok: unit test
        assert_eq!(e, Error::new(ErrorKind::Group(1), 7));
        // A tenth byte above bit 63 overflows; one that continues makes the varint overlong.
        let over = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
        ];
        let e = Fields::new(&over, 10).next().unwrap().unwrap_err(); // ok: unit test
        assert_eq!(
            e.to_string(),
            "varint overflows 64 bits in protobuf field at offset 0xb"
        );
        let long = [
            0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
        ];
        let e = PackedVarints::check(&long, 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "overlong varint in protobuf field at offset 0x3"
        );
        let zero = [0x00];
        assert!(Fields::new(&zero, 0).next().unwrap().is_err()); // ok: unit test
    }
}
