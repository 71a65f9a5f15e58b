//! [`Pprof`]: a pprof profile (`perftools.profiles.Profile`, gzip-compressed) of a timeline's call
//! stacks, or, for a capture without stacks, of its nested calls' self time.
//!
//! Stack samples are written as they come: each is one `Sample` field of the `Profile` message,
//! appended to the compressed stream (protobuf allows a message's fields in any order, and a
//! repeated field's entries between other fields). What samples refer to (strings, functions,
//! locations, mappings) is kept in tables bounded by the distinct frames, modules and names, and
//! written after the samples, with the sample type and the time span, by [`Pprof::finish`].
//!
//! Without stack samples, the profile is built from the slices on thread tracks: each thread's
//! slices, nested as they were sent, form a call tree per thread, each node holding the self
//! time (its duration minus its children's) of the calls on its path, in nanoseconds. Slices on
//! other tracks (CPU, thread state, async, markers), instants and counters are not calls and are
//! left out. The tree is written as samples by [`Pprof::finish`], one per path with self time,
//! and only when the timeline sent no stack sample.

use std::collections::HashMap;
use std::io::{self, Write};

use flate2::write::GzEncoder;
use prost::Message;

use super::pprof_proto as pb;
use crate::timeline::{
    CounterValue, Event, Frame, Sink, StackId, StackKind, StackSample, Track, TrackId, TrackKind,
    Wants,
};

/// A call tree node: its parent (0 for a thread's root) and its location.
type NodeKey = (u32, u64);

/// An open slice on a thread track: its call tree node, start, and the time of its children.
#[derive(Clone, Copy)]
struct Open {
    node: u32,
    start: u64,
    children: u64,
}

/// A track as the profile labels it.
struct TrackInfo {
    /// The `thread` label (string index of the track's name, or of `thread <tid>`).
    thread: i64,
    /// The thread id, for the `tid` label (threads only).
    tid: Option<i64>,
    /// For thread tracks: the call tree root of the track, and the slices open on it.
    calls: Option<(u32, Vec<Open>)>,
}

/// Writes a gzip-compressed pprof profile as a [`Sink`] is called (see the module docs).
///
/// ```
/// use prost::Message;
/// use std::io::Read;
/// use tracecap::export::{pprof_proto, Pprof};
/// use tracecap::timeline::*;
///
/// let mut p = Pprof::new(Vec::new());
/// let thread = TrackId(1);
/// p.track(&Track { id: thread, parent: None, kind: TrackKind::Thread { pid: 1, tid: 2 }, name: "main" })?;
/// let frame = |function| Frame { function, module: "/bin/app", file: "", line: None, address: None };
/// p.stack(StackId(7), &[frame("leaf"), frame("main")])?;
/// let sample = StackSample { track: thread, ts: 10, stack: StackId(7), weight: 1, kind: StackKind::Sample, call: None };
/// p.stack_sample(&sample)?;
/// let gz = p.finish()?;
/// let mut bytes = Vec::new();
/// flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut bytes)?;
/// let profile = pprof_proto::Profile::decode(&bytes[..])?;
/// assert_eq!(profile.sample.len(), 1);
/// assert_eq!(profile.sample[0].location_id.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Pprof<W: Write> {
    out: GzEncoder<W>,
    /// The string table, in order, and each string's index.
    strings: Vec<String>,
    string_ids: HashMap<String, i64>,
    /// Functions by (name, file) string index.
    functions: HashMap<(i64, i64), u64>,
    function_list: Vec<pb::Function>,
    /// Mappings by file name string index.
    mappings: HashMap<i64, u64>,
    mapping_list: Vec<pb::Mapping>,
    /// Locations by (address, function, mapping, line).
    locations: HashMap<(u64, u64, u64, i64), u64>,
    location_list: Vec<pb::Location>,
    /// The location of each name a call is known by (call names, slice names).
    named: HashMap<String, u64>,
    /// Each declared stack: where its locations are in `stack_locations`.
    stacks: HashMap<u64, (usize, usize)>,
    stack_locations: Vec<u64>,
    tracks: HashMap<TrackId, TrackInfo>,
    /// The call tree of the slices: node by (parent, location), each node's key and self time.
    nodes: HashMap<NodeKey, u32>,
    node_list: Vec<(NodeKey, u64)>,
    /// Reused for every sample written (no allocation per sample).
    sample: pb::Sample,
    buf: Vec<u8>,
    samples: u64,
    /// Of `samples`, the backtraces of calls ([`StackKind::Call`]).
    call_samples: u64,
    first_ts: Option<u64>,
    last_ts: Option<u64>,
    thread_key: i64,
    tid_key: i64,
}

