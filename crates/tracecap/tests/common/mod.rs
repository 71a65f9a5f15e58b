//! Shared by the adapter tests: a sink that records and checks the contract.
#![allow(dead_code)]

#[cfg(feature = "apitrace")]
pub mod apitrace;
#[cfg(feature = "orbit")]
pub mod orbit;
#[cfg(all(feature = "std", feature = "orbit"))]
pub mod samples;

use std::collections::HashMap;

use tracecap::timeline::{
    CounterValue, Event, NameId, Sink, StackSample, Track, TrackId, TrackKind, Wants,
};

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
    /// The name each numbered name came with first.
    pub named: HashMap<NameId, String>,
    /// Slices and instants that came with a numbered name, and without one.
    pub numbered: u64,
    pub unnumbered: u64,
}

impl Recorder {
    /// Checks that a numbered name always comes with the same text.
    fn name(&mut self, e: &Event<'_>) {
        if let Some(id) = e.name_id {
            let first = self.named.entry(id).or_insert_with(|| e.name.to_string());
            assert_eq!(first, e.name, "{id:?} named two ways");
            self.numbered += 1;
        } else {
            self.unnumbered += 1;
        }
    }

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
        self.name(e);
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
        self.name(e);
        self.last.insert(e.track, e.ts + dur);
        self.events
            .push(Ev::Complete(e.track, e.ts, dur, e.name.to_string()));
        Ok(())
    }
    fn instant(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        // Instants need not be in time order (bookmarks are not); only declared.
        assert!(self.tracks.contains_key(&e.track), "undeclared track");
        self.name(e);
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

/// Writes down every call of a walk as a line, arguments apart, for comparing a walk for a sink
/// that reads arguments with one for a sink that does not.
pub struct Log {
    /// Whether [`Sink::wants`] asks for arguments.
    pub args: bool,
    /// The kinds of event [`Sink::wants`] asks for (its `args` aside).
    pub kinds: Wants,
    /// One line per call: what it is, its track, times, name, category and flows.
    pub lines: Vec<String>,
    /// One line per argument received, with the index of its call's line.
    pub arg_lines: Vec<String>,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            args: false,
            kinds: Wants::ALL,
            lines: Vec::new(),
            arg_lines: Vec::new(),
        }
    }
}

impl Log {
    fn event(&mut self, what: &str, e: &Event<'_>, dur: Option<u64>) {
        let line = format!(
            "{what} {:?} {} {dur:?} {:?} {:?} {:?}",
            e.track, e.ts, e.name, e.category, e.flows
        );
        for a in e.args {
            let at = self.lines.len();
            self.arg_lines
                .push(format!("{at} {}={:?}", a.name, a.value));
        }
        self.lines.push(line);
    }
}

impl Sink for Log {
    type Error = std::convert::Infallible;
    fn track(&mut self, t: &Track<'_>) -> Result<(), Self::Error> {
        self.lines.push(format!("{t:?}"));
        Ok(())
    }
    fn begin(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        self.event("begin", e, None);
        Ok(())
    }
    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), Self::Error> {
        self.lines.push(format!("end {track:?} {ts}"));
        Ok(())
    }
    fn complete(&mut self, e: &Event<'_>, dur: u64) -> Result<(), Self::Error> {
        self.event("complete", e, Some(dur));
        Ok(())
    }
    fn instant(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        self.event("instant", e, None);
        Ok(())
    }
    fn counter(&mut self, track: TrackId, ts: u64, v: CounterValue) -> Result<(), Self::Error> {
        self.lines.push(format!("counter {track:?} {ts} {v:?}"));
        Ok(())
    }
    fn wants(&self) -> Wants {
        Wants {
            args: self.args,
            ..self.kinds
        }
    }
}

/// Walks `bytes` as `format` for a sink that reads arguments and for one that does not, and
/// checks that both hear the same tracks, events, counts and fault. Returns how many arguments
/// each heard.
pub fn same_without_args(format: tracecap::Format, bytes: &[u8], what: &str) -> (usize, usize) {
    let walk = |args| {
        let mut log = Log {
            args,
            ..Log::default()
        };
        let (stats, result) = tracecap::adapter::convert_counted(format, bytes, &mut log);
        (log, format!("{stats:?} {result:?}"))
    };
    let (with, with_end) = walk(true);
    let (without, without_end) = walk(false);
    assert_eq!(with_end, without_end, "{what}: counts or fault differ");
    assert_eq!(
        with.lines.len(),
        without.lines.len(),
        "{what}: calls differ"
    );
    for (i, (a, b)) in with.lines.iter().zip(&without.lines).enumerate() {
        assert_eq!(a, b, "{what}: call {i} differs");
    }
    (with.arg_lines.len(), without.arg_lines.len())
}

/// Walks `bytes` as `format` for a sink that reads every kind of event and for sinks that each
/// read one kind (slices, instants, counters), and checks that each of those hears the same
/// tracks, the calls of its kind as the first heard them, and the same fault. Returns the
/// number of calls of each kind.
pub fn same_for_fewer_kinds(format: tracecap::Format, bytes: &[u8], what: &str) -> [usize; 3] {
    let walk = |kinds| {
        let mut log = Log {
            args: true,
            kinds,
            ..Log::default()
        };
        let (_, result) = tracecap::adapter::convert_counted(format, bytes, &mut log);
        (log.lines, format!("{result:?}"))
    };
    let (all, all_end) = walk(Wants::ALL);
    let kinds: [(Wants, &[&str]); 3] = [
        (
            Wants {
                slices: true,
                ..Wants::NOTHING
            },
            &["begin ", "end ", "complete "],
        ),
        (
            Wants {
                instants: true,
                ..Wants::NOTHING
            },
            &["instant "],
        ),
        (
            Wants {
                counters: true,
                ..Wants::NOTHING
            },
            &["counter "],
        ),
    ];
    let mut counts = [0; 3];
    for ((kinds, calls), count) in kinds.into_iter().zip(&mut counts) {
        let (some, some_end) = walk(kinds);
        assert_eq!(all_end, some_end, "{what}: {kinds:?}: the fault differs");
        let of_kind = |line: &&String| calls.iter().any(|c| line.starts_with(c));
        let expected: Vec<&String> = all
            .iter()
            .filter(|l| l.starts_with("Track") || of_kind(l))
            .collect();
        let heard: Vec<&String> = some.iter().collect();
        assert_eq!(
            expected.len(),
            heard.len(),
            "{what}: {kinds:?}: calls differ"
        );
        for (i, (a, b)) in expected.iter().zip(&heard).enumerate() {
            assert_eq!(a, b, "{what}: {kinds:?}: call {i} differs");
        }
        *count = some.iter().filter(of_kind).count();
    }
    counts
}

/// A sink that reads stacks and keeps nothing but the weight of its stack samples (for the
/// no-allocation tests of stacks).
pub struct CountStacks(pub u64);

impl Sink for CountStacks {
    type Error = std::convert::Infallible;
    fn track(&mut self, _: &Track<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn begin(&mut self, _: &Event<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn end(&mut self, _: TrackId, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn complete(&mut self, _: &Event<'_>, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn instant(&mut self, _: &Event<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn counter(&mut self, _: TrackId, _: u64, _: CounterValue) -> Result<(), Self::Error> {
        Ok(())
    }
    fn stack_sample(&mut self, s: &StackSample<'_>) -> Result<(), Self::Error> {
        self.0 += s.weight;
        Ok(())
    }
    fn wants_stacks(&self) -> bool {
        true
    }
}
