//! One forward pass over the thread section and the trailer, yielding everything in file order
//! ([`Capture::events`], [`Capture::events_with`]).

use tracecap_wire::Reader;

use crate::bookmark::Bookmark;
use crate::capture::{read_signature, records_missing, Capture};
use crate::context_switch::ContextSwitch;
use crate::error::Error;
use crate::fast::{Run, Walk};
use crate::lookup::KindLookup;
use crate::record::{read_record, Record};
use crate::thread::{read_thread_head, Thread};
use crate::time::Clock;
use crate::version::Version;
use tracecap_wire::fast::touch_ahead;
use tracecap_wire::Context;

/// The start of a thread, as met in the stream: its records follow as [`Item::ContextSwitch`] and
/// [`Item::Record`] items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadHead<'a> {
    /// Absolute offset of the thread id.
    pub offset: u64,
    /// Thread id.
    pub id: u64,
    /// Name, without its NUL.
    pub name: &'a [u8],
}

/// One thing in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// A new thread begins.
    Thread(ThreadHead<'a>),
    /// A context switch of the current thread.
    ContextSwitch(ContextSwitch<'a>),
    /// A block, event or value of the current thread.
    Record(Record<'a>),
    /// A bookmark (after all threads).
    Bookmark(Bookmark<'a>),
}

impl<'a> Capture<'a> {
    /// Everything after the descriptors in one forward pass, in file order: each thread's head,
    /// its context switches, its records, then the bookmarks, read with the kinds of this
    /// capture's descriptors (a [`KindTable`](crate::KindTable) built here; a damaged descriptor
    /// section is the walk's first error). The fastest way to see every record (the per-thread API
    /// of [`Capture::threads`] first checks the framing of a thread's records, which is a second
    /// pass).
    #[cfg(feature = "alloc")]
    pub fn events(&self) -> Events<'a, crate::KindTable> {
        self.events_with(crate::KindTable::up_to_fault(self.descriptors()))
    }

    /// [`Capture::events`] with any kind table: an owned one the walk keeps (and gives back with
    /// [`Events::into_table`]), or a reference (`events_with(&table)`) to keep it.
    ///
    #[cfg_attr(not(feature = "alloc"), doc = "[`Capture::events`]: crate#features")]
    pub fn events_with<K: KindLookup>(&self, kinds: K) -> Events<'a, K> {
        let left = self.header().threads_count;
        Events::new(
            self,
            self.thread_section(),
            left,
            0,
            self.descriptors_fault(),
            kinds,
        )
    }

    /// The events from the head of `thread` (one of [`Capture::threads`]) on: what
    /// [`Capture::events_with`] yields after the events of the threads before it, trailer
    /// included (see [`crate::parallel`]).
    pub(crate) fn events_from<K: KindLookup>(
        &self,
        thread: &Thread<'a>,
        kinds: K,
    ) -> Events<'a, K> {
        let left = self
            .header()
            .threads_count
            .map(|n| n.saturating_sub(thread.index()));
        let before = thread.records_before();
        Events::new(self, thread.head(), left, before, None, kinds)
    }
}

#[derive(Clone, Copy, Debug)]
enum State {
    /// Between threads.
    Threads,
    /// After a thread's head, before its count of context switches.
    Head,
    /// Inside a thread's context switches; `left` to go.
    Switches(u32),
    /// Inside a thread's records.
    Records(u32),
    /// Inside the bookmarks.
    Bookmarks(u16),
    /// After the end, or after an error.
    Done,
}

