//! Counting what goes through a sink: the summary `tracecap convert` prints.

use crate::timeline::{
    CounterValue, Event, Frame, Sink, StackId, StackSample, Track, TrackId, TrackKind, Wants,
};

/// Counts of a converted timeline: of what reached the sink, so a sink that does not read a kind
/// of event ([`Sink::wants`]) sees none counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tracks of every kind.
    pub tracks: u64,
    /// Process tracks.
    pub processes: u64,
    /// Thread tracks.
    pub threads: u64,
    /// Counter tracks.
    pub counter_tracks: u64,
    /// Slices (begin/end pairs and complete slices).
    pub slices: u64,
    /// Instants.
    pub instants: u64,
    /// Counter samples.
    pub counter_samples: u64,
    /// Flow ends attached to events.
    pub flow_ends: u64,
    /// Call stacks declared.
    pub stacks: u64,
    /// Stack samples.
    pub stack_samples: u64,
    /// Earliest event time (ns), if any event.
    pub first_ts: Option<u64>,
    /// Latest event time, slice ends included (ns).
    pub last_ts: Option<u64>,
}

impl Stats {
    fn time(&mut self, ts: u64) {
        self.first_ts = Some(self.first_ts.map_or(ts, |t| t.min(ts)));
        self.last_ts = Some(self.last_ts.map_or(ts, |t| t.max(ts)));
    }

    /// Last minus first event time (0 without events).
    pub fn span_ns(&self) -> u64 {
        match (self.first_ts, self.last_ts) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        }
    }
}

/// A sink that counts into [`Stats`] and forwards everything to `inner`.
#[derive(Debug)]
pub struct Counting<S> {
    /// The sink written through.
    pub inner: S,
    /// Counts so far.
    pub stats: Stats,
}

impl<S> Counting<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> Self {
        Counting {
            inner,
            stats: Stats::default(),
        }
    }
}

impl<S: Sink> Sink for Counting<S> {
    type Error = S::Error;

    fn track(&mut self, track: &Track<'_>) -> Result<(), S::Error> {
        let s = &mut self.stats;
        s.tracks += 1;
        match track.kind {
            TrackKind::Process { .. } => s.processes += 1,
            TrackKind::Thread { .. } => s.threads += 1,
            TrackKind::Counter => s.counter_tracks += 1,
            TrackKind::Slices => {}
        }
        self.inner.track(track)
    }

    fn begin(&mut self, event: &Event<'_>) -> Result<(), S::Error> {
        self.stats.slices += 1;
        self.stats.flow_ends += event.flows.len() as u64;
        self.stats.time(event.ts);
        self.inner.begin(event)
    }

    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), S::Error> {
        self.stats.time(ts);
        self.inner.end(track, ts)
    }

    fn complete(&mut self, event: &Event<'_>, dur: u64) -> Result<(), S::Error> {
        self.stats.slices += 1;
        self.stats.flow_ends += event.flows.len() as u64;
        self.stats.time(event.ts);
        self.stats.time(event.ts.saturating_add(dur));
        self.inner.complete(event, dur)
    }

    fn instant(&mut self, event: &Event<'_>) -> Result<(), S::Error> {
        self.stats.instants += 1;
        self.stats.flow_ends += event.flows.len() as u64;
        self.stats.time(event.ts);
        self.inner.instant(event)
    }

    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> Result<(), S::Error> {
        self.stats.counter_samples += 1;
        self.stats.time(ts);
        self.inner.counter(track, ts, value)
    }

    fn progress(&mut self, done: u64, total: u64) {
        self.inner.progress(done, total)
    }

    fn wants(&self) -> Wants {
        self.inner.wants()
    }

    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Result<(), S::Error> {
        self.stats.stacks += 1;
        self.inner.stack(id, frames)
    }

    fn stack_sample(&mut self, sample: &StackSample<'_>) -> Result<(), S::Error> {
        self.stats.stack_samples += 1;
        self.stats.time(sample.ts);
        self.inner.stack_sample(sample)
    }

    fn wants_stacks(&self) -> bool {
        self.inner.wants_stacks()
    }
}
