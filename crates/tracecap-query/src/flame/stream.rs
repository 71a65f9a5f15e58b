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

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};

use foldhash::fast::RandomState;
use tracecap::timeline::{ByNameId, CounterValue, Event, Sink, Track, TrackId, Wants};
use tracecap::{ConvertError, FormatError};
use tracecap_arrow::arrow_schema::ArrowError;
use tracecap_arrow::dataset::CaptureFile;

use super::tree::{NodeId, StackTree};
use super::{track_root, Folded};
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
}

impl StackSink {
    /// A fold with no stacks yet; with `per_track`, each track's name is the root of its stacks.
    pub fn new(per_track: bool) -> Self {
        StackSink {
            per_track,
            tree: StackTree::default(),
            tracks: HashMap::default(),
            by_id: ByNameId::default(),
            skipped_open: 0,
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
    }

    /// The number of nodes of the tree: one per distinct stack opened so far.
    pub fn nodes(&self) -> usize {
        self.tree.len()
    }

    /// Ends the walk of the capture and returns the folded stacks.
    pub fn finish(mut self) -> Folded {
        self.end_capture();
        self.tree.into_folded(self.skipped_open)
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

impl Sink for StackSink {
    type Error = Infallible;

    fn track(&mut self, track: &Track<'_>) -> Result<(), Infallible> {
        if self.per_track {
            let root = root_node(&mut self.tree, true, track.id, track.name);
            self.state(track.id).root = root;
        }
        Ok(())
    }

    fn begin(&mut self, event: &Event<'_>) -> Result<(), Infallible> {
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
            slices: true,
            ..Wants::NOTHING
        }
    }
}

/// Folds the slices of `captures` on up to `threads` threads, each taking the next capture
/// nobody has taken (the largest first). Damaged and unreadable captures are recorded in
/// `faults`, as a query records them; a file that shrank while it was read is an error.
pub(crate) fn fold_captures(
    captures: &[CaptureFile],
    per_track: bool,
    threads: usize,
    faults: &Faults,
) -> Result<Folded, Error> {
    let mut order: Vec<&CaptureFile> = captures.iter().collect();
    order.sort_by_key(|capture| std::cmp::Reverse(capture.bytes));
    let next = AtomicUsize::new(0);
    let worker = || -> Result<Folded, Error> {
        let mut sink = StackSink::new(per_track);
        while let Some(capture) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            fold_capture(capture, &mut sink, faults)?;
        }
        Ok(sink.finish())
    };
    let threads = threads.clamp(1, captures.len().max(1));
    let parts: Vec<Result<Folded, Error>> = std::thread::scope(|scope| {
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
    let mut folded = Folded::default();
    for part in parts {
        folded.merge(&part?);
    }
    Ok(folded)
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
