//! The writer (feature `write`): a model of calls and signatures to an event stream of any
//! version, and a stream to any container. Used by round-trip tests, fuzz seeds and benches.

use std::boxed::Box;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::vec::Vec;

use crate::container::Container;

/// A value to write.
#[derive(Clone, Debug, PartialEq)]
pub enum WValue {
    /// 0x00.
    Null,
    /// 0x01 / 0x02.
    Bool(bool),
    /// 0x03 when negative, else 0x04.
    SInt(i64),
    /// 0x04.
    UInt(u64),
    /// 0x05.
    Float(f32),
    /// 0x06.
    Double(f64),
    /// 0x07.
    String(Vec<u8>),
    /// 0x08.
    Blob(Vec<u8>),
    /// 0x09 with enum signature `sig` (for version < 3 the value must be the signature's).
    Enum {
        /// Signature id (registered with [`Writer::enum_sig`]).
        sig: u64,
        /// Value.
        value: i64,
    },
    /// 0x0a.
    Bitmask {
        /// Signature id (registered with [`Writer::bitmask_sig`]).
        sig: u64,
        /// Value.
        value: u64,
    },
    /// 0x0b.
    Array(Vec<WValue>),
    /// 0x0c: one value per member of the signature.
    Struct {
        /// Signature id (registered with [`Writer::struct_sig`]).
        sig: u64,
        /// Member values.
        members: Vec<WValue>,
    },
    /// 0x0d.
    Pointer(u64),
    /// 0x0e.
    Repr(Box<WValue>, Box<WValue>),
    /// 0x0f.
    WString(Vec<u64>),
}

/// A call detail to write.
#[derive(Clone, Debug, PartialEq)]
pub enum WDetail {
    /// 0x01 argument.
    Arg(u64, WValue),
    /// 0x02 return value.
    Ret(WValue),
    /// 0x04 backtrace: frame ids (registered with [`Writer::frame`]).
    Backtrace(Vec<u64>),
    /// 0x05 flags.
    Flags(u64),
}

/// A backtrace frame to register.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WFrame {
    /// Module.
    pub module: Option<Vec<u8>>,
    /// Function.
    pub function: Option<Vec<u8>>,
    /// File name.
    pub filename: Option<Vec<u8>>,
    /// Line.
    pub line: Option<u64>,
    /// Offset.
    pub offset: Option<u64>,
}

#[derive(Default)]
struct Sigs {
    functions: BTreeMap<u64, (Vec<u8>, Vec<Vec<u8>>)>,
    structs: BTreeMap<u64, (Vec<u8>, Vec<Vec<u8>>)>,
    enums: BTreeMap<u64, Vec<(Vec<u8>, i64)>>,
    bitmasks: BTreeMap<u64, Vec<(Vec<u8>, u64)>>,
    frames: BTreeMap<u64, WFrame>,
}

/// Writes an event stream; signatures are registered up front and written at first use.
pub struct Writer {
    version: u64,
    out: Vec<u8>,
    sigs: Sigs,
    written: [BTreeSet<u64>; 5],
    next_call: u64,
}

fn put_uint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_str(out: &mut Vec<u8>, s: &[u8]) {
    put_uint(out, s.len() as u64);
    out.extend_from_slice(s);
}

fn put_sint(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(3);
        put_uint(out, v.unsigned_abs());
    } else {
        out.push(4);
        put_uint(out, v as u64);
    }
}

impl Writer {
    /// A stream of `version` (0..=6); `semantic_version` and `properties` are written for 6.
    pub fn new(version: u64, semantic_version: u64, properties: &[(&[u8], &[u8])]) -> Self {
        let mut out = Vec::new();
        put_uint(&mut out, version);
        if version >= 6 {
            put_uint(&mut out, semantic_version);
            for (n, v) in properties {
                put_str(&mut out, n);
                put_str(&mut out, v);
            }
            out.push(0);
        }
        Writer {
            version,
            out,
            sigs: Sigs::default(),
            written: Default::default(),
            next_call: 0,
        }
    }

    /// Registers function signature `id`.
    pub fn function(&mut self, id: u64, name: &[u8], args: &[&[u8]]) {
        self.sigs.functions.insert(
            id,
            (name.to_vec(), args.iter().map(|a| a.to_vec()).collect()),
        );
    }

    /// Registers struct signature `id`.
    pub fn struct_sig(&mut self, id: u64, name: &[u8], members: &[&[u8]]) {
        self.sigs.structs.insert(
            id,
            (name.to_vec(), members.iter().map(|a| a.to_vec()).collect()),
        );
    }

