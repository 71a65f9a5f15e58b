//! Memory bounded by what a file really holds, and cut containers recognised as cut: a trace's
//! first bytes followed by zeros (what `truncate -s` makes of a cut file) fail early, with an
//! offset, and use no more memory for a 256 MiB file than for a 16 MiB one; a trace cut inside
//! its first chunk is still an apitrace trace, reported as cut short at the end of the file.

use tracecap_apitrace::write::{self, WDetail, WValue, Writer};
use tracecap_apitrace::{decompress_limited, detect, ChunkedReader, Container, ErrorKind, Space};

#[global_allocator]
static GLOBAL: tracecap_testkit::PeakAlloc = tracecap_testkit::PeakAlloc;

use tracecap_testkit::peak_of;

/// A version 6 stream of a few hundred KiB: calls with strings, numbers and blobs whose bytes
/// vary (so that no container compresses them to nothing).
fn stream() -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"bounded")]);
    w.function(7, b"glBufferData", &[b"target", b"size", b"data", b"usage"]);
    w.function(8, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..3000u64 {
        let blob: Vec<u8> = (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 251) as u8
            })
            .collect();
        let details = [
            WDetail::Arg(0, WValue::UInt(0x8892)),
            WDetail::Arg(1, WValue::UInt(i * 40)),
            WDetail::Arg(2, WValue::Blob(blob)),
            WDetail::Arg(3, WValue::String(format!("usage {i}").into_bytes())),
        ];
        let no = w.enter(0, 7, &details);
        w.leave(no, &[WDetail::Ret(WValue::Null)]);
        if i % 100 == 99 {
            let no = w.enter(0, 8, &[WDetail::Arg(0, WValue::Pointer(0x1234))]);
            w.leave(no, &[]);
        }
    }
    w.finish()
}

/// Every container, as the crate's writer makes it.
fn containers(stream: &[u8]) -> Vec<(Container, Vec<u8>)> {
    vec![
        (Container::Snappy, write::snappy(stream, 1 << 20)),
        (Container::Gzip, write::gzip(stream)),
        (Container::Brotli, write::brotli(stream)),
        (Container::Zstd, write::zstd(stream, 2 << 20, false)),
        (Container::ZstdSeekable, write::zstd(stream, 2 << 20, true)),
    ]
}

/// What the whole-stream decompression (as the tool's `info`, `validate` and `dump` use it) and
/// the chunked reader (as `convert` uses it) say about `file`: the first fault's offset.
fn first_fault(file: &[u8]) -> (Option<u64>, Option<u64>) {
    let whole = decompress_limited(file, u64::MAX).expect("a container");
    let mut reader = ChunkedReader::new(
        tracecap_apitrace::ContainerSource::new(file).expect("a container"),
        tracecap_apitrace::SigTable::new(),
    );
    let chunked = reader.try_for_each_parsed(|_| Ok(())).err();
    let whole_fault = whole.fault.map(|e| e.offset).or_else(|| {
        // A fault of the stream: the walk over the data finds it.
        let trace = tracecap_apitrace::Stream::parse(&whole.data).ok()?;
        let mut events = trace.events();
        loop {
            match events.next()? {
                Ok(_) => {}
                Err(e) => return Some(e.offset),
            }
        }
    });
    (whole_fault, chunked.map(|e| e.offset))
}

