//! A trace's first bytes followed by zeros up to 16 MiB or 256 MiB (what a zero-filled or sparse
//! file looks like), in both containers: every reader fails fast, at the same offset for both
//! sizes, and its peak heap does not grow with the size.

use tracecap_wtf::timeline::Timeline;
use tracecap_wtf::write::{ChunkedWriter, LegacyWriter, WValue};
use tracecap_wtf::{ArgType, Capture, Error, StringIndex, Value};

#[global_allocator]
static GLOBAL: tracecap_testkit::PeakAlloc = tracecap_testkit::PeakAlloc;

const HEADER: &str = r#"{"type":"file_header","flags":["has_high_resolution_times"],"timebase":1000.5,"contextInfo":{"contextType":"script","title":"memory test"}}"#;

fn args(i: u32) -> [WValue; 3] {
    [
        WValue::Uint32(i),
        WValue::Utf8(Some(format!("frame {i} of a long run"))),
        WValue::Ints(ArgType::Uint8Array, Some(vec![1, 2, 3, i64::from(i)])),
    ]
}

/// A chunked trace: a header chunk and three event chunks.
fn chunked() -> Vec<u8> {
    let mut w = ChunkedWriter::new(0xE821_4400, HEADER);
    w.define(10, 0, 0, "app#frame", "uint32 n, utf8 label, uint8[] bytes")
        .unwrap();
    for chunk in 0..3 {
        for i in 0..50 {
            w.event(10, chunk * 1000 + i, &args(i)).unwrap();
        }
        w.end_chunk();
    }
    w.finish()
}

fn legacy() -> Vec<u8> {
    let mut w = LegacyWriter::new(
        3,
        Some(r#"{"contextType":"script"}"#),
        1,
        1_368_000_000_000,
        Some("{}"),
    )
    .unwrap();
    w.define(10, 0, 0, "app#frame", "uint32 n, utf8 label, uint8[] bytes")
        .unwrap();
    for i in 0..150 {
        w.event(10, i, &args(i)).unwrap();
    }
    w.finish()
}

/// What the commands of `tracecap` do with a file: the header JSON, every event with its
/// arguments and strings, each chunk's string index, and the timeline. Returns the first fault.
fn every_reader(data: &[u8]) -> Result<(), Error> {
    let trace = Capture::parse(data)?;
    trace.header().header_value()?;
    for c in trace.chunks() {
        c?;
    }
    let mut index: Option<StringIndex<'_>> = None;
    let mut events = trace.events();
    for ev in events.by_ref() {
        let ev = ev?;
        for a in ev.args() {
            if let Value::Utf8(s) | Value::Ascii(s) | Value::Any(s) = a?.value {
                if index.as_ref().map(|i| i.table()) != Some(ev.strings) {
                    index = Some(StringIndex::new(ev.strings));
                }
                let _ = ev.resolve(s);
            }
        }
    }
    match Timeline::build(&trace).fault {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The first `cut` bytes of `file`, then zeros up to `size`; the fault and the peak heap (bytes)
/// of reading it.
fn read_zero_filled(name: &str, file: &[u8], cut: usize, size: usize) -> (Error, usize) {
    let mut data = vec![0u8; size];
    data[..cut].copy_from_slice(&file[..cut]);
    let (result, peak) = tracecap_testkit::peak_of(|| every_reader(&data));
    let e = result
        .err()
        .unwrap_or_else(|| panic!("{name} cut {cut}: a zero-filled tail is a fault"));
    // Zeros may make up the rest of a chunk: the fault can be at its end, but not in the zeros
    // far behind (the caller also wants the same fault for both sizes).
    assert!(
        e.offset <= file.len() as u64 + 4096,
        "{name} cut {cut}: fault at {e}"
    );
    (e, peak)
}

#[test]
fn zero_filled_tails_fail_fast_in_bounded_memory() {
    let _serial = tracecap_testkit::serial();
    for (name, file) in [("chunked", chunked()), ("legacy", legacy())] {
        every_reader(&file).unwrap();
        // The prologue, the header chunk (its header, part table, JSON), the event chunks (their
        // part tables, string tables and event buffers), and the end of the file; for legacy
        // files the header strings and the events.
        let mut cuts: Vec<usize> = (0..file.len()).step_by(97).collect();
        cuts.extend([4, 12, 20, 40, 60, 100, file.len() - 2, file.len()]);
        for cut in cuts {
            let (small, small_peak) = read_zero_filled(name, &file, cut, 16 << 20);
            let (big, big_peak) = read_zero_filled(name, &file, cut, 256 << 20);
            assert_eq!(
                small, big,
                "{name} cut {cut}: the fault moved with the size"
            );
            assert!(
                big_peak <= small_peak + 4096 && big_peak < 1 << 20,
                "{name} cut {cut}: peak heap {small_peak} B at 16 MiB, {big_peak} B at 256 MiB"
            );
        }
    }
}

/// The timeline's heap is its events and little more: each zone's list is allocated once at its
/// size, and sorting it takes no buffer.
#[test]
fn the_timeline_holds_its_events_and_little_more() {
    let _serial = tracecap_testkit::serial();
    let mut w = ChunkedWriter::new(0xE821_4400, HEADER);
    w.define(10, 0, 0, "app#frame", "uint32 n, utf8 label, uint8[] bytes")
        .unwrap();
    // Out of time order, so that the sort has work to do.
    for i in 0..20_000 {
        w.event(10, (i * 7919) % 20_000, &args(i)).unwrap();
    }
    let bytes = w.finish();
    let trace = Capture::parse(&bytes).unwrap();
    let (timeline, peak) = tracecap_testkit::peak_of(|| Timeline::build(&trace));
    let events: usize = timeline.zones.iter().map(|z| z.events.len()).sum();
    assert_eq!(events, 20_000);
    let per_event = core::mem::size_of::<tracecap_wtf::Event>();
    assert!(
        peak <= events * per_event + (64 << 10),
        "peak heap {peak} B for {events} events of {per_event} B"
    );
}
