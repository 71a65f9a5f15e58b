//! Robustness: cut and mutated corpus traces (compressed files and decompressed streams) never
//! panic, report offsets inside the data, and keep everything before the damage.

use std::path::PathBuf;
use tracecap_testkit::Rng;

use tracecap_apitrace::dump::{dump_text, event_text, Dumper};
use tracecap_apitrace::{
    decompress, read_ahead, ChunkedReader, ContainerSource, SigTable, Space, Trace,
};

mod common;
use common::traces;

fn corpus() -> Option<PathBuf> {
    tracecap_testkit::corpus("apitrace")
}

/// Walks a stream fully (events, every value, the apitrace dump); returns the event texts and
/// the error, whose offset must lie inside the stream.
fn walk_stream(stream: &[u8]) -> (Vec<u8>, Option<tracecap_apitrace::Error>) {
    let mut out = Vec::new();
    let trace = match Trace::new(stream) {
        Ok(t) => t,
        Err(e) => return (out, Some(e)),
    };
    let mut d = Dumper::new();
    let mut events = trace.events(SigTable::new());
    let mut err = None;
    while let Some(ev) = events.next() {
        match ev {
            Ok(ev) => event_text(&mut d, &mut out, &ev, events.table()).unwrap(),
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let _ = dump_text(stream, |_| {});
    one_pass_agrees(&trace);
    if let Some(e) = err {
        assert_eq!(e.kind.space(), Space::Stream);
        assert!(
            e.offset <= stream.len() as u64,
            "{e} beyond {}",
            stream.len()
        );
    }
    (out, err)
}

/// Every event with its details as text, read with `next` then `Event::details`, or in one pass
/// with `next_parsed`; the error (or the detail's error) ends the list.
fn events_as_text(trace: &Trace<'_>, one_pass: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut events = trace.events(SigTable::new());
    loop {
        let (head, details) = if one_pass {
            match events.next_parsed() {
                None => break,
                Some(Err(e)) => (format!("{e:?}"), Vec::new()),
                Some(Ok(p)) => (format!("{:?}", p.event), p.details().collect()),
            }
        } else {
            match events.next() {
                None => break,
                Some(Err(e)) => (format!("{e:?}"), Vec::new()),
                Some(Ok(ev)) => (
                    format!("{ev:?}"),
                    ev.details().iter(events.table()).collect(),
                ),
            }
        };
        out.push(head);
        for d in details {
            out.push(format!("{d:?}"));
        }
    }
    out
}

/// `next_parsed` yields what `next` and `Event::details` yield: events, details, errors.
fn one_pass_agrees(trace: &Trace<'_>) {
    let one = events_as_text(trace, true);
    let two = events_as_text(trace, false);
    assert_eq!(one.len(), two.len());
    if let Some(i) = (0..one.len()).find(|&i| one[i] != two[i]) {
        panic!("entry {i}: one pass {}, two passes {}", one[i], two[i]);
    }
}

/// Decompresses and walks a file; container errors must point inside the file.
fn walk_file(file: &[u8]) {
    let Ok(d) = decompress(file) else { return };
    if let Some(e) = d.fault {
        assert_eq!(e.kind.space(), Space::File);
        assert!(e.offset <= file.len() as u64, "{e} beyond {}", file.len());
    }
    walk_stream(&d.data);
}

#[test]
fn every_prefix_of_small_streams_and_boundaries_of_big_ones() {
    let Some(root) = corpus() else { return };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for t in traces(&root) {
        if t.to_str().unwrap().contains(".gzip") || t.to_str().unwrap().contains(".brotli") {
            continue; // same stream as glxinfo_tiny.trace
        }
        let file = std::fs::read(&t).unwrap();
        let d = decompress(&file).unwrap();
        let (full, _) = walk_stream(&d.data);
        let full_lines: Vec<&[u8]> = full.split(|&b| b == b'\n').collect();
        // Cut points: every byte of small streams; else event boundaries +-1 and random ones.
        let mut cuts: Vec<usize> = Vec::new();
        if d.data.len() <= 4096 {
            cuts.extend(0..=d.data.len());
        } else {
            let trace = Trace::new(&d.data).unwrap();
            let mut events = trace.events(SigTable::new());
            let mut bounds = Vec::new();
            while let Some(Ok(ev)) = events.next() {
                bounds.push(ev.offset as usize);
            }
            // Debug builds walk ~20 MB/s: spend a few MB of walking per file.
            let rounds = (700_000 / d.data.len()).clamp(2, 20);
            for _ in 0..rounds {
                let b = bounds[rng.below(bounds.len())];
                cuts.extend([b.saturating_sub(1), b, b + 1]);
                cuts.push(rng.below(d.data.len()));
            }
        }
        for cut in cuts {
            let (got, err) = walk_stream(&d.data[..cut]);
            // Every event before the cut is reported, identically.
            let lines: Vec<&[u8]> = got.split(|&b| b == b'\n').collect();
            let n = lines.len() - 1;
            assert!(full_lines[..n] == lines[..n], "{} cut {cut}", t.display());
            if cut < d.data.len() && err.is_none() {
                // A clean stop must be at an event boundary.
                assert!(n < full_lines.len(), "{} cut {cut}", t.display());
            }
        }
    }
}

#[test]
fn cut_compressed_files() {
    let Some(root) = corpus() else { return };
    let mut rng = Rng(12345);
    for t in traces(&root) {
        let file = std::fs::read(&t).unwrap();
        let mut cuts: Vec<usize> = (0..file.len().min(64)).collect();
        let stream_len = decompress(&file).unwrap().data.len();
        for _ in 0..(1_000_000 / stream_len).clamp(2, 20) {
            cuts.push(rng.below(file.len()));
        }
        for cut in cuts {
            walk_file(&file[..cut]);
            // And the chunked reader on the same cut file, also in one pass with decompression
            // on a second thread: the same number of events and the same error.
            if let Ok(src) = ContainerSource::new(&file[..cut]) {
                let mut r = ChunkedReader::new(src, SigTable::new());
                let mut events = 0;
                let mut err = None;
                while let Some(ev) = r.next_event() {
                    if let Err(e) = ev {
                        let bound = match e.kind.space() {
                            Space::File => cut as u64,
                            Space::Stream => u64::MAX,
                        };
                        assert!(e.offset <= bound);
                        err = Some(e);
                        break;
                    }
                    events += 1;
                }
                let src = ContainerSource::new(&file[..cut]).unwrap();
                let ahead = read_ahead(src, |src| {
                    let mut r = ChunkedReader::new(src, SigTable::new());
                    let mut events = 0;
                    while let Some(n) = r.next_parsed_with(|p| p.details().count()) {
                        match n {
                            Ok(_) => events += 1,
                            Err(e) => return (events, Some(e)),
                        }
                    }
                    (events, None)
                });
                assert_eq!(ahead, (events, err), "{} cut at {cut}", t.display());
                let mut r = ChunkedReader::new(
                    ContainerSource::new(&file[..cut]).unwrap(),
                    SigTable::new(),
                );
                let mut visited = 0;
                let visit_err = r
                    .try_for_each_parsed(|p| {
                        p.details().try_for_each(|d| d.map(drop))?;
                        visited += 1;
                        Ok(())
                    })
                    .err();
                assert_eq!(
                    (visited, visit_err),
                    (events, err),
                    "{} cut at {cut}",
                    t.display()
                );
            }
        }
    }
}

#[test]
fn mutated_files_and_streams() {
    let Some(root) = corpus() else { return };
    let mut rng = Rng(0xdead_beef);
    for t in traces(&root) {
        let file = std::fs::read(&t).unwrap();
        let d = decompress(&file).unwrap();
        let rounds = (800_000 / d.data.len()).clamp(2, 30);
        for _ in 0..rounds {
            let mut m = file.clone();
            let i = rng.below(m.len());
            m[i] = rng.next_u64() as u8;
            walk_file(&m);
            let mut s = d.data.clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(s.len());
                s[i] = match rng.below(4) {
                    0 => 0xff,
                    1 => 0x80,
                    2 => rng.next_u64() as u8 & 0x0f,
                    _ => rng.next_u64() as u8,
                };
            }
            walk_stream(&s);
        }
    }
}

#[test]
fn hostile_counts_do_not_allocate_or_loop() {
    // version 4, enter thread 0, function sig 5 "f" with 2^62 arguments claimed.
    let mut s = vec![4u8, 0, 0, 5, 1, b'f'];
    s.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]);
    let (_, e) = walk_stream(&s);
    assert!(e.unwrap().is_truncation());
    // An array claiming u64::MAX elements of one byte each.
    let mut s = vec![4u8, 0, 0, 5, 1, b'f', 1, 1, b'a', 1, 0, 0x0b];
    s.extend_from_slice(&[0xff; 9]);
    s.push(1);
    s.extend_from_slice(&[0; 100]);
    let (_, e) = walk_stream(&s);
    assert!(e.unwrap().is_truncation());
    // Deep nesting is refused, not a stack overflow.
    let mut s = vec![4u8, 0, 0, 5, 1, b'f', 1, 1, b'a', 1, 0];
    for _ in 0..100_000 {
        s.extend_from_slice(&[0x0b, 1]);
    }
    let (_, e) = walk_stream(&s);
    assert!(e.unwrap().to_string().contains("nested deeper"));
    // A snappy chunk claiming a huge uncompressed size.
    let mut f = b"at".to_vec();
    f.extend_from_slice(&5u32.to_le_bytes());
    f.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    let d = decompress(&f).unwrap();
    assert!(d.fault.unwrap().to_string().contains("uncompressed bytes"));
    // A stream larger than the caller's limit stops with a fault (decompression bombs).
    let big = vec![0u8; 3 << 20];
    let f = tracecap_apitrace::write::zstd(&big, 1 << 20, true);
    let d = tracecap_apitrace::decompress_limited(&f, 1 << 20).unwrap();
    assert!(d.fault.unwrap().to_string().contains("limit"));
    assert!(d.data.len() < 3 << 20);
    // An argument index far past the signature.
    let mut s = vec![
        4u8, 0, 0, 5, 1, b'f', 0, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0,
    ];
    s.extend_from_slice(&[1, 0, 0]);
    let mut out = Vec::new();
    let e = dump_text(&s, |b| out.extend_from_slice(b)).unwrap_err();
    assert!(e.to_string().contains("argument index"), "{e}");
}
