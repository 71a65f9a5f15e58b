//! proptest: model -> writer -> parser -> model, chunked and legacy, every wire type, definitions
//! in later chunks, many chunks each with its own string table; and `CaptureModel`: its
//! `from_bytes` reads back what its `to_bytes` writes, in both containers.

mod common;

use proptest::prelude::*;
use tracecap_wtf::write::{
    CaptureModel, ChunkedWriter, DefinitionModel, EventModel, LegacyHeaderModel, LegacyWriter,
    WValue,
};
use tracecap_wtf::{ArgType, Capture, Container, DefinitionLookup, Event, FixedDefinitionTable};

#[derive(Clone, Debug)]
struct Def {
    wire_id: u16,
    class: u16,
    flags: u32,
    name: String,
    types: Vec<ArgType>,
    alias: bool,
    chunk: usize,
}

#[derive(Clone, Debug)]
struct Ev {
    def: usize,
    time: u32,
    args: Vec<WValue>,
}

fn spelled(t: ArgType, alias: bool) -> String {
    if !alias {
        return t.name().to_string();
    }
    match t {
        ArgType::Int8 => "byte".into(),
        ArgType::Uint8 => "octet".into(),
        ArgType::Int16 => "short".into(),
        ArgType::Uint16 => "unsigned short".into(),
        ArgType::Int32 => "long".into(),
        ArgType::Uint32 => "unsigned long".into(),
        ArgType::Float32 => "float".into(),
        ArgType::Utf8 => "DOMString".into(),
        ArgType::Uint8Array => "sequence<uint8>".into(),
        ArgType::Int32Array => "sequence<long>".into(),
        t => t.name().into(),
    }
}

fn signature(d: &Def) -> String {
    d.types
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{} a_{i}", spelled(*t, d.alias)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn legacy_ok(t: ArgType) -> bool {
    !matches!(
        t,
        ArgType::Char | ArgType::WChar | ArgType::CharArray | ArgType::WCharArray
    )
}

fn text(ascii: bool) -> BoxedStrategy<Option<String>> {
    let s = if ascii {
        "[ -~]{0,12}".boxed()
    } else {
        "[^\u{0}]{0,8}".boxed()
    };
    prop::option::of(s).boxed()
}

fn ints(t: ArgType) -> BoxedStrategy<WValue> {
    let elem: BoxedStrategy<i64> = match t {
        ArgType::Int8Array => any::<i8>().prop_map(i64::from).boxed(),
        ArgType::Uint8Array | ArgType::CharArray => any::<u8>().prop_map(i64::from).boxed(),
        ArgType::Int16Array => any::<i16>().prop_map(i64::from).boxed(),
        ArgType::Uint16Array | ArgType::WCharArray => any::<u16>().prop_map(i64::from).boxed(),
        ArgType::Int32Array => any::<i32>().prop_map(i64::from).boxed(),
        _ => any::<u32>().prop_map(i64::from).boxed(),
    };
    prop::option::of(prop::collection::vec(elem, 0..7))
        .prop_map(move |v| WValue::Ints(t, v))
        .boxed()
}

fn value(t: ArgType) -> BoxedStrategy<WValue> {
    match t {
        ArgType::Bool => any::<bool>().prop_map(WValue::Bool).boxed(),
        ArgType::Int8 => any::<i8>().prop_map(WValue::Int8).boxed(),
        ArgType::Uint8 => any::<u8>().prop_map(WValue::Uint8).boxed(),
        ArgType::Int16 => any::<i16>().prop_map(WValue::Int16).boxed(),
        ArgType::Uint16 => any::<u16>().prop_map(WValue::Uint16).boxed(),
        ArgType::Int32 => any::<i32>().prop_map(WValue::Int32).boxed(),
        ArgType::Uint32 => any::<u32>().prop_map(WValue::Uint32).boxed(),
        ArgType::Float32 => any::<u32>()
            .prop_map(|b| WValue::Float32(f32::from_bits(b)))
            .boxed(),
        ArgType::Ascii => text(true).prop_map(WValue::Ascii).boxed(),
        ArgType::Utf8 => text(false).prop_map(WValue::Utf8).boxed(),
        ArgType::Any => text(false).prop_map(WValue::Any).boxed(),
        ArgType::Char => any::<u8>().prop_map(WValue::Char).boxed(),
        ArgType::WChar => any::<u16>().prop_map(WValue::WChar).boxed(),
        ArgType::FlowId => any::<u32>().prop_map(WValue::FlowId).boxed(),
        ArgType::Time32 => any::<u32>().prop_map(WValue::Time32).boxed(),
        ArgType::Float32Array => prop::option::of(prop::collection::vec(
            any::<u32>().prop_map(f32::from_bits),
            0..5,
        ))
        .prop_map(WValue::Floats)
        .boxed(),
        t => ints(t),
    }
}

