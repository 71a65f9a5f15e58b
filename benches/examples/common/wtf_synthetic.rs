//! The bench's synthetic WTF trace (included with `#[path]` by `benches/wtf.rs` and
//! `examples/wtf_shapes.rs`), and variants of it that keep its event kinds but change their mix.

use tracecap_wtf::write::{ChunkedWriter, WValue};
use tracecap_wtf::{ArgType, CLASS_INSTANCE, CLASS_SCOPE};

/// Which events fill the trace's chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// The bench's: per step, `Frame#render`, `Job#run`, `Frame#stats`, every fourth step
    /// `Net#packet`, `Frame#extra` and two `wtf.scope#leave`.
    Bench,
    /// The same events per step in a random order (a fixed seed).
    Shuffled,
    /// One event per step, always of this wire id (2 and 5 to 9).
    Only(u32),
}

/// The wire ids, names and signatures the trace defines.
const DEFS: [(u16, u16, u32, &str, &str); 8] = [
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

/// The arguments of event `wire_id` at step `i`.
fn args(wire_id: u32, i: u32) -> Vec<WValue> {
    match wire_id {
        5 => vec![WValue::Uint32(i), WValue::Int16(-3)],
        6 => vec![
            WValue::Float32(i as f32 * 0.25),
            WValue::Uint8(7),
            WValue::Bool(true),
            WValue::Ascii(Some("stat".into())),
        ],
        7 => vec![
            WValue::Ints(ArgType::Uint8Array, Some((0..13).collect())),
            WValue::FlowId(i),
        ],
        8 => vec![WValue::Int32(-7), WValue::Any(Some("{\"k\":1}".into()))],
        9 => vec![
            WValue::Utf8(Some(format!("job{}", i % 64))),
            WValue::Time32(1500),
        ],
        _ => vec![],
    }
}

/// A C++-bindings-like trace of about `target` bytes in 1 MiB event chunks, and its number of
/// events: definitions and a zone first, then per chunk a zone change and steps of `mix`.
pub fn synthetic(target: usize, mix: Mix) -> (Vec<u8>, u64) {
    let mut w = ChunkedWriter::new(0xE821_4400, r#"{"type":"file_header","timebase":0}"#);
    for (id, class, flags, name, sig) in DEFS {
        w.define(id, class, flags, name, sig).unwrap(); // ok: constant definitions
    }
    let zone = [
        WValue::Uint16(1),
        WValue::Ascii(Some("main".into())),
        WValue::Ascii(None),
        WValue::Ascii(Some("bench".into())),
    ];
    w.event(3, 0, &zone).unwrap(); // ok: constant arguments of the types defined
    let mut events = DEFS.len() as u64 + 1;
    let (mut t, mut i, mut out_len) = (0u32, 0u32, 0usize);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    while out_len < target {
        w.event(4, t, &[WValue::Uint16(1)]).unwrap(); // ok: as above
        events += 1;
        while w.pending() < 1 << 20 {
            t = t.wrapping_add(3);
            i = i.wrapping_add(1);
            // (wire id, time) of this step's events.
            let mut step = match mix {
                Mix::Only(id) => vec![(id, t)],
                Mix::Bench | Mix::Shuffled => {
                    let mut step = vec![(5, t), (9, t), (6, t + 1)];
                    if i & 3 == 0 {
                        step.push((7, t + 1));
                    }
                    step.extend([(8, t + 2), (2, t + 2), (2, t + 2)]);
                    step
                }
            };
            if mix == Mix::Shuffled {
                for j in (1..step.len()).rev() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    step.swap(j, (seed % (j as u64 + 1)) as usize);
                }
            }
            for (id, time) in step {
                w.event(id, time, &args(id, i)).unwrap(); // ok: args() matches DEFS
                events += 1;
            }
        }
        out_len += w.pending();
        w.end_chunk();
    }
    (w.finish(), events)
}
