//! WTF: walk every event (wire ids looked up, every argument decoded, arrays summed) of two ~64 MB
//! chunked traces, a synthetic one and a real one (cpp-big) repeated, against memcpy of the same
//! bytes in the same group: `full_walk` with `Events::try_for_each_event`, `full_walk_iter` with
//! the iterator, and `events_only`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tracecap_wtf::write::{ChunkedWriter, WValue};
use tracecap_wtf::{ArgType, CLASS_INSTANCE, CLASS_SCOPE};

#[path = "../examples/common/wtf_walks.rs"]
mod wtf_walks;
use wtf_walks::{events_only, full_walk, full_walk_iter, repeated};

/// A C++-bindings-like trace: per chunk, scopes with integer args, instants with floats and
/// strings, arrays, appended data; about `target` bytes in 1 MiB event chunks.
fn synthetic(target: usize) -> Vec<u8> {
    let mut w = ChunkedWriter::new(0xE821_4400, r#"{"type":"file_header","timebase":0}"#);
    let defs: [(u16, u16, u32, &str, &str); 8] = [
        (2, CLASS_INSTANCE, 0x28, "wtf.scope#leave", ""),
        (
            3,
            CLASS_INSTANCE,
            0x28,
            "wtf.zone#create",
            "uint16 zoneId, ascii name, ascii type, ascii location",
        ),
        (4, CLASS_INSTANCE, 0x28, "wtf.zone#set", "uint16 zoneId"),
        (
            5,
            CLASS_SCOPE,
            0,
            "Frame#render",
            "uint32 frame, int16 layer",
        ),
        (
            6,
            CLASS_INSTANCE,
            0,
            "Frame#stats",
            "float32 ms, uint8 kind, bool ok, ascii label",
        ),
        (
            7,
            CLASS_INSTANCE,
            0,
            "Net#packet",
            "uint8[] bytes, flowId flow",
        ),
        (
            8,
            CLASS_INSTANCE,
            0x18,
            "Frame#extra",
            "int32 extra, any data",
        ),
        (9, CLASS_SCOPE, 0, "Job#run", "utf8 name, time32 budget"),
    ];
    for (id, class, flags, name, sig) in defs {
        w.define(id, class, flags, name, sig).unwrap();
    }
    w.event(
        3,
        0,
        &[
            WValue::Uint16(1),
            WValue::Ascii(Some("main".into())),
            WValue::Ascii(None),
            WValue::Ascii(Some("bench".into())),
        ],
    )
    .unwrap();
    let mut t = 0u32;
    let mut i = 0u32;
    let mut out_len = 0usize;
    while out_len < target {
        w.event(4, t, &[WValue::Uint16(1)]).unwrap();
        while w.pending() < 1 << 20 {
            t = t.wrapping_add(3);
            i = i.wrapping_add(1);
            w.event(5, t, &[WValue::Uint32(i), WValue::Int16(-3)])
                .unwrap();
            w.event(
                9,
                t,
                &[
                    WValue::Utf8(Some(format!("job{}", i % 64))),
                    WValue::Time32(1500),
                ],
            )
            .unwrap();
            w.event(
                6,
                t + 1,
                &[
                    WValue::Float32(i as f32 * 0.25),
                    WValue::Uint8(7),
                    WValue::Bool(true),
                    WValue::Ascii(Some("stat".into())),
                ],
            )
            .unwrap();
            if i & 3 == 0 {
                w.event(
                    7,
                    t + 1,
                    &[
                        WValue::Ints(ArgType::Uint8Array, Some((0..13).collect())),
                        WValue::FlowId(i),
                    ],
                )
                .unwrap();
            }
            w.event(
                8,
                t + 2,
                &[WValue::Int32(-7), WValue::Any(Some("{\"k\":1}".into()))],
            )
            .unwrap();
            w.event(2, t + 2, &[]).unwrap();
            w.event(2, t + 2, &[]).unwrap();
        }
        out_len += w.pending();
        w.end_chunk();
    }
    w.finish()
}

/// The walks of one trace against memcpy, in one group.
fn walks(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let mut group = c.benchmark_group(name);
    tracecap_benches::memcpy_baseline(&mut group, bytes);
    assert_eq!(full_walk(bytes), full_walk_iter(bytes));
    group.bench_function("full_walk", |b| b.iter(|| full_walk(black_box(bytes))));
    group.bench_function("full_walk_iter", |b| {
        b.iter(|| full_walk_iter(black_box(bytes)))
    });
    group.bench_function("events_only", |b| b.iter(|| events_only(black_box(bytes))));
    group.finish();
}

fn bench(c: &mut Criterion) {
    walks(c, "wtf", &synthetic(64 << 20));
    // cpp-big (the C++ bindings' recorder, from the corpus) repeated to 64 MiB.
    match tracecap_testkit::corpus("wtf") {
        Some(dir) => {
            let real = std::fs::read(dir.join("cff-cpp/cpp-big.wtf-trace")).unwrap();
            walks(c, "wtf_real", &repeated(&real, 64 << 20));
        }
        None => eprintln!("corpus not found: wtf_real skipped"),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
