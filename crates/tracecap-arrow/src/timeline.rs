//! The shared tables from the timeline: a [`Sink`] that turns what an adapter says into rows of
//! `tracks`, `slices`, `instants` and `counters`, exactly what `tracecap convert` writes, and of
//! `stack_samples` and `stack_frames`, the call stacks (asked of the adapter only when one of
//! those two tables is built).
//!
//! A slice becomes a row when it ends (its duration is known then): a `begin` is kept on its
//! track's stack until the matching `end`, with its name and category as keys of their
//! [`Dictionary`] columns and its arguments as text. The stack's entries are reused, so a walk
//! allocates for the deepest nesting, not for every slice. A slice still open when the walk stops
//! (at a fault) becomes a row with a null `dur`.
//!
//! A column nobody reads ([`crate::Options::columns`]) is not filled: its builder is `None`, and
//! the batch gets an empty placeholder in its place, which [`Emit`] leaves out.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::PrimitiveBuilder;
use arrow_array::builder::{
    Float64Builder, Int32Builder, Int64Builder, StringBuilder, StringDictionaryBuilder,
    UInt64Builder,
};
use arrow_array::types::{ArrowPrimitiveType, Int32Type};
use arrow_array::{new_empty_array, new_null_array, ArrayRef};
use arrow_schema::{ArrowError, DataType};
use tracecap::export::write_args;
use tracecap::timeline::{
    Arg, CounterValue, Event, Frame, Sink, StackId, StackSample, Track, TrackId, TrackKind, Wants,
};

use crate::columns::{finish_numbers, finish_text, int};
use crate::dictionary::{Dictionary, Key};
use crate::emit::Emit;
use crate::table::Table;

/// A capture gets room for a row per this many of its bytes, up to a batch.
const SMALL_ROOM_BYTES: usize = 16;
/// ... and at least this many rows.
const MIN_ROOM: usize = 1024;

/// The timeline's four tables being filled; a [`Sink`] whose error is the consumer's.
pub(crate) struct TimelineTables<'e, 'a> {
    out: &'e mut Emit<'a>,
    tracks: Tracks,
    slices: Slices,
    instants: Instants,
    counters: Counters,
    stacks: Stacks,
    samples: StackSamples,
    frames: StackFrames,
    /// The arguments of the event at hand as JSON text (reused).
    args: Vec<u8>,
    /// Whether the `args` columns are built (null when not).
    want_args: bool,
    progress: &'e mut dyn FnMut(u64),
}

impl<'e, 'a> TimelineTables<'e, 'a> {
    /// Tables for the walk of a capture of `bytes` bytes.
    pub(crate) fn new(
        out: &'e mut Emit<'a>,
        want_args: bool,
        bytes: usize,
        progress: &'e mut dyn FnMut(u64),
    ) -> Self {
        // Room for a batch's rows, made up front for the wanted tables; a small capture gets
        // less (its columns grow if it has more rows than that), so that a scan of many small
        // captures does not map and fault in a full batch's columns for each.
        let room = |table| {
            if out.wants(table) {
                out.batch_rows()
                    .min((bytes / SMALL_ROOM_BYTES).max(MIN_ROOM))
            } else {
                0
            }
        };
        let slices = Slices::with_room(room(Table::Slices), |c| out.wants_column(c), want_args);
        let instants =
            Instants::with_room(room(Table::Instants), |c| out.wants_column(c), want_args);
        let counters = Counters::new(|c| out.wants_column(c));
        let samples = StackSamples::new(|c| out.wants_column(c));
        let frames = StackFrames::new(|c| out.wants_column(c));
        // Arguments are rendered only for an `args` column that is built.
        let want_args = (out.wants(Table::Slices) && slices.args.is_some())
            || (out.wants(Table::Instants) && instants.args.is_some());
        TimelineTables {
            out,
            tracks: Tracks::default(),
            slices,
            instants,
            counters,
            stacks: Stacks::default(),
            samples,
            frames,
            args: Vec::new(),
            want_args,
            progress,
        }
    }

