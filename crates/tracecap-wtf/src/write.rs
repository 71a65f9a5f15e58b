//! Writing files (feature `write`): [`CaptureModel`], an owned model of a whole capture in either
//! container (chunked format 10 or legacy format 3), written by [`CaptureModel::to_bytes`] and
//! read back by [`CaptureModel::from_bytes`]:
//!
//! ```
//! use tracecap_wtf::write::{CaptureModel, DefinitionModel, EventModel, WValue};
//! use tracecap_wtf::{Container, CLASS_INSTANCE};
//!
//! let model = CaptureModel {
//!     definitions: vec![DefinitionModel {
//!         wire_id: 2,
//!         class: CLASS_INSTANCE,
//!         flags: 0,
//!         name: "App#tick".into(),
//!         signature: "uint32 n".into(),
//!     }],
//!     events: vec![EventModel { wire_id: 2, time: 5, args: vec![WValue::Uint32(7)] }],
//!     ..CaptureModel::new(Container::Chunked)
//! };
//! let bytes = model.to_bytes()?;
//! assert_eq!(CaptureModel::from_bytes(&bytes)?, model);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Beneath it, the byte-level builders [`ChunkedWriter`] and [`LegacyWriter`] write one event at
//! a time: for files a model cannot describe (redefinitions, chunks of chosen sizes, events
//! that do not match their definition) and for generating large benchmark files.
//!
//! ```
//! use tracecap_wtf::write::{ChunkedWriter, WValue};
//! use tracecap_wtf::{Capture, CLASS_INSTANCE};
//!
//! let mut w = ChunkedWriter::new(0xE821_4400, r#"{"type":"file_header","timebase":0}"#);
//! w.define(2, CLASS_INSTANCE, 0, "App#tick", "uint32 n, ascii label")?;
//! w.event(2, 5, &[WValue::Uint32(7), WValue::Ascii(Some("hi".into()))])?;
//! let bytes = w.finish();
//! let trace = Capture::parse(&bytes)?;
//! assert_eq!(trace.events().count(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::io;
use std::string::String;
use std::vec::Vec;

use crate::builtin_event::BuiltinEvent;
use crate::chunk::{
    CHUNK_EVENT_DATA, CHUNK_FILE_HEADER, PART_BINARY_EVENTS, PART_FILE_HEADER, PART_STRING_TABLE,
};
use crate::error::Error;
use crate::event::Event;
use crate::header::{Container, CHUNKED_VERSION, LEGACY_VERSION};
use crate::signature::ArgType;
use crate::strings::{EMPTY_ORDINAL, NULL_ORDINAL};
use crate::value::{Elem, Str, Value};
use crate::Capture;

/// An owned argument value to write.
#[derive(Clone, Debug, PartialEq)]
pub enum WValue {
    /// `bool`.
    Bool(bool),
    /// `int8`.
    Int8(i8),
    /// `uint8`.
    Uint8(u8),
    /// `int16`.
    Int16(i16),
    /// `uint16`.
    Uint16(u16),
    /// `int32`.
    Int32(i32),
    /// `uint32`.
    Uint32(u32),
    /// `float32`.
    Float32(f32),
    /// `ascii` (`None` = null).
    Ascii(Option<String>),
    /// `utf8` (`None` = null).
    Utf8(Option<String>),
    /// `any`: JSON text (`None` = null).
    Any(Option<String>),
    /// `char`.
    Char(u8),
    /// `wchar`.
    WChar(u16),
    /// `flowId`.
    FlowId(u32),
    /// `time32` in microseconds.
    Time32(u32),
    /// An integer array (`int8[]` .. `uint32[]`, `char[]`, `wchar[]`) of the given type; `None` =
    /// null. Elements are truncated to the element width.
    Ints(ArgType, Option<Vec<i64>>),
    /// A `float32[]` (`None` = null).
    Floats(Option<Vec<f32>>),
}

