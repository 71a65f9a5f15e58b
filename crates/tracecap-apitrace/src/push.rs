//! [`PushParser`]: a `.trace` file read as its bytes arrive (a file still being written, a
//! socket, a pipe), fed by the caller (feature `std`).
//!
//! The caller owns the buffer of file bytes: it appends what arrives and calls
//! [`PushParser::parse`]`(data, eof)` with the bytes not yet consumed. The answer is a
//! [`Pushed`]: an event (with the table to resolve it), a request for more bytes, or the end.
//! [`PushParser::parse_with`] reads each event in one pass instead and hands it to a closure
//! as a [`Parsed`] (the same events; each byte read once); [`PushParser::parse_many`] hands
//! every event the bytes given hold to a closure in one call, the fastest way through.
//!
//! The file's bytes are the *container*, any of apitrace's: snappy chunks, a gzip or brotli
//! stream, zstd frames (seekable or not: the seek table is a skippable frame). It is decoded as
//! the bytes arrive, into a window the parser owns, and the events are read from that window.
//! So the events borrow from the parser, not from `data`, and `consumed` counts the compressed
//! bytes taken by the decoder since the last event, which may be 0 (an event from bytes
//! already taken) or many (an event that spans them). Until an event is given, the bytes taken
//! stay at the front of the caller's bytes, and the parser skips them on the next call: pass
//! the same unconsumed bytes, with what arrived after them.
//!
//! What is decoded when:
//!
//! - snappy: a chunk, once it is whole in `data`;
//! - gzip and brotli: the file in blocks of 16 KiB counted from its start, each once it is
//!   whole in `data` (the last one, shorter, at `eof`). The decoder is thus called on the same
//!   input with the same room for output however the bytes arrive, and gives the same bytes
//!   and meets a fault at the same input position; the price is that the last bytes of a file
//!   still being written (less than 16 KiB of it) are decoded once their block is whole or at
//!   `eof`;
//! - zstd: each frame header, block (the frame's checksum with its last block) and skippable
//!   frame, once it is whole. The decoder hands out a frame's bytes once they lie a window
//!   behind what it has decoded, and all of them when the frame ends, so an event is given by
//!   then.
//!
//! # The same as the whole-file reader
//!
//! On any file, in any container, cut into pieces anyhow, the events, their order, their
//! offsets and the error that ends the walk are those of
//! [`Capture::parse`](crate::Capture::parse) and [`Capture::events`](crate::Capture::events) on
//! the whole file (`tests/push.rs`): the parser is the same reader
//! ([`ChunkedReader`](crate::ChunkedReader)'s window and event reading) over a source that
//! decodes the container as it arrives, with the decoding [`ContainerSource`](crate::ContainerSource)
//! uses on the whole file (fed the same pieces of input). Offsets keep the spaces of the
//! whole-file API: an event's offset, and the offset of a fault of the stream, count in the
//! decompressed stream; a fault of the container (a damaged or cut chunk, block or stream) is a
//! file offset ([`ErrorKind::space`](crate::ErrorKind::space)). With `eof` set, bytes that do
//! not make a whole piece (a snappy chunk, a gzip header or trailer, a zstd header or block)
//! are the file cut short, as the whole-file reader reports it: the events the bytes before the
//! cut hold, then [`ErrorKind::ContainerTruncated`](crate::ErrorKind) at the file's length.
//!
//! Without `eof`, an event is given as soon as the pieces holding it have been decoded (above),
//! whatever follows, so a reader following a live trace is never behind the bytes it has
//! (but for the last block of a gzip or brotli file, and a zstd frame not yet ended); except
//! for an event whose unread part is longer than 256 KiB: such an event is read again only once
//! the window has doubled (or the bytes it needs have come, if more), as when the whole-file
//! reader pulls, so that a large event is not re-read at every arrival (quadratic in its size).
//! Until then, or until `eof`, the parser asks for more.
//!
//! A snappy chunk whose length is 0 ends the container: the parser answers [`Pushed::End`]
//! there, once the events before it are read, and reads nothing after it (neither does the
//! whole-file reader). A gzip, brotli or zstd container ends with the file: after the end of
//! the compressed data the parser asks for more until `eof` (more bytes would be another gzip
//! member, another zstd frame, or damage). After an error, and after the end, every call
//! answers `End`.
//!
//! # What is kept between calls
//!
//! - the window: the unread tail of the decompressed stream and the pieces decompressed
//!   after it, as [`ChunkedReader`](crate::ChunkedReader) keeps it: the largest event plus one
//!   piece (a snappy chunk: the tracer writes chunks of 1 MiB of stream, at most
//!   [`MAX_SNAPPY_CHUNK`](crate::MAX_SNAPPY_CHUNK); 256 KiB of a gzip, brotli or zstd stream),
//!   and an event may not be larger than the window limit
//!   ([`DEFAULT_WINDOW_LIMIT`](crate::DEFAULT_WINDOW_LIMIT) unless
//!   [`PushParser::with_window_limit`] says otherwise: an error past it);
//! - the decoder's state: none for snappy; deflate's 32 KiB window for gzip; brotli's ring
//!   buffer, as large as the stream's header sets its window (16 MiB in the files apitrace
//!   writes); for zstd, the frame's window (set by its header) and the block being decoded;
//! - the signature table ([`SigTable`] by default), which grows with the signatures of the
//!   trace, never with its calls, and the header (owned: [`OwnedHeader`]);
//! - a few counters (the file offset of `data`, the bytes taken from it) and at most one
//!   fault held back until the events before it are read.
//!
//! The caller's buffer holds at least one whole piece of input before it can be decoded: a
//! snappy chunk (its length is in its first 4 bytes), a 16 KiB block of gzip or brotli, a zstd
//! block (at most 128 KiB and 7 bytes) or skippable frame; [`Pushed::NeedMore`]'s `hint` says
//! how many bytes are missing. A damaged snappy length or skippable frame length may claim up to
//! 4 GiB, which the whole-file reader too can only tell from the end of the file; a caller that
//! bounds its buffer stops there.
//!
//! After the window has grown to its working size, reading allocates nothing per event, in
//! every container (`tests/no_alloc.rs`).
//!
//! # Example
//!
//! The bytes arriving in pieces (here from memory; from a growing file or a socket, the loop
//! is the same):
//!
//! ```
//! use tracecap_apitrace::{EventKind, PushParser, Pushed};
//!
//! # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
//! let mut arriving = file.chunks(7); // pieces of 7 bytes
//! let mut parser = PushParser::new();
//! let mut buffer = Vec::new();
//! let mut enters = 0;
//! loop {
//!     match parser.parse(&buffer, arriving.len() == 0)? {
//!         Pushed::Item { consumed, item: (event, table) } => {
//!             if event.kind == EventKind::Enter {
//!                 assert!(table.function(event.sig).is_some());
//!                 enters += 1;
//!             }
//!             buffer.drain(..consumed);
//!         }
//!         Pushed::NeedMore { .. } => match arriving.next() {
//!             Some(piece) => buffer.extend_from_slice(piece),
//!             None => unreachable!("with eof set, the parser never asks for more"),
//!         },
//!         Pushed::End => break,
//!     }
//! }
//! assert_eq!(enters, 2);
//! assert_eq!(parser.header().map(|h| h.version), Some(6));
//! # Ok::<(), tracecap_apitrace::Error>(())
//! ```
//!
//! From a socket, reading what arrives into the buffer (a file still being written is read the
//! same way, with `eof` set once its writer is known to be done):
//!
//! ```no_run
//! use std::io::Read;
//! use std::net::TcpStream;
//! use tracecap_apitrace::{PushParser, Pushed};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut socket = TcpStream::connect("127.0.0.1:4242")?;
//! let mut parser = PushParser::new();
//! let mut buffer = Vec::new();
//! let mut piece = vec![0u8; 64 << 10];
//! let mut eof = false;
//! let mut calls = 0u64;
//! loop {
//!     match parser.parse(&buffer, eof)? {
//!         Pushed::Item { consumed, item: (event, _table) } => {
//!             calls += u64::from(event.kind == tracecap_apitrace::EventKind::Leave);
//!             buffer.drain(..consumed);
//!         }
//!         Pushed::NeedMore { .. } => {
//!             let n = socket.read(&mut piece)?;
//!             eof = n == 0;
//!             buffer.extend_from_slice(&piece[..n]);
//!         }
//!         Pushed::End => break,
//!     }
//! }
//! println!("{calls} calls, file read up to offset {}", parser.offset());
//! # Ok(())
//! # }
//! ```

