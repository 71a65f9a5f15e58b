//! Argument elements of a syscall record: integers, data, partial data, stat structs, pollfd
//! arrays and sigactions.

use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::{Endian, Reader};

use crate::error::{Error, ErrorKind};
use crate::tlv;

/// Element tag: an integer or pointer, 4 bytes (sign-extended) when it fits in i32, else 8.
pub const ARG_INT: u16 = 1;
/// Element tag: complete data (a buffer, or a string without its NUL).
pub const ARG_FULL: u16 = 2;
/// Element tag: u32 original length, then the first bytes of the data.
pub const ARG_PARTIAL: u16 = 3;
/// Element tag: a packed 116-byte `struct stat`.
pub const ARG_STAT: u16 = 4;
/// Element tag: an array of 8-byte `struct pollfd`.
pub const ARG_POLLFDS: u16 = 5;
/// Element tag: a sigaction (0 bytes for a NULL pointer).
pub const ARG_SIGACTION: u16 = 6;
/// Element tag: a pointer and the u64 it points to (defined upstream, never written).
pub const ARG_INTP: u16 = 7;

/// Size of the packed stat element.
pub const STAT_LEN: usize = 116;
/// Size of one pollfd.
pub const POLLFD_LEN: usize = 8;
/// Size of the sigaction element with the usual 8-byte signal set.
pub const SIGACTION_LEN: usize = 36;
/// Bytes of a sigaction element that are not the signal-set word.
const SIGACTION_FIXED: usize = 28;

/// The stat element as stored: x86-64 `struct stat` fields back to back, without alignment.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned, Debug)]
#[repr(C)]
pub struct RawStat {
    dev: [u8; 8],
    ino: [u8; 8],
    mode: [u8; 4],
    nlink: [u8; 8],
    uid: [u8; 4],
    gid: [u8; 4],
    rdev: [u8; 8],
    size: [u8; 8],
    blksize: [u8; 8],
    blocks: [u8; 8],
    atim: [[u8; 8]; 2],
    mtim: [[u8; 8]; 2],
    ctim: [[u8; 8]; 2],
}

/// A `struct timespec`: seconds and nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct Timespec {
    /// Seconds.
    pub sec: i64,
    /// Nanoseconds.
    pub nsec: i64,
}

/// A decoded stat element. The tracer writes it even when the call failed, so then it holds
/// whatever was in the caller's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct Stat {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// File type and mode.
    pub mode: u32,
    /// Hard links.
    pub nlink: u64,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// Device (special files).
    pub rdev: u64,
    /// Size in bytes.
    pub size: i64,
    /// Preferred I/O block size.
    pub blksize: i64,
    /// 512-byte blocks allocated.
    pub blocks: i64,
    /// Last access.
    pub atim: Timespec,
    /// Last modification.
    pub mtim: Timespec,
    /// Last status change.
    pub ctim: Timespec,
}

impl Stat {
    fn decode(raw: &RawStat, e: Endian) -> Self {
        let ts = |&[sec, nsec]: &[[u8; 8]; 2]| Timespec {
            sec: e.i64(sec),
            nsec: e.i64(nsec),
        };
        Stat {
            dev: e.u64(raw.dev),
            ino: e.u64(raw.ino),
            mode: e.u32(raw.mode),
            nlink: e.u64(raw.nlink),
            uid: e.u32(raw.uid),
            gid: e.u32(raw.gid),
            rdev: e.u64(raw.rdev),
            size: e.i64(raw.size),
            blksize: e.i64(raw.blksize),
            blocks: e.i64(raw.blocks),
            atim: ts(&raw.atim),
            mtim: ts(&raw.mtim),
            ctim: ts(&raw.ctim),
        }
    }
}

/// One `struct pollfd` as the call left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct PollFd {
    /// File descriptor.
    pub fd: i32,
    /// Requested events.
    pub events: i16,
    /// Returned events.
    pub revents: i16,
}

/// The pollfd array of a `poll` record, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PollFds<'a> {
    bytes: &'a [u8],
    endian: Endian,
}

impl<'a> PollFds<'a> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.bytes.len() / POLLFD_LEN
    }

    /// True if the array is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.len() < POLLFD_LEN
    }

    /// The entries in order.
    pub fn iter(&self) -> PollFdIter<'a> {
        PollFdIter {
            chunks: self.bytes.chunks_exact(POLLFD_LEN),
            endian: self.endian,
        }
    }
}