/// Iterator over everything after the descriptors (see [`Capture::events`]); fused after the first
/// error, which comes after every good item before it.
///
/// ```
/// use tracecap_easyprofiler::{Capture, FixedKindTable, Item, Record};
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
/// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
/// let capture = Capture::parse(&bytes)?;
/// let kinds = FixedKindTable::<4096>::new(&capture)?;
/// let mut values = 0;
/// for item in capture.events_with(&kinds) {
///     if let Item::Record(Record::Value(_)) = item? {
///         values += 1;
///     }
/// }
/// // The same walk through a closure.
/// let mut records = 0;
/// capture.events_with(&kinds).try_for_each_event::<tracecap_easyprofiler::Error, _>(|item| {
///     records += u32::from(matches!(item, Item::Record(_)));
///     Ok(())
/// })?;
/// assert!(records >= values);
/// # Ok::<(), tracecap_easyprofiler::Error>(())
/// ```
///
#[cfg_attr(not(feature = "alloc"), doc = "[`Capture::events`]: crate#features")]
#[derive(Debug)]
pub struct Events<'a, K> {
    r: Reader<'a>,
    state: State,
    version: Version,
    threads_left: Option<u32>,
    /// Thread heads the walk may still read before it ends early (see [`crate::parallel::stop_after`]).
    stop: Option<u32>,
    /// Records (context switches included) the counts of the threads met so far announce, and
    /// those of the threads before the walk's first.
    records: u64,
    /// The header's `blocks_count`: before 2.1, the end of the file comes after that many.
    stated: u32,
    bookmarks: u16,
    kinds: K,
    /// How the records' timestamps compare (for [`Events::visit`]'s nesting).
    clock: Clock,
    fault: Option<Error>,
}

impl<'a, K: KindLookup> Events<'a, K> {
    /// A walk from the thread head at `r`, with `threads_left` threads to go by the header's
    /// count (`None` before 2.1), after `records_before` records of the threads before it.
    pub(crate) fn new(
        capture: &Capture<'a>,
        r: Reader<'a>,
        threads_left: Option<u32>,
        records_before: u64,
        fault: Option<Error>,
        kinds: K,
    ) -> Self {
        let h = capture.header();
        Events {
            r,
            state: State::Threads,
            version: h.version,
            threads_left,
            stop: None,
            records: records_before,
            stated: h.blocks_count,
            bookmarks: h.bookmarks_count,
            kinds,
            clock: h.clock(),
            fault,
        }
    }

    /// The kind table the walk reads records with.
    pub(crate) fn kinds(&self) -> &K {
        &self.kinds
    }

    /// The kind table, given back.
    pub fn into_table(self) -> K {
        self.kinds
    }

    /// How the records' timestamps compare.
    pub(crate) fn clock(&self) -> Clock {
        self.clock
    }

    /// Bytes after the last signature (0 in files written by EasyProfiler); meaningful once the
    /// iterator is exhausted without error. 0 when [`crate::parallel::stop_after`] ended the walk.
    pub fn trailing(&self) -> u64 {
        if self.stop == Some(0) {
            return 0;
        }
        self.r.remaining() as u64
    }

    /// Ends the walk after `threads` more threads (see [`crate::parallel::stop_after`]).
    pub(crate) fn stop_after(&mut self, threads: u32) {
        self.stop = Some(threads);
    }

    fn step(&mut self) -> Result<Option<Item<'a>>, Error> {
        loop {
            match self.state {
                State::Records(left) if left > 0 => {
                    self.state = State::Records(left - 1);
                    // Each record's size says where the next starts, a chain of dependent loads;
                    // touching a byte a few records ahead starts the next cache miss early.
                    touch_ahead(self.r.rest());
                    let kinds = &self.kinds;
                    return read_record(&mut self.r, |id| kinds.kind(id))
                        .map(|r| Some(Item::Record(r)));
                }
                State::Switches(left) if left > 0 => {
                    self.state = State::Switches(left - 1);
                    let wide = self.version.wide_ids();
                    return ContextSwitch::read(&mut self.r, wide)
                        .map(|c| Some(Item::ContextSwitch(c)));
                }
                State::Head => {
                    let n = self.r.u32_le().what("context switch count")?;
                    // A count whose records are not all there ends the walk with that fault, so
                    // at the end of the file this is the number of records read.
                    self.records = self.records.saturating_add(u64::from(n));
                    self.state = State::Switches(n);
                }
                State::Switches(_) => {
                    let n = self.r.u32_le().what("block count")?;
                    self.records = self.records.saturating_add(u64::from(n));
                    self.state = State::Records(n);
                }
                State::Records(_) | State::Threads => {
                    if self.stop == Some(0) {
                        // Not `Done`: a later bound goes on from here.
                        return Ok(None);
                    }
                    let more = match self.threads_left {
                        Some(n) => n > 0,
                        None => !self.r.is_empty(),
                    };
                    if more {
                        if let Some(n) = self.threads_left.as_mut() {
                            *n -= 1;
                        }
                        if let Some(n) = self.stop.as_mut() {
                            *n -= 1;
                        }
                        let (offset, id, name) =
                            read_thread_head(&mut self.r, self.version.wide_ids())?;
                        // The head is whole: it comes out even when the counts after it are cut.
                        self.state = State::Head;
                        return Ok(Some(Item::Thread(ThreadHead { offset, id, name })));
                    }
                    if !self.version.has_end_signature() {
                        self.state = State::Done;
                        records_missing(self.records, self.stated, self.r.offset())?;
                        return Ok(None);
                    }
                    read_signature(&mut self.r)?;
                    self.state = State::Bookmarks(self.bookmarks);
                }
                State::Bookmarks(left) if left > 0 => {
                    self.state = State::Bookmarks(left - 1);
                    let b = Bookmark::read(&mut self.r)?;
                    if left == 1 {
                        // The signature after the last bookmark; report the bookmark first.
                        if let Err(e) = read_signature(&mut self.r) {
                            self.fault = Some(e);
                        }
                    }
                    return Ok(Some(Item::Bookmark(b)));
                }
                State::Bookmarks(_) | State::Done => {
                    self.state = State::Done;
                    return Ok(None);
                }
            }
        }
    }
}

