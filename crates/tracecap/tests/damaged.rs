//! Adapters on damaged input: cut and mutated corpus files never panic, always keep the sink
//! contract (checked by the recorder), close every slice, and report offsets inside the input.
#![cfg(feature = "std")]

mod common;

use common::Recorder;
use tracecap::{ConvertError, Format};
use tracecap_testkit::corpus_paths;

fn check(format: Format, bytes: &[u8], what: &str) {
    let mut rec = Recorder::default();
    let (_, result) = tracecap::adapter::convert_counted(format, bytes, &mut rec);
    if let Err(ConvertError::Format(e)) = result {
        assert!(
            e.offset() <= bytes.len() as u64,
            "{what}: offset {e} past the end"
        );
    }
    assert!(
        rec.open.values().all(|s| s.is_empty()),
        "{what}: slices left open"
    );
}

fn sweep(format: Format, dir: &str, ext: &str) {
    for path in corpus_paths(dir, &[], ext) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        if bytes.is_empty() || bytes.len() > 200_000 {
            continue; // empty: nothing to cut; big: the small files cover the same structures
        }
        let step = (bytes.len() / 600).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            check(format, &bytes[..cut], &format!("{name} cut at {cut}"));
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut copy = bytes.clone();
        for _ in 0..1500 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % bytes.len().max(1) as u64) as usize;
            let old = copy[at];
            copy[at] = (seed >> 32) as u8;
            check(format, &copy, &format!("{name} byte {at} = {}", copy[at]));
            copy[at] = old;
        }
    }
}

#[cfg(feature = "easyprofiler")]
#[test]
fn easyprofiler_damaged() {
    sweep(Format::EasyProfiler, "easyprofiler", "prof");
}

#[cfg(feature = "syscall")]
#[test]
fn syscall_damaged() {
    sweep(Format::Syscall, "syscall", "dat");
}
