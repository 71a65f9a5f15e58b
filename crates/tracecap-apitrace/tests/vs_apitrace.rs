//! Differential test against the real `apitrace dump` (when installed): random traces of every
//! version and value tag, dumped by both, must be byte-identical. Without the tool: skipped.

#![allow(clippy::type_complexity)]

use std::process::Command;

use proptest::prelude::*;
use tracecap_apitrace::dump::dump_text;
use tracecap_apitrace::write::{self, WDetail, WFrame, WValue, Writer};

fn apitrace() -> bool {
    let ok = Command::new("apitrace")
        .arg("help")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("!!! `apitrace` not installed: differential test skipped");
    }
    ok
}

const FUNCS: [(u64, &[u8], &[&[u8]]); 4] = [
    (0, b"memcpy", &[b"dest", b"src", b"n"]),
    (4, b"glXSwapBuffers", &[b"dpy", b"drawable"]),
    (9, b"glFoo", &[]),
    (2464, b"eglSwapBuffers", &[b"dpy", b"surface", b"x", b"y"]),
];

fn leaf() -> impl Strategy<Value = WValue> {
    prop_oneof![
        Just(WValue::Null),
        any::<bool>().prop_map(WValue::Bool),
        (i64::MIN..0).prop_map(WValue::SInt),
        any::<u64>().prop_map(WValue::UInt),
        any::<u32>().prop_map(|b| WValue::Float(f32::from_bits(b))),
        any::<u64>().prop_map(|b| WValue::Double(f64::from_bits(b))),
        prop_oneof![
            (-1e6f32..1e6).prop_map(WValue::Float),
            (-1e300f64..1e300).prop_map(WValue::Double),
            prop::sample::select(vec![
                0.5f64,
                0.1,
                1e-5,
                123456789.0,
                1e16,
                1e15,
                0.0001,
                -0.0,
                1.0 / 3.0
            ])
            .prop_map(WValue::Double),
        ],
        prop::collection::vec(any::<u8>(), 0..20).prop_map(WValue::String),
        prop::collection::vec(any::<u8>(), 0..30).prop_map(WValue::Blob),
        (0usize..2, -3i64..7).prop_map(|(i, value)| WValue::Enum {
            sig: [7, 9][i],
            value
        }),
        prop_oneof![any::<u64>(), 0u64..8].prop_map(|value| WValue::Bitmask { sig: 3, value }),
        any::<u64>().prop_map(WValue::Pointer),
        prop::collection::vec(prop_oneof![0u64..0x80, 0u64..0x11_0000], 0..8)
            .prop_map(WValue::WString),
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
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(a, b, c)| WValue::Struct {
                sig: 2,
                members: vec![a, b, c]
            }),
            (inner.clone(), inner).prop_map(|(h, m)| WValue::Repr(Box::new(h), Box::new(m))),
        ]
    })
}

#[derive(Clone, Debug)]
struct Ev {
    enter: bool,
    thread: u64,
    func: usize,
    details: Vec<WDetail>,
}

fn ev() -> impl Strategy<Value = Ev> {
    (
        any::<bool>(),
        0u64..20,
        0usize..4,
        prop::collection::vec(
            prop_oneof![
                4 => (0u64..4, value()).prop_map(|(i, v)| WDetail::Arg(i, v)),
                1 => value().prop_map(WDetail::Ret),
                1 => prop::collection::vec(1u64..6, 0..3).prop_map(WDetail::Backtrace),
                1 => (0u64..4).prop_map(WDetail::Flags),
            ],
            0..4,
        ),
    )
        .prop_map(|(enter, thread, func, details)| Ev {
            enter,
            thread,
            func,
            details,
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("VS_APITRACE_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(40),
        ..ProptestConfig::default()
    })]
    #[test]
    fn same_dump_as_apitrace(version in 0u64..=6, cont in 0u8..3, chunk in 1usize..100, evs in prop::collection::vec(ev(), 0..30),
                             props in prop::collection::vec((prop::collection::vec(0x21u8..0x7f, 1..6),
                                                             prop::collection::vec(any::<u8>(), 0..6)), 0..3)) {
        if !apitrace() {
            return Ok(());
        }
        let props_ref: Vec<(&[u8], &[u8])> =
            props.iter().map(|(n, v)| (n.as_slice(), v.as_slice())).collect();
        let mut w = Writer::new(version, version, &props_ref);
        for (id, name, args) in FUNCS {
            w.function(id, name, args);
        }
        w.struct_sig(1, b"Pair", &[b"x", b"y"]);
        w.struct_sig(2, b"Anon", &[b"a", b"", b"c"]);
        w.enum_sig(7, &[(b"GL_A", 1), (b"GL_NEG", -2), (b"GL_A_AGAIN", 1), (b"GL_ZERO", 0)]);
        w.enum_sig(9, &[(b"ONLY", 5)]);
        w.bitmask_sig(3, &[(b"NONE", 0), (b"B1", 1), (b"B2", 2), (b"B12", 3), (b"B8", 8)]);
        for id in 1..6u64 {
            w.frame(id, WFrame {
                module: (id != 4).then(|| format!("lib{id}.so").into_bytes()),
                function: (id % 2 == 1).then(|| b"main".to_vec()),
                filename: (id == 3 || id == 5).then(|| b"main.c".to_vec()),
                line: (id == 3).then_some(42),
                offset: (id != 2).then_some(0x1000 * id),
            });
        }
        let mut open: Vec<(u64, usize)> = Vec::new();
        for e in &evs {
            let func = if e.enter || open.is_empty() {
                e.func
            } else {
                open[e.thread as usize % open.len()].1
            };
            let num_args = FUNCS[func].2.len() as u64;
            // Argument indexes past the signature are undefined behaviour upstream: keep inside.
            let details: Vec<WDetail> = e.details.iter().filter(|d| match d {
                WDetail::Arg(i, _) => *i < num_args,
                _ => true,
            }).cloned().collect();
            if e.enter || open.is_empty() {
                open.push((w.enter(e.thread, FUNCS[e.func].0, &details), e.func));
            } else {
                let (no, _) = open.remove(e.thread as usize % open.len());
                w.leave(no, &details);
            }
        }
        let stream = w.finish();
        // Snappy with small chunks (events straddle them), gzip and brotli: what 11.1 reads.
        let file = match cont {
            0 => write::snappy(&stream, chunk),
            1 => write::gzip(&stream),
            _ => write::brotli(&stream),
        };
        let dir = std::env::temp_dir();
        let path = dir.join(format!("tracecap-vs-apitrace-{}.trace", std::process::id()));
        std::fs::write(&path, &file).unwrap();
        let out = Command::new("apitrace")
            .args(["dump", "--color=never", "-v", "--thread-ids=yes"])
            .arg(&path)
            .output()
            .unwrap();
        let mut ours = Vec::new();
        let d = tracecap_apitrace::decompress(&file).unwrap();
        prop_assert!(d.fault.is_none() && d.data == stream);
        dump_text(&d.data, |b| ours.extend_from_slice(b)).unwrap();
        if ours != out.stdout {
            let keep = dir.join("tracecap-vs-apitrace-failed.trace");
            std::fs::copy(&path, &keep).unwrap();
            prop_assert!(false, "dumps differ (kept {}):\n--- ours\n{}\n--- apitrace\n{}",
                keep.display(), String::from_utf8_lossy(&ours), String::from_utf8_lossy(&out.stdout));
        }
        std::fs::remove_file(&path).ok();
    }
}
