//! Checking one capture on several threads at once, as `tracecap validate` does.
//!
//! [`Summary::check`] reads a capture in one pass. A capture can also be checked in pieces, one
//! per run of consecutive threads: [`thread_marks`] finds where runs can start (one pass over the
//! threads' framing, without decoding records), [`events_from`] starts a walk at a run's first
//! thread and [`stop_after`] ends it after the run's last (the last run goes on to the end of the
//! file, trailer included), and [`check_events`] checks a piece. Merged in file order with
//! [`merge`] after [`check_descriptors`], the pieces give exactly what [`Summary::check`] gives,
//! and the first piece to fail gives the same error.
//!
//! Validating a capture on two threads:
//!
//! ```
//! use tracecap_easyprofiler::{parallel, Capture, KindTable, Summary};
//!
//! # fn main() -> Result<(), tracecap_easyprofiler::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
//! # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
//! let capture = Capture::parse(&bytes)?;
//! let kinds = KindTable::new(&capture)?;
//! let marks = parallel::thread_marks(&capture, 2, |_| true).expect("sound thread framing"); // ok: the bundled sample's framing is sound
//! // The first `marks.stride` threads here, the rest on a second thread.
//! let mut front = capture.events_with(&kinds);
//! parallel::stop_after(&mut front, marks.stride);
//! let back = std::thread::scope(|s| {
//!     let back = marks.marks.get(1).map(|t| {
//!         let mut events = parallel::events_from(&capture, t, &kinds);
//!         s.spawn(move || parallel::check_events(&mut events, &mut Vec::new()))
//!     });
//!     back.map(|h| h.join().expect("no panic")) // ok: a panic in the example's thread is re-raised
//! });
//! let mut summary = parallel::check_descriptors(&capture)?;
//! summary = parallel::merge(summary, parallel::check_events(&mut front, &mut Vec::new())?);
//! if let Some(back) = back {
//!     summary = parallel::merge(summary, back?);
//! } else {
//!     // A single run: the front walk went on to the end.
//! }
//! assert_eq!(summary, Summary::check(&capture, &kinds, &mut Vec::new())?);
//! # Ok(())
//! # }
//! ```
//!
#![cfg_attr(not(feature = "alloc"), doc = "[`thread_marks`]: crate#features")]

use crate::capture::Capture;
use crate::error::Error;
use crate::events::Events;
use crate::lookup::KindLookup;
use crate::nesting::SlotSource;
use crate::summary::Summary;
#[cfg(feature = "alloc")]
use crate::thread::Thread;

/// Checks the framing of every thread's records in one pass over the threads and keeps a
/// few of them to start pieces of a check from ([`events_from`]): threads `0`,
/// `stride`, `2 * stride`, ..., at most `max` of them (at least 2), `stride` doubling
/// whenever they would be more. So the memory used does not depend on how many threads the
/// file holds.
///
/// `go_on(index)` is asked before each thread is read; when it says `false` the pass stops
/// and this returns `None`, as it does when a thread is damaged.
#[cfg(feature = "alloc")]
pub fn thread_marks<'a>(
    capture: &Capture<'a>,
    max: usize,
    mut go_on: impl FnMut(u32) -> bool,
) -> Option<ThreadMarks<'a>> {
    let max = max.max(2);
    let mut marks = alloc::vec::Vec::with_capacity(max);
    let mut stride: u32 = 1;
    let mut count: u32 = 0;
    let mut threads = capture.threads();
    loop {
        if !go_on(count) {
            return None;
        }
        let Some(t) = threads.next() else { break };
        let t = t.ok().filter(|t| t.fault().is_none())?;
        if count % stride == 0 {
            if marks.len() == max {
                // Keep every other mark: threads 0, 2 * stride, 4 * stride, ...
                let mut i = 0;
                marks.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                stride = stride.checked_mul(2)?;
            }
            if count % stride == 0 {
                marks.push(t);
            }
        }
        count = count.checked_add(1)?;
    }
    Some(ThreadMarks {
        marks,
        stride,
        count,
    })
}

/// A few threads of a capture whose thread framing is sound, evenly spaced: see
/// [`thread_marks`].
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub struct ThreadMarks<'a> {
    /// Threads `0`, `stride`, `2 * stride`, ... (none when the capture has no thread).
    pub marks: alloc::vec::Vec<Thread<'a>>,
    /// Threads from one mark to the next.
    pub stride: u32,
    /// Threads in the capture.
    pub count: u32,
}

/// The events from the head of `thread` (one of [`Capture::threads`], typically a mark of
/// [`thread_marks`]) on: what [`Capture::events_with`] yields after the events of the threads
/// before it, trailer included.
///
#[cfg_attr(not(feature = "alloc"), doc = "[`thread_marks`]: crate#features")]
pub fn events_from<'a, K: KindLookup>(
    capture: &Capture<'a>,
    thread: &crate::Thread<'a>,
    kinds: K,
) -> Events<'a, K> {
    capture.events_from(thread, kinds)
}

/// Ends the walk of `events` after `threads` more threads: it reads the rest of the current
/// thread (if the walk is inside one), then at most `threads` thread heads with their records, and
/// stops before the next head, or before the end signature and bookmarks. A later call moves the
/// bound, so one walk can be taken a thread at a time. When the threads run out first, the walk
/// goes on to the end as usual.
pub fn stop_after<K: KindLookup>(events: &mut Events<'_, K>, threads: u32) {
    events.stop_after(threads);
}

/// The first piece of a check in pieces: the descriptors, all read and counted; every other
/// count zero.
pub fn check_descriptors(capture: &Capture<'_>) -> Result<Summary, Error> {
    Summary::check_descriptors(capture)
}

/// Checks what is left of a walk, as [`Summary::check`] does after the descriptors, and counts
/// it; `trailing` is set when the walk reached the end of the file.
pub fn check_events<K: KindLookup, S: SlotSource + ?Sized>(
    events: &mut Events<'_, K>,
    slots: &mut S,
) -> Result<Summary, Error> {
    Summary::check_events(events, slots)
}

/// The summary of two pieces of a capture, `earlier` then `later` in file order: counts add, the
/// deepest nesting and the widest time span win, and `trailing` is the later piece's.
#[must_use]
pub fn merge(earlier: Summary, later: Summary) -> Summary {
    earlier.merge(later)
}
