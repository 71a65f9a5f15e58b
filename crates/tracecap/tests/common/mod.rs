//! Shared by the adapter tests: a sink that records and checks the contract.
#![allow(dead_code)]

#[cfg(feature = "apitrace")]
pub mod apitrace;
#[cfg(feature = "orbit")]
pub mod orbit;

use std::collections::HashMap;

use tracecap::timeline::{CounterValue, Event, Sink, Track, TrackId, TrackKind};

#[derive(Debug, Clone, PartialEq)]
pub enum Ev {
    Begin(TrackId, u64, String),
    End(TrackId, u64),
    Complete(TrackId, u64, u64, String),
    Instant(TrackId, u64, String),
    Counter(TrackId, u64, CounterValue),
}

/// Records everything and checks the sink contract as it goes.
#[derive(Default)]
pub struct Recorder {
    pub tracks: HashMap<TrackId, (TrackKind, Option<TrackId>, String)>,
    pub events: Vec<Ev>,
    pub open: HashMap<TrackId, Vec<u64>>,
    pub last: HashMap<TrackId, u64>,
    pub max_depth: usize,
}

impl Recorder {
    fn at(&mut self, track: TrackId, ts: u64) {
        assert!(
            self.tracks.contains_key(&track),
            "undeclared track {track:?}"
        );
        let last = self.last.entry(track).or_insert(0);
        assert!(ts >= *last, "time goes back on {track:?}: {ts} < {last}");
        *last = ts;
    }
}

impl Sink for Recorder {
    type Error = std::convert::Infallible;
    fn track(&mut self, t: &Track<'_>) -> Result<(), Self::Error> {
        if let Some(p) = t.parent {
            assert!(self.tracks.contains_key(&p), "parent declared after child");
        }
        assert!(self
            .tracks
            .insert(t.id, (t.kind, t.parent, t.name.to_string()))
            .is_none());
        Ok(())
    }
    fn begin(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        self.at(e.track, e.ts);
        let stack = self.open.entry(e.track).or_default();
        stack.push(e.ts);
        self.max_depth = self.max_depth.max(stack.len());
        self.events
            .push(Ev::Begin(e.track, e.ts, e.name.to_string()));
        Ok(())
    }
    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), Self::Error> {
        self.at(track, ts);
        let begin = self.open.get_mut(&track).and_then(|s| s.pop());
        assert!(
            begin.is_some_and(|b| b <= ts),
            "end without begin on {track:?}"
        );
        self.events.push(Ev::End(track, ts));
        Ok(())
    }
    fn complete(&mut self, e: &Event<'_>, dur: u64) -> Result<(), Self::Error> {
        self.at(e.track, e.ts);
        self.last.insert(e.track, e.ts + dur);
        self.events
            .push(Ev::Complete(e.track, e.ts, dur, e.name.to_string()));
        Ok(())
    }
    fn instant(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        // Instants need not be in time order (bookmarks are not); only declared.
        assert!(self.tracks.contains_key(&e.track), "undeclared track");
        self.events
            .push(Ev::Instant(e.track, e.ts, e.name.to_string()));
        Ok(())
    }
    fn counter(&mut self, track: TrackId, ts: u64, v: CounterValue) -> Result<(), Self::Error> {
        assert!(matches!(self.tracks[&track].0, TrackKind::Counter));
        self.at(track, ts);
        self.events.push(Ev::Counter(track, ts, v));
        Ok(())
    }
}
