//! Perfetto protobuf (`.pftrace`), written packet by packet.
//!
//! The packets of tracks and the sequence's first packet are built as [`perfetto_proto`]
//! messages. The packets of events, one or two per event, are encoded field by field
//! (the `protobuf` module) in the order prost encodes the same messages (by field number, a `oneof` at the
//! place of its lowest field number), which gives prost's bytes without building the messages.
//!
//! [`perfetto_proto`]: super::perfetto_proto

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::io::{self, Write};

use hashbrown::HashTable;

use prost::Message;

use super::perfetto_proto::{
    self as proto, profiling, trace_packet, track_event, CounterDescriptor, InternedData,
    ProcessDescriptor, ThreadDescriptor, TracePacket, TrackDescriptor,
};
use super::protobuf as pb;
use crate::timeline::{
    Arg, ByNameId, CounterValue, Event, Frame, NameId, Sink, StackId, StackSample, Track, TrackId,
    TrackKind, Value,
};

/// Our one packet sequence.
const SEQUENCE: u32 = 1;
/// Entries per interning table; past it, strings are written inline (bounds memory on inputs
/// with unbounded distinct names).
const INTERN_LIMIT: usize = 1 << 16;
/// Longest string value that is interned (longer ones are unlikely to repeat).
const INTERN_MAX_LEN: usize = 256;
/// Places of an event (category, argument names and values) whose last string is remembered.
const RECENT_PLACES: usize = 16;

/// Field numbers of the messages an event packet holds (Perfetto's `trace_packet.proto`,
/// `track_event.proto`, `debug_annotation.proto` and `interned_data.proto`).
mod field {
    /// `Trace.packet`.
    pub const TRACE_PACKET: u32 = 1;

    pub const PACKET_TIMESTAMP: u32 = 8;
    pub const PACKET_SEQUENCE_ID: u32 = 10;
    pub const PACKET_TRACK_EVENT: u32 = 11;
    pub const PACKET_INTERNED_DATA: u32 = 12;
    pub const PACKET_SEQUENCE_FLAGS: u32 = 13;
    pub const PACKET_PERF_SAMPLE: u32 = 66;

    pub const SAMPLE_PID: u32 = 2;
    pub const SAMPLE_TID: u32 = 3;
    pub const SAMPLE_CALLSTACK_IID: u32 = 4;
    pub const SAMPLE_CPU_MODE: u32 = 5;

    pub const EVENT_CATEGORY_IIDS: u32 = 3;
    pub const EVENT_DEBUG_ANNOTATIONS: u32 = 4;
    pub const EVENT_TYPE: u32 = 9;
    pub const EVENT_NAME_IID: u32 = 10;
    pub const EVENT_TRACK_UUID: u32 = 11;
    pub const EVENT_CATEGORIES: u32 = 22;
    pub const EVENT_NAME: u32 = 23;
    pub const EVENT_COUNTER_VALUE: u32 = 30;
    pub const EVENT_DOUBLE_COUNTER_VALUE: u32 = 44;
    pub const EVENT_FLOW_IDS: u32 = 47;
    pub const EVENT_TERMINATING_FLOW_IDS: u32 = 48;

    pub const ANNOTATION_NAME_IID: u32 = 1;
    pub const ANNOTATION_BOOL: u32 = 2;
    pub const ANNOTATION_UINT: u32 = 3;
    pub const ANNOTATION_INT: u32 = 4;
    pub const ANNOTATION_DOUBLE: u32 = 5;
    pub const ANNOTATION_STRING: u32 = 6;
    pub const ANNOTATION_NAME: u32 = 10;
    pub const ANNOTATION_STRING_IID: u32 = 17;

    pub const INTERNED_EVENT_CATEGORIES: u32 = 1;
    pub const INTERNED_EVENT_NAMES: u32 = 2;
    pub const INTERNED_ANNOTATION_NAMES: u32 = 3;
    pub const INTERNED_STRING_VALUES: u32 = 29;

    /// `iid` and `name` (or `str`) of every interned entry.
    pub const ENTRY_IID: u32 = 1;
    pub const ENTRY_NAME: u32 = 2;
}

/// Interned strings of one kind and their iids (from 1, in the order they were first seen).
///
/// The strings lie one after another in one buffer, so that interning allocates only when the
/// buffer or the table doubles.
#[derive(Debug, Default)]
struct Interner {
    /// The strings' bytes, one after another.
    text: Vec<u8>,
    table: HashTable<Interned>,
    hasher: foldhash::fast::RandomState,
    /// The iid of each numbered name met so far.
    by_id: ByNameId<u64>,
    /// The string met last at each place of an event (see [`Interner::get_at`]).
    recent: Vec<Option<Interned>>,
}

/// Where an interned string lies in [`Interner::text`], and its iid.
#[derive(Debug, Clone, Copy)]
struct Interned {
    start: u32,
    len: u32,
    iid: u64,
}

impl Interned {
    #[inline]
    fn of<'t>(&self, text: &'t [u8]) -> &'t [u8] {
        let start = self.start as usize;
        text.get(start..start + self.len as usize)
            .unwrap_or_default()
    }

    /// Whether this is the entry of `s`.
    #[inline]
    fn is(&self, text: &[u8], s: &[u8]) -> bool {
        self.len as usize == s.len() && self.of(text) == s
    }
}