use std::vec::Vec;

use tracecap_wire::Pushed;

use crate::chunked::{Core, OwnedHeader, Parts};
use crate::container::{Container, SnappyChunk};
use crate::cursor::Cur;
use crate::error::Error;
use crate::event::{DetailBuf, Event};
use crate::parsed::{read_kept, Parsed};
use crate::sig::SigLookup;
use crate::source::{snappy_chunk, snappy_cut, ByteSource, OffsetMap, StreamDecoder};
use crate::table::SigTable;
use crate::value::version_byte;

/// A reader of a `.trace` file (any container) fed with its bytes as they arrive; see the
/// [module](self).
pub struct PushParser<T = SigTable> {
    core: Core<T>,
    feed: Feed,
}

/// The container side kept between calls.
struct Feed {
    decoder: snap::raw::Decoder,
    /// The decoder of a gzip, brotli or zstd container (snappy: none, the chunks are read here).
    stream: Option<StreamDecoder>,
    /// File offset of the first byte of the next `data`.
    offset: u64,
    /// Bytes at the front of `data` already read (the magic, whole chunks) and not yet
    /// reported consumed.
    taken: usize,
    /// The `at` magic was read.
    started: bool,
    /// The container ended (a zero length, the end of the file, or a fault).
    done: bool,
    /// A fault met after the bytes given before it.
    pending: Option<Error>,
    /// The last fill gave no bytes because the next chunk is not whole yet.
    waiting: bool,
    /// The bytes missing for the next chunk, when waiting.
    hint: u64,
    /// Stream bytes decompressed so far.
    produced: u64,
    /// Where the chunks under the window start, as [`ContainerSource`](crate::ContainerSource)
    /// notes them.
    offsets: OffsetMap,
}