impl WValue {
    /// The argument type this value is written as.
    pub fn ty(&self) -> ArgType {
        match self {
            WValue::Bool(_) => ArgType::Bool,
            WValue::Int8(_) => ArgType::Int8,
            WValue::Uint8(_) => ArgType::Uint8,
            WValue::Int16(_) => ArgType::Int16,
            WValue::Uint16(_) => ArgType::Uint16,
            WValue::Int32(_) => ArgType::Int32,
            WValue::Uint32(_) => ArgType::Uint32,
            WValue::Float32(_) => ArgType::Float32,
            WValue::Ascii(_) => ArgType::Ascii,
            WValue::Utf8(_) => ArgType::Utf8,
            WValue::Any(_) => ArgType::Any,
            WValue::Char(_) => ArgType::Char,
            WValue::WChar(_) => ArgType::WChar,
            WValue::FlowId(_) => ArgType::FlowId,
            WValue::Time32(_) => ArgType::Time32,
            WValue::Ints(t, _) => *t,
            WValue::Floats(_) => ArgType::Float32Array,
        }
    }
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn put_elem(out: &mut Vec<u8>, ty: ArgType, v: i64, big: bool) {
    match ty.element_size() {
        Some(1) => out.push(v as u8),
        Some(2) => out.extend_from_slice(&if big {
            (v as u16).to_be_bytes()
        } else {
            (v as u16).to_le_bytes()
        }),
        _ => out.extend_from_slice(&if big {
            (v as u32).to_be_bytes()
        } else {
            (v as u32).to_le_bytes()
        }),
    }
}

/// Writes a chunked (format 10) file: a file-header chunk, then event-data chunks, each with its
/// own string table. Definitions persist across chunks.
#[derive(Debug)]
pub struct ChunkedWriter {
    out: Vec<u8>,
    events: Vec<u8>,
    strings: Vec<u8>,
    ordinals: HashMap<String, u32>,
    next_ordinal: u32,
    chunk_id: u32,
}

impl ChunkedWriter {
    /// Starts a file with this WTF version word and file-header JSON text.
    pub fn new(wtf_version: u32, header_json: &str) -> Self {
        Self::with_header(wtf_version, Some(header_json))
    }

    /// Starts a file with this WTF version word and, unless `None`, a file-header chunk with this
    /// JSON text.
    pub fn with_header(wtf_version: u32, header_json: Option<&str>) -> Self {
        let mut w = ChunkedWriter {
            out: Vec::new(),
            events: Vec::new(),
            strings: Vec::new(),
            ordinals: HashMap::new(),
            next_ordinal: 0,
            chunk_id: 0,
        };
        for word in [0xDEAD_BEEF, wtf_version, CHUNKED_VERSION] {
            w.out.extend_from_slice(&u32::to_le_bytes(word));
        }
        if let Some(json) = header_json {
            w.chunk(CHUNK_FILE_HEADER, &[(PART_FILE_HEADER, json.as_bytes())]);
        }
        w
    }

    fn chunk(&mut self, kind: u32, parts: &[(u32, &[u8])]) {
        let table = 12 * parts.len();
        let body: usize = parts.iter().map(|p| (p.1.len() + 3) & !3).sum();
        let len = 24 + table + body;
        self.chunk_id += 1;
        let head = [
            self.chunk_id,
            kind,
            len as u32,
            0xFFFF_FFFF,
            0xFFFF_FFFF,
            parts.len() as u32,
        ];
        for word in head {
            self.out.extend_from_slice(&word.to_le_bytes());
        }
        let mut off = 0usize;
        for (k, data) in parts {
            for word in [*k, off as u32, data.len() as u32] {
                self.out.extend_from_slice(&word.to_le_bytes());
            }
            off += (data.len() + 3) & !3;
        }
        for (_, data) in parts {
            self.out.extend_from_slice(data);
            let pad = ((data.len() + 3) & !3) - data.len();
            self.out.extend(std::iter::repeat_n(0u8, pad));
        }
    }

    fn ordinal(&mut self, s: &Option<String>) -> u32 {
        match s {
            None => NULL_ORDINAL,
            Some(s) if s.is_empty() => EMPTY_ORDINAL,
            Some(s) => {
                if let Some(&n) = self.ordinals.get(s) {
                    return n;
                }
                let n = self.next_ordinal;
                self.next_ordinal += 1;
                self.strings.extend_from_slice(s.as_bytes());
                self.strings.push(0);
                self.ordinals.insert(s.clone(), n);
                n
            }
        }
    }

