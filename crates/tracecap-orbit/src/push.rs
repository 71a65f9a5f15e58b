//! Reading a capture as its bytes arrive: [`PushParser`], fed from a growing file, a socket or
//! a pipe, yields the header and then the same [`Event`]s, with the same offsets and the same
//! errors, as [`Capture::parse`] and [`Capture::events`] give on the whole file.
//!
//! The caller owns the buffer (see [`tracecap_wire::Pushed`]): it appends the bytes it
//! receives, calls [`PushParser::parse`] with the bytes not yet consumed, and after each
//! [`Pushed::Item`] drops `consumed` bytes from the front (or, cheaper, remembers how far it got
//! and drops them all when the parser asks for more). Every event is a view into the caller's
//! bytes: nothing is copied and nothing is allocated. A reader with its own read buffer can also
//! parse each piece where it arrived and copy only an event split across two pieces, since any
//! bytes that continue the ones consumed so far will do; [`Pushed::NeedMore`]'s hint is then the
//! exact number of bytes the split event still needs, once its length prefix is whole.
//!
//! # What it yields
//!
//! 1. [`PushItem::Header`] once, when the header and the bytes up to the capture section are
//!    there; `consumed` covers both (the bytes between the header and the capture section, if
//!    any, are skipped as the whole-file walk skips them).
//! 2. [`PushItem::Event`] for every event, up to and including `CaptureFinished`, then
//!    [`Pushed::End`] for good. [`PushParser::offset`] is then where `CaptureFinished` ended
//!    ([`Events::position`](crate::Events::position)).
//!
//! A capture section that ends without `CaptureFinished` (at the end of the input, or at the
//! section list when the header names one after the events) is the error the whole-file walk
//! gives there; a cut inside an event is its truncation error, at the same offset. After an
//! error, every call returns that error again.
//!
//! # What it holds between calls
//!
//! The decoded header, the absolute offset of the next byte, the capture section's bound and
//! the error once there is one: a few words, whatever the capture's size. Until the header item
//! it consumes nothing, so the caller's buffer holds the file from its first byte; after that
//! the caller keeps at most one event's bytes unconsumed (Orbit's limit is 1 MiB, and a length
//! above it is [`ErrorKind::MessageTooBig`] before any of its bytes are waited for).
//!
//! # What an incremental reader cannot know before the end
//!
//! The whole-file reader bounds the capture section by the end of the file, by the section list
//! (when the header puts it after the capture section) and by the offset of every section the
//! list names. The first two are known here (the end when `eof` is set, the list from the
//! header); the sections are known only once the list is read, and Orbit writes the list after
//! the events. A section that the list places inside the events (Orbit never writes one;
//! [`Capture::check_layout`] reports it as an overlap) stops the whole-file walk early, but not
//! this parser. The header's section list offset is filled in when the section list is added,
//! after the events (as `write::write_user_data` does, following Orbit's layout): a
//! file read while it is still being written shows 0 there, and the parser keeps the header it
//! read.
//!
//! Two rare headers make the parser wait for `eof` before answering, because the whole-file
//! reader's answer depends on the file's length or its section list: a capture section offset
//! inside the header (the error names the bound), and a section list placed before the capture
//! section (the list bounds the events). Orbit writes neither.
//!
//! # After `CaptureFinished`
//!
//! The parser stops there: the bytes after it (up to 7 bytes of zero padding, the section list,
//! USER_DATA) stay in the caller's buffer, unread. The header item gives the section list's
//! offset; once the file is whole, [`Capture::parse`] on it gives the sections and
//! [`Capture::user_data`] exactly as for any file, and [`Events::trailing`](crate::Events::trailing)
//! the padding, which depends on the sections and so on the end of the file.
//!
//! # Example: a capture arriving in pieces
//!
//! ```
//! use tracecap_orbit::push::{PushItem, PushParser, Pushed};
//! use tracecap_orbit::EventKind;
//!
//! // Header, CaptureStarted{process_id: 42}, CaptureFinished{}.
//! let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
//! file.extend_from_slice(&[5, 0xc2, 0x01, 2, 0x08, 42, 3, 0xda, 0x01, 0]);
//! // The bytes arrive 3 at a time (a pipe, a file still being written).
//! let mut arriving = file.chunks(3);
//!
//! let mut parser = PushParser::new();
//! let mut buffer: Vec<u8> = Vec::new();
//! let mut used = 0; // bytes of `buffer` already consumed
//! let mut kinds = Vec::new();
//! loop {
//!     let eof = arriving.len() == 0;
//!     match parser.parse(&buffer[used..], eof)? {
//!         Pushed::Item { consumed, item } => {
//!             if let PushItem::Event(event) = item {
//!                 kinds.push((event.offset, event.kind));
//!             }
//!             used += consumed;
//!         }
//!         Pushed::NeedMore { .. } => {
//!             buffer.drain(..used);
//!             used = 0;
//!             buffer.extend_from_slice(arriving.next().unwrap_or_default());
//!         }
//!         Pushed::End => break,
//!     }
//! }
//! assert_eq!(kinds, [(24, EventKind::CaptureStarted), (30, EventKind::CaptureFinished)]);
//! assert_eq!(parser.offset(), 34);
//! # Ok::<(), tracecap_orbit::Error>(())
//! ```
//!
//! # Example: reading from a socket
//!
//! ```no_run
//! use std::io::Read;
//! use std::net::TcpStream;
//! use tracecap_orbit::push::{PushItem, PushParser, Pushed};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut stream = TcpStream::connect("127.0.0.1:44766")?;
//! let mut parser = PushParser::new();
//! let mut buffer = Vec::new();
//! let mut used = 0;
//! let mut eof = false;
//! let mut piece = [0u8; 64 << 10];
//! loop {
//!     match parser.parse(&buffer[used..], eof)? {
//!         Pushed::Item { consumed, item } => {
//!             if let PushItem::Event(event) = item {
//!                 println!("{:?} at {}", event.kind, event.offset);
//!             }
//!             used += consumed;
//!         }
//!         Pushed::NeedMore { .. } => {
//!             buffer.drain(..used);
//!             used = 0;
//!             let n = stream.read(&mut piece)?;
//!             eof = n == 0;
//!             buffer.extend_from_slice(&piece[..n]);
//!         }
//!         Pushed::End => break,
//!     }
//! }
//! # Ok(())
//! # }
//! ```

