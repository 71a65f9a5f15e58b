//! The stream layer allocates nothing per event: walking every event and every value of the
//! biggest corpus trace allocates zero times with `FixedSigTable`, and with `SigTable` only as
//! many times as there are signatures (amortised growth), never per call. The push parser, once
//! its window has grown, allocates nothing at all, in every container.

use tracecap_testkit::{allocs, CountingAlloc};

use tracecap_apitrace::{decompress, Detail, FixedSigTable, SigLookup, SigTable, Stream, Value};

#[global_allocator]
static A: CountingAlloc = CountingAlloc;

/// Visits a value and everything inside it; returns how many values it saw.
fn visit<T: SigLookup>(v: &Value<'_>, t: &T) -> u64 {
    1 + match v {
        Value::Array(a) => a.iter(t).map(|x| visit(&x.unwrap(), t)).sum(),
        Value::Struct(s) => s.iter(t).map(|x| visit(&x.unwrap(), t)).sum(),
        Value::Repr(r) => visit(&r.human(t).unwrap(), t) + visit(&r.machine(t).unwrap(), t),
        Value::WString(w) => w.units().count() as u64,
        _ => 0,
    }
}

/// Visits one detail: its value (nested values included) or its backtrace frames; returns the
/// values seen.
fn detail<T: SigLookup>(d: Detail<'_>, t: &T) -> u64 {
    match d {
        Detail::Arg { value, .. } | Detail::Ret(value) => visit(&value, t),
        Detail::Backtrace(b) => {
            for f in b.frames(t) {
                f.unwrap();
            }
            0
        }
        Detail::Flags(_) => 0,
    }
}

/// Walks every event, detail, value and frame; returns (events, values).
fn walk<T: SigLookup>(stream: &[u8], table: T) -> (u64, u64, T) {
    let trace = Stream::parse(stream).unwrap();
    let mut events = trace.events_with(table);
    let (mut n, mut values) = (0u64, 0u64);
    while let Some(ev) = events.next() {
        let ev = ev.unwrap();
        n += 1;
        for d in ev.details().iter(events.table()) {
            values += detail(d.unwrap(), events.table());
        }
    }
    (n, values, events.into_table())
}

/// [`walk`] with each event read in one pass (`Events::next_parsed`).
fn walk_one_pass<T: SigLookup>(stream: &[u8], table: T) -> (u64, u64) {
    let trace = Stream::parse(stream).unwrap();
    let mut events = trace.events_with(table);
    let (mut n, mut values) = (0u64, 0u64);
    while let Some(ev) = events.next_parsed() {
        let ev = ev.unwrap();
        n += 1;
        for d in ev.details() {
            values += detail(d.unwrap(), ev.table());
        }
    }
    (n, values)
}

#[test]
fn walking_the_stream_does_not_allocate() {
    let Some(corpus) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let path = corpus.join("produced-apitrace-11.1/glxgears_backtrace.trace");
    let file = std::fs::read(&path).unwrap();
    let stream = decompress(&file).unwrap().data;

    // Fixed-capacity table: zero allocations for the whole walk.
    let mut table: Box<FixedSigTable<256>> = Box::default();
    let before = allocs();
    let (events, values, _) = walk(&stream, &mut *table);
    let fixed_allocs = allocs() - before;
    assert!(events > 130_000, "{events} events");
    assert!(values > 100_000, "{values} values");
    assert_eq!(
        fixed_allocs, 0,
        "FixedSigTable walk allocated {fixed_allocs} times"
    );

    // The same walk reading each event once: still zero allocations, same counts.
    let mut table: Box<FixedSigTable<256>> = Box::default();
    let before = allocs();
    let one_pass = walk_one_pass(&stream, &mut *table);
    assert_eq!(allocs() - before, 0, "one-pass walk allocated");
    assert_eq!(one_pass, (events, values));

    // Growable table: allocations bounded by the signatures, not the events.
    let before = allocs();
    let (events2, _, table) = walk(&stream, SigTable::new());
    let sig_allocs = allocs() - before;
    let sigs = table.len();
    assert_eq!(events, events2);
    assert!(
        sig_allocs <= 8 * sigs + 64,
        "SigTable walk: {sig_allocs} allocations for {sigs} signatures and {events} events"
    );
    eprintln!("{events} events, {values} values: FixedSigTable 0 allocations, SigTable {sig_allocs} for {sigs} signatures");
}

