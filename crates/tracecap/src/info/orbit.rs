//! The report of an Orbit capture: the header and sections, and what one walk over the events
//! finds, with the checks of `tracecap validate`.

use std::collections::{BTreeMap, BTreeSet};
use std::string::{String, ToString};
use std::vec::Vec;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use tracecap_orbit::views::{EventView, ThreadName};
use tracecap_orbit::{validate, Capture, Header, Layout, Section, UserData};

use super::parts::{Fault, Items, Pairs};

/// What `tracecap info` reports of an Orbit capture.
///
/// Its JSON object has the members `format` (`"orbit"`), `version`, `layout`, `file_size`,
/// `capture_section_offset`, `section_list_offset`, `capture_section_end`,
/// `end_of_capture_finished`, `finished`, `sections` (`type`, `offset` and `size` of each),
/// `orbit_version`, `event_count`, `event_counts` (by event kind), `time_span_ns` (`first`,
/// `last`, `duration`, or `null`), `process` (`pid` and `executable`, or `null`), `pids`,
/// `threads` (`tid` and `name` of each), `frame_track_function_ids` (or `null`) and `error`,
/// in that order.
#[derive(Debug)]
pub struct Info<'a> {
    /// The capture, for its header and sections.
    pub capture: Capture<'a>,
    /// The file's size in bytes.
    pub file_size: u64,
    /// Events by kind name.
    pub counts: BTreeMap<&'static str, u64>,
    /// Events read.
    pub events: u64,
    /// The earliest time of the events that have one (ns).
    pub first_ns: Option<u64>,
    /// The latest time of the events that have one (ns).
    pub last_ns: Option<u64>,
    /// The process id and executable of `CaptureStarted`.
    pub process: Option<(u32, String)>,
    /// The Orbit version (major, minor) that wrote the capture, when it says.
    pub orbit_version: Option<(u32, u32)>,
    /// Every thread id met, with the last name the capture gives it.
    pub threads: BTreeMap<u32, Option<String>>,
    /// Every process id met.
    pub pids: BTreeSet<u32>,
    /// Where the events end (after `CaptureFinished`, or at the fault).
    pub capture_end: u64,
    /// Whether the events end with `CaptureFinished`.
    pub finished: bool,
    /// The function ids of USER_DATA's frame tracks, when the capture has them.
    pub frame_tracks: Option<Vec<u64>>,
    /// The fault that stopped the walk, if the capture is damaged.
    pub fault: Option<Fault>,
}

impl Info<'_> {
    /// The file header.
    pub fn header(&self) -> &Header {
        self.capture.header()
    }
}

/// The report of `data`; `Err` when its header cannot be read.
pub fn info(data: &[u8]) -> Result<Info<'_>, Fault> {
    let capture = Capture::parse(data).map_err(fault)?;
    let mut f = Info {
        capture,
        file_size: data.len() as u64,
        counts: BTreeMap::new(),
        events: 0,
        first_ns: None,
        last_ns: None,
        process: None,
        orbit_version: None,
        threads: BTreeMap::new(),
        pids: BTreeSet::new(),
        capture_end: 0,
        finished: false,
        frame_tracks: None,
        fault: None,
    };
    let user_data = gather(&capture, &mut f);
    f.frame_tracks = user_data
        .and_then(|u| u.view().ok())
        .and_then(|v| v.frame_tracks().ok())
        .map(|f| f.frame_track_function_ids.iter().collect());
    Ok(f)
}

fn fault(e: tracecap_orbit::Error) -> Fault {
    Fault::new(e.kind, e.offset)
}

