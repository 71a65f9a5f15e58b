//! Events: the walker over every event of a file (both containers), which feeds definitions to
//! its wire-id table and tracks the current zone as it goes.

use tracecap_wire::Reader;

use crate::chunk::{Chunks, CHUNK_EVENT_DATA, PART_BINARY_EVENTS, PART_STRING_TABLE};
use crate::defs::{Builtin, Definition, DefinitionStore, Shape, FLAG_BUILTIN};
use crate::error::{Error, ErrorKind};
use crate::header::{Container, FileInfo};
use crate::signature::{ArgType, Signature};
use crate::strings::StringTable;
use crate::value::{chunked_value, read_value, skip_value, Args, Encoding, Str, Value};

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        }
    };
}

/// Most arguments a definition may declare (the walker parses signatures into a stack buffer).
pub const MAX_ARGS: usize = 64;

/// One event, borrowed from the file.
#[derive(Clone, Copy, Debug)]
#[repr(C)] // word-sized fields first: events are built and moved at a high rate
pub struct Event<'a> {
    /// Absolute offset of the event's first byte.
    pub offset: u64,
    /// The event's definition (name, class, flags, signature).
    pub def: Definition<'a>,
    /// The chunk's string table (empty for legacy files).
    pub strings: StringTable<'a>,
    data: &'a [u8],
    data_offset: u64,
    /// Index of the chunk holding the event (0 for legacy files).
    pub chunk: u32,
    /// Wire id.
    pub wire_id: u32,
    /// Time in microseconds since the file's time base (wraps at 2^32).
    pub time: u32,
    /// Zone id set by the last `wtf.zone#set` before this event (`None` before any).
    pub zone: Option<u16>,
    enc: Encoding,
}

impl<'a> Event<'a> {
    /// Event name as defined.
    pub fn name(&self) -> &'a str {
        self.def.name
    }

    /// Event flags.
    pub fn flags(&self) -> u32 {
        self.def.flags
    }

    /// The built-in event this is, if any.
    pub fn builtin(&self) -> Option<Builtin> {
        self.def.builtin()
    }

    /// The raw argument bytes.
    pub fn arg_bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The arguments, decoded lazily in signature order.
    pub fn args(&self) -> Args<'a> {
        Args::new(
            Signature::new(self.def.signature),
            Reader::at(self.data, self.data_offset),
            self.enc,
        )
    }

    /// The argument values without their names, decoded lazily: faster than [`Event::args`],
    /// which re-reads the names from the signature text (take names once from
    /// [`Signature::new`]`(event.def.signature)` when walking many events).
    pub fn values(&self) -> Values<'a> {
        Values {
            shape: self.def.shape,
            sig: if self.def.shape.complete() {
                None
            } else {
                Some(Signature::new(self.def.signature))
            },
            index: 0,
            r: Reader::at(self.data, self.data_offset),
            enc: self.enc,
            done: false,
        }
    }

    /// Argument `index` (in signature order).
    pub fn arg(&self, index: usize) -> Option<Value<'a>> {
        self.values().nth(index)
    }

    /// Resolves a string argument against this event's chunk string table.
    pub fn resolve(&self, s: Str<'a>) -> Option<&'a [u8]> {
        s.resolve(&self.strings)
    }

    fn arg_str(&self, index: usize) -> Option<&'a [u8]> {
        match self.arg(index)? {
            Value::Ascii(s) | Value::Utf8(s) | Value::Any(s) => self.resolve(s),
            _ => None,
        }
    }

    /// For `wtf.zone#create`: the zone it creates.
    pub fn zone_create(&self) -> Option<ZoneInfo<'a>> {
        if self.def.builtin() != Some(Builtin::ZoneCreate) {
            return None;
        }
        Some(ZoneInfo {
            id: self.arg(0)?.as_u32()? as u16,
            name: self.arg_str(1),
            kind: self.arg_str(2),
            location: self.arg_str(3),
        })
    }

    /// For `wtf.zone#set` and `wtf.zone#delete`: the zone id.
    pub fn zone_arg(&self) -> Option<u16> {
        match self.def.builtin() {
            Some(Builtin::ZoneSet | Builtin::ZoneDelete) => Some(self.arg(0)?.as_u32()? as u16),
            _ => None,
        }
    }
}

/// The argument values of an event (see [`Event::values`]). The walker checked the argument bytes
/// against the definition before yielding the event, so values cannot fail to decode; the
/// iterator simply ends if they ever did.
#[derive(Clone, Debug)]
pub struct Values<'a> {
    shape: Shape,
    sig: Option<Signature<'a>>,
    index: usize,
    r: Reader<'a>,
    enc: Encoding,
    done: bool,
}

impl<'a> Iterator for Values<'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        if self.done {
            return None;
        }
        let ty = match &mut self.sig {
            None => self.shape.get(self.index),
            Some(sig) => sig.next().and_then(Result::ok).map(|d| d.ty),
        };
        let v = ty.and_then(|ty| match self.enc {
            Encoding::Chunked => chunked_value(ty, &mut self.r),
            Encoding::Legacy => read_value(ty, &mut self.r, self.enc).ok(),
        });
        match v {
            Some(v) => {
                self.index += 1;
                Some(v)
            }
            None => {
                self.done = true;
                None
            }
        }
    }
}

