//! apitrace: arbitrary bytes as a file (any container) and as a decompressed stream. No panic,
//! error offsets inside the input, a prefix of a file gives the file's events in order up to
//! where it stops, and whole-stream and chunked reading (random chunk sizes
//! taken from the input) give the same events and the same error, read in two passes (`next`,
//! then the details) or in one (`next_parsed`, `next_parsed_with`, `try_for_each_parsed`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap_apitrace::dump::{dump_text, event_text, Dumper};
use tracecap_apitrace::{
    decompress_limited, ChunkedReader, ErrorKind, Parsed, SigTable, SliceSource, Space, Stream,
};

/// An event and its details as debug text.
fn parsed_text(p: Parsed<'_, '_, SigTable>) -> Vec<String> {
    let mut v = vec![format!("{:?}", p.event)];
    v.extend(p.details().map(|d| format!("{d:?}")));
    v
}

/// Every event and detail, read in two passes from the whole stream, in one pass from the
/// whole stream, and in one pass through the chunked reader: all three must agree.
fn one_pass_agrees(stream: &[u8], sizes: &[usize]) {
    let Ok(trace) = Stream::parse(stream) else {
        return;
    };
    let (mut two, mut one, mut chunked) = (Vec::new(), Vec::new(), Vec::new());
    let mut events = trace.events();
    while let Some(ev) = events.next() {
        match ev {
            Ok(ev) => {
                two.push(format!("{ev:?}"));
                two.extend(ev.details().iter(events.table()).map(|d| format!("{d:?}")));
            }
            Err(e) => two.push(e.to_string()),
        }
    }
    let mut events = trace.events();
    while let Some(p) = events.next_parsed() {
        match p {
            Ok(p) => one.extend(parsed_text(p)),
            Err(e) => one.push(e.to_string()),
        }
    }
    let mut r = ChunkedReader::new(SliceSource::with_sizes(stream, sizes), SigTable::new());
    while let Some(p) = r.next_parsed_with(parsed_text) {
        match p {
            Ok(v) => chunked.extend(v),
            Err(e) => chunked.push(e.to_string()),
        }
    }
    let mut visited = Vec::new();
    let mut r = ChunkedReader::new(SliceSource::with_sizes(stream, sizes), SigTable::new());
    if let Err(e) = r.try_for_each_parsed(|p| {
        visited.extend(parsed_text(p));
        Ok(())
    }) {
        visited.push(e.to_string());
    }
    assert!(one == two, "one-pass and two-pass events differ");
    assert!(
        chunked == two,
        "chunked one-pass and whole-stream events differ"
    );
    assert!(
        visited == two,
        "try_for_each_parsed and whole-stream events differ"
    );
}

fn whole(stream: &[u8]) -> (Vec<u8>, Option<String>) {
    let mut out = Vec::new();
    let trace = match Stream::parse(stream) {
        Ok(t) => t,
        Err(e) => return (out, Some(e.to_string())),
    };
    let mut d = Dumper::new();
    let mut events = trace.events();
    while let Some(ev) = events.next() {
        match ev {
            Ok(ev) => {
                if let Err(e) = event_text(&mut d, &mut out, &ev, events.table()) {
                    panic!("a parsed event failed to re-read: {e}");
                }
            }
            Err(e) => {
                assert_eq!(e.kind.space(), Space::Stream);
                assert!(e.offset <= stream.len() as u64, "{e} past {}", stream.len());
                return (out, Some(e.to_string()));
            }
        }
    }
    (out, None)
}

fn chunked(stream: &[u8], sizes: &[usize]) -> (Vec<u8>, Option<String>) {
    let mut out = Vec::new();
    let mut d = Dumper::new();
    let mut r = ChunkedReader::new(SliceSource::with_sizes(stream, sizes), SigTable::new());
    while let Some(ev) = r.next_event() {
        match ev {
            Ok((ev, table)) => {
                if let Err(e) = event_text(&mut d, &mut out, &ev, table) {
                    panic!("a parsed event failed to re-read: {e}");
                }
            }
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, None)
}

/// The events of a decompressed stream up to its first fault, as (offset, debug text).
fn events_of(stream: &[u8]) -> Vec<(u64, String)> {
    let Ok(trace) = Stream::parse(stream) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut events = trace.events();
    while let Some(Ok(ev)) = events.next() {
        out.push((ev.offset, format!("{ev:?} {:?}", ev.details().raw())));
    }
    out
}

/// A prefix of a file (cut where its last two bytes say) gives the file's events, in order, up
/// to where it stops, and its container fault lies inside the prefix.
fn check_prefix(
    file: &[u8],
    whole: &[(u64, String)],
    whole_fault: Option<tracecap_apitrace::Error>,
) {
    let Some(&[a, b]) = file.last_chunk::<2>() else {
        return;
    };
    let cut = usize::from(u16::from_le_bytes([a, b])) % (file.len() + 1);
    let part = file.get(..cut).unwrap_or(&[]);
    let Ok(d) = decompress_limited(part, 64 << 20) else {
        return;
    };
    if let Some(e) = d.fault {
        assert!(e.offset <= cut as u64, "cut at {cut}: {e}");
    }
    let got = events_of(&d.data);
    // A damaged file may give less than its prefix (a gzip or brotli decoder drops what it
    // decoded in the call that met the damage); a sound one never does.
    if whole_fault.is_none() {
        assert!(
            got.len() <= whole.len(),
            "cut at {cut}: more events than the file"
        );
    }
    for (i, (g, w)) in got.iter().zip(whole).enumerate() {
        assert_eq!(g, w, "cut at {cut}: event {i}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        // A file: any container.
        // A few KiB of zstd or brotli can claim gigabytes: cap the stream.
        if let Ok(d) = decompress_limited(rest, 64 << 20) {
            if let Some(e) = d.fault {
                assert_eq!(e.kind.space(), Space::File);
                assert!(e.offset <= rest.len() as u64, "{e} past {}", rest.len());
            }
            let _ = dump_text(&d.data, |_| {});
            whole(&d.data);
            // Only when the whole file decompressed within the cap: a prefix may then not
            // stop earlier for the cap's sake.
            if d.fault
                .is_none_or(|e| !matches!(e.kind, ErrorKind::StreamLimit(_)))
            {
                check_prefix(rest, &events_of(&d.data), d.fault);
            }
        }
        let _ = tracecap_apitrace::detect(rest);
    } else {
        // A stream; chunk sizes from the mode byte's other bits.
        let sizes = [1 + (mode as usize >> 1), 1, 3 + (mode as usize >> 3), 64];
        let (w, werr) = whole(rest);
        let (c, cerr) = chunked(rest, &sizes);
        assert!(w == c, "whole and chunked events differ");
        assert_eq!(werr, cerr);
        one_pass_agrees(rest, &sizes);
        let _ = dump_text(rest, |_| {});
    }
});
