//! Conversion into a sink that keeps nothing, and into the Perfetto writer, allocates nothing per
//! event: converting a capture of 8 times as many events makes no more allocations than a handful
//! (tables, tracks and interned strings grow with definitions, threads and distinct names, never
//! with events). Inputs are written by the format crates' writers,
//! so the test needs no corpus.
#![cfg(all(feature = "std", feature = "syscall", feature = "wtf"))]

mod common;

use tracecap::export::Perfetto;
use tracecap::timeline::Discard;
use tracecap::Format;
use tracecap_testkit::{allocs, CountingAlloc};

#[global_allocator]
static COUNTING: CountingAlloc = CountingAlloc;

/// Allocations a conversion makes beyond the one of a capture with fewer events: at most this
/// many (a few doublings of per-track state).
const SLACK: usize = 16;

/// Events (slices, instants and counter samples) and allocations of one conversion, into a
/// Perfetto writer that throws its bytes away or into `Discard`.
fn convert(format: Format, bytes: &[u8], perfetto: bool) -> (u64, usize) {
    let before = allocs();
    let stats = if perfetto {
        let sink = Perfetto::new(std::io::sink()).unwrap();
        tracecap::convert(format, bytes, sink).unwrap()
    } else {
        tracecap::convert(format, bytes, Discard).unwrap()
    };
    let made = allocs() - before;
    (stats.slices + stats.instants + stats.counter_samples, made)
}

/// Converts `small` and `big` (8 times the events of `small`) and compares their allocations.
fn check(name: &str, format: Format, small: &[u8], big: &[u8]) {
    let _serial = tracecap_testkit::serial();
    for perfetto in [false, true] {
        let (few, few_allocs) = convert(format, small, perfetto);
        let (many, many_allocs) = convert(format, big, perfetto);
        assert!(
            many >= 7 * few && few > 100,
            "{name}: {few} and {many} events"
        );
        assert!(
            many_allocs <= few_allocs + SLACK,
            "{name} (perfetto {perfetto}): {few_allocs} allocations for {few} events, \
             {many_allocs} for {many}"
        );
    }
}

mod syscall {
    use tracecap::syscall::write::{ArgModel, CaptureModel, EntryModel, HeaderModel, SyscallModel};

    /// `n` bytes of which many are not UTF-8 (what a `read` of a binary file holds).
    fn binary(n: usize) -> Vec<u8> {
        (0..n).map(|b| (b * 37) as u8).collect()
    }

    /// A capture of `n` calls on 4 threads: reads with binary data, and calls without arguments.
    fn capture(n: usize) -> Vec<u8> {
        let entries = (0..n)
            .map(|i| {
                let args = if i % 2 == 0 {
                    vec![ArgModel::Int(3), ArgModel::Data(binary(i % 64))]
                } else {
                    Vec::new()
                };
                EntryModel::Syscall(SyscallModel {
                    number: if i % 2 == 0 { 0 } else { 39 },
                    result: Some(i as i64 % 64),
                    tid: Some(100 + (i % 4) as i32),
                    timestamp_ns: Some(1_000 * i as i64),
                    duration_ns: Some(500.0),
                    args,
                })
            })
            .collect();
        let model = CaptureModel {
            header: HeaderModel {
                pid: 100,
                ..HeaderModel::default()
            },
            entries,
        };
        model.to_bytes().unwrap()
    }

    #[test]
    fn converting_more_calls_allocates_nothing_more() {
        super::check(
            "syscall",
            tracecap::Format::Syscall,
            &capture(1_000),
            &capture(8_000),
        );
    }
}

mod wtf {
    use tracecap::wtf::write::{ChunkedWriter, WValue};
    use tracecap::wtf::{CLASS_INSTANCE, CLASS_SCOPE, FLAG_BUILTIN, FLAG_INTERNAL};

