//! The report of a Web Tracing Framework trace: versions, chunks, zones and events by name.

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use tracecap_wtf::{
    text_lossy, Capture, Container, DefinitionLookup, Error, Header, Str, CHUNK_EVENT_DATA,
    FLAG_HIGH_RESOLUTION_TIMES, FLAG_TIMES_AS_COUNT,
};

use super::parts::{Fault, Items, Pairs};

/// What `tracecap info` reports of a WTF trace.
///
/// Its JSON object has the members `format` (`"wtf"`), `container` (`"chunked"` or
/// `"legacy"`), `format_version`, `wtf_version`, `file_size`, `header` (see [`HeaderJson`]),
/// `chunks`, `event_chunks`, `definitions`, `events`, `first_time_us`, `last_time_us`, `zones`
/// (`id`, `name`, `type`, `location` and `events` of each), `events_by_name` (most frequent
/// first) and `error`, in that order.
#[derive(Debug)]
pub struct Info {
    /// The container.
    pub container: Container,
    /// The format version of the header.
    pub format_version: u32,
    /// The WTF version of the header.
    pub wtf_version: u32,
    /// The header's JSON.
    pub header: HeaderJson,
    /// The file's size in bytes.
    pub file_size: u64,
    /// Chunks read (chunked files).
    pub chunks: u64,
    /// Chunks of event data among them.
    pub event_chunks: u64,
    /// Event definitions.
    pub definitions: usize,
    /// Events read.
    pub events: u64,
    /// The earliest event time (us), if any event.
    pub first_time: Option<u32>,
    /// The latest event time (us), if any event.
    pub last_time: Option<u32>,
    /// Zones by id (`None`: the events outside any zone).
    pub zones: BTreeMap<Option<u16>, Zone>,
    /// Event counts by name, most frequent first (then by name).
    pub by_name: Vec<(String, u64)>,
    /// The fault that stopped the walk, if the trace is damaged.
    pub fault: Option<Fault>,
}

/// One zone of a report.
#[derive(Debug, Default)]
pub struct Zone {
    /// Its name, when the trace creates it.
    pub name: Option<String>,
    /// Its type.
    pub kind: Option<String>,
    /// Its location.
    pub location: Option<String>,
    /// Events in it.
    pub events: u64,
}

/// The file header as one JSON value.
#[derive(Debug)]
pub enum HeaderJson {
    /// The header part of a chunked file (`null` when it has none).
    Chunked(Option<serde_json::Value>),
    /// The header fields of a legacy file: `{"flags": [...], "timebase": ..., "contextInfo":
    /// ..., "metadata": ...}`.
    Legacy {
        /// The names of the flags set.
        flags: Vec<&'static str>,
        /// The time base (ms).
        timebase_ms: u64,
        /// The context information.
        context_info: LegacyText,
        /// The metadata.
        metadata: LegacyText,
    },
}

/// A JSON text of a legacy header.
#[derive(Debug)]
pub enum LegacyText {
    /// Absent (`null`).
    Null,
    /// The text's JSON value.
    Json(serde_json::Value),
    /// The text, as a string, when it is not JSON.
    Text(String),
}

impl LegacyText {
    fn of(s: Str<'_>) -> Self {
        match s.resolve(&Default::default()) {
            None => LegacyText::Null,
            Some(b) => {
                let t = text_lossy(b);
                match serde_json::from_str::<serde_json::Value>(&t) {
                    Ok(v) => LegacyText::Json(v),
                    Err(_) => LegacyText::Text(t.into_owned()),
                }
            }
        }
    }
}

impl HeaderJson {
    /// The header of a trace; `Err` when a chunked file's header part is no JSON object.
    pub fn of(h: &Header<'_>) -> Result<Self, Error> {
        let Some(legacy) = &h.legacy else {
            return Ok(HeaderJson::Chunked(h.header_value()?));
        };
        let mut flags = Vec::new();
        if legacy.flags & FLAG_HIGH_RESOLUTION_TIMES != 0 {
            flags.push("has_high_resolution_times");
        }
        if legacy.flags & FLAG_TIMES_AS_COUNT != 0 {
            flags.push("times_as_count");
        }
        Ok(HeaderJson::Legacy {
            flags,
            timebase_ms: legacy.timebase_ms,
            context_info: LegacyText::of(legacy.context_info),
            metadata: LegacyText::of(legacy.metadata),
        })
    }
}

fn opt_text(b: Option<&[u8]>) -> Option<String> {
    b.map(|b| text_lossy(b).into_owned())
}