#[test]
fn zero_padded_prefixes_fail_early_in_bounded_memory() {
    // One test at a time: the peak of allocated bytes is counted for the whole process.
    let _serial = tracecap_testkit::serial();
    let stream = stream();
    for (container, file) in containers(&stream) {
        for prefix in [4096usize, 1000] {
            let prefix = &file[..prefix.min(file.len() - 1)];
            let mut peaks = Vec::new();
            for size in [16usize << 20, 256 << 20] {
                let mut padded = vec![0u8; size];
                padded[..prefix.len()].copy_from_slice(prefix);
                let (faults, peak) = peak_of(|| {
                    // Brotli has no magic: zeros after a prefix that decodes nothing on its
                    // own make a damaged stream, not a recognisable one.
                    if container != Container::Brotli {
                        assert!(detect(&padded), "{container:?} {}", prefix.len());
                    }
                    first_fault(&padded)
                });
                let what = format!("{container:?}, {} bytes then zeros to {size}", prefix.len());
                let (whole, chunked) = faults;
                assert!(whole.is_some() && chunked.is_some(), "{what}: {faults:?}");
                peaks.push(peak);
                assert!(peak < 48 << 20, "{what}: peak {peak} bytes");
            }
            // Not a byte more for a file 16 times larger (pieces are 256 KiB; brotli's and
            // zstd's windows are fixed by their headers).
            assert!(
                peaks[1] <= peaks[0] + (1 << 20),
                "{container:?} {}: peaks {peaks:?}",
                prefix.len()
            );
        }
    }
}

#[test]
fn traces_cut_inside_their_first_chunk_are_cut_short() {
    // One test at a time: the peak of allocated bytes is counted for the whole process.
    let _serial = tracecap_testkit::serial();
    let stream = stream();
    for (container, file) in containers(&stream) {
        for cut in [300usize, 4096, file.len() / 2, file.len() - 1] {
            let cut_file = &file[..cut];
            let what = format!("{container:?} cut at {cut} of {}", file.len());
            assert!(detect(cut_file), "{what}: not detected");
            let d = decompress_limited(cut_file, u64::MAX).expect("a container");
            let fault = d.fault.unwrap_or_else(|| panic!("{what}: no fault"));
            assert!(
                matches!(fault.kind, ErrorKind::ContainerTruncated(_)),
                "{what}: {fault}"
            );
            assert_eq!(
                (fault.offset, fault.kind.space()),
                (cut as u64, Space::File),
                "{what}"
            );
            // What decompressed is the start of the stream.
            assert!(stream.starts_with(&d.data), "{what}");
            // The chunked reader says the same.
            let mut reader = ChunkedReader::new(
                tracecap_apitrace::ContainerSource::new(cut_file).expect("a container"),
                tracecap_apitrace::SigTable::new(),
            );
            let e = reader.try_for_each_parsed(|_| Ok(())).unwrap_err();
            assert_eq!(e, fault, "{what}");
        }
        // Near the end, most of the stream is there (a zstd frame is handed out only as far as
        // its window allows).
        let d = decompress_limited(&file[..file.len() - 1], u64::MAX).unwrap();
        if !matches!(container, Container::Zstd | Container::ZstdSeekable) {
            assert!(d.data.len() > stream.len() / 2, "{container:?}");
        }
    }
}

#[test]
fn random_bytes_and_text_are_not_apitrace() {
    // One test at a time: the peak of allocated bytes is counted for the whole process.
    let _serial = tracecap_testkit::serial();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for len in [4usize, 8, 64, 300, 4096] {
        for i in 0..2000 {
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if i % 2 == 0 {
                // The brotli window bits apitrace writes.
                b[0] |= 0x0f;
            }
            assert!(!detect(&b), "{b:02x?}");
        }
    }
    let text = b"at the start, a line of text; and another one at its end.\n".repeat(30);
    for start in 0..64 {
        for len in [4usize, 6, 50, 400, 1500] {
            assert!(!detect(&text[start..start + len]), "{start} {len}");
        }
    }
}

/// A stream of at least `bytes` bytes of calls without arguments (8 bytes a call).
fn flushes(bytes: usize) -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[]);
    w.function(1, b"glFlush", &[]);
    while w.stream_len() < bytes {
        let no = w.enter(0, 1, &[]);
        w.leave(no, &[]);
    }
    w.finish()
}