/// Walks the events with the checks `validate` applies (see `tracecap_orbit::validate`), in the
/// same order, so that the first fault is the one `validate` reports; with none, also checks
/// what follows the events and returns USER_DATA.
fn gather<'a>(capture: &Capture<'a>, f: &mut Info<'a>) -> Option<UserData<'a>> {
    let mut events = capture.events();
    let name_thread = |f: &mut Info<'a>, t: &ThreadName<'_>| {
        f.threads
            .insert(t.tid, Some(String::from_utf8_lossy(t.name).into_owned()));
    };
    for ev in events.by_ref() {
        let view = match ev.and_then(|ev| {
            validate::check_event(&ev)?;
            Ok((ev, ev.view()?))
        }) {
            Ok(v) => v,
            Err(e) => {
                f.fault = Some(fault(e));
                break;
            }
        };
        let (ev, view) = view;
        f.events += 1;
        *f.counts.entry(ev.kind.name()).or_default() += 1;
        if let Some((a, b)) = view.time_span() {
            if a != 0 || b != 0 {
                f.first_ns = Some(f.first_ns.map_or(a, |x| x.min(a)));
                f.last_ns = Some(f.last_ns.map_or(b, |x| x.max(b)));
            }
        }
        if let Some(tid) = view.tid() {
            f.threads.entry(tid).or_insert(None);
        }
        match view {
            EventView::CaptureStarted(s) => {
                f.process = Some((s.process_id, s.executable_path.to_string()));
                f.pids.insert(s.process_id);
                if s.orbit_version_major != 0 || s.orbit_version_minor != 0 {
                    f.orbit_version = Some((s.orbit_version_major, s.orbit_version_minor));
                }
            }
            EventView::ThreadName(t) => name_thread(f, &t),
            EventView::ThreadNamesSnapshot(s) => {
                for (bytes, off) in s.thread_names {
                    if let Ok(t) = ThreadName::parse(bytes, off) {
                        name_thread(f, &t);
                        if t.pid != 0 {
                            f.pids.insert(t.pid);
                        }
                    }
                }
            }
            EventView::SchedulingSlice(s) if s.pid != 0 => {
                f.pids.insert(s.pid);
            }
            _ => {}
        }
    }
    f.finished = events.finished();
    f.capture_end = events.position();
    let mut user_data = None;
    if f.fault.is_none() {
        match validate::check_end(capture, &events) {
            Ok(u) => user_data = u,
            Err(e) => f.fault = Some(fault(e)),
        }
    }
    user_data
}

/// How the file is laid out, in words.
pub fn layout_name(l: Layout) -> &'static str {
    match l {
        Layout::Current => "current (Orbit 1.65+)",
        Layout::Orbit164 => "Orbit 1.64 (u16 section count, raw USER_DATA)",
    }
}

/// One section of the JSON report.
struct SectionJson(Section);

impl Serialize for SectionJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Section", 3)?;
        m.serialize_field("type", &self.0.section_type)?;
        m.serialize_field("offset", &self.0.offset)?;
        m.serialize_field("size", &self.0.size)?;
        m.end()
    }
}

/// The time span of the JSON report.
struct Span(u64, u64);

impl Serialize for Span {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Span", 3)?;
        m.serialize_field("first", &self.0)?;
        m.serialize_field("last", &self.1)?;
        m.serialize_field("duration", &self.1.saturating_sub(self.0))?;
        m.end()
    }
}

/// The process of the JSON report.
struct Process<'p>(u32, &'p str);

impl Serialize for Process<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Process", 2)?;
        m.serialize_field("pid", &self.0)?;
        m.serialize_field("executable", self.1)?;
        m.end()
    }
}

/// One thread of the JSON report.
struct ThreadJson<'t>(u32, Option<&'t str>);

impl Serialize for ThreadJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Thread", 2)?;
        m.serialize_field("tid", &self.0)?;
        m.serialize_field("name", &self.1)?;
        m.end()
    }
}

impl Serialize for Info<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let h = self.header();
        let mut m = s.serialize_struct("Info", 19)?;
        m.serialize_field("format", "orbit")?;
        m.serialize_field("version", &h.version)?;
        m.serialize_field("layout", layout_name(self.capture.layout()))?;
        m.serialize_field("file_size", &self.file_size)?;
        m.serialize_field("capture_section_offset", &h.capture_section_offset)?;
        m.serialize_field("section_list_offset", &h.section_list_offset)?;
        m.serialize_field("capture_section_end", &self.capture.capture_section_bound())?;
        m.serialize_field("end_of_capture_finished", &self.capture_end)?;
        m.serialize_field("finished", &self.finished)?;
        m.serialize_field("sections", &Items(self.capture.sections().map(SectionJson)))?;
        let version = self.orbit_version.map(|(a, b)| std::format!("{a}.{b}"));
        m.serialize_field("orbit_version", &version)?;
        m.serialize_field("event_count", &self.events)?;
        m.serialize_field("event_counts", &Pairs(self.counts.iter()))?;
        let span = match (self.first_ns, self.last_ns) {
            (Some(a), Some(b)) => Some(Span(a, b)),
            _ => None,
        };
        m.serialize_field("time_span_ns", &span)?;
        let process = self.process.as_ref().map(|(pid, path)| Process(*pid, path));
        m.serialize_field("process", &process)?;
        m.serialize_field("pids", &Items(self.pids.iter()))?;
        let threads = self
            .threads
            .iter()
            .map(|(tid, name)| ThreadJson(*tid, name.as_deref()));
        m.serialize_field("threads", &Items(threads))?;
        m.serialize_field("frame_track_function_ids", &self.frame_tracks)?;
        m.serialize_field("error", &self.fault)?;
        m.end()
    }
}
