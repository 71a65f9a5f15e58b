//! Perfetto protobuf (`.pftrace`), written packet by packet.

use std::collections::HashMap;
use std::io::{self, Write};

use prost::Message;

use super::perfetto_proto::{
    debug_annotation, trace_packet, track_event, CounterDescriptor, DebugAnnotation,
    DebugAnnotationName, EventCategory, EventName, InternedData, InternedString, ProcessDescriptor,
    ThreadDescriptor, TracePacket, TrackDescriptor, TrackEvent,
};
use crate::timeline::{Arg, CounterValue, Event, Sink, Track, TrackId, TrackKind, Value};

/// Our one packet sequence.
const SEQUENCE: u32 = 1;
/// Entries per interning table; past it, strings are written inline (bounds memory on inputs
/// with unbounded distinct names).
const INTERN_LIMIT: usize = 1 << 16;
/// Longest string value that is interned (longer ones are unlikely to repeat).
const INTERN_MAX_LEN: usize = 256;

#[derive(Debug, Default)]
struct Interner {
    ids: HashMap<String, u64>,
}

impl Interner {
    /// The iid of `s` (and whether it is new), or `None` when `s` is to be written inline.
    fn get(&mut self, s: &str) -> Option<(u64, bool)> {
        if let Some(&iid) = self.ids.get(s) {
            return Some((iid, false));
        }
        if self.ids.len() >= INTERN_LIMIT || s.len() > INTERN_MAX_LEN {
            return None;
        }
        let iid = self.ids.len() as u64 + 1;
        self.ids.insert(s.to_string(), iid);
        Some((iid, true))
    }
}

/// A [`Sink`] writing a Perfetto trace (a stream of `TracePacket`s, i.e. a `Trace` message) to `W`.
///
/// Tracks become `TrackDescriptor`s (process, thread, counter or plain named tracks, with their
/// parents); slices, instants and counter samples become `TrackEvent`s on one packet sequence whose
/// first packet clears the incremental state. Event names, categories, argument names and short
/// string arguments are interned (`InternedData`), each emitted on the packet that first uses it.
/// Call [`Perfetto::finish`] at the end.
#[derive(Debug)]
pub struct Perfetto<W: Write> {
    out: W,
    buf: Vec<u8>,
    names: Interner,
    categories: Interner,
    arg_names: Interner,
    strings: Interner,
    /// Reused between events, so that their vectors keep their capacity (no allocation per event).
    spare_event: TrackEvent,
    spare_interned: InternedData,
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
            spare_event: TrackEvent::default(),
            spare_interned: InternedData::default(),
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

    /// Writes one packet as field 1 of `Trace`.
    fn packet(&mut self, packet: &TracePacket) -> io::Result<()> {
        self.buf.clear();
        // Tag of Trace.packet (field 1, length-delimited), then the length.
        self.buf.push(0x0a);
        prost::encoding::encode_varint(packet.encoded_len() as u64, &mut self.buf);
        packet
            .encode(&mut self.buf)
            .map_err(|e| io::Error::other(e.to_string()))?;
        self.out.write_all(&self.buf)
    }

    /// A fresh (cleared) event and interned-data message, reusing the last ones' buffers.
    fn take_spares(&mut self) -> (TrackEvent, InternedData) {
        let mut ev = std::mem::take(&mut self.spare_event);
        ev.category_iids.clear();
        ev.categories.clear();
        ev.debug_annotations.clear();
        ev.flow_ids.clear();
        ev.terminating_flow_ids.clear();
        ev.name_field = None;
        ev.counter_value_field = None;
        ev.r#type = None;
        ev.track_uuid = None;
        let mut interned = std::mem::take(&mut self.spare_interned);
        interned.event_names.clear();
        interned.event_categories.clear();
        interned.debug_annotation_names.clear();
        interned.debug_annotation_string_values.clear();
        (ev, interned)
    }

