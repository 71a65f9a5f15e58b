//! The report of an EasyProfiler capture, and the check that gathers its counts (on two threads
//! for a large file), which `tracecap validate` also runs.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::vec::Vec;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use tracecap_easyprofiler::{
    parallel, Capture, Error, Events, Header, KindTable, NestSlot, Summary, Thread,
};

use super::parts::{Fault, Lossy};

/// What `tracecap info` reports of an EasyProfiler capture: the header, and the counts of
/// everything read (on a damaged file, of everything read before the fault).
///
/// Its JSON object has the members `format` (`"easyprofiler"`), `version`, `file_size`,
/// `header_size`, `pid`, `cpu_frequency`, `begin_ns`, `end_ns`, `records_begin_ns`,
/// `records_end_ns`, `descriptors`, `records` (an object: `total`, `blocks`, `events`, `values`,
/// `context_switches`), `header_records`, `bookmarks`, `levels`, `error` and `threads` (one
/// object per thread: `id`, `name`, `records`, `context_switches`), in that order; the threads
/// come last and are read from the file as they are written (a capture may hold millions).
#[derive(Debug)]
pub struct Info<'a> {
    /// The capture, for its threads ([`Info::threads`]).
    pub capture: Capture<'a>,
    /// The file header.
    pub header: Header,
    /// The file's size in bytes.
    pub file_size: u64,
    /// The counts of everything read.
    pub summary: Summary,
    /// The fault that stopped the check, if the capture is damaged.
    pub fault: Option<Fault>,
}

/// The report of `data`; `Err` when its header cannot be read.
pub fn info(data: &[u8]) -> Result<Info<'_>, Fault> {
    let capture = Capture::parse(data)?;
    let (summary, fault) = check_partial(&capture);
    Ok(Info {
        capture,
        header: *capture.header(),
        file_size: data.len() as u64,
        summary,
        fault: fault.map(Fault::from),
    })
}

impl<'a> Info<'a> {
    /// The earliest record begin in nanoseconds, if any record was read.
    pub fn records_begin_ns(&self) -> Option<u64> {
        self.summary.first.map(|t| self.header.to_ns(t))
    }

    /// The latest record end in nanoseconds, if any record was read.
    pub fn records_end_ns(&self) -> Option<u64> {
        self.summary.last.map(|t| self.header.to_ns(t))
    }

    /// The threads the check read, one at a time from the file (a thread cut short by a fault
    /// with its whole records).
    pub fn threads(&self) -> Threads<impl Iterator<Item = Thread<'a>> + Clone> {
        let n = self.summary.threads as usize;
        Threads {
            items: self.capture.threads().map_while(Result::ok).take(n),
            left: n,
        }
    }
}

/// The threads of a report ([`Info::threads`]): an iterator that knows how many are left.
#[derive(Clone, Debug)]
pub struct Threads<I> {
    items: I,
    left: usize,
}

impl<I: Iterator> Iterator for Threads<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let item = self.items.next()?;
        self.left = self.left.saturating_sub(1);
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<I: Iterator> ExactSizeIterator for Threads<I> {}

/// One thread of the JSON report.
struct ThreadJson<'t>(Thread<'t>);

impl Serialize for ThreadJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = &self.0;
        let mut m = s.serialize_struct("Thread", 4)?;
        m.serialize_field("id", &t.id)?;
        m.serialize_field("name", &Lossy(t.name))?;
        m.serialize_field("records", &t.records_count())?;
        m.serialize_field("context_switches", &t.context_switches_count())?;
        m.end()
    }
}

/// The record counts of the JSON report.
struct Records<'s>(&'s Summary);

impl Serialize for Records<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        let mut m = s.serialize_struct("Records", 5)?;
        m.serialize_field("total", &c.records())?;
        m.serialize_field("blocks", &c.blocks)?;
        m.serialize_field("events", &c.events)?;
        m.serialize_field("values", &c.values)?;
        m.serialize_field("context_switches", &c.context_switches)?;
        m.end()
    }
}

impl Serialize for Info<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let h = &self.header;
        let c = &self.summary;
        let mut m = s.serialize_struct("Info", 17)?;
        m.serialize_field("format", "easyprofiler")?;
        m.serialize_field("version", &std::format!("{}", h.version))?;
        m.serialize_field("file_size", &self.file_size)?;
        m.serialize_field("header_size", &h.size)?;
        m.serialize_field("pid", &h.pid)?;
        m.serialize_field("cpu_frequency", &h.cpu_frequency)?;
        m.serialize_field("begin_ns", &h.begin_ns())?;
        m.serialize_field("end_ns", &h.end_ns())?;
        m.serialize_field("records_begin_ns", &self.records_begin_ns())?;
        m.serialize_field("records_end_ns", &self.records_end_ns())?;
        m.serialize_field("descriptors", &c.descriptors)?;
        m.serialize_field("records", &Records(c))?;
        m.serialize_field("header_records", &h.blocks_count)?;
        m.serialize_field("bookmarks", &c.bookmarks)?;
        m.serialize_field("levels", &c.levels)?;
        m.serialize_field("error", &self.fault)?;
        m.serialize_field(
            "threads",
            &super::parts::Items(self.threads().map(ThreadJson)),
        )?;
        m.end()
    }
}