impl Interner {
    /// [`Interner::get`] for a name that may carry a number: a numbered name is looked up by its
    /// number once it has an iid.
    #[inline]
    fn get_named(&mut self, id: Option<NameId>, s: &str) -> Option<(u64, bool)> {
        if let Some(iid) = self.by_id.get(id) {
            return Some((iid, false));
        }
        let found = self.get(s);
        if let Some((iid, _)) = found {
            self.by_id.insert(id, iid);
        }
        found
    }

    /// [`Interner::get`] for the string at place `place` of an event (its category, or its
    /// n-th argument's name or value): the string met last at that place is compared first,
    /// since events mostly repeat the strings of the one before at the same place.
    #[inline(always)]
    fn get_at(&mut self, place: usize, s: &str) -> Option<(u64, bool)> {
        if let Some(Some(last)) = self.recent.get(place) {
            if last.is(&self.text, s.as_bytes()) {
                return Some((last.iid, false));
            }
        }
        self.get_at_table(place, s)
    }

    /// [`Interner::get_at`] of a string other than the last at its place: looked up in the
    /// table, and kept as the last at its place.
    #[inline(never)]
    fn get_at_table(&mut self, place: usize, s: &str) -> Option<(u64, bool)> {
        let (entry, new) = self.entry(s)?;
        if place < RECENT_PLACES {
            if self.recent.len() <= place {
                self.recent.resize(place + 1, None);
            }
            if let Some(slot) = self.recent.get_mut(place) {
                *slot = Some(entry);
            }
        }
        Some((entry.iid, new))
    }

    /// The iid of `s` (and whether it is new), or `None` when `s` is to be written inline.
    #[inline]
    fn get(&mut self, s: &str) -> Option<(u64, bool)> {
        self.entry(s).map(|(entry, new)| (entry.iid, new))
    }

    /// Where `s` lies (and whether it is new), or `None` when `s` is to be written inline.
    #[inline]
    fn entry(&mut self, s: &str) -> Option<(Interned, bool)> {
        let Interner {
            text,
            table,
            hasher,
            ..
        } = self;
        let s = s.as_bytes();
        let hash = hasher.hash_one(s);
        if let Some(e) = table.find(hash, |e| e.is(text, s)) {
            return Some((*e, false));
        }
        if table.len() >= INTERN_LIMIT || s.len() > INTERN_MAX_LEN {
            return None;
        }
        // At most INTERN_LIMIT strings of INTERN_MAX_LEN bytes: 16 MiB, within u32.
        let entry = Interned {
            start: text.len() as u32,
            len: s.len() as u32,
            iid: table.len() as u64 + 1,
        };
        text.extend_from_slice(s);
        table.insert_unique(hash, entry, |e| hasher.hash_one(e.of(text)));
        Some((entry, true))
    }
}

/// The entries of the strings an event packet interns, encoded, kept apart until the packet's
/// `InternedData` is written after its `TrackEvent` (each repeated field of `InternedData` comes
/// whole, in field order).
#[derive(Debug, Default)]
struct NewEntries {
    categories: Vec<u8>,
    names: Vec<u8>,
    arg_names: Vec<u8>,
    strings: Vec<u8>,
}

impl NewEntries {
    fn clear(&mut self) {
        self.categories.clear();
        self.names.clear();
        self.arg_names.clear();
        self.strings.clear();
    }

    /// `InternedData`'s fields, in field order.
    fn fields(&self) -> [&[u8]; 4] {
        [
            &self.categories,
            &self.names,
            &self.arg_names,
            &self.strings,
        ]
    }
}

/// The iid `found` gives `s` (from an [`Interner`]), its entry added to `new` (as field `field`
/// of `InternedData`) when `s` is new; `None` when `s` is to be written inline.
#[inline]
fn interned(found: Option<(u64, bool)>, s: &str, new: &mut Vec<u8>, field: u32) -> Option<u64> {
    let (iid, is_new) = found?;
    if is_new {
        new_entry(new, field, iid, s);
    }
    Some(iid)
}

/// The entry of a string interned for the first time (an iid and the string), as field `field`
/// of `InternedData`. Out of line: most events intern nothing new.
#[cold]
fn new_entry(new: &mut Vec<u8>, field: u32, iid: u64, s: &str) {
    let mark = pb::open(new, field);
    pb::uint(new, field::ENTRY_IID, iid);
    pb::bytes(new, field::ENTRY_NAME, s.as_bytes());
    pb::close(new, mark);
}