fn model(legacy: bool) -> impl Strategy<Value = (Vec<Def>, usize, Vec<Vec<Ev>>)> {
    let types: Vec<ArgType> = ArgType::ALL
        .into_iter()
        .filter(|&t| !legacy || legacy_ok(t))
        .collect();
    let def = (
        0u16..2,
        any::<u32>(),
        prop::collection::vec(prop::sample::select(types), 0..8),
        any::<bool>(),
        0usize..4,
    );
    (prop::collection::vec(def, 1..6), 1usize..5).prop_flat_map(|(defs, nchunks)| {
        let defs: Vec<Def> = defs
            .into_iter()
            .enumerate()
            .map(|(i, (class, flags, types, alias, chunk))| Def {
                wire_id: 2 + i as u16,
                class,
                // Keep clear of the built-in flag so no model event acts as a built-in.
                flags: flags & !0x20,
                name: format!("test.Model#m{i}"),
                types,
                alias,
                chunk: chunk % nchunks,
            })
            .collect();
        let per_chunk: Vec<BoxedStrategy<Vec<Ev>>> = (0..nchunks)
            .map(|c| {
                let usable: Vec<usize> = (0..defs.len()).filter(|&i| defs[i].chunk <= c).collect();
                if usable.is_empty() {
                    return Just(Vec::new()).boxed();
                }
                let defs = defs.clone();
                prop::collection::vec(
                    (prop::sample::select(usable), any::<u32>()).prop_flat_map(move |(d, time)| {
                        let vals: Vec<BoxedStrategy<WValue>> =
                            defs[d].types.iter().map(|&t| value(t)).collect();
                        vals.prop_map(move |args| Ev { def: d, time, args })
                    }),
                    0..6,
                )
                .boxed()
            })
            .collect();
        (Just(defs), Just(nchunks), per_chunk)
    })
}

/// The arguments of `ev` (types re-read from the signature text) as the writer's values.
fn back(ev: &Event<'_>) -> Vec<WValue> {
    ev.args()
        .map(|a| WValue::from_value(ev, a.unwrap().value))
        .collect()
}

/// What a legacy file can carry: empty strings read back as null, null arrays as empty ones.
fn legacy_form(v: &WValue) -> WValue {
    match v {
        WValue::Ascii(Some(s)) if s.is_empty() => WValue::Ascii(None),
        WValue::Utf8(Some(s)) if s.is_empty() => WValue::Utf8(None),
        WValue::Any(Some(s)) if s.is_empty() => WValue::Any(None),
        WValue::Ints(t, None) => WValue::Ints(*t, Some(Vec::new())),
        WValue::Floats(None) => WValue::Floats(Some(Vec::new())),
        v => v.clone(),
    }
}

