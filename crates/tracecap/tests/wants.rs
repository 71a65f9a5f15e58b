//! What a sink reads ([`tracecap::timeline::Sink::wants`]) changes what it hears only by what
//! it does not read, on every corpus capture of every format and on the bundled sample:
//! - a sink that reads no arguments hears the same timeline as one that does: the same tracks,
//!   events, names, times, flows, counts and fault (the hand-made traces whose names come from
//!   arguments are checked in the adapters' own tests);
//! - a sink that reads one kind of event (slices, instants or counters) hears the same tracks,
//!   with the same ids, and the same calls of that kind as a sink that reads every kind.
#![cfg(feature = "std")]

mod common;

use common::{same_for_fewer_kinds, same_without_args};
use tracecap::Format;
use tracecap_testkit::corpus_paths;

fn sweep(format: Format, dir: &str, ext: &str) {
    let mut with = 0;
    let mut kinds = [0; 3];
    for path in corpus_paths(dir, &[], ext) {
        let bytes = std::fs::read(&path).unwrap();
        let what = path.display().to_string();
        let (a, b) = same_without_args(format, &bytes, &what);
        assert!(b <= a, "{what}: more arguments when none are wanted");
        with += a;
        for (total, n) in kinds
            .iter_mut()
            .zip(same_for_fewer_kinds(format, &bytes, &what))
        {
            *total += n;
        }
    }
    eprintln!("{dir}: {with} arguments when wanted; slices, instants, counters: {kinds:?}");
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
    let [slices, _, counters] = same_for_fewer_kinds(Format::EasyProfiler, &bytes, sample);
    assert!(
        slices > 0 && counters > 0,
        "the sample has slices and counters"
    );
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
