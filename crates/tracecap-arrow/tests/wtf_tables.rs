//! `wtf_events` on captures written from a model (proptest, chunked and legacy files): one row per
//! event record in file order, the definitions (`wtf.event#define`) included, each holding the
//! model's event with its arguments as the official loader presents them; the rows before a
//! fault; and the shared tables hold what Chrome JSON holds.

mod common;
mod rows;

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use tracecap_arrow::Table;
use tracecap_wtf::write::{ChunkedWriter, LegacyWriter, WValue};
use tracecap_wtf::ArgType;

/// `wtf.event#define`, the built-in every definition is an event of: its name, flags
/// (built-in and internal) and argument names.
const DEFINE: (&str, u32, [&str; 5]) = (
    "wtf.event#define",
    0x28,
    ["wireId", "eventClass", "flags", "name", "args"],
);

#[derive(Clone, Debug)]
struct Def {
    wire_id: u16,
    class: u16,
    flags: u32,
    name: String,
    types: Vec<ArgType>,
    chunk: usize,
}

impl Def {
    fn signature(&self) -> String {
        let args = self.types.iter().enumerate();
        let args: Vec<String> = args.map(|(i, t)| format!("{} a_{i}", t.name())).collect();
        args.join(", ")
    }
}

#[derive(Clone, Debug)]
struct Ev {
    def: usize,
    time: u32,
    args: Vec<WValue>,
}

/// The types a legacy file cannot hold.
fn legacy_ok(t: ArgType) -> bool {
    !matches!(
        t,
        ArgType::Char | ArgType::WChar | ArgType::CharArray | ArgType::WCharArray
    )
}