    /// Registers enum signature `id` (version < 3 streams write only the first pair).
    pub fn enum_sig(&mut self, id: u64, values: &[(&[u8], i64)]) {
        self.sigs
            .enums
            .insert(id, values.iter().map(|(n, v)| (n.to_vec(), *v)).collect());
    }

    /// Registers bitmask signature `id`.
    pub fn bitmask_sig(&mut self, id: u64, flags: &[(&[u8], u64)]) {
        self.sigs
            .bitmasks
            .insert(id, flags.iter().map(|(n, v)| (n.to_vec(), *v)).collect());
    }

    /// Registers backtrace frame `id`.
    pub fn frame(&mut self, id: u64, frame: WFrame) {
        self.sigs.frames.insert(id, frame);
    }

    /// Writes an ENTER; returns its call number.
    pub fn enter(&mut self, thread: u64, sig: u64, details: &[WDetail]) -> u64 {
        let mut out = std::mem::take(&mut self.out);
        out.push(0);
        if self.version >= 4 {
            put_uint(&mut out, thread);
        }
        put_uint(&mut out, sig);
        if self.written[0].insert(sig) {
            let (name, args) = self.sigs.functions.get(&sig).cloned().unwrap_or_default();
            put_str(&mut out, &name);
            put_uint(&mut out, args.len() as u64);
            for a in &args {
                put_str(&mut out, a);
            }
        }
        self.details(&mut out, details);
        self.out = out;
        let no = self.next_call;
        self.next_call += 1;
        no
    }

    /// Writes a LEAVE of call `call_no`.
    pub fn leave(&mut self, call_no: u64, details: &[WDetail]) {
        let mut out = std::mem::take(&mut self.out);
        out.push(1);
        put_uint(&mut out, call_no);
        self.details(&mut out, details);
        self.out = out;
    }

    /// Appends raw bytes to the stream (to build damaged streams in tests).
    pub fn raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// Bytes of stream written so far.
    pub fn stream_len(&self) -> usize {
        self.out.len()
    }

    /// The stream written so far.
    pub fn finish(self) -> Vec<u8> {
        self.out
    }

    fn details(&mut self, out: &mut Vec<u8>, details: &[WDetail]) {
        for d in details {
            match d {
                WDetail::Arg(i, v) => {
                    out.push(1);
                    put_uint(out, *i);
                    self.value(out, v);
                }
                WDetail::Ret(v) => {
                    out.push(2);
                    self.value(out, v);
                }
                WDetail::Backtrace(frames) => {
                    out.push(4);
                    put_uint(out, frames.len() as u64);
                    for &id in frames {
                        put_uint(out, id);
                        if self.written[4].insert(id) {
                            let f = self.sigs.frames.get(&id).cloned().unwrap_or_default();
                            if let Some(m) = &f.module {
                                out.push(1);
                                put_str(out, m);
                            }
                            if let Some(m) = &f.function {
                                out.push(2);
                                put_str(out, m);
                            }
                            if let Some(m) = &f.filename {
                                out.push(3);
                                put_str(out, m);
                            }
                            if let Some(l) = f.line {
                                out.push(4);
                                put_uint(out, l);
                            }
                            if let Some(o) = f.offset {
                                out.push(5);
                                put_uint(out, o);
                            }
                            out.push(0);
                        }
                    }
                }
                WDetail::Flags(f) => {
                    out.push(5);
                    put_uint(out, *f);
                }
            }
        }
        out.push(0);
    }

