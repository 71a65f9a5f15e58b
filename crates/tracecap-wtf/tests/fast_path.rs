//! The walker's plain path (`fast.rs`: events split off the buffer when their definition says
//! how) gives what the precise path gives: a table that never answers the plain path's quick
//! lookups ([`Precise`]) sends every event through the precise path, and both walks must yield the
//! same events (header fields, definitions, argument bytes, decoded values) and the same first
//! error at the same offset. `Events::try_for_each_event` must yield what the iterator yields, too.
//! Checked on every corpus file, on prefixes of them and single-byte mutations, on generated
//! damage of a small file, and on random files from the writer: redefinitions, small and large
//! wire ids, signatures around and past the length of the packed form, null and empty arrays,
//! built-in zone changes, and truncated event buffers (where values must also read back as
//! written, and the two ways to decode values agree: types packed per definition, types re-read
//! from the signature text).

mod common;

use std::collections::HashMap;

use common::{iterated, seen, visited};
use proptest::prelude::*;
use tracecap_testkit::Rng;
use tracecap_wtf::write::{ChunkedWriter, WValue};
use tracecap_wtf::{
    ArgType, Capture, Definition, DefinitionLookup, DefinitionTable, Error, ErrorKind, Event,
    FixedDefinitionTable, Value, CLASS_INSTANCE,
};

/// A table whose quick lookups (`get`, `get_for_walk`) find nothing: the plain paths of both
/// containers decline every event, and the precise path reads it with `lookup`.
struct Precise<'a>(DefinitionTable<'a>);