/// Everything checked in `c` (what `tracecap validate` and `tracecap info` report), with the
/// result of [`Summary::check`]: on two threads for a file of at least 4 MiB when there are two
/// cores. The environment variable `TRACECAP_THREADS` (undocumented, for tests and measurements)
/// overrides the choice: `1` for one thread, `2` for two whatever the size and the cores,
/// `back-first` for the second worker's part first, then the first worker's (a test of that
/// part, whatever the timing).
pub fn check(c: &Capture<'_>) -> Result<Summary, Error> {
    let kinds = KindTable::new(c)?;
    match workers(c.data().len()) {
        Workers::One => {
            let mut slots: Vec<NestSlot> = Vec::new();
            Summary::check(c, &kinds, &mut slots)
        }
        two => check_in_two(c, &kinds, two),
    }
}

/// [`check`], and on a fault the counts of everything read before it (a second, serial walk:
/// only a damaged file pays for it) with the fault.
fn check_partial(c: &Capture<'_>) -> (Summary, Option<Error>) {
    match check(c) {
        Ok(s) => (s, None),
        Err(_) => {
            // A damaged descriptor section stops the walk before any thread is read, so the kinds
            // of the descriptors before the damage are never asked for.
            let kinds = KindTable::new(c).unwrap_or_default();
            Summary::check_partial(c, &kinds, &mut Vec::new())
        }
    }
}

/// Files at least this large are checked on two threads (when there are two cores): below it,
/// starting a thread costs more than it saves.
const SPLIT_MIN_BYTES: usize = 4 << 20;

/// How [`check`] runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Workers {
    /// [`Summary::check`] on the calling thread.
    One,
    /// [`check_in_two`].
    Two,
    /// [`check_in_two`]'s workers one after the other, the back worker first (so that it
    /// takes every thread): a test of its part, whatever the timing.
    BackFirst,
}

/// How [`check`] checks a file of `len` bytes: on two threads when it is large and there are
/// two cores. The environment variable `TRACECAP_THREADS` (undocumented, for tests and
/// measurements) overrides the choice: `1` for one thread, `2` for two whatever the size and
/// the cores, `back-first` for [`Workers::BackFirst`].
fn workers(len: usize) -> Workers {
    match std::env::var("TRACECAP_THREADS").as_deref() {
        Ok("1") => Workers::One,
        Ok("2") => Workers::Two,
        Ok("back-first") => Workers::BackFirst,
        _ if len >= SPLIT_MIN_BYTES
            && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2) =>
        {
            Workers::Two
        }
        _ => Workers::One,
    }
}

/// The threads of the capture claimed so far by the two workers of [`check_in_two`], so that no
/// thread is checked twice or skipped. The front worker claims them in file order, each before
/// it starts it (the end signature and bookmarks count as one more, after the last thread); the
/// back worker claims runs of them from the last down (its first claim includes the trailer).
struct Claims {
    /// The next thread the front worker would take; `u32::MAX` once it has met a fault or
    /// walked to the end, when the back worker has nothing left to do.
    front: u32,
    /// The first thread the back worker has taken (`u32::MAX` before it takes any).
    back: u32,
}

impl Claims {
    /// Claims the next thread for the front worker: `false` when the back worker has it.
    fn front(&mut self) -> bool {
        let free = self.front < self.back;
        if free {
            self.front += 1;
        }
        free
    }

    /// Claims the threads from `first` up to the back worker's first for the back worker:
    /// `false` when the front worker has already taken `first`.
    fn back(&mut self, first: u32) -> bool {
        let free = first >= self.front && first < self.back;
        if free {
            self.back = first;
        }
        free
    }

    /// Whether the front worker is done, by a fault or at the end.
    fn front_done(&self) -> bool {
        self.front == u32::MAX
    }
}

/// Locks the claims. A worker that panicked left them whole (they are two numbers).
fn lock(claims: &Mutex<Claims>) -> MutexGuard<'_, Claims> {
    claims.lock().unwrap_or_else(PoisonError::into_inner)
}

