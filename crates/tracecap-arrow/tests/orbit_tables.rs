//! `orbit_events` on captures written from a model (proptest): one row per client capture event
//! in file order, each holding the model's event (its offset, length and kind, its message as
//! proto3 JSON, the decoded name of an API event); the rows before a fault; and the shared
//! tables hold what Chrome JSON holds.
//!
//! The model's messages are encoded here by hand (canonically, as protobuf writes them) from the
//! field numbers of Orbit's `capture.proto`, and their JSON is built from the same fields, so the
//! oracle shares nothing with the crate's printer.

mod common;
mod rows;

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use tracecap_arrow::Table;
use tracecap_orbit::write::CaptureModel;

/// An event of the model.
#[derive(Clone, Debug)]
enum Ev {
    SchedulingSlice {
        pid: u32,
        tid: u32,
        core: i32,
        out_ns: u64,
        duration_ns: u64,
    },
    ThreadName {
        pid: u32,
        tid: u32,
        name: Vec<u8>,
        ns: u64,
    },
    ApiScopeStart {
        pid: u32,
        tid: u32,
        ns: u64,
        name: String,
        color: u32,
        group: u64,
    },
    ApiScopeStop {
        pid: u32,
        tid: u32,
        ns: u64,
    },
    InternedString {
        key: u64,
        intern: Vec<u8>,
    },
    CaptureFinished {
        status: usize,
        state: usize,
    },
}

const STATUS: [&str; 3] = ["kSuccessful", "kFailed", "kInterruptedByService"];
const STATE: [&str; 5] = [
    "kProcessStateUnknown",
    "kProcessStateInternalError",
    "kRunning",
    "kEnded",
    "kCrashed",
];

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A protobuf message being encoded: fields in number order, defaults left out.
#[derive(Default)]
struct Msg(Vec<u8>);

impl Msg {
    fn key(&mut self, field: u32, wire: u8) {
        varint(&mut self.0, u64::from(field) << 3 | u64::from(wire));
    }
    fn uint(mut self, field: u32, v: u64) -> Self {
        if v != 0 {
            self.key(field, 0);
            varint(&mut self.0, v);
        }
        self
    }
    fn int32(self, field: u32, v: i32) -> Self {
        self.uint(field, v as i64 as u64)
    }
    fn fixed64(mut self, field: u32, v: u64) -> Self {
        if v != 0 {
            self.key(field, 1);
            self.0.extend_from_slice(&v.to_le_bytes());
        }
        self
    }
    fn packed_fixed64(mut self, field: u32, vs: &[u64]) -> Self {
        if !vs.is_empty() {
            self.key(field, 2);
            varint(&mut self.0, 8 * vs.len() as u64);
            for v in vs {
                self.0.extend_from_slice(&v.to_le_bytes());
            }
        }
        self
    }
    fn bytes(mut self, field: u32, b: &[u8]) -> Self {
        if !b.is_empty() {
            self.key(field, 2);
            varint(&mut self.0, b.len() as u64);
            self.0.extend_from_slice(b);
        }
        self
    }
    /// A message field, written even when empty (a oneof member is present).
    fn message(mut self, field: u32, m: Msg) -> Self {
        self.key(field, 2);
        varint(&mut self.0, m.0.len() as u64);
        self.0.extend_from_slice(&m.0);
        self
    }
}

