//! The WTF walks the bench times, shared with `examples/wtf_walk.rs` (included with `#[path]`).

use tracecap_wtf::{Array, Capture, Chunks, Elem, Event, Value};

/// What the full walks add up for one event: its time and wire id, and every argument value
/// decoded (strings stay ordinals: resolving is the caller's choice; names are per definition, see
/// `Event::args` for the named form), array elements summed.
#[inline(always)]
pub fn digest(ev: &Event<'_>) -> u64 {
    let mut acc = u64::from(ev.time) ^ u64::from(ev.wire_id);
    for v in ev.values() {
        acc = acc.wrapping_add(match v {
            Value::Float32(f) => u64::from(f.to_bits()),
            Value::Array(arr) => array_digest(&arr),
            v => u64::from(v.as_u32().unwrap_or(1)),
        });
    }
    acc
}

/// What the full walks add up for an array: its elements, integers widened, floats as bits.
#[inline(always)]
pub fn array_digest(arr: &Array<'_>) -> u64 {
    arr.iter()
        .map(|e| match e {
            Elem::Int(i) => i as u64,
            Elem::Float(f) => u64::from(f.to_bits()),
        })
        .sum()
}

/// Every event through `Events::try_for_each_event`, every value decoded.
pub fn full_walk(bytes: &[u8]) -> u64 {
    let trace = Capture::parse(bytes).unwrap();
    let mut acc = 0u64;
    trace
        .events()
        .try_for_each_event::<tracecap_wtf::Error, _>(|ev| {
            acc = acc.wrapping_add(digest(&ev));
            Ok(())
        })
        .unwrap();
    acc
}

/// The same work through the iterator.
pub fn full_walk_iter(bytes: &[u8]) -> u64 {
    let trace = Capture::parse(bytes).unwrap();
    let mut acc = 0u64;
    for ev in trace.events() {
        acc = acc.wrapping_add(digest(&ev.unwrap()));
    }
    acc
}

/// Every event's header and definition, arguments skipped (the walker still sizes them).
pub fn events_only(bytes: &[u8]) -> u64 {
    let trace = Capture::parse(bytes).unwrap();
    let mut acc = 0u64;
    for ev in trace.events() {
        let ev = ev.unwrap();
        acc = acc.wrapping_add(u64::from(ev.time) ^ u64::from(ev.def.flags) ^ ev.offset);
    }
    acc
}

/// `real` (a chunked trace) with everything after its prologue repeated to about `target`
/// bytes: definitions, zones, string tables and events as the real recorder wrote them.
pub fn repeated(real: &[u8], target: usize) -> Vec<u8> {
    let prologue = Chunks::new(real).offset() as usize;
    let (head, chunks) = real.split_at(prologue);
    let mut out = head.to_vec();
    while out.len() < target {
        out.extend_from_slice(chunks);
    }
    out
}