impl<'a> DefinitionLookup<'a> for Precise<'a> {
    fn insert(&mut self, def: Definition<'a>, types: &[ArgType]) -> Result<(), ErrorKind> {
        self.0.insert(def, types)
    }
    fn lookup(&self, wire_id: u32) -> Option<(&Definition<'a>, &[ArgType])> {
        self.0.lookup(wire_id)
    }
    fn get(&self, _: u32) -> Option<&Definition<'a>> {
        None
    }
    fn get_for_walk(&self, _: u32) -> Option<&Definition<'a>> {
        None
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Every event and the error, by the precise path alone.
fn precise(trace: &Capture<'_>) -> (Vec<String>, Option<Error>) {
    let mut events = Vec::new();
    for ev in trace.events_with(Precise(DefinitionTable::new())) {
        match ev {
            Ok(ev) => events.push(seen(&ev)),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

/// The three walks of `bytes` agree (nothing to compare when the header does not parse).
fn same(name: &str, bytes: &[u8]) {
    let Ok(trace) = Capture::parse(bytes) else {
        return;
    };
    let (a, ea) = iterated(&trace);
    let (b, eb) = visited(&trace);
    let (c, ec) = precise(&trace);
    assert_eq!(a.len(), b.len(), "{name}: event counts");
    assert_eq!(a.len(), c.len(), "{name}: event counts, precise path");
    for ((x, y), z) in a.iter().zip(&b).zip(&c) {
        assert_eq!(x, y, "{name}");
        assert_eq!(x, z, "{name}: precise path");
    }
    assert_eq!(ea, eb, "{name}: errors");
    assert_eq!(ea, ec, "{name}: errors, precise path");
}

proptest! {
    #[test]
    fn generated_damage(
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        cut in any::<usize>(),
    ) {
        let mut bytes = tracecap_wtf::doc_example().to_vec();
        for (at, b) in flips {
            let at = at % bytes.len();
            bytes[at] = b;
        }
        same("generated", &bytes);
        let cut = cut % (bytes.len() + 1);
        same("generated, cut", &bytes[..cut]);
    }
}

#[test]
fn corpus_prefixes_and_mutations() {
    let files = common::traces();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for (name, bytes) in &files {
        same(name, bytes);
        let small = bytes.len() <= 8192;
        // Each walk formats every event: keep the multi-megabyte legacy traces to a few rounds.
        let (rounds, mutations) = match bytes.len() {
            0..=8192 => (0, 400),
            8193..=0xFFFFF => (12, 6),
            _ => (2, 1),
        };
        let cuts: Vec<usize> = if small {
            (0..bytes.len()).collect()
        } else {
            (0..rounds)
                .map(|_| (rng.next_u64() % bytes.len() as u64) as usize)
                .collect()
        };
        for cut in cuts {
            same(&format!("{name} cut at {cut:#x}"), &bytes[..cut]);
        }
        let mut m = bytes.clone();
        for _ in 0..mutations {
            let pos = (rng.next_u64() % bytes.len() as u64) as usize;
            let old = m[pos];
            m[pos] = match rng.next_u64() % 3 {
                0 => 0xFF,
                1 => 0,
                _ => old ^ (1 << (rng.next_u64() % 8)),
            };
            same(&format!("{name} byte {pos:#x} = {:#x}", m[pos]), &m);
            m[pos] = old;
        }
        eprintln!("{name}: both walks agree");
    }
}

/// An error returned by the closure stops the walk after that event; the walk then goes on from
/// the next event, whichever way it is driven.
#[test]
fn stopping_and_resuming() {
    for (name, bytes) in common::traces_where(|_, len| len < 1 << 20) {
        let trace = Capture::parse(&bytes).unwrap();
        let (all, _) = iterated(&trace);
        for stop in [0, 1, 7, all.len() / 2, all.len().saturating_sub(1)] {
            let mut walk = trace.events();
            let mut got = Vec::new();
            let stopped = Error::new(ErrorKind::BadSignature, 0);
            let r = walk.try_for_each_event::<tracecap_wtf::Error, _>(|ev| {
                got.push(seen(&ev));
                if got.len() > stop {
                    return Err(stopped);
                }
                Ok(())
            });
            assert_eq!(r.err(), (stop < all.len()).then_some(stopped), "{name}");
            got.extend(walk.map(|ev| seen(&ev.unwrap())));
            assert_eq!(got, all, "{name}: stop after {stop}");
        }
    }
}

/// Random chunked files from the writer: values read back as written, and every walk agrees.
fn text(rng: &mut Rng) -> Option<String> {
    match rng.below(4) {
        0 => None,
        1 => Some(String::new()),
        _ => Some(format!("s{}", rng.below(50))),
    }
}

fn value(rng: &mut Rng, t: ArgType) -> WValue {
    let n = rng.next_u64();
    let ints = |rng: &mut Rng| match rng.below(4) {
        0 => None,
        1 => Some(Vec::new()),
        _ => Some((0..rng.below(9)).map(|i| (n >> i) as i64 & 0x3F).collect()),
    };
    match t {
        ArgType::Bool => WValue::Bool(n & 1 == 1),
        ArgType::Int8 => WValue::Int8(n as i8),
        ArgType::Uint8 => WValue::Uint8(n as u8),
        ArgType::Int16 => WValue::Int16(n as i16),
        ArgType::Uint16 => WValue::Uint16(n as u16),
        ArgType::Int32 => WValue::Int32(n as i32),
        ArgType::Uint32 => WValue::Uint32(n as u32),
        ArgType::Float32 => WValue::Float32(f32::from_bits(n as u32 & 0x7F7F_FFFF)),
        ArgType::Ascii => WValue::Ascii(text(rng)),
        ArgType::Utf8 => WValue::Utf8(text(rng)),
        ArgType::Any => WValue::Any(text(rng)),
        ArgType::Char => WValue::Char(n as u8),
        ArgType::WChar => WValue::WChar(n as u16),
        ArgType::FlowId => WValue::FlowId(n as u32),
        ArgType::Time32 => WValue::Time32(n as u32),
        ArgType::Float32Array => {
            WValue::Floats(ints(rng).map(|v| v.iter().map(|&i| i as f32).collect()))
        }
        t => WValue::Ints(t, ints(rng)),
    }
}

/// The values of `ev` as the writer's values, from `Event::values` (packed types).
fn written(ev: &Event<'_>) -> Vec<WValue> {
    ev.values().map(|v| WValue::from_value(ev, v)).collect()
}

/// The wire ids the files use, small and large (around the end of `DefinitionTable`'s direct
/// copies, 4096, too).
const WIRE_IDS: [u16; 9] = [2, 3, 4, 255, 256, 300, 4095, 4096, 65535];

/// An event as written: wire id, time, values.
type Written = (u32, u32, Vec<WValue>);

/// A random chunked file and the events it holds, definitions left out.
fn random_file(seed: u64) -> (Vec<u8>, Vec<Written>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut w = ChunkedWriter::new(1, r#"{"type":"file_header","timebase":0}"#);
    w.define(5000, CLASS_INSTANCE, 0x28, "wtf.zone#set", "uint16 zoneId")
        .unwrap();
    let mut defined: HashMap<u16, Vec<ArgType>> = HashMap::new();
    let mut events = Vec::new();
    for _ in 0..1 + rng.below(4) {
        for step in 0..rng.below(40) {
            if defined.is_empty() || rng.below(5) == 0 {
                let wire_id = WIRE_IDS[rng.below(WIRE_IDS.len())];
                // Mostly scalars (the plain path's fixed sizes), sometimes arrays, sometimes
                // about as many types as the packed form holds (11) or more.
                let count = match rng.below(12) {
                    0 => 13 + rng.below(4),
                    1 => 10 + rng.below(3),
                    _ => rng.below(6),
                };
                let scalars = rng.below(3) != 0;
                let types: Vec<ArgType> = (0..count)
                    .map(|_| loop {
                        let t = ArgType::ALL[rng.below(ArgType::ALL.len())];
                        if !scalars || t.element_size().is_none() {
                            break t;
                        }
                    })
                    .collect();
                let sig: Vec<String> = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("{} a{i}", t.name()))
                    .collect();
                w.define(
                    wire_id,
                    CLASS_INSTANCE,
                    0,
                    &format!("t.W#{wire_id}"),
                    &sig.join(", "),
                )
                .unwrap();
                defined.insert(wire_id, types);
            } else if rng.below(10) == 0 {
                w.event(5000, step as u32, &[WValue::Uint16(rng.below(3) as u16)])
                    .unwrap();
                events.push((5000, step as u32, vec![WValue::Uint16(0)]));
            } else {
                let ids: Vec<u16> = WIRE_IDS
                    .into_iter()
                    .filter(|i| defined.contains_key(i))
                    .collect();
                let wire_id = ids[rng.below(ids.len())];
                let args: Vec<WValue> = defined[&wire_id]
                    .iter()
                    .map(|&t| value(&mut rng, t))
                    .collect();
                let time = rng.next_u64() as u32;
                w.event(u32::from(wire_id), time, &args).unwrap();
                events.push((u32::from(wire_id), time, args));
            }
        }
        w.end_chunk();
    }
    (w.finish(), events)
}

/// Walks `bytes` with both tables; checks every event against `expected` and packed values
/// against values from the signature text. Returns the events' offsets and the walk's error.
fn walk(bytes: &[u8], expected: &[Written]) -> (Vec<u64>, Option<tracecap_wtf::Error>) {
    let trace = Capture::parse(bytes).unwrap();
    let mut offsets = Vec::new();
    let mut error = None;
    let mut zone = None;
    let mut user = expected.iter();
    for ev in trace.events() {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        offsets.push(ev.offset);
        assert_eq!(ev.zone, zone, "zone at {:#x}", ev.offset);
        let from_text: Vec<Value<'_>> = ev.args().map(|a| a.unwrap().value).collect();
        let packed: Vec<Value<'_>> = ev.values().collect();
        assert_eq!(packed, from_text, "values at {:#x}", ev.offset);
        assert_eq!(ev.arg_bytes().len() % 4, 0);
        if ev.wire_id == 1 {
            continue;
        }
        if ev.wire_id == 5000 {
            zone = ev.zone_arg();
            user.next();
            continue;
        }
        let (wire_id, time, args) = user.next().expect("more events than written");
        assert_eq!((ev.wire_id, ev.time), (*wire_id, *time));
        assert_eq!(format!("{:?}", written(&ev)), format!("{args:?}"));
    }
    let fixed: Vec<_> = trace
        .events_with(FixedDefinitionTable::<16, 512>::new())
        .map(|e| e.map(|e| e.offset))
        .collect();
    let grown: Vec<_> = trace.events().map(|e| e.map(|e| e.offset)).collect();
    assert_eq!(fixed, grown);
    same("random file", bytes);
    (offsets, error)
}

#[test]
fn random_files_read_back() {
    for seed in 0..400 {
        let (bytes, expected) = random_file(seed);
        let (_, error) = walk(&bytes, &expected);
        assert_eq!(error, None, "seed {seed}");
    }
}

/// Cutting the event buffer short: every event before the cut comes out unchanged, and the
/// error names the first event that does not fit, wherever the walker's path would have been.
#[test]
fn truncated_buffers_fail_at_the_cut_event() {
    for seed in 0..60 {
        let (bytes, expected) = random_file(seed);
        let (offsets, _) = walk(&bytes, &expected);
        // The last chunk's event buffer is its last part: shorten its length entry.
        let trace = Capture::parse(&bytes).unwrap();
        let last = trace.chunks().last().unwrap().unwrap();
        let table = last.offset as usize + 24;
        let (events_at, events_len) = (0..last.part_count())
            .map(|i| table + 12 * i)
            .find(|&at| bytes[at..at + 4] == 0x20002u32.to_le_bytes())
            .map(|at| {
                (
                    at,
                    u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()),
                )
            })
            .unwrap();
        let body = last.part(0x20002).unwrap().unwrap().offset;
        for cut in (0..events_len).step_by(4) {
            let mut damaged = bytes.clone();
            damaged[events_at + 8..events_at + 12].copy_from_slice(&cut.to_le_bytes());
            let end = body + u64::from(cut);
            let before = offsets.iter().filter(|&&o| o < body).count();
            let whole: Vec<u64> = offsets
                .iter()
                .copied()
                .filter(|&o| o >= body)
                .take_while(|&o| {
                    let next = offsets
                        .iter()
                        .copied()
                        .find(|&n| n > o)
                        .unwrap_or(body + u64::from(events_len));
                    next <= end
                })
                .collect();
            let (got, error) = walk(&damaged, &expected);
            assert_eq!(got[..before], offsets[..before], "seed {seed} cut {cut}");
            assert_eq!(&got[before..], &whole[..], "seed {seed} cut {cut}");
            match whole
                .last()
                .map_or(Some(body), |&o| offsets.iter().copied().find(|&n| n > o))
            {
                Some(next) if next < end => {
                    let e = error.unwrap_or_else(|| panic!("seed {seed} cut {cut}: no error"));
                    assert!(e.is_truncation(), "{e}");
                    // The header or the arguments of the event at `next` are cut.
                    assert!(
                        (next..=end).contains(&e.offset),
                        "seed {seed} cut {cut}: {e}"
                    );
                }
                _ => assert_eq!(error, None, "seed {seed} cut {cut}"),
            }
        }
    }
}

/// A file may redefine wire id 1 itself; later wire-id-1 events follow the new definition (here
/// without the built-in flag, so they define nothing), whichever path reads them.
#[test]
fn redefining_wire_id_1() {
    let mut w = ChunkedWriter::new(1, r#"{"type":"file_header","timebase":0}"#);
    w.define(7, CLASS_INSTANCE, 0, "t.A#a", "uint32 x").unwrap();
    w.event(7, 1, &[WValue::Uint32(11)]).unwrap();
    w.define(
        1,
        CLASS_INSTANCE,
        0,
        "wtf.event#define",
        "uint32 a, uint32 b",
    )
    .unwrap();
    for t in 2..5 {
        w.event(1, t, &[WValue::Uint32(t), WValue::Uint32(9)])
            .unwrap();
        w.event(7, t, &[WValue::Uint32(t)]).unwrap();
    }
    let bytes = w.finish();
    let trace = Capture::parse(&bytes).unwrap();
    let got: Vec<(u32, u32, Vec<Value<'_>>)> = trace
        .events()
        .map(|e| e.unwrap())
        .filter(|e| e.time > 0)
        .map(|e| (e.wire_id, e.time, e.values().collect()))
        .collect();
    let mut want = vec![(7, 1, vec![Value::Uint32(11)])];
    for t in 2..5 {
        want.push((1, t, vec![Value::Uint32(t), Value::Uint32(9)]));
        want.push((7, t, vec![Value::Uint32(t)]));
    }
    assert_eq!(got, want);
}
