//! The hot path of the entry walk: a whole syscall segment (tag, length, payload, zero padding),
//! read with `tracecap_wire::fast`, and the record's fixed fields. Anything else (another tag, a
//! cut or misaligned segment, padding that is not zero) is left to the precise reader in
//! `capture.rs`, which reports faults with their offsets; `tests/fast_path.rs` checks that both
//! read every file alike.

use tracecap_wire::fast::{split_array, split_bytes};
use tracecap_wire::{padding_to, Endian, Reader};

use crate::error::Error;
use crate::record::{Syscall, SEGMENT_SYSCALL};

/// The syscall record at the front of `r` (whose rest is `rest`, at absolute `offset`) when the
/// bytes there are a whole, well-padded syscall segment: `r` moves past it, and the record, read
/// by `Syscall::parse`, comes back. `None`, with `r` unmoved, otherwise.
#[inline(always)]
pub(crate) fn syscall<'a>(
    r: &mut Reader<'a>,
    rest: &'a [u8],
    offset: u64,
    endian: Endian,
) -> Option<Result<Syscall<'a>, Error>> {
    let (&[t0, t1, t2, t3, l0, l1, l2, l3], body) = split_array::<8>(rest)?;
    if endian.u32([t0, t1, t2, t3]) != SEGMENT_SYSCALL {
        return None;
    }
    let len = usize::try_from(endian.u32([l0, l1, l2, l3])).ok()?;
    let value_at = offset.checked_add(8)?;
    let pad = usize::try_from(padding_to(value_at.checked_add(len as u64)?, 4)).ok()?;
    let padded = len.checked_add(pad)?;
    // A prefix, not a split: the unused tail of a split costs instructions on every record.
    let (payload, padding) = split_bytes(body.get(..padded)?, len)?;
    if padding.iter().any(|&b| b != 0) {
        return None;
    }
    r.skip(padded.checked_add(8)?).ok()?;
    Some(Syscall::parse(
        offset,
        Reader::at(payload, value_at),
        endian,
    ))
}
