//! Stream offsets map back to the file: the snappy chunk or zstd frame that holds them.

use tracecap_apitrace::write::{gzip, snappy, zstd, WDetail, WValue, Writer};
use tracecap_apitrace::{decompress, SnappyChunks, ZSTD_MAGIC};

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
