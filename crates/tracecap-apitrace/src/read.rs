//! Reading with the fast path first: each event, detail and value is tried by the fast path
//! ([`crate::fast`]) and, when it answers `None`, read again by the precise parser (`event`,
//! `value`), which handles every case and names every error. Same results either way.

use tracecap_wire::Reader;

use crate::cursor::Cur;
use crate::error::Error;
use crate::event::{
    next_event_slow, parse_detail, Detail, DetailIter, Details, Event, EventKind, State,
};
use crate::fast;
use crate::sig::SigLookup;
use crate::value::{parse_value, version_byte, Lookup, Value, Values};

/// Parses the event at `r`: `Ok(None)` when `r` is empty (the normal end of a stream).
///
/// On error, `r` and `state` are unchanged (signatures defined by the failed event stay in the
/// table, and are recognised by their offset when the event is parsed again with more bytes).
pub fn parse_event<'a, T: SigLookup + ?Sized>(
    r: &mut Reader<'a>,
    state: &mut State,
    table: &mut T,
) -> Result<Option<Event<'a>>, Error> {
    let mut c = Cur::new(r.rest(), r.offset());
    if c.is_empty() {
        return Ok(None);
    }
    let ev = next_event(&mut c, state, table)?;
    r.skip(c.pos())?;
    Ok(Some(ev))
}

/// Parses the event at `r` (which must not be empty), validating every detail and defining the
/// signatures it meets; on error, `r` and `state` are unchanged.
#[inline(always)]
pub(crate) fn next_event<'a, T: SigLookup + ?Sized>(
    r: &mut Cur<'a>,
    state: &mut State,
    table: &mut T,
) -> Result<Event<'a>, Error> {
    let mut c = *r;
    let offset = c.offset();
    match fast::event(&mut c, state, &*table) {
        Some(head) => {
            *r = c;
            let version = version_byte(state.version);
            Ok(accept(&head, offset, state, version))
        }
        None => next_event_slow(r, state, table),
    }
}

/// The event a fast path read, counted in `state`; `version` is the state's, as a byte.
#[inline(always)]
pub(crate) fn accept<'a>(
    head: &fast::Head<'a>,
    offset: u64,
    state: &mut State,
    version: u8,
) -> Event<'a> {
    if head.kind == EventKind::Enter {
        state.next_call_no = state.next_call_no.wrapping_add(1);
    }
    Event {
        kind: head.kind,
        call_no: head.call_no,
        thread: head.thread,
        sig: head.sig,
        offset,
        details: Details {
            body: head.body,
            version,
        },
    }
}

impl<'a, T: SigLookup + ?Sized> Iterator for DetailIter<'a, '_, T> {
    type Item = Result<Detail<'a>, Error>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.body.is_empty() {
            return None;
        }
        // A local cursor: the iterator itself may live in memory, the cursor should not.
        let mut body = self.body;
        if let Some(d) = fast::detail(&mut body, self.table, self.version) {
            self.body = body;
            return Some(Ok(d));
        }
        self.next_slow()
    }
}

impl<'a, T: SigLookup + ?Sized> DetailIter<'a, '_, T> {
    #[inline(never)]
    fn next_slow(&mut self) -> Option<Result<Detail<'a>, Error>> {
        let version = u64::from(self.version);
        match parse_detail(&mut self.body, &mut Lookup(self.table), version) {
            Ok(Some(d)) => Some(Ok(d)),
            Ok(None) => {
                self.body = Cur::new(&[], 0);
                None
            }
            Err(e) => {
                self.body = Cur::new(&[], 0);
                Some(Err(e))
            }
        }
    }
}

impl<'a, T: SigLookup + ?Sized> Iterator for Values<'a, '_, T> {
    type Item = Result<Value<'a>, Error>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        let mut body = self.body;
        if let Some(v) = fast::value(&mut body, self.table, self.version) {
            self.body = body;
            return Some(Ok(v));
        }
        let r = parse_value(
            &mut self.body,
            &mut Lookup(self.table),
            u64::from(self.version),
            0,
        );
        if r.is_err() {
            self.count = 0;
        }
        Some(r)
    }
}