/// Orbit's encoding of an API name: eight bytes per `fixed64`, little-endian, the first eight in
/// their own fields and the rest repeated.
fn encode_name(name: &[u8]) -> (Vec<u64>, Vec<u64>) {
    let mut chunks: Vec<u64> = name
        .chunks(8)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(a)
        })
        .collect();
    let extra = chunks.split_off(chunks.len().min(8));
    chunks.resize(8, 0);
    (chunks, extra)
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= c.len() {
                s.push(char::from(T[(n >> shift & 63) as usize]));
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Puts `key: value` in `m` unless `value` is the default (proto3 JSON leaves defaults out).
fn put(m: &mut Map<String, J>, key: &str, value: J) {
    let default = matches!(&value, J::Number(n) if n.as_u64() == Some(0))
        || value == J::String(String::new())
        || value == J::String("0".into());
    if !default {
        m.insert(key.into(), value);
    }
}

/// A 64-bit integer as proto3 JSON writes it: a string.
fn long(v: u64) -> J {
    J::String(v.to_string())
}

impl Ev {
    /// The kind (`dump`'s `event`), the encoded `ClientCaptureEvent`, its proto3 JSON and the
    /// decoded name.
    fn encode(&self) -> (&'static str, Vec<u8>, J, Option<String>) {
        let mut m = Map::new();
        let (kind, field, msg, name) = match self {
            Ev::SchedulingSlice {
                pid,
                tid,
                core,
                out_ns,
                duration_ns,
            } => {
                put(&mut m, "pid", J::from(*pid));
                put(&mut m, "tid", J::from(*tid));
                put(&mut m, "core", J::from(*core));
                put(&mut m, "out_timestamp_ns", long(*out_ns));
                put(&mut m, "duration_ns", long(*duration_ns));
                let msg = Msg::default()
                    .uint(1, u64::from(*pid))
                    .uint(2, u64::from(*tid))
                    .int32(3, *core)
                    .uint(5, *out_ns)
                    .uint(6, *duration_ns);
                ("scheduling_slice", 6, msg, None)
            }
            Ev::ThreadName { pid, tid, name, ns } => {
                put(&mut m, "pid", J::from(*pid));
                put(&mut m, "tid", J::from(*tid));
                put(&mut m, "name", J::String(base64(name)));
                put(&mut m, "timestamp_ns", long(*ns));
                let msg = Msg::default()
                    .uint(1, u64::from(*pid))
                    .uint(2, u64::from(*tid))
                    .bytes(3, name)
                    .uint(4, *ns);
                ("thread_name", 22, msg, None)
            }
            Ev::ApiScopeStart {
                pid,
                tid,
                ns,
                name,
                color,
                group,
            } => {
                let (chunks, extra) = encode_name(name.as_bytes());
                put(&mut m, "pid", J::from(*pid));
                put(&mut m, "tid", J::from(*tid));
                put(&mut m, "timestamp_ns", long(*ns));
                let mut msg = Msg::default()
                    .uint(1, u64::from(*pid))
                    .uint(2, u64::from(*tid))
                    .uint(3, *ns);
                for (i, c) in chunks.iter().enumerate() {
                    put(&mut m, &format!("encoded_name_{}", i + 1), long(*c));
                    msg = msg.fixed64(4 + i as u32, *c);
                }
                if !extra.is_empty() {
                    let a = extra.iter().map(|&c| long(c)).collect();
                    m.insert("encoded_name_additional".into(), J::Array(a));
                }
                put(&mut m, "color_rgba", J::from(*color));
                put(&mut m, "group_id", long(*group));
                let msg = msg
                    .packed_fixed64(12, &extra)
                    .uint(13, u64::from(*color))
                    .uint(14, *group);
                ("api_scope_start", 10, msg, Some(name.clone()))
            }
            Ev::ApiScopeStop { pid, tid, ns } => {
                put(&mut m, "pid", J::from(*pid));
                put(&mut m, "tid", J::from(*tid));
                put(&mut m, "timestamp_ns", long(*ns));
                let msg = Msg::default()
                    .uint(1, u64::from(*pid))
                    .uint(2, u64::from(*tid))
                    .uint(3, *ns);
                ("api_scope_stop", 11, msg, None)
            }
            Ev::InternedString { key, intern } => {
                put(&mut m, "key", long(*key));
                put(&mut m, "intern", J::String(base64(intern)));
                let msg = Msg::default().uint(1, *key).bytes(2, intern);
                ("interned_string", 18, msg, None)
            }
            Ev::CaptureFinished { status, state } => {
                if *status != 0 {
                    m.insert("status".into(), J::from(STATUS[*status]));
                }
                if *state != 0 {
                    m.insert(
                        "target_process_state_after_capture".into(),
                        J::from(STATE[*state]),
                    );
                }
                // Status numbers: kFailed 1, kInterruptedByService 2.
                let msg = Msg::default()
                    .uint(1, *status as u64)
                    .uint(3, *state as u64);
                ("capture_finished", 27, msg, None)
            }
        };
        let event = Msg::default().message(field, msg);
        (kind, event.0, json!({ kind: J::Object(m) }), name)
    }
}

fn event() -> impl Strategy<Value = Ev> {
    let small = || prop_oneof![Just(0u64), 1u64..1000, any::<u64>()];
    // Times below 2^40 ns: Chrome JSON, the timeline's oracle, holds microseconds in doubles.
    let time = || prop_oneof![Just(0u64), 1u64..1000, 0u64..1 << 40];
    let id = || prop_oneof![Just(0u32), 1u32..5000];
    prop_oneof![
        (id(), id(), any::<i32>(), time(), time()).prop_map(
            |(pid, tid, core, out_ns, duration_ns)| {
                Ev::SchedulingSlice {
                    pid,
                    tid,
                    core,
                    out_ns,
                    duration_ns,
                }
            }
        ),
        (
            id(),
            id(),
            prop::collection::vec(any::<u8>(), 0..12),
            time()
        )
            .prop_map(|(pid, tid, name, ns)| Ev::ThreadName { pid, tid, name, ns }),
        (
            id(),
            id(),
            time(),
            "[a-zA-Z0-9_ ]{0,80}",
            any::<u32>(),
            small()
        )
            .prop_map(|(pid, tid, ns, name, color, group)| Ev::ApiScopeStart {
                pid,
                tid,
                ns,
                name,
                color,
                group,
            }),
        (id(), id(), time()).prop_map(|(pid, tid, ns)| Ev::ApiScopeStop { pid, tid, ns }),
        (small(), prop::collection::vec(any::<u8>(), 0..12))
            .prop_map(|(key, intern)| Ev::InternedString { key, intern }),
    ]
}

fn finished() -> impl Strategy<Value = Ev> {
    (0usize..3, 0usize..5).prop_map(|(status, state)| Ev::CaptureFinished { status, state })
}

/// Writes the model's capture; returns it and the rows `orbit_events` should hold.
fn write_model(events: &[Ev]) -> (Vec<u8>, Vec<Map<String, J>>) {
    let mut model = CaptureModel::default();
    let mut want = Vec::new();
    // The capture section starts right after the 24-byte header; each event is its length
    // (a varint) and its message.
    let mut offset = 24u64;
    for e in events {
        let (kind, bytes, message, name) = e.encode();
        let mut len = Vec::new();
        varint(&mut len, bytes.len() as u64);
        let row = json!({
            "offset": offset,
            "length": bytes.len(),
            "event": kind,
            "message": message,
            "decoded_name": name,
        });
        want.push(row.as_object().unwrap().clone());
        offset += (len.len() + bytes.len()) as u64;
        model.events.push(bytes);
    }
    (model.to_bytes().unwrap(), want)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn events_are_the_models(mut events in prop::collection::vec(event(), 0..16), last in finished(),
                             batch_rows in 1usize..9) {
        events.push(last);
        let (bytes, want) = write_model(&events);
        let (got, summary) = rows::rows(&bytes, Table::OrbitEvents, &["message"], batch_rows);
        prop_assert!(summary.fault.is_none(), "{:?}", summary.fault);
        prop_assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(g, w, "row {}", i);
        }
        common::check_against_chrome(&bytes, batch_rows);
    }
}