    /// A trace of `n` scopes (enter, a tick, leave) on one zone.
    fn trace(n: u32) -> Vec<u8> {
        let builtin = FLAG_BUILTIN | FLAG_INTERNAL;
        let mut w = ChunkedWriter::new(0xE821_4400, r#"{"type":"file_header","timebase":0}"#);
        w.define(2, CLASS_INSTANCE, builtin, "wtf.scope#leave", "")
            .unwrap();
        w.define(3, CLASS_SCOPE, 0, "App#work", "int32 n").unwrap();
        w.define(4, CLASS_INSTANCE, 0, "App#tick", "uint32 i, ascii label")
            .unwrap();
        for i in 0..n {
            let t = 10 * i;
            w.event(3, t, &[WValue::Int32(i as i32)]).unwrap();
            let label = WValue::Ascii(Some(format!("tick {}", i % 8)));
            w.event(4, t + 1, &[WValue::Uint32(i), label]).unwrap();
            w.event(2, t + 5, &[]).unwrap();
        }
        w.finish()
    }

    #[test]
    fn converting_more_events_allocates_nothing_more() {
        super::check("wtf", tracecap::Format::Wtf, &trace(1_000), &trace(8_000));
    }
}

#[cfg(feature = "easyprofiler")]
mod easyprofiler {
    use tracecap_easyprofiler::write::{
        BookmarkModel, CaptureModel, ContextSwitchModel, DescriptorModel, RecordModel, ThreadModel,
    };
    use tracecap_easyprofiler::{DataType, DescriptorKind, Version};

    fn desc(id: u32, kind: DescriptorKind, name: &str) -> DescriptorModel {
        DescriptorModel {
            id,
            line: 7,
            color: 0xff11_2233,
            kind,
            status: 1,
            name: name.as_bytes().to_vec(),
            file: b"a.cpp".to_vec(),
        }
    }

    /// A name that is UTF-8 every other time and not otherwise.
    fn name(i: usize, what: &str) -> Vec<u8> {
        let mut n = format!("{what} {}", i % 8).into_bytes();
        if i % 2 == 0 {
            n.push(0xff);
        }
        n
    }

    /// A capture of `n` blocks on 2 threads, each a child (with a run-time name) in a parent,
    /// with an event, scalar, array and string values, a context switch each, and bookmarks.
    fn capture(n: usize) -> Vec<u8> {
        let descriptors = vec![
            desc(0, DescriptorKind::Block, "parent"),
            desc(1, DescriptorKind::Block, "child"),
            desc(2, DescriptorKind::Event, "mark"),
            desc(3, DescriptorKind::Value, "count"),
            desc(4, DescriptorKind::Value, "matrix"),
            desc(5, DescriptorKind::Value, "label"),
        ];
        let thread = |t: u64| {
            let mut records = Vec::new();
            let mut context_switches = Vec::new();
            for i in 0..n / 4 {
                let t0 = 100 * i as u64;
                records.push(RecordModel::Block {
                    begin: t0 + 1,
                    end: t0 + 20,
                    id: 1,
                    name: name(i, "run"),
                });
                records.push(RecordModel::Block {
                    begin: t0 + 21,
                    end: t0 + 21,
                    id: 2,
                    name: Vec::new(),
                });
                records.push(RecordModel::Value {
                    time: t0 + 22,
                    id: 3,
                    value_id: 1,
                    data_type: DataType::Int32,
                    is_array: false,
                    data: (i as i32).to_le_bytes().to_vec(),
                });
                records.push(RecordModel::Value {
                    time: t0 + 23,
                    id: 4,
                    value_id: 2,
                    data_type: DataType::Double,
                    is_array: true,
                    data: [1.5f64, -2.0, i as f64]
                        .iter()
                        .flat_map(|f| f.to_le_bytes())
                        .collect(),
                });
                let mut text = name(i, "text");
                text.push(0);
                records.push(RecordModel::Value {
                    time: t0 + 24,
                    id: 5,
                    value_id: 3,
                    data_type: DataType::String,
                    is_array: true,
                    data: text,
                });
                records.push(RecordModel::Block {
                    begin: t0,
                    end: t0 + 50,
                    id: 0,
                    name: Vec::new(),
                });
                context_switches.push(ContextSwitchModel {
                    begin: t0 + 60,
                    end: t0 + 70,
                    target_thread: t + 1,
                    name: name(i, "task"),
                });
            }
            ThreadModel {
                id: t,
                name: format!("worker {t}").into_bytes(),
                context_switches,
                records,
            }
        };
        let bookmarks = (0..n / 8)
            .map(|i| BookmarkModel {
                position: 800 * i as u64,
                color: 0xff00_ff00,
                text: name(i, "bookmark"),
            })
            .collect();
        let model = CaptureModel {
            version: Version::V2_1_0,
            pid: 7,
            cpu_frequency: 0,
            begin_time: 0,
            end_time: 100 * n as u64,
            descriptors,
            threads: vec![thread(11), thread(12)],
            bookmarks,
        };
        model.to_bytes().unwrap()
    }