impl Feed {
    /// The bytes taken since the last event, reported consumed with the event given now.
    fn report(&mut self) -> usize {
        let consumed = self.taken;
        self.taken = 0;
        self.offset = self.offset.saturating_add(consumed as u64);
        consumed
    }
}

/// The byte source over one call's `data`.
struct Source<'f, 'd> {
    feed: &'f mut Feed,
    data: &'d [u8],
    eof: bool,
}

impl Default for PushParser<SigTable> {
    fn default() -> Self {
        PushParser::new()
    }
}

impl PushParser<SigTable> {
    /// A parser at the start of a file, with a new [`SigTable`].
    pub fn new() -> Self {
        PushParser::with_table(SigTable::new())
    }
}

impl<T: SigLookup> PushParser<T> {
    /// A parser at the start of a file, defining signatures into `table` (pass `&mut table` to
    /// keep it).
    pub fn with_table(table: T) -> Self {
        PushParser {
            core: Core::new(table),
            feed: Feed {
                decoder: snap::raw::Decoder::new(),
                stream: None,
                offset: 0,
                taken: 0,
                started: false,
                done: false,
                pending: None,
                waiting: false,
                hint: 0,
                produced: 0,
                offsets: OffsetMap::default(),
            },
        }
    }

    /// Sets the largest window (bytes), as [`ChunkedReader::with_window_limit`](crate::ChunkedReader::with_window_limit):
    /// an event larger than this is an error.
    pub fn with_window_limit(mut self, limit: usize) -> Self {
        self.core.limit = limit.max(1);
        self
    }

    /// Reads on with `data`, the file's bytes not yet consumed (from [`PushParser::offset`]
    /// on); `eof`: no byte comes after them. See the [module](self).
    ///
    /// The item is an event and the table to resolve it with, as
    /// [`ChunkedReader::next_event`](crate::ChunkedReader::next_event) gives them.
    #[allow(clippy::type_complexity)]
    pub fn parse<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<(Event<'a>, &'a T)>, Error> {
        Ok(self.next_parts(data, eof)?.map(|parts| {
            let core = &self.core;
            (core.event_at(&parts), &core.table)
        }))
    }