fn check(bytes: &[u8], defs: &[Def], chunks: &[Vec<Ev>], legacy: bool) {
    let trace = Capture::parse(bytes).unwrap();
    let expected: Vec<(u32, u32, String)> = chunks
        .iter()
        .flatten()
        .map(|e| {
            let args: Vec<WValue> = if legacy {
                e.args.iter().map(legacy_form).collect()
            } else {
                e.args.clone()
            };
            (u32::from(defs[e.def].wire_id), e.time, format!("{args:?}"))
        })
        .collect();
    let mut got = Vec::new();
    let mut walk = trace.events();
    for ev in walk.by_ref() {
        let ev = ev.unwrap();
        if ev.wire_id == 1 {
            continue;
        }
        let d = &defs[ev.wire_id as usize - 2];
        assert_eq!(ev.name(), d.name);
        assert_eq!(ev.def.class, d.class);
        assert_eq!(ev.flags(), d.flags);
        got.push((ev.wire_id, ev.time, format!("{:?}", back(&ev))));
    }
    assert_eq!(got, expected);
    // The fixed-capacity table walks the same events.
    let fixed = trace
        .events_with(FixedDefinitionTable::<16, 64>::new())
        .filter(|e| e.as_ref().unwrap().wire_id != 1)
        .count();
    assert_eq!(fixed, expected.len());
    for d in defs {
        let sig = signature(d);
        let (def, types) = walk.table().lookup(u32::from(d.wire_id)).unwrap();
        assert_eq!(types, &d.types[..]);
        assert_eq!(def.signature, sig);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn chunked((defs, nchunks, chunks) in model(false)) {
        let mut w = ChunkedWriter::new(0x90BA_3800, r#"{"type":"file_header","timebase":1.5}"#);
        for (c, events) in chunks.iter().enumerate().take(nchunks) {
            for d in defs.iter().filter(|d| d.chunk == c) {
                w.define(d.wire_id, d.class, d.flags, &d.name, &signature(d)).unwrap();
            }
            for e in events {
                w.event(u32::from(defs[e.def].wire_id), e.time, &e.args).unwrap();
            }
            w.end_chunk();
        }
        let bytes = w.finish();
        check(&bytes, &defs, &chunks, false);
    }

    #[test]
    fn legacy((defs, nchunks, chunks) in model(true)) {
        let mut w = LegacyWriter::new(1, Some(r#"{"contextType":"script"}"#), 1, 1_367_000_000_000, Some("{}")).unwrap();
        for (c, events) in chunks.iter().enumerate().take(nchunks) {
            for d in defs.iter().filter(|d| d.chunk == c) {
                w.define(d.wire_id, d.class, d.flags, &d.name, &signature(d)).unwrap();
            }
            for e in events {
                w.event(u32::from(defs[e.def].wire_id), e.time, &e.args).unwrap();
            }
        }
        let bytes = w.finish();
        let trace = Capture::parse(&bytes).unwrap();
        prop_assert_eq!(trace.header().legacy.unwrap().timebase_ms, 1_367_000_000_000);
        check(&bytes, &defs, &chunks, true);
    }

    #[test]
    fn capture_model((defs, _, chunks) in model(false), legacy in any::<bool>(), json in any::<bool>()) {
        let container = if legacy { Container::Legacy } else { Container::Chunked };
        let m = CaptureModel {
            container,
            wtf_version: 0x90BA_3800,
            header_json: json.then(|| String::from(r#"{"type":"file_header"}"#)),
            legacy: if legacy {
                LegacyHeaderModel {
                    context_info: Some(String::from(r#"{"contextType":"script"}"#)),
                    flags: 1,
                    timebase_ms: 1_367_000_000_000,
                }
            } else {
                LegacyHeaderModel::default()
            },
            definitions: defs
                .iter()
                .filter(|d| !legacy || d.types.iter().all(|&t| legacy_ok(t)))
                .map(|d| DefinitionModel {
                    wire_id: d.wire_id,
                    class: d.class,
                    flags: d.flags,
                    name: d.name.clone(),
                    signature: signature(d),
                })
                .collect(),
            events: chunks
                .iter()
                .flatten()
                .filter(|e| !legacy || defs[e.def].types.iter().all(|&t| legacy_ok(t)))
                .map(|e| EventModel {
                    wire_id: u32::from(defs[e.def].wire_id),
                    time: e.time,
                    args: if legacy {
                        e.args.iter().map(legacy_form).collect()
                    } else {
                        e.args.clone()
                    },
                })
                .collect(),
        };
        let back = CaptureModel::from_bytes(&m.to_bytes().unwrap()).unwrap();
        // Compared as text: a NaN float is not equal to itself.
        prop_assert_eq!(format!("{back:?}"), format!("{m:?}"));
    }
}
