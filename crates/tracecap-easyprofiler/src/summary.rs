//! A full check of a capture: every record, every value, the nesting, the trailer.

use crate::capture::Capture;
use crate::error::Error;
use crate::events::{Events, Item};
use crate::lookup::KindLookup;
use crate::nesting::SlotSource;
use crate::record::Record;
use crate::value::Element;
use crate::visit::{Nest, Visitor};

/// Counts of everything in a capture, gathered by [`Summary::check`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Descriptors.
    pub descriptors: u32,
    /// Threads.
    pub threads: u32,
    /// Context-switch records.
    pub context_switches: u64,
    /// Block records.
    pub blocks: u64,
    /// Event records.
    pub events: u64,
    /// Value records.
    pub values: u64,
    /// Bookmarks.
    pub bookmarks: u32,
    /// Greatest nesting depth plus one, over all threads.
    pub levels: u32,
    /// Earliest record begin (file time unit), if any record.
    pub first: Option<u64>,
    /// Latest record end (file time unit), if any record.
    pub last: Option<u64>,
    /// Bytes after the last end signature.
    pub trailing: u64,
}

impl Summary {
    /// Records of all kinds in the thread section (what the header's `blocks_count` counts).
    pub fn records(&self) -> u64 {
        self.context_switches + self.blocks + self.events + self.values
    }

    /// Reads everything: descriptors, every thread's context switches and records (values
    /// decoded), the nesting of each thread (rebuilt by [`crate::Events::visit`], whose stack of
    /// top-level nodes lives in `slots`: a fixed slice, or a `Vec` that grows), and the bookmarks.
    /// Allocates nothing itself.
    ///
    /// See [`Summary::check_partial`] for the counts read before a fault.
    pub fn check<K: KindLookup, S: SlotSource + ?Sized>(
        capture: &Capture<'_>,
        kinds: K,
        slots: &mut S,
    ) -> Result<Summary, Error> {
        let mut s = Summary::default();
        s.check_into(capture, kinds, slots).map(|()| s)
    }

    /// Like [`Summary::check`], but on a fault also returns what was read before it: the counts
    /// of every whole descriptor, thread head, context switch, record and bookmark, the levels of
    /// their nesting and the span of their times (`trailing` stays 0).
    pub fn check_partial<K: KindLookup, S: SlotSource + ?Sized>(
        capture: &Capture<'_>,
        kinds: K,
        slots: &mut S,
    ) -> (Summary, Option<Error>) {
        let mut s = Summary::default();
        let e = s.check_into(capture, kinds, slots).err();
        (s, e)
    }

    fn check_into<K: KindLookup, S: SlotSource + ?Sized>(
        &mut self,
        capture: &Capture<'_>,
        kinds: K,
        slots: &mut S,
    ) -> Result<(), Error> {
        self.count_descriptors(capture)?;
        self.walk(&mut capture.events_with(kinds), slots)
    }

    /// The descriptors, all read and counted; every other count zero (see
    /// [`crate::parallel::check_descriptors`]).
    pub(crate) fn check_descriptors(capture: &Capture<'_>) -> Result<Summary, Error> {
        let mut s = Summary::default();
        s.count_descriptors(capture).map(|()| s)
    }

    /// What is left of a walk, checked and counted (see [`crate::parallel::check_events`]).
    pub(crate) fn check_events<K: KindLookup, S: SlotSource + ?Sized>(
        events: &mut Events<'_, K>,
        slots: &mut S,
    ) -> Result<Summary, Error> {
        let mut s = Summary::default();
        s.walk(events, slots).map(|()| s)
    }

