//! Flame graphs folded straight from the adapters' timelines, without the `slices` table.
//!
//! [`StackSink`] is a [`Sink`] that keeps, per track, the stack of open frames (as deep as the
//! track's nesting) and adds each closed frame's self time to its node of a `StackTree`: the
//! memory of a fold is the deepest stack plus one node per distinct stack, however many slices the
//! captures hold. `fold_captures` walks capture files on threads of their own, each with its own
//! tree, and adds the results up; the stacks do not depend on the number of threads.
//!
//! The folding rules are those of [`super::Folder`] on the rows of [`super::fold_sql`]: a frame's
//! self time is its duration minus its direct children's durations (at least 0); with
//! `per_track`, a track's cleaned name (or `track <id>`) is the root of its stacks; slices never
//! closed give no weight and are counted, their closed descendants keep them in their stacks.
//!
//! Only calls are folded ([`StacksFrom::Calls`]): slices of thread tracks, and of slice tracks
//! under a thread but its thread states; scheduling slices, other tracks' slices and counters
//! never. Sampled call stacks ([`StacksFrom::Samples`]) go to a tree of their own, each sample
//! adding its weight to its stack (root first); with [`StacksFrom::Auto`] both are folded and the
//! samples are kept when there are any.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};

use foldhash::fast::RandomState;
use tracecap::open::CaptureFile;
use tracecap::timeline::{
    ByNameId, CounterValue, Event, Frame as StackFrame, Sink, StackId, StackKind, StackSample,
    Track, TrackId, TrackKind, Wants, THREAD_STATES_SUFFIX,
};
use tracecap::{ConvertError, FormatError};
use tracecap_arrow::arrow_schema::ArrowError;

use super::tree::{NodeId, StackTree};
use super::{track_root, Folded, StacksFrom};
use crate::error::Error;
use crate::faults::Faults;
use crate::walk::{walk_capture, Stop, WalkError};

/// An open frame.
#[derive(Debug)]
struct Frame {
    node: NodeId,
    /// When it began, in nanoseconds.
    ts: u64,
    /// The sum of the durations of its direct children closed so far.
    children: u64,
}

/// What a fold knows of one track.
#[derive(Debug)]
struct TrackState {
    /// The root of its stacks: the track's name with `per_track`, else the tree's root.
    root: NodeId,
    frames: Vec<Frame>,
}

/// Folds the timelines of captures into a `StackTree` (see the [module documentation](self)).
#[derive(Debug)]
pub struct StackSink {
    per_track: bool,
    tree: StackTree,
    /// The tracks of the capture being walked.
    tracks: HashMap<TrackId, TrackState, RandomState>,
    /// The name numbers of the capture being walked, by the adapter's [`tracecap::timeline::NameId`].
    by_id: ByNameId<u32>,
    skipped_open: u64,
    /// What is folded.
    from: StacksFrom,
    /// The thread tracks of the capture being walked.
    threads: HashSet<TrackId, RandomState>,
    /// The tracks of the capture being walked whose slices are calls.
    calls: HashSet<TrackId, RandomState>,
    /// The sampled stacks, in a tree of their own.
    samples: StackTree,
    /// The names of the tracks of the capture being walked (with `per_track`, the roots of
    /// their samples).
    track_names: HashMap<TrackId, String, RandomState>,
    /// The frames of each stack of the capture being walked: numbers of `samples`' names, root
    /// first.
    stacks: HashMap<StackId, Vec<u32>, RandomState>,
    /// The node of each (track, stack) sampled in the capture being walked.
    sampled: HashMap<(TrackId, StackId), NodeId, RandomState>,
}

impl StackSink {
    /// A fold of calls with no stacks yet; with `per_track`, each track's name is the root of
    /// its stacks.
    pub fn new(per_track: bool) -> Self {
        StackSink::of(per_track, StacksFrom::Calls)
    }

    /// A fold of what `from` says, with no stacks yet.
    pub fn of(per_track: bool, from: StacksFrom) -> Self {
        StackSink {
            per_track,
            tree: StackTree::default(),
            tracks: HashMap::default(),
            by_id: ByNameId::default(),
            skipped_open: 0,
            from,
            threads: HashSet::default(),
            calls: HashSet::default(),
            samples: StackTree::default(),
            track_names: HashMap::default(),
            stacks: HashMap::default(),
            sampled: HashMap::default(),
        }
    }

    /// Ends the walk of a capture: its slices still open are counted and left out. The next
    /// walk starts with no track.
    pub fn end_capture(&mut self) {
        for state in self.tracks.values() {
            self.skipped_open = self.skipped_open.saturating_add(state.frames.len() as u64);
        }
        self.tracks.clear();
        self.by_id.clear();
        self.threads.clear();
        self.calls.clear();
        self.track_names.clear();
        self.stacks.clear();
        self.sampled.clear();
    }