/// A capture whose events stop without `CaptureFinished`: a row for every event, and the fault
/// where the next event's size would be (as Orbit's reader fails there).
#[test]
fn a_capture_without_its_end_gives_every_event_then_the_fault() {
    let events: Vec<Ev> = (0..5)
        .map(|i| Ev::ApiScopeStop {
            pid: 1,
            tid: 2,
            ns: 100 + i,
        })
        .collect();
    let (bytes, want) = write_model(&events);
    let (got, summary) = rows::rows(&bytes, Table::OrbitEvents, &["message"], 2);
    assert_eq!(got, want);
    let fault = summary.fault.expect("a fault");
    assert_eq!(fault.offset(), bytes.len() as u64, "{fault}");
}

/// A capture cut inside an event: the rows of every event before it, and the fault inside that
/// event.
#[test]
fn a_cut_capture_gives_the_events_before_the_cut() {
    let mut events: Vec<Ev> = (0..8)
        .map(|i| Ev::InternedString {
            key: i + 1,
            intern: vec![b'x'; 20],
        })
        .collect();
    events.push(Ev::CaptureFinished {
        status: 0,
        state: 2,
    });
    let (bytes, want) = write_model(&events);
    let start = |i: usize| want[i]["offset"].as_u64().unwrap();
    let cut = (start(5) + start(6)) / 2;
    let (got, summary) = rows::rows(&bytes[..cut as usize], Table::OrbitEvents, &["message"], 3);
    assert_eq!(got[..], want[..5]);
    let fault = summary.fault.expect("a fault").offset();
    assert!((start(5)..=cut).contains(&fault), "{fault}");
}
