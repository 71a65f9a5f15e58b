//! proptest: model -> writer -> any container -> decompress -> parser -> model, for every
//! version (0-6), every value tag, every detail and every container.

#![allow(clippy::type_complexity)]

use proptest::prelude::*;
use tracecap_apitrace::write::{self, WDetail, WFrame, WValue, Writer};
use tracecap_apitrace::{
    decompress, ChunkedReader, Container, Detail, EventKind, SigTable, SliceSource, Stream, Value,
};

const ENUMS: [(u64, &[(&[u8], i64)]); 2] = [
    (7, &[(b"GL_A", 1), (b"GL_NEG", -2), (b"GL_A_AGAIN", 1)]),
    (9, &[(b"ONLY", 5)]),
];
const BITMASKS: [(u64, &[(&[u8], u64)]); 1] = [(3, &[(b"NONE", 0), (b"B1", 1), (b"B2", 2)])];
/// Struct signatures: id, name, members.
const STRUCTS: [(u64, &[u8], &[&[u8]]); 3] = [
    (1, b"Pair", &[b"x", b"y"]),
    (2, b"Empty", &[]),
    (40000, b"Triple", &[b"a", b"", b"c"]),
];
const FUNCS: [(u64, &[u8], &[&[u8]]); 3] = [
    (0, b"memcpy", &[b"dest", b"src", b"n"]),
    (4, b"glXSwapBuffers", &[b"dpy", b"drawable"]),
    (2464, b"glFoo", &[]),
];

fn leaf() -> impl Strategy<Value = WValue> {
    prop_oneof![
        Just(WValue::Null),
        any::<bool>().prop_map(WValue::Bool),
        (i64::MIN..0).prop_map(WValue::SInt),
        any::<u64>().prop_map(WValue::UInt),
        any::<u32>().prop_map(|b| WValue::Float(f32::from_bits(b))),
        any::<u64>().prop_map(|b| WValue::Double(f64::from_bits(b))),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(WValue::String),
        prop::collection::vec(any::<u8>(), 0..300).prop_map(WValue::Blob),
        (0usize..2, any::<i64>()).prop_map(|(i, value)| WValue::Enum {
            sig: ENUMS[i].0,
            value
        }),
        any::<u64>().prop_map(|value| WValue::Bitmask { sig: 3, value }),
        any::<u64>().prop_map(WValue::Pointer),
        prop::collection::vec(0u64..0x11_0000, 0..10).prop_map(WValue::WString),
    ]
}

fn value() -> impl Strategy<Value = WValue> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(WValue::Array),
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
        4 => (0u64..4, value()).prop_map(|(i, v)| WDetail::Arg(i, v)),
        1 => value().prop_map(WDetail::Ret),
        1 => prop::collection::vec(1u64..5, 0..4).prop_map(WDetail::Backtrace),
        1 => any::<u64>().prop_map(WDetail::Flags),
    ]
}

#[derive(Clone, Debug)]
struct Ev {
    enter: bool,
    thread: u64,
    func: usize,
    details: Vec<WDetail>,
}