    fn value(&mut self, out: &mut Vec<u8>, v: &WValue) {
        match v {
            WValue::Null => out.push(0),
            WValue::Bool(b) => out.push(if *b { 2 } else { 1 }),
            WValue::SInt(i) => put_sint(out, *i),
            WValue::UInt(u) => {
                out.push(4);
                put_uint(out, *u);
            }
            WValue::Float(f) => {
                out.push(5);
                out.extend_from_slice(&f.to_le_bytes());
            }
            WValue::Double(f) => {
                out.push(6);
                out.extend_from_slice(&f.to_le_bytes());
            }
            WValue::String(s) => {
                out.push(7);
                put_str(out, s);
            }
            WValue::Blob(s) => {
                out.push(8);
                put_str(out, s);
            }
            WValue::Enum { sig, value } => {
                out.push(9);
                put_uint(out, *sig);
                let first = self.written[2].insert(*sig);
                let values = self.sigs.enums.get(sig).cloned().unwrap_or_default();
                if self.version >= 3 {
                    if first {
                        put_uint(out, values.len() as u64);
                        for (n, v) in &values {
                            put_str(out, n);
                            put_sint(out, *v);
                        }
                    }
                    put_sint(out, *value);
                } else if first {
                    let (n, v) = values.first().cloned().unwrap_or((Vec::new(), *value));
                    put_str(out, &n);
                    put_sint(out, v);
                }
            }
            WValue::Bitmask { sig, value } => {
                out.push(10);
                put_uint(out, *sig);
                if self.written[3].insert(*sig) {
                    let flags = self.sigs.bitmasks.get(sig).cloned().unwrap_or_default();
                    put_uint(out, flags.len() as u64);
                    for (n, v) in &flags {
                        put_str(out, n);
                        put_uint(out, *v);
                    }
                }
                put_uint(out, *value);
            }
            WValue::Array(items) => {
                out.push(11);
                put_uint(out, items.len() as u64);
                for i in items {
                    self.value(out, i);
                }
            }
            WValue::Struct { sig, members } => {
                out.push(12);
                put_uint(out, *sig);
                if self.written[1].insert(*sig) {
                    let (name, names) = self.sigs.structs.get(sig).cloned().unwrap_or_default();
                    put_str(out, &name);
                    put_uint(out, names.len() as u64);
                    for n in &names {
                        put_str(out, n);
                    }
                }
                for m in members {
                    self.value(out, m);
                }
            }
            WValue::Pointer(p) => {
                out.push(13);
                put_uint(out, *p);
            }
            WValue::Repr(h, m) => {
                out.push(14);
                self.value(out, h);
                self.value(out, m);
            }
            WValue::WString(units) => {
                out.push(15);
                put_uint(out, units.len() as u64);
                for &u in units {
                    put_uint(out, u);
                }
            }
        }
    }
}

/// Wraps `stream` in the snappy container, `chunk` stream bytes per chunk (the tracer: 1 MiB).
pub fn snappy(stream: &[u8], chunk: usize) -> Vec<u8> {
    let mut out = b"at".to_vec();
    let mut enc = snap::raw::Encoder::new();
    for piece in stream.chunks(chunk.max(1)) {
        let block = enc.compress_vec(piece).unwrap_or_default();
        out.extend_from_slice(&(block.len() as u32).to_le_bytes());
        out.extend_from_slice(&block);
    }
    out
}

/// Wraps `stream` in gzip.
pub fn gzip(stream: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = e.write_all(stream);
    e.finish().unwrap_or_default()
}

/// Wraps `stream` in a raw brotli stream (quality 5, the 16 MiB window apitrace writes with).
pub fn brotli(stream: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 24);
        let _ = w.write_all(stream);
        let _ = w.flush();
    }
    out
}

/// Wraps `stream` in zstd frames of at most `frame` bytes each (stored as raw blocks), with the
/// seekable format's seek table when `seekable`.
pub fn zstd(stream: &[u8], frame: usize, seekable: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut entries = Vec::new();
    let mut pieces: Vec<&[u8]> = stream.chunks(frame.max(1)).collect();
    if pieces.is_empty() {
        pieces.push(&[]);
    }
    for piece in pieces {
        let start = out.len();
        out.extend_from_slice(&crate::container::ZSTD_MAGIC);
        // Single segment, 8-byte content size, no checksum, no dictionary.
        out.push(0xe0);
        out.extend_from_slice(&(piece.len() as u64).to_le_bytes());
        let mut blocks: Vec<&[u8]> = piece.chunks(128 << 10).collect();
        if blocks.is_empty() {
            blocks.push(&[]);
        }
        let n = blocks.len();
        for (i, b) in blocks.into_iter().enumerate() {
            let last = u32::from(i + 1 == n);
            let header = last | ((b.len() as u32) << 3);
            out.extend_from_slice(&header.to_le_bytes()[..3]);
            out.extend_from_slice(b);
        }
        entries.push(((out.len() - start) as u32, piece.len() as u32));
    }
    if seekable {
        out.extend_from_slice(&0x184D_2A5Eu32.to_le_bytes());
        out.extend_from_slice(&((entries.len() * 8 + 9) as u32).to_le_bytes());
        for (c, d) in &entries {
            out.extend_from_slice(&c.to_le_bytes());
            out.extend_from_slice(&d.to_le_bytes());
        }
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        out.push(0);
        out.extend_from_slice(&crate::container::SEEKABLE_MAGIC);
    }
    out
}

