//! Events: ENTER (a call starts) and LEAVE (a call returns), each with its call details.

use tracecap_wire::Reader;

use crate::cursor::{Cur, Span};
use crate::error::{Error, ErrorKind};
use crate::fast;
use crate::sig::{SigKind, Table};
use crate::value::{parse_value, skip_value, Define, Lookup, Resolve, Value};

/// Whether an event starts or ends a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Byte 0x00: a call starts (its input arguments usually follow).
    Enter,
    /// Byte 0x01: a call returns (output arguments and the return value usually follow).
    Leave,
}

/// One event, borrowed from the stream.
#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    /// Enter or leave.
    pub kind: EventKind,
    /// The call number: for an enter, the count of enters before it; for a leave, the number it
    /// names.
    pub call_no: u64,
    /// Thread index (enter of version >= 4; else 0).
    pub thread: u64,
    /// Function signature id (enter only; 0 for a leave).
    pub sig: u64,
    /// Absolute stream offset of the event byte.
    pub offset: u64,
    details: Details<'a>,
}

impl<'a> Event<'a> {
    #[cfg(feature = "std")]
    pub(crate) fn from_parts(
        kind: EventKind,
        call_no: u64,
        thread: u64,
        sig: u64,
        offset: u64,
        body: Span<'a>,
        version: u64,
    ) -> Self {
        Event {
            kind,
            call_no,
            thread,
            sig,
            offset,
            details: Details {
                body,
                version: version_byte(version),
            },
        }
    }

    /// The call details.
    pub fn details(&self) -> Details<'a> {
        self.details
    }
}

/// The details of an event (lazy: iterate with the table the stream was parsed with).
#[derive(Clone, Copy, Debug)]
pub struct Details<'a> {
    pub(crate) body: Span<'a>,
    pub(crate) version: u8,
}

impl<'a> Details<'a> {
    /// Absolute stream offset of the first detail byte.
    pub fn offset(&self) -> u64 {
        self.body.base
    }

    /// The encoded detail bytes (without the 0x00 terminator).
    pub fn raw(&self) -> &'a [u8] {
        self.body.data
    }

    /// Walks the details.
    #[inline]
    pub fn iter<'t, T: Table + ?Sized>(&self, table: &'t T) -> DetailIter<'a, 't, T> {
        DetailIter {
            body: self.body.cur(),
            version: self.version,
            table,
        }
    }
}

/// One call detail.
// The layout is chosen for the reader's hot loop (`match` on details kept by
// `Events::next_parsed`): a plain tag byte, and the value of an argument and of a return value
// at the same place, so that `Arg { value, .. } | Ret(value)` is one test and no select. Without
// it the tag hides in the value's (a niche), which takes half a dozen instructions to decode.
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
pub enum Detail<'a> {
    /// 0x01: argument `index` (into the signature's argument names) has `value`.
    Arg {
        /// Its value (first, to sit where [`Detail::Ret`]'s does).
        value: Value<'a>,
        /// Argument index.
        index: u64,
    },
    /// 0x02: the return value.
    Ret(Value<'a>),
    /// 0x04: a backtrace (version 5+).
    Backtrace(Backtrace<'a>),
    /// 0x05: call flags (version 6+; bit 0 = fake call).
    Flags(u64),
}

/// A backtrace: frame ids (resolve them with the table).
#[derive(Clone, Copy, Debug)]
pub struct Backtrace<'a> {
    pub(crate) count: u64,
    pub(crate) body: Span<'a>,
}

impl<'a> Backtrace<'a> {
    /// Number of frames.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True for an empty backtrace.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The frame ids, innermost first.
    pub fn frames<'t, T: Table + ?Sized>(&self, table: &'t T) -> Frames<'a, 't, T> {
        Frames {
            count: self.count,
            body: self.body.cur(),
            table,
        }
    }
}

/// Iterator over backtrace frame ids.
pub struct Frames<'a, 't, T: ?Sized> {
    count: u64,
    body: Cur<'a>,
    table: &'t T,
}

impl<T: Table + ?Sized> Iterator for Frames<'_, '_, T> {
    type Item = Result<u64, Error>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        let r = Lookup(self.table)
            .resolve(SigKind::Frame, &mut self.body, 0)
            .map(|(id, _)| id);
        if r.is_err() {
            self.count = 0;
        }
        Some(r)
    }
}

/// Iterator over an event's details.
pub struct DetailIter<'a, 't, T: ?Sized> {
    body: Cur<'a>,
    version: u8,
    table: &'t T,
}

impl<'a, T: Table + ?Sized> Iterator for DetailIter<'a, '_, T> {
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