impl core::iter::FusedIterator for Values<'_> {}

/// A zone as `wtf.zone#create` declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneInfo<'a> {
    /// File-local zone id.
    pub id: u16,
    /// Name (`None` when null).
    pub name: Option<&'a [u8]>,
    /// Zone type (`script`, `native_script`, ..., `None` when null).
    pub kind: Option<&'a [u8]>,
    /// Location (`None` when null).
    pub location: Option<&'a [u8]>,
}

#[derive(Clone, Debug)]
enum Source<'a> {
    Chunked {
        chunks: Chunks<'a>,
        chunk_index: u32,
        buffer: Reader<'a>,
        strings: StringTable<'a>,
    },
    Legacy(Reader<'a>),
}

/// Every event of a file in file order, including built-ins. Fused after the first error.
///
/// The walker owns its wire-id table `T` (see [`Events::table`]): definitions persist across
/// chunks, string tables do not.
#[derive(Clone, Debug)]
pub struct Events<'a, T> {
    src: Source<'a>,
    table: T,
    zone: Option<u16>,
    done: bool,
}

impl<'a, T: DefinitionStore<'a>> Events<'a, T> {
    /// Walks the events of `data`, whose header is `info`, with the wire-id table `table`.
    pub fn new(data: &'a [u8], info: &FileInfo<'a>, table: T) -> Self {
        let src = match info.container {
            Container::Chunked => Source::Chunked {
                chunks: Chunks::new(data),
                chunk_index: 0,
                buffer: Reader::at(&[], 0),
                strings: StringTable::default(),
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
            src,
            table,
            zone: None,
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
        self.zone
    }

    #[inline(always)]
    fn step(&mut self) -> Option<Result<Event<'a>, Error>> {
        let (r, strings, chunk, enc) = match &mut self.src {
            Source::Legacy(r) => {
                if r.is_empty() {
                    return None;
                }
                (r, StringTable::default(), 0, Encoding::Legacy)
            }
            Source::Chunked {
                chunks,
                chunk_index,
                buffer,
                strings,
            } => {
                while buffer.is_empty() {
                    let c = tri!(chunks.next()?);
                    *chunk_index = chunk_index.saturating_add(1);
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
                    *strings = table.map_or(StringTable::default(), |p| {
                        StringTable::new(p.data, p.offset)
                    });
                    if let Some(p) = events {
                        let whole = p.data.len() & !3;
                        *buffer = Reader::at(p.data.get(..whole).unwrap_or(&[]), p.offset);
                    }
                }
                (
                    buffer,
                    *strings,
                    chunk_index.saturating_sub(1),
                    Encoding::Chunked,
                )
            }
        };
        let offset = r.offset();
        let (wire_id, time) = match enc {
            Encoding::Chunked => (r.u32_le(), r.u32_le()),
            Encoding::Legacy => (r.u16_be().map(u32::from), r.u32_be()),
        };
        let (wire_id, time) = (
            tri!(wire_id.map_err(|e| Error::from(e).what("event header"))),
            tri!(time.map_err(|e| Error::from(e).what("event header"))),
        );
        let Some((def, types)) = self.table.lookup(wire_id) else {
            return Some(Err(Error::new(ErrorKind::UndefinedEvent(wire_id), offset)));
        };
        let def = *def;
        let data_offset = r.offset();
        let fixed = match enc {
            Encoding::Chunked => def.shape.fixed_chunked,
            Encoding::Legacy => def.shape.fixed_legacy,
        };
        let data = match (fixed != Shape::VARIABLE).then_some(fixed) {
            Some(n) => tri!(r
                .bytes(n as usize)
                .map_err(|e| Error::from(e).what("event argument"))),
            None => {
                let start = *r;
                for &ty in types {
                    tri!(skip_value(ty, r, enc));
                }
                let len = r.offset().saturating_sub(data_offset) as usize;
                start.rest().get(..len).unwrap_or(&[])
            }
        };
        let event = Event {
            offset,
            chunk,
            wire_id,
            time,
            zone: self.zone,
            def,
            strings,
            data,
            data_offset,
            enc,
        };
        if def.flags & FLAG_BUILTIN != 0 {
            match def.builtin() {
                Some(Builtin::EventDefine) => tri!(self.define(&event)),
                Some(Builtin::ZoneSet) => self.zone = event.zone_arg(),
                _ => {}
            }
        }
        Some(Ok(event))
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
                    return Err(Error::new(ErrorKind::BadStringOrdinal(n), ev.data_offset));
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
        self.table
            .insert(def, types)
            .map_err(|k| Error::new(k, ev.offset))
    }
}

impl<'a, T: DefinitionStore<'a>> Iterator for Events<'a, T> {
    type Item = Result<Event<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.step();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

impl<'a, T: DefinitionStore<'a>> core::iter::FusedIterator for Events<'a, T> {}
