//! A sink that reads no arguments hears the same timeline as one that does: the same tracks,
//! events, names, times, flows, counts and fault, on every corpus capture of every format and
//! on the bundled sample. (The hand-made traces whose names come from arguments are checked in
//! the adapters' own tests.)
#![cfg(feature = "std")]

mod common;

use common::same_without_args;
use tracecap::Format;
use tracecap_testkit::corpus_paths;

fn sweep(format: Format, dir: &str, ext: &str) {
    let mut with = 0;
    for path in corpus_paths(dir, &[], ext) {
        let bytes = std::fs::read(&path).unwrap();
        let (a, b) = same_without_args(format, &bytes, &path.display().to_string());
        assert!(
            b <= a,
            "{}: more arguments when none are wanted",
            path.display()
        );
        with += a;
    }
    eprintln!("{dir}: {with} arguments when wanted");
}

#[cfg(feature = "easyprofiler")]
#[test]
fn easyprofiler() {
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/sample_small.prof"
    );
    let bytes = std::fs::read(sample).unwrap();
    let (a, _) = same_without_args(Format::EasyProfiler, &bytes, sample);
    assert!(a > 0, "the sample's blocks have arguments");
    sweep(Format::EasyProfiler, "easyprofiler", "prof");
}

#[cfg(feature = "syscall")]
#[test]
fn syscall() {
    sweep(Format::Syscall, "syscall", "dat");
}

#[cfg(feature = "apitrace")]
#[test]
fn apitrace() {
    sweep(Format::Apitrace, "apitrace", "trace");
}

#[cfg(feature = "orbit")]
#[test]
fn orbit() {
    sweep(Format::Orbit, "orbit", "orbit");
}

#[cfg(feature = "wtf")]
#[test]
fn wtf() {
    sweep(Format::Wtf, "wtf", "wtf-trace");
}