impl<'a, K: KindLookup> Iterator for Events<'a, K> {
    type Item = Result<Item<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        // Most items are records: read a well-formed one straight from the bytes; everything else
        // (and any record the fast path does not take) goes through the state machine.
        let mut run = self.take_run();
        match run.next(&self.kinds) {
            Some(rec) => {
                self.put_run(&run);
                Some(Ok(Item::Record(rec)))
            }
            None => self.next_slow(),
        }
    }
}

impl<'a, K: KindLookup> Walk<'a> for Events<'a, K> {
    type Item = Item<'a>;
    type Kinds = K;

    #[inline(always)]
    fn kinds(&self) -> &K {
        &self.kinds
    }

    #[inline(always)]
    fn item(record: Record<'a>) -> Item<'a> {
        Item::Record(record)
    }

    #[inline(always)]
    fn take_run(&self) -> Run<'a> {
        Events::take_run(self)
    }

    #[inline(always)]
    fn put_run(&mut self, run: &Run<'a>) {
        Events::put_run(self, run)
    }

    #[inline(always)]
    fn next_checked(&mut self) -> Option<Result<Item<'a>, Error>> {
        self.next_slow()
    }
}

impl<'a, K: KindLookup> Events<'a, K> {
    /// Gives every remaining item to `f`, in file order, as the iterator would yield them; stops
    /// at the first error (the file's, or one `f` returns) and returns it.
    ///
    /// The same walk as iterating, but faster when `f` is small enough to inline: records are read
    /// in a loop over the thread's bytes, and each item goes straight to `f` instead of through
    /// `Option<Result<Item>>`.
    pub fn try_for_each_event<E, F>(&mut self, f: F) -> Result<(), E>
    where
        E: From<Error>,
        F: FnMut(Item<'a>) -> Result<(), E>,
    {
        crate::fast::try_for_each(self, f)
    }

    /// The fast path's view of where the walk stands: the current thread's records still to
    /// read, or an empty run when the state machine must go first.
    #[inline(always)]
    pub(crate) fn take_run(&self) -> Run<'a> {
        let left = match (self.state, &self.fault) {
            (State::Records(left), None) => left,
            _ => 0,
        };
        let rest = self.r.rest();
        Run {
            rest,
            end: self.r.offset() + rest.len() as u64,
            left,
        }
    }

    /// Hands the position of a run taken by [`Events::take_run`] back to the state machine.
    #[inline(always)]
    pub(crate) fn put_run(&mut self, run: &Run<'a>) {
        if let State::Records(_) = self.state {
            self.state = State::Records(run.left);
            let _ = self
                .r
                .skip(self.r.remaining().saturating_sub(run.rest.len()));
        }
    }

    #[inline(never)]
    pub(crate) fn next_slow(&mut self) -> Option<Result<Item<'a>, Error>> {
        if let Some(e) = self.fault.take() {
            self.state = State::Done;
            return Some(Err(e));
        }
        match self.step() {
            Ok(Some(item)) => Some(Ok(item)),
            Ok(None) => None,
            Err(e) => {
                self.state = State::Done;
                Some(Err(e))
            }
        }
    }
}

impl<K: KindLookup> core::iter::FusedIterator for Events<'_, K> {}