fn events() -> impl Strategy<Value = Vec<Ev>> {
    prop::collection::vec(
        (
            any::<bool>(),
            0u64..300,
            0usize..3,
            prop::collection::vec(detail(), 0..4),
        )
            .prop_map(|(enter, thread, func, details)| Ev {
                enter,
                thread,
                func,
                details,
            }),
        0..12,
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

/// What the parser gives back for a written value in a stream of `version`.
fn expected(v: &WValue, version: u64) -> WValue {
    match v {
        WValue::Enum { sig, .. } if version < 3 => {
            let first = ENUMS.iter().find(|e| e.0 == *sig).unwrap().1[0].1;
            WValue::Enum {
                sig: *sig,
                value: first,
            }
        }
        WValue::Array(a) => WValue::Array(a.iter().map(|x| expected(x, version)).collect()),
        WValue::Struct { sig, members } => WValue::Struct {
            sig: *sig,
            members: members.iter().map(|x| expected(x, version)).collect(),
        },
        WValue::Repr(h, m) => WValue::Repr(
            Box::new(expected(h, version)),
            Box::new(expected(m, version)),
        ),
        other => other.clone(),
    }
}

fn back(v: &Value<'_>, t: &SigTable) -> WValue {
    match *v {
        Value::Null => WValue::Null,
        Value::Bool(b) => WValue::Bool(b),
        Value::SInt(i) => WValue::SInt(i),
        Value::UInt(u) => WValue::UInt(u),
        Value::Float(f) => WValue::Float(f),
        Value::Double(f) => WValue::Double(f),
        Value::String(s) => WValue::String(s.to_vec()),
        Value::Blob(s) => WValue::Blob(s.to_vec()),
        Value::Enum { sig, value } => WValue::Enum { sig, value },
        Value::Bitmask { sig, value } => WValue::Bitmask { sig, value },
        Value::Array(a) => WValue::Array(a.iter(t).map(|x| back(&x.unwrap(), t)).collect()),
        Value::Struct(s) => WValue::Struct {
            sig: s.sig,
            members: s.iter(t).map(|x| back(&x.unwrap(), t)).collect(),
        },
        Value::Pointer(p) => WValue::Pointer(p),
        Value::Repr(r) => WValue::Repr(
            Box::new(back(&r.human(t).unwrap(), t)),
            Box::new(back(&r.machine(t).unwrap(), t)),
        ),
        Value::WString(w) => WValue::WString(w.units().collect()),
    }
}

/// Floats compared by bits (NaN payloads included).
fn same(a: &WValue, b: &WValue) -> bool {
    match (a, b) {
        (WValue::Float(x), WValue::Float(y)) => x.to_bits() == y.to_bits(),
        (WValue::Double(x), WValue::Double(y)) => x.to_bits() == y.to_bits(),
        (WValue::Array(x), WValue::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (WValue::Struct { sig: s, members: x }, WValue::Struct { sig: t, members: y }) => {
            s == t && x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (WValue::Repr(a1, a2), WValue::Repr(b1, b2)) => same(a1, b1) && same(a2, b2),
        _ => a == b,
    }
}

fn same_detail(a: &WDetail, b: &WDetail) -> bool {
    match (a, b) {
        (WDetail::Arg(i, x), WDetail::Arg(j, y)) => i == j && same(x, y),
        (WDetail::Ret(x), WDetail::Ret(y)) => same(x, y),
        _ => a == b,
    }
}

fn frame(id: u64) -> WFrame {
    WFrame {
        module: (id != 4).then(|| format!("lib{id}.so").into_bytes()),
        function: (id % 2 == 1).then(|| b"main".to_vec()),
        filename: (id == 3).then(|| b"main.c".to_vec()),
        line: (id == 3).then_some(42),
        offset: (id != 2).then_some(0x1000 * id),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn round_trip(version in 0u64..=6, evs in events(), (cont, chunk) in container(),
                  props in prop::collection::vec((prop::collection::vec(1u8..255, 1..8),
                                                  prop::collection::vec(any::<u8>(), 0..8)), 0..3)) {
        let props_ref: Vec<(&[u8], &[u8])> =
            props.iter().map(|(n, v)| (n.as_slice(), v.as_slice())).collect();
        let mut w = Writer::new(version, version, &props_ref);
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
        // Model: (kind, call_no, thread, func index, details) as written.
        let mut model = Vec::new();
        let mut open: Vec<u64> = Vec::new();
        for e in &evs {
            if e.enter || open.is_empty() {
                let no = w.enter(e.thread, FUNCS[e.func].0, &e.details);
                open.push(no);
                let thread = if version >= 4 { e.thread } else { 0 };
                model.push((EventKind::Enter, no, thread, FUNCS[e.func].0, e.details.clone()));
            } else {
                let no = open.remove(e.thread as usize % open.len());
                w.leave(no, &e.details);
                model.push((EventKind::Leave, no, 0, 0, e.details.clone()));
            }
        }
        let stream = w.finish();
        let file = match cont {
            Container::Snappy => write::snappy(&stream, chunk),
            Container::ZstdSeekable => write::zstd(&stream, chunk, true),
            Container::Zstd => write::zstd(&stream, chunk, false),
            c => write::wrap(&stream, c),
        };
        let d = decompress(&file).unwrap();
        prop_assert_eq!(d.container, cont);
        prop_assert!(d.fault.is_none());
        prop_assert!(d.data == stream);

        let trace = Stream::parse(&d.data).unwrap();
        prop_assert_eq!(trace.version(), version);
        let got_props: Vec<(&[u8], &[u8])> = trace.header().properties().collect();
        if version >= 6 {
            prop_assert_eq!(&got_props, &props_ref);
        } else {
            prop_assert!(got_props.is_empty());
        }
        let mut events = trace.events();
        let mut n = 0;
        while let Some(ev) = events.next() {
            let ev = ev.unwrap();
            let (kind, no, thread, sig, details) = &model[n];
            prop_assert_eq!(ev.kind, *kind);
            prop_assert_eq!(ev.call_no, *no);
            prop_assert_eq!(ev.thread, *thread);
            prop_assert_eq!(ev.sig, *sig);
            let t = events.table();
            let got: Vec<WDetail> = ev.details().iter(t).map(|d| match d.unwrap() {
                Detail::Arg { index, value } => WDetail::Arg(index, back(&value, t)),
                Detail::Ret(v) => WDetail::Ret(back(&v, t)),
                Detail::Backtrace(b) => WDetail::Backtrace(b.frames(t).map(|f| f.unwrap()).collect()),
                Detail::Flags(f) => WDetail::Flags(f),
            }).collect();
            prop_assert_eq!(got.len(), details.len());
            for (g, want) in got.iter().zip(details) {
                let want = match want {
                    WDetail::Arg(i, v) => WDetail::Arg(*i, expected(v, version)),
                    WDetail::Ret(v) => WDetail::Ret(expected(v, version)),
                    o => o.clone(),
                };
                prop_assert!(same_detail(g, &want), "{:?} != {:?}", g, want);
            }
            // Signatures resolve to what was registered.
            if ev.kind == EventKind::Enter {
                let f = t.function(ev.sig).unwrap();
                let (_, name, args) = FUNCS.iter().find(|f| f.0 == ev.sig).unwrap();
                prop_assert_eq!(f.name(), *name);
                prop_assert!(f.arg_names().eq(args.iter().copied()));
            }
            n += 1;
        }
        prop_assert_eq!(n, model.len());
        let t = events.table();
        for id in 1..5u64 {
            if let Some(f) = t.frame(id) {
                let want = frame(id);
                prop_assert_eq!(f.module, want.module.as_deref());
                prop_assert_eq!(f.function, want.function.as_deref());
                prop_assert_eq!(f.filename, want.filename.as_deref());
                prop_assert_eq!(f.line, want.line);
                prop_assert_eq!(f.offset, want.offset);
            }
        }
        // The chunked reader agrees on the same stream cut in odd pieces.
        let mut r = ChunkedReader::new(SliceSource::new(&stream, chunk.max(1)), SigTable::new());
        let mut m = 0;
        while let Some(ev) = r.next_event() {
            let (ev, _) = ev.unwrap();
            prop_assert_eq!(ev.call_no, model[m].1);
            m += 1;
        }
        prop_assert_eq!(m, model.len());
    }
}

#[test]
fn struct_and_enum_signatures_keep_their_names() {
    let mut w = Writer::new(6, 6, &[]);
    w.function(4, b"f", &[b"a"]);
    w.struct_sig(1, b"Pair", &[b"x", b"y"]);
    w.enum_sig(7, &[(b"GL_A", 1), (b"GL_NEG", -2)]);
    w.bitmask_sig(3, &[(b"NONE", 0), (b"B1", 1)]);
    let s = WValue::Struct {
        sig: 1,
        members: vec![WValue::UInt(1), WValue::SInt(-1)],
    };
    let no = w.enter(0, 4, &[WDetail::Arg(0, s)]);
    w.leave(
        no,
        &[WDetail::Ret(WValue::Array(vec![
            WValue::Enum { sig: 7, value: -2 },
            WValue::Bitmask { sig: 3, value: 3 },
        ]))],
    );
    let stream = w.finish();
    let trace = Stream::parse(&stream).unwrap();
    let mut events = trace.events();
    for e in events.by_ref() {
        e.unwrap();
    }
    let t = events.table();
    let s = t.struct_sig(1).unwrap();
    assert_eq!(s.name(), b"Pair");
    assert!(s.member_names().eq([&b"x"[..], b"y"]));
    assert_eq!(t.enum_sig(7).unwrap().lookup(-2), Some(&b"GL_NEG"[..]));
    assert_eq!(t.bitmask_sig(3).unwrap().flags().count(), 2);
}

/// `CaptureModel`: every corpus stream read into a model, written and read again gives the
/// same model; a model written and wrapped in each container reads back the same.
#[test]
fn capture_model_reads_back_what_it_writes() {
    use tracecap_apitrace::write::{wrap, CaptureModel};
    let example = decompress(&tracecap_apitrace::write::example_file()).unwrap();
    let mut streams = vec![("example".to_string(), example.data)];
    let files =
        tracecap_testkit::corpus_files("apitrace", &["apitrace-tests", "produced-apitrace-11.1"]);
    for (name, file) in files.iter().filter(|(n, _)| n.ends_with(".trace")) {
        let d = decompress(file).unwrap();
        if d.fault.is_none() && Stream::parse(&d.data).is_ok_and(|s| s.events().all(|e| e.is_ok()))
        {
            streams.push((name.clone(), d.data));
        }
    }
    for (name, stream) in &streams {
        let m = CaptureModel::from_bytes(stream).unwrap();
        let bytes = m.to_bytes();
        assert_eq!(CaptureModel::from_bytes(&bytes).unwrap(), m, "{name}");
        for container in [Container::Snappy, Container::Gzip, Container::Zstd] {
            let file = wrap(&bytes, container);
            assert_eq!(
                decompress(&file).unwrap().data,
                bytes,
                "{name} {container:?}"
            );
        }
    }
    let example = CaptureModel::from_bytes(&streams[0].1).unwrap();
    assert_eq!(example.version, 6);
    assert_eq!(example.functions.len(), 2);
    assert_eq!(example.events.len(), 4);
}

/// The bytes the docs' examples read are what the writer makes.
#[test]
fn doc_example_is_the_writers_example_file() {
    assert_eq!(
        tracecap_apitrace::write::example_file(),
        tracecap_apitrace::doc_example()
    );
}
