//! Chunked reading: the event stream parsed through a bounded window, one decompressed piece at
//! a time, so a trace of any size is read in constant memory.

use std::vec::Vec;

use tracecap_wire::Reader;

use crate::cursor::{Cur, Span};
use crate::error::{Error, ErrorKind, FileError};
use crate::event::{DetailBuf, Event, EventKind, State};
use crate::header::Header;
use crate::parsed::{read_kept, Parsed};
use crate::read::next_event;
use crate::sig::SigLookup;
use crate::source::{ByteSource, ContainerSource, DEFAULT_WINDOW_LIMIT};
use crate::table::SigTable;
use crate::value::version_byte;

/// The longest unread tail a source that is waiting for bytes ([`ByteSource::waiting`]) has it
/// re-read as soon as any byte comes; a longer one (a large event) is re-read once the window
/// reaches `need_until`, as when pulling.
pub(crate) const PROMPT_TAIL: usize = 256 << 10;

/// The owned copy of a header read in chunked mode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedHeader {
    /// Stream version.
    pub version: u64,
    /// Semantic version.
    pub semantic_version: u64,
    /// Properties, in stream order.
    pub properties: Vec<(Vec<u8>, Vec<u8>)>,
}

/// An event's position, free of borrows (rebuilt into an [`Event`] over the window).
#[derive(Clone, Copy)]
pub(crate) struct Parts {
    kind: EventKind,
    call_no: u64,
    thread: u64,
    sig: u64,
    pub(crate) offset: u64,
    details_start: usize,
    details_len: usize,
}

impl Parts {
    /// The event, over `window` (whose first byte is at stream offset `base`).
    #[inline]
    fn event<'w>(&self, window: &'w [u8], base: u64, version: u64) -> Event<'w> {
        let body = window
            .get(self.details_start..self.details_start.saturating_add(self.details_len))
            .unwrap_or(&[]);
        Event::from_parts(
            self.kind,
            self.call_no,
            self.thread,
            self.sig,
            self.offset,
            Span {
                data: body,
                base: base.saturating_add(self.details_start as u64),
            },
            version,
        )
    }
}

/// Parses a stream from a [`ByteSource`] through a window that holds the unparsed tail of the
/// previous piece plus the next piece. Signatures live in the (owned) table, so events may
/// straddle pieces freely. Memory is bounded by the largest event plus one piece; a single event
/// larger than the window limit is an error. [`Capture::events`](crate::Capture::events) makes
/// one over a file's container.
///
/// Why it is no [`Iterator`]: an event borrows its details from the window, and the next read
/// moves or refills the window, so an event lives only until the next call. An `Iterator`'s items
/// must outlive the next `next()`, so the reader is a *lending* one: [`ChunkedReader::next_event`]
/// in a `while let` loop, or [`ChunkedReader::try_for_each_event`] (and the one-pass
/// [`ChunkedReader::try_for_each_parsed`]) with a closure. To keep events past the next read,
/// read the whole stream with [`decompress`](crate::decompress) and walk it as a
/// [`Stream`](crate::Stream), whose [`Events`](crate::Events) is an `Iterator`.
///
/// ```
/// use tracecap_apitrace::{decompress, ChunkedReader, EventKind, FixedSigTable, SliceSource};
///
/// # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
/// // Any byte source: here a decompressed stream handed out 16 bytes at a time.
/// let stream = decompress(&file)?.data;
/// let mut reader = ChunkedReader::new(SliceSource::new(&stream, 16), FixedSigTable::<16>::new());
/// assert_eq!(reader.header()?.version, 6);
/// let mut enters = 0;
/// reader.try_for_each_event::<tracecap_apitrace::Error, _>(|event| {
///     enters += u32::from(event.kind == EventKind::Enter);
///     Ok(())
/// })?;
/// assert_eq!(enters, 2);
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
pub struct ChunkedReader<S, T = SigTable> {
    src: S,
    core: Core<T>,
}