/// The report of `data`; `Err` when its header cannot be read.
pub fn info(data: &[u8]) -> Result<Info, Fault> {
    let trace = Capture::parse(data)?;
    let h = trace.header();
    let mut i = Info {
        container: h.container,
        format_version: h.format_version,
        wtf_version: h.wtf_version,
        header: HeaderJson::Chunked(None),
        file_size: data.len() as u64,
        chunks: 0,
        event_chunks: 0,
        definitions: 0,
        events: 0,
        first_time: None,
        last_time: None,
        zones: BTreeMap::new(),
        by_name: Vec::new(),
        fault: None,
    };
    for c in trace.chunks() {
        match c {
            Ok(c) => {
                i.chunks += 1;
                if c.kind == CHUNK_EVENT_DATA {
                    i.event_chunks += 1;
                }
            }
            Err(_) => break,
        }
    }
    let mut by_name: BTreeMap<String, u64> = BTreeMap::new();
    let mut events = trace.events();
    for ev in events.by_ref() {
        let ev = match ev {
            Ok(e) => e,
            Err(e) => {
                i.fault = Some(e.into());
                break;
            }
        };
        i.events += 1;
        i.first_time = Some(i.first_time.map_or(ev.time, |t| t.min(ev.time)));
        i.last_time = Some(i.last_time.map_or(ev.time, |t| t.max(ev.time)));
        *by_name.entry(ev.name().to_string()).or_default() += 1;
        if let Some(z) = ev.zone_create() {
            let zone = i.zones.entry(Some(z.id)).or_default();
            zone.name = opt_text(z.name);
            zone.kind = opt_text(z.kind);
            zone.location = opt_text(z.location);
        }
        i.zones.entry(ev.zone).or_default().events += 1;
    }
    i.definitions = events.table().len();
    i.by_name = by_name.into_iter().collect();
    i.by_name.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // A header part that is no JSON object is a fault of the header: no report.
    i.header = HeaderJson::of(h)?;
    Ok(i)
}

impl Info {
    /// `chunked` or `legacy`.
    pub fn container_name(&self) -> &'static str {
        match self.container {
            Container::Chunked => "chunked",
            Container::Legacy => "legacy",
        }
    }
}

impl Serialize for LegacyText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LegacyText::Null => s.serialize_none(),
            LegacyText::Json(v) => v.serialize(s),
            LegacyText::Text(t) => s.serialize_str(t),
        }
    }
}

impl Serialize for HeaderJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HeaderJson::Chunked(v) => v.serialize(s),
            HeaderJson::Legacy {
                flags,
                timebase_ms,
                context_info,
                metadata,
            } => {
                let mut m = s.serialize_struct("Header", 4)?;
                m.serialize_field("flags", flags)?;
                m.serialize_field("timebase", timebase_ms)?;
                m.serialize_field("contextInfo", context_info)?;
                m.serialize_field("metadata", metadata)?;
                m.end()
            }
        }
    }
}

/// One zone of the JSON report.
struct ZoneJson<'z>(Option<u16>, &'z Zone);

impl Serialize for ZoneJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let z = self.1;
        let mut m = s.serialize_struct("Zone", 5)?;
        m.serialize_field("id", &self.0)?;
        m.serialize_field("name", &z.name)?;
        m.serialize_field("type", &z.kind)?;
        m.serialize_field("location", &z.location)?;
        m.serialize_field("events", &z.events)?;
        m.end()
    }
}

impl Serialize for Info {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Info", 15)?;
        m.serialize_field("format", "wtf")?;
        m.serialize_field("container", self.container_name())?;
        m.serialize_field("format_version", &self.format_version)?;
        m.serialize_field("wtf_version", &self.wtf_version)?;
        m.serialize_field("file_size", &self.file_size)?;
        m.serialize_field("header", &self.header)?;
        m.serialize_field("chunks", &self.chunks)?;
        m.serialize_field("event_chunks", &self.event_chunks)?;
        m.serialize_field("definitions", &self.definitions)?;
        m.serialize_field("events", &self.events)?;
        m.serialize_field("first_time_us", &self.first_time)?;
        m.serialize_field("last_time_us", &self.last_time)?;
        let zones = self.zones.iter().map(|(id, z)| ZoneJson(*id, z));
        m.serialize_field("zones", &Items(zones))?;
        let by_name = self.by_name.iter().map(|(n, c)| (n, c));
        m.serialize_field("events_by_name", &Pairs(by_name))?;
        m.serialize_field("error", &self.fault)?;
        m.end()
    }
}
