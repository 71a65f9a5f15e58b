//! The hot path of the entry walk: a whole syscall segment (tag, length, payload, zero padding),
//! read with `tracecap_wire::fast`, and the record's fixed fields. Anything else (another tag, a cut or misaligned segment,
//! padding that is not zero) is left to the precise reader in `capture.rs`, which reports faults
//! with their offsets; `tests/fast_path.rs` checks that both read every file alike.

use tracecap_wire::fast::{split_array, split_bytes, touch_ahead};
use tracecap_wire::{padding_to, Endian, Reader};

use crate::capture::SEGMENT_SYSCALL;

/// Touches the input ahead of the segment at the front of `rest` (see
/// [`tracecap_wire::fast::READ_AHEAD`]): walking segments is a chain of dependent loads, since each
/// length says where the next segment starts.
#[inline(always)]
pub(crate) fn read_ahead(rest: &[u8]) {
    touch_ahead(rest);
}

/// The syscall segment at the front of `rest` (whose first byte is at absolute `offset`): a reader
/// over its payload and the bytes the segment takes with its padding. `None` when the bytes there
/// are not a whole, well-padded syscall segment.
#[inline(always)]
pub(crate) fn syscall_segment(
    rest: &[u8],
    offset: u64,
    endian: Endian,
) -> Option<(Reader<'_>, usize)> {
    let (&[t0, t1, t2, t3, l0, l1, l2, l3], body) = split_array::<8>(rest)?;
    if endian.u32([t0, t1, t2, t3]) != SEGMENT_SYSCALL {
        return None;
    }
    let len = usize::try_from(endian.u32([l0, l1, l2, l3])).ok()?;
    let value_at = offset.checked_add(8)?;
    let pad = usize::try_from(padding_to(value_at.checked_add(len as u64)?, 4)).ok()?;
    let (payload, body) = split_bytes(body, len)?;
    let (padding, _) = split_bytes(body, pad)?;
    if padding.iter().any(|&b| b != 0) {
        return None;
    }
    let taken = len.checked_add(pad)?.checked_add(8)?;
    Some((Reader::at(payload, value_at), taken))
}

/// The first `N` bytes of `rest`, which moves past them.
#[inline(always)]
pub(crate) fn take<const N: usize>(rest: &mut &[u8]) -> Option<[u8; N]> {
    let (a, b) = split_array::<N>(rest)?;
    *rest = b;
    Some(*a)
}