    /// Like [`PushParser::parse`], with the file offset of the snappy chunk or zstd frame
    /// holding the event's first byte (as
    /// [`Decompressed::chunk_offset`](crate::Decompressed::chunk_offset) gives it for the whole
    /// file; `None` for gzip and brotli): known while the event is read, when the piece is
    /// under the window.
    #[allow(clippy::type_complexity)]
    pub fn parse_located<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<(Event<'a>, &'a T, Option<u64>)>, Error> {
        Ok(self.next_parts(data, eof)?.map(|parts| {
            let core = &self.core;
            let chunk = self.feed.offsets.chunk_offset(parts.offset);
            (core.event_at(&parts), &core.table, chunk)
        }))
    }

    /// Where the next event lies in the window, read on with `data`.
    fn next_parts(&mut self, data: &[u8], eof: bool) -> Result<Pushed<Parts>, Error> {
        if let Some(answer) = self.start(data, eof) {
            return answer.map(|more| match more {
                Some(hint) => Pushed::NeedMore { hint: Some(hint) },
                None => Pushed::End,
            });
        }
        let mut src = Source {
            feed: &mut self.feed,
            data,
            eof,
        };
        match self.core.next_parts(&mut src) {
            Some(Ok(parts)) => {
                let consumed = self.feed.report();
                Ok(Pushed::Item {
                    consumed,
                    item: parts,
                })
            }
            Some(Err(e)) => Err(e),
            None if self.core.waiting => Ok(Pushed::NeedMore {
                hint: Some(self.feed.hint),
            }),
            None => Ok(Pushed::End),
        }
    }

    /// Reads the container's magic: `None` once it is read, else the answer: `Some(hint)`
    /// bytes more, `None` the end (after an error), or the container's fault.
    fn start(&mut self, data: &[u8], eof: bool) -> Option<Result<Option<u64>, Error>> {
        if self.feed.started {
            return None;
        }
        if self.core.failed {
            return Some(Ok(None));
        }
        if data.len() < 4 && !eof {
            return Some(Ok(Some(4 - data.len() as u64)));
        }
        // What `Capture::parse` checks first: the container, from the first 4 bytes (a
        // zstd file is named `zstd`: whether it is seekable is told by its end).
        match Container::detect(data.get(..4).unwrap_or(data)) {
            Ok(Container::Snappy) => self.feed.taken = 2,
            Ok(other) => self.feed.stream = StreamDecoder::new(other),
            Err(e) => {
                self.core.failed = true;
                return Some(Err(e));
            }
        }
        self.feed.started = true;
        None
    }

