//! Whole-stream and chunked reading give the same events, on the corpus and on random chunkings.

use proptest::prelude::*;
use tracecap_apitrace::dump::{event_text, Dumper};
use tracecap_apitrace::{
    decompress, read_ahead, ByteSource, ChunkedReader, ContainerSource, Error, ErrorKind, SigTable,
    SliceSource, Stream,
};

mod common;
use common::{parsed_text, traces, two_pass_text};

/// Every event as text, then the error (if any) as its last line.
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
            Ok(ev) => event_text(&mut d, &mut out, &ev, events.table()).unwrap(),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, None)
}

fn chunked<S: ByteSource>(src: S, limit: usize) -> (Vec<u8>, Option<String>, usize) {
    let mut out = Vec::new();
    let mut d = Dumper::new();
    let mut r = ChunkedReader::new(src, SigTable::new()).with_window_limit(limit);
    let mut peak = 0;
    loop {
        match r.next_event() {
            None => break,
            Some(Ok((ev, table))) => event_text(&mut d, &mut out, &ev, table).unwrap(),
            Some(Err(e)) => return (out, Some(e.to_string()), peak),
        }
        peak = peak.max(r.window_capacity());
    }
    (out, None, peak)
}

/// [`two_pass_text`] through a chunked reader, each event read in one pass.
fn chunked_one_pass<S: ByteSource>(src: S) -> (Vec<String>, Option<String>) {
    let mut out = Vec::new();
    let mut r = ChunkedReader::new(src, SigTable::new());
    loop {
        match r.next_parsed_with(parsed_text) {
            None => return (out, None),
            Some(Ok(v)) => out.extend(v),
            Some(Err(e)) => return (out, Some(e.to_string())),
        }
    }
}

/// [`chunked_one_pass`] through `ChunkedReader::try_for_each_parsed`.
fn chunked_visit<S: ByteSource>(src: S) -> (Vec<String>, Option<String>) {
    let mut out = Vec::new();
    let mut r = ChunkedReader::new(src, SigTable::new());
    let err = r
        .try_for_each_parsed(|p| {
            out.extend(parsed_text(p));
            Ok(())
        })
        .err();
    // Fused after the error or the end.
    assert!(r.next_event().is_none());
    (out, err.map(|e| e.to_string()))
}

