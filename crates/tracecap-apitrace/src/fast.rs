//! Fast paths: the common shapes of events and values, read without error plumbing.
//!
//! Nearly every event of a real trace is made of signatures already defined, one-byte tags,
//! short varints and fixed-size scalars. These functions read exactly those shapes and answer
//! `None` for anything else: the first use of a signature (its definition follows), a malformed
//! or truncated byte, nesting deeper than [`MAX_DEPTH`], a backtrace. The caller then reads the
//! same bytes again with the precise parser, which handles every case and names every error, so
//! a fast path changes no result, only the time to reach it. A fast path accepts nothing the
//! precise parser refuses.
//!
//! The cursor of the hot loop must stay in registers: functions kept out of line (the rarer
//! shapes) take it by value and hand the moved cursor back, rather than through a reference
//! that would pin it in memory for the whole loop.

use crate::cursor::{Cur, Span};
use crate::event::{Backtrace, Detail, DetailBuf, EventKind, State};
use crate::sig::{SigInfo, SigKind, SigLookup};
use crate::value::{Array, Repr, Struct, Value, WStr, MAX_DEPTH};

/// A well-formed `uint` (no overlong encoding, at most 64 bits).
#[inline(always)]
fn uint(c: &mut Cur<'_>) -> Option<u64> {
    let b = *c.data.get(c.pos)?;
    if b < 0x80 {
        c.pos += 1;
        return Some(u64::from(b));
    }
    // Signature ids (a function's index in the tracer's tables) are two bytes, call numbers
    // two to four: read straight from four bytes when the stream has them.
    if let Some(&[_, b1, b2, b3]) = c.data.get(c.pos..).and_then(|r| r.first_chunk()) {
        let v = u64::from(b & 0x7f) | u64::from(b1 & 0x7f) << 7;
        if b1 < 0x80 {
            c.pos += 2;
            return (b1 != 0).then_some(v);
        }
        let v = v | u64::from(b2 & 0x7f) << 14;
        if b2 < 0x80 {
            c.pos += 3;
            return (b2 != 0).then_some(v);
        }
        if b3 < 0x80 {
            c.pos += 4;
            return (b3 != 0).then_some(v | u64::from(b3) << 21);
        }
    }
    let (v, next) = long_uint(*c)?;
    *c = next;
    Some(v)
}

/// Five bytes or more (pointers take up to ten), and the last few bytes of the stream.
#[inline(never)]
fn long_uint(mut c: Cur<'_>) -> Option<(u64, Cur<'_>)> {
    let rest = c.data.get(c.pos..)?;
    let (v, n) = tracecap_wire::decode_uleb64(rest).ok()?;
    c.pos += n;
    Some((v, c))
}

/// One byte.
#[inline(always)]
fn byte(c: &mut Cur<'_>) -> Option<u8> {
    let b = *c.data.get(c.pos)?;
    c.pos += 1;
    Some(b)
}

/// Skips `n` bytes.
#[inline(always)]
fn skip(c: &mut Cur<'_>, n: usize) -> Option<()> {
    (n <= c.data.len().saturating_sub(c.pos)).then(|| c.pos += n)
}

/// `n` bytes.
#[inline(always)]
fn bytes<'a>(c: &mut Cur<'a>, n: u64) -> Option<&'a [u8]> {
    let n = usize::try_from(n).ok()?;
    let s = c.data.get(c.pos..)?.get(..n)?;
    c.pos += n;
    Some(s)
}

/// `N` bytes, as an array.
#[inline(always)]
fn fixed<const N: usize>(c: &mut Cur<'_>) -> Option<[u8; N]> {
    let a = *c.data.get(c.pos..)?.first_chunk()?;
    c.pos += N;
    Some(a)
}

/// A tagged signed integer.
#[inline(always)]
fn sint(c: &mut Cur<'_>) -> Option<i64> {
    match byte(c)? {
        3 => uint(c).map(|v| (v as i64).wrapping_neg()),
        4 => uint(c).map(|v| v as i64),
        _ => None,
    }
}

