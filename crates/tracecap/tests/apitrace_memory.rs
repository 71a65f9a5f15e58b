//! apitrace conversion in memory bounded by the reader's window, not by the file: a trace made
//! of the smallest snappy chunks or zstd frames (one stream byte each, 7 or 10 file bytes) takes
//! no more heap to convert at three times the size. The adapter used to keep the start of every
//! piece (16 bytes each, 32 with the growth of their buffer: more heap than the file itself).
#![cfg(feature = "apitrace")]

use tracecap::timeline::Discard;
use tracecap::Format;
use tracecap_apitrace::write::{snappy, Writer};
use tracecap_apitrace::ZSTD_MAGIC;
use tracecap_testkit::{peak_of, PeakAlloc};

#[global_allocator]
static PEAK: PeakAlloc = PeakAlloc;

/// A stream of at least `bytes` bytes of calls without arguments.
fn flushes(bytes: usize) -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[]);
    w.function(1, b"glFlush", &[]);
    while w.stream_len() < bytes {
        let no = w.enter(0, 1, &[]);
        w.leave(no, &[]);
    }
    w.finish()
}

/// zstd frames of one stream byte, 10 bytes each (magic, single-segment descriptor, one-byte
/// content size, raw last block of one byte).
fn tiny_zstd(stream: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(stream.len() * 10);
    for &b in stream {
        out.extend_from_slice(&ZSTD_MAGIC);
        out.extend_from_slice(&[0x20, 0x01, 0x09, 0x00, 0x00, b]);
    }
    out
}

#[test]
fn tiny_pieces_take_no_more_heap_in_a_larger_file() {
    let _serial = tracecap_testkit::serial();
    let small = flushes(300 << 10);
    let big = flushes(900 << 10);
    type Make = fn(&[u8]) -> Vec<u8>;
    let containers: [(&str, Make); 2] = [("snappy", |s| snappy(s, 1)), ("zstd", tiny_zstd)];
    for (name, make) in containers {
        let mut peaks = Vec::new();
        for stream in [&small, &big] {
            let file = make(stream);
            let (stats, peak) = peak_of(|| tracecap::convert(Format::Apitrace, &file, Discard));
            let stats = stats.unwrap();
            assert!(stats.slices > 30_000, "{name}: {stats:?}");
            eprintln!(
                "{name}: {} file bytes ({} pieces): peak heap {peak} bytes",
                file.len(),
                stream.len()
            );
            peaks.push(peak);
        }
        assert!(peaks[1] <= peaks[0] + (64 << 10), "{name}: peaks {peaks:?}");
        assert!(peaks[1] < 1 << 20, "{name}: peaks {peaks:?}");
    }
}
