//! One-pass reading: an event handed over with the details its validation read.
//!
//! [`Events::next`](crate::Events) must read an event to its end before yielding it (to find
//! the end, and to define the signatures it introduces); a caller that then walks the details
//! reads them a second time. [`Events::next_parsed`](crate::Events::next_parsed) keeps what the
//! validating pass read, up to [`PARSED_DETAILS`](crate::PARSED_DETAILS) details, so each byte is read once. Events
//! with more details, and the rare events only the precise parser reads (signature definitions,
//! unusual encodings), have their details read again on demand: same results either way.

use core::slice;

use crate::cursor::Cur;
use crate::error::Error;
use crate::event::{Detail, DetailBuf, DetailIter, Event, State};
use crate::fast;
use crate::read::accept;
use crate::sig::SigLookup;

/// Reads the event at `c` when the fast path takes it whole, keeping its details in `kept`
/// (which then holds this event's details only): `c` moves past it and `state` counts it.
/// `None`, with `c` and `state` unchanged and `kept` holding anything, for whatever only the
/// precise parser reads: the caller then marks `kept` incomplete. `version` is the state's, as
/// `version_byte` gives it (worked out once by callers that read many events).
#[inline(always)]
pub(crate) fn read_kept<'a, T: SigLookup + ?Sized>(
    c: &mut Cur<'a>,
    state: &mut State,
    table: &T,
    version: u8,
    kept: &mut DetailBuf<'a>,
) -> Option<Event<'a>> {
    let offset = c.offset();
    let mut next = *c;
    let head = fast::event_parsed(&mut next, state, table, version, kept)?;
    // Only the position moved: storing the whole cursor back costs three stores an event.
    c.pos = next.pos;
    Some(accept(&head, offset, state, version))
}

/// The detail buffer of an event whose details were not kept ([`Parsed::of`]).
static NOT_KEPT: DetailBuf<'static> = DetailBuf::not_kept();

/// An event read by [`Events::next_parsed`](crate::Events::next_parsed), with its details.
pub struct Parsed<'a, 'b, T: ?Sized> {
    /// The event.
    pub event: Event<'a>,
    buf: &'b DetailBuf<'a>,
    table: &'b T,
}

impl<'a, 'b, T: SigLookup + ?Sized> Parsed<'a, 'b, T> {
    pub(crate) fn new(event: Event<'a>, buf: &'b DetailBuf<'a>, table: &'b T) -> Self {
        Parsed { event, buf, table }
    }

    /// An event read with its table (as `PushParser::parse` and `ChunkedReader::next_event`
    /// give them), its details read on demand.
    pub fn of(event: Event<'a>, table: &'b T) -> Self {
        Parsed {
            event,
            buf: &NOT_KEPT,
            table,
        }
    }

    /// The details in stream order: those already read, or read now when they were not kept.
    #[inline]
    pub fn details(&self) -> ParsedDetails<'a, 'b, T> {
        ParsedDetails(if self.buf.complete {
            Source::Kept(self.buf.kept().iter())
        } else {
            Source::Again(self.event.details().iter(self.table))
        })
    }

    /// The details as kept by the validating pass, when all of them were kept (else use
    /// [`Parsed::details`]). Reading them in place is the fastest way through an event.
    #[inline]
    pub fn kept(&self) -> Option<&'b [Detail<'a>]> {
        self.buf.complete.then(|| self.buf.kept())
    }

    /// The signature table as it stands after this event.
    pub fn table(&self) -> &'b T {
        self.table
    }
}

/// Iterator over a [`Parsed`] event's details.
pub struct ParsedDetails<'a, 'b, T: ?Sized>(Source<'a, 'b, T>);

enum Source<'a, 'b, T: ?Sized> {
    Kept(slice::Iter<'b, Detail<'a>>),
    Again(DetailIter<'a, 'b, T>),
}

impl<'a, T: SigLookup + ?Sized> Iterator for ParsedDetails<'a, '_, T> {
    type Item = Result<Detail<'a>, Error>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Source::Kept(it) => it.next().map(|d| Ok(*d)),
            Source::Again(it) => it.next(),
        }
    }
}
