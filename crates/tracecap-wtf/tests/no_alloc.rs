//! Walking every event of `cpp-big.wtf-trace` (and decoding every argument and string) allocates
//! nothing with the fixed-capacity table, whether by the iterator or by `try_for_each_event`, and
//! only as many times as there are definitions with the growable one.

mod common;

use tracecap_testkit::{allocs, CountingAlloc};

use tracecap_wtf::{Capture, DefinitionLookup, DefinitionTable, Elem, FixedDefinitionTable, Value};

#[global_allocator]
static A: CountingAlloc = CountingAlloc;

/// Touches every event, argument and string; returns (events, arguments, string bytes).
fn walk<'a, T: DefinitionLookup<'a>>(trace: &Capture<'a>, table: T) -> (u64, u64, u64, T) {
    let (mut events, mut args, mut text) = (0u64, 0u64, 0u64);
    let mut it = trace.events_with(table);
    for ev in it.by_ref() {
        let ev = ev.expect("clean file");
        events += 1;
        for a in ev.args() {
            let a = a.expect("clean args");
            args += 1;
            if let Value::Ascii(s) | Value::Utf8(s) | Value::Any(s) = a.value {
                text += ev.resolve(s).map_or(0, |b| b.len() as u64);
            }
        }
    }
    (events, args, text, it.into_table())
}

/// The same with `try_for_each_event` and `Event::values`, array elements folded.
fn visit<'a, T: DefinitionLookup<'a>>(trace: &Capture<'a>, table: T) -> (u64, u64, u64, T) {
    let (mut events, mut values, mut sum) = (0u64, 0u64, 0u64);
    let mut it = trace.events_with(table);
    it.try_for_each_event::<tracecap_wtf::Error, _>(|ev| {
        events += 1;
        for v in ev.values() {
            values += 1;
            if let Value::Array(a) = v {
                sum += a.iter().filter(|e| matches!(e, Elem::Int(_))).count() as u64;
            }
        }
        Ok(())
    })
    .expect("clean file");
    (events, values, sum, it.into_table())
}

#[test]
fn cpp_big_walk_allocates_nothing() {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    let bytes = tracecap_testkit::read(&dir.join("cff-cpp/cpp-big.wtf-trace"));

    let before = allocs();
    let trace = Capture::parse(&bytes).unwrap();
    let (events, args, text, table) = walk(&trace, FixedDefinitionTable::<32, 256>::new());
    let fixed = allocs() - before;
    assert_eq!(fixed, 0, "fixed-capacity walk allocated {fixed} times");
    assert!(events > 60_000, "{events} events");
    assert!(args > 0 && text > 0);
    let defs = table.len();

    let before = allocs();
    let (visited, values, _, _) = visit(&trace, FixedDefinitionTable::<32, 256>::new());
    let fixed = allocs() - before;
    assert_eq!(fixed, 0, "fixed-capacity visit allocated {fixed} times");
    assert_eq!((visited, values), (events, args));

    let before = allocs();
    let (events2, _, _, table) = walk(&trace, DefinitionTable::new());
    let grown = allocs() - before;
    assert_eq!(events, events2);
    assert_eq!(table.len(), defs);
    // Three vectors that grow by doubling with the definitions: a few allocations per table, none
    // per event.
    assert!(
        grown <= 3 * (2 + defs),
        "{grown} allocations for {defs} definitions"
    );
    eprintln!("cpp-big: {events} events, {args} arguments, 0 allocations (fixed), {grown} (growable, {defs} definitions)");
}

/// The push parser fed `cpp-big.wtf-trace` in 64 KiB pieces through a buffer sized once:
/// allocations come with the header and the definitions (kept by the parser), none with events.
#[test]
fn cpp_big_push_walk_allocates_nothing_per_event() {
    use tracecap_wtf::push::{PushItem, PushParser, Pushed};

    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    let bytes = tracecap_testkit::read(&dir.join("cff-cpp/cpp-big.wtf-trace"));
    let mut buffer: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut pieces = bytes.chunks(64 << 10);
    let (mut start, mut events, mut values) = (0usize, 0u64, 0u64);
    let mut parser = PushParser::new();
    let before = allocs();
    let mut at_half = None;
    loop {
        let eof = pieces.len() == 0;
        match parser.parse(&buffer[start..], eof).expect("clean file") {
            Pushed::Item { consumed, item } => {
                if let PushItem::Event(ev) = item {
                    events += 1;
                    values += ev.values().count() as u64;
                    if events == 30_000 {
                        at_half = Some(allocs());
                    }
                }
                start += consumed;
            }
            Pushed::NeedMore { .. } => {
                buffer.drain(..start);
                start = 0;
                buffer.extend_from_slice(pieces.next().unwrap());
            }
            Pushed::End => break,
        }
    }
    let total = allocs() - before;
    let second_half = allocs() - at_half.expect("30,000 events");
    assert!(events > 60_000 && values > 0, "{events} events");
    assert_eq!(second_half, 0, "the second half of the events allocated");
    let defs = (2..4096)
        .filter(|&w| parser.definition(w).is_some())
        .count();
    // The header copy, and per definition its text and the table's vectors, which grow by
    // doubling: a few allocations per definition, none per event.
    assert!(
        total <= 8 + 4 * (2 + defs),
        "{total} allocations for {defs} definitions"
    );
    eprintln!("cpp-big push walk: {events} events, {total} allocations ({defs} definitions)");
}
