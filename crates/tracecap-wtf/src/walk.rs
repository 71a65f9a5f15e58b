//! The walker over every event of a file (both containers), which feeds definitions to its
//! wire-id table and tracks the current zone as it goes.
//!
//! Two paths yield the same events. The plain path takes an event whose definition says how to
//! size it (fixed for scalar-only signatures, otherwise measured from the packed argument types)
//! and that needs no action: a bounds check or two, no `Result` per field. Chunked events take it
//! inline in the caller's loop, legacy events in a short step at the top of the general path.
//! The general path takes everything else: the first event of each chunk, definitions, zone
//! changes, long signatures whose size depends on the data, and every error. It starts again from
//! the position where the plain path declined, so errors are found (and placed) by one piece of
//! code.
//!
//! Both paths hand [`Iterator::next`] (and [`Events::try_for_each_event`]) the same small
//! description of the event (its definition by reference), and the event is built in that one
//! place: once inlined into the caller's loop, the compiler keeps its fields in registers and
//! never builds the ones the caller does not read.

use tracecap_wire::{Context, Reader};

use crate::builtin::Builtin;
use crate::chunk::{Chunks, CHUNK_EVENT_DATA, PART_BINARY_EVENTS, PART_STRING_TABLE};
use crate::defs::{Definition, DefinitionLookup, Shape, FLAG_BUILTIN};
use crate::error::{Error, ErrorKind};
use crate::event::{Event, EventHead, MAX_ARGS};
use crate::fast::{chunked_head, split_event, split_legacy_head, split_slots};
use crate::header::{Container, Header};
use crate::signature::{ArgType, Signature};
use crate::strings::StringTable;
use crate::value::{read_value, skip_value, Encoding, Str, Value};

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        }
    };
}

/// `Events::zone` before any `wtf.zone#set`.
pub(crate) const NO_ZONE: u32 = u32::MAX;

/// Where events come from besides the current chunk's buffer.
#[derive(Clone, Debug)]
enum Source<'a> {
    /// The chunks after the current one, and the number of chunks read so far.
    Chunked { chunks: Chunks<'a>, read: u32 },
    /// The rest of a legacy file's body.
    Legacy(Reader<'a>),
}

/// Every event of a file in file order, including built-ins. Fused after the first error.
///
/// The walker owns its wire-id table `T` (see [`Events::table`]): definitions persist across
/// chunks, string tables do not.
///
/// ```
/// use tracecap_wtf::{Capture, FixedDefinitionTable, Value};
///
/// # let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
/// let capture = Capture::parse(&bytes)?;
/// let mut events = capture.events_with(FixedDefinitionTable::<16, 64>::new());
/// let define = events.next().unwrap()?;
/// assert_eq!(define.name(), "wtf.event#define");
/// let tick = events.next().unwrap()?;
/// assert_eq!((tick.name(), tick.arg(0)), ("App#tick", Some(Value::Uint32(7))));
/// assert!(events.next().is_none());
/// # Ok::<(), tracecap_wtf::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Events<'a, T> {
    /// The rest of the current chunk's event buffer (whole 4-byte words; empty for legacy files
    /// and once the walk is over).
    buf: &'a [u8],
    /// Absolute offset of the end of `buf`.
    buf_end: u64,
    /// The current chunk's string table and index.
    strings: StringTable<'a>,
    chunk: u32,
    /// The current zone id, or [`NO_ZONE`] (see [`EventHead`]).
    zone: u32,
    table: T,
    src: Source<'a>,
    /// The event the general path read last, and a copy of its definition (the table may have
    /// changed since: a definition can redefine wire id 1).
    held: Held<'a>,
    held_def: Definition<'a>,
    done: bool,
    /// In a chunk cut by the end of the file: the truncation, and whether its event buffer is
    /// cut too (the error is then placed at the first event not wholly in the file, otherwise at
    /// the end of the file).
    cut: Option<(Error, bool)>,
}

/// What the plain path reads besides the event buffer: where the buffer ends, and the chunk,
/// zone and string table its events get.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkPlace<'a> {
    /// Absolute offset of the end of the event buffer.
    pub(crate) buf_end: u64,
    pub(crate) chunk: u32,
    /// The current zone id, or [`NO_ZONE`].
    pub(crate) zone: u32,
    pub(crate) strings: StringTable<'a>,
}