    /// Two pieces of a capture, `self` then `later` (see [`crate::parallel::merge`]).
    pub(crate) fn merge(self, later: Summary) -> Summary {
        let first = match (self.first, later.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Summary {
            descriptors: self.descriptors + later.descriptors,
            threads: self.threads + later.threads,
            context_switches: self.context_switches + later.context_switches,
            blocks: self.blocks + later.blocks,
            events: self.events + later.events,
            values: self.values + later.values,
            bookmarks: self.bookmarks + later.bookmarks,
            levels: self.levels.max(later.levels),
            first,
            last: self.last.max(later.last),
            trailing: later.trailing,
        }
    }

    fn count_descriptors(&mut self, capture: &Capture<'_>) -> Result<(), Error> {
        for d in capture.descriptors() {
            d?;
            self.descriptors += 1;
        }
        Ok(())
    }

    /// Walks what is left of `rest` and adds it to the counts, also on a fault.
    fn walk<K: KindLookup, S: SlotSource + ?Sized>(
        &mut self,
        rest: &mut Events<'_, K>,
        slots: &mut S,
    ) -> Result<(), Error> {
        let mut walk = Walk {
            counts: [0; 4],
            threads: 0,
            bookmarks: 0,
            levels: 0,
            current: 0,
            first: u64::MAX,
            last: 0,
            digest: 0,
        };
        let walked = rest.visit(slots, &mut walk);
        // Values are decoded into `digest`; keeping it keeps the decoding.
        core::hint::black_box(walk.digest);
        let [blocks, events, values, switches] = walk.counts;
        self.blocks += blocks;
        self.events += events;
        self.values += values;
        self.context_switches += switches;
        self.threads += walk.threads;
        self.bookmarks += walk.bookmarks;
        // The levels and the time span of what was read count on a fault too.
        self.levels = self.levels.max(walk.levels).max(walk.current);
        if blocks + events + values > 0 {
            (self.first, self.last) = (Some(walk.first), Some(walk.last));
        }
        walked?;
        self.trailing = rest.trailing();
        Ok(())
    }
}

/// The state of [`Summary::check`]'s walk.
struct Walk {
    /// Blocks, events, values and context switches.
    counts: [u64; 4],
    threads: u32,
    bookmarks: u32,
    /// Levels of the threads before the current one.
    levels: u32,
    /// Levels of the current thread so far.
    current: u32,
    first: u64,
    last: u64,
    /// Every value element, folded.
    digest: u64,
}

impl<'a> Visitor<'a> for Walk {
    /// Counts one record: times, nesting, values decoded.
    #[inline(always)]
    fn record(&mut self, r: Record<'a>, nest: Nest) -> Result<(), Error> {
        let [blocks, events, values, _] = &mut self.counts;
        self.first = self.first.min(r.begin());
        self.last = self.last.max(r.end());
        self.current = self.current.max(nest.height);
        match r {
            Record::Block(b) if b.is_event() => *events += 1,
            Record::Block(_) => *blocks += 1,
            Record::Value(v) => {
                *values += 1;
                // Decoding is lazy; fold every element so a check means "decoded".
                self.digest = v
                    .elements()
                    .fold(self.digest, |d, e| d.rotate_left(1) ^ bits(e));
            }
        }
        Ok(())
    }

    fn item(&mut self, item: Item<'a>) -> Result<(), Error> {
        match item {
            Item::Thread(_) => {
                self.levels = self.levels.max(self.current);
                self.current = 0;
                self.threads += 1;
            }
            Item::ContextSwitch(_) => self.counts[3] += 1,
            Item::Bookmark(_) => self.bookmarks += 1,
            Item::Record(_) => {}
        }
        Ok(())
    }
}
/// An element's bits, for folding.
#[inline(always)]
fn bits(e: Element) -> u64 {
    match e {
        Element::Bool(x) => u64::from(x),
        Element::Char(x) | Element::Int8(x) => x as u64,
        Element::Uint8(x) => u64::from(x),
        Element::Int16(x) => x as u64,
        Element::Uint16(x) => u64::from(x),
        Element::Int32(x) => x as u64,
        Element::Uint32(x) => u64::from(x),
        Element::Int64(x) => x as u64,
        Element::Uint64(x) => x,
        Element::Float(x) => u64::from(x.to_bits()),
        Element::Double(x) => x.to_bits(),
    }
}
