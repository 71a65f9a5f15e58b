//! The report of an apitrace trace, and how a fault of a compressed trace is stated (the
//! container's fault with the calls read before it; a fault of the decompressed stream with its
//! offset there and the container piece it came from), which `tracecap validate` and `tracecap
//! dump` state the same way.

use std::collections::{BTreeMap, BTreeSet};
use std::string::String;
use std::vec::Vec;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use tracecap_apitrace::{
    call_flags, decompress_limited, Api, Decompressed, Error, EventKind, Space, Stream, END_FRAME,
    MARKER_PUSH,
};

use super::parts::{Fault, Pairs};

/// What `tracecap info` reports of an apitrace trace.
///
/// Its JSON object has the members `format` (`"apitrace"`), `version`, `semantic_version`,
/// `container`, `calls`, `frames`, `debug_group_pushes`, `threads` (how many), `api`,
/// `file_bytes`, `stream_bytes`, `signatures`, `properties` (the header's, an object) and
/// `error`, in that order.
#[derive(Debug)]
pub struct Info {
    /// The stream version.
    pub version: u64,
    /// The semantic version of the header.
    pub semantic_version: u64,
    /// The container's name (`snappy`, `gzip`, `brotli`, `zstd`).
    pub container: &'static str,
    /// Calls entered.
    pub calls: u64,
    /// Calls left (the others are incomplete).
    pub completed: u64,
    /// Calls that end a frame.
    pub frames: u64,
    /// Calls that push a debug group (`glPushDebugGroup`, ...).
    pub group_pushes: u64,
    /// The ids of the threads that enter calls.
    pub threads: BTreeSet<u64>,
    /// The API of the first call whose name tells it.
    pub api: Api,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// The decompressed stream's size in bytes.
    pub stream_bytes: u64,
    /// Signatures defined.
    pub signatures: usize,
    /// The header properties, names and values as text, in file order (a later property of
    /// the same name replaces the earlier one's value, in the earlier one's place).
    pub properties: Vec<(String, String)>,
    /// The fault that stopped the walk, if the trace is damaged.
    pub fault: Option<Fault>,
}

/// The report of `data`; `Err` when it cannot be decompressed or its header cannot be read.
pub fn info(data: &[u8]) -> Result<Info, Fault> {
    report(&open(data)?, data.len() as u64)
}

/// The report of the trace `d` ([`open`]), from a file of `file_bytes` bytes; `Err` when its
/// header cannot be read.
pub fn report(d: &Decompressed, file_bytes: u64) -> Result<Info, Fault> {
    let trace = Stream::parse(&d.data).map_err(|e| fault(d, cause(d, e)))?;
    let mut i = Info {
        version: trace.version(),
        semantic_version: trace.header().semantic_version,
        container: d.container.name(),
        calls: 0,
        completed: 0,
        frames: 0,
        group_pushes: 0,
        threads: BTreeSet::new(),
        api: Api::Unknown,
        file_bytes,
        stream_bytes: d.data.len() as u64,
        signatures: 0,
        properties: properties(trace.header().properties()),
        fault: None,
    };
    let mut seen = BTreeSet::new();
    let mut events = trace.events();
    let mut bad = None;
    while let Some(ev) = events.next() {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                bad = Some(e);
                break;
            }
        };
        if ev.kind == EventKind::Enter {
            i.calls += 1;
            i.threads.insert(ev.thread);
            let name = events
                .table()
                .function(ev.sig)
                .map_or(&b""[..], |f| f.name());
            let flags = call_flags(name);
            if flags & END_FRAME != 0 {
                i.frames += 1;
            }
            if flags & MARKER_PUSH != 0 {
                i.group_pushes += 1;
            }
            if seen.insert(ev.sig) && i.api == Api::Unknown {
                i.api = Api::from_name(name);
            }
        } else {
            i.completed += 1;
        }
    }
    i.signatures = events.table().len();
    i.fault = bad.map(|e| cause(d, e)).or(d.fault).map(|e| fault(d, e));
    Ok(i)
}

