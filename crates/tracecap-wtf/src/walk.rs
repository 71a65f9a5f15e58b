//! The walker over every event of a file (both containers), which feeds definitions to its
//! wire-id table and tracks the current zone as it goes.
//!
//! Two paths yield the same events. The plain path takes a chunked event whose argument size the
//! walker already knows for its wire id ([`Sizes`]: fixed for scalar-only definitions, measured
//! from the counts for arrays) and that needs no action: a bounds check or two, no `Result` per
//! field. The general path takes everything else: the first event of each wire id, the first
//! event of each chunk, legacy files, definitions, zone changes, long signatures and every error.
//! It starts again from the position where the plain path declined, so errors are found (and
//! placed) by one piece of code.
//!
//! Both paths hand [`Iterator::next`] the same small description of the event (its definition by
//! reference), and the event is built in that one place: once inlined into the caller's loop, the
//! compiler keeps its fields in registers and never builds the ones the caller does not read.

use tracecap_wire::Reader;

use crate::chunk::{Chunks, CHUNK_EVENT_DATA, PART_BINARY_EVENTS, PART_STRING_TABLE};
use crate::defs::{Builtin, Definition, DefinitionStore, Shape, FLAG_BUILTIN};
use crate::error::{Error, ErrorKind};
use crate::event::{Event, EventHead, MAX_ARGS};
use crate::header::{Container, FileInfo};
use crate::signature::{ArgType, Signature};
use crate::sizes::Sizes;
use crate::strings::StringTable;
use crate::value::{skip_value, Encoding, Str, Value};

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        }
    };
}

/// `Events::zone` before any `wtf.zone#set`.
const NO_ZONE: u32 = u32::MAX;

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
    /// Argument sizes per wire id, as the table defines them.
    sizes: Sizes,
    src: Source<'a>,
    /// The event the general path read last, and a copy of its definition (the table may have
    /// changed since: a definition can redefine wire id 1).
    held: Held<'a>,
    held_def: Definition<'a>,
    done: bool,
}

/// An event found by either path, its definition borrowed from the walker.
#[derive(Clone, Copy)]
struct Found<'w, 'a> {
    head: EventHead,
    def: &'w Definition<'a>,
    args: &'a [u8],
    strings: StringTable<'a>,
    enc: Encoding,
}

impl<'a> Found<'_, 'a> {
    #[inline(always)]
    fn event(self) -> Event<'a> {
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

impl<'a, T: DefinitionStore<'a>> Events<'a, T> {
    /// Walks the events of `data`, whose header is `info`, with the wire-id table `table`.
    pub fn new(data: &'a [u8], info: &FileInfo<'a>, table: T) -> Self {
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
        Events {
            buf: &[],
            buf_end: 0,
            strings: StringTable::default(),
            chunk: 0,
            zone: NO_ZONE,
            table,
            sizes: Sizes::new(),
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

    /// The next event when the plain path can take it (see the module comment); `None`, with
    /// nothing consumed, otherwise.
    #[inline(always)]
    fn plain(&mut self) -> Option<Found<'_, 'a>> {
        let (&head, rest) = self.buf.split_first_chunk::<8>()?;
        let head = u64::from_le_bytes(head);
        let (wire_id, time) = (head as u32, (head >> 32) as u32);
        let code = self.sizes.code(wire_id);
        let def = self.table.get(wire_id)?;
        let size = if code < Sizes::MEASURE {
            code as usize
        } else if code == Sizes::MEASURE {
            def.shape.chunked_size(rest)?
        } else {
            return None;
        };
        let (args, tail) = rest.split_at_checked(size)?;
        let head = EventHead {
            offset: self.buf_end.wrapping_sub(self.buf.len() as u64),
            chunk: self.chunk,
            wire_id,
            time,
            zone: self.zone,
        };
        self.buf = tail;
        Some(Found {
            head,
            def,
            args,
            strings: self.strings,
            enc: Encoding::Chunked,
        })
    }

    /// Reads the next event by the general path into `held`; `None` at the end. Ends the walk
    /// after an error.
    #[inline(never)]
    fn general(&mut self) -> Option<Result<(), Error>> {
        if self.done {
            return None;
        }
        let r = self.step();
        if !matches!(r, Some(Ok(()))) {
            self.done = true;
            self.buf = &[];
        }
        r
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
            let c = tri!(chunks.next()?);
            *read = read.saturating_add(1);
            if c.kind != CHUNK_EVENT_DATA {
                continue;
            }
            let mut events = None;
            let mut table = None;
            for p in c.parts() {
                let p = tri!(p);
                if p.kind == PART_BINARY_EVENTS && events.is_none() {
                    events = Some(p);
                } else if p.kind == PART_STRING_TABLE && table.is_none() {
                    table = Some(p);
                }
            }
            self.chunk = read.saturating_sub(1);
            self.strings = table.map_or(StringTable::default(), |p| {
                StringTable::new(p.data, p.offset)
            });
            if let Some(p) = events {
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
        tri!(self.read_event(&mut r, enc, strings));
        match &mut self.src {
            Source::Legacy(lr) => *lr = r,
            Source::Chunked { .. } => self.buf = r.rest(),
        }
        let def = self.held_def;
        // From the definition this event was read with.
        self.sizes.learn(self.held.head.wire_id, &def);
        if def.flags & FLAG_BUILTIN != 0 {
            match def.builtin() {
                Some(Builtin::EventDefine) => tri!(self.define(&self.held().event())),
                Some(Builtin::ZoneSet) => {
                    let zone = self.held().event().zone_arg();
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
            r.bytes(fixed as usize)
                .map_err(|e| Error::from(e).what("event argument"))?
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

    fn define(&mut self, ev: &Event<'a>) -> Result<(), Error> {
        let mut vals: [Option<Value<'a>>; 5] = [None; 5];
        for (slot, a) in vals.iter_mut().zip(ev.args()) {
            *slot = Some(a?.value);
        }
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
        self.sizes.forget(u32::from(def.wire_id));
        self.table
            .insert(def, types)
            .map_err(|k| Error::new(k, ev.offset))
    }
}

impl<'a, T: DefinitionStore<'a>> Iterator for Events<'a, T> {
    type Item = Result<Event<'a>, Error>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        // One place builds the event, from either path: the compiler can then keep its fields
        // in registers and drop those the caller never reads.
        let found = match self.plain() {
            Some(found) => found,
            None => match self.general()? {
                Ok(()) => self.held(),
                Err(e) => return Some(Err(e)),
            },
        };
        Some(Ok(found.event()))
    }
}

impl<'a, T: DefinitionStore<'a>> core::iter::FusedIterator for Events<'a, T> {}
