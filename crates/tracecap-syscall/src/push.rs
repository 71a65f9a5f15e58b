//! Reading a capture as its bytes arrive: [`PushParser`], the push form of [`Capture::parse`] and
//! [`Capture::entries`].
//!
//! A tracer writes its capture while the traced process runs, so a viewer that follows a file
//! still being written, or receives a capture over a socket, cannot hand the whole file to
//! [`Capture::parse`]. It owns a buffer instead, appends the bytes it receives and calls
//! [`PushParser::parse`] with the bytes not consumed yet; the answer is a
//! [`Pushed`] (re-exported from `tracecap-wire`, whose `push` module describes the protocol):
//!
//! - `Item { consumed, item }`: a [`PushItem`] read from the front of the data. The caller uses it,
//!   then drops `consumed` bytes from the front of its buffer (it may drop them later, in bulk, as
//!   long as the next call starts after them);
//! - `NeedMore { hint }`: no item can be read until more bytes arrive (`hint`: at least how many);
//! - `End`: `eof` was set and every byte was read. The format has no end mark, so the capture ends
//!   where the bytes end, as in the whole-file walk.
//!
//! The items are those of the whole-file reader, in the same order and with the same absolute
//! offsets: first [`PushItem::Header`], the header [`Capture::header`] gives, then one [`PushItem::Entry`]
//! for every [`Entry`] of [`Capture::entries`]. The one item the whole-file walk has no counterpart
//! for is [`PushItem::GapPart`]: a zero gap (up to [`MAX_GAP_LEN`](crate::MAX_GAP_LEN) bytes) is
//! counted as its bytes arrive, and a `GapPart` hands the zero bytes counted so far back to the
//! caller to drop; the whole [`Entry::Gap`], with the gap's offset and full length, comes when the
//! run ends (its `consumed` covers only the run's last bytes, possibly none). A caller that wants
//! exactly the whole-file items skips `GapPart`s ([`PushItem::entry`]).
//!
//! Errors are those of the whole-file reader too, kind and absolute offset: an item is read only
//! once the bytes that decide it are all there (a whole segment, a whole header with its host
//! information, the end of a zero run), so more bytes never change an answer already given. With
//! `eof` set, the data given is the rest of the file, and a cut capture gets the error the
//! whole-file reader reports on the same cut file. After an error every call answers `End`, as the
//! whole-file walk yields nothing after its error.
//!
//! # What the parser holds
//!
//! Between calls the parser holds a few words: the absolute offset of the next byte, the byte order
//! of the capture being read (a forked child's header may change it), where it is (before the
//! first header, between entries, inside a zero gap with the gap's offset and length so far, or
//! done) and the first header's fixed fields. It never allocates and never holds the caller's
//! bytes. The caller's buffer holds at most the item being read: one segment (tag, length, value
//! and padding; the length field allows up to 4 GiB, the tracer writes less than 1 MiB), or one
//! header with its host information segment. (An old 20-byte header whose bytes at offset 28 also
//! read as a host information segment waits for that segment's length worth of bytes, or the end
//! of the file, because that length decides which header size the whole-file reader picks.) A zero
//! gap is never held whole: its bytes are consumed as they arrive.
//!
//! # Example
//!
//! A capture arriving in pieces (here from memory; a growing file or a socket works the same way).
//! The caller keeps the unread bytes at `buffer[start..]`, moves `start` past every item and
//! compacts the buffer only when the parser needs more, so the bytes of many items are read in
//! place:
//!
//! ```
//! use tracecap_syscall::push::{PushItem, PushParser, Pushed};
//! use tracecap_syscall::{Entry, Error};
//!
//! # // The crate example's capture: a 28-byte header, no host information, one `close(3) = 0`.
//! # let mut file = vec![0x78, 0x06, 0x17, 0xa5, 1, 0, 0, 0];
//! # file.extend_from_slice(&4242i32.to_le_bytes());
//! # file.extend_from_slice(&1_700_000_000i64.to_le_bytes());
//! # file.extend_from_slice(&5_000i64.to_le_bytes());
//! # file.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0x01, 0]);
//! # file.extend_from_slice(&0i64.to_le_bytes());
//! # file.extend_from_slice(&[1, 0, 4, 0, 3, 0, 0, 0]);
//! // `file` holds a capture of one `close(3) = 0`; it arrives 5 bytes at a time.
//! let mut arriving = file.chunks(5);
//! let mut parser = PushParser::new();
//! let mut buffer = Vec::new();
//! let mut start = 0;
//! let mut eof = false;
//! let mut calls = Vec::new();
//! loop {
//!     match parser.parse(&buffer[start..], eof)? {
//!         Pushed::Item { consumed, item } => {
//!             match item {
//!                 PushItem::Header(h) => assert_eq!(h.pid, 4242),
//!                 PushItem::Entry(Entry::Syscall(call)) => calls.push((call.name(), call.ret())),
//!                 _ => {}
//!             }
//!             start += consumed;
//!         }
//!         Pushed::NeedMore { .. } => {
//!             buffer.drain(..start);
//!             start = 0;
//!             match arriving.next() {
//!                 Some(piece) => buffer.extend_from_slice(piece),
//!                 None => eof = true,
//!             }
//!         }
//!         Pushed::End => break,
//!     }
//! }
//! assert_eq!(calls, [(Some("close"), 0)]);
//! assert_eq!(parser.header().map(|h| h.pid), Some(4242));
//! assert_eq!(parser.offset(), file.len() as u64);
//! # Ok::<(), Error>(())
//! ```
//!
//! The same loop over a socket, reading whatever has arrived:
//!
//! ```no_run
//! use std::io::Read;
//! use std::net::TcpStream;
//! use tracecap_syscall::push::{PushItem, PushParser, Pushed};
//! use tracecap_syscall::Entry;
//!
//! fn follow(mut socket: TcpStream) -> Result<u64, Box<dyn std::error::Error>> {
//!     let mut parser = PushParser::new();
//!     let mut buffer = Vec::new();
//!     let mut start = 0;
//!     let mut eof = false;
//!     let mut calls = 0;
//!     loop {
//!         match parser.parse(&buffer[start..], eof)? {
//!             Pushed::Item { consumed, item } => {
//!                 if let PushItem::Entry(Entry::Syscall(_)) = item {
//!                     calls += 1;
//!                 }
//!                 start += consumed;
//!             }
//!             Pushed::NeedMore { .. } => {
//!                 buffer.drain(..start);
//!                 start = 0;
//!                 let mut piece = [0u8; 64 << 10];
//!                 let n = socket.read(&mut piece)?;
//!                 buffer.extend_from_slice(&piece[..n]);
//!                 eof = n == 0;
//!             }
//!             Pushed::End => return Ok(calls),
//!         }
//!     }
//! }
//! ```
//!
//! [`Capture::parse`]: crate::Capture::parse
//! [`Capture::header`]: crate::Capture::header
//! [`Capture::entries`]: crate::Capture::entries