/// A signature id defined earlier in the stream (`None` if it is undefined, or defined here).
#[inline(always)]
fn sig<T: SigLookup + ?Sized>(c: &mut Cur<'_>, t: &T, kind: SigKind) -> Option<(u64, SigInfo)> {
    let at = c.offset();
    let id = uint(c)?;
    let info = t.get(kind, id)?;
    (info.offset != at).then_some((id, info))
}

/// Skips one value.
#[inline(always)]
pub(crate) fn skip_value<T: SigLookup + ?Sized>(
    c: &mut Cur<'_>,
    t: &T,
    version: u64,
    depth: u32,
) -> Option<()> {
    match byte(c)? {
        0x00..=0x02 => Some(()),
        0x03 | 0x04 | 0x0d => uint(c).map(drop),
        0x05 => skip(c, 4),
        0x06 => skip(c, 8),
        tag => {
            *c = skip_other(tag, *c, t, version, depth)?;
            Some(())
        }
    }
}

/// [`skip_value`] past the tag byte, for everything but the fixed-size scalars.
#[inline(never)]
fn skip_other<'a, T: SigLookup + ?Sized>(
    tag: u8,
    mut cur: Cur<'a>,
    t: &T,
    version: u64,
    depth: u32,
) -> Option<Cur<'a>> {
    let c = &mut cur;
    match tag {
        0x07 | 0x08 => {
            let n = uint(c)?;
            bytes(c, n).map(drop)
        }
        0x09 => {
            sig(c, t, SigKind::Enum)?;
            if version >= 3 {
                sint(c)?;
            }
            Some(())
        }
        0x0a => {
            sig(c, t, SigKind::Bitmask)?;
            uint(c).map(drop)
        }
        0x0b => {
            let n = uint(c)?;
            skip_values(c, t, version, depth, n)
        }
        0x0c => {
            let (_, info) = sig(c, t, SigKind::Struct)?;
            skip_values(c, t, version, depth, info.extra as u64)
        }
        0x0e => skip_values(c, t, version, depth, 2),
        0x0f => {
            let n = uint(c)?;
            let mut i = 0;
            while i < n {
                uint(c)?;
                i += 1;
            }
            Some(())
        }
        _ => None,
    }?;
    Some(cur)
}

/// Skips the `n` values inside a compound value at `depth`.
#[inline]
fn skip_values<T: SigLookup + ?Sized>(
    c: &mut Cur<'_>,
    t: &T,
    version: u64,
    depth: u32,
    n: u64,
) -> Option<()> {
    if depth >= MAX_DEPTH {
        return None;
    }
    let mut i = 0;
    while i < n {
        skip_value(c, t, version, depth + 1)?;
        i += 1;
    }
    Some(())
}

/// An event the fast path read: what `Event` needs besides the version.
pub(crate) struct Head<'a> {
    pub(crate) kind: EventKind,
    pub(crate) call_no: u64,
    pub(crate) thread: u64,
    pub(crate) sig: u64,
    /// Position of the first detail byte.
    pub(crate) details: usize,
    /// The details, without the terminator (empty until the event's end is known).
    pub(crate) body: Span<'a>,
}

/// Reads the event byte and what follows it up to the details: kind, call number, thread and
/// function signature.
#[inline(always)]
fn head<'a, T: SigLookup + ?Sized>(c: &mut Cur<'a>, state: &State, t: &T) -> Option<Head<'a>> {
    let (kind, call_no, thread, sig) = match byte(c)? {
        0 => {
            let thread = if state.version >= 4 { uint(c)? } else { 0 };
            let (id, _) = sig(c, t, SigKind::Function)?;
            (EventKind::Enter, state.next_call_no, thread, id)
        }
        1 => (EventKind::Leave, uint(c)?, 0, 0),
        _ => return None,
    };
    Some(Head {
        kind,
        call_no,
        thread,
        sig,
        details: c.pos,
        body: Span::empty(0),
    })
}