    /// The number of nodes of the tree: one per distinct stack opened so far.
    pub fn nodes(&self) -> usize {
        self.tree.len()
    }

    /// Ends the walk of the capture and returns the folded stacks (see [`StacksFrom`]).
    pub fn finish(self) -> Folded {
        let from = self.from;
        let (calls, samples) = self.finish_both();
        choose(from, calls, samples)
    }

    /// Ends the walk of the capture and returns the folded calls and the folded samples.
    pub(crate) fn finish_both(mut self) -> (Folded, Folded) {
        self.end_capture();
        let samples = self.samples.into_folded(0).counting_samples(true);
        (self.tree.into_folded(self.skipped_open), samples)
    }

    fn wants_calls(&self) -> bool {
        self.from != StacksFrom::Samples
    }

    /// The state of `track`, made on its first use.
    fn state(&mut self, track: TrackId) -> &mut TrackState {
        let StackSink {
            per_track,
            tree,
            tracks,
            ..
        } = self;
        tracks.entry(track).or_insert_with(|| TrackState {
            root: root_node(tree, *per_track, track, ""),
            frames: Vec::new(),
        })
    }

    /// The node of a new frame named like `event` on top of its track's open frames.
    fn open(&mut self, event: &Event<'_>) -> NodeId {
        let name = match self.by_id.get(event.name_id) {
            Some(number) => number,
            None => {
                let number = self.tree.names.number(event.name);
                self.by_id.insert(event.name_id, number);
                number
            }
        };
        let state = self.state(event.track);
        let parent = state.frames.last().map_or(state.root, |frame| frame.node);
        self.tree.child(parent, name)
    }

    /// Closes a frame of `dur` nanoseconds at `node` whose direct children took `children`.
    fn close(&mut self, track: TrackId, node: NodeId, dur: u64, children: u64) {
        let self_time = dur.saturating_sub(children);
        if self_time > 0 {
            self.tree.add(node, self_time);
        }
        if let Some(parent) = self
            .tracks
            .get_mut(&track)
            .and_then(|state| state.frames.last_mut())
        {
            parent.children = parent.children.saturating_add(dur);
        }
    }
}

/// The root node of `track`'s stacks, named `name`: the tree's root without `per_track`.
fn root_node(tree: &mut StackTree, per_track: bool, track: TrackId, name: &str) -> NodeId {
    if !per_track {
        return StackTree::ROOT;
    }
    let id = i64::try_from(track.0).unwrap_or(i64::MAX);
    let name = tree
        .names
        .number_of_clean(&track_root(Some(name), Some(id)));
    tree.child(StackTree::ROOT, name)
}

/// The fold `from` asks for, of the folded `calls` and `samples`.
pub(crate) fn choose(from: StacksFrom, calls: Folded, samples: Folded) -> Folded {
    match from {
        StacksFrom::Calls => calls,
        StacksFrom::Samples => samples,
        StacksFrom::Auto if samples.is_empty() => calls,
        StacksFrom::Auto => samples,
    }
}

impl Sink for StackSink {
    type Error = Infallible;

    fn track(&mut self, track: &Track<'_>) -> Result<(), Infallible> {
        let under_thread = track.parent.is_some_and(|p| self.threads.contains(&p));
        match track.kind {
            TrackKind::Thread { .. } => {
                self.threads.insert(track.id);
                self.calls.insert(track.id);
            }
            TrackKind::Slices if under_thread && !track.name.ends_with(THREAD_STATES_SUFFIX) => {
                self.calls.insert(track.id);
            }
            _ => {}
        }
        if self.per_track && self.from != StacksFrom::Calls {
            self.track_names.insert(track.id, track.name.to_owned());
        }
        if !self.wants_calls() || !self.calls.contains(&track.id) {
            return Ok(());
        }
        if self.per_track {
            let root = root_node(&mut self.tree, true, track.id, track.name);
            self.state(track.id).root = root;
        }
        Ok(())
    }