impl<'a> IntoIterator for PollFds<'a> {
    type Item = PollFd;
    type IntoIter = PollFdIter<'a>;
    fn into_iter(self) -> PollFdIter<'a> {
        self.iter()
    }
}

/// Iterator over a [`PollFds`] array.
#[derive(Clone, Debug)]
pub struct PollFdIter<'a> {
    chunks: core::slice::ChunksExact<'a, u8>,
    endian: Endian,
}

impl Iterator for PollFdIter<'_> {
    type Item = PollFd;
    fn next(&mut self) -> Option<PollFd> {
        let c = self.chunks.next()?;
        let mut r = Reader::new(c);
        Some(PollFd {
            fd: r.i32(self.endian).ok()?,
            events: r.i16(self.endian).ok()?,
            revents: r.i16(self.endian).ok()?,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

/// A captured sigaction. The tracer reads the kernel's `struct kernel_sigaction` as if it were
/// glibc's `struct sigaction`, so only [`SigAction::handler`] (and its copy) can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigAction<'a> {
    /// `sa_handler` (a function pointer, or 0 = SIG_DFL, 1 = SIG_IGN).
    pub handler: u64,
    /// The same word again (glibc's `sa_sigaction` shares it with `sa_handler`).
    pub sigaction: u64,
    /// The signal-set bytes glibc calls `sa_mask` (length = the call's sigsetsize, normally 8);
    /// in the kernel struct this word is really `sa_flags`.
    pub mask: &'a [u8],
    /// An i32 read past the end of the kernel struct (glibc's `sa_flags` position): garbage.
    pub stale_flags: i32,
    /// A u64 read past the end of the kernel struct (glibc's `sa_restorer` position): garbage.
    pub stale_restorer: u64,
    endian: Endian,
}

impl SigAction<'_> {
    /// The kernel `sa_flags` word, when the signal set is the usual 8 bytes.
    pub fn flags(&self) -> Option<u64> {
        let b: [u8; 8] = self.mask.try_into().ok()?;
        Some(self.endian.u64(b))
    }
}

/// One argument of a syscall record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// An integer or pointer (element tag 1).
    Int(i64),
    /// Complete data: a buffer, or a string without its NUL (tag 2).
    Data(&'a [u8]),
    /// Data cut to the capture limit (tag 3). A failed `read` gives `original_len` 0 and no data.
    Partial {
        /// Length of the data in the call (the count, or the return value for reads).
        original_len: u32,
        /// The bytes that were captured.
        data: &'a [u8],
    },
    /// A `struct stat` (tag 4).
    Stat(Stat),
    /// A `struct pollfd` array (tag 5).
    PollFds(PollFds<'a>),
    /// A sigaction, `None` for a NULL pointer (tag 6).
    SigAction(Option<SigAction<'a>>),
    /// A pointer and the u64 it points to (tag 7; upstream defines it but never writes it).
    IntP {
        /// The pointer.
        pointer: u64,
        /// The pointee.
        value: u64,
    },
}

/// Checks that an element of `tag` may be `len` bytes long.
fn check(tag: u16, len: u16) -> Result<(), ErrorKind> {
    let n = usize::from(len);
    let ok = match tag {
        ARG_INT => n == 4 || n == 8,
        ARG_FULL => true,
        ARG_PARTIAL => n >= 4,
        ARG_STAT => n == STAT_LEN,
        ARG_POLLFDS => n % POLLFD_LEN == 0,
        ARG_SIGACTION => n == 0 || n >= SIGACTION_FIXED,
        ARG_INTP => n == 16,
        _ => return Err(ErrorKind::UnknownArgument(tag)),
    };
    if ok {
        Ok(())
    } else {
        Err(ErrorKind::BadArgumentLength { tag, len })
    }
}

/// Decodes a checked element value. `None` only if [`check`] would have failed.
#[inline]
fn decode<'a>(tag: u16, value: &'a [u8], e: Endian) -> Option<Arg<'a>> {
    let mut v = Reader::new(value);
    Some(match tag {
        ARG_INT => match value.len() {
            4 => Arg::Int(i64::from(v.i32(e).ok()?)),
            _ => Arg::Int(v.i64(e).ok()?),
        },
        ARG_FULL => Arg::Data(value),
        ARG_PARTIAL => Arg::Partial {
            original_len: v.u32(e).ok()?,
            data: v.rest(),
        },
        ARG_STAT => Arg::Stat(Stat::decode(v.view::<RawStat>().ok()?, e)),
        ARG_POLLFDS => Arg::PollFds(PollFds {
            bytes: value,
            endian: e,
        }),
        ARG_SIGACTION => {
            if value.is_empty() {
                Arg::SigAction(None)
            } else {
                let handler = v.u64(e).ok()?;
                let sigaction = v.u64(e).ok()?;
                let mask_len = v.remaining().checked_sub(12)?;
                let mask = v.bytes(mask_len).ok()?;
                Arg::SigAction(Some(SigAction {
                    handler,
                    sigaction,
                    mask,
                    stale_flags: v.i32(e).ok()?,
                    stale_restorer: v.u64(e).ok()?,
                    endian: e,
                }))
            }
        }
        ARG_INTP => Arg::IntP {
            pointer: v.u64(e).ok()?,
            value: v.u64(e).ok()?,
        },
        _ => return None,
    })
}

/// One element split off the front of a record: tag, value, padding, and the bytes after it.
type Split<'a> = (u16, &'a [u8], &'a [u8], &'a [u8]);

