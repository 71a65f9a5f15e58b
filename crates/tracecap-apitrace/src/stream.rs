//! Whole-stream reading: the decompressed stream in one slice, events borrowed from it (no
//! allocation: the entry point for `no_std` users and for streams already decompressed).

use tracecap_wire::Reader;

use crate::cursor::Cur;
use crate::error::Error;
use crate::event::{next_event_slow, DetailBuf, Event, State};
use crate::header::Header;
use crate::parsed::{read_kept, Parsed};
use crate::read::next_event;
use crate::sig::SigLookup;
use crate::value::version_byte;

/// A decompressed apitrace event stream held in memory: the header, then events borrowed from the
/// slice. Reading it allocates nothing (with a [`FixedSigTable`](crate::FixedSigTable)); the
/// whole-file entry point that also handles the container is `Capture` (feature `std`).
#[derive(Clone, Copy, Debug)]
pub struct Stream<'a> {
    header: Header<'a>,
    events: Cur<'a>,
}

impl<'a> Stream<'a> {
    /// Parses the header of `stream` (the decompressed bytes, offset 0 = the version number).
    pub fn parse(stream: &'a [u8]) -> Result<Stream<'a>, Error> {
        let mut r = Reader::new(stream);
        let header = Header::parse(&mut r)?;
        Ok(Stream {
            header,
            events: Cur::new(r.rest(), r.offset()),
        })
    }

    /// The header.
    pub fn header(&self) -> &Header<'a> {
        &self.header
    }

    /// The stream version.
    pub fn version(&self) -> u64 {
        self.header.version
    }

    /// The events, in stream order, with a new [`SigTable`](crate::SigTable) (feature `alloc`)
    /// that holds every signature met so far ([`Events::table`]).
    #[cfg(feature = "alloc")]
    pub fn events(&self) -> Events<'a, crate::SigTable> {
        self.events_with(crate::SigTable::new())
    }

    /// The events, in stream order, defining signatures into `table` as they appear. The
    /// iterator keeps the table and gives it back with [`Events::into_table`]; to keep it
    /// yourself, pass `&mut table`.
    pub fn events_with<T: SigLookup>(&self, table: T) -> Events<'a, T> {
        Events {
            r: self.events,
            state: State::new(self.header.version),
            table,
            failed: false,
            kept: DetailBuf::new(),
            version: version_byte(self.header.version),
        }
    }
}

/// Iterator over the events of a [`Stream`]; it owns the signature table (see [`Events::table`]).
/// Fused after the first error.
///
/// ```
/// use tracecap_apitrace::{decompress, EventKind, FixedSigTable, Stream};
///
/// # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
/// let whole = decompress(&file)?;
/// let stream = Stream::parse(&whole.data)?;
/// let kinds: Vec<EventKind> = stream
///     .events_with(FixedSigTable::<16>::new())
///     .map(|event| event.map(|e| e.kind))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(kinds, [EventKind::Enter, EventKind::Leave, EventKind::Enter, EventKind::Leave]);
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
#[derive(Debug)]
pub struct Events<'a, T> {
    r: Cur<'a>,
    state: State,
    table: T,
    failed: bool,
    /// The details of the last event read by [`Events::next_parsed`].
    kept: DetailBuf<'a>,
    /// The stream version as the values keep it (worked out once, not for every event).
    version: u8,
}

impl<'a, T: SigLookup> Events<'a, T> {
    /// The signature table, holding every signature met so far.
    pub fn table(&self) -> &T {
        &self.table
    }

    /// Gives the table back.
    pub fn into_table(self) -> T {
        self.table
    }

    /// The parser state (next call number).
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The next event with its details, read in one pass (see [`Parsed`]); the same events,
    /// details and errors as [`Iterator::next`] followed by [`Event::details`].
    #[inline(always)]
    pub fn next_parsed(&mut self) -> Option<Result<Parsed<'a, '_, T>, Error>> {
        if self.failed || self.r.is_empty() {
            return None;
        }
        let (state, kept) = (&mut self.state, &mut self.kept);
        let event = match read_kept(&mut self.r, state, &self.table, self.version, kept) {
            Some(event) => event,
            None => {
                self.kept.complete = false;
                match next_event_slow(&mut self.r, &mut self.state, &mut self.table) {
                    Ok(event) => event,
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(e));
                    }
                }
            }
        };
        Some(Ok(Parsed::new(event, &self.kept, &self.table)))
    }

    /// Stream offset of the next event.
    pub fn offset(&self) -> u64 {
        self.r.offset()
    }

    /// Gives every remaining event to `f`, in stream order; stops at the first error (the
    /// stream's, or one `f` returns) and returns it. The same events as iterating. `f`'s error
    /// is the caller's own, any type a crate [`Error`] converts into (the stream's fault is
    /// returned converted), so a caller can stop the walk with a reason of its own.
    #[inline]
    pub fn try_for_each_event<E, F>(&mut self, mut f: F) -> Result<(), E>
    where
        E: From<Error>,
        F: FnMut(Event<'a>) -> Result<(), E>,
    {
        for event in self.by_ref() {
            f(event?)?;
        }
        Ok(())
    }
}

impl<'a, T: SigLookup> Iterator for Events<'a, T> {
    type Item = Result<Event<'a>, Error>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.r.is_empty() {
            return None;
        }
        match next_event(&mut self.r, &mut self.state, &mut self.table) {
            Ok(e) => Some(Ok(e)),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl<T: SigLookup> core::iter::FusedIterator for Events<'_, T> {}