use tracecap_wire::{Context, Endian, Reader};

/// The answer of [`PushParser::parse`] (from `tracecap-wire`, shared by every format crate).
pub use tracecap_wire::Pushed;

use crate::capture::{segment_entry, zero_words, Entry, Gap, MAX_GAP_WORDS};
use crate::error::{Error, ErrorKind};
use crate::fast;
use crate::header::{detect, settle_len, Header};
use crate::tlv;

/// What [`PushParser::parse`] reads; see the [module](self).
#[derive(Clone, Copy, Debug)]
pub enum PushItem<'a> {
    /// The capture's first header, always the first item (what `Capture::header` gives).
    Header(Header<'a>),
    /// An entry after the first header (what `Capture::entries` yields).
    Entry(Entry<'a>),
    /// Zero bytes of a gap that has not ended yet, counted and handed back to the caller to drop:
    /// `offset` is their first byte, `len` how many. The gap itself comes as [`Entry::Gap`] when
    /// it ends.
    GapPart(Gap),
}

impl<'a> PushItem<'a> {
    /// The item as the whole-file reader has it: the first header, or an entry; `None` for a
    /// [`PushItem::GapPart`].
    pub fn entry(self) -> Option<Entry<'a>> {
        match self {
            PushItem::Header(h) => Some(Entry::Header(h)),
            PushItem::Entry(e) => Some(e),
            PushItem::GapPart(_) => None,
        }
    }
}

/// Where the parser is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the first header.
    Header,
    /// At the start of an entry.
    Entries,
    /// Inside a run of zero words that started at `offset`, `len` bytes of it counted.
    Gap { offset: u64, len: u64 },
    /// After an error.
    Done,
}

/// A capture read from bytes that arrive over time; see the [module](self).
#[derive(Clone, Debug)]
pub struct PushParser {
    offset: u64,
    endian: Endian,
    state: State,
    header: Option<Header<'static>>,
}

impl Default for PushParser {
    fn default() -> Self {
        Self::new()
    }
}

impl PushParser {
    /// A parser at the start of a capture (absolute offset 0).
    pub fn new() -> Self {
        PushParser {
            offset: 0,
            endian: Endian::Little,
            state: State::Header,
            header: None,
        }
    }

