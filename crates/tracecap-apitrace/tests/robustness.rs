//! Robustness: cut and mutated corpus traces (compressed files and decompressed streams) never
//! panic, report offsets inside the data, and keep everything before the damage.
//!
//! Nothing lost before a fault: a trace file cut anywhere gives, through `decompress` and the
//! event walk, the whole file's events in order, up to where it stops.
//!
//! - snappy: an event is guaranteed once every chunk holding its bytes ends at or before the
//!   cut (a cut chunk gives what its whole elements decode, which may be more);
//! - gzip, zstd, brotli (one compressed stream, decoded as far as the decompressor can go):
//!   the events are a prefix of the whole file's, their number never falls as the cut grows,
//!   and a cut at or past the end of the compressed data (the file minus its trailer: the gzip
//!   CRC and size, a zstd checksum and seek table) gives every event.
//!
//! Run on every corpus trace and, without `../shared`, on traces made by the crate's writer in
//! every container it writes.

use tracecap_apitrace::dump::{dump_text, event_text, Dumper};
use tracecap_apitrace::write::{self, WDetail, WValue, Writer};
use tracecap_apitrace::{
    decompress, read_ahead, ChunkedReader, Container, ContainerSource, EventKind, SigTable,
    SnappyChunks, Space, Stream,
};
use tracecap_testkit::{check_cut, cut_points, Rng};

mod common;
use common::traces;

/// What identifies an event across a cut: where it lies in the stream, its fields and its
/// detail bytes.
#[derive(Debug, PartialEq)]
struct Record<'a> {
    offset: u64,
    end: u64,
    kind: EventKind,
    call_no: u64,
    thread: u64,
    sig: u64,
    details: &'a [u8],
}

/// Every event of a decompressed stream, up to its first fault.
fn records(stream: &[u8]) -> Vec<Record<'_>> {
    let Ok(trace) = Stream::parse(stream) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut events = trace.events();
    while let Some(Ok(ev)) = events.next() {
        out.push(Record {
            offset: ev.offset,
            end: events.offset(),
            kind: ev.kind,
            call_no: ev.call_no,
            thread: ev.thread,
            sig: ev.sig,
            details: ev.details().raw(),
        });
    }
    out
}

/// The bytes at the end of a stream container that hold no data: the gzip trailer (CRC-32 and
/// size), a zstd frame's checksum and the seek table; none for brotli.
fn trailer(file: &[u8], container: Container) -> usize {
    match container {
        Container::Gzip => 8,
        Container::Zstd | Container::ZstdSeekable => {
            // Frames written alike: the first frame's descriptor tells the checksum.
            let checksum = file.get(4).map_or(0, |d| usize::from(d & 4 != 0) * 4);
            let table = if container == Container::ZstdSeekable {
                let n = file.len();
                let frames = u32::from_le_bytes(file[n - 9..n - 5].try_into().unwrap()) as usize;
                let entry = if file[n - 5] & 0x80 != 0 { 12 } else { 8 };
                8 + frames * entry + 9
            } else {
                0
            };
            checksum + table
        }
        Container::Brotli | Container::Snappy => 0,
    }
}

/// (stream start, file start, file end) of each piece of `file` whose decoded bytes are known
/// without decoding: snappy chunks, and zstd blocks when every block is stored raw or as one
/// repeated byte (the writer's); `None` otherwise.
fn pieces(
    name: &str,
    file: &[u8],
    d: &tracecap_apitrace::Decompressed,
) -> Option<Vec<(u64, u64, u64)>> {
    match d.container {
        Container::Snappy => Some(
            SnappyChunks::new(file)
                .unwrap()
                .zip(d.offsets.pieces())
                .map(|(c, (at, off))| {
                    let c = c.unwrap();
                    assert_eq!(c.offset, off, "{name}: chunk index");
                    (at, off, off + 4 + c.block.len() as u64)
                })
                .collect(),
        ),
        Container::Zstd | Container::ZstdSeekable => {
            let mut out = Vec::new();
            let (mut at, mut stream) = (0usize, 0u64);
            while at + 4 <= file.len() {
                let magic = u32::from_le_bytes(file[at..at + 4].try_into().unwrap());
                if magic & 0xffff_fff0 == 0x184d_2a50 {
                    let n = u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap());
                    at += 8 + n as usize;
                    continue;
                }
                assert_eq!(magic, 0xfd2f_b528, "{name}: zstd frame at {at:#x}");
                let fhd = file[at + 4];
                let single = fhd & 0x20 != 0;
                let fcs = match fhd >> 6 {
                    0 => usize::from(single),
                    1 => 2,
                    2 => 4,
                    _ => 8,
                };
                let dict = [0, 1, 2, 4][usize::from(fhd & 3)];
                at += 5 + usize::from(!single) + dict + fcs;
                loop {
                    let h = u32::from(file[at])
                        | u32::from(file[at + 1]) << 8
                        | u32::from(file[at + 2]) << 16;
                    let size = (h >> 3) as usize;
                    let stored = match (h >> 1) & 3 {
                        0 => size,
                        1 => 1,
                        _ => return None,
                    };
                    out.push((stream, at as u64, (at + 3 + stored) as u64));
                    stream += size as u64;
                    at += 3 + stored;
                    if h & 1 != 0 {
                        break;
                    }
                }
                at += usize::from(fhd & 4 != 0) * 4;
            }
            Some(out)
        }
        Container::Gzip | Container::Brotli => None,
    }
}

