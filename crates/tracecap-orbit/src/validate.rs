//! Whole-file validation: Orbit's reader rules plus ours (feature `alloc`).
//!
//! Orbit re-serializes every message it reads and rejects it when the size differs from the
//! length in the file; [`canonical_size`] computes that size from the bytes and the schema
//! without building the message. Before that, every message is checked the way a protobuf
//! decoder (prost, the typed views) checks it, nested messages included: wire types of known
//! fields, well-formed packed data, UTF-8 of `string` fields. Orbit itself would take a known
//! field with a foreign wire type as an unknown field; we reject it, as every other reader does.
//!
//! [`validate`] is made of the three steps every command of `tracecap` applies in the same order,
//! so that all of them report the same first fault: [`Capture::parse`], then for each event of
//! [`Capture::events`] [`check_event`], then [`check_end`] (CaptureFinished, the section layout,
//! USER_DATA).

use crate::capture::{Capture, Events, UserData};
use crate::error::{what, Error, ErrorKind};
use crate::event::Event;
use crate::kind::EventKind;
use crate::schema::{
    ORBIT_CLIENT_PROTOS_USERDEFINEDCAPTUREINFO, ORBIT_GRPC_PROTOS_CLIENTCAPTUREEVENT,
};
use crate::schema_types::{FieldDesc, FieldType, MessageDesc};
use crate::section::Layout;
use crate::wire::{
    varint, varint_len, Field, Fields, PackedVarints, Value, WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN,
    WIRE_VARINT,
};

const MAX_DEPTH: u32 = 64;

/// What [`validate`] found in a good file.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Events per kind, indexed by [`EventKind::index`].
    pub counts: [u64; EventKind::ALL.len()],
    /// All events, `CaptureFinished` included.
    pub events: u64,
    /// Where `CaptureFinished` ends.
    pub capture_end: u64,
    /// Bytes between that and the capture section's bound (padding, or stale bytes).
    pub trailing: u64,
    /// Unused bytes of the USER_DATA section after its message, when there is one.
    pub user_data_unused: Option<u64>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            counts: [0; EventKind::ALL.len()],
            events: 0,
            capture_end: 0,
            trailing: 0,
            user_data_unused: None,
        }
    }
}

/// Validates a whole file; the first fault is returned with its offset.
pub fn validate(data: &[u8]) -> Result<Summary, Error> {
    let capture = Capture::parse(data)?;
    let mut summary = Summary::default();
    let mut events = capture.events();
    for ev in events.by_ref() {
        let ev = ev?;
        check_event(&ev)?;
        if let Some(c) = summary.counts.get_mut(ev.kind.index()) {
            *c += 1;
        }
        summary.events += 1;
    }
    let user_data = check_end(&capture, &events)?;
    summary.capture_end = events.position();
    summary.trailing = events.trailing().len() as u64;
    summary.user_data_unused = user_data.map(|u| u.unused);
    Ok(summary)
}

/// Everything [`validate`] checks in one event that framing did not: not empty, a well-formed
/// message (nested messages included, see the module comment) in the canonical encoding Orbit's
/// size check asks for.
pub fn check_event(ev: &Event<'_>) -> Result<(), Error> {
    if ev.message.is_empty() {
        return Err(Error::new(ErrorKind::EmptyEvent, ev.offset));
    }
    check_message(
        &ORBIT_GRPC_PROTOS_CLIENTCAPTUREEVENT,
        ev.message,
        ev.message_offset,
    )
}