impl<'a, T: Table + ?Sized> DetailIter<'a, '_, T> {
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

/// Parses one detail; `None` at the 0x00 terminator.
#[inline]
pub(crate) fn parse_detail<'a, R: Resolve>(
    r: &mut Cur<'a>,
    res: &mut R,
    version: u64,
) -> Result<Option<Detail<'a>>, Error> {
    let at = r.offset();
    Ok(Some(match r.byte("call detail")? {
        0 => return Ok(None),
        1 => {
            let index = r.uint("argument index")?;
            let value = parse_value(r, res, version, 0)?;
            Detail::Arg { index, value }
        }
        2 => Detail::Ret(parse_value(r, res, version, 0)?),
        4 => Detail::Backtrace(backtrace(r, res, version)?),
        5 => Detail::Flags(r.uint("call flags")?),
        d => return Err(Error::new(ErrorKind::UnknownDetail(d), at)),
    }))
}

/// Reads a backtrace detail's frame ids (defining or looking up each frame).
#[inline(never)]
fn backtrace<'a, R: Resolve>(
    r: &mut Cur<'a>,
    res: &mut R,
    version: u64,
) -> Result<Backtrace<'a>, Error> {
    let count = r.uint("backtrace length")?;
    let start = r.pos();
    let mut i = 0;
    while i < count {
        res.resolve(SigKind::Frame, r, version)?;
        i += 1;
    }
    Ok(Backtrace {
        count,
        body: r.since(start),
    })
}

/// Reads past one detail, validating it; `false` at the 0x00 terminator.
#[inline]
fn skip_detail<R: Resolve>(r: &mut Cur<'_>, res: &mut R, version: u64) -> Result<bool, Error> {
    let at = r.offset();
    match r.byte("call detail")? {
        0 => return Ok(false),
        1 => {
            r.uint("argument index")?;
            skip_value(r, res, version, 0)?;
        }
        2 => skip_value(r, res, version, 0)?,
        4 => {
            backtrace(r, res, version)?;
        }
        5 => {
            r.uint("call flags")?;
        }
        d => return Err(Error::new(ErrorKind::UnknownDetail(d), at)),
    }
    Ok(true)
}

/// Where the event parser is: the stream version and the next call number.
#[derive(Clone, Copy, Debug)]
pub struct State {
    /// Stream version (decides the enum and enter layouts).
    pub version: u64,
    /// Number the next enter gets.
    pub next_call_no: u64,
}

/// The stream version as values and details keep it: a byte (versions past 255 read as 255; the
/// version only decides layouts below 7).
#[inline(always)]
pub(crate) fn version_byte(version: u64) -> u8 {
    version.min(255) as u8
}

impl State {
    /// The state at the first event of a stream of `version`.
    pub const fn new(version: u64) -> Self {
        State {
            version,
            next_call_no: 0,
        }
    }
}

/// Parses the event at `r`: `Ok(None)` when `r` is empty (the normal end of a stream).
///
/// On error, `r` and `state` are unchanged (signatures defined by the failed event stay in the
/// table, and are recognised by their offset when the event is parsed again with more bytes).
pub fn parse_event<'a, T: Table + ?Sized>(
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
pub(crate) fn next_event<'a, T: Table + ?Sized>(
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

/// [`next_event`] for every event: signature definitions, errors, rare shapes.
#[inline(never)]
pub(crate) fn next_event_slow<'a, T: Table + ?Sized>(
    r: &mut Cur<'a>,
    state: &mut State,
    table: &mut T,
) -> Result<Event<'a>, Error> {
    let mut c = *r;
    let offset = c.offset();
    let version = state.version;
    let mut res = Define(table);
    let (kind, call_no, thread, sig) = match c.byte("event")? {
        0 => {
            let thread = if version >= 4 {
                c.uint("thread number")?
            } else {
                0
            };
            let (sig, _) = res.resolve(SigKind::Function, &mut c, version)?;
            (EventKind::Enter, state.next_call_no, thread, sig)
        }
        1 => (EventKind::Leave, c.uint("call number")?, 0, 0),
        b => return Err(Error::new(ErrorKind::UnknownEvent(b), offset)),
    };
    let start = c.pos();
    while skip_detail(&mut c, &mut res, version)? {}
    // The details without their 0x00 terminator.
    let body = c.span(start, c.pos().saturating_sub(1));
    if kind == EventKind::Enter {
        state.next_call_no = state.next_call_no.wrapping_add(1);
    }
    *r = c;
    Ok(Event {
        kind,
        call_no,
        thread,
        sig,
        offset,
        details: Details {
            body,
            version: version_byte(version),
        },
    })
}
