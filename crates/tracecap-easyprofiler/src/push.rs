//! Reading a capture as its bytes arrive: [`PushParser`], fed the bytes of a file still being
//! written or of a socket, piece by piece (feature `alloc`).
//!
//! The caller owns the buffer. It appends the bytes it receives and calls
//! [`PushParser::parse`] with the bytes not yet consumed; the answer is a [`Pushed`]:
//!
//! - [`Pushed::Item`]: a [`PushItem`] read from the first `consumed` bytes. The caller uses it, drops
//!   those bytes from the front of its buffer (or just moves its start past them) and calls again;
//! - [`Pushed::NeedMore`]: the next part is not whole yet; `hint` is at least how many more bytes
//!   it needs (a lower bound: a record's size field may tell a larger one once it has arrived);
//! - [`Pushed::End`]: the capture is over (see below).
//!
//! The parts come in file order, exactly those of the whole-file reader with the same offsets:
//! [`PushItem::Header`], one [`PushItem::Descriptor`] per descriptor (as [`Capture::descriptors`]), then
//! what [`Capture::events`] yields, each as a [`PushItem::Item`] (each thread's head, its context
//! switches, its blocks, events and values, then the bookmarks), and in 2.1+ files each end
//! signature as a [`PushItem::Signature`]. Errors are the whole-file reader's too, kind and absolute
//! offset: fed a file cut short with `eof` set, the parser gives the error the whole-file reader
//! gives on the cut file. After an error every call returns it again.
//!
//! Where the capture ends:
//!
//! - 2.1+: after the end signature that closes the file (the one after the threads when there
//!   are no bookmarks, else the one after the last bookmark), yielded as a [`PushItem::Signature`];
//!   the next call returns [`Pushed::End`] without reading further. Bytes after it are not
//!   read, as the whole-file reader ignores them too ([`Events::trailing`](crate::Events::trailing)
//!   counts them);
//! - before 2.1 the format has no end mark: threads run to the end of the file, so only `eof`
//!   ends the capture. With `eof` set and every byte read, the parser checks the header's
//!   `blocks_count` as the whole-file reader does ([`ErrorKind::RecordsMissing`](crate::ErrorKind::RecordsMissing))
//!   and returns [`Pushed::End`]. A thread's two counts are consumed with the part that follows
//!   them, so at the end of such a file [`PushParser::offset`] may be up to 8 bytes past the last
//!   part's bytes: the counts of a last thread without records.
//!
//! # What the parser holds
//!
//! Between calls the parser holds no bytes of the capture and no records: the absolute offset of
//! the next byte, the header once read, the kind of each descriptor read so far (one 2-byte entry
//! per descriptor actually received, needed to tell value records from blocks), and a few counts
//! (records of the current thread's section still to come, threads and bookmarks left, records
//! announced so far). The kind table is the only memory that grows, by 2 bytes per descriptor
//! received, each of which takes at least 2 bytes of the file; the record path allocates
//! nothing.
//!
//! The parser does not build the call tree: a consumer that nests records needs all of a thread's
//! records (EasyProfiler stores children before their parent), so it keeps what it needs of them
//! itself, for example `(begin, end)` pairs pushed into a [`Forest`](crate::Forest) from each
//! [`Item::Thread`] to the next.
//!
//! # Example
//!
//! A capture arriving in pieces (here cut from an in-memory file; the same loop reads a growing
//! file or a socket):
//!
//! ```
//! use tracecap_easyprofiler::{Item, PushItem, PushParser, Pushed};
//!
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
//! # let file = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
//! let mut parser = PushParser::new();
//! let mut buffer: Vec<u8> = Vec::new();
//! let mut start = 0; // bytes of `buffer` already consumed
//! let mut pieces = file.chunks(1000);
//! let (mut threads, mut records) = (0, 0);
//! loop {
//!     let eof = pieces.len() == 0;
//!     match parser.parse(&buffer[start..], eof)? {
//!         Pushed::Item { consumed, item } => {
//!             match item {
//!                 PushItem::Item(Item::Thread(_)) => threads += 1,
//!                 PushItem::Item(Item::Record(_)) => records += 1,
//!                 _ => {}
//!             }
//!             start += consumed;
//!         }
//!         Pushed::NeedMore { .. } => {
//!             buffer.drain(..start); // drop what was consumed, in bulk
//!             start = 0;
//!             buffer.extend_from_slice(pieces.next().unwrap_or(&[]));
//!         }
//!         Pushed::End => break,
//!     }
//! }
//! assert!(threads > 0 && records > 0);
//! # Ok::<(), tracecap_easyprofiler::Error>(())
//! ```
//!
//! From a socket, reading what arrives until the peer closes it:
//!
//! ```no_run
//! use std::io::Read;
//! use tracecap_easyprofiler::{PushItem, PushParser, Pushed};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut stream = std::net::TcpStream::connect("127.0.0.1:28077")?;
//! let mut parser = PushParser::new();
//! let (mut buffer, mut start, mut eof) = (Vec::new(), 0, false);
//! let mut piece = vec![0u8; 64 << 10];
//! loop {
//!     match parser.parse(&buffer[start..], eof)? {
//!         Pushed::Item { consumed, item } => {
//!             if let PushItem::Item(item) = item {
//!                 println!("{item:?}");
//!             }
//!             start += consumed;
//!         }
//!         Pushed::NeedMore { .. } => {
//!             buffer.drain(..start);
//!             start = 0;
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
//!
//! [`Capture::descriptors`]: crate::Capture::descriptors
//! [`Capture::events`]: crate::Capture::events

