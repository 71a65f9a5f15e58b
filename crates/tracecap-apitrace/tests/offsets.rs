//! Stream offsets map back to the file: the snappy chunk or zstd frame that holds them.

use tracecap_apitrace::write::{gzip, snappy, zstd, WDetail, WValue, Writer};
use tracecap_apitrace::{
    decompress, ByteSource, ChunkedReader, ContainerSource, Error, ErrorKind, SigTable,
    SnappyChunks, ZSTD_MAGIC,
};

/// A stream of a few KiB of calls.
fn stream() -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[]);
    w.function(300, b"glVertex3f", &[b"x", b"y", b"z"]);
    for i in 0..400u64 {
        let c = w.enter(
            0,
            300,
            &[
                WDetail::Arg(0, WValue::Float(i as f32)),
                WDetail::Arg(1, WValue::Float(0.5)),
                WDetail::Arg(2, WValue::UInt(i)),
            ],
        );
        w.leave(c, &[]);
    }
    w.finish()
}

#[test]
fn zstd_frames_are_found_by_stream_offset() {
    let s = stream();
    for seekable in [false, true] {
        let file = zstd(&s, 1000, seekable);
        let d = decompress(&file).unwrap();
        assert_eq!(d.data, s);
        assert_eq!(d.piece_name(), "frame");
        let frames = s.len().div_ceil(1000);
        assert_eq!(d.offsets.pieces().len(), frames);
        for (i, (at, off)) in d.offsets.pieces().enumerate() {
            assert_eq!(at, i as u64 * 1000);
            assert_eq!(file[off as usize..][..4], ZSTD_MAGIC);
            // Every offset of the frame maps to it.
            for probe in [at, at + 1, (at + 999).min(s.len() as u64 - 1)] {
                assert_eq!(d.chunk_offset(probe), Some(off), "stream offset {probe}");
            }
        }
    }
}

#[test]
fn snappy_chunks_are_found_by_stream_offset() {
    let s = stream();
    let file = snappy(&s, 700);
    let d = decompress(&file).unwrap();
    assert_eq!(d.piece_name(), "chunk");
    let chunks: Vec<u64> = SnappyChunks::new(&file)
        .unwrap()
        .map(|c| c.unwrap().offset)
        .collect();
    assert_eq!(chunks.len(), s.len().div_ceil(700));
    for (i, &off) in chunks.iter().enumerate() {
        let at = i as u64 * 700;
        assert_eq!(d.chunk_offset(at), Some(off));
        assert_eq!(d.chunk_offset(at + 699), Some(off));
        assert_eq!(d.file_offset(at + 10), off);
    }
}

#[test]
fn one_stream_containers_have_no_chunks() {
    let s = stream();
    let d = decompress(&gzip(&s)).unwrap();
    assert_eq!(d.piece_name(), "stream");
    assert_eq!(d.chunk_offset(100), None);
    assert_eq!(d.file_offset(100), 0);
}