    /// Appends a `wtf.event#define` event (wire id 1) to the current chunk.
    pub fn define(
        &mut self,
        wire_id: u16,
        class: u16,
        flags: u32,
        name: &str,
        signature: &str,
    ) -> io::Result<()> {
        let sig = if signature.is_empty() {
            None
        } else {
            Some(signature.into())
        };
        self.event(
            1,
            0,
            &[
                WValue::Uint16(wire_id),
                WValue::Uint16(class),
                WValue::Uint32(flags),
                WValue::Ascii(Some(name.into())),
                WValue::Ascii(sig),
            ],
        )
    }

    /// Appends an event to the current chunk.
    pub fn event(&mut self, wire_id: u32, time: u32, args: &[WValue]) -> io::Result<()> {
        let mut buf = Vec::with_capacity(8 + 4 * args.len());
        buf.extend_from_slice(&wire_id.to_le_bytes());
        buf.extend_from_slice(&time.to_le_bytes());
        for a in args {
            let word: u32 = match a {
                WValue::Bool(b) => u32::from(*b),
                WValue::Int8(v) => *v as i32 as u32,
                WValue::Uint8(v) => u32::from(*v),
                WValue::Int16(v) => *v as i32 as u32,
                WValue::Uint16(v) => u32::from(*v),
                WValue::Int32(v) => *v as u32,
                WValue::Uint32(v) | WValue::FlowId(v) | WValue::Time32(v) => *v,
                WValue::Float32(f) => f.to_bits(),
                WValue::Ascii(s) | WValue::Utf8(s) | WValue::Any(s) => self.ordinal(s),
                WValue::Char(c) => u32::from(*c),
                WValue::WChar(c) => u32::from(*c),
                WValue::Ints(ty, items) => {
                    if ty.element_size().is_none() || *ty == ArgType::Float32Array {
                        return Err(invalid("Ints needs an integer array type"));
                    }
                    let Some(items) = items else {
                        buf.extend_from_slice(&NULL_ORDINAL.to_le_bytes());
                        continue;
                    };
                    buf.extend_from_slice(&(items.len() as u32).to_le_bytes());
                    for &v in items {
                        put_elem(&mut buf, *ty, v, false);
                    }
                    while buf.len() % 4 != 0 {
                        buf.push(0);
                    }
                    continue;
                }
                WValue::Floats(items) => {
                    let Some(items) = items else {
                        buf.extend_from_slice(&NULL_ORDINAL.to_le_bytes());
                        continue;
                    };
                    buf.extend_from_slice(&(items.len() as u32).to_le_bytes());
                    for f in items {
                        buf.extend_from_slice(&f.to_le_bytes());
                    }
                    continue;
                }
            };
            buf.extend_from_slice(&word.to_le_bytes());
        }
        self.events.extend_from_slice(&buf);
        Ok(())
    }

    /// Bytes of events in the current chunk.
    pub fn pending(&self) -> usize {
        self.events.len()
    }

    /// Closes the current event chunk (string table first, then the event buffer); the next
    /// events start a new chunk with a new string table. Does nothing when the chunk is empty.
    pub fn end_chunk(&mut self) {
        if self.events.is_empty() && self.strings.is_empty() {
            return;
        }
        let strings = std::mem::take(&mut self.strings);
        let events = std::mem::take(&mut self.events);
        self.chunk(
            CHUNK_EVENT_DATA,
            &[(PART_STRING_TABLE, &strings), (PART_BINARY_EVENTS, &events)],
        );
        self.ordinals.clear();
        self.next_ordinal = 0;
    }