/// [`chunked_visit`], the walk stopped by its closure after every `every` events and called again.
fn chunked_visit_resumed<S: ByteSource>(src: S, every: usize) -> (Vec<String>, Option<String>) {
    let mut out = Vec::new();
    let mut r = ChunkedReader::new(src, SigTable::new());
    let mut n = 0;
    loop {
        let mut stopped = false;
        let walked = r.try_for_each_parsed(|p| {
            out.extend(parsed_text(p));
            n += 1;
            if n % every == 0 {
                stopped = true;
                return Err(Error::new(ErrorKind::Undefined("stop"), 0));
            }
            Ok(())
        });
        match walked {
            Ok(()) => return (out, None),
            Err(_) if stopped => continue,
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

#[test]
fn corpus_whole_and_chunked_agree() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    for t in traces(&root) {
        let file = std::fs::read(&t).unwrap();
        let d = decompress(&file).unwrap();
        let (w, werr) = whole(&d.data);
        assert!(werr.is_none(), "{}: {werr:?}", t.display());
        // Straight from the container, piece by piece.
        let (c, cerr, peak) = chunked(ContainerSource::new(&file).unwrap(), 64 << 20);
        assert_eq!(cerr, d.fault.map(|e| e.to_string()), "{}", t.display());
        assert!(c == w, "{}: container-chunked events differ", t.display());
        assert!(peak <= 4 << 20, "{}: window grew to {peak}", t.display());
        // One pass per event, straight from the container and with decompression on a second
        // thread: the same events and details.
        let fault = d.fault.map(|e| e.to_string());
        let (wd, _) = two_pass_text(&d.data);
        let (c, cerr) = chunked_one_pass(ContainerSource::new(&file).unwrap());
        assert_eq!(cerr, fault, "{}", t.display());
        assert!(c == wd, "{}: one-pass chunked events differ", t.display());
        let (c, cerr) = read_ahead(ContainerSource::new(&file).unwrap(), chunked_one_pass);
        assert_eq!(cerr, fault, "{}", t.display());
        assert!(c == wd, "{}: read-ahead events differ", t.display());
        let (c, cerr) = read_ahead(ContainerSource::new(&file).unwrap(), chunked_visit);
        assert_eq!(cerr, fault, "{}", t.display());
        assert!(
            c == wd,
            "{}: try_for_each_parsed events differ",
            t.display()
        );
        for every in [1, 5, 1000] {
            let (c, cerr) = chunked_visit_resumed(ContainerSource::new(&file).unwrap(), every);
            assert_eq!(cerr, fault, "{} every {every}", t.display());
            assert!(
                c == wd,
                "{} every {every}: resumed walk differs",
                t.display()
            );
        }
        // From the stream in odd small pieces (events straddle many pieces).
        for piece in [1usize, 7, 4093] {
            // One-byte pieces cost a fill per byte: keep them to the smaller files.
            if piece == 1 && d.data.len() > 200_000 {
                continue;
            }
            let (c, cerr, _) = chunked(SliceSource::new(&d.data, piece), 64 << 20);
            assert_eq!(cerr, None, "{} piece {piece}", t.display());
            assert!(c == w, "{} piece {piece}: events differ", t.display());
        }
        // Read-ahead hands each piece's buffer over as the window, the unread tail copied in
        // front, once the stream is past the buffers' headroom (64 KiB) and the tail fits in it;
        // otherwise it appends. Pieces of mixed sizes take both ways, and tails larger than a
        // piece (events across several pieces).
        let sizes = [4093usize, 70_001, 3, 150_000, 65_536, 17];
        let src = || SliceSource::with_sizes(&d.data, &sizes);
        let (c, cerr) = read_ahead(src(), chunked_one_pass);
        assert_eq!(cerr, None, "{}", t.display());
        assert!(c == wd, "{}: read-ahead, mixed pieces", t.display());
        let (c, cerr) = read_ahead(src(), chunked_visit);
        assert_eq!(cerr, None, "{}", t.display());
        assert!(c == wd, "{}: read-ahead visit, mixed pieces", t.display());
        let (c, cerr, _) = read_ahead(src(), |s| chunked(s, 64 << 20));
        assert_eq!(cerr, None, "{}", t.display());
        assert!(
            c == w,
            "{}: read-ahead next_event, mixed pieces",
            t.display()
        );
    }
}

#[test]
fn window_limit_is_enforced() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let file = std::fs::read(root.join("apitrace-tests/glxsimple.trace")).unwrap();
    let d = decompress(&file).unwrap();
    let (_, err, peak) = chunked(SliceSource::new(&d.data, 512), 1024);
    // glxsimple has texture blobs larger than 1 KiB: the limit stops it, precisely.
    let err = err.expect("a blob larger than the window must fail");
    assert!(err.contains("streaming window limit"), "{err}");
    assert!(peak <= 4096, "{peak}");
    // The same events and the same error, at the same offset, with read-ahead (whose windows
    // carry 64 KiB of headroom in front: the limit counts the unread bytes only).
    let serial = chunked(SliceSource::new(&d.data, 512), 1024);
    let ahead = read_ahead(SliceSource::new(&d.data, 512), |s| chunked(s, 1024));
    assert_eq!(ahead.1, serial.1);
    assert!(ahead.0 == serial.0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_chunkings_agree(sizes in prop::collection::vec(1usize..5000, 1..8), cut in 0usize..100_000) {
        let Some(root) = tracecap_testkit::corpus("apitrace") else { return Ok(()) };
        let file = std::fs::read(root.join("apitrace-tests/tri.trace")).unwrap();
        let d = decompress(&file).unwrap();
        // A cut stream too: the same events before the cut, and the same error.
        let cut = cut.min(d.data.len());
        for data in [&d.data[..], &d.data[..cut]] {
            let (w, werr) = whole(data);
            let (c, cerr, _) = chunked(SliceSource::with_sizes(data, &sizes), 64 << 20);
            prop_assert!(c == w);
            prop_assert_eq!(&cerr, &werr);
            let (wd, _) = two_pass_text(data);
            let (c, cerr) = read_ahead(SliceSource::with_sizes(data, &sizes), chunked_one_pass);
            prop_assert!(c == wd);
            prop_assert_eq!(&cerr, &werr);
            let (c, cerr) = chunked_visit(SliceSource::with_sizes(data, &sizes));
            prop_assert!(c == wd);
            prop_assert_eq!(cerr, werr);
        }
    }
}