/// Reads past one whole event (its 0x00 terminator included) at `c`.
#[inline(always)]
pub(crate) fn event<'a, T: SigLookup + ?Sized>(
    c: &mut Cur<'a>,
    state: &State,
    t: &T,
) -> Option<Head<'a>> {
    let version = state.version;
    let mut head = head(c, state, t)?;
    loop {
        // Tests, not a jump table: whether an argument or the end comes next is what varies
        // from event to event, and a conditional branch predicts that better.
        let d = byte(c)?;
        if d == 1 {
            uint(c)?;
            skip_value(c, t, version, 0)?;
        } else if d == 0 {
            break;
        } else {
            *c = skip_other_detail(d, *c, t, version)?;
        }
    }
    head.body = details(c, &head)?;
    Some(head)
}

/// [`event`], keeping the details it reads in `buf` (see [`crate::Parsed`]).
#[inline(always)]
pub(crate) fn event_parsed<'a, T: SigLookup + ?Sized>(
    c: &mut Cur<'a>,
    state: &State,
    t: &T,
    version: u8,
    buf: &mut DetailBuf<'a>,
) -> Option<Head<'a>> {
    let mut head = head(c, state, t)?;
    // The details are read from `rest`, the bytes after the cursor: "eight bytes left?" is
    // then one test (on a position it is two: the position could be past the end); the
    // cursor catches up for the other shapes and at the end.
    let mut rest = c.data.get(c.pos..)?;
    // Each detail is written straight into its slot. The count stays in a register; the buffer
    // learns it once, at the end.
    let mut n = 0;
    loop {
        let (index, value) = match small_detail(&mut rest) {
            Small::Float(index, f) => (index, Value::Float(f)),
            Small::UInt(index, v) => (index, Value::UInt(v)),
            Small::End => break,
            Small::Other => {
                c.pos = c.data.len().wrapping_sub(rest.len());
                let d = byte(c)?;
                if d != 0 {
                    detail_into(d, c, t, version, buf.slot(n)?)?;
                }
                rest = c.data.get(c.pos..)?;
                if d == 0 {
                    break;
                }
                n += 1;
                continue;
            }
        };
        *buf.slot(n)? = Detail::Arg { index, value };
        n += 1;
    }
    c.pos = c.data.len().wrapping_sub(rest.len());
    buf.set_len(n);
    head.body = details(c, &head)?;
    Some(head)
}

/// What [`small_detail`] found: an argument (index and value), the end, or something else.
enum Small {
    Float(u64, f32),
    UInt(u64, u64),
    /// The event's terminator, read.
    End,
    /// Anything else (or too few bytes left to tell): nothing read.
    Other,
}

/// The commonest details of real traces, an argument with a one-byte index holding a float or a
/// one-byte integer, and the event's terminator, read from the front of `rest` with a single
/// bounds check: their bytes sit at fixed places in the next eight.
#[inline(always)]
fn small_detail(rest: &mut &[u8]) -> Small {
    let Some(&[d, index, tag, b0, b1, b2, b3, _]) = rest.first_chunk() else {
        return Small::Other;
    };
    // The advances below stay within the eight bytes just checked: no further test.
    if d == 0 {
        *rest = rest.get(1..).unwrap_or_default();
        return Small::End;
    }
    if d != 1 || index >= 0x80 {
        return Small::Other;
    }
    let index = u64::from(index);
    if tag == 0x05 {
        *rest = rest.get(7..).unwrap_or_default();
        return Small::Float(index, f32::from_le_bytes([b0, b1, b2, b3]));
    }
    if tag == 0x04 && b0 < 0x80 {
        *rest = rest.get(4..).unwrap_or_default();
        return Small::UInt(index, u64::from(b0));
    }
    Small::Other
}

/// Reads the detail whose byte `d` (not the terminator) was just read into `slot`. Each shape
/// is stored where it belongs as soon as it is known: building a whole `Option<Detail>` first
/// and copying it into the buffer costs a dozen moves a detail through the stack, and the
/// consumer's reads of the slot right after then stall on mismatched store sizes.
#[inline(always)]
fn detail_into<'a, T: SigLookup + ?Sized>(
    d: u8,
    c: &mut Cur<'a>,
    t: &T,
    version: u8,
    slot: &mut Detail<'a>,
) -> Option<()> {
    // Arguments first, by a plain test: a jump table costs more for the commonest case.
    if d == 1 {
        let index = uint(c)?;
        return value_into(c, t, version, slot, |value| Detail::Arg { index, value });
    }
    match d {
        2 => value_into(c, t, version, slot, Detail::Ret),
        4 => {
            let (b, next) = backtrace(*c, t)?;
            *c = next;
            *slot = Detail::Backtrace(b);
            Some(())
        }
        5 => {
            *slot = Detail::Flags(uint(c)?);
            Some(())
        }
        _ => None,
    }
}