/// The state of a chunked read apart from its source: the window, the parse state, the table.
/// [`ChunkedReader`] pairs it with the source it owns; the push parser (`crate::push`) with a
/// source over the bytes of each call.
pub(crate) struct Core<T> {
    /// The unread tail of the stream decompressed so far (and the read bytes before it).
    pub(crate) window: Vec<u8>,
    /// Stream offset of `window[0]`.
    pub(crate) base: u64,
    /// Where the unread tail starts in `window`.
    pub(crate) pos: usize,
    pub(crate) header: Option<OwnedHeader>,
    pub(crate) state: State,
    pub(crate) table: T,
    /// The source has ended (or failed: `fault`).
    pub(crate) eof: bool,
    pub(crate) fault: Option<Error>,
    /// An error was returned: the walk is over.
    pub(crate) failed: bool,
    pub(crate) limit: usize,
    pub(crate) need_until: u64,
    /// The stream offset the read that failed needs bytes up to (at least one byte past the
    /// window): re-reading before then cannot get further.
    pub(crate) need_min: u64,
    /// The last read stopped because the source is waiting for bytes ([`ByteSource::waiting`]).
    pub(crate) waiting: bool,
}

impl<S: ByteSource, T: SigLookup> ChunkedReader<S, T> {
    /// A reader pulling pieces from `src`, defining signatures into `table`.
    pub fn new(src: S, table: T) -> Self {
        ChunkedReader {
            src,
            core: Core::new(table),
        }
    }

    /// Sets the largest window (bytes); an event larger than this is an error. Above
    /// [`DEFAULT_WINDOW_LIMIT`], a [`ContainerSource`](crate::ContainerSource) should keep the
    /// starts of its pieces for at least the limit plus
    /// [`MAX_SNAPPY_CHUNK`](crate::MAX_SNAPPY_CHUNK) stream bytes
    /// ([`ContainerSource::with_offset_window`](crate::ContainerSource::with_offset_window)), so
    /// that a fault in such a large event still names its piece.
    pub fn with_window_limit(mut self, limit: usize) -> Self {
        self.core.limit = limit.max(1);
        self
    }

    /// The source the pieces come from: for a [`ContainerSource`](crate::ContainerSource),
    /// where they come from in the file ([`ContainerSource::offsets`](crate::ContainerSource::offsets)),
    /// to map the stream offset of a fault, or of the event just read, back to the file. The
    /// reader releases the bytes before its unread tail each time it asks for more
    /// ([`ByteSource::release`]), so the source keeps the pieces of its window only.
    pub fn source(&self) -> &S {
        &self.src
    }

    /// The source, given back (the reader is done with).
    pub(crate) fn into_source(self) -> S {
        self.src
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

    /// The header, reading it first if needed. With a source that is waiting for bytes
    /// ([`ByteSource::waiting`]) before the header is whole, an error that does not end the
    /// walk: a later call reads on.
    pub fn header(&mut self) -> Result<&OwnedHeader, Error> {
        self.core.waiting = false;
        let whole = self.core.read_header(&mut self.src)?;
        match &self.core.header {
            Some(h) if whole => Ok(h),
            _ => Err(Error::new(ErrorKind::NotATrace("no header"), 0)),
        }
    }

    /// Reads the next event into the window and says where it lies.
    #[inline]
    fn next_parts(&mut self) -> Option<Result<Parts, Error>> {
        self.core.next_parts(&mut self.src)
    }

    /// The event `parts` describes, over the window.
    #[inline]
    fn event_at(&self, parts: &Parts) -> Event<'_> {
        self.core.event_at(parts)
    }

    /// The next event and the table to resolve it with; `None` at the end. After an error,
    /// always `None`. A damaged or cut container is reported after the last whole event.
    #[allow(clippy::type_complexity)]
    pub fn next_event(&mut self) -> Option<Result<(Event<'_>, &T), Error>> {
        let parts = match self.next_parts()? {
            Ok(parts) => parts,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok((self.event_at(&parts), &self.core.table)))
    }

