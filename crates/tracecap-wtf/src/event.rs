//! One event, borrowed from the file: its header fields, a copy of its definition, and its
//! argument bytes, decoded only when asked.

use tracecap_wire::Reader;

use crate::builtin::Builtin;
use crate::defs::{Definition, CLASS_SCOPE, FLAG_APPEND_SCOPE_DATA};
use crate::header::Container;
use crate::signature::Signature;
use crate::strings::StringTable;
use crate::value::{Args, Encoding, Str, Value};
use crate::values::Values;

/// Most arguments a definition may declare (the walker parses signatures into a stack buffer).
pub const MAX_ARGS: usize = 64;

/// How an event takes part in a zone's scope structure (see [`Event::scope_role`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeRole {
    /// Opens a scope: `wtf.scope#enter`, or any event of a scope-class definition.
    Enter,
    /// Closes the innermost open scope: `wtf.scope#leave`.
    Leave,
    /// Adds arguments to the innermost open scope: `wtf.scope#appendData`, or an event whose
    /// definition has [`FLAG_APPEND_SCOPE_DATA`](crate::FLAG_APPEND_SCOPE_DATA).
    Append,
    /// Everything else, an instant as far as scopes go: `wtf.trace#timeStamp`, instance-class
    /// events, time ranges, flows, frames and the other built-ins.
    Instance,
}

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
    args: &'a [u8],
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
    /// An event whose argument bytes `args` the walker has checked against `def`.
    #[inline(always)]
    pub(crate) fn new(
        head: EventHead,
        def: Definition<'a>,
        strings: StringTable<'a>,
        args: &'a [u8],
        enc: Encoding,
    ) -> Self {
        Event {
            offset: head.offset,
            def,
            strings,
            args,
            chunk: head.chunk,
            wire_id: head.wire_id,
            time: head.time,
            zone: u16::try_from(head.zone).ok(),
            enc,
        }
    }

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

    /// How the event takes part in its zone's scope structure, as the WTF loader pairs scopes
    /// (what [`timeline::Timeline`][crate::timeline::Timeline] and the conversions build on).
    ///
    #[cfg_attr(
        not(feature = "alloc"),
        doc = "[crate::timeline::Timeline]: crate#features"
    )]
    ///
    /// ```
    /// use tracecap_wtf::{Capture, ScopeRole};
    /// # let bytes = tracecap_wtf::doc_example();
    /// let trace = Capture::parse(&bytes)?;
    /// let mut depth = 0i32;
    /// for event in trace.events() {
    ///     match event?.scope_role() {
    ///         ScopeRole::Enter => depth += 1,
    ///         ScopeRole::Leave => depth -= 1,
    ///         ScopeRole::Append | ScopeRole::Instance => {}
    ///     }
    /// }
    /// assert_eq!(depth, 0);
    /// # Ok::<(), tracecap_wtf::Error>(())
    /// ```
    pub fn scope_role(&self) -> ScopeRole {
        match self.builtin() {
            Some(Builtin::ScopeEnter) => ScopeRole::Enter,
            Some(Builtin::ScopeLeave) => ScopeRole::Leave,
            Some(Builtin::ScopeAppendData) => ScopeRole::Append,
            Some(Builtin::TimeStamp) => ScopeRole::Instance,
            _ if self.def.class == CLASS_SCOPE => ScopeRole::Enter,
            _ if self.flags() & FLAG_APPEND_SCOPE_DATA != 0 => ScopeRole::Append,
            _ => ScopeRole::Instance,
        }
    }

    /// Where the event lies in the file, to read it again with
    /// [`Capture::event_at`](crate::Capture::event_at): a caller that keeps many events keeps
    /// these (and the definitions) rather than the events.
    pub fn place(&self) -> EventPlace {
        EventPlace {
            offset: self.offset,
            args_len: self.args.len() as u64,
            strings_offset: self.strings.offset(),
            // A part's length is a u32.
            strings_len: u32::try_from(self.strings.bytes().len()).unwrap_or(u32::MAX),
            chunk: self.chunk,
        }
    }

    /// The raw argument bytes.
    pub fn arg_bytes(&self) -> &'a [u8] {
        self.args
    }

    /// Absolute offset of the first argument byte.
    pub fn args_offset(&self) -> u64 {
        let header = match self.enc {
            Encoding::Chunked => 8,
            Encoding::Legacy => 6,
        };
        self.offset.saturating_add(header)
    }

    /// The arguments, decoded lazily in signature order.
    pub fn args(&self) -> Args<'a> {
        Args::new(
            Signature::new(self.def.signature),
            Reader::at(self.args, self.args_offset()),
            self.enc,
        )
    }

    /// The argument values without their names, decoded lazily: faster than [`Event::args`],
    /// which re-reads the names from the signature text (take names once from
    /// [`Signature::new`]`(event.def.signature)` when walking many events).
    #[inline]
    pub fn values(&self) -> Values<'a> {
        Values::new(&self.def, self.args, self.enc)
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