impl<W: Write> Pprof<W> {
    /// A profile written, gzip-compressed, into `out`.
    pub fn new(out: W) -> Self {
        let mut p = Pprof {
            out: GzEncoder::new(out, flate2::Compression::default()),
            strings: Vec::new(),
            string_ids: HashMap::new(),
            functions: HashMap::new(),
            function_list: Vec::new(),
            mappings: HashMap::new(),
            mapping_list: Vec::new(),
            locations: HashMap::new(),
            location_list: Vec::new(),
            named: HashMap::new(),
            stacks: HashMap::new(),
            stack_locations: Vec::new(),
            tracks: HashMap::new(),
            // Node 0 stands for "no parent".
            nodes: HashMap::new(),
            node_list: vec![((0, 0), 0)],
            sample: pb::Sample::default(),
            buf: Vec::new(),
            samples: 0,
            call_samples: 0,
            first_ts: None,
            last_ts: None,
            thread_key: 0,
            tid_key: 0,
        };
        p.string("");
        p.thread_key = p.string("thread");
        p.tid_key = p.string("tid");
        p
    }

    /// The index of `s` in the string table.
    fn string(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.string_ids.get(s) {
            return i;
        }
        let i = self.strings.len() as i64;
        self.strings.push(s.to_owned());
        self.string_ids.insert(s.to_owned(), i);
        i
    }

    fn time(&mut self, ts: u64) {
        self.first_ts = Some(self.first_ts.map_or(ts, |t| t.min(ts)));
        self.last_ts = Some(self.last_ts.map_or(ts, |t| t.max(ts)));
    }

    /// The location of `frame`, made on first sight.
    fn location(&mut self, frame: &Frame<'_>) -> u64 {
        let name = self.string(frame.function);
        let file = self.string(frame.file);
        let function = match self.functions.get(&(name, file)) {
            Some(&id) => id,
            None => {
                let id = self.function_list.len() as u64 + 1;
                self.function_list.push(pb::Function {
                    id,
                    name,
                    system_name: name,
                    filename: file,
                    start_line: 0,
                });
                self.functions.insert((name, file), id);
                id
            }
        };
        let mapping = if frame.module.is_empty() {
            0
        } else {
            let module = self.string(frame.module);
            match self.mappings.get(&module) {
                Some(&id) => id,
                None => {
                    let id = self.mapping_list.len() as u64 + 1;
                    self.mapping_list.push(pb::Mapping {
                        id,
                        filename: module,
                        has_functions: true,
                        ..pb::Mapping::default()
                    });
                    self.mappings.insert(module, id);
                    id
                }
            }
        };
        let address = frame.address.unwrap_or(0);
        let line = frame.line.map_or(0, i64::from);
        let key = (address, function, mapping, line);
        if let Some(&id) = self.locations.get(&key) {
            return id;
        }
        let id = self.location_list.len() as u64 + 1;
        self.location_list.push(pb::Location {
            id,
            mapping_id: mapping,
            address,
            line: vec![pb::Line {
                function_id: function,
                line,
                column: 0,
            }],
            is_folded: false,
        });
        self.locations.insert(key, id);
        id
    }