    /// Gives every remaining event to `f`, in stream order; stops at the first error (the
    /// stream's, or one `f` returns) and returns it. The same events as
    /// [`ChunkedReader::next_event`] in a loop.
    #[inline]
    pub fn try_for_each_event<E, F>(&mut self, mut f: F) -> Result<(), E>
    where
        E: From<Error>,
        F: FnMut(Event<'_>) -> Result<(), E>,
    {
        while let Some(next) = self.next_event() {
            f(next?.0)?;
        }
        Ok(())
    }

    /// The next event read in one pass (see [`Parsed`]), handed to `f`; `None` at the end.
    /// The same events, details and errors as [`ChunkedReader::next_event`].
    #[inline]
    pub fn next_parsed_with<R>(
        &mut self,
        f: impl FnOnce(Parsed<'_, '_, T>) -> R,
    ) -> Option<Result<R, Error>> {
        if !self.core.failed && self.core.header.is_some() {
            // An event wholly inside the window, of the shapes the fast path reads.
            let rest = self.core.window.get(self.core.pos..).unwrap_or(&[]);
            let mut c = Cur::new(rest, self.core.base.saturating_add(self.core.pos as u64));
            let mut kept = DetailBuf::new();
            let version = version_byte(self.core.state.version);
            if let Some(event) = read_kept(
                &mut c,
                &mut self.core.state,
                &self.core.table,
                version,
                &mut kept,
            ) {
                self.core.pos = self.core.pos.saturating_add(c.pos());
                return Some(Ok(f(Parsed::new(event, &kept, &self.core.table))));
            }
        }
        // Everything else (more bytes needed, definitions, errors): the general path, with the
        // details read again on demand.
        let parts = match self.next_parts()? {
            Ok(parts) => parts,
            Err(e) => return Some(Err(e)),
        };
        let kept = DetailBuf::not_kept();
        Some(Ok(f(Parsed::new(
            self.event_at(&parts),
            &kept,
            &self.core.table,
        ))))
    }

    /// Gives every remaining event, read in one pass, to `f`, in stream order; stops at the first
    /// error (the stream's, or one `f` returns) and returns it. The same events, details and
    /// errors as calling [`ChunkedReader::next_parsed_with`] in a loop, faster: the events of a
    /// window share one detail buffer instead of setting one up each. After an error `f`
    /// returned, a new call goes on with the next event (a caller can stop the walk to do
    /// something else with the reader, such as asking its source how far it is).
    #[inline]
    pub fn try_for_each_parsed(
        &mut self,
        mut f: impl FnMut(Parsed<'_, '_, T>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        // The event the general path read last (definitions, events across the window's end).
        let mut pending: Option<Parts> = None;
        loop {
            if self.core.header.is_some() || pending.is_some() {
                let window = self.core.window.as_slice();
                let mut kept = DetailBuf::new();
                // One cursor over the window for all its events: making one at `self.core.pos` for
                // each event costs a dozen instructions (an event costs about a hundred).
                let mut c = Cur::new(window, self.core.base);
                c.pos = self.core.pos;
                let version = version_byte(self.core.state.version);
                // One call site for `f`, so that it can be inlined.
                loop {
                    let event = match pending.take() {
                        Some(parts) => {
                            kept.clear();
                            kept.complete = false;
                            parts.event(window, self.core.base, self.core.state.version)
                        }
                        None if self.core.failed => break,
                        None => {
                            let (state, table) = (&mut self.core.state, &self.core.table);
                            let read = read_kept(&mut c, state, table, version, &mut kept);
                            let Some(event) = read else { break };
                            self.core.pos = c.pos;
                            event
                        }
                    };
                    f(Parsed::new(event, &kept, &self.core.table))?;
                }
            }
            match self.next_parts() {
                None => return Ok(()),
                Some(Err(e)) => return Err(e),
                Some(Ok(parts)) => pending = Some(parts),
            }
        }
    }
}

impl<T: SigLookup> ChunkedReader<ContainerSource<'_>, T> {
    /// Like [`ChunkedReader::next_event`], with the file offset of the snappy chunk or zstd
    /// frame holding the event's first byte (`None` for gzip and brotli, one compressed stream
    /// from the start of the file), as [`Decompressed::chunk_offset`](crate::Decompressed::chunk_offset)
    /// gives it for the whole file: known while the event is read, its piece under the window.
    #[allow(clippy::type_complexity)]
    pub fn next_located(&mut self) -> Option<Result<(Event<'_>, &T, Option<u64>), Error>> {
        let parts = match self.next_parts()? {
            Ok(parts) => parts,
            Err(e) => return Some(Err(e)),
        };
        let chunk = self.src.offsets().chunk_offset(parts.offset);
        Some(Ok((self.event_at(&parts), &self.core.table, chunk)))
    }

    /// The fault `e`, met by this reader, placed in the file: a fault of the stream maps to the
    /// snappy chunk or zstd frame holding it, which is under the window (see
    /// [`OffsetMap::error_offset`](crate::OffsetMap::error_offset)).
    pub fn file_error(&self, e: Error) -> FileError {
        FileError {
            error: e,
            file_offset: self.src.offsets().error_offset(&e),
        }
    }
}

impl<T: SigLookup> Core<T> {
    /// A core with an empty window, defining signatures into `table`.
    pub(crate) fn new(table: T) -> Self {
        Core {
            window: Vec::new(),
            base: 0,
            pos: 0,
            header: None,
            state: State::new(0),
            table,
            eof: false,
            fault: None,
            failed: false,
            limit: DEFAULT_WINDOW_LIMIT,
            need_until: 0,
            need_min: 0,
            waiting: false,
        }
    }

