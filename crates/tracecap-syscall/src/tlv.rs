//! The two TLV levels: segments (u32 tag, u32 length) at the top, information elements (u16 tag,
//! u16 length) inside them. Both lengths count value bytes only; both are followed by zero bytes
//! up to the next multiple of 4, counted from the start of the file.

use tracecap_wire::{padding_to, Context, Endian, Reader};

use crate::error::Error;

/// Bytes of a segment's tag and length.
pub const SEGMENT_HEADER_LEN: usize = 8;

/// Bytes of an element's tag and length.
pub const ELEMENT_HEADER_LEN: usize = 4;

/// A top-level segment: its tag, where it starts and its value.
#[derive(Clone, Copy, Debug)]
pub struct RawSegment<'a> {
    /// The u32 tag.
    pub tag: u32,
    /// Absolute offset of the tag.
    pub offset: u64,
    /// The value (its length field's worth of bytes), with absolute offsets.
    pub payload: Reader<'a>,
}

/// An information element inside a segment.
#[derive(Clone, Copy, Debug)]
pub struct RawElement<'a> {
    /// The u16 tag.
    pub tag: u16,
    /// The value, with absolute offsets.
    pub value: Reader<'a>,
}

/// Bytes of a whole segment (tag, length, value and padding) whose value starts at absolute
/// `value_start` and has `len` bytes.
#[inline]
pub fn segment_needed(value_start: u64, len: u32) -> u64 {
    let end = value_start.saturating_add(u64::from(len));
    (SEGMENT_HEADER_LEN as u64)
        .saturating_add(u64::from(len))
        .saturating_add(padding_to(end, 4))
}

/// Bytes of the whole segment at the front of `rest`, whose first byte is at absolute `offset`:
/// what [`read_segment`] needs to answer with more than a truncation. `None` when `rest` is
/// shorter than a segment's tag and length.
#[inline]
pub fn segment_len(rest: &[u8], offset: u64, endian: Endian) -> Option<u64> {
    let mut r = Reader::at(rest, offset);
    let _tag = r.u32(endian).ok()?;
    let len = r.u32(endian).ok()?;
    Some(segment_needed(r.offset(), len))
}

/// Reads one segment (tag, length, value, zero padding) from `r`. On error `r` is left where it was
/// and the error names the segment's first byte: a segment is either whole or not there.
pub fn read_segment<'a>(
    r: &mut Reader<'a>,
    endian: Endian,
    what: &'static str,
) -> Result<RawSegment<'a>, Error> {
    let offset = r.offset();
    let available = r.remaining() as u64;
    let mut cur = *r;
    let (tag, len) = match (cur.u32(endian), cur.u32(endian)) {
        (Ok(tag), Ok(len)) => (tag, len),
        _ => {
            return Err(Error::truncated(
                what,
                offset,
                SEGMENT_HEADER_LEN as u64,
                available,
            ))
        }
    };
    let value_start = cur.offset();
    let pad = padding_to(value_start.saturating_add(u64::from(len)), 4);
    let needed = segment_needed(value_start, len);
    if needed > available {
        return Err(Error::truncated(what, offset, needed, available));
    }
    let payload = cur
        .sub(u64::from(len))
        .map_err(|_| Error::truncated(what, offset, needed, available))?;
    let padding = cur
        .bytes_u64(pad)
        .map_err(|_| Error::truncated(what, offset, needed, available))?;
    if padding.iter().any(|&b| b != 0) {
        return Err(Error::new(
            tracecap_wire::ErrorKind::NonZeroPadding { what: "segment" }.into(),
            value_start.saturating_add(u64::from(len)),
        ));
    }
    *r = cur;
    Ok(RawSegment {
        tag,
        offset,
        payload,
    })
}

/// Reads one element (tag, length, value, zero padding) from `r`, a segment's value. The padding
/// must lie inside the segment (segment lengths count the padding of their elements).
pub fn read_element<'a>(r: &mut Reader<'a>, endian: Endian) -> Result<RawElement<'a>, Error> {
    let offset = r.offset();
    let available = r.remaining() as u64;
    let mut cur = *r;
    let (tag, len) = match (cur.u16(endian), cur.u16(endian)) {
        (Ok(tag), Ok(len)) => (tag, len),
        _ => {
            return Err(Error::truncated(
                "argument element",
                offset,
                ELEMENT_HEADER_LEN as u64,
                available,
            ))
        }
    };
    let value_start = cur.offset();
    let pad = padding_to(value_start.saturating_add(u64::from(len)), 4);
    let needed = (ELEMENT_HEADER_LEN as u64)
        .saturating_add(u64::from(len))
        .saturating_add(pad);
    if needed > available {
        return Err(Error::truncated(
            "argument element",
            offset,
            needed,
            available,
        ));
    }
    let value = cur.sub(u64::from(len)).what("argument element")?;
    let padding = cur.bytes_u64(pad).what("argument element")?;
    if padding.iter().any(|&b| b != 0) {
        return Err(Error::new(
            tracecap_wire::ErrorKind::NonZeroPadding { what: "element" }.into(),
            value_start.saturating_add(u64::from(len)),
        ));
    }
    *r = cur;
    Ok(RawElement { tag, value })
}