/// Splits the next element off `bytes`: its tag, its value and the bytes after its padding.
/// Elements start on 4-byte boundaries, so the padding depends only on the length. `None` if the
/// header, the value or the padding runs past `bytes`.
#[inline]
fn split_element(bytes: &[u8], e: Endian) -> Option<Split<'_>> {
    let (head, tail) = bytes.split_first_chunk::<4>()?;
    let [t0, t1, l0, l1] = *head;
    let tag = e.u16([t0, t1]);
    let len = usize::from(e.u16([l0, l1]));
    let padded = len.checked_add(3)? & !3;
    let (value, pad) = tail.get(..padded)?.split_at_checked(len)?;
    let rest = tail.get(padded..)?;
    Some((tag, value, pad, rest))
}

/// The argument elements of one syscall record, already checked; iterating cannot fail.
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    bytes: &'a [u8],
    offset: u64,
    endian: Endian,
}

impl<'a> Args<'a> {
    /// Checks every element of `r` (a record's bytes after its fixed fields, starting on a
    /// 4-byte boundary) and returns them with their count.
    #[inline(always)]
    pub(crate) fn check(r: Reader<'a>, endian: Endian) -> Result<(Self, u16), Error> {
        let all = r.rest();
        let offset = r.offset();
        let mut rest = all;
        let mut count: u16 = 0;
        while !rest.is_empty() {
            let at = offset.saturating_add((all.len() - rest.len()) as u64);
            match split_element(rest, endian) {
                Some((tag, value, pad, next)) => {
                    let len = value.len() as u16;
                    check(tag, len).map_err(|k| Error::new(k, at))?;
                    if let Some(i) = pad.iter().position(|&b| b != 0) {
                        return Err(Error::new(
                            tracecap_wire::ErrorKind::NonZeroPadding { what: "element" }.into(),
                            at.saturating_add(4 + u64::from(len) + i as u64),
                        ));
                    }
                    rest = next;
                }
                None => {
                    // Report it the way the byte reader would: what the element needs, what is left.
                    let mut cur = Reader::at(rest, at);
                    return Err(match tlv::read_element(&mut cur, endian) {
                        Err(e) => e,
                        Ok(_) => Error::truncated("argument element", at, 4, rest.len() as u64),
                    });
                }
            }
            count = count.saturating_add(1);
        }
        Ok((
            Args {
                bytes: all,
                offset,
                endian,
            },
            count,
        ))
    }

    /// Absolute offset of the first element.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The raw bytes of the elements (tags, lengths, values, padding).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl<'a> Iterator for Args<'a> {
    type Item = Arg<'a>;

    #[inline]
    fn next(&mut self) -> Option<Arg<'a>> {
        let parsed = split_element(self.bytes, self.endian)
            .and_then(|(tag, value, _, rest)| Some((decode(tag, value, self.endian)?, rest)));
        match parsed {
            Some((arg, rest)) => {
                let used = self.bytes.len() - rest.len();
                self.offset = self.offset.saturating_add(used as u64);
                self.bytes = rest;
                Some(arg)
            }
            None => {
                self.bytes = &[];
                None
            }
        }
    }
}

impl core::iter::FusedIterator for Args<'_> {}