/// A [`Sink`] writing a Perfetto trace (a stream of `TracePacket`s, i.e. a `Trace` message) to `W`.
///
/// Tracks become `TrackDescriptor`s (process, thread, counter or plain named tracks, with their
/// parents); slices, instants and counter samples become `TrackEvent`s on one packet sequence whose
/// first packet clears the incremental state. Event names, categories, argument names and short
/// string arguments are interned (`InternedData`), each emitted on the packet that first uses it.
///
/// Call stacks ([`Sink::stack`]) become interned callstacks, each declared on a packet of its own
/// with the function names, mappings (one per module) and frames it brings first; a stack sample
/// becomes a `PerfSample` packet (pid, tid, callstack) at its time, which Perfetto shows as the
/// thread's CPU samples with their flame graph. A sample's weight is not written: each is one
/// sample. Call [`Perfetto::finish`] at the end.
#[derive(Debug)]
pub struct Perfetto<W: Write> {
    out: W,
    /// The packet being written (reused, so that writing an event allocates nothing).
    buf: Vec<u8>,
    names: Interner,
    categories: Interner,
    arg_names: Interner,
    strings: Interner,
    new: NewEntries,
    stacks: Stacks,
}

/// The interned call stacks: each table's iids count from 1 in the order entries were first seen.
#[derive(Debug, Default)]
struct Stacks {
    /// Each thread track's pid and tid, for the samples on it.
    threads: HashMap<TrackId, (u32, u32)>,
    /// The callstack iid of each declared stack.
    callstacks: HashMap<StackId, u64>,
    functions: HashMap<String, u64>,
    /// Mapping iids by module path (a mapping and its path share an iid).
    mappings: HashMap<String, u64>,
    /// Frame iids by function iid, mapping iid and address.
    frames: HashMap<(u64, u64, Option<u64>), u64>,
}

impl<W: Write> Perfetto<W> {
    /// Starts the trace with the packet that opens our sequence.
    pub fn new(out: W) -> io::Result<Self> {
        let mut p = Perfetto {
            out,
            buf: Vec::with_capacity(256),
            names: Interner::default(),
            categories: Interner::default(),
            arg_names: Interner::default(),
            strings: Interner::default(),
            new: NewEntries::default(),
            stacks: Stacks::default(),
        };
        p.packet(&TracePacket {
            trusted_packet_sequence_id: Some(SEQUENCE),
            sequence_flags: Some(trace_packet::SequenceFlags::SeqIncrementalStateCleared as u32),
            first_packet_on_sequence: Some(true),
            incremental_state_cleared: Some(true),
            ..Default::default()
        })?;
        Ok(p)
    }

    /// Flushes and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    /// Writes one packet built as a message, as field 1 of `Trace`.
    fn packet(&mut self, packet: &TracePacket) -> io::Result<()> {
        self.buf.clear();
        pb::bytes(&mut self.buf, field::TRACE_PACKET, &packet.encode_to_vec());
        self.out.write_all(&self.buf)
    }