/// Reads one validated value into `slot`, as what `wrap` makes of it (a detail, or the value
/// itself for [`value`]).
#[inline(always)]
fn value_into<'a, T: SigLookup + ?Sized, S>(
    c: &mut Cur<'a>,
    t: &T,
    version: u8,
    slot: &mut S,
    wrap: impl Fn(Value<'a>) -> S,
) -> Option<()> {
    match byte(c)? {
        0x00 => *slot = wrap(Value::Null),
        0x01 => *slot = wrap(Value::Bool(false)),
        0x02 => *slot = wrap(Value::Bool(true)),
        0x03 => *slot = wrap(Value::SInt((uint(c)? as i64).wrapping_neg())),
        0x04 => *slot = wrap(Value::UInt(uint(c)?)),
        0x05 => *slot = wrap(Value::Float(f32::from_le_bytes(fixed(c)?))),
        0x06 => *slot = wrap(Value::Double(f64::from_le_bytes(fixed(c)?))),
        0x0d => *slot = wrap(Value::Pointer(uint(c)?)),
        tag => {
            let (v, next) = other_value(tag, *c, t, version)?;
            *c = next;
            *slot = wrap(v);
        }
    }
    Some(())
}

/// Skips a detail other than an argument (out of line, so that the loop over an event's
/// details stays two tests).
#[inline(never)]
fn skip_other_detail<'a, T: SigLookup + ?Sized>(
    d: u8,
    mut c: Cur<'a>,
    t: &T,
    version: u64,
) -> Option<Cur<'a>> {
    match d {
        2 => skip_value(&mut c, t, version, 0)?,
        4 => c = backtrace(c, t)?.1,
        5 => {
            uint(&mut c)?;
        }
        _ => return None,
    }
    Some(c)
}

/// Reads one value that has been validated already (a detail of an event the event parser
/// accepted, or an element of a compound value).
#[inline(always)]
pub(crate) fn value<'a, T: SigLookup + ?Sized>(
    c: &mut Cur<'a>,
    t: &T,
    version: u8,
) -> Option<Value<'a>> {
    let mut v = Value::Null;
    value_into(c, t, version, &mut v, |value| value)?;
    Some(v)
}

/// [`value`] past the tag byte, for everything but the fixed-size scalars.
#[inline(never)]
fn other_value<'a, T: SigLookup + ?Sized>(
    tag: u8,
    mut cur: Cur<'a>,
    t: &T,
    version: u8,
) -> Option<(Value<'a>, Cur<'a>)> {
    let c = &mut cur;
    let v = u64::from(version);
    let value = match tag {
        0x07 => {
            let n = uint(c)?;
            Value::String(bytes(c, n)?)
        }
        0x08 => {
            let n = uint(c)?;
            Value::Blob(bytes(c, n)?)
        }
        0x09 => {
            let (sig, info) = sig(c, t, SigKind::Enum)?;
            let value = if version >= 3 { sint(c)? } else { info.extra };
            Value::Enum { sig, value }
        }
        0x0a => {
            let (sig, _) = sig(c, t, SigKind::Bitmask)?;
            Value::Bitmask {
                sig,
                value: uint(c)?,
            }
        }
        0x0b => {
            let count = uint(c)?;
            let start = c.pos;
            skip_values(c, t, v, 0, count)?;
            Value::Array(Array {
                count,
                body: c.since(start),
                version,
            })
        }
        0x0c => {
            let (sig, info) = sig(c, t, SigKind::Struct)?;
            let count = info.extra as u64;
            let start = c.pos;
            skip_values(c, t, v, 0, count)?;
            Value::Struct(Struct {
                sig,
                count,
                body: c.since(start),
                version,
            })
        }
        0x0e => {
            let start = c.pos;
            skip_values(c, t, v, 0, 2)?;
            Value::Repr(Repr {
                body: c.since(start),
                version,
            })
        }
        0x0f => {
            let count = uint(c)?;
            let start = c.pos;
            let mut i = 0;
            while i < count {
                uint(c)?;
                i += 1;
            }
            Value::WString(WStr {
                count,
                body: c.since(start),
            })
        }
        _ => return None,
    };
    Some((value, cur))
}