/// What [`validate`] checks once `events` has ended (without an error): that it ended at
/// `CaptureFinished`, the section layout ([`Capture::check_layout`]) and USER_DATA, which it
/// returns.
pub fn check_end<'a>(
    capture: &Capture<'a>,
    events: &Events<'a>,
) -> Result<Option<UserData<'a>>, Error> {
    if !events.finished() {
        // Orbit reads past the last event and fails at the bound.
        return Err(Error::new(
            ErrorKind::TruncatedMessageSize,
            events.position(),
        ));
    }
    capture.check_layout(events.position())?;
    let Some(ud) = capture.user_data()? else {
        return Ok(None);
    };
    let desc = &ORBIT_CLIENT_PROTOS_USERDEFINEDCAPTUREINFO;
    match capture.layout() {
        Layout::Current => check_message(desc, ud.message, ud.message_offset)?,
        // Orbit 1.64 wrote the message without a length prefix: the section's size is its
        // length, which Orbit's size check does not apply to.
        Layout::Orbit164 => check_fields(desc, ud.message, ud.message_offset, 0)?,
    }
    Ok(Some(ud))
}

/// A well-formed message that re-serializes to its own length.
///
/// Nearly every message is plain (see [`plain_size`]) and is judged in one walk; any other one,
/// and any message with a fault, goes through [`check_fields`] and [`canonical_size`], which
/// give the verdict and the fault's offset.
fn check_message(desc: &MessageDesc, bytes: &[u8], offset: u64) -> Result<(), Error> {
    if plain_size(desc, bytes, 0) == Some(bytes.len() as u64) {
        return Ok(());
    }
    check_fields(desc, bytes, offset, 0)?;
    check_canonical(desc, bytes, offset)
}

/// The size the C++ runtime gives `bytes` (a message of type `desc`) when the message is plain:
/// its fields come in increasing number (so each occurs once, and no singular message is
/// merged), at most one member of the oneof is set, its nested messages are plain, and nothing
/// in it is a fault [`check_fields`] reports. `None` for any other message.
///
/// A plain message's size is the sum of what each field adds alone, so it takes one walk, with
/// the schema's fields (ordered by number) walked alongside.
fn plain_size(desc: &MessageDesc, bytes: &[u8], depth: u32) -> Option<u64> {
    if depth > MAX_DEPTH {
        return None;
    }
    // The first of the schema's fields numbered above the last field seen.
    let mut next = 0usize;
    let mut last = 0u32;
    let mut oneof = false;
    let mut total = 0u64;
    let mut pos = 0usize;
    while pos < bytes.len() {
        let f = plain_field(bytes, &mut pos)?;
        if f.number <= last {
            return None;
        }
        last = f.number;
        let below = desc.fields.get(next..).unwrap_or_default();
        next += below.iter().take_while(|fd| fd.number < f.number).count();
        let fd = match desc.fields.get(next) {
            Some(fd) if fd.number == f.number => fd,
            // Unknown: the runtime keeps it as it is.
            _ => {
                total += raw_len(&f);
                continue;
            }
        };
        next += 1;
        check_field(fd, &f).ok()?;
        if fd.oneof {
            if oneof {
                return None;
            }
            oneof = true;
        }
        total += match (fd.ty, f.value) {
            (FieldType::Message(m), Value::Len(p)) => {
                delimited_len(fd, plain_size(m, p, depth + 1)?)
            }
            _ => sole_len(fd, &f, depth).ok()?,
        };
    }
    Some(total)
}

/// The field of `bytes` at `*pos`, read as [`Fields`] reads it (offsets from 0), moving `pos`
/// past it; `None` where [`Fields`] gives an error.
#[inline(always)]
fn plain_field<'a>(bytes: &'a [u8], pos: &mut usize) -> Option<Field<'a>> {
    let key = varint(bytes, pos).ok()?;
    if key > u64::from(u32::MAX) || key >> 3 == 0 {
        return None;
    }
    let value = match (key & 7) as u8 {
        WIRE_VARINT => Value::Varint(varint(bytes, pos).ok()?),
        WIRE_FIXED64 => {
            let end = pos.checked_add(8)?;
            let b: [u8; 8] = bytes.get(*pos..end)?.try_into().ok()?;
            *pos = end;
            Value::Fixed64(u64::from_le_bytes(b))
        }
        WIRE_LEN => {
            let len = usize::try_from(varint(bytes, pos).ok()?).ok()?;
            let end = pos.checked_add(len)?;
            let p = bytes.get(*pos..end)?;
            *pos = end;
            Value::Len(p)
        }
        WIRE_FIXED32 => {
            let end = pos.checked_add(4)?;
            let b: [u8; 4] = bytes.get(*pos..end)?.try_into().ok()?;
            *pos = end;
            Value::Fixed32(u32::from_le_bytes(b))
        }
        _ => return None,
    };
    Some(Field {
        number: (key >> 3) as u32,
        value,
        offset: 0,
        value_offset: 0,
    })
}