    #[test]
    fn converting_more_blocks_allocates_nothing_more() {
        super::check(
            "easyprofiler",
            tracecap::Format::EasyProfiler,
            &capture(1_000),
            &capture(8_000),
        );
    }
}

#[cfg(feature = "apitrace")]
mod apitrace {
    use tracecap_apitrace::write::{wrap, WDetail, WValue};
    use tracecap_apitrace::Container;

    use crate::common::apitrace::{writer, DRAW, GET, POP, PUSH, SWAP};

    /// A trace of `n` calls on 2 threads: debug groups with text and wide text, draws, nested
    /// calls, pointers and arrays (written by the dumper), an argument past the signature's names,
    /// a return value, and a frame every 8 calls.
    fn trace(n: u64) -> Vec<u8> {
        let mut w = writer();
        let mut written = 0;
        while written < n {
            let text = format!("pass {}", written % 8);
            let push = w.enter(
                0,
                PUSH,
                &[
                    WDetail::Arg(0, WValue::UInt(0x824a)),
                    WDetail::Arg(1, WValue::UInt(1)),
                    WDetail::Arg(2, WValue::SInt(-1)),
                    WDetail::Arg(3, WValue::String(text.into_bytes())),
                ],
            );
            w.leave(push, &[]);
            let draw = w.enter(
                0,
                DRAW,
                &[
                    WDetail::Arg(0, WValue::UInt(4)),
                    WDetail::Arg(1, WValue::UInt(0)),
                    WDetail::Arg(2, WValue::UInt(3)),
                ],
            );
            // A call on another thread while the draw is open, then one nested in the draw.
            let get = w.enter(1, GET, &[WDetail::Arg(0, WValue::UInt(0xba2))]);
            let inner = w.enter(0, GET, &[WDetail::Arg(0, WValue::UInt(0xba3))]);
            w.leave(
                get,
                &[
                    WDetail::Arg(1, WValue::Array(vec![WValue::SInt(0), WValue::SInt(7)])),
                    WDetail::Ret(WValue::UInt(5)),
                ],
            );
            w.leave(inner, &[WDetail::Arg(1, WValue::Pointer(0x10))]);
            w.leave(draw, &[]);
            let wide = w.enter(
                0,
                PUSH,
                &[WDetail::Arg(3, WValue::WString(vec![0x67, 0x72, 0x70]))],
            );
            w.leave(wide, &[]);
            let pop = w.enter(0, POP, &[WDetail::Arg(7, WValue::UInt(1))]);
            w.leave(pop, &[]);
            let pop = w.enter(0, POP, &[]);
            w.leave(pop, &[]);
            let swap = w.enter(0, SWAP, &[WDetail::Arg(0, WValue::Pointer(0x1234))]);
            w.leave(swap, &[]);
            written += 8;
        }
        wrap(&w.finish(), Container::Snappy)
    }