/// The plain path (see the module comment): the chunked event at the front of `buf` (the rest of
/// an event buffer that `place` describes) when its definition in `table` sizes it and it needs
/// no action, `buf` moved past it; `None`, with nothing consumed, otherwise. The walker and the
/// push parser both read events this way.
#[inline(always)]
pub(crate) fn plain_event<'w, 'a, T: DefinitionLookup<'a>>(
    table: &'w T,
    buf: &mut &'a [u8],
    place: &ChunkPlace<'a>,
) -> Option<Found<'w, 'a>> {
    let lookup = |wire_id| Some((table.get_for_walk(wire_id)?, ()));
    plain_event_by(lookup, buf, place).map(|(found, ())| found)
}

/// [`plain_event`] with the definition of a wire id from `lookup`, which gives with it what the
/// caller wants besides (the push parser: the definition's name and signature, kept apart from
/// its table).
#[inline(always)]
pub(crate) fn plain_event_by<'w, 'a, X>(
    lookup: impl FnOnce(u32) -> Option<(&'w Definition<'a>, X)>,
    buf: &mut &'a [u8],
    place: &ChunkPlace<'a>,
) -> Option<(Found<'w, 'a>, X)> {
    let head = chunked_head(buf)?;
    let (wire_id, time) = (head as u32, (head >> 32) as u32);
    let (def, extra) = lookup(wire_id)?;
    let (args, tail) = split_event(buf, def.shape.plain, |rest| {
        let n = match def.shape.plain {
            n if n < Shape::MEASURE => n as usize,
            Shape::MEASURE => def.shape.chunked_slots(rest)?,
            _ => return None,
        };
        split_slots(rest, u32::try_from(n).ok()?)
    })?;
    let head = EventHead {
        offset: place.buf_end.wrapping_sub(buf.len() as u64),
        chunk: place.chunk,
        wire_id,
        time,
        zone: place.zone,
    };
    *buf = tail;
    let found = Found {
        head,
        def,
        args,
        strings: place.strings,
        enc: Encoding::Chunked,
    };
    Some((found, extra))
}

#[cfg(feature = "alloc")]
/// Where a walk inside one chunk stands, with absolute positions: what the push parser keeps of
/// an [`Events`] between its calls, to make the walker again over the bytes it is given next.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Suspended {
    /// Absolute offsets of the rest of the event buffer.
    pub(crate) buf_start: u64,
    pub(crate) buf_end: u64,
    /// Absolute offset and length of the chunk's string table.
    pub(crate) strings_offset: u64,
    pub(crate) strings_len: usize,
    pub(crate) chunk: u32,
    pub(crate) zone: u32,
    pub(crate) cut: Option<(Error, bool)>,
}

/// An event found by either path, its definition borrowed from the walker.
#[derive(Clone, Copy)]
pub(crate) struct Found<'w, 'a> {
    pub(crate) head: EventHead,
    pub(crate) def: &'w Definition<'a>,
    pub(crate) args: &'a [u8],
    pub(crate) strings: StringTable<'a>,
    pub(crate) enc: Encoding,
}

impl<'a> Found<'_, 'a> {
    #[inline(always)]
    pub(crate) fn event(self) -> Event<'a> {
        Event::new(self.head, *self.def, self.strings, self.args, self.enc)
    }
}

/// What the general path keeps of the event it read (see [`Found`]).
#[derive(Clone, Copy, Debug)]
struct Held<'a> {
    head: EventHead,
    args: &'a [u8],
    strings: StringTable<'a>,
    enc: Encoding,
}