/// Reads one detail of an accepted event (not the terminator).
#[inline(always)]
pub(crate) fn detail<'a, T: SigLookup + ?Sized>(
    c: &mut Cur<'a>,
    t: &T,
    version: u8,
) -> Option<Detail<'a>> {
    let d = byte(c)?;
    let mut slot = Detail::Flags(0);
    detail_into(d, c, t, version, &mut slot)?;
    Some(slot)
}

/// A backtrace: its frame ids.
#[inline(never)]
fn backtrace<'a, T: SigLookup + ?Sized>(mut c: Cur<'a>, t: &T) -> Option<(Backtrace<'a>, Cur<'a>)> {
    let count = uint(&mut c)?;
    let start = c.pos;
    let mut i = 0;
    while i < count {
        sig(&mut c, t, SigKind::Frame)?;
        i += 1;
    }
    let b = Backtrace {
        count,
        body: c.since(start),
    };
    Some((b, c))
}

/// The details of an event whose terminator `c` has just read, without the terminator. `None`
/// never happens; a `?` costs less here than a fallback to an empty span.
#[inline(always)]
fn details<'a>(c: &Cur<'a>, head: &Head<'a>) -> Option<Span<'a>> {
    Some(Span {
        data: c.data.get(head.details..c.pos.wrapping_sub(1))?,
        base: c.base.wrapping_add(head.details as u64),
    })
}

#[cfg(all(test, feature = "write"))]
mod tests {
    //! The fast paths against the precise parser, on valid and on damaged streams: wherever a
    //! fast path answers, the precise parser accepts the same bytes and gives the same result.

    use std::format;
    use std::vec::Vec;

    use super::*;
    use crate::event::{next_event_slow, parse_detail};
    use crate::table::SigTable;
    use crate::value::{parse_value, Lookup};
    use crate::write::{WDetail, WFrame, WValue, Writer};

    /// A stream with every value tag, nested values, backtraces, flags and large varints.
    fn stream(version: u64) -> Vec<u8> {
        let mut w = Writer::new(version, version, &[]);
        w.function(3, b"f", &[b"a", b"b"]);
        w.function(2000, b"g", &[b"x"]);
        w.struct_sig(1, b"S", &[b"m", b"n"]);
        w.enum_sig(1, &[(b"E", 5)]);
        w.bitmask_sig(300, &[(b"B", 1)]);
        w.frame(7, WFrame::default());
        let leaves = [
            WValue::Null,
            WValue::Bool(true),
            WValue::SInt(-3),
            WValue::UInt(1 << 40),
            WValue::Float(1.5),
            WValue::Double(-2.25),
            WValue::String(b"str".to_vec()),
            WValue::Blob(std::vec![0; 200]),
            WValue::Enum { sig: 1, value: 5 },
            WValue::Bitmask { sig: 300, value: 1 },
            WValue::Pointer(0x7fff_0000_1234),
            WValue::WString(std::vec![65, 0x1_0000]),
        ];
        for (i, v) in leaves.iter().enumerate() {
            let nested = WValue::Array(std::vec![
                v.clone(),
                WValue::Struct {
                    sig: 1,
                    members: std::vec![
                        v.clone(),
                        WValue::Repr(Box::new(v.clone()), Box::new(WValue::UInt(9)))
                    ],
                },
            ]);
            let mut d = std::vec![WDetail::Arg(0, v.clone()), WDetail::Arg(1, nested)];
            if version >= 5 && i % 3 == 0 {
                d.push(WDetail::Backtrace(std::vec![7, 7]));
            }
            if version >= 6 && i % 4 == 0 {
                d.push(WDetail::Flags(1));
            }
            let c = w.enter(i as u64, if i % 2 == 0 { 3 } else { 2000 }, &d);
            w.leave(c, &[WDetail::Ret(v.clone())]);
        }
        w.finish()
    }

