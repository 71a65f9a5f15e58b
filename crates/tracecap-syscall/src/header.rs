//! The file header: 28 (or, before September 2019, 20) fixed bytes, then the VariableHeaderPart
//! segment with the host's uname strings.

use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::{Context, Endian, Reader};

use crate::error::{Error, ErrorKind};
use crate::tlv::{self, SEGMENT_HEADER_LEN};

/// The four bytes every capture starts with, in this order on any host.
pub const MAGIC: [u8; 4] = [0x78, 0x06, 0x17, 0xa5];

/// The only version byte upstream ever wrote (the layout changed under it several times).
pub const VERSION: u8 = 1;

/// Header flags bit 0: the writer was big-endian.
pub const FLAG_BIG_ENDIAN: u8 = 0x01;

/// Size of the fixed header since commit 38edbbe (2019-09-18), with the clock reference.
pub const FIXED_LEN: usize = 28;

/// Size of the older fixed header, without the clock reference.
pub const FIXED_LEN_OLD: usize = 20;

/// Segment tag of the VariableHeaderPart.
pub const SEGMENT_HOST_INFO: u32 = 1;

/// Element tag of the uname strings inside the VariableHeaderPart.
pub const IE_HOST_UNAME: u16 = 1;

/// The 20 bytes both header variants share. Multi-byte fields are in the writer's byte order,
/// which only [`RawFixedHeader::flags`] tells, so they are kept as bytes here.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned, Debug)]
#[repr(C)]
pub struct RawFixedHeader {
    /// `78 06 17 a5`.
    pub magic: [u8; 4],
    /// Always 1.
    pub version: u8,
    /// Bit 0: big-endian writer.
    pub flags: u8,
    /// Unused, 0.
    pub unused: [u8; 2],
    /// i32 thread id of the library constructor (the pid for a normal start).
    pub pid: [u8; 4],
    /// i64 CLOCK_REALTIME seconds.
    pub epoch_seconds: [u8; 8],
}

/// True if `bytes` starts with the syscall_capture magic (`78 06 17 a5`): a cheap check that
/// every syscall_capture file passes.
pub fn detect(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// The six strings of `uname(2)` on the traced host, as stored (no NULs, not necessarily UTF-8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uname<'a> {
    /// Kernel name (`Linux`).
    pub sysname: &'a [u8],
    /// Host name.
    pub nodename: &'a [u8],
    /// Kernel release.
    pub release: &'a [u8],
    /// Kernel version string.
    pub version: &'a [u8],
    /// Hardware name (`x86_64`).
    pub machine: &'a [u8],
    /// NIS domain name (`(none)` when unset).
    pub domainname: &'a [u8],
}

impl<'a> Uname<'a> {
    /// Parses six NUL-terminated strings from an element value; bytes after the sixth NUL are
    /// ignored.
    fn parse(mut r: Reader<'a>) -> Result<Self, Error> {
        Ok(Uname {
            sysname: r.cstr()?,
            nodename: r.cstr()?,
            release: r.cstr()?,
            version: r.cstr()?,
            machine: r.cstr()?,
            domainname: r.cstr()?,
        })
    }
}

/// A file header: the fixed part plus the host information that follows it.
///
/// A capture usually has one, at offset 0. A `fork()` without `exec` makes the child write its own
/// complete capture after the parent's, so further headers can appear between records; the
/// [`crate::Entries`] iterator yields those as [`crate::Entry::Header`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header<'a> {
    /// Absolute offset of the magic.
    pub offset: u64,
    /// Version byte (1).
    pub version: u8,
    /// Raw flags byte (bit 0 = big-endian).
    pub flags: u8,
    /// Byte order of every multi-byte field that follows, from the flags.
    pub endian: Endian,
    /// The "process id" (in fact the tid of the thread that loaded the tracer).
    pub pid: i32,
    /// CLOCK_REALTIME seconds when the tracer started (-1 if the clock failed).
    pub epoch_seconds: i64,
    /// CLOCK_MONOTONIC nanoseconds when the tracer started, the base of record timestamps;
    /// `None` in the older 20-byte header, which lacks it.
    pub clock_reference_ns: Option<i64>,
    /// The HostUname element's value (checked to hold six strings); see [`Header::uname`].
    uname_raw: Option<&'a [u8]>,
    /// Size of the fixed part: 28, or 20 for the older header.
    pub fixed_len: u8,
    /// Total bytes of the header, host information segment and its padding included.
    pub len: u64,
}

