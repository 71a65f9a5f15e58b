//! Numbered names ([`tracecap::timeline::NameId`]): within one conversion, a number always comes
//! with the same name, on every corpus capture of every format (the tables and the Perfetto
//! writer find what they made of a name by its number alone, so a number given with two names
//! would put the wrong name on rows). And the formats whose names come from a fixed set number
//! them: each format numbers most of its slices on the corpus.
#![cfg(feature = "std")]

use std::collections::HashMap;

use tracecap::timeline::{CounterValue, Event, NameId, Sink, Track, TrackId};
use tracecap::Format;
use tracecap_testkit::corpus_paths;

/// The name each number came with, and how many slices and instants came numbered or not.
#[derive(Default)]
struct Names {
    by_id: HashMap<NameId, String>,
    numbered: u64,
    unnumbered: u64,
    mismatch: Option<(NameId, String, String)>,
}

impl Names {
    fn see(&mut self, event: &Event<'_>) {
        let Some(id) = event.name_id else {
            self.unnumbered += 1;
            return;
        };
        self.numbered += 1;
        let known = self
            .by_id
            .entry(id)
            .or_insert_with(|| event.name.to_string());
        if known != event.name && self.mismatch.is_none() {
            self.mismatch = Some((id, known.clone(), event.name.to_string()));
        }
    }
}

impl Sink for Names {
    type Error = std::convert::Infallible;
    fn track(&mut self, _: &Track<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn begin(&mut self, event: &Event<'_>) -> Result<(), Self::Error> {
        self.see(event);
        Ok(())
    }
    fn end(&mut self, _: TrackId, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn complete(&mut self, event: &Event<'_>, _: u64) -> Result<(), Self::Error> {
        self.see(event);
        Ok(())
    }
    fn instant(&mut self, event: &Event<'_>) -> Result<(), Self::Error> {
        self.see(event);
        Ok(())
    }
    fn counter(&mut self, _: TrackId, _: u64, _: CounterValue) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Every corpus capture of `dir`: no number with two names; the numbered share of all events.
fn sweep(format: Format, dir: &str, ext: &str) -> f64 {
    let (mut numbered, mut all) = (0u64, 0u64);
    for path in corpus_paths(dir, &[], ext) {
        let bytes = std::fs::read(&path).unwrap();
        let mut names = Names::default();
        // A damaged capture's events before its fault count as well.
        let _ = tracecap::convert(format, &bytes, &mut names);
        if let Some((id, a, b)) = names.mismatch {
            panic!("{}: {id:?} came as {a:?} and as {b:?}", path.display());
        }
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