/// What a protobuf decoder rejects, in file order, nested messages included: a wire type that
/// does not fit a known field, packed data that does not divide into elements, a `string` that
/// is not UTF-8, nesting deeper than [`MAX_DEPTH`].
fn check_fields(desc: &MessageDesc, bytes: &[u8], base: u64, depth: u32) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::TooDeep, base));
    }
    for f in Fields::new(bytes, base) {
        let f = f?;
        let Some(fd) = desc.field(f.number) else {
            continue;
        };
        check_field(fd, &f)?;
        if let (FieldType::Message(m), Value::Len(p)) = (fd.ty, f.value) {
            check_fields(m, p, f.value_offset, depth + 1)?;
        }
    }
    Ok(())
}

/// What a protobuf decoder rejects in one field of the known field `fd`, apart from what its
/// nested message holds: a wire type that does not fit, a `string` that is not UTF-8, packed
/// data that does not divide into elements.
#[inline]
fn check_field(fd: &FieldDesc, f: &Field<'_>) -> Result<(), Error> {
    let found = f.value.wire_type();
    let expected = fd.ty.wire_type();
    let packed = is_packed(fd, found);
    if found != expected && !packed {
        return Err(Error::new(
            ErrorKind::WrongWireType {
                field: f.number,
                found,
                expected,
            },
            f.offset,
        ));
    }
    let Value::Len(p) = f.value else {
        return Ok(());
    };
    match fd.ty {
        FieldType::String => core::str::from_utf8(p).map(drop).map_err(|e| {
            Error::new(
                ErrorKind::InvalidUtf8(f.number),
                f.value_offset.saturating_add(e.valid_up_to() as u64),
            )
        }),
        _ if packed => {
            let width = match expected {
                WIRE_FIXED64 => 8,
                WIRE_FIXED32 => 4,
                _ => return PackedVarints::check(p, f.value_offset),
            };
            let rest = p.len() % width;
            if rest == 0 {
                return Ok(());
            }
            Err(Error::truncated(
                what::FIELD,
                f.value_offset.saturating_add((p.len() - rest) as u64),
                width as u64,
                rest as u64,
            ))
        }
        _ => Ok(()),
    }
}

/// Whether a value of wire type `wire` is the packed form of the field `fd`.
#[inline]
fn is_packed(fd: &FieldDesc, wire: u8) -> bool {
    fd.repeated && fd.ty.is_packable() && wire == WIRE_LEN
}

fn check_canonical(desc: &MessageDesc, bytes: &[u8], offset: u64) -> Result<(), Error> {
    let size = canonical_size(desc, &[(bytes, offset)])?;
    if size != bytes.len() as u64 {
        return Err(Error::new(
            ErrorKind::NonCanonicalMessage {
                parsed: size,
                stated: bytes.len() as u64,
            },
            offset,
        ));
    }
    Ok(())
}

/// The size protobuf's C++ runtime gives the message made of `pieces` after parsing it: the
/// length Orbit compares with the stated one.
///
/// It allocates nothing: the fields are read again for each field of the schema instead of
/// being collected.
pub fn canonical_size(desc: &MessageDesc, pieces: &[(&[u8], u64)]) -> Result<u64, Error> {
    size(desc, &Stream::Pieces(pieces), 0)
}

#[inline]
fn tag_len(number: u32) -> u64 {
    varint_len(u64::from(number) << 3) as u64
}

