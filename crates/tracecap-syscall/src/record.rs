//! CapturedSyscall records (segment tag 2): number, flags, the optional fixed fields the flags
//! announce, then argument elements.

use tracecap_wire::fast::split_array;
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::{Endian, Reader};

use crate::arg::Args;
use crate::error::{Error, ErrorKind};
use crate::names::syscall_name;

/// Segment tag of a syscall record.
pub const SEGMENT_SYSCALL: u32 = 2;

/// Record flag: the i64 return value is present (absent means 0).
pub const FLAG_RESULT: u8 = 0x01;
/// Record flag: the i32 thread id is present (only when it differs from the header's).
pub const FLAG_TID: u8 = 0x02;
/// Record flag: the i64 entry timestamp (CLOCK_MONOTONIC ns) is present.
pub const FLAG_TIMESTAMP: u8 = 0x04;
/// Record flag: the f32 duration in ns is present.
pub const FLAG_DURATION: u8 = 0x08;
/// Every flag bit this crate knows.
pub const KNOWN_FLAGS: u8 = FLAG_RESULT | FLAG_TID | FLAG_TIMESTAMP | FLAG_DURATION;

/// The four bytes every record starts with.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned, Debug)]
#[repr(C)]
pub struct RawRecordHead {
    /// u16 syscall number in the writer's byte order.
    pub number: [u8; 2],
    /// Which optional fields follow.
    pub flags: u8,
    /// Reserved, 0.
    pub reserved: u8,
}

/// Bytes of the optional fixed fields that `flags` announce.
#[inline]
fn fixed_len(flags: u8) -> usize {
    let mut n = 0;
    if flags & FLAG_RESULT != 0 {
        n += 8;
    }
    if flags & FLAG_TID != 0 {
        n += 4;
    }
    if flags & FLAG_TIMESTAMP != 0 {
        n += 8;
    }
    if flags & FLAG_DURATION != 0 {
        n += 4;
    }
    n
}

/// One captured system call, borrowed from the file.
#[derive(Clone, Copy, Debug)]
pub struct Syscall<'a> {
    /// Absolute offset of the record's segment (its tag).
    pub offset: u64,
    /// x86-64 syscall number (truncated to 16 bits by the writer).
    pub number: u16,
    /// Raw flags byte.
    pub flags: u8,
    /// The return value if recorded ([`FLAG_RESULT`]).
    pub result: Option<i64>,
    /// The thread id if recorded ([`FLAG_TID`]).
    pub tid: Option<i32>,
    /// Entry time, CLOCK_MONOTONIC nanoseconds ([`FLAG_TIMESTAMP`]).
    pub timestamp_ns: Option<i64>,
    /// Duration in nanoseconds ([`FLAG_DURATION`]).
    pub duration_ns: Option<f32>,
    /// Number of argument elements.
    pub arg_count: u16,
    args: Args<'a>,
}

impl<'a> Syscall<'a> {
    /// Parses a record from its segment value `payload`; `offset` is the segment's tag offset.
    #[inline(always)]
    pub fn parse(offset: u64, payload: Reader<'a>, endian: Endian) -> Result<Self, Error> {
        let bytes = payload.rest();
        let Ok((head, mut rest)) = RawRecordHead::ref_from_prefix(bytes) else {
            return Err(Error::truncated(
                "syscall record",
                payload.offset(),
                4,
                bytes.len() as u64,
            ));
        };
        let flags = head.flags;
        if flags & !KNOWN_FLAGS != 0 {
            return Err(Error::new(
                ErrorKind::UnknownFlags(flags),
                payload.offset().saturating_add(2),
            ));
        }
        let needed = fixed_len(flags);
        if rest.len() < needed {
            return Err(Error::truncated(
                "syscall record",
                payload.offset().saturating_add(4),
                needed as u64,
                rest.len() as u64,
            ));
        }
        // Each field below was counted in `needed`, so none of the splits can fail.
        let result = if flags & FLAG_RESULT != 0 {
            take::<8>(&mut rest).map(|b| endian.i64(b))
        } else {
            None
        };
        let tid = if flags & FLAG_TID != 0 {
            take::<4>(&mut rest).map(|b| endian.i32(b))
        } else {
            None
        };
        let timestamp_ns = if flags & FLAG_TIMESTAMP != 0 {
            take::<8>(&mut rest).map(|b| endian.i64(b))
        } else {
            None
        };
        let duration_ns = if flags & FLAG_DURATION != 0 {
            take::<4>(&mut rest).map(|b| endian.f32(b))
        } else {
            None
        };
        let args_at = payload
            .offset()
            .saturating_add((bytes.len() - rest.len()) as u64);
        let (args, arg_count) = Args::check(Reader::at(rest, args_at), endian)?;
        Ok(Syscall {
            offset,
            number: endian.u16(head.number),
            flags,
            result,
            tid,
            timestamp_ns,
            duration_ns,
            arg_count,
            args,
        })
    }

    /// The return value: the raw kernel value (`-errno` on failure), 0 when not recorded.
    pub fn ret(&self) -> i64 {
        self.result.unwrap_or(0)
    }

    /// The x86-64 name of the call (`openat`), `None` for an unassigned number.
    pub fn name(&self) -> Option<&'static str> {
        syscall_name(self.number)
    }

    /// The argument elements, in order.
    pub fn args(&self) -> Args<'a> {
        self.args
    }
}

/// The first `N` bytes of `rest`, which moves past them.
#[inline]
fn take<const N: usize>(rest: &mut &[u8]) -> Option<[u8; N]> {
    let (a, b) = split_array::<N>(rest)?;
    *rest = b;
    Some(*a)
}