use alloc::vec::Vec;

use tracecap_wire::fast::touch_ahead;
use tracecap_wire::{Context, Reader};

pub use tracecap_wire::Pushed;

use crate::bookmark::Bookmark;
use crate::capture::{read_signature, records_missing};
use crate::context_switch::ContextSwitch;
use crate::descriptor::{Descriptor, DescriptorKind};
use crate::error::Error;
use crate::events::{Item, ThreadHead};
use crate::fast::read_record_fast;
use crate::header::Header;
use crate::lookup::KindLookup;
use crate::record::read_record;
use crate::thread::read_thread_head;
use crate::version::Version;
use crate::SharedKind;

/// One part of a capture, as [`PushParser::parse`] yields them, in file order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PushItem<'a> {
    /// The file header (the first part), as the parser keeps it (also [`PushParser::header`]).
    Header(&'a Header),
    /// A descriptor, as [`Capture::descriptors`](crate::Capture::descriptors) yields it.
    Descriptor(Descriptor<'a>),
    /// A thread head, context switch, record or bookmark, as
    /// [`Capture::events`](crate::Capture::events) yields it.
    Item(Item<'a>),
    /// An end signature (2.1+) at this absolute offset: after the threads, and after the last
    /// bookmark when there are bookmarks.
    Signature(u64),
}

/// Where the parser stands.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Before the header.
    Header,
    /// Inside the descriptors; the index of the next one.
    Descriptors(u32),
    /// Between threads.
    Threads,
    /// After a thread's head, before its count of context switches.
    Head,
    /// Inside a thread's context switches; `left` to go.
    Switches(u32),
    /// Inside a thread's records; `left` to go.
    Records(u32),
    /// Inside the bookmarks; `left` to go.
    Bookmarks(u16),
    /// Before the signature after the last bookmark.
    LastSignature,
    /// After the end.
    Done,
    /// After an error, given again on every call.
    Failed(Error),
}

/// What [`PushParser::step`] read.
enum Next<'a> {
    /// A part borrowing the data.
    Part(PushItem<'a>),
    /// The header, which the caller gives as a reference to the parser's copy.
    Header,
}

/// Why a step gave no part.
enum Stop {
    /// The part is not whole in the data given: at least this many more bytes.
    More(Option<u64>),
    /// A fault of the capture.
    Fault(Error),
}

impl From<Error> for Stop {
    #[inline]
    fn from(e: Error) -> Self {
        Stop::Fault(e)
    }
}

impl From<tracecap_wire::Error> for Stop {
    #[inline]
    fn from(e: tracecap_wire::Error) -> Self {
        Stop::Fault(e.into())
    }
}

/// A parser fed a capture's bytes as they arrive; see the [module](self).
#[derive(Clone, Debug)]
pub struct PushParser {
    /// Absolute offset of the first byte of the next `data`.
    offset: u64,
    state: State,
    header: Option<Header>,
    /// The header's fields the walk needs (set with `header`).
    version: Version,
    descriptors: u32,
    /// The header's `blocks_count`: before 2.1, the end of the file comes after that many.
    stated: u32,
    bookmarks: u16,
    /// Kinds of the descriptors read so far.
    kinds: Vec<DescriptorKind>,
    /// Threads left by the header's count (2.1+).
    threads_left: Option<u32>,
    /// Records (context switches included) the counts of the threads met so far announce.
    records: u64,
}

impl Default for PushParser {
    fn default() -> Self {
        Self::new()
    }
}

impl PushParser {
    /// A parser before the first byte of a capture.
    pub fn new() -> Self {
        PushParser {
            offset: 0,
            state: State::Header,
            header: None,
            version: Version(0),
            descriptors: 0,
            stated: 0,
            bookmarks: 0,
            kinds: Vec::new(),
            threads_left: None,
            records: 0,
        }
    }

    /// Absolute file offset of the first byte of the next `data`: the bytes consumed so far.
    /// After [`Pushed::End`], where the capture's last part ends.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The header, once read.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The kinds of the descriptors read so far (index = descriptor index).
    pub fn kinds(&self) -> &[DescriptorKind] {
        &self.kinds
    }

    /// True after [`Pushed::End`] or an error: no call reads anything any more.
    pub fn is_finished(&self) -> bool {
        matches!(self.state, State::Done | State::Failed(_))
    }

    /// Reads the next part from `data`, the bytes of the capture from [`PushParser::offset`] on
    /// (those not yet consumed). `eof` says that no byte follows `data`: a part cut short is then
    /// the error the whole-file reader gives, not a request for more. See the [module](self).
    #[inline]
    pub fn parse<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        // Most parts are records: a whole, well-formed one straight from the bytes; anything else
        // (a record cut short or damaged included) goes through the checked readers.
        if let State::Records(left @ 1..) = self.state {
            touch_ahead(data);
            let kinds = self.kinds.as_slice();
            if let Some((record, after)) = read_record_fast(data, self.offset, |id| kinds.kind(id))
            {
                let consumed = data.len() - after.len();
                self.state = State::Records(left - 1);
                self.offset += consumed as u64;
                return Ok(Pushed::Item {
                    consumed,
                    item: PushItem::Item(Item::Record(record)),
                });
            }
        }
        self.parse_checked(data, eof)
    }

    #[inline(never)]
    fn parse_checked<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<PushItem<'a>>, Error> {
        if let State::Failed(e) = self.state {
            return Err(e);
        }
        let saved = (self.state, self.threads_left, self.records);
        let mut r = Reader::at(data, self.offset);
        let end = self.offset.saturating_add(data.len() as u64);
        match self.step(&mut r, eof) {
            Ok(Some(item)) => {
                let consumed = r.position();
                self.offset = r.offset();
                match (item, &self.header) {
                    (Next::Part(item), _) => Ok(Pushed::Item { consumed, item }),
                    (Next::Header, Some(h)) => Ok(Pushed::Item {
                        consumed,
                        item: PushItem::Header(h),
                    }),
                    // Not met: the header is kept before `Next::Header` is given.
                    (Next::Header, None) => Ok(Pushed::End),
                }
            }
            Ok(None) => {
                self.offset = r.offset();
                self.state = State::Done;
                Ok(Pushed::End)
            }
            Err(Stop::More(hint)) => {
                (self.state, self.threads_left, self.records) = saved;
                Ok(Pushed::NeedMore { hint })
            }
            Err(Stop::Fault(e)) => match more_needed(&e, end) {
                Some(hint) if !eof => {
                    (self.state, self.threads_left, self.records) = saved;
                    Ok(Pushed::NeedMore { hint: Some(hint) })
                }
                _ => {
                    self.state = State::Failed(e);
                    Err(e)
                }
            },
        }
    }

    /// Reads from `r` up to and including the next part (`None` at the end), moving the state
    /// on; on `Err` the caller puts the state back or keeps the fault.
    fn step<'a>(&mut self, r: &mut Reader<'a>, eof: bool) -> Result<Option<Next<'a>>, Stop> {
        loop {
            match self.state {
                State::Header => {
                    let h = Header::read(r)?;
                    self.header = Some(h);
                    self.version = h.version;
                    self.descriptors = h.descriptors_count;
                    self.stated = h.blocks_count;
                    self.bookmarks = h.bookmarks_count;
                    self.threads_left = h.threads_count;
                    self.state = State::Descriptors(0);
                    return Ok(Some(Next::Header));
                }
                State::Descriptors(next) => {
                    if next >= self.descriptors {
                        self.state = State::Threads;
                        continue;
                    }
                    let d = Descriptor::read(r, next)?;
                    self.kinds.push(d.kind);
                    self.state = State::Descriptors(next.saturating_add(1));
                    return Ok(Some(Next::Part(PushItem::Descriptor(d))));
                }
                State::Records(left) if left > 0 => {
                    self.state = State::Records(left - 1);
                    let kinds = self.kinds.as_slice();
                    let record = read_record(r, |id| kinds.kind(id))?;
                    return Ok(Some(Next::Part(PushItem::Item(Item::Record(record)))));
                }
                State::Switches(left) if left > 0 => {
                    self.state = State::Switches(left - 1);
                    let wide = self.version.wide_ids();
                    let cs = ContextSwitch::read(r, wide)?;
                    return Ok(Some(Next::Part(PushItem::Item(Item::ContextSwitch(cs)))));
                }
                State::Head => {
                    let n = r.u32_le().what("context switch count")?;
                    self.records = self.records.saturating_add(u64::from(n));
                    self.state = State::Switches(n);
                }
                State::Switches(_) => {
                    let n = r.u32_le().what("block count")?;
                    self.records = self.records.saturating_add(u64::from(n));
                    self.state = State::Records(n);
                }
                State::Records(_) | State::Threads => {
                    let more = match self.threads_left {
                        Some(n) => n > 0,
                        // Before 2.1 the threads run to the end of the file.
                        None if r.is_empty() && !eof => return Err(Stop::More(Some(1))),
                        None => !r.is_empty(),
                    };
                    if more {
                        if let Some(n) = self.threads_left.as_mut() {
                            *n -= 1;
                        }
                        let (offset, id, name) = read_thread_head(r, self.version.wide_ids())?;
                        self.state = State::Head;
                        return Ok(Some(Next::Part(PushItem::Item(Item::Thread(ThreadHead {
                            offset,
                            id,
                            name,
                        })))));
                    }
                    if !self.version.has_end_signature() {
                        self.state = State::Done;
                        records_missing(self.records, self.stated, r.offset())?;
                        return Ok(None);
                    }
                    let at = r.offset();
                    read_signature(r)?;
                    self.state = match self.bookmarks {
                        0 => State::Done,
                        n => State::Bookmarks(n),
                    };
                    return Ok(Some(Next::Part(PushItem::Signature(at))));
                }
                State::Bookmarks(left) if left > 0 => {
                    let b = Bookmark::read(r)?;
                    self.state = match left {
                        1 => State::LastSignature,
                        _ => State::Bookmarks(left - 1),
                    };
                    return Ok(Some(Next::Part(PushItem::Item(Item::Bookmark(b)))));
                }
                State::LastSignature => {
                    let at = r.offset();
                    read_signature(r)?;
                    self.state = State::Done;
                    return Ok(Some(Next::Part(PushItem::Signature(at))));
                }
                State::Bookmarks(_) | State::Done => return Ok(None),
                State::Failed(e) => return Err(Stop::Fault(e)),
            }
        }
    }
}

/// For a truncation that ran into the end of the data given (absolute offset `end`), at least how
/// many more bytes the read needs; `None` for any other fault (a truncation inside a record's own
/// bytes included), which more bytes cannot mend.
fn more_needed(e: &Error, end: u64) -> Option<u64> {
    match e.shared() {
        Some(SharedKind::Truncated {
            needed, available, ..
        }) if e.offset.saturating_add(available) == end => {
            Some(needed.saturating_sub(available).max(1))
        }
        _ => None,
    }
}