    /// Starts an event's packet: `TracePacket { timestamp, trusted_packet_sequence_id,
    /// track_event {` (the track event's fields follow). Returns the marks [`Self::end_packet`]
    /// closes.
    fn start_packet(&mut self, ts: u64) -> (Vec<u8>, [usize; 2]) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        self.new.clear();
        let packet = pb::open(&mut buf, field::TRACE_PACKET);
        pb::uint(&mut buf, field::PACKET_TIMESTAMP, ts);
        pb::uint(&mut buf, field::PACKET_SEQUENCE_ID, u64::from(SEQUENCE));
        let track_event = pb::open(&mut buf, field::PACKET_TRACK_EVENT);
        (buf, [packet, track_event])
    }

    /// Ends the packet [`Self::start_packet`] began: `}`, the `interned_data` holding the
    /// strings the event used first, `sequence_flags`; then writes it.
    fn end_packet(
        &mut self,
        mut buf: Vec<u8>,
        [packet, track_event]: [usize; 2],
    ) -> io::Result<()> {
        pb::close(&mut buf, track_event);
        let fields = self.new.fields();
        if fields.iter().any(|f| !f.is_empty()) {
            let mark = pb::open(&mut buf, field::PACKET_INTERNED_DATA);
            for f in fields {
                buf.extend_from_slice(f);
            }
            pb::close(&mut buf, mark);
        }
        pb::uint(
            &mut buf,
            field::PACKET_SEQUENCE_FLAGS,
            trace_packet::SequenceFlags::SeqNeedsIncrementalState as u64,
        );
        pb::close(&mut buf, packet);
        let result = self.out.write_all(&buf);
        self.buf = buf;
        result
    }

    /// One `DebugAnnotation { name_iid | name, value }` of the track event in `buf`, for the
    /// event's argument number `place`.
    fn annotation(&mut self, buf: &mut Vec<u8>, place: usize, arg: &Arg<'_>) {
        let mark = pb::open(buf, field::EVENT_DEBUG_ANNOTATIONS);
        let found = self.arg_names.get_at(place, arg.name);
        let new = &mut self.new.arg_names;
        match interned(found, arg.name, new, field::INTERNED_ANNOTATION_NAMES) {
            Some(iid) => pb::uint(buf, field::ANNOTATION_NAME_IID, iid),
            None => pb::bytes(buf, field::ANNOTATION_NAME, arg.name.as_bytes()),
        }
        match arg.value {
            Value::Bool(b) => pb::boolean(buf, field::ANNOTATION_BOOL, b),
            Value::Uint(x) => pb::uint(buf, field::ANNOTATION_UINT, x),
            Value::Int(x) => pb::int(buf, field::ANNOTATION_INT, x),
            Value::Double(x) => pb::double(buf, field::ANNOTATION_DOUBLE, x),
            Value::Str(s) => {
                let found = self.strings.get_at(place, s);
                let new = &mut self.new.strings;
                match interned(found, s, new, field::INTERNED_STRING_VALUES) {
                    Some(iid) => pb::uint(buf, field::ANNOTATION_STRING_IID, iid),
                    None => pb::bytes(buf, field::ANNOTATION_STRING, s.as_bytes()),
                }
            }
        }
        pb::close(buf, mark);
    }

    /// A slice begin or an instant: `TrackEvent { category_iids, debug_annotations, type,
    /// name_iid | name, track_uuid, categories, flow_ids, terminating_flow_ids }`.
    fn write_event(&mut self, e: &Event<'_>, ty: track_event::Type) -> io::Result<()> {
        let (mut buf, marks) = self.start_packet(e.ts);
        // No category, an interned one (its iid), or one written inline (`Some(None)`).
        let category = (!e.category.is_empty()).then(|| {
            let found = self.categories.get_at(0, e.category);
            let new = &mut self.new.categories;
            interned(found, e.category, new, field::INTERNED_EVENT_CATEGORIES)
        });
        if let Some(Some(iid)) = category {
            pb::uint(&mut buf, field::EVENT_CATEGORY_IIDS, iid);
        }
        for (place, arg) in e.args.iter().enumerate() {
            self.annotation(&mut buf, place, arg);
        }
        pb::uint(&mut buf, field::EVENT_TYPE, ty as u64);
        let found = self.names.get_named(e.name_id, e.name);
        let new = &mut self.new.names;
        match interned(found, e.name, new, field::INTERNED_EVENT_NAMES) {
            Some(iid) => pb::uint(&mut buf, field::EVENT_NAME_IID, iid),
            None => pb::bytes(&mut buf, field::EVENT_NAME, e.name.as_bytes()),
        }
        pb::uint(&mut buf, field::EVENT_TRACK_UUID, e.track.0);
        if let Some(None) = category {
            pb::bytes(&mut buf, field::EVENT_CATEGORIES, e.category.as_bytes());
        }
        for f in e.flows.iter().filter(|f| !f.terminating) {
            pb::fixed64(&mut buf, field::EVENT_FLOW_IDS, f.id);
        }
        for f in e.flows.iter().filter(|f| f.terminating) {
            pb::fixed64(&mut buf, field::EVENT_TERMINATING_FLOW_IDS, f.id);
        }
        self.end_packet(buf, marks)
    }

    /// A slice end: `TrackEvent { type, track_uuid }`.
    fn write_end(&mut self, track: TrackId, ts: u64) -> io::Result<()> {
        let ty = track_event::Type::SliceEnd as u64;
        let body =
            pb::field_len(field::EVENT_TYPE, ty) + pb::field_len(field::EVENT_TRACK_UUID, track.0);
        self.small_packet(ts, body, |buf| {
            pb::uint(buf, field::EVENT_TYPE, ty);
            pb::uint(buf, field::EVENT_TRACK_UUID, track.0);
        })
    }

    /// An event's packet that interns nothing, whose `TrackEvent` takes `body` bytes, which
    /// `write` writes: `TracePacket { timestamp, trusted_packet_sequence_id, track_event {..},
    /// sequence_flags }`, each length known before its message is written.
    #[inline]
    fn small_packet(
        &mut self,
        ts: u64,
        body: usize,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> io::Result<()> {
        let flags = trace_packet::SequenceFlags::SeqNeedsIncrementalState as u64;
        let packet = pb::field_len(field::PACKET_TIMESTAMP, ts)
            + pb::field_len(field::PACKET_SEQUENCE_ID, u64::from(SEQUENCE))
            + pb::field_len(field::PACKET_TRACK_EVENT, body as u64)
            + body
            + pb::field_len(field::PACKET_SEQUENCE_FLAGS, flags);
        let buf = &mut self.buf;
        buf.clear();
        pb::open_sized(buf, field::TRACE_PACKET, packet);
        pb::uint(buf, field::PACKET_TIMESTAMP, ts);
        pb::uint(buf, field::PACKET_SEQUENCE_ID, u64::from(SEQUENCE));
        pb::open_sized(buf, field::PACKET_TRACK_EVENT, body);
        write(buf);
        pb::uint(buf, field::PACKET_SEQUENCE_FLAGS, flags);
        self.out.write_all(buf)
    }
}

/// The iid of `key` in `table`, and whether it is new (iids count from 1).
fn intern_iid<K: std::hash::Hash + Eq>(table: &mut HashMap<K, u64>, key: K) -> (u64, bool) {
    let next = table.len() as u64 + 1;
    let mut new = false;
    let iid = *table.entry(key).or_insert_with(|| {
        new = true;
        next
    });
    (iid, new)
}