/// A container's name, a file, and where its piece `i` starts.
type Tiny = (&'static str, Vec<u8>, fn(u64) -> u64);

/// `stream` in pieces of one stream byte, the smallest each container makes, and where piece
/// `i` starts in the file: snappy chunks of 7 bytes after the 2-byte magic, zstd frames of 10
/// bytes (magic, single-segment descriptor, one-byte content size, raw last block of one byte).
fn tiny_pieces(stream: &[u8]) -> [Tiny; 2] {
    let mut frames = Vec::with_capacity(stream.len() * 10);
    for &b in stream {
        frames.extend_from_slice(&ZSTD_MAGIC);
        frames.extend_from_slice(&[0x20, 0x01, 0x09, 0x00, 0x00, b]);
    }
    let chunks = snappy(stream, 1);
    assert_eq!(chunks.len(), 2 + 7 * stream.len());
    [
        ("snappy", chunks, |i| 2 + 7 * i),
        ("zstd", frames, |i| 10 * i),
    ]
}

/// A writer with `glFlush` (id 1) and calls of it up to `bytes` stream bytes.
fn flushes(bytes: usize) -> Writer {
    let mut w = Writer::new(6, 6, &[]);
    w.function(1, b"glFlush", &[]);
    while w.stream_len() < bytes {
        let no = w.enter(0, 1, &[]);
        w.leave(no, &[]);
    }
    w
}

/// The first fault a chunked reader (with window limit `limit`) meets in `file`, with its file
/// offset as the reader's source maps it, and the file bytes the source had read by then.
fn reader_fault(file: &[u8], limit: usize) -> (Error, u64, u64) {
    let src = ContainerSource::new(file).unwrap();
    let mut reader = ChunkedReader::new(src, SigTable::new()).with_window_limit(limit);
    let e = reader.try_for_each_parsed(|_| Ok(())).unwrap_err();
    let src = reader.source();
    (e, src.offsets().error_offset(&e), src.consumed())
}

/// A fault in the last piece of a file of hundreds of thousands of one-byte pieces names that
/// piece.
#[test]
fn a_fault_in_the_last_piece_names_it() {
    let mut w = flushes(300 << 10);
    let bad = w.stream_len() as u64;
    w.raw(&[0x07]); // no event starts with 0x07
    let stream = w.finish();
    assert_eq!(bad + 1, stream.len() as u64);
    for (name, file, piece_at) in tiny_pieces(&stream) {
        let (e, at, _) = reader_fault(&file, tracecap_apitrace::DEFAULT_WINDOW_LIMIT);
        assert!(
            matches!(e.kind, ErrorKind::UnknownEvent(0x07)),
            "{name}: {e}"
        );
        assert_eq!(e.offset, bad, "{name}");
        assert_eq!(at, piece_at(bad), "{name}");
        assert_eq!(decompress(&file).unwrap().error_offset(&e), at, "{name}");
    }
}

/// An event larger than the reader's window limit: the reader reads a whole window past its
/// start before it gives up, and the fault, at the event's start, still names the piece there,
/// a window limit (and, for zstd, a read) behind the front. With a fixed number of starts kept
/// (256 by default, before), that piece was forgotten and the fault came out at offset 0.
#[test]
fn a_fault_a_window_behind_the_front_names_its_piece() {
    let limit = 64 << 10;
    let mut w = flushes(100 << 10);
    let start = w.stream_len() as u64;
    let blob = (0..limit * 2).map(|i| (i * 7) as u8).collect();
    w.enter(0, 1, &[WDetail::Arg(0, WValue::Blob(blob))]);
    let stream = w.finish();
    for (name, file, piece_at) in tiny_pieces(&stream) {
        let (e, at, consumed) = reader_fault(&file, limit);
        assert!(matches!(e.kind, ErrorKind::WindowLimit(_)), "{name}: {e}");
        assert_eq!(e.offset, start, "{name}");
        // The front: every piece starting before the file bytes read.
        let front = (0..).find(|&i| piece_at(i) >= consumed).unwrap();
        assert!(front >= start + limit as u64, "{name}: front {front}");
        assert_eq!(at, piece_at(start), "{name}");
    }
}

/// Filled by hand (no reader releasing what it parsed), a source keeps the pieces holding the
/// last bytes of its window and forgets the others: one start per byte of the window, at most.
#[test]
fn a_source_keeps_the_pieces_of_its_window() {
    let stream = flushes(20 << 10).finish();
    let end = stream.len() as u64;
    for (name, file, piece_at) in tiny_pieces(&stream) {
        for window in [0u64, 1, 1000] {
            let mut src = ContainerSource::new(&file)
                .unwrap()
                .with_offset_window(window);
            let mut out = Vec::new();
            let mut most = 0;
            while src.fill(&mut out).unwrap() > 0 {
                most = most.max(src.offsets().pieces().len());
            }
            assert_eq!(out, stream, "{name}");
            let map = src.offsets();
            assert_eq!(map.window(), window);
            let kept = window.max(1);
            assert!(most as u64 <= window + 1, "{name} {window}: {most} kept");
            assert_eq!(map.pieces().len() as u64, kept, "{name} {window}");
            // The window's first byte, and the last one, name their pieces; before, nothing.
            let first = end - kept;
            assert_eq!(map.chunk_offset(first), Some(piece_at(first)), "{name}");
            assert_eq!(map.chunk_offset(end - 1), Some(piece_at(end - 1)), "{name}");
            assert_eq!(map.chunk_offset(first - 1), None, "{name} {window}");
        }
    }
}

/// A run of zstd frames that hold no byte keeps one start, whatever its length: only the last
/// frame of the run, which holds the bytes that come next.
#[test]
fn frames_without_bytes_keep_one_start() {
    let stream = flushes(4 << 10).finish();
    let (a, b) = stream.split_at(1000);
    let mut file = zstd(a, 1 << 20, false);
    for _ in 0..100_000 {
        file.extend_from_slice(&zstd(&[], 1, false));
    }
    let b_at = file.len() as u64;
    file.extend_from_slice(&zstd(b, 1 << 20, false));
    let mut src = ContainerSource::new(&file).unwrap();
    let mut out = Vec::new();
    let mut most = 0;
    while src.fill(&mut out).unwrap() > 0 {
        most = most.max(src.offsets().pieces().len());
    }
    assert_eq!(out, stream);
    assert!(most <= 2, "{most} starts kept");
    let map = src.offsets();
    assert_eq!(map.pieces().collect::<Vec<_>>(), [(0, 0), (1000, b_at)]);
    // A chunked reader, which releases what it parses, keeps no more.
    let mut reader = ChunkedReader::new(ContainerSource::new(&file).unwrap(), SigTable::new());
    reader.try_for_each_parsed(|_| Ok(())).unwrap();
    assert!(reader.source().offsets().pieces().len() <= 2);
}