    /// Reads the header if it is not yet read: `Ok(true)` once it is, `Ok(false)` when the
    /// source is waiting for the bytes it needs.
    pub(crate) fn read_header<S: ByteSource + ?Sized>(
        &mut self,
        src: &mut S,
    ) -> Result<bool, Error> {
        loop {
            if self.header.is_some() {
                return Ok(true);
            }
            let rest = self.window.get(self.pos..).unwrap_or(&[]);
            let mut r = Reader::at(rest, self.base.saturating_add(self.pos as u64));
            match Header::parse(&mut r) {
                Ok(h) => {
                    let props = h
                        .properties()
                        .map(|(n, v)| (n.to_vec(), v.to_vec()))
                        .collect();
                    self.header = Some(OwnedHeader {
                        version: h.version,
                        semantic_version: h.semantic_version,
                        properties: props,
                    });
                    self.state = State::new(h.version);
                    self.pos = self.pos.saturating_add(r.position());
                }
                Err(e) if e.is_truncation() && !self.eof => {
                    self.refill(src)?;
                    if self.waiting {
                        return Ok(false);
                    }
                }
                Err(e) => {
                    self.failed = true;
                    return Err(self.fault.take().unwrap_or(e));
                }
            }
        }
    }

    /// Brings more of the stream into the window: pieces until the window reaches
    /// `need_until`, the end of the stream, a fault, or (`waiting`) a source with no bytes yet.
    fn refill<S: ByteSource + ?Sized>(&mut self, src: &mut S) -> Result<(), Error> {
        if self.window.len().saturating_sub(self.pos) >= self.limit {
            self.failed = true;
            return Err(Error::new(
                ErrorKind::WindowLimit(self.limit as u64),
                self.base.saturating_add(self.pos as u64),
            ));
        }
        // The first piece may come with the window handed over (the tail in front of it)...
        let tail_at = self.base.saturating_add(self.pos as u64);
        // ... and nothing before the tail is read again: no fault can lie there.
        src.release(tail_at);
        let max_start = usize::try_from(tail_at).unwrap_or(usize::MAX);
        let first = src.refill(&mut self.window, self.pos, max_start);
        let first = first.map(|(start, n)| {
            self.pos = start.min(self.window.len());
            self.base = tail_at.saturating_sub(self.pos as u64);
            n
        });
        if first.is_err() {
            // The source dropped the read bytes before it failed.
            self.base = tail_at;
            self.pos = 0;
        }
        // ... the next ones (while more bytes are needed) are appended.
        let mut step = Some(first);
        let mut got_any = false;
        loop {
            let got = match step.take() {
                Some(r) => r,
                None => src.fill(&mut self.window),
            };
            match got {
                // No bytes yet. Read on with what came if it can take the read further and the
                // unread tail is short; a longer one waits for `need_until`, as pulling does
                // (re-reading it at every arrival would be quadratic in its size).
                Ok(0) if src.waiting() => {
                    let end = self.base.saturating_add(self.window.len() as u64);
                    let tail = self.window.len().saturating_sub(self.pos);
                    let read_on = got_any && end >= self.need_min && tail <= PROMPT_TAIL;
                    self.waiting = !read_on;
                    return Ok(());
                }
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(_) => {
                    got_any = true;
                    let end = self.base.saturating_add(self.window.len() as u64);
                    if end >= self.need_until {
                        return Ok(());
                    }
                    if self.window.len().saturating_sub(self.pos) >= self.limit {
                        self.failed = true;
                        return Err(Error::new(
                            ErrorKind::WindowLimit(self.limit as u64),
                            self.base.saturating_add(self.pos as u64),
                        ));
                    }
                }
                Err(e) => {
                    self.eof = true;
                    self.fault = Some(e);
                    return Ok(());
                }
            }
        }
    }

