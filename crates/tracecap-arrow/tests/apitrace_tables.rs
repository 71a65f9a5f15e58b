//! `apitrace_calls` on traces written from a model (proptest): one row per call, in the order
//! calls return and then the calls that never returned, each holding the model's call (its
//! details merged from its ENTER and LEAVE, the values as `dump --json` shows them); the rows
//! before a fault, and the fault's offsets; and the shared tables hold what Chrome JSON holds.

#![allow(clippy::type_complexity)] // the signature tables

mod common;
mod rows;

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use tracecap_apitrace::write::{self, WDetail, WFrame, WValue, Writer};
use tracecap_apitrace::Container;
use tracecap_arrow::Table;

const ENUMS: [(u64, &[(&[u8], i64)]); 2] =
    [(7, &[(b"GL_A", 1), (b"GL_NEG", -2)]), (9, &[(b"ONLY", 5)])];
const BITMASKS: [(u64, &[(&[u8], u64)]); 1] = [(3, &[(b"NONE", 0), (b"B1", 1), (b"B2", 2)])];
/// Struct signatures: id, name, members.
const STRUCTS: [(u64, &[u8], &[&[u8]]); 3] = [
    (1, b"Pair", &[b"x", b"y"]),
    (2, b"Empty", &[]),
    (40000, b"Triple", &[b"a", b"", b"c"]),
];
/// Function signatures: id, name, arguments. `glXSwapBuffers` ends a frame; the debug group
/// calls give the timeline its marker slices.
const FUNCS: [(u64, &[u8], &[&[u8]]); 6] = [
    (0, b"memcpy", &[b"dest", b"src", b"n"]),
    (4, b"glXSwapBuffers", &[b"dpy", b"drawable"]),
    (12, b"glDrawArrays", &[b"mode", b"first", b"count"]),
    (2464, b"glFoo", &[]),
    (
        10,
        b"glPushDebugGroup",
        &[b"source", b"id", b"length", b"message"],
    ),
    (11, b"glPopDebugGroup", &[]),
];
const SWAP: u64 = 4;

fn frame(id: u64) -> WFrame {
    WFrame {
        module: (id != 4).then(|| format!("lib{id}.so").into_bytes()),
        function: (id % 2 == 1).then(|| b"main".to_vec()),
        filename: (id == 3).then(|| b"main.c".to_vec()),
        line: (id == 3).then_some(42),
        offset: (id != 2).then_some(0x1000 * id),
    }
}

fn leaf() -> impl Strategy<Value = WValue> {
    prop_oneof![
        Just(WValue::Null),
        any::<bool>().prop_map(WValue::Bool),
        (i64::MIN..0).prop_map(WValue::SInt),
        any::<u64>().prop_map(WValue::UInt),
        any::<u32>().prop_map(|b| WValue::Float(f32::from_bits(b))),
        any::<u64>().prop_map(|b| WValue::Double(f64::from_bits(b))),
        prop::collection::vec(any::<u8>(), 0..20).prop_map(WValue::String),
        prop::collection::vec(any::<u8>(), 0..100).prop_map(WValue::Blob),
        (
            prop::sample::select(vec![7u64, 9]),
            prop::sample::select(vec![1i64, -2, 5, 0])
        )
            .prop_map(|(sig, value)| WValue::Enum { sig, value }),
        prop::sample::select(vec![0u64, 1, 2, 3, 6, 1 << 40])
            .prop_map(|value| WValue::Bitmask { sig: 3, value }),
        any::<u64>().prop_map(WValue::Pointer),
        "\\PC{0,6}".prop_map(|s| WValue::WString(s.chars().map(u64::from).collect())),
    ]
}

fn value() -> impl Strategy<Value = WValue> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(WValue::Array),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| WValue::Struct {
                sig: 1,
                members: vec![a, b]
            }),
            Just(WValue::Struct {
                sig: 2,
                members: vec![]
            }),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(a, b, c)| WValue::Struct {
                sig: 40000,
                members: vec![a, b, c]
            }),
            (inner.clone(), inner).prop_map(|(h, m)| WValue::Repr(Box::new(h), Box::new(m))),
        ]
    })
}

fn detail() -> impl Strategy<Value = WDetail> {
    prop_oneof![
        4 => (0u64..5, value()).prop_map(|(i, v)| WDetail::Arg(i, v)),
        1 => value().prop_map(WDetail::Ret),
        1 => prop::collection::vec(1u64..5, 0..4).prop_map(WDetail::Backtrace),
        1 => prop::sample::select(vec![0u64, 1, 2, 3]).prop_map(WDetail::Flags),
    ]
}