    /// The location of a frame known only by its name (a call, a slice).
    fn named_location(&mut self, name: &str) -> u64 {
        if let Some(&id) = self.named.get(name) {
            return id;
        }
        let id = self.location(&Frame {
            function: name,
            module: "",
            file: "",
            line: None,
            address: None,
        });
        self.named.insert(name.to_owned(), id);
        id
    }

    /// Writes `self.sample` (its locations set) with `value` and the labels of `track`.
    fn write_sample(&mut self, track: TrackId, value: i64) -> io::Result<()> {
        self.sample.value.clear();
        self.sample.value.push(value);
        self.sample.label.clear();
        if let Some(t) = self.tracks.get(&track) {
            self.sample.label.push(pb::Label {
                key: self.thread_key,
                str: t.thread,
                ..pb::Label::default()
            });
            if let Some(tid) = t.tid {
                self.sample.label.push(pb::Label {
                    key: self.tid_key,
                    num: tid,
                    ..pb::Label::default()
                });
            }
        }
        self.buf.clear();
        prost::encoding::message::encode(2, &self.sample, &mut self.buf);
        self.samples += 1;
        self.out.write_all(&self.buf)
    }

    /// Closes the innermost open slice of `track` at `end`: its self time goes to its node, its
    /// duration to its parent's children.
    fn close(&mut self, track: TrackId, end: u64) {
        let Some((_, open)) = self.tracks.get_mut(&track).and_then(|t| t.calls.as_mut()) else {
            return;
        };
        let Some(slice) = open.pop() else {
            return;
        };
        let dur = end.saturating_sub(slice.start);
        if let Some(parent) = open.last_mut() {
            parent.children = parent.children.saturating_add(dur);
        }
        if let Some(node) = self.node_list.get_mut(slice.node as usize) {
            node.1 = node.1.saturating_add(dur.saturating_sub(slice.children));
        }
    }

    /// Opens a slice named `name` on `track` at `ts`, if `track` is a thread's.
    fn open(&mut self, track: TrackId, ts: u64, name: &str) {
        let parent = match self.tracks.get(&track).and_then(|t| t.calls.as_ref()) {
            Some((root, open)) => open.last().map_or(*root, |o| o.node),
            None => return,
        };
        let location = self.named_location(name);
        let key = (parent, location);
        let node = match self.nodes.get(&key) {
            Some(&n) => n,
            None => {
                let n = self.node_list.len() as u32;
                self.node_list.push((key, 0));
                self.nodes.insert(key, n);
                n
            }
        };
        if let Some((_, open)) = self.tracks.get_mut(&track).and_then(|t| t.calls.as_mut()) {
            open.push(Open {
                node,
                start: ts,
                children: 0,
            });
        }
    }

    /// Writes the call tree's self times as samples (one per path with self time).
    fn write_calls(&mut self) -> io::Result<()> {
        let roots: HashMap<u32, TrackId> = self
            .tracks
            .iter()
            .filter_map(|(&id, t)| t.calls.as_ref().map(|c| (c.0, id)))
            .collect();
        for n in 1..self.node_list.len() {
            let Some(&(_, value)) = self.node_list.get(n) else {
                break;
            };
            if value == 0 {
                continue;
            }
            self.sample.location_id.clear();
            let mut at = n as u32;
            let mut track = None;
            // Each parent was made before its children: the walk ends.
            while let Some(&((parent, location), _)) = self.node_list.get(at as usize) {
                if let Some(&t) = roots.get(&at) {
                    track = Some(t);
                    break;
                }
                self.sample.location_id.push(location);
                if parent >= at {
                    break;
                }
                at = parent;
            }
            let value = i64::try_from(value).unwrap_or(i64::MAX);
            self.write_sample(track.unwrap_or(TrackId(0)), value)?;
        }
        Ok(())
    }

