//! Events: ENTER (a call starts) and LEAVE (a call returns), each with its call details; and the
//! precise event parser, which reads every shape and names every error. The readers that try the
//! fast path first and fall back to this parser are in `read` (among them the `Iterator` of
//! [`DetailIter`]).

use crate::cursor::{Cur, Span};
use crate::error::{Error, ErrorKind};
use crate::sig::{SigKind, SigLookup};
use crate::value::{parse_value, skip_value, version_byte, Define, Lookup, Resolve, Value};

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
    pub(crate) details: Details<'a>,
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
    pub fn iter<'t, T: SigLookup + ?Sized>(&self, table: &'t T) -> DetailIter<'a, 't, T> {
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

/// How many details an event may have and still be handed over already read. GL calls have
/// at most a dozen arguments; a leave has one detail per output argument plus the return value.
pub const PARSED_DETAILS: usize = 16;

/// The details the validating pass read, in stream order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DetailBuf<'a> {
    /// One slot more than is kept: the fast path writes every detail straight into a slot (no
    /// copy through a temporary), and details past [`PARSED_DETAILS`] all land in the spare
    /// last one, which is never handed out.
    items: [Detail<'a>; PARSED_DETAILS + 1],
    len: usize,
    /// False when some details were not kept (too many, or read by the precise parser).
    pub(crate) complete: bool,
}

impl<'a> DetailBuf<'a> {
    pub(crate) const fn new() -> Self {
        DetailBuf {
            items: [Detail::Flags(0); PARSED_DETAILS + 1],
            len: 0,
            complete: true,
        }
    }

    /// A buffer that kept nothing: the details are read again on demand.
    pub(crate) const fn not_kept() -> Self {
        let mut b = Self::new();
        b.complete = false;
        b
    }

    /// Empties the buffer for the next event.
    #[cfg(feature = "std")]
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.complete = true;
    }

    /// The slot for the detail that comes after `n` others: its own while it can be kept,
    /// else the spare one.
    #[inline(always)]
    pub(crate) fn slot(&mut self, n: usize) -> Option<&mut Detail<'a>> {
        // Always `Some`: the index is at most PARSED_DETAILS.
        self.items.get_mut(n.min(PARSED_DETAILS))
    }

    /// Records that an event had `n` details, written by [`DetailBuf::slot`].
    #[inline(always)]
    pub(crate) fn set_len(&mut self, n: usize) {
        self.len = n.min(PARSED_DETAILS);
        self.complete = n <= PARSED_DETAILS;
    }

    pub(crate) fn kept(&self) -> &[Detail<'a>] {
        self.items.get(..self.len).unwrap_or(&[])
    }
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
    pub fn frames<'t, T: SigLookup + ?Sized>(&self, table: &'t T) -> Frames<'a, 't, T> {
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

impl<T: SigLookup + ?Sized> Iterator for Frames<'_, '_, T> {
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
    pub(crate) body: Cur<'a>,
    pub(crate) version: u8,
    pub(crate) table: &'t T,
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

impl State {
    /// The state at the first event of a stream of `version`.
    pub const fn new(version: u64) -> Self {
        State {
            version,
            next_call_no: 0,
        }
    }
}

/// [`next_event`](crate::read::next_event) for every event: signature definitions, errors, rare shapes.
#[inline(never)]
pub(crate) fn next_event_slow<'a, T: SigLookup + ?Sized>(
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