/// zstd frames of one stream byte each, as small as zstd makes them: magic, a single-segment
/// descriptor, a one-byte content size, a raw last block of one byte (10 bytes a frame). Frame
/// `i` starts at file offset `10 * i`.
fn tiny_zstd(stream: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(stream.len() * 10);
    for &b in stream {
        out.extend_from_slice(&tracecap_apitrace::ZSTD_MAGIC);
        out.extend_from_slice(&[0x20, 0x01, 0x09, 0x00, 0x00, b]);
    }
    out
}

/// Walks `file` (pieces of one stream byte; piece `i` starts at `piece_at(i)`) with a chunked
/// reader over its container source: each event must map to its piece right after it is read.
/// Returns the most piece starts the source kept at once and the peak heap of the walk.
fn walk_tiny(file: &[u8], piece_at: impl Fn(u64) -> u64) -> (usize, usize) {
    let (most, peak) = peak_of(|| {
        let src = tracecap_apitrace::ContainerSource::new(file).expect("a container");
        let mut reader = ChunkedReader::new(src, tracecap_apitrace::SigTable::new());
        let mut most = 0;
        let mut events = 0u64;
        loop {
            let at = match reader.next_event() {
                None => break,
                Some(Err(e)) => panic!("{e}"),
                Some(Ok((ev, _))) => ev.offset,
            };
            events += 1;
            let map = reader.source().offsets();
            assert_eq!(map.chunk_offset(at), Some(piece_at(at)), "event at {at}");
            let kept = map.pieces().len();
            // One start per stream byte of the window at most (and one piece before it).
            assert!(
                kept <= reader.window_capacity() + 1,
                "{kept} starts kept for a window of {}",
                reader.window_capacity()
            );
            most = most.max(kept);
        }
        assert!(events > 1000);
        most
    });
    (most, peak)
}

/// Pieces of one stream byte (the smallest snappy chunks, 7 bytes; the smallest zstd frames,
/// 10 bytes): the container source keeps the starts of the pieces under the reader's window,
/// 16 bytes each, not of every piece of the file (as the callers that kept them all did: 16 to
/// 32 bytes of heap per piece, more than the file itself). A file three times larger keeps no
/// more, and takes no more heap.
#[test]
fn tiny_pieces_keep_the_starts_under_the_window_only() {
    let _serial = tracecap_testkit::serial();
    let small = flushes(300 << 10);
    let big = flushes(900 << 10);
    type Make = fn(&[u8]) -> Vec<u8>;
    type PieceAt = fn(u64) -> u64;
    let containers: [(&str, Make, PieceAt); 2] = [
        ("snappy", |s| write::snappy(s, 1), |i| 2 + 7 * i),
        ("zstd", tiny_zstd, |i| 10 * i),
    ];
    for (name, make, piece_at) in containers {
        let mut seen = Vec::new();
        for stream in [&small, &big] {
            let file = make(stream);
            let pieces = file.len() as u64 - piece_at(0);
            assert_eq!(
                pieces,
                piece_at(stream.len() as u64) - piece_at(0),
                "{name}"
            );
            let (most, peak) = walk_tiny(&file, piece_at);
            eprintln!(
                "{name}: {} stream bytes, {} file bytes: at most {most} piece starts kept, \
                 peak heap {peak} bytes",
                stream.len(),
                file.len()
            );
            // Bounded by the window: a snappy chunk a read, 4096 zstd frames a read (and the
            // unread tail of a few bytes before them).
            assert!(most <= 4096 + 64, "{name}: {most} starts kept");
            seen.push((most, peak));
        }
        let (small_most, small_peak) = seen[0];
        let (big_most, big_peak) = seen[1];
        assert!(big_most <= small_most + 64, "{name}: {seen:?}");
        assert!(big_peak <= small_peak + (64 << 10), "{name}: {seen:?}");
        // The window, the decoder and the starts: far below 16 bytes per piece of the file.
        assert!(big_peak < 1 << 20, "{name}: {seen:?}");
    }
}