    /// Ends the profile (its tables, sample type and time span) and the gzip stream, and returns
    /// the writer.
    pub fn finish(mut self) -> io::Result<W> {
        let (kind, unit) = if self.samples > 0 && self.call_samples == self.samples {
            ("calls", "count")
        } else if self.samples > 0 {
            ("samples", "count")
        } else {
            self.write_calls()?;
            ("wall", "nanoseconds")
        };
        let sample_type = pb::ValueType {
            r#type: self.string(kind),
            unit: self.string(unit),
        };
        let first = self.first_ts.unwrap_or(0);
        let span = self.last_ts.unwrap_or(first).saturating_sub(first);
        let tail = pb::Profile {
            sample_type: vec![sample_type],
            mapping: core::mem::take(&mut self.mapping_list),
            location: core::mem::take(&mut self.location_list),
            function: core::mem::take(&mut self.function_list),
            string_table: core::mem::take(&mut self.strings),
            time_nanos: i64::try_from(first).unwrap_or(i64::MAX),
            duration_nanos: i64::try_from(span).unwrap_or(i64::MAX),
            ..pb::Profile::default()
        };
        self.out.write_all(&tail.encode_to_vec())?;
        self.out.finish()
    }
}

impl<W: Write> Sink for Pprof<W> {
    type Error = io::Error;

    fn track(&mut self, track: &Track<'_>) -> io::Result<()> {
        let (thread, tid, calls) = match track.kind {
            TrackKind::Thread { tid, .. } => {
                let thread = if track.name.is_empty() {
                    self.string(&format!("thread {tid}"))
                } else {
                    self.string(track.name)
                };
                let root = self.node_list.len() as u32;
                self.node_list.push(((0, 0), 0));
                (thread, i64::try_from(tid).ok(), Some((root, Vec::new())))
            }
            _ => (self.string(track.name), None, None),
        };
        self.tracks
            .insert(track.id, TrackInfo { thread, tid, calls });
        Ok(())
    }

    fn begin(&mut self, event: &Event<'_>) -> io::Result<()> {
        self.time(event.ts);
        self.open(event.track, event.ts, event.name);
        Ok(())
    }

    fn end(&mut self, track: TrackId, ts: u64) -> io::Result<()> {
        self.time(ts);
        self.close(track, ts);
        Ok(())
    }

    fn complete(&mut self, event: &Event<'_>, dur: u64) -> io::Result<()> {
        let end = event.ts.saturating_add(dur);
        self.time(event.ts);
        self.time(end);
        self.open(event.track, event.ts, event.name);
        self.close(event.track, end);
        Ok(())
    }

    fn instant(&mut self, _: &Event<'_>) -> io::Result<()> {
        Ok(())
    }

    fn counter(&mut self, _: TrackId, _: u64, _: CounterValue) -> io::Result<()> {
        Ok(())
    }

    fn wants(&self) -> Wants {
        Wants {
            slices: true,
            ..Wants::NOTHING
        }
    }

    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> io::Result<()> {
        let start = self.stack_locations.len();
        for frame in frames {
            let location = self.location(frame);
            self.stack_locations.push(location);
        }
        self.stacks.insert(id.0, (start, frames.len()));
        Ok(())
    }

    fn stack_sample(&mut self, sample: &StackSample<'_>) -> io::Result<()> {
        let Some(&(start, len)) = self.stacks.get(&sample.stack.0) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("stack {} sampled before it was declared", sample.stack.0),
            ));
        };
        self.time(sample.ts);
        self.sample.location_id.clear();
        if let (StackKind::Call, Some(call)) = (sample.kind, sample.call) {
            let location = self.named_location(call);
            self.sample.location_id.push(location);
        }
        let locations = self
            .stack_locations
            .get(start..start.saturating_add(len))
            .unwrap_or(&[]);
        self.sample.location_id.extend_from_slice(locations);
        if sample.kind == StackKind::Call {
            self.call_samples += 1;
        }
        let weight = i64::try_from(sample.weight).unwrap_or(i64::MAX);
        self.write_sample(sample.track, weight)
    }

    fn wants_stacks(&self) -> bool {
        true
    }
}