/// Cuts `file` at the start, middle and end of its first 200 records' spans, at 200 seeded
/// points, and near the end, and checks each cut (see the module docs). Returns the number of
/// cuts checked.
fn check_file(name: &str, file: &[u8], rng: &mut Rng) -> usize {
    let d = decompress(file).unwrap();
    assert!(d.fault.is_none(), "{name}: {:?}", d.fault);
    let whole = records(&d.data);
    assert!(!whole.is_empty(), "{name}: no events");
    let len = file.len() as u64;
    let (spans, mut cuts) = if let Some(pieces) = pieces(name, file, &d) {
        let piece_end = |stream_at: u64| {
            let i = pieces.partition_point(|&(s, _, _)| s <= stream_at);
            pieces[i - 1].2
        };
        // An event is guaranteed once the piece holding its last byte ends: each span runs
        // from the previous event's guarantee to this one's, so that `check_cut` asks for
        // exactly the events whose pieces end at or before the cut.
        let mut spans = Vec::new();
        let mut prev = pieces[0].1;
        for r in &whole {
            let end = piece_end(r.end - 1);
            spans.push((prev, end));
            prev = end;
        }
        let piece_spans: Vec<(u64, u64)> = pieces.iter().map(|&(_, s, e)| (s, e)).collect();
        let mut cuts = cut_points(&spans, file.len(), rng);
        cuts.extend(cut_points(&piece_spans, file.len(), rng));
        (spans, cuts)
    } else {
        // No event is guaranteed by its position: the decompressor decides. The checks below
        // ask for a prefix, more events as the cut grows, and every event near the end.
        let spans = vec![(u64::MAX, u64::MAX); whole.len()];
        (spans, cut_points(&[], file.len(), rng))
    };
    let data_end = len - trailer(file, d.container) as u64;
    cuts.extend((1..=50).map(|i| len * i / 51));
    cuts.extend((0..16).map(|i| data_end.saturating_sub(i)));
    cuts.extend(data_end..len);
    cuts.retain(|&c| c < len);
    cuts.sort_unstable();
    cuts.dedup();
    let mut most = 0;
    for &cut in &cuts {
        let part = &file[..cut as usize];
        let Ok(cd) = decompress(part) else {
            // Too short to tell the container: nothing read.
            assert!(cut < 4, "{name} cut at {cut:#x}");
            continue;
        };
        let got = records(&cd.data);
        let fault = cd.fault.map(|e| e.offset);
        check_cut(name, cut, &whole, &spans, &got, fault);
        assert!(
            got.len() >= most,
            "{name} cut at {cut:#x}: {} events, a shorter cut gave {most}",
            got.len()
        );
        most = got.len();
        if cut >= data_end && d.container != Container::Snappy {
            assert_eq!(
                got.len(),
                whole.len(),
                "{name} cut at {cut:#x}: not every event"
            );
        }
    }
    cuts.len()
}

/// A version-6 stream of `calls` calls whose arguments vary in size (strings and blobs up to a
/// few KiB), so that events straddle chunks, frames and blocks.
fn made_stream(calls: u64) -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"robustness")]);
    w.function(1, b"glBufferData", &[b"target", b"size", b"data"]);
    w.function(2, b"glGetString", &[b"name"]);
    w.function(3, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    for i in 0..calls {
        match i % 3 {
            0 => {
                let blob = vec![(i % 251) as u8; (i as usize * 37) % 3000];
                let c = w.enter(
                    0,
                    1,
                    &[
                        WDetail::Arg(0, WValue::UInt(0x8892)),
                        WDetail::Arg(1, WValue::UInt(blob.len() as u64)),
                        WDetail::Arg(2, WValue::Blob(blob)),
                    ],
                );
                w.leave(c, &[]);
            }
            1 => {
                let c = w.enter(i % 2, 2, &[WDetail::Arg(0, WValue::UInt(0x1f00 + i))]);
                let text = format!("string {i} ").repeat((i as usize % 40) + 1);
                w.leave(c, &[WDetail::Ret(WValue::String(text.into_bytes()))]);
            }
            _ => {
                let c = w.enter(
                    0,
                    3,
                    &[
                        WDetail::Arg(0, WValue::Pointer(0x1234_5678)),
                        WDetail::Arg(1, WValue::SInt(-(i as i64))),
                    ],
                );
                w.leave(c, &[]);
            }
        }
    }
    w.finish()
}

