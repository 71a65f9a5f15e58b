//! The shared tables from the timeline: a [`Sink`] that turns what an adapter says into rows of
//! `tracks`, `slices`, `instants` and `counters`, exactly what `tracecap convert` writes.
//!
//! A slice becomes a row when it ends (its duration is known then): a `begin` is kept on its
//! track's stack with its name, category and arguments until the matching `end`. The stack's
//! entries are reused, so a walk allocates for the deepest nesting, not for every slice. A slice
//! still open when the walk stops (at a fault) becomes a row with a null `dur`.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{
    Float64Builder, Int32Builder, Int64Builder, StringBuilder, StringDictionaryBuilder,
};
use arrow_array::types::Int32Type;
use arrow_array::ArrayRef;
use arrow_schema::ArrowError;
use tracecap::export::write_args;
use tracecap::timeline::{Arg, CounterValue, Event, Sink, Track, TrackId, TrackKind};

use crate::columns::int;
use crate::emit::Emit;
use crate::table::Table;

/// The timeline's four tables being filled; a [`Sink`] whose error is the consumer's.
pub(crate) struct TimelineTables<'e, 'a> {
    out: &'e mut Emit<'a>,
    tracks: Tracks,
    slices: Slices,
    instants: Instants,
    counters: Counters,
    stacks: HashMap<TrackId, Stack>,
    /// The arguments of the event at hand as JSON text (reused).
    args: Vec<u8>,
    /// Whether the `args` columns are built (null when not).
    want_args: bool,
    progress: &'e mut dyn FnMut(u64),
}

impl<'e, 'a> TimelineTables<'e, 'a> {
    pub(crate) fn new(
        out: &'e mut Emit<'a>,
        want_args: bool,
        progress: &'e mut dyn FnMut(u64),
    ) -> Self {
        TimelineTables {
            out,
            tracks: Tracks::default(),
            slices: Slices::default(),
            instants: Instants::default(),
            counters: Counters::default(),
            stacks: HashMap::new(),
            args: Vec::new(),
            want_args,
            progress,
        }
    }

    /// Writes the slices still open (with a null `dur`) and hands over every row left.
    pub(crate) fn finish(mut self) -> Result<(), ArrowError> {
        let mut stacks: Vec<_> = std::mem::take(&mut self.stacks).into_iter().collect();
        stacks.sort_by_key(|(track, _)| *track);
        for (track, mut stack) in stacks {
            while let Some((open, depth)) = stack.pop() {
                self.slices.push(track, open, None, depth);
            }
        }
        let TimelineTables {
            out,
            mut tracks,
            mut slices,
            mut instants,
            mut counters,
            ..
        } = self;
        out.emit(Table::Tracks, tracks.finish())?;
        out.emit(Table::Slices, slices.finish())?;
        out.emit(Table::Instants, instants.finish())?;
        out.emit(Table::Counters, counters.finish())
    }

    /// `args` as JSON text in `self.args`; false when there are none (or they are not wanted).
    fn args_json(&mut self, args: &[Arg<'_>]) -> bool {
        self.args.clear();
        if args.is_empty() || !self.want_args {
            return false;
        }
        // ok: writing to a Vec cannot fail
        let _ = write_args(&mut self.args, args);
        true
    }

    fn full(&self, rows: usize) -> bool {
        rows >= self.out.batch_rows()
    }
}

impl Sink for TimelineTables<'_, '_> {
    type Error = ArrowError;

    fn track(&mut self, track: &Track<'_>) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Tracks) {
            return Ok(());
        }
        self.tracks.push(track);
        if self.full(self.tracks.rows) {
            self.out.emit(Table::Tracks, self.tracks.finish())?;
        }
        Ok(())
    }

    fn begin(&mut self, event: &Event<'_>) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Slices) {
            return Ok(());
        }
        let has_args = self.args_json(event.args);
        let stack = self.stacks.entry(event.track).or_default();
        stack.push(event, has_args.then_some(self.args.as_slice()));
        Ok(())
    }

    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Slices) {
            return Ok(());
        }
        let Some(stack) = self.stacks.get_mut(&track) else {
            return Ok(());
        };
        let Some((open, depth)) = stack.pop() else {
            return Ok(());
        };
        let dur = ts.saturating_sub(open.ts);
        self.slices.push(track, open, Some(dur), depth);
        if self.full(self.slices.rows) {
            self.out.emit(Table::Slices, self.slices.finish())?;
        }
        Ok(())
    }

    fn complete(&mut self, event: &Event<'_>, dur: u64) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Slices) {
            return Ok(());
        }
        let has_args = self.args_json(event.args);
        let depth = self.stacks.get(&event.track).map_or(0, |s| s.depth);
        let args = has_args.then_some(self.args.as_slice());
        self.slices
            .push_event(event, Some(dur), depth, args.and_then(utf8));
        if self.full(self.slices.rows) {
            self.out.emit(Table::Slices, self.slices.finish())?;
        }
        Ok(())
    }

    fn instant(&mut self, event: &Event<'_>) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Instants) {
            return Ok(());
        }
        let has_args = self.args_json(event.args);
        let args = has_args.then_some(self.args.as_slice()).and_then(utf8);
        self.instants.push(event, args);
        if self.full(self.instants.rows) {
            self.out.emit(Table::Instants, self.instants.finish())?;
        }
        Ok(())
    }

    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Counters) {
            return Ok(());
        }
        self.counters.push(track, ts, value);
        if self.full(self.counters.rows) {
            self.out.emit(Table::Counters, self.counters.finish())?;
        }
        Ok(())
    }

    fn progress(&mut self, done: u64, _total: u64) {
        (self.progress)(done);
    }
}