#[inline]
fn scalar_len(ty: FieldType, v: Value<'_>) -> u64 {
    match (ty, v) {
        (FieldType::Uint32, Value::Varint(x)) => varint_len(u64::from(x as u32)) as u64,
        (FieldType::Int32 | FieldType::Enum(_), Value::Varint(x)) => {
            varint_len(i64::from(x as i32) as u64) as u64
        }
        (FieldType::Bool, Value::Varint(_)) => 1,
        (_, Value::Varint(x)) => varint_len(x) as u64,
        (_, Value::Fixed64(_)) => 8,
        (_, Value::Fixed32(_)) => 4,
        (_, Value::Len(p)) => varint_len(p.len() as u64) as u64 + p.len() as u64,
    }
}

#[inline]
fn is_default(ty: FieldType, v: Value<'_>) -> bool {
    match (ty, v) {
        (FieldType::Uint32, Value::Varint(x)) => x as u32 == 0,
        (FieldType::Int32 | FieldType::Enum(_), Value::Varint(x)) => x as i32 == 0,
        (_, Value::Varint(x)) | (_, Value::Fixed64(x)) => x == 0,
        (_, Value::Fixed32(x)) => x == 0,
        (_, Value::Len(p)) => p.is_empty(),
    }
}

#[inline]
fn raw_len(f: &Field<'_>) -> u64 {
    tag_len(f.number)
        + match f.value {
            Value::Varint(x) => varint_len(x) as u64,
            Value::Fixed64(_) => 8,
            Value::Fixed32(_) => 4,
            Value::Len(p) => varint_len(p.len() as u64) as u64 + p.len() as u64,
        }
}

/// The fields of one message as the C++ runtime parses it: the fields of its pieces in order,
/// or the fields of every occurrence of a singular message field of a parent (the runtime merges
/// them into one message). Walked again for each question instead of collected, so computing a
/// size allocates nothing.
#[derive(Clone, Copy)]
enum Stream<'s, 'a> {
    /// The fields of each piece (bytes, absolute offset), one after the other.
    Pieces(&'s [(&'a [u8], u64)]),
    /// The fields inside the occurrences of field `number` of `parent` (a message of type
    /// `desc`) from the parent's field `from` on.
    Merged {
        parent: &'s Stream<'s, 'a>,
        desc: &'s MessageDesc,
        number: u32,
        from: usize,
    },
}

impl<'a> Stream<'_, 'a> {
    /// Gives every field to `f` with its index in the stream; stops at the first error, the
    /// bytes' or `f`'s.
    #[inline]
    fn walk<F>(&self, mut f: F) -> Result<(), Error>
    where
        F: FnMut(usize, Field<'a>) -> Result<(), Error>,
    {
        match *self {
            Stream::Pieces(pieces) => {
                let mut i = 0;
                for &(bytes, base) in pieces {
                    for field in Fields::new(bytes, base) {
                        f(i, field?)?;
                        i += 1;
                    }
                }
                Ok(())
            }
            Stream::Merged { .. } => self.walk_merged(&mut f),
        }
    }

    /// [`Stream::walk`] of a merged stream, through a `dyn` so that nesting does not nest types.
    fn walk_merged(
        &self,
        f: &mut dyn FnMut(usize, Field<'a>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Stream::Merged {
            parent,
            desc,
            number,
            from,
        } = *self
        else {
            return self.walk(f);
        };
        let mut i = 0;
        parent.walk(|j, outer| {
            if j < from || outer.number != number || fits(desc, &outer).is_none() {
                return Ok(());
            }
            if let Value::Len(p) = outer.value {
                for field in Fields::new(p, outer.value_offset) {
                    f(i, field?)?;
                    i += 1;
                }
            }
            Ok(())
        })
    }

    /// Absolute offset of the message's first piece.
    fn offset(&self) -> Result<u64, Error> {
        match *self {
            Stream::Pieces(pieces) => Ok(pieces.first().map(|p| p.1).unwrap_or(0)),
            Stream::Merged {
                parent,
                desc,
                number,
                from,
            } => {
                let mut first = None;
                parent.walk(|j, outer| {
                    if first.is_none() && j >= from && outer.number == number {
                        if let (Some(_), Value::Len(_)) = (fits(desc, &outer), outer.value) {
                            first = Some(outer.value_offset);
                        }
                    }
                    Ok(())
                })?;
                Ok(first.unwrap_or(0))
            }
        }
    }
}