impl<W: Write> Perfetto<W> {
    /// The `InternedData` declaring stack `id`: the function names, mapping paths, mappings and
    /// frames it uses first, and its callstack (outermost frame first). `None` when `id` was
    /// declared already.
    fn intern_stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Option<InternedData> {
        let st = &mut self.stacks;
        if st.callstacks.contains_key(&id) {
            return None;
        }
        let mut data = InternedData::default();
        let mut frame_ids = Vec::with_capacity(frames.len());
        for f in frames {
            let (function, new) = intern_iid(&mut st.functions, f.function.to_string());
            if new {
                data.function_names.push(proto::InternedString {
                    iid: Some(function),
                    str: Some(f.function.as_bytes().to_vec()),
                });
            }
            let (mapping, new) = intern_iid(&mut st.mappings, f.module.to_string());
            if new {
                data.mapping_paths.push(proto::InternedString {
                    iid: Some(mapping),
                    str: Some(f.module.as_bytes().to_vec()),
                });
                data.mappings.push(proto::Mapping {
                    iid: Some(mapping),
                    path_string_ids: vec![mapping],
                });
            }
            let (frame, new) = intern_iid(&mut st.frames, (function, mapping, f.address));
            if new {
                data.frames.push(proto::Frame {
                    iid: Some(frame),
                    function_name_id: Some(function),
                    mapping_id: Some(mapping),
                    rel_pc: f.address,
                });
            }
            frame_ids.push(frame);
        }
        frame_ids.reverse();
        let (callstack, _) = intern_iid(&mut st.callstacks, id);
        data.callstacks.push(proto::Callstack {
            iid: Some(callstack),
            frame_ids,
        });
        Some(data)
    }
}

impl<W: Write> Sink for Perfetto<W> {
    type Error = io::Error;

    fn track(&mut self, track: &Track<'_>) -> io::Result<()> {
        let name = (!track.name.is_empty()).then(|| track.name.to_string());
        let mut desc = TrackDescriptor {
            uuid: Some(track.id.0),
            parent_uuid: track.parent.map(|p| p.0),
            ..Default::default()
        };
        match track.kind {
            TrackKind::Process { pid } => match i32::try_from(pid) {
                Ok(pid) => {
                    desc.process = Some(ProcessDescriptor {
                        pid: Some(pid),
                        process_name: name,
                    })
                }
                Err(_) => desc.name = name,
            },
            TrackKind::Thread { pid, tid } => match (i32::try_from(pid), i32::try_from(tid)) {
                (Ok(pid), Ok(tid)) => {
                    // A thread track stands on its own: Perfetto links it to the process by pid.
                    desc.parent_uuid = None;
                    self.stacks
                        .threads
                        .insert(track.id, (pid as u32, tid as u32));
                    desc.thread = Some(ThreadDescriptor {
                        pid: Some(pid),
                        tid: Some(tid),
                        thread_name: name,
                    })
                }
                _ => desc.name = name,
            },
            TrackKind::Counter => {
                desc.name = name;
                desc.counter = Some(CounterDescriptor {});
            }
            TrackKind::Slices => desc.name = name,
        }
        self.packet(&TracePacket {
            trusted_packet_sequence_id: Some(SEQUENCE),
            track_descriptor: Some(desc),
            ..Default::default()
        })
    }

    fn begin(&mut self, e: &Event<'_>) -> io::Result<()> {
        self.write_event(e, track_event::Type::SliceBegin)
    }

    fn end(&mut self, track: TrackId, ts: u64) -> io::Result<()> {
        self.write_end(track, ts)
    }

    fn complete(&mut self, e: &Event<'_>, dur: u64) -> io::Result<()> {
        self.write_event(e, track_event::Type::SliceBegin)?;
        self.write_end(e.track, e.ts.saturating_add(dur))
    }

    fn instant(&mut self, e: &Event<'_>) -> io::Result<()> {
        self.write_event(e, track_event::Type::Instant)
    }

    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> io::Result<()> {
        // `TrackEvent { type, track_uuid, counter_value | double_counter_value }`.
        let ty = track_event::Type::Counter as u64;
        let value_len = match value {
            CounterValue::Int(x) => pb::field_len(field::EVENT_COUNTER_VALUE, x as u64),
            CounterValue::Double(_) => pb::fixed64_len(field::EVENT_DOUBLE_COUNTER_VALUE),
        };
        let body = pb::field_len(field::EVENT_TYPE, ty)
            + pb::field_len(field::EVENT_TRACK_UUID, track.0)
            + value_len;
        self.small_packet(ts, body, |buf| {
            pb::uint(buf, field::EVENT_TYPE, ty);
            pb::uint(buf, field::EVENT_TRACK_UUID, track.0);
            match value {
                CounterValue::Int(x) => pb::int(buf, field::EVENT_COUNTER_VALUE, x),
                CounterValue::Double(x) => pb::double(buf, field::EVENT_DOUBLE_COUNTER_VALUE, x),
            }
        })
    }

    fn wants_stacks(&self) -> bool {
        true
    }

    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> io::Result<()> {
        let Some(data) = self.intern_stack(id, frames) else {
            return Ok(());
        };
        self.packet(&TracePacket {
            trusted_packet_sequence_id: Some(SEQUENCE),
            interned_data: Some(data),
            sequence_flags: Some(trace_packet::SequenceFlags::SeqNeedsIncrementalState as u32),
            ..Default::default()
        })
    }