/// An event to write: an ENTER, a LEAVE of an open call (picked by `pick`), or a LEAVE of a call
/// that already returned (which the reader ignores).
#[derive(Clone, Debug)]
enum Ev {
    Enter {
        thread: u64,
        func: usize,
        details: Vec<WDetail>,
    },
    Leave {
        pick: usize,
        details: Vec<WDetail>,
    },
    LeaveAgain {
        pick: usize,
    },
}

fn events() -> impl Strategy<Value = Vec<Ev>> {
    let details = || prop::collection::vec(detail(), 0..4);
    prop::collection::vec(
        prop_oneof![
            4 => (0u64..3, 0..FUNCS.len(), details())
                .prop_map(|(thread, func, details)| Ev::Enter { thread, func, details }),
            4 => (any::<usize>(), details()).prop_map(|(pick, details)| Ev::Leave { pick, details }),
            1 => any::<usize>().prop_map(|pick| Ev::LeaveAgain { pick }),
        ],
        0..24,
    )
}

fn container() -> impl Strategy<Value = (Container, usize)> {
    prop_oneof![
        (1usize..200).prop_map(|c| (Container::Snappy, c)),
        Just((Container::Gzip, 0)),
        Just((Container::Brotli, 0)),
        (1usize..300).prop_map(|c| (Container::ZstdSeekable, c)),
        (1usize..300).prop_map(|c| (Container::Zstd, c)),
    ]
}

/// Bytes as text, each invalid UTF-8 sequence as U+FFFD.
fn lossy(b: &[u8]) -> J {
    J::String(String::from_utf8_lossy(b).into_owned())
}

/// A value as `dump --json` shows it: an object with its `type`.
fn value_json(v: &WValue) -> J {
    match v {
        WValue::Null => json!({"type": "null"}),
        WValue::Bool(b) => json!({"type": "bool", "value": b}),
        WValue::SInt(i) => json!({"type": "sint", "value": i}),
        WValue::UInt(u) => json!({"type": "uint", "value": u}),
        // Floats that are not finite are null.
        WValue::Float(f) => json!({"type": "float", "value": J::from(f64::from(*f))}),
        WValue::Double(f) => json!({"type": "double", "value": J::from(*f)}),
        WValue::String(s) => json!({"type": "string", "value": lossy(s)}),
        WValue::Blob(b) => json!({"type": "blob", "size": b.len()}),
        WValue::Enum { sig, value } => {
            let values = ENUMS.iter().find(|e| e.0 == *sig).unwrap().1;
            let name = values.iter().find(|e| e.1 == *value).map(|e| lossy(e.0));
            json!({"type": "enum", "value": value, "name": name})
        }
        WValue::Bitmask { sig, value } => {
            let flags = BITMASKS.iter().find(|b| b.0 == *sig).unwrap().1;
            let mut rest = *value;
            let mut set = Vec::new();
            for (name, f) in flags {
                if (*f != 0 && rest & f == *f) || (*f == 0 && *value == 0) {
                    set.push(lossy(name));
                    rest &= !f;
                }
            }
            json!({"type": "bitmask", "value": value, "flags": set, "rest": rest})
        }
        WValue::Array(a) => {
            json!({"type": "array", "values": a.iter().map(value_json).collect::<Vec<_>>()})
        }
        WValue::Struct { sig, members } => {
            let (_, name, names) = STRUCTS.iter().find(|s| s.0 == *sig).unwrap();
            let members: Vec<J> = members
                .iter()
                .zip(names.iter())
                .map(|(m, n)| json!({"name": lossy(n), "value": value_json(m)}))
                .collect();
            json!({"type": "struct", "name": lossy(name), "members": members})
        }
        WValue::Pointer(p) => json!({"type": "pointer", "value": p}),
        WValue::Repr(h, m) => {
            json!({"type": "repr", "human": value_json(h), "machine": value_json(m)})
        }
        WValue::WString(units) => {
            let s: String = units
                .iter()
                .map(|&u| char::from_u32(u as u32).unwrap())
                .collect();
            json!({"type": "wstring", "value": s})
        }
    }
}

fn backtrace_json(ids: &[u64]) -> J {
    let frames: Vec<J> = ids
        .iter()
        .map(|&id| {
            let f = frame(id);
            let text = |b: Option<Vec<u8>>| b.map(|b| lossy(&b));
            json!({
                "module": text(f.module),
                "function": text(f.function),
                "file": text(f.filename),
                "line": f.line,
                "offset": f.offset,
            })
        })
        .collect();
    J::Array(frames)
}