/// The schema's description of `f` when the field is known and its wire type fits it (packed
/// included); `None` for what the runtime keeps as an unknown field.
#[inline]
fn fits(desc: &MessageDesc, f: &Field<'_>) -> Option<&'static FieldDesc> {
    desc.field(f.number).filter(|fd| {
        let wt = f.value.wire_type();
        wt == fd.ty.wire_type() || is_packed(fd, wt)
    })
}

/// Adds the elements of one occurrence of the packable repeated field `fd` to `payload` (their
/// encoded size) and `count`.
fn packed_add(fd: &FieldDesc, value: Value<'_>, payload: &mut u64, count: &mut u64) {
    match value {
        Value::Len(p) => match fd.ty.wire_type() {
            WIRE_FIXED64 => {
                *payload += (p.len() / 8 * 8) as u64;
                *count += (p.len() / 8) as u64;
            }
            WIRE_FIXED32 => {
                *payload += (p.len() / 4 * 4) as u64;
                *count += (p.len() / 4) as u64;
            }
            _ => {
                let mut pos = 0;
                while pos < p.len() {
                    match varint(p, &mut pos) {
                        Ok(v) => {
                            *payload += scalar_len(fd.ty, Value::Varint(v));
                            *count += 1;
                        }
                        Err(_) => break,
                    }
                }
            }
        },
        v => {
            *payload += scalar_len(fd.ty, v);
            *count += 1;
        }
    }
}

/// The size of the length-delimited field `fd` holding `inner` bytes.
fn delimited_len(fd: &FieldDesc, inner: u64) -> u64 {
    tag_len(fd.number) + varint_len(inner) as u64 + inner
}

/// The size `f` adds when it is the only occurrence of its field `fd`.
#[inline]
fn sole_len(fd: &FieldDesc, f: &Field<'_>, depth: u32) -> Result<u64, Error> {
    if fd.repeated && fd.ty.is_packable() {
        let (mut payload, mut count) = (0, 0);
        packed_add(fd, f.value, &mut payload, &mut count);
        return Ok(if count > 0 {
            delimited_len(fd, payload)
        } else {
            0
        });
    }
    match (fd.ty, f.value) {
        (FieldType::Message(m), Value::Len(p)) => {
            let piece = [(p, f.value_offset)];
            Ok(delimited_len(
                fd,
                size(m, &Stream::Pieces(&piece), depth + 1)?,
            ))
        }
        (_, Value::Len(p)) if fd.repeated => Ok(delimited_len(fd, p.len() as u64)),
        (_, _) if fd.repeated => Ok(0),
        (_, v) if is_default(fd.ty, v) => Ok(0),
        (_, v) => Ok(tag_len(fd.number) + scalar_len(fd.ty, v)),
    }
}

fn size<'a>(desc: &MessageDesc, stream: &Stream<'_, 'a>, depth: u32) -> Result<u64, Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::TooDeep, stream.offset()?));
    }
    // One walk: the oneof member that wins (the last one set, from where its last run starts),
    // the unknown fields (kept as they are), which field numbers below 64 occur once and what
    // each adds then (nearly every field of a message occurs once). The fields that occur more
    // often, or have larger numbers, are read again below.
    let mut winner = 0u32;
    let mut winner_from = 0usize;
    let mut total = 0u64;
    let mut present = 0u64;
    let mut again = 0u64;
    let mut sole = [0u64; 64];
    stream.walk(|i, f| {
        match fits(desc, &f) {
            Some(fd) => {
                if fd.oneof && f.number != winner {
                    winner = f.number;
                    winner_from = i;
                }
                if let (Some(bit), Some(slot)) =
                    (1u64.checked_shl(f.number), sole.get_mut(f.number as usize))
                {
                    if present & bit != 0 {
                        again |= bit;
                    } else {
                        present |= bit;
                        *slot = sole_len(fd, &f, depth)?;
                    }
                }
            }
            None => total += raw_len(&f),
        }
        Ok(())
    })?;
    for fd in desc.fields {
        if fd.oneof && fd.number != winner {
            continue;
        }
        if let Some(bit) = 1u64.checked_shl(fd.number).filter(|_| fd.number < 64) {
            if present & bit == 0 {
                continue;
            }
            if again & bit == 0 {
                total += sole.get(fd.number as usize).copied().unwrap_or(0);
                continue;
            }
        }
        let from = if fd.oneof { winner_from } else { 0 };
        // The occurrences of `fd`, in order.
        let occurrences = |g: &mut dyn FnMut(Field<'a>) -> Result<(), Error>| {
            stream.walk(|i, f| {
                if i >= from && f.number == fd.number && fits(desc, &f).is_some() {
                    g(f)?;
                }
                Ok(())
            })
        };
        if fd.number >= 64 {
            // Not counted by the first walk: count now.
            let mut count = 0u64;
            occurrences(&mut |_| {
                count += 1;
                Ok(())
            })?;
            if count == 0 {
                continue;
            }
        }
        if fd.repeated {
            if fd.ty.is_packable() {
                let mut payload = 0u64;
                let mut count = 0u64;
                occurrences(&mut |f| {
                    packed_add(fd, f.value, &mut payload, &mut count);
                    Ok(())
                })?;
                if count > 0 {
                    total += delimited_len(fd, payload);
                }
            } else {
                occurrences(&mut |f| {
                    total += sole_len(fd, &f, depth)?;
                    Ok(())
                })?;
            }
        } else if let FieldType::Message(m) = fd.ty {
            // The runtime merges the occurrences into one message.
            let merged = Stream::Merged {
                parent: stream,
                desc,
                number: fd.number,
                from,
            };
            total += delimited_len(fd, size(m, &merged, depth + 1)?);
        } else {
            let mut last = None;
            occurrences(&mut |f| {
                last = Some(f.value);
                Ok(())
            })?;
            if let Some(v) = last {
                if !is_default(fd.ty, v) {
                    total += tag_len(fd.number) + scalar_len(fd.ty, v);
                }
            }
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const EVENT: &MessageDesc = &ORBIT_GRPC_PROTOS_CLIENTCAPTUREEVENT;

    /// The verdict without the one-walk path: every check, then the exact size.
    fn exact(desc: &MessageDesc, bytes: &[u8], offset: u64) -> Result<(), Error> {
        check_fields(desc, bytes, offset, 0)?;
        check_canonical(desc, bytes, offset)
    }

    /// A small generator of deterministic bytes.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Every event of the corpus, and each of them changed at a few bytes: the verdict (and
    /// the fault, with its offset) is the exact path's, and the one-walk path is the one taken
    /// for nearly every event.
    #[test]
    fn the_one_walk_verdict_is_the_exact_one_on_the_corpus_and_its_mutations() {
        let (mut events, mut plain, mut changed) = (0u64, 0u64, 0u64);
        for (name, data) in tracecap_testkit::corpus_files("orbit", &["real", "generated"]) {
            let Ok(capture) = Capture::parse(&data) else {
                continue;
            };
            let mut rng = Rng(0x5eed ^ data.len() as u64);
            for ev in capture.events().map_while(Result::ok) {
                let (msg, off) = (ev.message, ev.message_offset);
                events += 1;
                if plain_size(EVENT, msg, 0) == Some(msg.len() as u64) {
                    plain += 1;
                }
                assert_eq!(
                    check_message(EVENT, msg, off),
                    exact(EVENT, msg, off),
                    "{name} at {off}"
                );
                if msg.is_empty() || events % 4 != 0 {
                    continue;
                }
                for _ in 0..4 {
                    let mut m = msg.to_vec();
                    let at = (rng.next() % m.len() as u64) as usize;
                    let byte = rng.next() as u8;
                    if let Some(b) = m.get_mut(at) {
                        *b = if *b == byte { byte ^ 0x40 } else { byte };
                    }
                    changed += 1;
                    let (got, want) = (check_message(EVENT, &m, off), exact(EVENT, &m, off));
                    assert_eq!(got, want, "{name}: event at {off} with byte {at} changed");
                }
            }
        }
        if events > 0 {
            assert!(
                plain * 100 >= events * 95,
                "{plain} of {events} events plain"
            );
            assert!(changed > 1000, "{changed} mutations");
        }
    }

    /// One field of a generated message: a number of the schema's (or an unknown one), a wire
    /// type, and a value of that type. A length-delimited value is random bytes or a message of
    /// fields numbered 1 to 8 (varints, or short texts that may not be UTF-8), in order or not.
    fn field() -> impl Strategy<Value = Vec<u8>> {
        let numbers: Vec<u32> = EVENT
            .fields
            .iter()
            .map(|f| f.number)
            .chain([9, 200])
            .collect();
        let inner_field =
            (1u32..9, any::<bool>(), any::<u16>(), 0usize..4).prop_map(|(number, text, v, len)| {
                let mut out = Vec::new();
                if text {
                    put_varint(&mut out, u64::from(number) << 3 | 2);
                    put_varint(&mut out, len as u64);
                    out.extend((0..len).map(|i| if v & (1 << i) != 0 { 0xff } else { b'a' }));
                } else {
                    put_varint(&mut out, u64::from(number) << 3);
                    put_varint(&mut out, u64::from(v));
                }
                out
            });
        let inner = prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..12),
            (proptest::collection::vec(inner_field, 0..4), any::<bool>()).prop_map(
                |(mut fields, sort)| {
                    if sort {
                        fields.sort();
                    }
                    fields.concat()
                }
            ),
        ];
        // Half the fields have the wire type their number has in the schema, half any.
        let wires = (any::<bool>(), 0u8..4)
            .prop_map(|(fit, w)| (!fit).then_some([0u8, 1, 2, 5][usize::from(w)]));
        (
            proptest::sample::select(numbers),
            wires,
            any::<u64>(),
            inner,
        )
            .prop_map(|(number, wire, v, inner)| {
                let fitting = EVENT.field(number).map_or(WIRE_LEN, |fd| fd.ty.wire_type());
                let wire = wire.unwrap_or(fitting);
                let mut out = Vec::new();
                put_varint(&mut out, u64::from(number) << 3 | u64::from(wire));
                match wire {
                    0 => put_varint(&mut out, v >> (v % 64)),
                    1 => out.extend_from_slice(&v.to_le_bytes()),
                    5 => out.extend_from_slice(&(v as u32).to_le_bytes()),
                    _ => {
                        put_varint(&mut out, inner.len() as u64);
                        out.extend_from_slice(&inner);
                    }
                }
                out
            })
    }

    fn put_varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    proptest! {
        // Enough cases to meet messages whose nested texts are not UTF-8.
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Messages of fields in any order, repeated or not, known or not, of fitting wire
        /// types or not: the verdict is the exact path's.
        #[test]
        fn the_one_walk_verdict_is_the_exact_one_on_generated_messages(
            fields in proptest::collection::vec(field(), 0..6),
            sort in any::<bool>(),
        ) {
            let mut fields = fields;
            if sort {
                // Increasing numbers, as a writer orders them: the messages the one walk takes.
                fields.sort_by_key(|f| Fields::new(f, 0).next().and_then(Result::ok).map(|f| f.number));
            }
            let msg = fields.concat();
            prop_assert_eq!(check_message(EVENT, &msg, 7), exact(EVENT, &msg, 7));
        }
    }
}
