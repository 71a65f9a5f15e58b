//! The whole file: the first header, then a stream of entries (records, fillers, zero gaps and
//! the headers of captures appended after a fork).

use tracecap_wire::{Context, Endian, Reader};

use crate::error::{Error, ErrorKind};
use crate::fast;
use crate::gap::MAX_GAP_LEN;
use crate::header::{detect, Header, SEGMENT_HOST_INFO};
use crate::record::{Syscall, SEGMENT_SYSCALL};
use crate::tlv;

/// Segment tag of a filler (zero bytes that pad a mid-run flush to 1 MiB).
pub const SEGMENT_FILLER: u32 = 3;

/// [`MAX_GAP_LEN`] in 4-byte words.
pub(crate) const MAX_GAP_WORDS: usize = (MAX_GAP_LEN / 4) as usize;

/// A filler segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filler {
    /// Absolute offset of its tag.
    pub offset: u64,
    /// Payload length (the bytes after the tag and length).
    pub len: u64,
}

/// A run of zero bytes between segments, left by the writer's mid-run flush bug (it reads as
/// "segments" with tag 0 and length 0). It is never longer than [`MAX_GAP_LEN`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    /// Absolute offset of the first zero byte.
    pub offset: u64,
    /// Number of zero bytes (a multiple of 4).
    pub len: u64,
}

/// One thing in the file after the first header.
#[derive(Clone, Copy, Debug)]
pub enum Entry<'a> {
    /// A captured system call.
    Syscall(Syscall<'a>),
    /// A filler segment.
    Filler(Filler),
    /// A run of zero bytes.
    Gap(Gap),
    /// The header of another capture appended to this one (a forked child's).
    Header(Header<'a>),
}

impl Entry<'_> {
    /// Absolute offset where the entry starts.
    pub fn offset(&self) -> u64 {
        match self {
            Entry::Syscall(s) => s.offset,
            Entry::Filler(f) => f.offset,
            Entry::Gap(g) => g.offset,
            Entry::Header(h) => h.offset,
        }
    }
}

/// A parsed capture: its first header and the bytes after it.
///
/// Parsing checks only the header; [`Capture::entries`] walks the rest lazily.
///
/// ```
/// use tracecap_syscall::{Capture, Entry};
///
/// # // The crate example's capture: a 28-byte header, no host information, one `close(3) = 0`.
/// # let mut file = vec![0x78, 0x06, 0x17, 0xa5, 1, 0, 0, 0];
/// # file.extend_from_slice(&4242i32.to_le_bytes());
/// # file.extend_from_slice(&1_700_000_000i64.to_le_bytes());
/// # file.extend_from_slice(&5_000i64.to_le_bytes());
/// # file.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0x01, 0]);
/// # file.extend_from_slice(&0i64.to_le_bytes());
/// # file.extend_from_slice(&[1, 0, 4, 0, 3, 0, 0, 0]);
/// let capture = Capture::parse(&file)?;
/// assert_eq!(capture.header().pid, 4242);
/// for entry in capture.entries() {
///     if let Entry::Syscall(call) = entry? {
///         assert_eq!(call.name(), Some("close"));
///     }
/// }
/// # Ok::<(), tracecap_syscall::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Capture<'a> {
    data: &'a [u8],
    header: Header<'a>,
}

impl<'a> Capture<'a> {
    /// Parses the header at the start of `data` (an empty file is [`ErrorKind::Empty`] at 0).
    pub fn parse(data: &'a [u8]) -> Result<Self, Error> {
        let header = Header::parse_at(data, 0)?;
        Ok(Capture { data, header })
    }

    /// The first header.
    pub fn header(&self) -> &Header<'a> {
        &self.header
    }

    /// The whole input.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Every entry after the first header, in file order; after an error, nothing more.
    pub fn entries(&self) -> Entries<'a> {
        let start = usize::try_from(self.header.len).unwrap_or(usize::MAX);
        let rest = self.data.get(start..).unwrap_or(&[]);
        Entries {
            r: Reader::at(rest, self.header.len),
            endian: self.header.endian,
            done: false,
        }
    }

    /// Only the syscall records, in file order (fillers, gaps and later headers are skipped,
    /// errors are not); after an error, nothing more.
    pub fn events(&self) -> Events<'a> {
        Events {
            entries: self.entries(),
        }
    }
}

/// Iterator over the [`Entry`]s of a capture. Yields every good entry, then the first error, then
/// stops.
#[derive(Clone, Debug)]
pub struct Entries<'a> {
    r: Reader<'a>,
    endian: Endian,
    done: bool,
}

impl<'a> Entries<'a> {
    /// Absolute offset of the next entry.
    pub fn offset(&self) -> u64 {
        self.r.offset()
    }

    /// Byte order of the capture being read (a later header may change it).
    pub fn endian(&self) -> Endian {
        self.endian
    }

