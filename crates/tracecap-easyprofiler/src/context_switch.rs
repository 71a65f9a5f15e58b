//! Context-switch records: intervals during which a thread was switched out.

use tracecap_wire::zerocopy::byteorder::little_endian::{U32, U64};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::Reader;

use crate::error::{Error, ErrorKind};
use tracecap_wire::Context;

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct CsHeadWide {
    begin: U64,
    end: U64,
    target: U64,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct CsHeadNarrow {
    begin: U64,
    end: U64,
    target: U32,
}

/// One context switch of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextSwitch<'a> {
    /// Absolute offset of the record's size field.
    pub offset: u64,
    /// When the thread was switched out (file time unit).
    pub begin: u64,
    /// When it came back.
    pub end: u64,
    /// The thread switched in at `begin`.
    pub target_thread: u64,
    /// That task's name, without its NUL.
    pub name: &'a [u8],
}

impl<'a> ContextSwitch<'a> {
    /// Reads one record (size field included); `wide` is true for 1.3.0+ (u64 target id).
    #[inline]
    pub(crate) fn read(r: &mut Reader<'a>, wide: bool) -> Result<Self, Error> {
        let offset = r.offset();
        let size = r.u16_le().what("context switch size")?;
        let mut body = r.sub(u64::from(size)).what("context switch")?;
        let too_short = |min| {
            Error::new(
                ErrorKind::RecordTooShort {
                    what: "context switch",
                    size,
                    min,
                },
                offset,
            )
        };
        let (begin, end, target_thread) = if wide {
            let h: &CsHeadWide = body.view().map_err(|_| too_short(25))?;
            (h.begin.get(), h.end.get(), h.target.get())
        } else {
            let h: &CsHeadNarrow = body.view().map_err(|_| too_short(21))?;
            (h.begin.get(), h.end.get(), u64::from(h.target.get()))
        };
        let name = body.cstr().what("context switch name")?;
        Ok(ContextSwitch {
            offset,
            begin,
            end,
            target_thread,
            name,
        })
    }
}