/// The push parser, fed the biggest corpus trace in 64 KiB pieces through a buffer the caller
/// owns, allocates nothing per event once its window has grown to its working size: after the
/// first chunks, with `FixedSigTable`, not one allocation for the rest of the file.
#[test]
fn the_push_parser_does_not_allocate_per_event() {
    use tracecap_apitrace::{PushParser, Pushed};

    let Some(corpus) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let path = corpus.join("produced-apitrace-11.1/glxgears_backtrace.trace");
    let file = std::fs::read(&path).unwrap();
    let mut table: Box<FixedSigTable<256>> = Box::default();
    let mut parser = PushParser::with_table(&mut *table);
    // The caller's buffer, large enough for the whole file: its own growth is not counted.
    let mut buffer: Vec<u8> = Vec::with_capacity(file.len());
    let mut pieces = file.chunks(64 << 10);
    let (mut events, mut values) = (0u64, 0u64);
    let mut warm = None;
    loop {
        match parser.parse(&buffer, pieces.len() == 0).unwrap() {
            Pushed::Item {
                consumed,
                item: (event, table),
            } => {
                events += 1;
                for d in event.details().iter(table) {
                    values += detail(d.unwrap(), table);
                }
                buffer.drain(..consumed);
                // Warm: the first 20,000 events have grown the window.
                if events == 20_000 {
                    warm = Some(allocs());
                }
            }
            Pushed::NeedMore { .. } => buffer.extend_from_slice(pieces.next().unwrap()),
            Pushed::End => break,
        }
    }
    let after_warm_up = allocs() - warm.unwrap();
    assert!(events > 130_000, "{events} events");
    assert!(values > 100_000, "{values} values");
    assert_eq!(
        after_warm_up, 0,
        "push walk allocated {after_warm_up} times after warm-up"
    );
    eprintln!("push parser: {events} events, {values} values, 0 allocations after warm-up");

    // The same read in one pass (`parse_with`).
    let mut table: Box<FixedSigTable<256>> = Box::default();
    let mut parser = PushParser::with_table(&mut *table);
    buffer.clear();
    let mut pieces = file.chunks(64 << 10);
    let (mut events2, mut values2) = (0u64, 0u64);
    let mut warm = None;
    loop {
        let answer = parser.parse_with(&buffer, pieces.len() == 0, |p| {
            let mut v = 0;
            for d in p.details() {
                v += detail(d.unwrap(), p.table());
            }
            v
        });
        match answer.unwrap() {
            Pushed::Item { consumed, item } => {
                events2 += 1;
                values2 += item;
                buffer.drain(..consumed);
                if events2 == 20_000 {
                    warm = Some(allocs());
                }
            }
            Pushed::NeedMore { .. } => buffer.extend_from_slice(pieces.next().unwrap()),
            Pushed::End => break,
        }
    }
    assert_eq!((events2, values2), (events, values));
    assert_eq!(allocs() - warm.unwrap(), 0, "one-pass push walk allocated");

    // Every event available per call (`parse_many`).
    let (events3, values3, after) = pushed_allocations(&file);
    assert_eq!((events3, values3), (events, values));
    assert_eq!(after, 0, "push walk by parse_many allocated");
}

/// The events and values of `file` pushed in 64 KiB pieces with `FixedSigTable`, and the
/// allocations after the first 20,000 events.
fn pushed_allocations(file: &[u8]) -> (u64, u64, u64) {
    use tracecap_apitrace::{PushParser, Pushed};

    let mut table: Box<FixedSigTable<256>> = Box::default();
    let mut parser = PushParser::with_table(&mut *table);
    let mut buffer: Vec<u8> = Vec::with_capacity(file.len());
    let mut pieces = file.chunks(64 << 10);
    let (mut events, mut values) = (0u64, 0u64);
    let mut warm = None;
    loop {
        let answer = parser.parse_many(&buffer, pieces.len() == 0, |p| {
            events += 1;
            for d in p.details() {
                values += detail(d.unwrap(), p.table());
            }
        });
        match answer.unwrap() {
            Pushed::Item { consumed, .. } => {
                buffer.drain(..consumed);
                if warm.is_none() && events >= 20_000 {
                    warm = Some(allocs());
                }
            }
            Pushed::NeedMore { .. } => buffer.extend_from_slice(pieces.next().unwrap()),
            Pushed::End => break,
        }
    }
    (events, values, (allocs() - warm.unwrap()) as u64)
}

/// The push parser over the same trace (1.6 MB of stream) in gzip, brotli and zstd (frames of
/// 128 KiB of stream, so that frames start after warm-up): once warm, no allocation for the
/// rest of the file, as for snappy.
#[cfg(feature = "write")]
#[test]
fn the_push_parser_does_not_allocate_per_event_in_any_container() {
    use tracecap_apitrace::write;

    let Some(corpus) = tracecap_testkit::corpus("apitrace") else {
        println!("SKIPPED: no apitrace corpus");
        return;
    };
    let path = corpus.join("produced-apitrace-11.1/glxgears_backtrace.trace");
    let file = std::fs::read(&path).unwrap();
    let stream = decompress(&file).unwrap().data;
    let (events, values, _) = pushed_allocations(&file);
    for (name, file) in [
        ("gzip", write::gzip(&stream)),
        ("zstd", write::zstd(&stream, 128 << 10, true)),
        ("brotli", write::brotli(&stream)),
    ] {
        let (e, v, after) = pushed_allocations(&file);
        assert_eq!((e, v), (events, values), "{name}");
        eprintln!(
            "{name}: {after} allocations after warm-up ({} bytes of stream)",
            stream.len()
        );
        assert_eq!(
            after, 0,
            "{name}: push walk allocated {after} times after warm-up"
        );
    }
}