    #[inline(always)]
    fn step(&mut self) -> Result<Entry<'a>, Error> {
        let rest = self.r.rest();
        let offset = self.r.offset();
        // Each segment's length says where the next starts, a chain of dependent loads.
        tracecap_wire::fast::touch_ahead(rest);
        if let Some(call) = fast::syscall(&mut self.r, rest, offset, self.endian) {
            return call.map(Entry::Syscall);
        }
        if detect(rest) {
            let h = Header::parse_at(rest, offset)?;
            self.r
                .skip(usize::try_from(h.len).unwrap_or(usize::MAX))
                .what("file header")?;
            self.endian = h.endian;
            return Ok(Entry::Header(h));
        }
        let zero_words = zero_words(rest, MAX_GAP_WORDS.saturating_add(1));
        if zero_words > MAX_GAP_WORDS {
            return Err(Error::new(ErrorKind::LongZeroRun, offset));
        }
        if zero_words > 0 {
            let len = zero_words.saturating_mul(4);
            self.r.skip(len).what("zero gap")?;
            return Ok(Entry::Gap(Gap {
                offset,
                len: len as u64,
            }));
        }
        segment_entry(&mut self.r, self.endian)
    }
}

/// How many 4-byte words of zeros `rest` starts with, counting no further than `limit` words.
#[inline]
pub(crate) fn zero_words(rest: &[u8], limit: usize) -> usize {
    rest.chunks_exact(4)
        .take(limit)
        .take_while(|w| w.iter().all(|&b| b == 0))
        .count()
}

/// The entry of the segment at the front of `r` (read precisely: faults named at their offsets),
/// `r` moved past it; for bytes that are neither a header nor a zero gap.
#[inline]
pub(crate) fn segment_entry<'a>(r: &mut Reader<'a>, endian: Endian) -> Result<Entry<'a>, Error> {
    let seg = tlv::read_segment(r, endian, "segment")?;
    match seg.tag {
        SEGMENT_SYSCALL => Ok(Entry::Syscall(Syscall::parse(
            seg.offset,
            seg.payload,
            endian,
        )?)),
        SEGMENT_FILLER => Ok(Entry::Filler(Filler {
            offset: seg.offset,
            len: seg.payload.remaining() as u64,
        })),
        SEGMENT_HOST_INFO => Err(Error::new(ErrorKind::StrayHostInfo, seg.offset)),
        tag => Err(Error::new(ErrorKind::UnknownSegment(tag), seg.offset)),
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<Entry<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.r.is_empty() {
            return None;
        }
        let item = self.step();
        if item.is_err() {
            self.done = true;
        }
        Some(item)
    }
}

impl core::iter::FusedIterator for Entries<'_> {}

/// Iterator over the syscall records of a capture (see [`Capture::events`]). Yields every record,
/// then the first error, then stops.
///
/// ```
/// use tracecap_syscall::{Arg, Capture};
///
/// # // The crate example's capture: a 28-byte header, no host information, one `close(3) = 0`.
/// # let mut file = vec![0x78, 0x06, 0x17, 0xa5, 1, 0, 0, 0];
/// # file.extend_from_slice(&4242i32.to_le_bytes());
/// # file.extend_from_slice(&1_700_000_000i64.to_le_bytes());
/// # file.extend_from_slice(&5_000i64.to_le_bytes());
/// # file.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0x01, 0]);
/// # file.extend_from_slice(&0i64.to_le_bytes());
/// # file.extend_from_slice(&[1, 0, 4, 0, 3, 0, 0, 0]);
/// let capture = Capture::parse(&file)?;
/// let calls = capture.events().collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(calls.len(), 1);
/// assert_eq!((calls[0].number, calls[0].ret()), (3, 0));
/// assert_eq!(calls[0].args().collect::<Vec<_>>(), [Arg::Int(3)]);
/// # Ok::<(), tracecap_syscall::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Events<'a> {
    entries: Entries<'a>,
}

impl<'a> Events<'a> {
    /// Absolute offset of the next entry.
    pub fn offset(&self) -> u64 {
        self.entries.offset()
    }

    /// Gives every remaining record to `f`, in file order, and stops at the first error, which
    /// it returns: `f`'s, or the file's converted into `f`'s error type (any `E: From<Error>`,
    /// such as a caller's own error that also carries I/O failures). The records are those the
    /// iterator yields.
    ///
    /// ```
    /// # use tracecap_syscall::{Capture, Error};
    /// #[derive(Debug)]
    /// enum Stop {
    ///     Format(Error),
    ///     Enough,
    /// }
    /// impl From<Error> for Stop {
    ///     fn from(e: Error) -> Self {
    ///         Stop::Format(e)
    ///     }
    /// }
    ///
    /// # fn count(file: &[u8]) -> Result<u64, Stop> {
    /// let capture = Capture::parse(file)?;
    /// let mut calls = 0u64;
    /// capture.events().try_for_each_event(|_call| {
    ///     calls += 1;
    ///     if calls == 1_000 {
    ///         return Err(Stop::Enough);
    ///     }
    ///     Ok(())
    /// })?;
    /// # Ok(calls)
    /// # }
    /// ```
    #[inline]
    pub fn try_for_each_event<F, E>(&mut self, mut f: F) -> Result<(), E>
    where
        F: FnMut(Syscall<'a>) -> Result<(), E>,
        E: From<Error>,
    {
        for call in self {
            f(call?)?;
        }
        Ok(())
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = Result<Syscall<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.entries.next()? {
                Ok(Entry::Syscall(s)) => return Some(Ok(s)),
                Ok(_) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl core::iter::FusedIterator for Events<'_> {}
