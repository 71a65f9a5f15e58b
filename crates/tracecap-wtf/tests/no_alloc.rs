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
    it.try_for_each_event(|ev| {
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