    /// Reads the next event into the window and says where it lies.
    /// `None` at the end, after an error, and (with `waiting` set) when the source is waiting
    /// for bytes.
    #[inline]
    pub(crate) fn next_parts<S: ByteSource + ?Sized>(
        &mut self,
        src: &mut S,
    ) -> Option<Result<Parts, Error>> {
        self.waiting = false;
        if self.failed {
            return None;
        }
        if self.header.is_none() {
            match self.read_header(src) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        loop {
            let rest = self.window.get(self.pos..).unwrap_or(&[]);
            let start = self.base.saturating_add(self.pos as u64);
            let mut r = Cur::new(rest, start);
            let parsed = if r.is_empty() {
                Ok(None)
            } else {
                next_event(&mut r, &mut self.state, &mut self.table).map(Some)
            };
            match parsed {
                Ok(Some(ev)) => {
                    let d = ev.details();
                    let details_start = d.offset().saturating_sub(self.base) as usize;
                    let parts = Parts {
                        kind: ev.kind,
                        call_no: ev.call_no,
                        thread: ev.thread,
                        sig: ev.sig,
                        offset: ev.offset,
                        details_start,
                        details_len: d.raw().len(),
                    };
                    self.pos = self.pos.saturating_add(r.pos());
                    break Some(Ok(parts));
                }
                Ok(None) if self.eof => {
                    self.failed = true;
                    return self.fault.take().map(Err);
                }
                Err(e) if e.is_truncation() && !self.eof => {
                    // Wait for at least the bytes the failed read wants, and at least twice the
                    // unparsed tail: an event is then re-parsed O(log size) times, not once per
                    // piece (a big array of small values would be quadratic otherwise).
                    let tail = self.window.len().saturating_sub(self.pos) as u64;
                    let end = self.base.saturating_add(self.window.len() as u64);
                    let mut until = end.saturating_add(tail);
                    if let Some(tracecap_wire::ErrorKind::Truncated { needed, .. }) = e.shared() {
                        let wanted = e.offset.saturating_add(needed.min(1 << 40));
                        until = until.max(wanted);
                    }
                    // A short tail is read again as soon as any byte comes: what the failed read
                    // said it needs may come from a value cut in two (a length whose last bytes
                    // had not come), and no longer holds once they have.
                    let least = end.saturating_add(1);
                    let cap = self.base.saturating_add(self.limit as u64);
                    self.need_until = until.min(cap);
                    self.need_min = least.min(cap);
                    if let Err(e) = self.refill(src) {
                        return Some(Err(e));
                    }
                    if self.waiting {
                        return None;
                    }
                }
                Ok(None) => {
                    self.need_until = 0;
                    self.need_min = 0;
                    if let Err(e) = self.refill(src) {
                        return Some(Err(e));
                    }
                    if self.waiting {
                        return None;
                    }
                }
                Err(e) => {
                    self.failed = true;
                    let e = match self.fault.take() {
                        Some(f) if e.is_truncation() => f,
                        _ => e,
                    };
                    return Some(Err(e));
                }
            }
        }
    }

    /// The event `parts` describes, over the window.
    #[inline]
    pub(crate) fn event_at(&self, parts: &Parts) -> Event<'_> {
        parts.event(&self.window, self.base, self.state.version)
    }
}