/// Wraps `stream` in `container` with the tracer's defaults (1 MiB snappy chunks, 2 MiB zstd
/// frames).
pub fn wrap(stream: &[u8], container: Container) -> Vec<u8> {
    match container {
        Container::Snappy => snappy(stream, 1 << 20),
        Container::Gzip => gzip(stream),
        Container::Brotli => brotli(stream),
        Container::ZstdSeekable => zstd(stream, 2 << 20, true),
        Container::Zstd => zstd(stream, 2 << 20, false),
    }
}

/// A tiny version-6 snappy trace with two GLX calls: the bytes of [`crate::doc_example`].
pub fn example_file() -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"/usr/bin/example")]);
    w.function(5, b"glXGetCurrentContext", &[]);
    w.function(6, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    let a = w.enter(0, 5, &[]);
    w.leave(a, &[WDetail::Ret(WValue::Pointer(0x1234))]);
    let b = w.enter(
        0,
        6,
        &[
            WDetail::Arg(0, WValue::Pointer(0xabc)),
            WDetail::Arg(1, WValue::UInt(42)),
        ],
    );
    w.leave(b, &[]);
    snappy(&w.finish(), 1 << 20)
}

/// One event of a [`CaptureModel`].
#[derive(Clone, Debug, PartialEq)]
pub enum ModelEvent {
    /// An ENTER of function signature `sig` on `thread` (written for version 4+); its call
    /// number is the count of ENTER events before it.
    Enter {
        /// Thread index.
        thread: u64,
        /// Function signature id.
        sig: u64,
        /// Details, in stream order.
        details: Vec<WDetail>,
    },
    /// A LEAVE of call `call_no`.
    Leave {
        /// Call number of the ENTER it ends.
        call_no: u64,
        /// Details, in stream order.
        details: Vec<WDetail>,
    },
}

/// An owned model of a whole apitrace event stream: the header, every signature and every event
/// with its details (feature `write`).
///
/// [`CaptureModel::to_bytes`] writes the event stream (each signature defined at its first use);
/// to make a `.trace` file, wrap it in a container with [`wrap`] (or [`snappy`], [`gzip`],
/// [`brotli()`], [`zstd`]). [`CaptureModel::from_bytes`] reads a decompressed stream back (for a
/// file, [`decompress`](crate::decompress) it first). Reading gives the normal form that
/// `from_bytes(&m.to_bytes()) == m` holds for: every signature in the maps is used by an event,
/// a non-negative `SInt` is read back as `UInt` (one tag for both), and before version 3 an enum
/// signature holds one value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureModel {
    /// Stream version (0..=6).
    pub version: u64,
    /// Semantic version (written for version 6).
    pub semantic_version: u64,
    /// Header properties (written for version 6), in order.
    pub properties: Vec<(Vec<u8>, Vec<u8>)>,
    /// Function signatures: id -> (name, argument names).
    pub functions: BTreeMap<u64, (Vec<u8>, Vec<Vec<u8>>)>,
    /// Struct signatures: id -> (name, member names).
    pub structs: BTreeMap<u64, (Vec<u8>, Vec<Vec<u8>>)>,
    /// Enum signatures: id -> (name, value) pairs.
    pub enums: BTreeMap<u64, Vec<(Vec<u8>, i64)>>,
    /// Bitmask signatures: id -> (flag name, value) pairs.
    pub bitmasks: BTreeMap<u64, Vec<(Vec<u8>, u64)>>,
    /// Backtrace frames: id -> frame.
    pub frames: BTreeMap<u64, WFrame>,
    /// The events, in stream order.
    pub events: Vec<ModelEvent>,
}

impl CaptureModel {
    /// The event stream (no container).
    pub fn to_bytes(&self) -> Vec<u8> {
        let props: Vec<(&[u8], &[u8])> = self
            .properties
            .iter()
            .map(|(n, v)| (n.as_slice(), v.as_slice()))
            .collect();
        let mut w = Writer::new(self.version, self.semantic_version, &props);
        w.sigs = Sigs {
            functions: self.functions.clone(),
            structs: self.structs.clone(),
            enums: self.enums.clone(),
            bitmasks: self.bitmasks.clone(),
            frames: self.frames.clone(),
        };
        for e in &self.events {
            match e {
                ModelEvent::Enter {
                    thread,
                    sig,
                    details,
                } => {
                    w.enter(*thread, *sig, details);
                }
                ModelEvent::Leave { call_no, details } => w.leave(*call_no, details),
            }
        }
        w.finish()
    }