    /// Absolute file offset of the first byte of the next `data`: every byte before it was
    /// consumed.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The first header once read, without its host strings (they borrow from bytes the caller
    /// has since dropped, so [`Header::uname`] gives `None` on it; the [`PushItem::Header`] the parser
    /// yielded has them).
    pub fn header(&self) -> Option<&Header<'static>> {
        self.header.as_ref()
    }

    /// Byte order of the capture being read (a later header may change it).
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Reads the next item from `data`, the bytes not consumed yet, whose first byte is at
    /// [`PushParser::offset`]. `eof` says that `data` is the rest of the file.
    #[inline]
    pub fn parse<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        let answer = match self.state {
            State::Entries => self.entry(data, eof),
            State::Header => self.first_header(data, eof),
            State::Gap { offset, len } => self.gap(data, eof, offset, len),
            State::Done => return Ok(Pushed::End),
        };
        match &answer {
            Ok(Pushed::Item { consumed, .. }) => {
                self.offset = self.offset.saturating_add(*consumed as u64);
            }
            Ok(_) => {}
            Err(_) => self.state = State::Done,
        }
        answer
    }

    fn first_header<'d>(
        &mut self,
        data: &'d [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'d>>, Error> {
        if !eof {
            if let Some(need) = settle_len(data, self.offset) {
                return Ok(need_more(data, need));
            }
        }
        let h = Header::parse_at(data, self.offset)?;
        self.endian = h.endian;
        self.header = Some(h.without_uname());
        self.state = State::Entries;
        Ok(Pushed::Item {
            consumed: usize::try_from(h.len).map_or(data.len(), |n| n.min(data.len())),
            item: PushItem::Header(h),
        })
    }

    /// One step of the whole-file walk (`Entries::step`), taken once the bytes that decide it
    /// are all in `data` (or `eof`).
    #[inline(always)]
    fn entry<'d>(&mut self, data: &'d [u8], eof: bool) -> Result<Pushed<PushItem<'d>>, Error> {
        let offset = self.offset;
        if data.is_empty() {
            return Ok(if eof {
                Pushed::End
            } else {
                Pushed::NeedMore { hint: None }
            });
        }
        tracecap_wire::fast::touch_ahead(data);
        let mut r = Reader::at(data, offset);
        if let Some(call) = fast::syscall(&mut r, data, offset, self.endian) {
            return Ok(taken(data, &r, PushItem::Entry(Entry::Syscall(call?))));
        }
        if data.len() < 4 && !eof {
            return Ok(need_more(data, 4));
        }
        if detect(data) {
            if !eof {
                if let Some(need) = settle_len(data, offset) {
                    return Ok(need_more(data, need));
                }
            }
            let h = Header::parse_at(data, offset)?;
            r.skip(usize::try_from(h.len).unwrap_or(usize::MAX))
                .what("file header")?;
            self.endian = h.endian;
            return Ok(taken(data, &r, PushItem::Entry(Entry::Header(h))));
        }
        let words = zero_words(data, MAX_GAP_WORDS.saturating_add(1));
        if words > MAX_GAP_WORDS {
            return Err(Error::new(ErrorKind::LongZeroRun, offset));
        }
        if words > 0 {
            return Ok(self.zeros(data, eof, offset, 0, words));
        }
        if !eof {
            match tlv::segment_len(data, offset, self.endian) {
                None => return Ok(need_more(data, tlv::SEGMENT_HEADER_LEN as u64)),
                Some(need) if need > data.len() as u64 => return Ok(need_more(data, need)),
                Some(_) => {}
            }
        }
        let e = segment_entry(&mut r, self.endian)?;
        Ok(taken(data, &r, PushItem::Entry(e)))
    }

    /// Inside a zero run that started at `start`, `len` bytes of it counted before `data`.
    fn gap<'d>(
        &mut self,
        data: &'d [u8],
        eof: bool,
        start: u64,
        len: u64,
    ) -> Result<Pushed<PushItem<'d>>, Error> {
        let counted = usize::try_from(len / 4).unwrap_or(usize::MAX);
        let limit = MAX_GAP_WORDS.saturating_add(1).saturating_sub(counted);
        let words = zero_words(data, limit);
        if counted.saturating_add(words) > MAX_GAP_WORDS {
            return Err(Error::new(ErrorKind::LongZeroRun, start));
        }
        if words == 0 && !eof && data.len() < 4 {
            return Ok(need_more(data, 4));
        }
        Ok(self.zeros(data, eof, start, len, words))
    }

    /// `words` zero words at the front of `data`, after `len` bytes of the run that started at
    /// `start`: the whole gap when the run ends in `data` (or the file ends), otherwise a part.
    fn zeros<'d>(
        &mut self,
        data: &'d [u8],
        eof: bool,
        start: u64,
        len: u64,
        words: usize,
    ) -> Pushed<PushItem<'d>> {
        let consumed = words.saturating_mul(4);
        let len = len.saturating_add(consumed as u64);
        if eof || words < data.len() / 4 {
            self.state = State::Entries;
            Pushed::Item {
                consumed,
                item: PushItem::Entry(Entry::Gap(Gap { offset: start, len })),
            }
        } else {
            self.state = State::Gap { offset: start, len };
            Pushed::Item {
                consumed,
                item: PushItem::GapPart(Gap {
                    offset: self.offset,
                    len: consumed as u64,
                }),
            }
        }
    }
}

/// The item read from the front of `data` by `r`.
#[inline(always)]
fn taken<'d>(data: &'d [u8], r: &Reader<'d>, item: PushItem<'d>) -> Pushed<PushItem<'d>> {
    Pushed::Item {
        consumed: data.len().saturating_sub(r.remaining()),
        item,
    }
}

/// Asks for the bytes that make `data` `need` bytes long.
fn need_more<T>(data: &[u8], need: u64) -> Pushed<T> {
    Pushed::NeedMore {
        hint: Some(need.saturating_sub(data.len() as u64).max(1)),
    }
}