fn text(ascii: bool) -> BoxedStrategy<Option<String>> {
    let s = if ascii {
        "[ -~]{0,10}".boxed()
    } else {
        "[^\u{0}]{0,6}".boxed()
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
    prop::option::of(prop::collection::vec(elem, 0..5))
        .prop_map(move |v| WValue::Ints(t, v))
        .boxed()
}

fn value(t: ArgType) -> BoxedStrategy<WValue> {
    let float = prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        (-1000i32..1000).prop_map(|i| i as f32),
    ];
    match t {
        ArgType::Bool => any::<bool>().prop_map(WValue::Bool).boxed(),
        ArgType::Int8 => any::<i8>().prop_map(WValue::Int8).boxed(),
        ArgType::Uint8 => any::<u8>().prop_map(WValue::Uint8).boxed(),
        ArgType::Int16 => any::<i16>().prop_map(WValue::Int16).boxed(),
        ArgType::Uint16 => any::<u16>().prop_map(WValue::Uint16).boxed(),
        ArgType::Int32 => any::<i32>().prop_map(WValue::Int32).boxed(),
        ArgType::Uint32 => any::<u32>().prop_map(WValue::Uint32).boxed(),
        ArgType::Float32 => float.prop_map(WValue::Float32).boxed(),
        ArgType::Ascii => text(true).prop_map(WValue::Ascii).boxed(),
        ArgType::Utf8 => text(false).prop_map(WValue::Utf8).boxed(),
        ArgType::Any => prop_oneof![
            text(false),
            Just(Some(String::from(r#"{"k":[1,"two",null]}"#))),
            Just(Some(String::from("3.5"))),
        ]
        .prop_map(WValue::Any)
        .boxed(),
        ArgType::Char => any::<u8>().prop_map(WValue::Char).boxed(),
        ArgType::WChar => any::<u16>().prop_map(WValue::WChar).boxed(),
        ArgType::FlowId => any::<u32>().prop_map(WValue::FlowId).boxed(),
        ArgType::Time32 => any::<u32>().prop_map(WValue::Time32).boxed(),
        ArgType::Float32Array => prop::option::of(prop::collection::vec(float, 0..4))
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
        prop::collection::vec(prop::sample::select(types), 0..6),
        0usize..3,
    );
    (prop::collection::vec(def, 1..5), 1usize..4).prop_flat_map(|(defs, nchunks)| {
        let defs: Vec<Def> = defs
            .into_iter()
            .enumerate()
            .map(|(i, (class, flags, types, chunk))| Def {
                wire_id: 2 + i as u16,
                class,
                // Clear of the built-in flag: no model event acts as a built-in.
                flags: flags & !0x20,
                name: format!("test.Model#m{i}"),
                types,
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

/// A double as the loader's JavaScript prints it: integral values as integers, `null` when not
/// finite.
fn js_number(f: f64) -> J {
    if !f.is_finite() {
        J::Null
    } else if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
        J::from(f as i64)
    } else {
        J::from(f)
    }
}

fn string(s: &Option<String>) -> J {
    s.as_ref().map_or(J::Null, |s| J::String(s.clone()))
}

/// An argument as the official loader presents it (a legacy file holds no empty string: it
/// reads back as null; nor a null array: it reads back as an empty one).
fn value_json(v: &WValue, legacy: bool) -> J {
    match v {
        WValue::Ascii(Some(s)) | WValue::Utf8(Some(s)) | WValue::Any(Some(s))
            if legacy && s.is_empty() =>
        {
            J::Null
        }
        WValue::Ints(_, None) | WValue::Floats(None) if legacy => J::Array(Vec::new()),
        WValue::Bool(b) => J::Bool(*b),
        WValue::Int8(x) => J::from(*x),
        WValue::Uint8(x) => J::from(*x),
        WValue::Int16(x) => J::from(*x),
        WValue::Uint16(x) => J::from(*x),
        WValue::Int32(x) => J::from(*x),
        WValue::Uint32(x) | WValue::FlowId(x) => J::from(*x),
        WValue::Float32(f) => js_number(f64::from(*f)),
        WValue::Time32(t) => js_number(f64::from(*t) / 1000.0),
        WValue::Ascii(s) | WValue::Utf8(s) => string(s),
        WValue::Any(s) => match s {
            None => J::Null,
            Some(t) => serde_json::from_str(t).unwrap_or_else(|_| J::String(t.clone())),
        },
        WValue::Char(c) => J::String(char::from(*c).to_string()),
        WValue::WChar(w) => J::String(
            char::decode_utf16([*w])
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect(),
        ),
        WValue::Ints(_, None) | WValue::Floats(None) => J::Null,
        WValue::Ints(ArgType::CharArray, Some(v)) => {
            J::String(v.iter().map(|&b| char::from(b as u8)).collect())
        }
        WValue::Ints(ArgType::WCharArray, Some(v)) => J::String(
            char::decode_utf16(v.iter().map(|&u| u as u16))
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect(),
        ),
        WValue::Ints(_, Some(v)) => J::Array(v.iter().map(|&i| J::from(i)).collect()),
        WValue::Floats(Some(v)) => J::Array(v.iter().map(|&f| js_number(f64::from(f))).collect()),
    }
}

/// An event's row (`offset` left out: the model does not know it).
fn row(
    name: &str,
    flags: u32,
    time: u32,
    names: &[String],
    args: &[WValue],
    legacy: bool,
) -> Map<String, J> {
    let mut obj = Map::new();
    for (n, v) in names.iter().zip(args) {
        obj.insert(n.clone(), value_json(v, legacy));
    }
    let r = json!({
        "zone": null,
        "time_us": time,
        "name": name,
        "flags": flags,
        "args": J::Object(obj).to_string(),
    });
    r.as_object().unwrap().clone()
}

/// Writes the model's capture; returns it and the rows `wtf_events` should hold, without `offset`.
fn write_model(defs: &[Def], chunks: &[Vec<Ev>], legacy: bool) -> (Vec<u8>, Vec<Map<String, J>>) {
    let mut want = Vec::new();
    let define_names: Vec<String> = DEFINE.2.iter().map(|s| s.to_string()).collect();
    let mut chunked = ChunkedWriter::new(0x90BA_3800, r#"{"type":"file_header"}"#);
    let mut old = LegacyWriter::new(
        1,
        Some(r#"{"contextType":"script"}"#),
        1,
        1_367_000_000_000,
        None,
    )
    .unwrap();
    for (c, events) in chunks.iter().enumerate() {
        for d in defs.iter().filter(|d| d.chunk == c) {
            let sig = d.signature();
            if legacy {
                old.define(d.wire_id, d.class, d.flags, &d.name, &sig)
                    .unwrap();
            } else {
                chunked
                    .define(d.wire_id, d.class, d.flags, &d.name, &sig)
                    .unwrap();
            }
            let args = [
                WValue::Uint16(d.wire_id),
                WValue::Uint16(d.class),
                WValue::Uint32(d.flags),
                WValue::Ascii(Some(d.name.clone())),
                WValue::Ascii((!sig.is_empty()).then_some(sig)),
            ];
            want.push(row(DEFINE.0, DEFINE.1, 0, &define_names, &args, legacy));
        }
        for e in events {
            let d = &defs[e.def];
            if legacy {
                old.event(u32::from(d.wire_id), e.time, &e.args).unwrap();
            } else {
                chunked
                    .event(u32::from(d.wire_id), e.time, &e.args)
                    .unwrap();
            }
            let names: Vec<String> = (0..d.types.len()).map(|i| format!("a_{i}")).collect();
            want.push(row(&d.name, d.flags, e.time, &names, &e.args, legacy));
        }
        if !legacy {
            chunked.end_chunk();
        }
    }
    let bytes = if legacy {
        old.finish()
    } else {
        chunked.finish()
    };
    (bytes, want)
}

/// Checks the rows of `bytes` against `want`; the offsets must increase and lie in the file.
fn check(bytes: &[u8], want: &[Map<String, J>], batch_rows: usize) -> Result<(), TestCaseError> {
    let (got, summary) = rows::rows(bytes, Table::WtfEvents, &[], batch_rows);
    prop_assert!(summary.fault.is_none(), "{:?}", summary.fault);
    prop_assert_eq!(got.len(), want.len());
    let mut last = None;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let mut g = g.clone();
        let offset = g.remove("offset").and_then(|o| o.as_u64()).unwrap();
        prop_assert!(offset < bytes.len() as u64 && last.is_none_or(|l| l < offset));
        last = Some(offset);
        prop_assert_eq!(&g, w, "row {}", i);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn chunked_events_are_the_models((defs, _, chunks) in model(false), batch_rows in 1usize..9) {
        let (bytes, want) = write_model(&defs, &chunks, false);
        check(&bytes, &want, batch_rows)?;
        common::check_against_chrome(&bytes, batch_rows);
    }

    #[test]
    fn legacy_events_are_the_models((defs, _, chunks) in model(true), batch_rows in 1usize..9) {
        let (bytes, want) = write_model(&defs, &chunks, true);
        check(&bytes, &want, batch_rows)?;
        common::check_against_chrome(&bytes, batch_rows);
    }
}

/// A capture cut inside an event: the rows of every event before it, and the fault inside that
/// event, before the cut.
#[test]
fn a_cut_capture_gives_the_events_before_the_cut() {
    let defs = vec![Def {
        wire_id: 2,
        class: 0,
        flags: 0,
        name: String::from("test.cut"),
        types: vec![ArgType::Uint32, ArgType::Uint32],
        chunk: 0,
    }];
    let events: Vec<Ev> = (0..20)
        .map(|i| Ev {
            def: 0,
            time: i,
            args: vec![WValue::Uint32(i), WValue::Uint32(!i)],
        })
        .collect();
    let (bytes, want) = write_model(&defs, &[events], true);
    let (whole, _) = rows::rows(&bytes, Table::WtfEvents, &[], 5);
    assert_eq!(whole.len(), want.len());
    let offsets: Vec<u64> = whole
        .iter()
        .map(|r| r["offset"].as_u64().unwrap())
        .collect();
    // Cut in the middle of the 11th row's event.
    let cut = (offsets[10] + offsets[11]) / 2;
    let (got, summary) = rows::rows(&bytes[..cut as usize], Table::WtfEvents, &[], 5);
    assert_eq!(got[..], whole[..10]);
    let fault = summary.fault.expect("a fault").offset();
    assert!((offsets[10]..=cut).contains(&fault), "{fault} {offsets:?}");
}