/// The answer of [`PushParser::parse`] (the one every tracecap push parser gives).
pub use tracecap_wire::Pushed;

use crate::capture::{read_message, Capture};
use crate::error::{what, Error, ErrorKind};
use crate::event::Event;
use crate::fast;
use crate::header::{Header, HEADER_LEN};
use crate::kind::EventKind;

/// What [`PushParser::parse`] yields: the header once, then the events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushItem<'a> {
    /// The decoded header (at offset 0); `consumed` reaches the capture section's first byte.
    Header(Header),
    /// One event of the capture section, as [`Capture::events`] gives it.
    Event(Event<'a>),
}

/// Where the parser is (a plain byte, tested first for the events on every call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Waiting for the header (nothing consumed yet).
    Header,
    /// Reading events.
    Events,
    /// `CaptureFinished` was yielded.
    Finished,
    /// An error was returned (`error`); it is returned again.
    Failed,
}

/// A push parser of an `.orbit` capture; see the [module](self).
#[derive(Clone, Debug)]
pub struct PushParser {
    stage: Stage,
    /// The error returned, once there is one.
    error: Option<Error>,
    header: Option<Header>,
    /// Absolute offset of the first byte of the next `data`.
    offset: u64,
    /// The capture section's bound as far as known (`u64::MAX`: the end of the input).
    bound: u64,
}

impl Default for PushParser {
    fn default() -> Self {
        Self::new()
    }
}

impl PushParser {
    /// A parser expecting the first byte of a file.
    pub const fn new() -> Self {
        PushParser {
            stage: Stage::Header,
            error: None,
            header: None,
            offset: 0,
            bound: u64::MAX,
        }
    }

    /// Absolute file offset of the first byte of the next `data` to pass.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The header, once [`PushItem::Header`] has been yielded.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The end bound (exclusive) of the capture section the parser applies, once the header is
    /// read: the section list's offset when the header puts it after the capture section (or,
    /// when the whole file was there before the header item, the bound
    /// [`Capture::capture_section_bound`] gives), `None` for the end of the input. See the
    /// [module](self) for what it cannot know.
    pub fn bound(&self) -> Option<u64> {
        (self.header.is_some() && self.bound != u64::MAX).then_some(self.bound)
    }

    /// True once `CaptureFinished` has been yielded.
    pub fn finished(&self) -> bool {
        self.stage == Stage::Finished
    }