/// A call of the model: what has been recorded of it so far.
#[derive(Clone, Debug)]
struct Call {
    no: u64,
    thread: u64,
    func: usize,
    frame: u64,
    args: Vec<Option<J>>,
    ret: Option<J>,
    backtrace: Option<J>,
    flags: u64,
    offset: u64,
}

impl Call {
    /// Records an event's details: a later value of an argument replaces the earlier one.
    fn apply(&mut self, details: &[WDetail]) {
        for d in details {
            match d {
                WDetail::Arg(i, v) => {
                    let i = *i as usize;
                    if i >= self.args.len() {
                        self.args.resize(i + 1, None);
                    }
                    self.args[i] = Some(value_json(v));
                }
                WDetail::Ret(v) => self.ret = Some(value_json(v)),
                WDetail::Backtrace(ids) => self.backtrace = Some(backtrace_json(ids)),
                WDetail::Flags(f) => self.flags |= f,
            }
        }
    }

    /// Its row: the table's columns in order.
    fn row(&self, incomplete: bool, file_offset: Option<u64>) -> Map<String, J> {
        let (sig, name, names) = FUNCS[self.func];
        let args: Vec<J> = self
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| json!({"name": lossy(names.get(i).copied().unwrap_or(b"")), "value": a}))
            .collect();
        let text = |v: Option<J>| v.map_or(J::Null, |v| J::String(v.to_string()));
        let row = json!({
            "no": self.no,
            "thread": self.thread,
            "frame": self.frame,
            "name": lossy(name),
            "args": text(Some(J::Array(args))),
            "ret": text(self.ret.clone()),
            "fake": self.flags & 1 != 0,
            "incomplete": incomplete,
            "end_frame": sig == SWAP,
            "backtrace": text(self.backtrace.clone()),
            "offset": self.offset,
            "file_offset": file_offset,
        });
        row.as_object().unwrap().clone()
    }
}

/// Writes the model's trace; returns its stream and the rows `apitrace_calls` should hold,
/// without `file_offset` (the stream offsets of the calls are given instead).
fn write_model(evs: &[Ev]) -> (Vec<u8>, Vec<(Call, bool)>) {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"/usr/bin/model")]);
    for (id, name, args) in FUNCS {
        w.function(id, name, args);
    }
    for (id, name, members) in STRUCTS {
        w.struct_sig(id, name, members);
    }
    for (id, values) in ENUMS {
        w.enum_sig(id, values);
    }
    for (id, flags) in BITMASKS {
        w.bitmask_sig(id, flags);
    }
    for id in 1..5 {
        w.frame(id, frame(id));
    }
    let mut open: BTreeMap<u64, Call> = BTreeMap::new();
    let mut returned: Vec<u64> = Vec::new();
    let mut calls = Vec::new();
    let mut frames = 0;
    for e in evs {
        match e {
            Ev::Enter {
                thread,
                func,
                details,
            } => {
                let offset = w.stream_len() as u64;
                let sig = FUNCS[*func].0;
                let no = w.enter(*thread, sig, details);
                let mut call = Call {
                    no,
                    thread: *thread,
                    func: *func,
                    frame: frames,
                    args: vec![None; FUNCS[*func].2.len()],
                    ret: None,
                    backtrace: None,
                    flags: 0,
                    offset,
                };
                frames += u64::from(sig == SWAP);
                call.apply(details);
                open.insert(no, call);
            }
            Ev::Leave { pick, details } => {
                let Some(&no) = open.keys().nth(pick % open.len().max(1)) else {
                    continue;
                };
                w.leave(no, details);
                let mut call = open.remove(&no).unwrap();
                call.apply(details);
                calls.push((call, false));
                returned.push(no);
            }
            Ev::LeaveAgain { pick } => {
                if let Some(&no) = returned.get(pick % returned.len().max(1)) {
                    w.leave(no, &[WDetail::Ret(WValue::UInt(7))]);
                }
            }
        }
    }
    calls.extend(open.into_values().map(|c| (c, true)));
    (w.finish(), calls)
}

