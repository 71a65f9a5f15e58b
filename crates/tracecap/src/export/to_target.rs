//! The writer of any [`Target`], chosen at run time: one sink for a conversion whose output
//! format the user names.

use std::io::{self, Write};

use super::{ChromeJson, Perfetto, Pprof, Target};
use crate::timeline::{
    CounterValue, Event, Frame, Sink, StackId, StackSample, Track, TrackId, Wants,
};

/// The exporter of one [`Target`] writing into `W`: a [`Sink`] that hands every call to it.
///
/// ```
/// # #[cfg(feature = "easyprofiler")]
/// # fn main() -> std::io::Result<()> {
/// use tracecap::export::{Target, TargetWriter};
///
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample_small.prof"))?;
/// let format = tracecap::detect(&bytes).expect("a capture");
/// let mut sink = TargetWriter::new(Target::Perfetto, Vec::new())?;
/// tracecap::convert(format, &bytes, &mut sink).expect("converts");
/// let trace: Vec<u8> = sink.finish()?;
/// assert!(!trace.is_empty());
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "easyprofiler"))]
/// # fn main() {}
/// ```
pub enum TargetWriter<W: Write> {
    /// Chrome Trace Event JSON.
    Chrome(ChromeJson<W>),
    /// A Perfetto trace.
    Perfetto(Perfetto<W>),
    /// A pprof profile.
    Pprof(Pprof<W>),
}

impl<W: Write> TargetWriter<W> {
    /// The exporter of `target`, writing into `out` (the Chrome and Perfetto writers write
    /// their heads at once).
    pub fn new(target: Target, out: W) -> io::Result<Self> {
        Ok(match target {
            Target::Chrome => TargetWriter::Chrome(ChromeJson::new(out)?),
            Target::Perfetto => TargetWriter::Perfetto(Perfetto::new(out)?),
            Target::Pprof => TargetWriter::Pprof(Pprof::new(out)),
        })
    }

    /// Ends the file (what each exporter's `finish` writes) and returns the writer.
    pub fn finish(self) -> io::Result<W> {
        match self {
            TargetWriter::Chrome(s) => s.finish(),
            TargetWriter::Perfetto(s) => s.finish(),
            TargetWriter::Pprof(s) => s.finish(),
        }
    }
}

/// Hands a call to the exporter, whichever it is.
macro_rules! each {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            TargetWriter::Chrome($s) => $call,
            TargetWriter::Perfetto($s) => $call,
            TargetWriter::Pprof($s) => $call,
        }
    };
}

impl<W: Write> Sink for TargetWriter<W> {
    type Error = io::Error;

    fn track(&mut self, track: &Track<'_>) -> io::Result<()> {
        each!(self, s => s.track(track))
    }
    fn begin(&mut self, event: &Event<'_>) -> io::Result<()> {
        each!(self, s => s.begin(event))
    }
    fn end(&mut self, track: TrackId, ts: u64) -> io::Result<()> {
        each!(self, s => s.end(track, ts))
    }
    fn complete(&mut self, event: &Event<'_>, dur: u64) -> io::Result<()> {
        each!(self, s => s.complete(event, dur))
    }
    fn instant(&mut self, event: &Event<'_>) -> io::Result<()> {
        each!(self, s => s.instant(event))
    }
    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> io::Result<()> {
        each!(self, s => s.counter(track, ts, value))
    }
    fn progress(&mut self, done: u64, total: u64) {
        each!(self, s => s.progress(done, total))
    }
    fn wants(&self) -> Wants {
        each!(self, s => s.wants())
    }
    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> io::Result<()> {
        each!(self, s => s.stack(id, frames))
    }
    fn stack_sample(&mut self, sample: &StackSample<'_>) -> io::Result<()> {
        each!(self, s => s.stack_sample(sample))
    }
    fn wants_stacks(&self) -> bool {
        each!(self, s => s.wants_stacks())
    }
}