/// Decompresses a trace of any container. A few KiB of brotli or zstd can claim gigabytes: this
/// allows 1 GiB plus 1024 times the file, far beyond what real traces reach (snappy about 3
/// times, zstd and brotli about 30).
pub fn open(data: &[u8]) -> Result<Decompressed, Fault> {
    let limit = (1u64 << 30).saturating_add((data.len() as u64).saturating_mul(1024));
    decompress_limited(data, limit).map_err(|e| Fault::new(e.kind, e.offset))
}

/// A fault of the trace `d` as a report states it, at a file offset
/// ([`Decompressed::error_offset`]: a stream offset is mapped to the snappy chunk or zstd frame
/// that holds it, 0 for the other containers), the stream offset kept in the message.
pub fn fault(d: &Decompressed, e: Error) -> Fault {
    let at = d.error_offset(&e);
    match e.kind.space() {
        // The container's own fault: the stream before it was read whole, and the message says
        // how many calls that gave (zlib-no-eof.trace: every call, but no gzip trailer).
        Space::File if d.fault == Some(e) => {
            let n = calls_read(d);
            let calls = if n == 1 { "call was" } else { "calls were" };
            Fault::new(format_args!("{} after {n} {calls} read", e.kind), at)
        }
        Space::File => Fault::new(e.kind, at),
        // Both offsets: in the stream, and (printed last, as every fault's) the file offset of
        // the snappy chunk or zstd frame it was decompressed from, or of the whole compressed
        // stream for gzip and brotli.
        Space::Stream => Fault::new(
            format_args!(
                "{} at decompressed stream offset {:#x}, in the {} {} starting",
                e.kind,
                e.offset,
                d.container.name(),
                d.piece_at(e.offset),
            ),
            at,
        ),
    }
}

/// The calls (ENTER events) of the decompressed stream up to its first fault.
fn calls_read(d: &Decompressed) -> u64 {
    let Ok(trace) = Stream::parse(&d.data) else {
        return 0;
    };
    let mut events = trace.events();
    let mut n = 0;
    while let Some(Ok(ev)) = events.next() {
        n += u64::from(ev.kind == EventKind::Enter);
    }
    n
}

/// The fault to state for `e`, met reading the stream of `d`: a stream cut short because its
/// container was cut short is the container's fault, which says more (a truncation is always
/// one of the stream).
pub fn cause(d: &Decompressed, e: Error) -> Error {
    match d.fault {
        Some(f) if e.is_truncation() => f,
        _ => e,
    }
}

/// The header properties as text, each name once (see [`Info::properties`]).
fn properties<'p>(all: impl Iterator<Item = (&'p [u8], &'p [u8])>) -> Vec<(String, String)> {
    let mut props: Vec<(String, String)> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for (n, v) in all {
        let n = String::from_utf8_lossy(n).into_owned();
        let v = String::from_utf8_lossy(v).into_owned();
        match at.get(&n).and_then(|&i| props.get_mut(i)) {
            Some(p) => p.1 = v,
            None => {
                at.insert(n.clone(), props.len());
                props.push((n, v));
            }
        }
    }
    props
}

impl Serialize for Info {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Info", 14)?;
        m.serialize_field("format", "apitrace")?;
        m.serialize_field("version", &self.version)?;
        m.serialize_field("semantic_version", &self.semantic_version)?;
        m.serialize_field("container", self.container)?;
        m.serialize_field("calls", &self.calls)?;
        m.serialize_field("frames", &self.frames)?;
        m.serialize_field("debug_group_pushes", &self.group_pushes)?;
        m.serialize_field("threads", &self.threads.len())?;
        m.serialize_field("api", self.api.label())?;
        m.serialize_field("file_bytes", &self.file_bytes)?;
        m.serialize_field("stream_bytes", &self.stream_bytes)?;
        m.serialize_field("signatures", &self.signatures)?;
        let props = self.properties.iter().map(|(n, v)| (n, v));
        m.serialize_field("properties", &Pairs(props))?;
        m.serialize_field("error", &self.fault)?;
        m.end()
    }
}