/// [`Summary::check`] on two threads, with the same result, error included.
///
/// The front worker is the serial walk, from the first thread on, one thread at a time; the
/// back worker skims every thread's framing (which also brings the file's pages in ahead of the
/// front worker), then takes threads from the last down while the front worker has not reached
/// them. Each thread goes to whichever worker is free first, which balances the two as well as
/// whole threads allow, and the pieces are merged in file order.
///
/// A fault the front worker meets is the serial check's (everything before it is sound), so it
/// is the answer, and the back worker stops at its next thread. When the back worker meets one
/// (or a damaged thread in its skim), its work is dropped and the front worker walks on to the
/// end: the serial check, which reports the first fault in file order.
fn check_in_two(c: &Capture<'_>, kinds: &KindTable, workers: Workers) -> Result<Summary, Error> {
    let claims = Mutex::new(Claims {
        front: 0,
        back: u32::MAX,
    });
    let mut front = Front::new(c, kinds)?;
    let back = if workers == Workers::BackFirst {
        let back = check_back(c, kinds, &claims);
        front.walk(&claims)?;
        back
    } else {
        std::thread::scope(|scope| {
            let back = scope.spawn(|| check_back(c, kinds, &claims));
            let walked = front.walk(&claims);
            // A panicked worker is one that failed.
            walked.map(|()| back.join().ok().flatten())
        })?
    };
    match back {
        Some(Some(back)) => Ok(parallel::merge(front.summary, back)),
        Some(None) => Ok(front.summary),
        None => {
            front.walk_to_end()?;
            Ok(front.summary)
        }
    }
}

/// The front worker of [`check_in_two`]: the serial walk, taken a thread at a time.
struct Front<'a, 'k> {
    items: Events<'a, &'k KindTable>,
    slots: Vec<NestSlot>,
    /// What the walk has checked so far.
    summary: Summary,
}

impl<'a, 'k> Front<'a, 'k> {
    /// The walk of `c`, its descriptors checked.
    fn new(c: &Capture<'a>, kinds: &'k KindTable) -> Result<Self, Error> {
        Ok(Front {
            items: c.events_with(kinds),
            slots: Vec::new(),
            summary: parallel::check_descriptors(c)?,
        })
    }

    /// Checks the next thread while the back worker has not taken it; on a fault or at the
    /// end, tells the back worker it is done.
    fn walk(&mut self, claims: &Mutex<Claims>) -> Result<(), Error> {
        while lock(claims).front() {
            parallel::stop_after(&mut self.items, 1);
            let piece =
                parallel::check_events(&mut self.items, &mut self.slots).inspect_err(|_| {
                    lock(claims).front = u32::MAX;
                })?;
            self.summary = parallel::merge(self.summary, piece);
            if piece.threads == 0 {
                // No thread left: this piece was the trailer.
                lock(claims).front = u32::MAX;
                break;
            }
        }
        Ok(())
    }

    /// Checks every thread left and the trailer, whatever the claims.
    fn walk_to_end(&mut self) -> Result<(), Error> {
        parallel::stop_after(&mut self.items, u32::MAX);
        let rest = parallel::check_events(&mut self.items, &mut self.slots)?;
        self.summary = parallel::merge(self.summary, rest);
        Ok(())
    }
}

/// How many threads the back worker of [`check_in_two`] keeps to start its pieces from (see
/// [`parallel::thread_marks`]): a capture with more threads is taken in runs of several.
const MARKS: usize = 256;

/// How often (in threads) the back worker's skim asks whether the front worker is done.
const SKIM_POLL: u32 = 1024;

/// The back worker of [`check_in_two`]: skims the threads (their framing, keeping at most
/// [`MARKS`] of them, so its memory does not grow with the file), then checks runs of them from
/// the last down (the last with the trailer), while the front worker has not reached them. Its
/// pieces merged in file order (`Some(None)` if it took none); `None` on a fault, and then it
/// gives the front worker every thread. It stops early, taking nothing, when the front worker is
/// done first (a fault it met, or the end).
fn check_back(
    c: &Capture<'_>,
    kinds: &KindTable,
    claims: &Mutex<Claims>,
) -> Option<Option<Summary>> {
    let mut stopped = false;
    let marks = parallel::thread_marks(c, MARKS, |i| {
        stopped = i % SKIM_POLL == 0 && lock(claims).front_done();
        !stopped
    });
    let checked = match marks {
        Some(marks) => check_back_pieces(c, kinds, claims, &marks),
        None if stopped => Some(None),
        None => None,
    };
    if checked.is_none() {
        lock(claims).back = u32::MAX;
    }
    checked
}

fn check_back_pieces(
    c: &Capture<'_>,
    kinds: &KindTable,
    claims: &Mutex<Claims>,
    marks: &parallel::ThreadMarks<'_>,
) -> Option<Option<Summary>> {
    let mut slots: Vec<NestSlot> = Vec::new();
    let mut s: Option<Summary> = None;
    for (k, thread) in marks.marks.iter().enumerate().rev() {
        if !lock(claims).back(thread.index()) {
            break;
        }
        let mut items = parallel::events_from(c, thread, kinds);
        if k + 1 < marks.marks.len() {
            parallel::stop_after(&mut items, marks.stride);
        }
        let piece = parallel::check_events(&mut items, &mut slots).ok()?;
        s = Some(s.map_or(piece, |later| parallel::merge(piece, later)));
    }
    Some(s)
}
