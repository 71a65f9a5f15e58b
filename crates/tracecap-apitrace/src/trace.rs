//! Whole-stream reading: the decompressed stream in one slice, events borrowed from it.

use tracecap_wire::Reader;

use crate::cursor::Cur;
use crate::error::Error;
use crate::event::{next_event_slow, DetailBuf, Event, State};
use crate::header::Header;
use crate::parsed::{read_kept, Parsed};
use crate::read::next_event;
use crate::sig::Table;
use crate::value::version_byte;

/// A decompressed apitrace stream held in memory.
#[derive(Clone, Copy, Debug)]
pub struct Trace<'a> {
    header: Header<'a>,
    events: Cur<'a>,
}

impl<'a> Trace<'a> {
    /// Parses the header of `stream` (the decompressed bytes, offset 0 = the version number).
    pub fn new(stream: &'a [u8]) -> Result<Trace<'a>, Error> {
        let mut r = Reader::new(stream);
        let header = Header::parse(&mut r)?;
        Ok(Trace {
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

    /// The events, in stream order, defining signatures into `table` as they appear.
    pub fn events<T: Table>(&self, table: T) -> Events<'a, T> {
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

/// Iterator over the events of a [`Trace`]; it owns the signature table (see [`Events::table`]).
/// Fused after the first error.
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

impl<'a, T: Table> Events<'a, T> {
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
}

impl<'a, T: Table> Iterator for Events<'a, T> {
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

impl<T: Table> core::iter::FusedIterator for Events<'_, T> {}