    /// Writes the slices still open (with a null `dur`) and hands over every row left.
    pub(crate) fn finish(mut self) -> Result<(), ArrowError> {
        for (track, mut stack) in std::mem::take(&mut self.stacks).into_sorted() {
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
            mut samples,
            mut frames,
            ..
        } = self;
        out.emit(Table::Tracks, tracks.finish())?;
        out.emit_rows(Table::Slices, slices.finish()?)?;
        out.emit_rows(Table::Instants, instants.finish()?)?;
        out.emit_rows(Table::Counters, counters.finish())?;
        out.emit_rows(Table::StackFrames, frames.finish()?)?;
        out.emit_rows(Table::StackSamples, samples.finish()?)
    }

    /// `args` as JSON text in `self.args`; false when there are none (or they are not wanted),
    /// and then `self.args` is not to be read.
    #[inline]
    fn args_json(&mut self, args: &[Arg<'_>]) -> bool {
        if args.is_empty() || !self.want_args {
            return false;
        }
        self.args.clear();
        // ok: writing to a Vec cannot fail
        let _ = write_args(&mut self.args, args);
        true
    }

    fn full(&self, rows: usize) -> bool {
        rows >= self.out.batch_rows()
    }

    /// Hands over the slices so far; the open slices' keys move to the next batch's
    /// dictionaries.
    fn flush_slices(&mut self) -> Result<(), ArrowError> {
        self.out.emit_rows(Table::Slices, self.slices.finish()?)?;
        for stack in self.stacks.iter_mut() {
            for open in stack.open_mut() {
                if let Some(name) = &mut self.slices.name {
                    open.name = name.carry(open.name);
                }
                if let Some(category) = &mut self.slices.category {
                    open.category = category.carry(open.category);
                }
            }
        }
        Ok(())
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
        let name = self
            .slices
            .name
            .as_mut()
            .map_or(0, |d| d.intern_named(event.name_id, event.name));
        let category = self
            .slices
            .category
            .as_mut()
            .map_or(0, |d| d.intern(event.category));
        let stack = self.stacks.get_or_insert(event.track);
        stack.push(
            event.ts,
            (name, category),
            has_args.then_some(self.args.as_slice()),
        );
        Ok(())
    }

    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Slices) {
            return Ok(());
        }
        let Some(stack) = self.stacks.get_mut(track) else {
            return Ok(());
        };
        let Some((open, depth)) = stack.pop() else {
            return Ok(());
        };
        let dur = ts.saturating_sub(open.ts);
        self.slices.push(track, open, Some(dur), depth);
        if self.full(self.slices.rows) {
            self.flush_slices()?;
        }
        Ok(())
    }

    fn complete(&mut self, event: &Event<'_>, dur: u64) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Slices) {
            return Ok(());
        }
        let has_args = self.args_json(event.args);
        let depth = self.stacks.get(event.track).map_or(0, |s| s.depth);
        let args = has_args.then_some(self.args.as_slice());
        self.slices
            .push_event(event, Some(dur), depth, args.and_then(utf8));
        if self.full(self.slices.rows) {
            self.flush_slices()?;
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
            self.out
                .emit_rows(Table::Instants, self.instants.finish()?)?;
        }
        Ok(())
    }

    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> Result<(), ArrowError> {
        if !self.out.wants(Table::Counters) {
            return Ok(());
        }
        self.counters.push(track, ts, value);
        if self.full(self.counters.rows) {
            self.out
                .emit_rows(Table::Counters, self.counters.finish())?;
        }
        Ok(())
    }

    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Result<(), ArrowError> {
        if !self.out.wants(Table::StackFrames) {
            return Ok(());
        }
        for (depth, frame) in frames.iter().enumerate() {
            self.frames.push(id, depth, frame);
            if self.full(self.frames.rows) {
                self.out
                    .emit_rows(Table::StackFrames, self.frames.finish()?)?;
            }
        }
        Ok(())
    }

    fn stack_sample(&mut self, sample: &StackSample<'_>) -> Result<(), ArrowError> {
        if !self.out.wants(Table::StackSamples) {
            return Ok(());
        }
        self.samples.push(sample);
        if self.full(self.samples.rows) {
            self.out
                .emit_rows(Table::StackSamples, self.samples.finish()?)?;
        }
        Ok(())
    }

    /// Only for the stack tables: an adapter resolves stacks for nothing else.
    fn wants_stacks(&self) -> bool {
        self.out.wants(Table::StackSamples) || self.out.wants(Table::StackFrames)
    }

    fn progress(&mut self, done: u64, _total: u64) {
        (self.progress)(done);
    }

    /// The kinds of event of the tables wanted; every kind when `tracks` or `captures` is
    /// (the tracks of every kind are listed, and the `captures` row counts every event).
    fn wants(&self) -> Wants {
        let everything = self.out.wants(Table::Tracks) || self.out.wants(Table::Captures);
        let wants = |table| everything || self.out.wants(table);
        Wants {
            slices: wants(Table::Slices),
            instants: wants(Table::Instants),
            counters: wants(Table::Counters),
            args: self.want_args,
        }
    }
}