/// JSON written by [`write_args`] is UTF-8.
fn utf8(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

/// A slice waiting for its end.
#[derive(Default)]
struct Open {
    ts: u64,
    name: String,
    category: String,
    args: String,
    has_args: bool,
}

/// The open slices of one track: `entries[..depth]`; entries past `depth` are kept for their
/// buffers.
#[derive(Default)]
struct Stack {
    entries: Vec<Open>,
    depth: usize,
}

impl Stack {
    fn push(&mut self, event: &Event<'_>, args: Option<&[u8]>) {
        if self.entries.len() == self.depth {
            self.entries.push(Open::default());
        }
        if let Some(open) = self.entries.get_mut(self.depth) {
            open.ts = event.ts;
            open.name.clear();
            open.name.push_str(event.name);
            open.category.clear();
            open.category.push_str(event.category);
            open.args.clear();
            open.has_args = false;
            if let Some(text) = args.and_then(utf8) {
                open.args.push_str(text);
                open.has_args = true;
            }
        }
        self.depth += 1;
    }

    /// The innermost open slice, taken off the stack (its buffers stay for reuse), and its depth.
    fn pop(&mut self) -> Option<(&Open, usize)> {
        self.depth = self.depth.checked_sub(1)?;
        self.entries.get(self.depth).map(|open| (open, self.depth))
    }
}

#[derive(Default)]
struct Tracks {
    rows: usize,
    track: Int64Builder,
    parent: Int64Builder,
    kind: StringDictionaryBuilder<Int32Type>,
    name: StringBuilder,
    pid: Int64Builder,
    tid: Int64Builder,
}

impl Tracks {
    fn push(&mut self, t: &Track<'_>) {
        self.rows += 1;
        self.track.append_value(int(t.id.0));
        self.parent.append_option(t.parent.map(|p| int(p.0)));
        let (kind, pid, tid) = match t.kind {
            TrackKind::Process { pid } => ("process", Some(pid), None),
            TrackKind::Thread { pid, tid } => ("thread", Some(pid), Some(tid)),
            TrackKind::Counter => ("counter", None, None),
            TrackKind::Slices => ("slices", None, None),
        };
        self.kind.append_value(kind);
        self.name.append_value(t.name);
        self.pid.append_option(pid.map(int));
        self.tid.append_option(tid.map(int));
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.rows = 0;
        vec![
            Arc::new(self.track.finish()),
            Arc::new(self.parent.finish()),
            Arc::new(self.kind.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.pid.finish()),
            Arc::new(self.tid.finish()),
        ]
    }
}

#[derive(Default)]
struct Slices {
    rows: usize,
    track: Int64Builder,
    ts: Int64Builder,
    dur: Int64Builder,
    depth: Int32Builder,
    name: StringDictionaryBuilder<Int32Type>,
    category: StringDictionaryBuilder<Int32Type>,
    args: StringBuilder,
}

impl Slices {
    fn push(&mut self, track: TrackId, open: &Open, dur: Option<u64>, depth: usize) {
        self.row(
            track,
            open.ts,
            dur,
            depth,
            &open.name,
            &open.category,
            open.has_args.then_some(open.args.as_str()),
        );
    }

    fn push_event(&mut self, e: &Event<'_>, dur: Option<u64>, depth: usize, args: Option<&str>) {
        self.row(e.track, e.ts, dur, depth, e.name, e.category, args);
    }

    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        track: TrackId,
        ts: u64,
        dur: Option<u64>,
        depth: usize,
        name: &str,
        category: &str,
        args: Option<&str>,
    ) {
        self.rows += 1;
        self.track.append_value(int(track.0));
        self.ts.append_value(int(ts));
        self.dur.append_option(dur.map(int));
        self.depth
            .append_value(i32::try_from(depth).unwrap_or(i32::MAX));
        self.name.append_value(name);
        self.category.append_value(category);
        self.args.append_option(args);
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.rows = 0;
        vec![
            Arc::new(self.track.finish()),
            Arc::new(self.ts.finish()),
            Arc::new(self.dur.finish()),
            Arc::new(self.depth.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.category.finish()),
            Arc::new(self.args.finish()),
        ]
    }
}

#[derive(Default)]
struct Instants {
    rows: usize,
    track: Int64Builder,
    ts: Int64Builder,
    name: StringDictionaryBuilder<Int32Type>,
    category: StringDictionaryBuilder<Int32Type>,
    args: StringBuilder,
}

impl Instants {
    fn push(&mut self, e: &Event<'_>, args: Option<&str>) {
        self.rows += 1;
        self.track.append_value(int(e.track.0));
        self.ts.append_value(int(e.ts));
        self.name.append_value(e.name);
        self.category.append_value(e.category);
        self.args.append_option(args);
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.rows = 0;
        vec![
            Arc::new(self.track.finish()),
            Arc::new(self.ts.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.category.finish()),
            Arc::new(self.args.finish()),
        ]
    }
}

#[derive(Default)]
struct Counters {
    rows: usize,
    track: Int64Builder,
    ts: Int64Builder,
    value: Float64Builder,
}

impl Counters {
    fn push(&mut self, track: TrackId, ts: u64, value: CounterValue) {
        self.rows += 1;
        self.track.append_value(int(track.0));
        self.ts.append_value(int(ts));
        self.value.append_value(match value {
            CounterValue::Int(x) => x as f64,
            CounterValue::Double(x) => x,
        });
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        self.rows = 0;
        vec![
            Arc::new(self.track.finish()),
            Arc::new(self.ts.finish()),
            Arc::new(self.value.finish()),
        ]
    }
}