/// Traces made by the writer, in every container it writes (several snappy chunks and zstd
/// frames): needs no corpus.
#[test]
fn cuts_keep_every_event_before_them_made() {
    let stream = made_stream(1500);
    let files = [
        ("made.snappy", write::snappy(&stream, 16 << 10)),
        ("made.snappy-1mib", write::wrap(&stream, Container::Snappy)),
        ("made.gzip", write::wrap(&stream, Container::Gzip)),
        ("made.brotli", write::wrap(&stream, Container::Brotli)),
        ("made.zstd", write::zstd(&stream, 64 << 10, false)),
        ("made.zstd-seekable", write::zstd(&stream, 384 << 10, true)),
    ];
    let mut rng = Rng(0x5EED_A917);
    for (name, file) in &files {
        let n = check_file(name, file, &mut rng);
        assert!(n > 200, "{name}: only {n} cuts");
    }
}

/// The stream bytes one call of the brotli decoder reaches in `part` when it has room for
/// `room` bytes: what a brotli file cut short holds, all of it.
fn brotli_reach(part: &[u8], room: usize) -> usize {
    use brotli_decompressor::{BrotliDecompressStream, BrotliState, StandardAlloc};
    let mut state = BrotliState::new(
        StandardAlloc::default(),
        StandardAlloc::default(),
        StandardAlloc::default(),
    );
    let mut out = vec![0u8; room];
    let (mut avail_in, mut in_off) = (part.len(), 0);
    let (mut avail_out, mut out_off, mut total) = (room, 0, 0);
    let _ = BrotliDecompressStream(
        &mut avail_in,
        &mut in_off,
        part,
        &mut avail_out,
        &mut out_off,
        &mut out,
        &mut total,
        &mut state,
    );
    out_off
}

/// A brotli file cut anywhere gives every byte the decoder reaches in it. The decoder runs up
/// to its window (16 MiB) ahead of what it has handed out, so at the cut it may hold far more
/// than one piece of the source.
#[test]
fn cut_brotli_files_give_every_byte_the_decoder_reaches() {
    let mut files = vec![(
        "made.brotli".to_string(),
        write::wrap(&made_stream(3000), Container::Brotli),
    )];
    files.extend(
        tracecap_testkit::corpus_files("apitrace", &["produced-apitrace-11.1"])
            .into_iter()
            .filter(|(n, _)| n.ends_with(".brotli.trace")),
    );
    for (name, file) in &files {
        let whole = decompress(file).unwrap().data.len();
        let mut longest = 0;
        for i in 1..60 {
            let cut = file.len() * i / 60;
            let reach = brotli_reach(&file[..cut], whole);
            let got = decompress(&file[..cut]).map_or(0, |d| d.data.len());
            assert_eq!(got, reach, "{name} cut at {cut:#x}");
            longest = longest.max(got);
        }
        if name == "made.brotli" {
            // The made trace spans several pieces (256 KiB each), and its cuts pass two.
            assert!(whole > 3 << 18, "{name}: {whole} bytes");
            assert!(
                longest > 2 << 18,
                "{name}: the cuts never passed two pieces"
            );
        }
    }
}

/// Every corpus trace (each container apitrace writes).
#[test]
fn cuts_keep_every_event_before_them() {
    let files =
        tracecap_testkit::corpus_files("apitrace", &["apitrace-tests", "produced-apitrace-11.1"]);
    let mut rng = Rng(0x5EED_0017);
    for (name, file) in files.iter().filter(|(n, _)| n.ends_with(".trace")) {
        // A gzip stream without its trailer: its own cuts are checked as a prefix of what it
        // holds (every event, then the missing trailer).
        if name == "zlib-no-eof.trace" {
            let d = decompress(file).unwrap();
            assert!(d.fault.is_some(), "{name}");
            let whole = records(&d.data);
            assert_eq!(
                whole.iter().filter(|r| r.kind == EventKind::Enter).count(),
                32
            );
            let mut most = 0;
            for cut in 4..file.len() {
                let cd = decompress(&file[..cut]).unwrap();
                let got = records(&cd.data);
                let spans = vec![(u64::MAX, u64::MAX); whole.len()];
                check_cut(
                    name,
                    cut as u64,
                    &whole,
                    &spans,
                    &got,
                    cd.fault.map(|e| e.offset),
                );
                assert!(got.len() >= most, "{name} cut at {cut:#x}");
                most = got.len();
            }
            continue;
        }
        check_file(name, file, &mut rng);
    }
}

/// Walks a stream fully (events, every value, the apitrace dump); returns the event texts and
/// the error, whose offset must lie inside the stream.
fn walk_stream(stream: &[u8]) -> (Vec<u8>, Option<tracecap_apitrace::Error>) {
    let mut out = Vec::new();
    let trace = match Stream::parse(stream) {
        Ok(t) => t,
        Err(e) => return (out, Some(e)),
    };
    let mut d = Dumper::new();
    let mut events = trace.events();
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
fn events_as_text(trace: &Stream<'_>, one_pass: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut events = trace.events();
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
fn one_pass_agrees(trace: &Stream<'_>) {
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
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
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
            let trace = Stream::parse(&d.data).unwrap();
            let mut events = trace.events();
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
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
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
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
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