fn file_of(stream: &[u8], (container, piece): (Container, usize)) -> Vec<u8> {
    match container {
        Container::Snappy => write::snappy(stream, piece),
        Container::ZstdSeekable => write::zstd(stream, piece, true),
        Container::Zstd => write::zstd(stream, piece, false),
        c => write::wrap(stream, c),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn calls_are_the_models(evs in events(), cont in container(), batch_rows in 1usize..9) {
        let (stream, calls) = write_model(&evs);
        let file = file_of(&stream, cont);
        // A brotli file is recognised by its first meta-block, which the writer stores
        // uncompressed when the stream does not compress (random blobs): no capture then.
        prop_assume!(tracecap::detect(&file).is_some());
        // Where each call's snappy chunk or zstd frame starts in the file, as the container's
        // own reader maps it.
        let pieces = tracecap_apitrace::decompress(&file).unwrap();
        let want: Vec<Map<String, J>> = calls
            .iter()
            .map(|(c, incomplete)| c.row(*incomplete, pieces.chunk_offset(c.offset)))
            .collect();
        // The JSON columns as text: the bytes `dump` prints (serde_json's parser would round
        // some doubles).
        let (got, summary) = rows::rows(&file, Table::ApitraceCalls, &[], batch_rows);
        prop_assert!(summary.fault.is_none());
        prop_assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(g, w, "row {}", i);
        }
        common::check_against_chrome(&file, batch_rows);
    }
}

/// Six `glDrawArrays` calls, each returning before the next.
fn draws() -> Vec<Ev> {
    let draw = |i: u64| {
        vec![
            WDetail::Arg(0, WValue::UInt(4)),
            WDetail::Arg(1, WValue::UInt(i)),
            WDetail::Arg(2, WValue::Blob(vec![7; 300])),
        ]
    };
    (0..6)
        .flat_map(|i| {
            [
                Ev::Enter {
                    thread: 0,
                    func: 2,
                    details: draw(i),
                },
                Ev::Leave {
                    pick: 0,
                    details: vec![],
                },
            ]
        })
        .collect()
}

/// A trace whose file is cut short: the rows of the calls whose events lie before the cut, and
/// the container's fault at the cut.
#[test]
fn a_cut_trace_gives_the_calls_before_the_cut() {
    let (stream, calls) = write_model(&draws());
    let file = file_of(&stream, (Container::Snappy, 64));
    let (whole, _) = rows::rows(&file, Table::ApitraceCalls, &[], 4);
    assert_eq!(whole.len(), 6);
    assert_eq!(calls.len(), 6);
    // Cut in the middle of the fourth call's blob.
    let cut = file.len() * 7 / 12;
    let (got, summary) = rows::rows(&file[..cut], Table::ApitraceCalls, &[], 4);
    let fault = summary.fault.expect("a fault");
    assert!(!got.is_empty() && got.len() < 6, "{} rows", got.len());
    assert_eq!(got[..], whole[..got.len()]);
    assert_eq!(fault.offset(), cut as u64, "{fault}");
    assert_eq!(fault.stream_offset(), None);
}

/// A fault in the decompressed stream (an unknown value tag): the rows of every call before it,
/// and the fault at the file offset of the snappy chunk holding it, with its stream offset.
#[test]
fn a_stream_fault_names_its_chunk() {
    let (mut stream, _) = write_model(&draws());
    // An ENTER of `glDrawArrays` (already defined) whose first argument has the tag 0x20.
    let bad = stream.len() as u64 + 5;
    stream.extend_from_slice(&[0x00, 0x00, 12, 0x01, 0x00, 0x20, 0x00]);
    let piece = 64;
    let file = file_of(&stream, (Container::Snappy, piece));
    let (got, summary) = rows::rows(&file, Table::ApitraceCalls, &[], 4);
    assert_eq!(got.len(), 6);
    let fault = summary.fault.expect("a fault");
    assert_eq!(fault.stream_offset(), Some(bad), "{fault}");
    let chunk = snappy_chunks(&file)[(bad / piece as u64) as usize];
    assert_eq!(fault.offset(), chunk, "{fault}");
}

/// The file offsets of the chunks of a snappy `.trace` file (`at`, then length-prefixed chunks).
fn snappy_chunks(file: &[u8]) -> Vec<u64> {
    let mut at = 2;
    let mut starts = Vec::new();
    while at + 4 <= file.len() {
        starts.push(at as u64);
        let len = u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
        at += 4 + len;
    }
    starts
}

/// Zstd frames of one byte of stream each (thousands decoded at a time): every call's
/// `file_offset` is still the file offset of the frame that holds it.
#[test]
fn calls_in_tiny_zstd_frames_name_their_frames() {
    let (stream, calls) = write_model(&draws());
    let file = file_of(&stream, (Container::ZstdSeekable, 1));
    let frames = tracecap_apitrace::decompress(&file).unwrap();
    let (got, summary) = rows::rows(&file, Table::ApitraceCalls, &[], 4);
    assert!(summary.fault.is_none());
    assert_eq!(got.len(), calls.len());
    for (row, (call, _)) in got.iter().zip(&calls) {
        let want = frames.chunk_offset(call.offset).expect("a frame");
        assert_eq!(row["file_offset"], want, "call {}", call.no);
    }
}