    /// Reads the next item from `data`, the bytes from [`PushParser::offset`] on; `eof` says
    /// that no byte follows `data`. See the [module](self).
    #[inline]
    pub fn parse<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        if self.stage == Stage::Events {
            return self.event(data, eof);
        }
        self.other(data, eof)
    }

    /// Every stage but the events.
    #[cold]
    fn other<'a>(&mut self, data: &'a [u8], eof: bool) -> Result<Pushed<PushItem<'a>>, Error> {
        match (self.stage, self.error) {
            (Stage::Header, _) => self.header_item(data, eof),
            (Stage::Failed, Some(e)) => Err(e),
            _ => Ok(Pushed::End),
        }
    }

    /// The header, once it and the bytes up to the capture section are there, with the answer
    /// [`Capture::parse`] gives on the whole file.
    fn header_item<'a>(
        &mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        // Nothing is consumed before the header item: `data` is the file from its first byte.
        if eof {
            // The whole file: the whole-file reader's answer, bound included.
            return match Capture::parse(data) {
                Ok(capture) => Ok(self.start(*capture.header(), capture.capture_section_bound())),
                Err(e) => Err(self.fail(e)),
            };
        }
        let have = data.len() as u64;
        if have < HEADER_LEN {
            return Ok(Pushed::NeedMore {
                hint: Some(HEADER_LEN - have),
            });
        }
        // The header's checks read its 24 bytes only: their answer is the whole file's.
        let header = Header::parse(data).map_err(|e| self.fail(e))?;
        let start = header.capture_section_offset;
        let list = header.section_list_offset;
        if start < HEADER_LEN || (list != 0 && list <= start) {
            // The answer depends on the file's length or on the list: wait for the end.
            return Ok(Pushed::NeedMore { hint: None });
        }
        if have < start {
            return Ok(Pushed::NeedMore {
                hint: Some(start - have),
            });
        }
        let bound = if list == 0 { u64::MAX } else { list };
        Ok(self.start(header, bound))
    }

    /// Yields the header and moves to the events, which start at the capture section.
    fn start<'a>(&mut self, header: Header, bound: u64) -> Pushed<PushItem<'a>> {
        let start = header.capture_section_offset;
        self.header = Some(header);
        self.offset = start;
        self.bound = bound;
        self.stage = Stage::Events;
        Pushed::Item {
            // `start` is at most the length of `data` here (checked by the callers).
            consumed: usize::try_from(start).unwrap_or(usize::MAX),
            item: PushItem::Header(header),
        }
    }

    /// The next event, read by the whole-file walk's own functions.
    #[inline(always)]
    fn event<'a>(&mut self, data: &'a [u8], eof: bool) -> Result<Pushed<PushItem<'a>>, Error> {
        let offset = self.offset;
        // The part of `data` inside the capture section; `complete` when it reaches the
        // section's end, so that what is missing is missing in the whole file too.
        let room = self.bound.saturating_sub(offset);
        let (section, complete) = match usize::try_from(room).ok().and_then(|r| data.get(..r)) {
            Some(section) => (section, true),
            None => (data, eof),
        };
        if let Some(ev) = fast::common_shape(section, offset) {
            return Ok(self.advance(ev, 1 + ev.message.len()));
        }
        self.general(section, offset, complete)
    }

    /// Any event the fast path leaves: framed by `read_message`, classified by
    /// [`Event::classify`], as the whole-file walk does.
    #[inline(never)]
    fn general<'a>(
        &mut self,
        section: &'a [u8],
        offset: u64,
        complete: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        match read_message(section, 0, offset) {
            Ok((message, prefix)) => {
                let message_offset = offset.saturating_add(prefix as u64);
                match Event::classify(message, offset, message_offset) {
                    Ok(ev) => Ok(self.advance(ev, prefix + message.len())),
                    Err(e) => Err(self.fail(e)),
                }
            }
            Err(e) if !complete => match more_needed(&e) {
                Some(hint) => Ok(Pushed::NeedMore { hint: Some(hint) }),
                None => Err(self.fail(e)),
            },
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Yields `ev`, read from the first `consumed` bytes.
    #[inline(always)]
    fn advance<'a>(&mut self, ev: Event<'a>, consumed: usize) -> Pushed<PushItem<'a>> {
        self.offset = self.offset.saturating_add(consumed as u64);
        if ev.kind == EventKind::CaptureFinished {
            self.stage = Stage::Finished;
        }
        Pushed::Item {
            consumed,
            item: PushItem::Event(ev),
        }
    }

    #[cold]
    fn fail(&mut self, e: Error) -> Error {
        self.stage = Stage::Failed;
        self.error = Some(e);
        e
    }
}

/// How many more bytes the framing error `e` needs when it only says that the bytes so far end
/// too early (a cut length prefix or message); `None` for an error more bytes cannot change.
fn more_needed(e: &Error) -> Option<u64> {
    match e.kind {
        ErrorKind::TruncatedMessageSize => Some(1),
        ErrorKind::Shared(tracecap_wire::ErrorKind::Truncated {
            what: w,
            needed,
            available,
        }) if w == what::MESSAGE => Some(needed.saturating_sub(available).max(1)),
        _ => None,
    }
}