    /// Reads a decompressed event stream back into a model; the first fault of the stream is
    /// the error.
    pub fn from_bytes(bytes: &[u8]) -> Result<CaptureModel, crate::Error> {
        use crate::{Detail, EventKind};
        let stream = crate::Stream::parse(bytes)?;
        let h = stream.header();
        let mut m = CaptureModel {
            version: h.version,
            semantic_version: h.semantic_version,
            properties: h
                .properties()
                .map(|(n, v)| (n.to_vec(), v.to_vec()))
                .collect(),
            ..CaptureModel::default()
        };
        let mut events = stream.events();
        while let Some(event) = events.next() {
            let event = event?;
            let table = events.table();
            let mut details = Vec::new();
            for d in event.details().iter(table) {
                details.push(match d? {
                    Detail::Arg { value, index } => WDetail::Arg(index, m.value(&value, table)?),
                    Detail::Ret(value) => WDetail::Ret(m.value(&value, table)?),
                    Detail::Flags(f) => WDetail::Flags(f),
                    Detail::Backtrace(bt) => {
                        let mut ids = Vec::new();
                        for id in bt.frames(table) {
                            let id = id?;
                            let f = table.frame(id).unwrap_or_default();
                            let own = |s: Option<&[u8]>| s.map(<[u8]>::to_vec);
                            m.frames.entry(id).or_insert_with(|| WFrame {
                                module: own(f.module),
                                function: own(f.function),
                                filename: own(f.filename),
                                line: f.line,
                                offset: f.offset,
                            });
                            ids.push(id);
                        }
                        WDetail::Backtrace(ids)
                    }
                });
            }
            m.events.push(match event.kind {
                EventKind::Enter => {
                    if let Some(f) = table.function(event.sig) {
                        m.functions.entry(event.sig).or_insert_with(|| {
                            (
                                f.name().to_vec(),
                                f.arg_names().map(<[u8]>::to_vec).collect(),
                            )
                        });
                    }
                    ModelEvent::Enter {
                        thread: event.thread,
                        sig: event.sig,
                        details,
                    }
                }
                EventKind::Leave => ModelEvent::Leave {
                    call_no: event.call_no,
                    details,
                },
            });
        }
        Ok(m)
    }

    /// The model of `v`, noting the signatures it uses.
    fn value(
        &mut self,
        v: &crate::Value<'_>,
        table: &crate::SigTable,
    ) -> Result<WValue, crate::Error> {
        use crate::Value;
        Ok(match *v {
            Value::Null => WValue::Null,
            Value::Bool(b) => WValue::Bool(b),
            Value::SInt(i) => WValue::SInt(i),
            Value::UInt(u) => WValue::UInt(u),
            Value::Float(f) => WValue::Float(f),
            Value::Double(f) => WValue::Double(f),
            Value::String(s) => WValue::String(s.to_vec()),
            Value::Blob(b) => WValue::Blob(b.to_vec()),
            Value::Pointer(p) => WValue::Pointer(p),
            Value::WString(w) => WValue::WString(w.units().collect()),
            Value::Enum { sig, value } => {
                if let Some(s) = table.enum_sig(sig) {
                    self.enums
                        .entry(sig)
                        .or_insert_with(|| s.values().map(|(n, v)| (n.to_vec(), v)).collect());
                }
                WValue::Enum { sig, value }
            }
            Value::Bitmask { sig, value } => {
                if let Some(s) = table.bitmask_sig(sig) {
                    self.bitmasks
                        .entry(sig)
                        .or_insert_with(|| s.flags().map(|(n, v)| (n.to_vec(), v)).collect());
                }
                WValue::Bitmask { sig, value }
            }
            Value::Array(a) => {
                let mut values = Vec::new();
                for e in a.iter(table) {
                    values.push(self.value(&e?, table)?);
                }
                WValue::Array(values)
            }
            Value::Struct(s) => {
                if let Some(g) = table.struct_sig(s.sig) {
                    self.structs.entry(s.sig).or_insert_with(|| {
                        (
                            g.name().to_vec(),
                            g.member_names().map(<[u8]>::to_vec).collect(),
                        )
                    });
                }
                let mut members = Vec::new();
                for e in s.iter(table) {
                    members.push(self.value(&e?, table)?);
                }
                WValue::Struct {
                    sig: s.sig,
                    members,
                }
            }
            Value::Repr(r) => WValue::Repr(
                Box::new(self.value(&r.human(table)?, table)?),
                Box::new(self.value(&r.machine(table)?, table)?),
            ),
        })
    }
}