    #[test]
    fn converting_more_calls_allocates_nothing_more() {
        super::check(
            "apitrace",
            tracecap::Format::Apitrace,
            &trace(1_000),
            &trace(8_000),
        );
    }
}

#[cfg(feature = "orbit")]
mod orbit {
    //! The tracecap crate's dev-dependencies do not turn on the Orbit writer, so the capture is
    //! laid out here: the 24-byte header, then varint-length-prefixed `ClientCaptureEvent`s.

    fn varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// A varint field, left out when zero (as protobuf writes it).
    fn uint(out: &mut Vec<u8>, number: u64, v: u64) {
        if v != 0 {
            varint(out, number << 3);
            varint(out, v);
        }
    }

    /// A length-delimited field.
    fn bytes(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
        varint(out, number << 3 | 2);
        varint(out, payload.len() as u64);
        out.extend_from_slice(payload);
    }

    /// A `ClientCaptureEvent` with the member `number` holding `message`, length-prefixed.
    fn event(file: &mut Vec<u8>, number: u64, message: &[u8]) {
        let mut ev = Vec::new();
        bytes(&mut ev, number, message);
        varint(file, ev.len() as u64);
        file.extend_from_slice(&ev);
    }

    /// A capture of `n` calls on 4 threads: each call nests one inner call, then a scheduling
    /// slice and an API scope around it; two instrumented functions and a thread name each.
    fn capture(n: u64) -> Vec<u8> {
        let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
        let mut options = Vec::new();
        for (id, name) in [(1u64, "outer"), (2, "inner")] {
            let mut f = Vec::new();
            uint(&mut f, 3, id);
            bytes(&mut f, 5, name.as_bytes());
            bytes(&mut options, 5, &f);
        }
        let mut started = Vec::new();
        uint(&mut started, 1, 100);
        bytes(&mut started, 2, b"/usr/bin/demo");
        bytes(&mut started, 5, &options);
        event(&mut file, 24, &started);
        for tid in 0..4u64 {
            let mut t = Vec::new();
            uint(&mut t, 1, 100);
            uint(&mut t, 2, 200 + tid);
            bytes(&mut t, 3, format!("worker {tid}").as_bytes());
            event(&mut file, 22, &t);
        }
        for i in 0..n / 4 {
            let tid = 200 + i % 4;
            let t0 = 1_000 + 100 * i;
            for (id, end, depth, duration) in [(2u64, t0 + 40, 1u64, 20u64), (1, t0 + 50, 0, 50)] {
                let mut call = Vec::new();
                uint(&mut call, 1, 100);
                uint(&mut call, 2, tid);
                uint(&mut call, 3, id);
                uint(&mut call, 5, end);
                uint(&mut call, 6, depth);
                uint(&mut call, 9, duration);
                event(&mut file, 2, &call);
            }
            let mut slice = Vec::new();
            uint(&mut slice, 1, 100);
            uint(&mut slice, 2, tid);
            uint(&mut slice, 3, i % 2);
            uint(&mut slice, 5, t0 + 60);
            uint(&mut slice, 6, 60);
            event(&mut file, 6, &slice);
            let mut start = Vec::new();
            uint(&mut start, 1, 100);
            uint(&mut start, 2, tid);
            uint(&mut start, 3, t0 + 1);
            varint(&mut start, 4 << 3 | 1);
            start.extend_from_slice(b"scope\0\0\0");
            event(&mut file, 10, &start);
            let mut stop = Vec::new();
            uint(&mut stop, 1, 100);
            uint(&mut stop, 2, tid);
            uint(&mut stop, 3, t0 + 2);
            event(&mut file, 11, &stop);
        }
        event(&mut file, 27, &[]);
        file
    }

    #[test]
    fn converting_more_calls_allocates_nothing_more() {
        let small = capture(1_000);
        if let Err(e) = tracecap::orbit::validate::validate(&small) {
            panic!("{e}");
        }
        super::check("orbit", tracecap::Format::Orbit, &small, &capture(8_000));
    }
}
