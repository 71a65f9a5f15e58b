//! Numbered names ([`tracecap::timeline::NameId`]): within one conversion, a number always comes
//! with the same name, on every corpus capture of every format (the tables and the Perfetto
//! writer find what they made of a name by its number alone, so a number given with two names
//! would put the wrong name on rows). And the formats whose names come from a fixed set number
//! them: each format numbers most of its slices on the corpus.
#![cfg(feature = "std")]

mod common;

use common::Recorder;
use tracecap::Format;
use tracecap_testkit::corpus_paths;

/// Every corpus capture of `dir`: no number with two names; the numbered share of all events.
fn sweep(format: Format, dir: &str, ext: &str) -> f64 {
    let (mut numbered, mut all) = (0u64, 0u64);
    for path in corpus_paths(dir, &[], ext) {
        let bytes = std::fs::read(&path).unwrap();
        // The recorder fails when a number comes with a second name; a damaged capture's events
        // before its fault count as well.
        let mut names = Recorder::default();
        let converted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = tracecap::convert(format, &bytes, &mut names);
        }));
        assert!(converted.is_ok(), "{}", path.display());
        numbered += names.numbered;
        all += names.numbered + names.unnumbered;
    }
    let share = if all == 0 {
        1.0
    } else {
        numbered as f64 / all as f64
    };
    eprintln!("{dir}: {numbered} of {all} events named by number");
    share
}

#[cfg(feature = "easyprofiler")]
#[test]
fn easyprofiler() {
    assert!(sweep(Format::EasyProfiler, "easyprofiler", "prof") > 0.5);
}

#[cfg(feature = "syscall")]
#[test]
fn syscall() {
    assert!(sweep(Format::Syscall, "syscall", "dat") > 0.5);
}

#[cfg(feature = "apitrace")]
#[test]
fn apitrace() {
    assert!(sweep(Format::Apitrace, "apitrace", "trace") > 0.5);
}

#[cfg(feature = "orbit")]
#[test]
fn orbit() {
    // Orbit names most slices at run time (scheduling slices by thread, API scopes by their
    // text); function calls are numbered. No share is required of it.
    sweep(Format::Orbit, "orbit", "orbit");
}

#[cfg(feature = "wtf")]
#[test]
fn wtf() {
    assert!(sweep(Format::Wtf, "wtf", "wtf-trace") > 0.5);
}