    fn event_packet(
        &mut self,
        ts: u64,
        event: TrackEvent,
        interned: InternedData,
    ) -> io::Result<()> {
        let empty = interned.event_names.is_empty()
            && interned.event_categories.is_empty()
            && interned.debug_annotation_names.is_empty()
            && interned.debug_annotation_string_values.is_empty();
        let (interned_data, spare) = if empty {
            (None, Some(interned))
        } else {
            (Some(interned), None)
        };
        let mut packet = TracePacket {
            timestamp: Some(ts),
            trusted_packet_sequence_id: Some(SEQUENCE),
            sequence_flags: Some(trace_packet::SequenceFlags::SeqNeedsIncrementalState as u32),
            interned_data,
            track_event: Some(event),
            ..Default::default()
        };
        let result = self.packet(&packet);
        self.spare_event = packet.track_event.take().unwrap_or_default();
        self.spare_interned = spare.or(packet.interned_data.take()).unwrap_or_default();
        result
    }

    fn annotation(&mut self, arg: &Arg<'_>, interned: &mut InternedData) -> DebugAnnotation {
        let name_field = match self.arg_names.get(arg.name) {
            Some((iid, new)) => {
                if new {
                    interned.debug_annotation_names.push(DebugAnnotationName {
                        iid: Some(iid),
                        name: Some(arg.name.to_string()),
                    });
                }
                debug_annotation::NameField::NameIid(iid)
            }
            None => debug_annotation::NameField::Name(arg.name.to_string()),
        };
        let value = match arg.value {
            Value::Bool(b) => debug_annotation::Value::BoolValue(b),
            Value::Int(x) => debug_annotation::Value::IntValue(x),
            Value::Uint(x) => debug_annotation::Value::UintValue(x),
            Value::Double(x) => debug_annotation::Value::DoubleValue(x),
            Value::Str(s) => match self.strings.get(s) {
                Some((iid, new)) => {
                    if new {
                        interned
                            .debug_annotation_string_values
                            .push(InternedString {
                                iid: Some(iid),
                                str: Some(s.as_bytes().to_vec()),
                            });
                    }
                    debug_annotation::Value::StringValueIid(iid)
                }
                None => debug_annotation::Value::StringValue(s.to_string()),
            },
        };
        DebugAnnotation {
            name_field: Some(name_field),
            value: Some(value),
        }
    }

    fn write_event(&mut self, e: &Event<'_>, ty: track_event::Type) -> io::Result<()> {
        let (mut event, mut interned) = self.take_spares();
        let name_field = match self.names.get(e.name) {
            Some((iid, new)) => {
                if new {
                    interned.event_names.push(EventName {
                        iid: Some(iid),
                        name: Some(e.name.to_string()),
                    });
                }
                track_event::NameField::NameIid(iid)
            }
            None => track_event::NameField::Name(e.name.to_string()),
        };
        event.r#type = Some(ty as i32);
        event.track_uuid = Some(e.track.0);
        event.name_field = Some(name_field);
        if !e.category.is_empty() {
            match self.categories.get(e.category) {
                Some((iid, new)) => {
                    if new {
                        interned.event_categories.push(EventCategory {
                            iid: Some(iid),
                            name: Some(e.category.to_string()),
                        });
                    }
                    event.category_iids.push(iid);
                }
                None => event.categories.push(e.category.to_string()),
            }
        }
        for arg in e.args {
            let a = self.annotation(arg, &mut interned);
            event.debug_annotations.push(a);
        }
        for f in e.flows {
            if f.terminating {
                event.terminating_flow_ids.push(f.id);
            } else {
                event.flow_ids.push(f.id);
            }
        }
        self.event_packet(e.ts, event, interned)
    }

    fn write_end(&mut self, track: TrackId, ts: u64) -> io::Result<()> {
        let (mut event, interned) = self.take_spares();
        event.r#type = Some(track_event::Type::SliceEnd as i32);
        event.track_uuid = Some(track.0);
        self.event_packet(ts, event, interned)
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
        let value = match value {
            CounterValue::Int(x) => track_event::CounterValueField::CounterValue(x),
            CounterValue::Double(x) => track_event::CounterValueField::DoubleCounterValue(x),
        };
        let (mut event, interned) = self.take_spares();
        event.r#type = Some(track_event::Type::Counter as i32);
        event.track_uuid = Some(track.0);
        event.counter_value_field = Some(value);
        self.event_packet(ts, event, interned)
    }
}