    /// Closes the last chunk and returns the file.
    pub fn finish(mut self) -> Vec<u8> {
        self.end_chunk();
        self.out
    }
}

/// Writes a legacy (format 3, big-endian, unchunked) file.
#[derive(Debug)]
pub struct LegacyWriter {
    out: Vec<u8>,
}

fn legacy_utf8(out: &mut Vec<u8>, s: &Option<String>) -> io::Result<()> {
    match s {
        None => out.extend_from_slice(&0u16.to_be_bytes()),
        Some(s) => {
            let units = s.encode_utf16().count();
            if units == 0 {
                // A zero count means null: the legacy format has no empty utf8 string.
                out.extend_from_slice(&0u16.to_be_bytes());
                return Ok(());
            }
            if units >= 0xFFFF || s.len() > 0xFFFF {
                return Err(invalid("legacy string too long"));
            }
            out.extend_from_slice(&(units as u16).to_be_bytes());
            out.extend_from_slice(&(s.len() as u16).to_be_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    Ok(())
}

impl LegacyWriter {
    /// Starts a legacy file with its header.
    pub fn new(
        wtf_version: u32,
        context_info: Option<&str>,
        flags: u32,
        timebase_ms: u64,
        metadata: Option<&str>,
    ) -> io::Result<Self> {
        let mut out = Vec::new();
        for word in [0xDEAD_BEEF, wtf_version, LEGACY_VERSION] {
            out.extend_from_slice(&u32::to_be_bytes(word));
        }
        legacy_utf8(&mut out, &context_info.map(String::from))?;
        out.extend_from_slice(&flags.to_be_bytes());
        out.extend_from_slice(&(timebase_ms as u32).to_be_bytes());
        out.extend_from_slice(&((timebase_ms >> 32) as u32).to_be_bytes());
        legacy_utf8(&mut out, &metadata.map(String::from))?;
        Ok(LegacyWriter { out })
    }

    /// Appends a `wtf.event#define` event.
    pub fn define(
        &mut self,
        wire_id: u16,
        class: u16,
        flags: u32,
        name: &str,
        signature: &str,
    ) -> io::Result<()> {
        self.event(
            1,
            0,
            &[
                WValue::Uint16(wire_id),
                WValue::Uint16(class),
                WValue::Uint32(flags),
                WValue::Ascii(Some(name.into())),
                WValue::Ascii(Some(signature.into())),
            ],
        )
    }

    /// Appends an event (its wire id must fit 16 bits).
    pub fn event(&mut self, wire_id: u32, time: u32, args: &[WValue]) -> io::Result<()> {
        let wire = u16::try_from(wire_id).map_err(|_| invalid("legacy wire ids are 16-bit"))?;
        let out = &mut self.out;
        out.extend_from_slice(&wire.to_be_bytes());
        out.extend_from_slice(&time.to_be_bytes());
        for a in args {
            match a {
                WValue::Bool(b) => out.push(u8::from(*b)),
                WValue::Int8(v) => out.push(*v as u8),
                WValue::Uint8(v) => out.push(*v),
                WValue::Int16(v) => out.extend_from_slice(&v.to_be_bytes()),
                WValue::Uint16(v) => out.extend_from_slice(&v.to_be_bytes()),
                WValue::Int32(v) => out.extend_from_slice(&v.to_be_bytes()),
                WValue::Uint32(v) | WValue::FlowId(v) | WValue::Time32(v) => {
                    out.extend_from_slice(&v.to_be_bytes())
                }
                WValue::Float32(f) => out.extend_from_slice(&f.to_le_bytes()),
                WValue::Ascii(s) => match s {
                    None => out.extend_from_slice(&0u16.to_be_bytes()),
                    Some(s) => {
                        if s.len() >= 0xFFFF {
                            return Err(invalid("legacy string too long"));
                        }
                        out.extend_from_slice(&(s.len() as u16).to_be_bytes());
                        out.extend_from_slice(s.as_bytes());
                    }
                },
                WValue::Utf8(s) | WValue::Any(s) => legacy_utf8(out, s)?,
                WValue::Char(_) | WValue::WChar(_) => {
                    return Err(invalid("char and wchar do not exist in the legacy format"))
                }
                WValue::Ints(ty, items) => {
                    if matches!(ty, ArgType::CharArray | ArgType::WCharArray)
                        || ty.element_size().is_none()
                    {
                        return Err(invalid("array type not supported in the legacy format"));
                    }
                    let items = items.as_deref().unwrap_or(&[]);
                    out.extend_from_slice(&(items.len() as u32).to_be_bytes());
                    for &v in items {
                        put_elem(out, *ty, v, true);
                    }
                }
                WValue::Floats(items) => {
                    let items = items.as_deref().unwrap_or(&[]);
                    out.extend_from_slice(&(items.len() as u32).to_be_bytes());
                    for f in items {
                        out.extend_from_slice(&f.to_le_bytes());
                    }
                }
            }
        }
        Ok(())
    }

    /// Returns the file.
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}

impl WValue {
    /// The value `v` of an argument of `ev` as the writers take it (strings resolved in `ev`'s
    /// string table, lossily as UTF-8; `None` for a string ordinal the table does not hold).
    pub fn from_value(ev: &Event<'_>, v: Value<'_>) -> WValue {
        let s = |x: Str<'_>| {
            ev.resolve(x)
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        match v {
            Value::Bool(b) => WValue::Bool(b),
            Value::Int8(v) => WValue::Int8(v),
            Value::Uint8(v) => WValue::Uint8(v),
            Value::Int16(v) => WValue::Int16(v),
            Value::Uint16(v) => WValue::Uint16(v),
            Value::Int32(v) => WValue::Int32(v),
            Value::Uint32(v) => WValue::Uint32(v),
            Value::Float32(f) => WValue::Float32(f),
            Value::Ascii(x) => WValue::Ascii(s(x)),
            Value::Utf8(x) => WValue::Utf8(s(x)),
            Value::Any(x) => WValue::Any(s(x)),
            Value::Char(c) => WValue::Char(c),
            Value::WChar(c) => WValue::WChar(c),
            Value::FlowId(v) => WValue::FlowId(v),
            Value::Time32(v) => WValue::Time32(v),
            Value::Array(a) if a.ty == ArgType::Float32Array => WValue::Floats(a.data.map(|_| {
                a.iter()
                    .map(|e| match e {
                        Elem::Float(f) => f,
                        Elem::Int(i) => i as f32,
                    })
                    .collect()
            })),
            Value::Array(a) => WValue::Ints(
                a.ty,
                a.data.map(|_| {
                    a.iter()
                        .map(|e| match e {
                            Elem::Int(i) => i,
                            Elem::Float(f) => f as i64,
                        })
                        .collect()
                }),
            ),
        }
    }
}

/// Most bytes of events [`CaptureModel::to_bytes`] puts in one chunk before it starts the next.
pub const CHUNK_EVENT_BYTES: usize = 1 << 20;

/// One event type of a [`CaptureModel`] (a `wtf.event#define` event).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DefinitionModel {
    /// Wire id its events carry.
    pub wire_id: u16,
    /// Event class ([`CLASS_INSTANCE`](crate::CLASS_INSTANCE), [`CLASS_SCOPE`](crate::CLASS_SCOPE)).
    pub class: u16,
    /// Event flags (`FLAG_*`).
    pub flags: u32,
    /// Event name.
    pub name: String,
    /// Argument signature text (empty when none).
    pub signature: String,
}

/// One event of a [`CaptureModel`] (any event but a definition).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EventModel {
    /// Wire id (16 bits in legacy files).
    pub wire_id: u32,
    /// Time in microseconds since the file's time base.
    pub time: u32,
    /// Argument values, in the definition's order.
    pub args: Vec<WValue>,
}

/// The header fields of a legacy file after its prologue.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LegacyHeaderModel {
    /// Context information JSON text (`None`: null).
    pub context_info: Option<String>,
    /// File flags ([`FLAG_HIGH_RESOLUTION_TIMES`](crate::FLAG_HIGH_RESOLUTION_TIMES), ...).
    pub flags: u32,
    /// Time base in milliseconds since the epoch.
    pub timebase_ms: u64,
}

/// An owned model of a whole capture: its container, header, definitions and events.
///
/// [`CaptureModel::to_bytes`] writes the definitions first, then the events in order (chunked
/// files in chunks of at most [`CHUNK_EVENT_BYTES`] of events); [`CaptureModel::from_bytes`]
/// reads a file back into this shape, every `wtf.event#define` into `definitions` and every other
/// event into `events`, so `from_bytes(to_bytes(m)) == m` for a model the container can hold
/// (legacy files have no `char`/`wchar` values, no null arrays and no empty `utf8` strings).
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureModel {
    /// Chunked (format 10) or legacy (format 3).
    pub container: Container,
    /// The WTF version word.
    pub wtf_version: u32,
    /// Chunked: the file-header JSON text (`None`: no file-header chunk). Legacy: the metadata
    /// JSON text (`None`: null).
    pub header_json: Option<String>,
    /// Legacy: the header fields after the prologue (ignored for chunked files).
    pub legacy: LegacyHeaderModel,
    /// The event types, in the order they are defined.
    pub definitions: Vec<DefinitionModel>,
    /// Every other event, in file order.
    pub events: Vec<EventModel>,
}

impl CaptureModel {
    /// An empty capture in `container`, with a small file-header JSON object.
    pub fn new(container: Container) -> Self {
        CaptureModel {
            container,
            wtf_version: 0xE821_4400,
            header_json: Some(String::from(r#"{"type":"file_header"}"#)),
            legacy: LegacyHeaderModel::default(),
            definitions: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Writes the file.
    pub fn to_bytes(&self) -> io::Result<Vec<u8>> {
        match self.container {
            Container::Chunked => {
                let mut w =
                    ChunkedWriter::with_header(self.wtf_version, self.header_json.as_deref());
                for d in &self.definitions {
                    w.define(d.wire_id, d.class, d.flags, &d.name, &d.signature)?;
                }
                for e in &self.events {
                    if w.pending() >= CHUNK_EVENT_BYTES {
                        w.end_chunk();
                    }
                    w.event(e.wire_id, e.time, &e.args)?;
                }
                Ok(w.finish())
            }
            Container::Legacy => {
                let mut w = LegacyWriter::new(
                    self.wtf_version,
                    self.legacy.context_info.as_deref(),
                    self.legacy.flags,
                    self.legacy.timebase_ms,
                    self.header_json.as_deref(),
                )?;
                for d in &self.definitions {
                    w.define(d.wire_id, d.class, d.flags, &d.name, &d.signature)?;
                }
                for e in &self.events {
                    w.event(e.wire_id, e.time, &e.args)?;
                }
                Ok(w.finish())
            }
        }
    }

    /// Reads a whole file into a model (the first error of the walk is returned).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let trace = Capture::parse(bytes)?;
        let h = trace.header();
        let text = |s: Str<'_>| {
            s.resolve(&Default::default())
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        let (header_json, legacy) = match (h.container, h.legacy) {
            (Container::Legacy, Some(l)) => (
                text(l.metadata),
                LegacyHeaderModel {
                    context_info: text(l.context_info),
                    flags: l.flags,
                    timebase_ms: l.timebase_ms,
                },
            ),
            _ => (
                h.header_json.map(String::from),
                LegacyHeaderModel::default(),
            ),
        };
        let mut model = CaptureModel {
            container: h.container,
            wtf_version: h.wtf_version,
            header_json,
            legacy,
            definitions: Vec::new(),
            events: Vec::new(),
        };
        trace.events().try_for_each_event::<Error, _>(|ev| {
            if let Some(BuiltinEvent::Define {
                wire_id,
                class,
                flags,
                name,
                args,
            }) = ev.decode_builtin()
            {
                let text = |s: Str<'_>| {
                    ev.resolve(s)
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default()
                };
                model.definitions.push(DefinitionModel {
                    wire_id,
                    class,
                    flags,
                    name: text(name),
                    signature: text(args),
                });
                return Ok(());
            }
            let args = ev.values().map(|v| WValue::from_value(&ev, v)).collect();
            model.events.push(EventModel {
                wire_id: ev.wire_id,
                time: ev.time,
                args,
            });
            Ok(())
        })?;
        Ok(model)
    }
}