    fn stack_sample(&mut self, s: &StackSample<'_>) -> io::Result<()> {
        // `TracePacket { timestamp, trusted_packet_sequence_id, sequence_flags, perf_sample {
        // pid, tid, callstack_iid, cpu_mode } }`, without a thread's ids on another track and
        // without a callstack for a stack never declared.
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let packet = pb::open(&mut buf, field::TRACE_PACKET);
        pb::uint(&mut buf, field::PACKET_TIMESTAMP, s.ts);
        pb::uint(&mut buf, field::PACKET_SEQUENCE_ID, u64::from(SEQUENCE));
        pb::uint(
            &mut buf,
            field::PACKET_SEQUENCE_FLAGS,
            trace_packet::SequenceFlags::SeqNeedsIncrementalState as u64,
        );
        let sample = pb::open(&mut buf, field::PACKET_PERF_SAMPLE);
        if let Some(&(pid, tid)) = self.stacks.threads.get(&s.track) {
            pb::uint(&mut buf, field::SAMPLE_PID, u64::from(pid));
            pb::uint(&mut buf, field::SAMPLE_TID, u64::from(tid));
        }
        if let Some(&iid) = self.stacks.callstacks.get(&s.stack) {
            pb::uint(&mut buf, field::SAMPLE_CALLSTACK_IID, iid);
        }
        pb::uint(
            &mut buf,
            field::SAMPLE_CPU_MODE,
            profiling::CpuMode::ModeUser as u64,
        );
        pb::close(&mut buf, sample);
        pb::close(&mut buf, packet);
        let result = self.out.write_all(&buf);
        self.buf = buf;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::perfetto_proto::{debug_annotation, InternedData, Trace};
    use crate::timeline::Flow;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// What one sink call gives, read back from the trace: kind, track, time, name, category and
    /// arguments (as text).
    type Seen = (
        i32,
        u64,
        u64,
        String,
        String,
        Vec<(String, String)>,
        Vec<u64>,
    );

    #[derive(Clone, Debug)]
    enum Call {
        Begin(
            u64,
            u64,
            String,
            String,
            Vec<(String, ValueModel)>,
            Vec<(u64, bool)>,
        ),
        End(u64, u64),
        Instant(u64, u64, String, String),
        Counter(u64, u64, Result<i64, f64>),
    }

    #[derive(Clone, Debug)]
    enum ValueModel {
        Bool(bool),
        Int(i64),
        Uint(u64),
        Double(f64),
        Str(String),
    }

    impl ValueModel {
        fn value(&self) -> Value<'_> {
            match self {
                ValueModel::Bool(b) => Value::Bool(*b),
                ValueModel::Int(x) => Value::Int(*x),
                ValueModel::Uint(x) => Value::Uint(*x),
                ValueModel::Double(x) => Value::Double(*x),
                ValueModel::Str(s) => Value::Str(s),
            }
        }

        fn text(&self) -> String {
            match self {
                ValueModel::Bool(b) => format!("b{b}"),
                ValueModel::Int(x) => format!("i{x}"),
                ValueModel::Uint(x) => format!("u{x}"),
                ValueModel::Double(x) => format!("d{}", x.to_bits()),
                ValueModel::Str(s) => format!("s{s}"),
            }
        }
    }