    fn begin(&mut self, event: &Event<'_>) -> Result<(), Infallible> {
        if !self.wants_calls() || !self.calls.contains(&event.track) {
            return Ok(());
        }
        let node = self.open(event);
        self.state(event.track).frames.push(Frame {
            node,
            ts: event.ts,
            children: 0,
        });
        Ok(())
    }

    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), Infallible> {
        let Some(frame) = self
            .tracks
            .get_mut(&track)
            .and_then(|state| state.frames.pop())
        else {
            return Ok(());
        };
        let dur = ts.saturating_sub(frame.ts);
        self.close(track, frame.node, dur, frame.children);
        Ok(())
    }

    fn complete(&mut self, event: &Event<'_>, dur: u64) -> Result<(), Infallible> {
        if !self.wants_calls() || !self.calls.contains(&event.track) {
            return Ok(());
        }
        let node = self.open(event);
        self.close(event.track, node, dur, 0);
        Ok(())
    }

    fn instant(&mut self, _: &Event<'_>) -> Result<(), Infallible> {
        Ok(())
    }

    fn counter(&mut self, _: TrackId, _: u64, _: CounterValue) -> Result<(), Infallible> {
        Ok(())
    }

    fn wants(&self) -> Wants {
        Wants {
            slices: self.wants_calls(),
            ..Wants::NOTHING
        }
    }

    fn stack(&mut self, id: StackId, frames: &[StackFrame<'_>]) -> Result<(), Infallible> {
        let names = frames
            .iter()
            .rev()
            .map(|f| self.samples.names.number(f.function))
            .collect();
        self.stacks.insert(id, names);
        Ok(())
    }

    /// A sampled stack adds its weight to its node; a call's backtrace is no sample.
    fn stack_sample(&mut self, sample: &StackSample<'_>) -> Result<(), Infallible> {
        if sample.kind != StackKind::Sample {
            return Ok(());
        }
        let key = (sample.track, sample.stack);
        let node = match self.sampled.get(&key) {
            Some(&node) => node,
            None => {
                let Some(names) = self.stacks.get(&sample.stack) else {
                    return Ok(());
                };
                let mut node = StackTree::ROOT;
                if self.per_track {
                    let name = self
                        .track_names
                        .get(&sample.track)
                        .map_or("", String::as_str);
                    node = root_node(&mut self.samples, true, sample.track, name);
                }
                for &name in names {
                    node = self.samples.child(node, name);
                }
                self.sampled.insert(key, node);
                node
            }
        };
        self.samples.add(node, sample.weight);
        Ok(())
    }

    fn wants_stacks(&self) -> bool {
        self.from != StacksFrom::Calls
    }
}

/// Folds the slices of `captures` on up to `threads` threads, each taking the next capture
/// nobody has taken (the largest first). Damaged and unreadable captures are recorded in
/// `faults`, as a query records them; a file that shrank while it was read is an error.
pub(crate) fn fold_captures(
    captures: &[CaptureFile],
    (per_track, from): (bool, StacksFrom),
    threads: usize,
    faults: &Faults,
) -> Result<(Folded, Folded), Error> {
    let mut order: Vec<&CaptureFile> = captures.iter().collect();
    order.sort_by_key(|capture| std::cmp::Reverse(capture.bytes));
    let next = AtomicUsize::new(0);
    let worker = || -> Result<(Folded, Folded), Error> {
        let mut sink = StackSink::of(per_track, from);
        while let Some(capture) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            fold_capture(capture, &mut sink, faults)?;
        }
        Ok(sink.finish_both())
    };
    let threads = threads.clamp(1, captures.len().max(1));
    let parts: Vec<Result<(Folded, Folded), Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let (mut calls, mut samples) = (Folded::default(), Folded::default());
    for part in parts {
        let (c, s) = part?;
        calls.merge(&c);
        samples.merge(&s);
    }
    Ok((calls, samples))
}

/// Folds the slices of one capture file into `sink`.
fn fold_capture(capture: &CaptureFile, sink: &mut StackSink, faults: &Faults) -> Result<(), Error> {
    let walked = walk_capture(capture, faults, |input| {
        if input.is_empty() {
            return Err(WalkError::NotACapture);
        }
        let (_, converted) = tracecap::adapter::convert_counted(capture.format, input, &mut *sink);
        sink.end_capture();
        fault_of(converted)
    });
    match walked {
        Ok(()) => Ok(()),
        Err(Stop::Shrunk(why)) => Err(Error::Io(std::io::Error::other(why))),
        Err(Stop::Failed(e)) => Err(e),
    }
}

/// The fault of a walk, or why it could not run.
fn fault_of(
    converted: Result<(), ConvertError<Infallible>>,
) -> Result<Option<FormatError>, WalkError<Error>> {
    match converted {
        Ok(()) => Ok(None),
        Err(ConvertError::Format(fault)) => Ok(Some(fault)),
        Err(ConvertError::Sink(never)) => match never {},
        Err(ConvertError::Unsupported(format)) => Err(WalkError::Failed(Error::Inputs(
            tracecap_arrow::Error::Arrow(ArrowError::NotYetImplemented(format!(
                "{format} captures"
            ))),
        ))),
    }
}