    /// Reads on until the stream header is read, and gives it; `consumed` counts the bytes
    /// taken for it, as [`PushParser::parse`] counts them for an event. Its faults are those
    /// [`PushParser::parse`] would give before the first event. Once the header is read, every
    /// call gives it again with nothing consumed.
    pub fn read_header<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<Pushed<&'a OwnedHeader>, Error> {
        if self.core.header.is_none() {
            if let Some(answer) = self.start(data, eof) {
                return answer.map(|more| match more {
                    Some(hint) => Pushed::NeedMore { hint: Some(hint) },
                    None => Pushed::End,
                });
            }
            if self.core.failed {
                return Ok(Pushed::End);
            }
            let mut src = Source {
                feed: &mut self.feed,
                data,
                eof,
            };
            self.core.waiting = false;
            match self.core.read_header(&mut src) {
                Ok(true) => {}
                Ok(false) => {
                    return Ok(Pushed::NeedMore {
                        hint: Some(self.feed.hint),
                    })
                }
                Err(e) => {
                    self.core.failed = true;
                    return Err(e);
                }
            }
        }
        let consumed = self.feed.report();
        match &self.core.header {
            Some(h) => Ok(Pushed::Item { consumed, item: h }),
            None => Ok(Pushed::End),
        }
    }

    /// Where the chunks under the window start in the file: the map a fault of the stream
    /// ([`ErrorKind::space`](crate::ErrorKind::space)) is placed in the file with
    /// ([`OffsetMap::error_offset`]), as a [`ContainerSource`](crate::ContainerSource)'s is.
    pub fn offsets(&self) -> &OffsetMap {
        &self.feed.offsets
    }

    /// Like [`PushParser::parse`], with the event read in one pass and handed to `f` as a
    /// [`Parsed`] (its details kept by the validating read, as
    /// [`ChunkedReader::next_parsed_with`](crate::ChunkedReader::next_parsed_with) hands them):
    /// the same events, details and errors, each byte read once. The item is what `f` returns.
    pub fn parse_with<R>(
        &mut self,
        data: &[u8],
        eof: bool,
        f: impl FnOnce(Parsed<'_, '_, T>) -> R,
    ) -> Result<Pushed<R>, Error> {
        let core = &mut self.core;
        if self.feed.started && !core.failed && core.header.is_some() {
            // An event wholly inside the window, of the shapes the fast path reads.
            let rest = core.window.get(core.pos..).unwrap_or(&[]);
            let mut c = Cur::new(rest, core.base.saturating_add(core.pos as u64));
            let mut kept = DetailBuf::new();
            let version = version_byte(core.state.version);
            if let Some(event) = read_kept(&mut c, &mut core.state, &core.table, version, &mut kept)
            {
                core.pos = core.pos.saturating_add(c.pos());
                let consumed = self.feed.report();
                let item = f(Parsed::new(event, &kept, &core.table));
                return Ok(Pushed::Item { consumed, item });
            }
        }
        // Everything else (more bytes needed, definitions, errors): the general path, with the
        // details read again on demand.
        Ok(self.parse(data, eof)?.map(|(event, table)| {
            let kept = DetailBuf::not_kept();
            f(Parsed::new(event, &kept, table))
        }))
    }

    /// Hands every event that can be read now to `f`, read in one pass, and answers with how
    /// many there were: [`Pushed::Item`] with `item` events (at least one) and `consumed` the
    /// bytes taken for them, else `NeedMore` or `End` as [`PushParser::parse`] answers. The
    /// same events, in the same order, as `parse_with` called until it asks for more; faster:
    /// the events of the window share one detail buffer and one cursor, as in
    /// [`ChunkedReader::try_for_each_parsed`](crate::ChunkedReader::try_for_each_parsed). On an
    /// error, the events before it have been handed to `f`.
    pub fn parse_many(
        &mut self,
        data: &[u8],
        eof: bool,
        mut f: impl FnMut(Parsed<'_, '_, T>),
    ) -> Result<Pushed<u64>, Error> {
        let mut n = 0u64;
        let mut consumed = 0usize;
        loop {
            let core = &mut self.core;
            if self.feed.started && !core.failed && core.header.is_some() {
                // Every event wholly inside the window, of the shapes the fast path reads.
                let window = core.window.as_slice();
                let mut c = Cur::new(window, core.base);
                c.pos = core.pos;
                let mut kept = DetailBuf::new();
                let version = version_byte(core.state.version);
                while let Some(event) =
                    read_kept(&mut c, &mut core.state, &core.table, version, &mut kept)
                {
                    core.pos = c.pos;
                    f(Parsed::new(event, &kept, &core.table));
                    n = n.saturating_add(1);
                }
            }
            // The next event through the general path, or the answer when there is none.
            let next = match self.parse(data.get(consumed..).unwrap_or(&[]), eof)? {
                Pushed::Item {
                    consumed: taken,
                    item: (event, table),
                } => {
                    let kept = DetailBuf::not_kept();
                    f(Parsed::new(event, &kept, table));
                    Some(taken)
                }
                Pushed::NeedMore { hint } if n == 0 => return Ok(Pushed::NeedMore { hint }),
                Pushed::End if n == 0 => return Ok(Pushed::End),
                Pushed::NeedMore { .. } | Pushed::End => None,
            };
            match next {
                Some(taken) => {
                    consumed = consumed.saturating_add(taken);
                    n = n.saturating_add(1);
                }
                None => {
                    // The chunks taken since the last event go with the events given.
                    let item = n;
                    let consumed = consumed.saturating_add(self.feed.report());
                    return Ok(Pushed::Item { consumed, item });
                }
            }
        }
    }

    /// The file offset of the first byte of the next `data`: the bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.feed.offset
    }

    /// The stream offset (in the decompressed stream) of the next byte to read: the end of the
    /// last event given.
    pub fn stream_offset(&self) -> u64 {
        self.core.base.saturating_add(self.core.pos as u64)
    }

    /// The stream header, once read (before the first event).
    pub fn header(&self) -> Option<&OwnedHeader> {
        self.core.header.as_ref()
    }

    /// The signature table.
    pub fn table(&self) -> &T {
        &self.core.table
    }

    /// Gives the table back.
    pub fn into_table(self) -> T {
        self.core.table
    }

    /// The window's current capacity (for memory checks).
    pub fn window_capacity(&self) -> usize {
        self.core.window.capacity()
    }
}