    /// Names from a small pool (so that most repeat and are interned), now and then one longer
    /// than the interning limit (written inline), and the empty name.
    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => "[a-d]{1,2}",
            1 => Just(String::new()),
            1 => "[a-z]{257,300}",
        ]
    }

    fn value() -> impl Strategy<Value = ValueModel> {
        prop_oneof![
            any::<bool>().prop_map(ValueModel::Bool),
            any::<i64>().prop_map(ValueModel::Int),
            any::<u64>().prop_map(ValueModel::Uint),
            any::<f64>().prop_map(ValueModel::Double),
            name().prop_map(ValueModel::Str),
        ]
    }

    fn call() -> impl Strategy<Value = Call> {
        let track = 1..5u64;
        prop_oneof![
            (
                track.clone(),
                any::<u64>(),
                name(),
                name(),
                prop::collection::vec((name(), value()), 0..6),
                prop::collection::vec((any::<u64>(), any::<bool>()), 0..3),
            )
                .prop_map(|(t, ts, n, c, a, f)| Call::Begin(t, ts, n, c, a, f)),
            (track.clone(), any::<u64>()).prop_map(|(t, ts)| Call::End(t, ts)),
            (track.clone(), any::<u64>(), name(), name())
                .prop_map(|(t, ts, n, c)| Call::Instant(t, ts, n, c)),
            (
                track,
                any::<u64>(),
                prop_oneof![any::<i64>().prop_map(Ok), any::<f64>().prop_map(Err)]
            )
                .prop_map(|(t, ts, v)| Call::Counter(t, ts, v)),
        ]
    }

    /// The event, its name numbered when it is a short one (one number per name: its bytes),
    /// as an adapter numbers the names of a fixed set.
    fn numbered(e: Event<'_>) -> Event<'_> {
        match e.name.len() {
            0..=2 => {
                let id = e.name.bytes().fold(0, |id, b| id << 8 | u32::from(b));
                e.named(NameId(id))
            }
            _ => e,
        }
    }

    fn write(calls: &[Call]) -> Vec<u8> {
        let mut p = Perfetto::new(Vec::new()).unwrap();
        for call in calls {
            match call {
                Call::Begin(t, ts, n, c, args, flows) => {
                    let args: Vec<Arg<'_>> = args
                        .iter()
                        .map(|(name, v)| Arg {
                            name,
                            value: v.value(),
                        })
                        .collect();
                    let flows: Vec<Flow> = flows
                        .iter()
                        .map(|&(id, terminating)| Flow { id, terminating })
                        .collect();
                    let mut e = numbered(Event::new(TrackId(*t), *ts, n, c, &args));
                    e.flows = &flows;
                    p.begin(&e).unwrap();
                }
                Call::End(t, ts) => p.end(TrackId(*t), *ts).unwrap(),
                Call::Instant(t, ts, n, c) => p
                    .instant(&numbered(Event::new(TrackId(*t), *ts, n, c, &[])))
                    .unwrap(),
                Call::Counter(t, ts, v) => {
                    let v = match v {
                        Ok(x) => CounterValue::Int(*x),
                        Err(x) => CounterValue::Double(*x),
                    };
                    p.counter(TrackId(*t), *ts, v).unwrap()
                }
            }
        }
        p.finish().unwrap()
    }

    /// What the calls should read back as.
    fn expected(calls: &[Call]) -> Vec<Seen> {
        calls
            .iter()
            .map(|call| match call {
                Call::Begin(t, ts, n, c, args, flows) => {
                    let args = args.iter().map(|(n, v)| (n.clone(), v.text())).collect();
                    let flows = flows
                        .iter()
                        .filter(|f| !f.1)
                        .chain(flows.iter().filter(|f| f.1))
                        .map(|f| f.0 ^ u64::from(f.1))
                        .collect();
                    (1, *t, *ts, n.clone(), c.clone(), args, flows)
                }
                Call::End(t, ts) => (2, *t, *ts, String::new(), String::new(), vec![], vec![]),
                Call::Instant(t, ts, n, c) => (3, *t, *ts, n.clone(), c.clone(), vec![], vec![]),
                Call::Counter(t, ts, v) => {
                    let v = match v {
                        Ok(x) => format!("i{x}"),
                        Err(x) => format!("d{}", x.to_bits()),
                    };
                    (
                        4,
                        *t,
                        *ts,
                        String::new(),
                        String::new(),
                        vec![(String::new(), v)],
                        vec![],
                    )
                }
            })
            .collect()
    }

    /// Reads the event packets back, resolving iids through the interned data seen so far.
    fn read_back(trace: &Trace) -> Vec<Seen> {
        let mut tables: [HashMap<u64, String>; 4] = Default::default();
        let mut seen = Vec::new();
        for packet in &trace.packet[1..] {
            if let Some(InternedData {
                event_categories,
                event_names,
                debug_annotation_names,
                debug_annotation_string_values,
                ..
            }) = &packet.interned_data
            {
                assert!(
                    !(event_categories.is_empty()
                        && event_names.is_empty()
                        && debug_annotation_names.is_empty()
                        && debug_annotation_string_values.is_empty()),
                    "interned data is written only when something is new"
                );
                let entries = [
                    event_names
                        .iter()
                        .map(|e| (e.iid, e.name.clone().unwrap()))
                        .collect::<Vec<_>>(),
                    event_categories
                        .iter()
                        .map(|e| (e.iid, e.name.clone().unwrap()))
                        .collect(),
                    debug_annotation_names
                        .iter()
                        .map(|e| (e.iid, e.name.clone().unwrap()))
                        .collect(),
                    debug_annotation_string_values
                        .iter()
                        .map(|e| (e.iid, String::from_utf8(e.str.clone().unwrap()).unwrap()))
                        .collect(),
                ];
                for (table, entries) in tables.iter_mut().zip(entries) {
                    for (iid, s) in entries {
                        let iid = iid.unwrap();
                        assert_eq!(iid, table.len() as u64 + 1, "iids in first-seen order");
                        table.insert(iid, s);
                    }
                }
            }
            let e = packet.track_event.as_ref().unwrap();
            let name = match &e.name_field {
                Some(track_event::NameField::NameIid(iid)) => tables[0][iid].clone(),
                Some(track_event::NameField::Name(n)) => n.clone(),
                None => String::new(),
            };
            let category = match (e.category_iids.first(), e.categories.first()) {
                (Some(iid), None) => tables[1][iid].clone(),
                (None, Some(c)) => c.clone(),
                (None, None) => String::new(),
                _ => panic!("two categories"),
            };
            let mut args: Vec<(String, String)> = e
                .debug_annotations
                .iter()
                .map(|a| {
                    let name = match a.name_field.as_ref().unwrap() {
                        debug_annotation::NameField::NameIid(iid) => tables[2][iid].clone(),
                        debug_annotation::NameField::Name(n) => n.clone(),
                    };
                    let value = match a.value.as_ref().unwrap() {
                        debug_annotation::Value::BoolValue(b) => format!("b{b}"),
                        debug_annotation::Value::IntValue(x) => format!("i{x}"),
                        debug_annotation::Value::UintValue(x) => format!("u{x}"),
                        debug_annotation::Value::DoubleValue(x) => format!("d{}", x.to_bits()),
                        debug_annotation::Value::StringValue(s) => format!("s{s}"),
                        debug_annotation::Value::StringValueIid(iid) => {
                            format!("s{}", tables[3][iid])
                        }
                    };
                    (name, value)
                })
                .collect();
            match e.counter_value_field {
                Some(track_event::CounterValueField::CounterValue(x)) => {
                    args.push((String::new(), format!("i{x}")))
                }
                Some(track_event::CounterValueField::DoubleCounterValue(x)) => {
                    args.push((String::new(), format!("d{}", x.to_bits())))
                }
                None => {}
            }
            let flows = e
                .flow_ids
                .iter()
                .copied()
                .chain(e.terminating_flow_ids.iter().map(|id| id ^ 1))
                .collect();
            assert_eq!(packet.trusted_packet_sequence_id, Some(SEQUENCE));
            assert_eq!(packet.sequence_flags, Some(2));
            seen.push((
                e.r#type.unwrap(),
                e.track_uuid.unwrap(),
                packet.timestamp.unwrap(),
                name,
                category,
                args,
                flows,
            ));
        }
        seen
    }

    /// Stacks read back: each sample's callstack resolves to its frames (outermost first in
    /// the callstack), a frame or string used again is interned once, and the bytes are the
    /// ones prost writes.
    #[test]
    fn stacks_read_back_in_prost_bytes() {
        let mut p = Perfetto::new(Vec::new()).unwrap();
        p.track(&Track {
            id: TrackId(7),
            parent: None,
            kind: TrackKind::Thread { pid: 10, tid: 11 },
            name: "main",
        })
        .unwrap();
        let frame = |function, module, address| Frame {
            function,
            module,
            file: "",
            line: None,
            address,
        };
        let a = [
            frame("leaf", "lib.so", Some(0x10)),
            frame("main", "app", Some(0x20)),
        ];
        let b = [frame("other", "", None), frame("main", "app", Some(0x20))];
        p.stack(StackId(5), &a).unwrap();
        p.stack(StackId(0), &b).unwrap();
        for (ts, stack) in [(100, 5), (200, 0), (300, 5), (400, 9)] {
            p.stack_sample(&StackSample {
                track: TrackId(7),
                ts,
                stack: StackId(stack),
                weight: 1,
                kind: crate::timeline::StackKind::Sample,
                call: None,
            })
            .unwrap();
        }
        let bytes = p.finish().unwrap();
        let trace = Trace::decode(bytes.as_slice()).unwrap();
        assert_eq!(trace.encode_to_vec(), bytes);
        let mut names = HashMap::new();
        let mut frames = HashMap::new();
        let mut stacks = HashMap::new();
        let mut seen = Vec::new();
        for packet in &trace.packet {
            if let Some(d) = &packet.interned_data {
                for s in &d.function_names {
                    let name = String::from_utf8(s.str.clone().unwrap()).unwrap();
                    assert!(names.insert(s.iid.unwrap(), name).is_none());
                }
                for f in &d.frames {
                    assert!(frames.insert(f.iid.unwrap(), *f).is_none());
                }
                for c in &d.callstacks {
                    stacks.insert(c.iid.unwrap(), c.frame_ids.clone());
                }
            }
            if let Some(s) = &packet.perf_sample {
                let stack: Vec<(String, Option<u64>)> = s
                    .callstack_iid
                    .map(|iid| {
                        stacks[&iid]
                            .iter()
                            .map(|f| {
                                let f = &frames[f];
                                (names[&f.function_name_id.unwrap()].clone(), f.rel_pc)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                seen.push((packet.timestamp.unwrap(), s.pid, s.tid, stack));
            }
        }
        let main = || ("main".to_string(), Some(0x20));
        let a = vec![main(), ("leaf".to_string(), Some(0x10))];
        let b = vec![main(), ("other".to_string(), None)];
        assert_eq!(
            seen,
            [
                (100, Some(10), Some(11), a.clone()),
                (200, Some(10), Some(11), b),
                (300, Some(10), Some(11), a),
                (400, Some(10), Some(11), vec![]),
            ]
        );
        assert_eq!((names.len(), frames.len()), (3, 3));
    }

    proptest! {
        /// Every event reads back as it was given (names found by number or by text), and the
        /// file is the bytes prost writes for the messages it holds (fields in field-number
        /// order, lengths as short as they go).
        #[test]
        fn events_read_back_in_prost_bytes(calls in prop::collection::vec(call(), 0..40)) {
            let bytes = write(&calls);
            let trace = Trace::decode(bytes.as_slice()).unwrap();
            prop_assert_eq!(trace.encode_to_vec(), bytes);
            prop_assert_eq!(read_back(&trace), expected(&calls));
        }
    }
}
