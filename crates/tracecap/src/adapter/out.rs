//! [`Out`]: the sink as the adapters drive it. Track ids are handed out in order, and the sink's
//! errors come back as [`ConvertError::Sink`], so an adapter writes `out.end(track, ts)?`.

use crate::error::ConvertError;
use crate::timeline::{
    CounterValue, Event, Frame, Sink, StackId, StackSample, Track, TrackId, TrackKind, Wants,
};

/// What an adapter's writes return.
pub(super) type Written<S> = Result<(), ConvertError<<S as Sink>::Error>>;

/// A sink, the next track id, and what the sink reads: the calls of a kind of event it does not
/// read are not made.
pub(super) struct Out<'s, S: Sink> {
    pub(super) sink: &'s mut S,
    last_track: u64,
    wants: Wants,
    wants_stacks: bool,
}

impl<'s, S: Sink> Out<'s, S> {
    /// Writes into `sink`; the first track gets id `first_track`.
    pub(super) fn new(sink: &'s mut S, first_track: u64) -> Self {
        Out {
            wants: sink.wants(),
            wants_stacks: sink.wants_stacks(),
            sink,
            last_track: first_track.saturating_sub(1),
        }
    }

    /// What the sink reads ([`Sink::wants`], asked once): an adapter need not make what it
    /// does not.
    pub(super) fn wants(&self) -> Wants {
        self.wants
    }

    /// Whether the sink reads events' arguments: when not, an adapter need not decode or render
    /// them.
    pub(super) fn wants_args(&self) -> bool {
        self.wants.args
    }

    /// Whether the sink reads call stacks ([`Sink::wants_stacks`], asked once): when not, an
    /// adapter need not resolve them.
    pub(super) fn wants_stacks(&self) -> bool {
        self.wants_stacks
    }

    /// Declares a call stack (nothing when the sink does not read stacks).
    pub(super) fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Written<S> {
        if !self.wants_stacks {
            return Ok(());
        }
        self.sink.stack(id, frames).map_err(ConvertError::Sink)
    }

    /// A stack sample (nothing when the sink does not read stacks).
    #[inline]
    pub(super) fn stack_sample(&mut self, sample: &StackSample<'_>) -> Written<S> {
        if !self.wants_stacks {
            return Ok(());
        }
        self.sink.stack_sample(sample).map_err(ConvertError::Sink)
    }

    /// A new track id, not yet declared to the sink.
    pub(super) fn next_id(&mut self) -> TrackId {
        self.last_track = self.last_track.saturating_add(1);
        TrackId(self.last_track)
    }

    /// Declares a new track and returns its id.
    pub(super) fn track(
        &mut self,
        parent: Option<TrackId>,
        kind: TrackKind,
        name: &str,
    ) -> Result<TrackId, ConvertError<S::Error>> {
        let id = self.next_id();
        self.declare(id, parent, kind, name)?;
        Ok(id)
    }

    /// Declares the track `id` (from [`Out::next_id`]).
    pub(super) fn declare(
        &mut self,
        id: TrackId,
        parent: Option<TrackId>,
        kind: TrackKind,
        name: &str,
    ) -> Written<S> {
        let track = Track {
            id,
            parent,
            kind,
            name,
        };
        self.sink.track(&track).map_err(ConvertError::Sink)
    }

    /// Opens a slice.
    #[inline]
    pub(super) fn begin(&mut self, event: &Event<'_>) -> Written<S> {
        if !self.wants.slices {
            return Ok(());
        }
        self.sink.begin(event).map_err(ConvertError::Sink)
    }

    /// Closes the innermost open slice of `track`.
    #[inline]
    pub(super) fn end(&mut self, track: TrackId, ts: u64) -> Written<S> {
        if !self.wants.slices {
            return Ok(());
        }
        self.sink.end(track, ts).map_err(ConvertError::Sink)
    }

    /// A slice whose duration is known.
    #[inline]
    pub(super) fn complete(&mut self, event: &Event<'_>, dur: u64) -> Written<S> {
        if !self.wants.slices {
            return Ok(());
        }
        self.sink.complete(event, dur).map_err(ConvertError::Sink)
    }

    /// An instant.
    #[inline]
    pub(super) fn instant(&mut self, event: &Event<'_>) -> Written<S> {
        if !self.wants.instants {
            return Ok(());
        }
        self.sink.instant(event).map_err(ConvertError::Sink)
    }

    /// A counter sample.
    #[inline]
    pub(super) fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> Written<S> {
        if !self.wants.counters {
            return Ok(());
        }
        self.sink
            .counter(track, ts, value)
            .map_err(ConvertError::Sink)
    }

    /// Reports progress.
    #[inline]
    pub(super) fn progress(&mut self, done: u64, total: u64) {
        self.sink.progress(done, total);
    }
}