/// The `args` column of a batch of `rows` rows: what `builder` holds; when it is not built,
/// nulls if the column is `read`, else an empty placeholder.
fn finish_args(
    builder: &mut Option<StringBuilder>,
    read: bool,
    rows: usize,
    room: usize,
) -> ArrayRef {
    match builder {
        Some(b) => finish_text(b, room),
        None if read => new_null_array(&DataType::Utf8, rows),
        None => new_empty_array(&DataType::Utf8),
    }
}

/// JSON written by [`write_args`] is UTF-8.
fn utf8(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

/// The open slices of every track. Adapters number their tracks from 1 up, so a track's stack is
/// found by its id in a vector; ids past [`Stacks::DENSE`] (which no adapter gives) go to a map.
#[derive(Default)]
struct Stacks {
    dense: Vec<Stack>,
    sparse: HashMap<TrackId, Stack, foldhash::fast::RandomState>,
}

impl Stacks {
    /// Track ids below this are indexed.
    const DENSE: u64 = 1 << 16;

    fn get(&self, track: TrackId) -> Option<&Stack> {
        match usize::try_from(track.0) {
            Ok(i) if track.0 < Self::DENSE => self.dense.get(i),
            _ => self.sparse.get(&track),
        }
    }

    fn get_mut(&mut self, track: TrackId) -> Option<&mut Stack> {
        match usize::try_from(track.0) {
            Ok(i) if track.0 < Self::DENSE => self.dense.get_mut(i),
            _ => self.sparse.get_mut(&track),
        }
    }

    fn get_or_insert(&mut self, track: TrackId) -> &mut Stack {
        match usize::try_from(track.0) {
            Ok(i) if track.0 < Self::DENSE => {
                if self.dense.len() <= i {
                    self.dense.resize_with(i + 1, Stack::default);
                }
                match self.dense.get_mut(i) {
                    Some(stack) => stack,
                    None => self.sparse.entry(track).or_default(), // ok: resized just above
                }
            }
            _ => self.sparse.entry(track).or_default(),
        }
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Stack> {
        self.dense.iter_mut().chain(self.sparse.values_mut())
    }

    /// Every track's stack, by track id.
    fn into_sorted(self) -> Vec<(TrackId, Stack)> {
        let mut all: Vec<(TrackId, Stack)> = (0u64..)
            .zip(self.dense)
            .map(|(i, s)| (TrackId(i), s))
            .chain(self.sparse)
            .collect();
        all.sort_by_key(|(track, _)| *track);
        all
    }
}

/// A slice waiting for its end.
#[derive(Default)]
struct Open {
    ts: u64,
    /// Keys of the batch being built in `slices`' `name` and `category` columns.
    name: Key,
    category: Key,
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
    fn push(&mut self, ts: u64, (name, category): (Key, Key), args: Option<&[u8]>) {
        if self.entries.len() == self.depth {
            self.entries.push(Open::default());
        }
        if let Some(open) = self.entries.get_mut(self.depth) {
            open.ts = ts;
            open.name = name;
            open.category = category;
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

    /// The open slices.
    fn open_mut(&mut self) -> &mut [Open] {
        let depth = self.depth.min(self.entries.len());
        self.entries.get_mut(..depth).unwrap_or_default()
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

/// The builder `make` gives, for column `column` of a timeline table (its index in the schema,
/// `capture` being 0) when that column is `wanted`.
fn built<B>(wanted: &impl Fn(usize) -> bool, column: usize, make: impl FnOnce() -> B) -> Option<B> {
    wanted(column).then(make)
}

/// What a numeric builder holds as a column, or an empty placeholder for a column not built.
fn finish_built<T: ArrowPrimitiveType>(
    builder: &mut Option<PrimitiveBuilder<T>>,
    room: usize,
) -> ArrayRef {
    match builder {
        Some(b) => finish_numbers(b, room),
        None => new_empty_array(&T::DATA_TYPE),
    }
}

/// [`finish_built`] for a [`Dictionary`].
fn finish_dictionary(column: &mut Option<Dictionary>) -> Result<ArrayRef, ArrowError> {
    match column {
        Some(d) => d.finish(),
        None => Ok(new_empty_array(&DataType::Utf8)),
    }
}

/// Appends `value` to a column that is built.
#[inline]
fn append<T: ArrowPrimitiveType>(builder: &mut Option<PrimitiveBuilder<T>>, value: T::Native) {
    if let Some(b) = builder {
        b.append_value(value);
    }
}

#[derive(Default)]
struct Slices {
    rows: usize,
    /// Rows a batch holds (room made for them up front).
    room: usize,
    track: Option<Int64Builder>,
    ts: Option<Int64Builder>,
    dur: Option<Int64Builder>,
    depth: Option<Int32Builder>,
    name: Option<Dictionary>,
    category: Option<Dictionary>,
    /// The `args` column, when it is built (else it is all null).
    args: Option<StringBuilder>,
    /// Whether the `args` column is read (built, or null when arguments are not wanted).
    args_read: bool,
}

impl Slices {
    /// The columns `wanted` (by index in the schema), with room for `rows` rows; `args` only
    /// when `want_args` too.
    fn with_room(rows: usize, wanted: impl Fn(usize) -> bool, want_args: bool) -> Self {
        let numbers = || Int64Builder::with_capacity(rows);
        let text = || Dictionary::with_room(rows);
        Slices {
            room: rows,
            track: built(&wanted, 1, numbers),
            ts: built(&wanted, 2, numbers),
            dur: built(&wanted, 3, numbers),
            depth: built(&wanted, 4, || Int32Builder::with_capacity(rows)),
            name: built(&wanted, 5, text),
            category: built(&wanted, 6, text),
            args: built(&wanted, 7, || StringBuilder::with_capacity(rows, 0)).filter(|_| want_args),
            args_read: wanted(7),
            rows: 0,
        }
    }

    fn push(&mut self, track: TrackId, open: &Open, dur: Option<u64>, depth: usize) {
        self.row(track, open.ts, dur, depth);
        if let Some(name) = &mut self.name {
            name.push_key(open.name);
        }
        if let Some(category) = &mut self.category {
            category.push_key(open.category);
        }
        if let Some(args) = &mut self.args {
            args.append_option(open.has_args.then_some(open.args.as_str()));
        }
    }

    fn push_event(&mut self, e: &Event<'_>, dur: Option<u64>, depth: usize, args: Option<&str>) {
        self.row(e.track, e.ts, dur, depth);
        if let Some(name) = &mut self.name {
            name.push_named(e.name_id, e.name);
        }
        if let Some(category) = &mut self.category {
            category.push(e.category);
        }
        if let Some(column) = &mut self.args {
            column.append_option(args);
        }
    }

    /// The row's numbers (the caller adds its text).
    fn row(&mut self, track: TrackId, ts: u64, dur: Option<u64>, depth: usize) {
        self.rows += 1;
        append(&mut self.track, int(track.0));
        append(&mut self.ts, int(ts));
        if let Some(column) = &mut self.dur {
            column.append_option(dur.map(int));
        }
        append(&mut self.depth, i32::try_from(depth).unwrap_or(i32::MAX));
    }

    /// The rows so far: their number, and a column each (placeholders for those not built).
    fn finish(&mut self) -> Result<(usize, Vec<ArrayRef>), ArrowError> {
        let rows = std::mem::take(&mut self.rows);
        let columns = vec![
            finish_built(&mut self.track, self.room),
            finish_built(&mut self.ts, self.room),
            finish_built(&mut self.dur, self.room),
            finish_built(&mut self.depth, self.room),
            finish_dictionary(&mut self.name)?,
            finish_dictionary(&mut self.category)?,
            finish_args(&mut self.args, self.args_read, rows, self.room),
        ];
        Ok((rows, columns))
    }
}

#[derive(Default)]
struct Instants {
    rows: usize,
    /// Rows a batch holds (room made for them up front).
    room: usize,
    track: Option<Int64Builder>,
    ts: Option<Int64Builder>,
    name: Option<Dictionary>,
    category: Option<Dictionary>,
    /// The `args` column, when it is built (else it is all null).
    args: Option<StringBuilder>,
    /// As [`Slices::args_read`].
    args_read: bool,
}

impl Instants {
    /// As [`Slices::with_room`].
    fn with_room(rows: usize, wanted: impl Fn(usize) -> bool, want_args: bool) -> Self {
        let numbers = || Int64Builder::with_capacity(rows);
        let text = || Dictionary::with_room(rows);
        Instants {
            room: rows,
            track: built(&wanted, 1, numbers),
            ts: built(&wanted, 2, numbers),
            name: built(&wanted, 3, text),
            category: built(&wanted, 4, text),
            args: built(&wanted, 5, || StringBuilder::with_capacity(rows, 0)).filter(|_| want_args),
            args_read: wanted(5),
            rows: 0,
        }
    }

    fn push(&mut self, e: &Event<'_>, args: Option<&str>) {
        self.rows += 1;
        append(&mut self.track, int(e.track.0));
        append(&mut self.ts, int(e.ts));
        if let Some(name) = &mut self.name {
            name.push_named(e.name_id, e.name);
        }
        if let Some(category) = &mut self.category {
            category.push(e.category);
        }
        if let Some(column) = &mut self.args {
            column.append_option(args);
        }
    }

    /// The rows so far: their number, and a column each (placeholders for those not built).
    fn finish(&mut self) -> Result<(usize, Vec<ArrayRef>), ArrowError> {
        let rows = std::mem::take(&mut self.rows);
        let columns = vec![
            finish_built(&mut self.track, self.room),
            finish_built(&mut self.ts, self.room),
            finish_dictionary(&mut self.name)?,
            finish_dictionary(&mut self.category)?,
            finish_args(&mut self.args, self.args_read, rows, self.room),
        ];
        Ok((rows, columns))
    }
}

#[derive(Default)]
struct Counters {
    rows: usize,
    track: Option<Int64Builder>,
    ts: Option<Int64Builder>,
    value: Option<Float64Builder>,
}

impl Counters {
    /// The columns `wanted` (by index in the schema).
    fn new(wanted: impl Fn(usize) -> bool) -> Self {
        Counters {
            rows: 0,
            track: built(&wanted, 1, Int64Builder::new),
            ts: built(&wanted, 2, Int64Builder::new),
            value: built(&wanted, 3, Float64Builder::new),
        }
    }

    fn push(&mut self, track: TrackId, ts: u64, value: CounterValue) {
        self.rows += 1;
        append(&mut self.track, int(track.0));
        append(&mut self.ts, int(ts));
        append(
            &mut self.value,
            match value {
                CounterValue::Int(x) => x as f64,
                CounterValue::Double(x) => x,
            },
        );
    }

    /// As [`Slices::finish`].
    fn finish(&mut self) -> (usize, Vec<ArrayRef>) {
        let columns = vec![
            finish_built(&mut self.track, 0),
            finish_built(&mut self.ts, 0),
            finish_built(&mut self.value, 0),
        ];
        (std::mem::take(&mut self.rows), columns)
    }
}

/// `stack_samples`: a row per stack sample.
struct StackSamples {
    rows: usize,
    track: Option<Int64Builder>,
    ts: Option<Int64Builder>,
    stack: Option<UInt64Builder>,
    weight: Option<Int64Builder>,
    kind: Option<Dictionary>,
    call: Option<StringBuilder>,
}

impl StackSamples {
    /// The columns `wanted` (by index in the schema).
    fn new(wanted: impl Fn(usize) -> bool) -> Self {
        StackSamples {
            rows: 0,
            track: built(&wanted, 1, Int64Builder::new),
            ts: built(&wanted, 2, Int64Builder::new),
            stack: built(&wanted, 3, UInt64Builder::new),
            weight: built(&wanted, 4, Int64Builder::new),
            kind: built(&wanted, 5, Dictionary::default),
            call: built(&wanted, 6, StringBuilder::new),
        }
    }

    fn push(&mut self, s: &StackSample<'_>) {
        self.rows += 1;
        append(&mut self.track, int(s.track.0));
        append(&mut self.ts, int(s.ts));
        append(&mut self.stack, s.stack.0);
        append(&mut self.weight, int(s.weight));
        if let Some(kind) = &mut self.kind {
            kind.push(s.kind.name());
        }
        if let Some(call) = &mut self.call {
            call.append_option(s.call);
        }
    }

    /// As [`Slices::finish`].
    fn finish(&mut self) -> Result<(usize, Vec<ArrayRef>), ArrowError> {
        let columns = vec![
            finish_built(&mut self.track, 0),
            finish_built(&mut self.ts, 0),
            finish_built(&mut self.stack, 0),
            finish_built(&mut self.weight, 0),
            finish_dictionary(&mut self.kind)?,
            match &mut self.call {
                Some(b) => finish_text(b, 0),
                None => new_empty_array(&DataType::Utf8),
            },
        ];
        Ok((std::mem::take(&mut self.rows), columns))
    }
}

/// `stack_frames`: a row per frame of each declared stack, `depth` 0 for the innermost.
struct StackFrames {
    rows: usize,
    stack: Option<UInt64Builder>,
    depth: Option<Int32Builder>,
    function: Option<Dictionary>,
    module: Option<Dictionary>,
    file: Option<Dictionary>,
    line: Option<Int64Builder>,
    address: Option<UInt64Builder>,
}

impl StackFrames {
    /// The columns `wanted` (by index in the schema).
    fn new(wanted: impl Fn(usize) -> bool) -> Self {
        StackFrames {
            rows: 0,
            stack: built(&wanted, 1, UInt64Builder::new),
            depth: built(&wanted, 2, Int32Builder::new),
            function: built(&wanted, 3, Dictionary::default),
            module: built(&wanted, 4, Dictionary::default),
            file: built(&wanted, 5, Dictionary::default),
            line: built(&wanted, 6, Int64Builder::new),
            address: built(&wanted, 7, UInt64Builder::new),
        }
    }

    fn push(&mut self, stack: StackId, depth: usize, f: &Frame<'_>) {
        self.rows += 1;
        append(&mut self.stack, stack.0);
        append(&mut self.depth, i32::try_from(depth).unwrap_or(i32::MAX));
        for (column, text) in [
            (&mut self.function, f.function),
            (&mut self.module, f.module),
            (&mut self.file, f.file),
        ] {
            if let Some(column) = column {
                column.push(text);
            }
        }
        if let Some(line) = &mut self.line {
            line.append_option(f.line.map(i64::from));
        }
        if let Some(address) = &mut self.address {
            address.append_option(f.address);
        }
    }

    /// As [`Slices::finish`].
    fn finish(&mut self) -> Result<(usize, Vec<ArrayRef>), ArrowError> {
        let columns = vec![
            finish_built(&mut self.stack, 0),
            finish_built(&mut self.depth, 0),
            finish_dictionary(&mut self.function)?,
            finish_dictionary(&mut self.module)?,
            finish_dictionary(&mut self.file)?,
            finish_built(&mut self.line, 0),
            finish_built(&mut self.address, 0),
        ];
        Ok((std::mem::take(&mut self.rows), columns))
    }
}