/// Where an event and its chunk's string table lie in the file (see [`Event::place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventPlace {
    offset: u64,
    args_len: u64,
    strings_offset: u64,
    strings_len: u32,
    chunk: u32,
}

impl EventPlace {
    /// Absolute offset of the event's first byte.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Absolute offset of the event's chunk's string table (0 when it has none).
    pub fn strings_offset(&self) -> u64 {
        self.strings_offset
    }

    /// The event at this place in `data`, with its definition `def` and zone `zone`; `None` when
    /// the place is not in `data` or the wire id found there is not `def`'s.
    pub(crate) fn event<'a>(
        &self,
        data: &'a [u8],
        enc: Encoding,
        def: Definition<'a>,
        zone: Option<u16>,
    ) -> Option<Event<'a>> {
        let get = |at: u64, len: u64| {
            let at = usize::try_from(at).ok()?;
            data.get(at..at.checked_add(usize::try_from(len).ok()?)?)
        };
        self.read(get, enc, def, zone)
    }

    /// The event at this place read from pieces of the file: `get(offset, len)` gives the `len`
    /// bytes at absolute `offset` when it has them (see [`EventPlace::spans`] for the two it is
    /// asked for). Reads as [`Capture::event_at`](crate::Capture::event_at) reads the whole file;
    /// `None` when `get` has not the bytes or the wire id found there is not `def`'s.
    pub fn event_from<'a>(
        &self,
        get: impl Fn(u64, u64) -> Option<&'a [u8]>,
        container: Container,
        def: Definition<'a>,
        zone: Option<u16>,
    ) -> Option<Event<'a>> {
        self.read(get, Self::encoding(container), def, zone)
    }

    /// Where the bytes [`EventPlace::event_from`] reads lie, as (absolute offset, length): the
    /// event (its header and arguments), and its chunk's string table (length 0 when it has
    /// none).
    pub fn spans(&self, container: Container) -> [(u64, u64); 2] {
        let header = match Self::encoding(container) {
            Encoding::Chunked => 8,
            Encoding::Legacy => 6,
        };
        [
            (self.offset, self.args_len.saturating_add(header)),
            (self.strings_offset, u64::from(self.strings_len)),
        ]
    }

    fn encoding(container: Container) -> Encoding {
        match container {
            Container::Chunked => Encoding::Chunked,
            Container::Legacy => Encoding::Legacy,
        }
    }

    #[inline(always)]
    fn read<'a>(
        &self,
        bytes: impl Fn(u64, u64) -> Option<&'a [u8]>,
        enc: Encoding,
        def: Definition<'a>,
        zone: Option<u16>,
    ) -> Option<Event<'a>> {
        let header = match enc {
            Encoding::Chunked => 8,
            Encoding::Legacy => 6,
        };
        let head = bytes(self.offset, header)?;
        let (wire_id, time) = match enc {
            Encoding::Chunked => (
                u32::from_le_bytes(head.get(0..4)?.try_into().ok()?),
                u32::from_le_bytes(head.get(4..8)?.try_into().ok()?),
            ),
            Encoding::Legacy => (
                u32::from(u16::from_be_bytes(head.get(0..2)?.try_into().ok()?)),
                u32::from_be_bytes(head.get(2..6)?.try_into().ok()?),
            ),
        };
        if wire_id != u32::from(def.wire_id) {
            return None;
        }
        let args = bytes(self.offset.checked_add(header)?, self.args_len)?;
        let table = match self.strings_len {
            // No string table (legacy events): nothing to find in `data`.
            0 => &[][..],
            n => bytes(self.strings_offset, u64::from(n))?,
        };
        let strings = StringTable::new(table, self.strings_offset);
        let head = EventHead {
            offset: self.offset,
            chunk: self.chunk,
            wire_id,
            time,
            zone: zone.map_or(u32::MAX, u32::from),
        };
        Some(Event::new(head, def, strings, args, enc))
    }
}

/// The fields of an event that come from its header and the walker's position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventHead {
    pub(crate) offset: u64,
    pub(crate) chunk: u32,
    pub(crate) wire_id: u32,
    pub(crate) time: u32,
    /// The zone id, or anything above `u16::MAX` for none (a plain number: an `Option` read
    /// back from memory would cost every event a check of its tag).
    pub(crate) zone: u32,
}

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
