//! The hot path of the event walk: the common shape of an event read in one go, and the
//! read-ahead touch. Everything here answers `None` for what it does not handle; the precise
//! path (`read_message` and [`Event::classify`]) then reads the event and reports its faults.
//! `tests/fast_path.rs` checks that both paths give the same events, errors and positions.

use tracecap_wire::fast::split_array;

use crate::event::Event;
use crate::kind::EventKind;

/// Touches the input [`READ_AHEAD`](tracecap_wire::fast::READ_AHEAD) bytes past `section[at..]`:
/// each length says where the next event starts, so the loads form a dependent chain, and
/// starting the next cache miss early keeps the walk moving.
#[inline(always)]
pub(crate) fn touch_ahead(section: &[u8], at: usize) {
    tracecap_wire::fast::touch_ahead(section.get(at..).unwrap_or(&[]));
}

/// Frames and classifies the event at the start of `rest` (absolute offset `offset`) when it has
/// the shape nearly every event has: a one-byte length, then a single length-delimited member of
/// a known kind (a key of one or two bytes, a one-byte length) that fills the message.
///
/// It reads the first four bytes at once, so there is no loop and no per-byte bounds check.
/// Every other shape, and every malformed message, gets `None` and goes through the general
/// path (`general_step` in `capture.rs`), which gives the same result for this shape and reports the errors (tests/fast_path.rs
/// compares the two).
#[inline(always)]
pub(crate) fn common_shape(rest: &[u8], offset: u64) -> Option<Event<'_>> {
    let (&[len, k0, k1, k2], _) = split_array::<4>(rest)?;
    // A key of one byte (fields 1-15) or two (16-50); a longer key (k1 >= 0x80) gives a field
    // number no kind has.
    let (key, key_len, payload_len) = if k0 < 0x80 {
        (u32::from(k0), 1, k1)
    } else {
        (u32::from(k0 & 0x7f) | u32::from(k1) << 7, 2, k2)
    };
    let len = usize::from(len);
    // With len < 0x80 the sum also rules out a payload length of two or more bytes.
    if len >= 0x80 || len != key_len + 1 + usize::from(payload_len) {
        return None;
    }
    let kind = EventKind::from_member_key(key)?;
    let message = rest.get(1..=len)?;
    let payload = message.get(key_len + 1..)?;
    let message_offset = offset.saturating_add(1);
    Some(Event {
        offset,
        length: len as u32,
        message_offset,
        message,
        kind,
        payload,
        payload_offset: message_offset.saturating_add(key_len as u64 + 1),
        split: false,
    })
}