impl<'a> Header<'a> {
    /// Parses the header at the start of `data`, whose first byte is at absolute `offset`.
    pub fn parse_at(data: &'a [u8], offset: u64) -> Result<Self, Error> {
        if data.is_empty() {
            return Err(Error::new(ErrorKind::Empty, offset));
        }
        if !detect(data) {
            return Err(Error::new(ErrorKind::BadMagic, offset));
        }
        let mut r = Reader::at(data, offset);
        let raw = r.view::<RawFixedHeader>().what("file header")?;
        if raw.version != VERSION {
            return Err(Error::unsupported_version(
                u64::from(raw.version),
                "1",
                offset.saturating_add(4),
            ));
        }
        let endian = if raw.flags & FLAG_BIG_ENDIAN != 0 {
            Endian::Big
        } else {
            Endian::Little
        };
        let fixed_len = pick_variant(data, endian);
        let clock_reference_ns = if fixed_len == FIXED_LEN {
            Some(r.i64(endian).what("file header")?)
        } else {
            None
        };
        let seg_offset = r.offset();
        let seg = tlv::read_segment(&mut r, endian, "host information segment")?;
        if seg.tag != SEGMENT_HOST_INFO {
            return Err(Error::new(ErrorKind::MissingHostInfo, seg_offset));
        }
        let mut uname_raw = None;
        let mut elements = seg.payload;
        while !elements.is_empty() {
            let ie = tlv::read_element(&mut elements, endian)?;
            if ie.tag == IE_HOST_UNAME && uname_raw.is_none() {
                Uname::parse(ie.value)?;
                uname_raw = Some(ie.value.rest());
            }
        }
        Ok(Header {
            offset,
            version: raw.version,
            flags: raw.flags,
            endian,
            pid: endian.i32(raw.pid),
            epoch_seconds: endian.i64(raw.epoch_seconds),
            clock_reference_ns,
            uname_raw,
            fixed_len: fixed_len as u8,
            len: r.offset().saturating_sub(offset),
        })
    }

    /// The same header without its host strings (for a reader that keeps the header after the
    /// bytes it borrowed from are gone): [`Header::uname`] gives `None` on it.
    pub(crate) fn without_uname(&self) -> Header<'static> {
        Header {
            offset: self.offset,
            version: self.version,
            flags: self.flags,
            endian: self.endian,
            pid: self.pid,
            epoch_seconds: self.epoch_seconds,
            clock_reference_ns: self.clock_reference_ns,
            uname_raw: None,
            fixed_len: self.fixed_len,
            len: self.len,
        }
    }

    /// The host's uname strings; `None` when the VariableHeaderPart is empty (uname failed).
    pub fn uname(&self) -> Option<Uname<'a>> {
        Uname::parse(Reader::new(self.uname_raw?)).ok()
    }

    /// True if the writer was big-endian.
    pub fn is_big_endian(&self) -> bool {
        self.endian.is_big()
    }

    /// Absolute offset of the first byte after this header.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.len)
    }
}

