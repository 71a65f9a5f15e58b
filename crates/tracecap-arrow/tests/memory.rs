//! The heap of an export is bounded by the batch size and the Parquet row groups, not by the
//! capture's size nor by the number of captures.
//!
//! The capture is a synthetic EasyProfiler capture written by the crate's writer, 24 MiB by
//! default; `TRACECAP_EXPORT_MIB=600 cargo test --release -p tracecap-arrow --test memory --
//! --nocapture` measures the 600 MiB one of docs/performance.md.

use tracecap_arrow::dataset::{export, ExportOptions, Progress, Source};
use tracecap_easyprofiler::write::CaptureModel;
use tracecap_testkit::{peak_of, serial, PeakAlloc};

#[global_allocator]
static A: PeakAlloc = PeakAlloc;

/// The bound the export keeps, whatever the capture's size.
const BOUND: usize = 128 << 20;

fn scratch(name: &str) -> tracecap_testkit::TempDir {
    tracecap_testkit::TempDir::new(&format!("arrow-mem-{name}"))
}

fn mib() -> usize {
    std::env::var("TRACECAP_EXPORT_MIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24)
}

/// Peak heap of exporting `sources` on `threads` workers into a fresh folder.
fn peak(sources: &[Source], out: &std::path::Path, threads: usize) -> usize {
    let options = ExportOptions {
        threads,
        ..ExportOptions::default()
    };
    let (report, peak) = peak_of(|| export(sources, out, &options, &Progress::default()));
    let report = report.expect("export");
    assert_eq!(report.exported, sources.len());
    assert!(report.faults.is_empty());
    peak
}

#[test]
fn the_heap_does_not_grow_with_the_capture_nor_with_the_number_of_captures() {
    let _one = serial();
    let dir = scratch("ep");
    let mib = mib();
    let capture = dir.join("big.prof");
    let bytes = CaptureModel::synthetic(mib << 20)
        .to_bytes()
        .expect("writable");
    std::fs::write(&capture, &bytes).expect("write capture");
    let len = bytes.len();
    drop(bytes);
    let one = [Source {
        id: "big.prof".into(),
        path: capture.clone(),
    }];
    let peak_one = peak(&one, &dir.join("one"), 1);
    eprintln!(
        "export of one {len}-byte capture: peak heap {} MiB",
        peak_one >> 20
    );
    assert!(peak_one < BOUND, "{peak_one} bytes");

    // Three captures one after another on one worker: the same peak, give or take a batch.
    let three: Vec<Source> = (0..3)
        .map(|i| Source {
            id: format!("big{i}.prof"),
            path: capture.clone(),
        })
        .collect();
    let peak_three = peak(&three, &dir.join("three"), 1);
    eprintln!("export of three: peak heap {} MiB", peak_three >> 20);
    assert!(
        peak_three < peak_one + peak_one / 4 + (4 << 20),
        "{peak_three} bytes for three captures, {peak_one} for one"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
