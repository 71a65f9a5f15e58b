//! Writers (feature `write`): build valid chunked (format 10) and legacy (format 3) files from
//! owned values, for round-trip tests and for generating large benchmark files.
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

use crate::chunk::{
    CHUNK_EVENT_DATA, CHUNK_FILE_HEADER, PART_BINARY_EVENTS, PART_FILE_HEADER, PART_STRING_TABLE,
};
use crate::header::{CHUNKED_VERSION, LEGACY_VERSION};
use crate::signature::ArgType;
use crate::strings::{EMPTY_ORDINAL, NULL_ORDINAL};

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
        w.chunk(
            CHUNK_FILE_HEADER,
            &[(PART_FILE_HEADER, header_json.as_bytes())],
        );
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