impl ByteSource for Source<'_, '_> {
    /// The next whole chunk of `data`, decompressed; or, with `eof`, the cut end of the file.
    /// The same pieces and faults as [`ContainerSource`](crate::ContainerSource) over the
    /// whole file (the same decoding functions).
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        let feed = &mut *self.feed;
        feed.waiting = false;
        if let Some(dec) = feed.stream.as_mut() {
            // gzip, brotli, zstd: the decoder takes what it can of the bytes not yet taken.
            let rest = self.data.get(feed.taken..).unwrap_or(&[]);
            let r = dec.fill(rest, self.eof, out, &mut feed.offsets);
            let taken = dec.consumed().saturating_sub(feed.offset);
            feed.taken = usize::try_from(taken)
                .unwrap_or(usize::MAX)
                .min(self.data.len());
            if let Some(hint) = dec.waiting() {
                feed.waiting = true;
                feed.hint = hint;
            }
            if let Ok(n) = r {
                feed.produced = feed.produced.saturating_add(n as u64);
                feed.offsets.trim(feed.produced);
            }
            return r;
        }
        if let Some(e) = feed.pending.take() {
            return Err(e);
        }
        if feed.done {
            return Ok(0);
        }
        let rest = self.data.get(feed.taken..).unwrap_or(&[]);
        if rest.is_empty() && self.eof {
            feed.done = true;
            return Ok(0);
        }
        let at = feed.offset.saturating_add(feed.taken as u64);
        // The chunk's length, then its block, as far as `rest` holds them.
        let mut missing = 4u64.saturating_sub(rest.len() as u64);
        let mut whole = None;
        if let Some(&[a, b, c, d]) = rest.get(..4) {
            let len = u32::from_le_bytes([a, b, c, d]);
            if len == 0 {
                feed.done = true;
                return Ok(0);
            }
            let block = rest.get(4..).unwrap_or(&[]);
            missing = u64::from(len).saturating_sub(block.len() as u64);
            whole = usize::try_from(len)
                .ok()
                .and_then(|len| Some((len, block.get(..len)?)));
        }
        let decoded = match whole {
            Some((len, block)) => {
                feed.taken = feed.taken.saturating_add(4).saturating_add(len);
                let chunk = SnappyChunk { offset: at, block };
                snappy_chunk(&mut feed.decoder, chunk, out)
            }
            None if self.eof => {
                // The file ends inside this chunk: whatever its bytes hold, then the cut.
                feed.taken = self.data.len();
                let file_len = feed.offset.saturating_add(self.data.len() as u64);
                snappy_cut(rest.get(4..).unwrap_or(&[]), file_len, out)
            }
            None => {
                feed.waiting = true;
                feed.hint = missing.max(1);
                return Ok(0);
            }
        };
        if decoded.0 > 0 {
            feed.offsets.note(feed.produced, at);
            feed.produced = feed.produced.saturating_add(decoded.0 as u64);
            feed.offsets.trim(feed.produced);
        }
        match decoded {
            (n, None) => Ok(n),
            (0, Some(e)) => {
                feed.done = true;
                Err(e)
            }
            (n, Some(e)) => {
                feed.done = true;
                feed.pending = Some(e);
                Ok(n)
            }
        }
    }

    fn waiting(&self) -> bool {
        self.feed.waiting
    }

    fn release(&mut self, before: u64) {
        self.feed.offsets.release(before);
        self.feed.offsets.trim(self.feed.produced);
    }
}