/// How many bytes from the start of a header `Header::parse_at` needs before its answer (the
/// header or the error) no longer depends on bytes still to come, for the header whose first
/// bytes are `data` at absolute `offset`: `None` when `data` holds them (or when no later byte can
/// change the answer, as for a bad magic or version), otherwise at least how many in all.
///
/// The answer is settled once the fixed part, the tag and length words at offsets 20 and 28 and
/// the whole host information segment of the variant [`pick_variant`] will pick are there. The
/// only variant that more bytes could still change is the one where both offsets hold tag 1 and
/// the segment at 28 does not fit yet: its answer is settled once that segment's bytes are there.
pub(crate) fn settle_len(data: &[u8], offset: u64) -> Option<u64> {
    const WORDS_END: usize = FIXED_LEN + SEGMENT_HEADER_LEN;
    let prefix = data.get(..MAGIC.len()).unwrap_or(data);
    if !data.is_empty() && !MAGIC.starts_with(prefix) {
        return None;
    }
    let Some(fixed) = data.get(..FIXED_LEN_OLD) else {
        return Some(WORDS_END as u64);
    };
    let Ok(raw) = RawFixedHeader::ref_from_bytes(fixed) else {
        return Some(WORDS_END as u64);
    };
    if raw.version != VERSION {
        return None;
    }
    if data.len() < WORDS_END {
        return Some(WORDS_END as u64);
    }
    let endian = if raw.flags & FLAG_BIG_ENDIAN != 0 {
        Endian::Big
    } else {
        Endian::Little
    };
    let word = |off: usize| -> u32 {
        let mut r = Reader::new(data.get(off..).unwrap_or(&[]));
        r.u32(endian).unwrap_or(0)
    };
    let (tag28, len28) = (word(FIXED_LEN), word(FIXED_LEN + 4));
    let (tag20, len20) = (word(FIXED_LEN_OLD), word(FIXED_LEN_OLD + 4));
    let have = data.len() as u64;
    let fixed_len = if tag28 == SEGMENT_HOST_INFO && tag20 == SEGMENT_HOST_INFO {
        // `pick_variant` takes 20 only while the segment at 28 runs past the end.
        let end28 = (WORDS_END as u64).saturating_add(u64::from(len28));
        if end28 > have {
            return Some(end28);
        }
        FIXED_LEN
    } else if tag28 != SEGMENT_HOST_INFO && tag20 == SEGMENT_HOST_INFO {
        FIXED_LEN_OLD
    } else {
        FIXED_LEN
    };
    let len = if fixed_len == FIXED_LEN { len28 } else { len20 };
    let value_start = offset
        .saturating_add(fixed_len as u64)
        .saturating_add(SEGMENT_HEADER_LEN as u64);
    let need = (fixed_len as u64).saturating_add(tlv::segment_needed(value_start, len));
    (need > have).then_some(need)
}

/// Which fixed header size `data` has: the one after which a tag-1 segment starts. Offset 28 wins
/// when both could (only a corrupt file could make both look plausible) unless its length runs past
/// the end and offset 20's does not.
fn pick_variant(data: &[u8], endian: Endian) -> usize {
    let at = |off: usize| -> Option<(u32, u64)> {
        let mut r = Reader::new(data.get(off..)?);
        let tag = r.u32(endian).ok()?;
        let len = r.u32(endian).ok()?;
        Some((tag, u64::from(len)))
    };
    let fits = |off: usize, len: u64| {
        let end = (off as u64)
            .saturating_add(SEGMENT_HEADER_LEN as u64)
            .saturating_add(len);
        end <= data.len() as u64
    };
    match (at(FIXED_LEN), at(FIXED_LEN_OLD)) {
        (Some((SEGMENT_HOST_INFO, l28)), Some((SEGMENT_HOST_INFO, l20))) => {
            if !fits(FIXED_LEN, l28) && fits(FIXED_LEN_OLD, l20) {
                FIXED_LEN_OLD
            } else {
                FIXED_LEN
            }
        }
        (Some((SEGMENT_HOST_INFO, _)), _) => FIXED_LEN,
        (_, Some((SEGMENT_HOST_INFO, _))) => FIXED_LEN_OLD,
        _ => FIXED_LEN,
    }
}