impl<'a, T: DefinitionLookup<'a>> Events<'a, T> {
    /// Walks the events of `data`, whose header is `info`, with the wire-id table `table`.
    pub fn new(data: &'a [u8], info: &Header<'a>, table: T) -> Self {
        let src = match info.container {
            Container::Chunked => Source::Chunked {
                chunks: Chunks::new(data),
                read: 0,
            },
            Container::Legacy => {
                let start = usize::try_from(info.body_offset).unwrap_or(usize::MAX);
                Source::Legacy(Reader::at(
                    data.get(start..).unwrap_or(&[]),
                    info.body_offset,
                ))
            }
        };
        Self::from_source(src, table)
    }

    /// A walk that has read nothing yet, over `src`.
    fn from_source(src: Source<'a>, table: T) -> Self {
        Events {
            buf: &[],
            buf_end: 0,
            strings: StringTable::default(),
            chunk: 0,
            zone: NO_ZONE,
            table,
            src,
            held: Held {
                head: EventHead {
                    offset: 0,
                    chunk: 0,
                    wire_id: 0,
                    time: 0,
                    zone: NO_ZONE,
                },
                args: &[],
                strings: StringTable::default(),
                enc: Encoding::Chunked,
            },
            held_def: Definition::event_define(),
            done: false,
            cut: None,
        }
    }

    #[cfg(feature = "alloc")]
    /// A walk over the chunk at the front of `data` (absolute offset `offset`; `data` ends where
    /// the chunk does, or at the end of the file in a cut chunk), the `read`-th chunk of its file,
    /// with the zone `zone` in force: what the whole-file walk does when it reaches that chunk.
    pub(crate) fn in_chunk(data: &'a [u8], offset: u64, read: u32, zone: u32, table: T) -> Self {
        let src = Source::Chunked {
            chunks: Chunks::at(data, offset),
            read,
        };
        let mut walk = Self::from_source(src, table);
        walk.zone = zone;
        walk
    }

    #[cfg(feature = "alloc")]
    /// The walk that [`Events::suspend`] left, over `data` (absolute offset `base`), which holds
    /// the same chunk bytes.
    pub(crate) fn resume(data: &'a [u8], base: u64, at: &Suspended, table: T) -> Self {
        let slice = |start: u64, len: usize| {
            let start = usize::try_from(start.wrapping_sub(base)).unwrap_or(usize::MAX);
            data.get(start..start.saturating_add(len)).unwrap_or(&[])
        };
        let src = Source::Chunked {
            chunks: Chunks::at(&[], 0),
            read: 0,
        };
        let mut walk = Self::from_source(src, table);
        let len = usize::try_from(at.buf_end.saturating_sub(at.buf_start)).unwrap_or(0);
        walk.buf = slice(at.buf_start, len);
        walk.buf_end = at.buf_end;
        walk.strings = match at.strings_len {
            0 => StringTable::new(&[], at.strings_offset),
            n => StringTable::new(slice(at.strings_offset, n), at.strings_offset),
        };
        walk.chunk = at.chunk;
        walk.zone = at.zone;
        walk.cut = at.cut;
        walk
    }

    #[cfg(feature = "alloc")]
    /// Where this walk inside a chunk stands (see [`Events::resume`]).
    pub(crate) fn suspend(&self) -> Suspended {
        Suspended {
            buf_start: self.buf_end.saturating_sub(self.buf.len() as u64),
            buf_end: self.buf_end,
            strings_offset: self.strings.offset(),
            strings_len: self.strings.bytes().len(),
            chunk: self.chunk,
            zone: self.zone,
            cut: self.cut,
        }
    }

    #[cfg(feature = "alloc")]
    /// A walk over legacy events from the front of `data` (absolute offset `offset`), with the
    /// zone `zone` in force.
    pub(crate) fn legacy_at(data: &'a [u8], offset: u64, zone: u32, table: T) -> Self {
        let mut walk = Self::from_source(Source::Legacy(Reader::at(data, offset)), table);
        walk.zone = zone;
        walk
    }

    #[cfg(feature = "alloc")]
    /// The current zone id, or [`NO_ZONE`].
    pub(crate) fn zone_id(&self) -> u32 {
        self.zone
    }

    #[cfg(feature = "alloc")]
    /// Absolute offset of the next legacy event (0 in chunked walks).
    pub(crate) fn legacy_offset(&self) -> u64 {
        match &self.src {
            Source::Legacy(r) => r.offset(),
            Source::Chunked { .. } => 0,
        }
    }

    /// The wire-id table as filled so far.
    pub fn table(&self) -> &T {
        &self.table
    }

    /// Gives the table back.
    pub fn into_table(self) -> T {
        self.table
    }

    /// The current zone (after the events yielded so far).
    pub fn current_zone(&self) -> Option<u16> {
        u16::try_from(self.zone).ok()
    }

    /// Gives every remaining event to `f`, in file order, as the iterator would yield them;
    /// stops at the first error (the file's, or one `f` returns) and returns it.
    ///
    /// The same walk as iterating, with each event handed straight to `f` (one call site, inlined)
    /// instead of through `Option<Result<Event>>` (docs/performance.md compares the two). `f`'s
    /// error is the caller's own: any type a fault of the capture converts into.
    ///
    /// ```
    /// # fn main() -> Result<(), tracecap_wtf::Error> {
    /// # let bytes = tracecap_wtf::doc_example();
    /// use tracecap_wtf::{FixedDefinitionTable, Capture};
    /// let trace = Capture::parse(&bytes)?;
    /// let mut values = 0;
    /// trace
    ///     .events_with(FixedDefinitionTable::<64, 256>::new())
    ///     .try_for_each_event(|event| {
    ///         values += event.values().count();
    ///         Ok::<(), tracecap_wtf::Error>(())
    ///     })?;
    /// assert_eq!(values, 5 + 1); // the definition's five arguments, then `App#tick`'s one
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn try_for_each_event<E, F>(&mut self, mut f: F) -> Result<(), E>
    where
        E: From<Error>,
        F: FnMut(Event<'a>) -> Result<(), E>,
    {
        // The position lives in a local between events and goes back to `self.buf` only around
        // the general path and on the way out. One call site for `f`, so that it is inlined and
        // the event never built in memory. (Going through `self.buf` for every event, as the
        // iterator does, puts a store and a reload of the position on the chain from one event
        // to the next: measured with criterion on a loaded machine, 8-14 % slower on the bench's
        // synthetic trace and 4-10 % on the real-shaped one, for 3 instructions an event fewer.)
        let mut buf = self.buf;
        loop {
            let event = match self.plain(&mut buf) {
                Some(found) => found.event(),
                None => {
                    self.buf = buf;
                    let r = self.general();
                    buf = self.buf;
                    match r {
                        None => return Ok(()),
                        Some(Err(e)) => return Err(e.into()),
                        Some(Ok(())) => {}
                    }
                    self.held().event()
                }
            };
            if let Err(e) = f(event) {
                self.buf = buf;
                return Err(e);
            }
        }
    }

    /// The next event at the front of `buf` (the rest of the current chunk's event buffer) when
    /// the plain path can take it (see the module comment), `buf` moved past it; `None`, with
    /// nothing consumed, otherwise.
    #[inline(always)]
    fn plain(&self, buf: &mut &'a [u8]) -> Option<Found<'_, 'a>> {
        plain_event(
            &self.table,
            buf,
            &ChunkPlace {
                buf_end: self.buf_end,
                chunk: self.chunk,
                zone: self.zone,
                strings: self.strings,
            },
        )
    }

    /// Reads the next event by the general path into `held`; `None` at the end. Ends the walk
    /// after an error.
    #[inline(never)]
    fn general(&mut self) -> Option<Result<(), Error>> {
        if self.done {
            return None;
        }
        if self.legacy_plain() {
            return Some(Ok(()));
        }
        let r = self.step();
        if !matches!(r, Some(Ok(()))) {
            self.done = true;
            self.buf = &[];
        }
        r
    }

    /// Reads the next legacy event into `held` when its definition says how to size it (fixed,
    /// or measured from the packed types) and it needs no action: the legacy files' plain path,
    /// with no `Result` per field. False, with nothing consumed, otherwise: `step` then reads the
    /// event (and finds any error).
    #[inline(always)]
    fn legacy_plain(&mut self) -> bool {
        let Source::Legacy(r) = &mut self.src else {
            return false;
        };
        let Some((wire_id, time, rest)) = split_legacy_head(r.rest()) else {
            return false;
        };
        let Some(def) = self.table.get(wire_id) else {
            return false;
        };
        if def.shape.plain == Shape::GENERAL {
            return false;
        }
        let size = match def.shape.fixed_legacy {
            Shape::VARIABLE => def.shape.legacy_size(rest),
            n => Some(n as usize),
        };
        let Some((args, _)) = size.and_then(|n| rest.split_at_checked(n)) else {
            return false;
        };
        let offset = r.offset();
        if r.skip(6 + args.len()).is_err() {
            return false;
        }
        self.held_def = *def;
        self.held = Held {
            head: EventHead {
                offset,
                chunk: 0,
                wire_id,
                time,
                zone: self.zone,
            },
            args,
            strings: StringTable::default(),
            enc: Encoding::Legacy,
        };
        true
    }

    /// The event the general path read last.
    #[inline(always)]
    fn held(&self) -> Found<'_, 'a> {
        let h = self.held;
        Found {
            head: h.head,
            def: &self.held_def,
            args: h.args,
            strings: h.strings,
            enc: h.enc,
        }
    }

    /// Moves to the next chunk with a non-empty event buffer; `None` at the end of the file.
    fn next_chunk(&mut self) -> Option<Result<(), Error>> {
        let Source::Chunked { chunks, read } = &mut self.src else {
            return None;
        };
        while self.buf.is_empty() {
            if let Some((e, clipped)) = self.cut {
                let at = if clipped {
                    self.buf_end.min(e.offset)
                } else {
                    e.offset
                };
                return Some(Err(Error::new(e.kind, at)));
            }
            let c = tri!(chunks.next()?);
            *read = read.saturating_add(1);
            if c.kind != CHUNK_EVENT_DATA {
                continue;
            }
            let mut events = None;
            let mut table = None;
            for i in 0..c.part_count() {
                let (p, whole) = tri!(c.part_at(i));
                if p.kind == PART_BINARY_EVENTS && events.is_none() {
                    events = Some((p, whole));
                } else if p.kind == PART_STRING_TABLE && table.is_none() {
                    if !whole {
                        return Some(Err(c.parts().nth(i)?.err()?));
                    }
                    table = Some(p);
                }
            }
            if c.is_cut() {
                // The truncation the chunk iterator gives next, placed at the end of the file
                // (see `cut`).
                let e = match chunks.next() {
                    Some(Err(e)) => e,
                    _ => Error::truncated("chunk", c.offset, 0, 0),
                };
                let end = c.end_of_data();
                let clipped = events.is_some_and(|(_, whole)| !whole);
                self.cut = Some((Error::new(e.kind, end), clipped));
            }
            self.chunk = read.saturating_sub(1);
            self.strings = table.map_or(StringTable::default(), |p| {
                StringTable::new(p.data, p.offset)
            });
            if let Some((p, _)) = events {
                let whole = p.data.len() & !3;
                self.buf = p.data.get(..whole).unwrap_or(&[]);
                self.buf_end = p.offset.saturating_add(whole as u64);
            }
        }
        Some(Ok(()))
    }

    fn step(&mut self) -> Option<Result<(), Error>> {
        let (mut r, enc, strings) = match &self.src {
            Source::Legacy(r) => {
                if r.is_empty() {
                    return None;
                }
                (*r, Encoding::Legacy, StringTable::default())
            }
            Source::Chunked { .. } => {
                tri!(self.next_chunk()?);
                let start = self.buf_end.saturating_sub(self.buf.len() as u64);
                (Reader::at(self.buf, start), Encoding::Chunked, self.strings)
            }
        };
        let at = r.offset();
        if let Err(e) = self.read_event(&mut r, enc, strings) {
            return Some(Err(match self.cut {
                // An event that the end of the file cuts short.
                Some((cut, true)) if e.is_truncation() => Error::new(cut.kind, at),
                _ => e,
            }));
        }
        match &mut self.src {
            Source::Legacy(lr) => *lr = r,
            Source::Chunked { .. } => self.buf = r.rest(),
        }
        let def = self.held_def;
        if def.flags & FLAG_BUILTIN != 0 {
            match def.builtin() {
                Some(Builtin::EventDefine) => {
                    let vals = tri!(self.held_values::<5>());
                    tri!(self.define(&self.held().event(), vals));
                }
                Some(Builtin::ZoneSet) => {
                    // As `Event::zone_arg`: the first value, when it decodes.
                    let first = self.held_values::<1>().ok().and_then(|[v]| v);
                    let zone = first.and_then(|v| v.as_u32()).map(|z| z as u16);
                    self.zone = zone.map_or(NO_ZONE, u32::from);
                }
                _ => {}
            }
        }
        Some(Ok(()))
    }

    /// Reads one event at `r` into `held`: header, definition, and arguments sized against the
    /// definition.
    fn read_event(
        &mut self,
        r: &mut Reader<'a>,
        enc: Encoding,
        strings: StringTable<'a>,
    ) -> Result<(), Error> {
        let offset = r.offset();
        let (wire_id, time) = match enc {
            Encoding::Chunked => (r.u32_le(), r.u32_le()),
            Encoding::Legacy => (r.u16_be().map(u32::from), r.u32_be()),
        };
        let what = |e| Error::from(e).what("event header");
        let (wire_id, time) = (wire_id.map_err(what)?, time.map_err(what)?);
        let Some((def, types)) = self.table.lookup(wire_id) else {
            return Err(Error::new(ErrorKind::UndefinedEvent(wire_id), offset));
        };
        let data_offset = r.offset();
        let fixed = match enc {
            Encoding::Chunked => def.shape.fixed_chunked,
            Encoding::Legacy => def.shape.fixed_legacy,
        };
        let args = if fixed != Shape::VARIABLE {
            r.bytes(fixed as usize).what("event argument")?
        } else {
            let start = *r;
            for &ty in types {
                skip_value(ty, r, enc)?;
            }
            let len = r.offset().saturating_sub(data_offset) as usize;
            start.rest().get(..len).unwrap_or(&[])
        };
        let head = EventHead {
            offset,
            chunk: match enc {
                Encoding::Chunked => self.chunk,
                Encoding::Legacy => 0,
            },
            wire_id,
            time,
            zone: self.zone,
        };
        self.held_def = *def;
        self.held = Held {
            head,
            args,
            strings,
            enc,
        };
        Ok(())
    }

    /// The first `N` argument values of the event the general path read last (fewer when its
    /// definition has fewer), decoded with the argument types its definition has in the table:
    /// the values `Event::args` gives, without reading the signature text again (a table may
    /// keep its definitions' text elsewhere, as the push parser's does).
    fn held_values<const N: usize>(&self) -> Result<[Option<Value<'a>>; N], Error> {
        let mut vals: [Option<Value<'a>>; N] = [None; N];
        let held = self.held;
        let Some((_, types)) = self.table.lookup(held.head.wire_id) else {
            return Ok(vals);
        };
        let header = match held.enc {
            Encoding::Chunked => 8,
            Encoding::Legacy => 6,
        };
        let mut r = Reader::at(held.args, held.head.offset.saturating_add(header));
        for (slot, &ty) in vals.iter_mut().zip(types) {
            *slot = Some(read_value(ty, &mut r, held.enc)?);
        }
        Ok(vals)
    }

    /// Adds the definition that `ev` (a `wtf.event#define`, whose first five values are `vals`)
    /// makes.
    fn define(&mut self, ev: &Event<'a>, vals: [Option<Value<'a>>; 5]) -> Result<(), Error> {
        let num = |v: Option<Value<'a>>| v.and_then(|v| v.as_u32()).unwrap_or(0);
        let text = |v: Option<Value<'a>>| -> Result<&'a str, Error> {
            let s = match v {
                Some(Value::Ascii(s) | Value::Utf8(s) | Value::Any(s)) => s,
                _ => return Ok(""),
            };
            if let Str::Ordinal(n) = s {
                if ev.strings.resolve(n).is_none() {
                    return Err(Error::new(ErrorKind::BadStringOrdinal(n), ev.args_offset()));
                }
            }
            let bytes = ev.resolve(s).unwrap_or(&[]);
            core::str::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidUtf8, ev.offset))
        };
        let [w, c, f, n, a] = vals;
        if num(w) as u16 == 0 {
            return Err(Error::new(ErrorKind::DefinesWireIdZero, ev.offset));
        }
        let name = text(n)?;
        let signature = text(a)?;
        let mut types = [ArgType::Bool; MAX_ARGS];
        let mut count = 0usize;
        for decl in Signature::new(signature) {
            let decl = decl.map_err(|k| Error::new(k, ev.offset))?;
            let slot = types
                .get_mut(count)
                .ok_or(Error::new(ErrorKind::TooManyArgs(MAX_ARGS), ev.offset))?;
            *slot = decl.ty;
            count += 1;
        }
        let types = types.get(..count).unwrap_or(&[]);
        let def = Definition::new(num(w) as u16, num(c) as u16, num(f), name, signature, types);
        self.table
            .insert(def, types)
            .map_err(|k| Error::new(k, ev.offset))
    }
}

impl<'a, T: DefinitionLookup<'a>> Iterator for Events<'a, T> {
    type Item = Result<Event<'a>, Error>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        // One place builds the event, from either path: the compiler can then keep its fields
        // in registers and drop those the caller never reads.
        let mut buf = self.buf;
        let (found, plain) = match self.plain(&mut buf) {
            Some(found) => (found, true),
            None => match self.general()? {
                Ok(()) => (self.held(), false),
                Err(e) => return Some(Err(e)),
            },
        };
        let event = found.event();
        if plain {
            self.buf = buf;
        }
        Some(Ok(event))
    }
}

impl<'a, T: DefinitionLookup<'a>> core::iter::FusedIterator for Events<'a, T> {}