    /// Walks `s` comparing the fast and the precise parser at every event and detail; returns
    /// how many events the fast path read.
    fn compare(s: &[u8]) -> usize {
        let mut fast_events = 0;
        let mut r = tracecap_wire::Reader::new(s);
        let Ok(h) = crate::header::Header::parse(&mut r) else {
            return 0;
        };
        let mut c = Cur::new(r.rest(), r.offset());
        let mut state = State::new(h.version);
        let mut table = SigTable::new();
        while !c.is_empty() {
            let mut f = c;
            let fast = event(&mut f, &state, &table);
            let mut p = c;
            let mut st = state;
            let precise = next_event_slow(&mut p, &mut st, &mut table);
            let ev = match (fast, precise) {
                (Some(head), Ok(ev)) => {
                    assert_eq!(
                        (head.kind, head.call_no, head.thread, head.sig),
                        (ev.kind, ev.call_no, ev.thread, ev.sig)
                    );
                    assert_eq!(f.pos, p.pos);
                    assert_eq!(head.body.data, ev.details().raw());
                    assert_eq!(head.body.base, ev.details().offset());
                    fast_events += 1;
                    ev
                }
                (Some(_), Err(e)) => panic!("fast path accepted an event the parser refuses: {e}"), // ok: test
                (None, Ok(ev)) => ev,
                (None, Err(_)) => return fast_events,
            };
            let mut d = ev.details().body.cur();
            while !d.is_empty() {
                let mut f = d;
                let fast = detail(&mut f, &table, ev.details().version);
                let precise = parse_detail(&mut d, &mut Lookup(&table), state.version);
                match (fast, precise) {
                    (Some(a), Ok(Some(b))) => {
                        assert_eq!(format!("{a:?}"), format!("{b:?}"));
                        assert_eq!(f.pos, d.pos);
                        if let Detail::Arg { value, .. } | Detail::Ret(value) = a {
                            compare_inside(&value, &table);
                        }
                    }
                    (Some(a), other) => panic!("fast detail {a:?}, precise {other:?}"), // ok: test
                    (None, Ok(Some(_))) => {}
                    (None, _) => break,
                }
            }
            c = p;
            state = st;
        }
        fast_events
    }

    /// The elements of compound values, read both ways.
    fn compare_inside(v: &Value<'_>, t: &SigTable) {
        let (mut body, count, version) = match v {
            Value::Array(a) => (a.body.cur(), a.count, a.version),
            Value::Struct(s) => (s.body.cur(), s.count, s.version),
            Value::Repr(r) => (r.body.cur(), 2, r.version),
            _ => return,
        };
        for _ in 0..count {
            let mut f = body;
            let fast = value(&mut f, t, version);
            let precise = parse_value(&mut body, &mut Lookup(t), u64::from(version), 0);
            match (fast, precise) {
                (Some(a), Ok(b)) => {
                    assert_eq!(format!("{a:?}"), format!("{b:?}"));
                    assert_eq!(f.pos, body.pos);
                    compare_inside(&a, t);
                }
                (Some(a), Err(e)) => panic!("fast value {a:?}, precise error {e}"), // ok: test
                (None, Ok(_)) => {}
                (None, Err(_)) => return,
            }
        }
    }

    #[test]
    fn fast_paths_agree_with_the_parser() {
        for version in 0..=6 {
            let s = stream(version);
            assert!(compare(&s) >= 12, "the fast path read too few events");
            // Every prefix of the first KiB, and single-byte damage all along.
            for n in 0..s.len().min(1024) {
                compare(&s[..n]);
            }
            let mut x = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..1500 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut m = s.clone();
                let at = (x as usize) % m.len();
                m[at] = (x >> 32) as u8;
                compare(&m);
            }
        }
    }
}
