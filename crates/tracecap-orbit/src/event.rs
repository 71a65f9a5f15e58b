//! One event of the capture section: where it is, which kind it is, and its payload.
//!
//! A data type of the bottom layer: it depends on the wire reader and the kinds only; its typed
//! view ([`Event::view`]) is in [`crate::views`], the layer above.

use crate::error::Error;
use crate::kind::EventKind;
use crate::wire::{Fields, Value};

/// One `ClientCaptureEvent` of the capture section, classified but not decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// Absolute offset of the event's varint length prefix.
    pub offset: u64,
    /// The message's length (without the prefix).
    pub length: u32,
    /// Absolute offset of the message's first byte.
    pub message_offset: u64,
    /// The whole serialized `ClientCaptureEvent`.
    pub message: &'a [u8],
    /// Which oneof member it holds.
    pub kind: EventKind,
    /// The member's serialized message (empty for `NotSet`).
    pub payload: &'a [u8],
    /// Absolute offset of the payload's first byte.
    pub payload_offset: u64,
    /// True when the member appeared more than once in a row: protobuf merges such pieces, and
    /// `payload` is only the last one. Orbit never writes this.
    pub split: bool,
}

impl<'a> Event<'a> {
    /// Classifies the serialized `ClientCaptureEvent` `message`, whose length prefix starts at
    /// `offset` and whose first byte is at `message_offset`.
    ///
    /// Only the top-level fields are walked (a tag and a length each, as a rule one field):
    /// the member's contents are not looked at. The last oneof member wins, as in protobuf.
    #[inline]
    pub fn classify(message: &'a [u8], offset: u64, message_offset: u64) -> Result<Self, Error> {
        // Fast path: one length-delimited oneof member spanning the whole message (what every
        // writer produces).
        let mut p = 0usize;
        if let Ok(key) = crate::wire::varint(message, &mut p) {
            if key & 7 == u64::from(crate::wire::WIRE_LEN) && key <= u64::from(u32::MAX) {
                if let Some(kind) = EventKind::from_field_number((key >> 3) as u32) {
                    if let Ok(len) = crate::wire::varint(message, &mut p) {
                        if let Some(payload) = message.get(p..) {
                            if payload.len() as u64 == len {
                                return Ok(Event {
                                    offset,
                                    length: message.len() as u32,
                                    message_offset,
                                    message,
                                    kind,
                                    payload,
                                    payload_offset: message_offset.saturating_add(p as u64),
                                    split: false,
                                });
                            }
                        }
                    }
                }
            }
        }
        let mut kind = EventKind::NotSet;
        let mut payload: &'a [u8] = &[];
        let mut payload_offset = message_offset;
        let mut split = false;
        for f in Fields::new(message, message_offset) {
            let f = f?;
            if let Some(k) = EventKind::from_field_number(f.number) {
                match f.value {
                    Value::Len(p) => {
                        split = k == kind;
                        kind = k;
                        payload = p;
                        payload_offset = f.value_offset;
                    }
                    other => {
                        return Err(Error::new(
                            crate::error::ErrorKind::WrongWireType {
                                field: f.number,
                                found: other.wire_type(),
                                expected: crate::wire::WIRE_LEN,
                            },
                            f.offset,
                        ))
                    }
                }
            }
        }
        Ok(Event {
            offset,
            length: message.len() as u32,
            message_offset,
            message,
            kind,
            payload,
            payload_offset,
            split,
        })
    }
}
