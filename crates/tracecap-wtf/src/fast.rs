//! The walker's plain path reads (see `walk.rs`): an event's header and its arguments split off
//! the front of the event buffer with `tracecap_wire::fast`, `None` where the precise path must
//! read. `tests/fast_path.rs` checks that both paths give the same events on every file.

use tracecap_wire::fast::{split_array, split_bytes};

/// The 8-byte header of the chunked event at the front of `buf`, nothing consumed: the wire id
/// in its low 32 bits, the time in its high ones.
/// (A peek rather than `split_array`: the tail that a split also computes, unused here, costs the
/// full walk 3 instructions an event, measured with callgrind.)
#[inline(always)]
pub(crate) fn chunked_head(buf: &[u8]) -> Option<u64> {
    buf.first_chunk::<8>().map(|h| u64::from_le_bytes(*h))
}

/// The wire id and time of the legacy event at the front of `rest` (a big-endian `u16` and
/// `u32`), and what follows them.
#[inline(always)]
pub(crate) fn split_legacy_head(rest: &[u8]) -> Option<(u32, u32, &[u8])> {
    let (&[w0, w1, t0, t1, t2, t3], rest) = split_array::<6>(rest)?;
    Some((
        u32::from(u16::from_be_bytes([w0, w1])),
        u32::from_be_bytes([t0, t1, t2, t3]),
        rest,
    ))
}

/// Splits an event whose definition's plain code (see `Shape::plain`) is `plain` off the front of
/// `buf` (its 8-byte header included): its arguments, and what follows the event. `measure`
/// splits the arguments off what follows the header for codes above 8.
///
/// Each small size takes a branch of its own that splits off a constant length, header and
/// arguments with one length check. The CPU predicts which branch from the events before, so the
/// position of the next event is known at once, instead of after the loads of this event's wire
/// id, definition and size: that chain of dependent loads from one event to the next would
/// otherwise bound the walk. (Measured sizes take the same kind of branches, see
/// [`split_slots`].)
#[inline(always)]
pub(crate) fn split_event<'a>(
    buf: &'a [u8],
    plain: u32,
    measure: impl FnOnce(&'a [u8]) -> Option<(&'a [u8], &'a [u8])>,
) -> Option<(&'a [u8], &'a [u8])> {
    /// The constant-length split of one branch.
    #[inline(always)]
    fn split<const N: usize>(buf: &[u8]) -> Option<(&[u8], &[u8])> {
        let (event, tail) = split_array::<N>(buf)?;
        Some((event.get(8..)?, tail))
    }
    match plain {
        0 => split::<8>(buf),
        1 => split::<12>(buf),
        2 => split::<16>(buf),
        3 => split::<20>(buf),
        4 => split::<24>(buf),
        5 => split::<28>(buf),
        6 => split::<32>(buf),
        7 => split::<36>(buf),
        8 => split::<40>(buf),
        _ => measure(buf.get(8..)?),
    }
}

/// Splits `n` 4-byte slots off the front of `rest`, with a branch per small `n` (see
/// [`split_event`], whose ladder includes the header: one ladder for both, with the header
/// length as a parameter, cost the full walk 3 more instructions an event, measured).
#[inline(always)]
pub(crate) fn split_slots(rest: &[u8], n: u32) -> Option<(&[u8], &[u8])> {
    /// The constant-length split of one branch.
    #[inline(always)]
    fn split<const N: usize>(rest: &[u8]) -> Option<(&[u8], &[u8])> {
        split_array::<N>(rest).map(|(args, tail)| (args.as_slice(), tail))
    }
    match n {
        0 => Some((&[], rest)),
        1 => split::<4>(rest),
        2 => split::<8>(rest),
        3 => split::<12>(rest),
        4 => split::<16>(rest),
        5 => split::<20>(rest),
        6 => split::<24>(rest),
        7 => split::<28>(rest),
        8 => split::<32>(rest),
        _ => split_bytes(rest, (n as usize).checked_mul(4)?),
    }
}
