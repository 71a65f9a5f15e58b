//! A full check of a capture: every record, every value, the nesting, the trailer.

use crate::capture::Capture;
use crate::error::Error;
use crate::items::Item;
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
    /// decoded), the nesting of each thread (rebuilt by [`crate::Items::visit`], whose stack of
    /// top-level nodes lives in `slots`: a fixed slice, or a `Vec` that grows), and the bookmarks.
    /// Allocates nothing itself.
    ///
    /// See [`Summary::check_partial`] for the counts read before a fault.
    pub fn check<K: KindLookup + ?Sized, S: SlotSource + ?Sized>(
        capture: &Capture<'_>,
        kinds: &K,
        slots: &mut S,
    ) -> Result<Summary, Error> {
        let mut s = Summary::default();
        s.check_into(capture, kinds, slots).map(|()| s)
    }

    /// Like [`Summary::check`], but on a fault also returns the counts of everything read before
    /// it.
    pub fn check_partial<K: KindLookup + ?Sized, S: SlotSource + ?Sized>(
        capture: &Capture<'_>,
        kinds: &K,
        slots: &mut S,
    ) -> (Summary, Option<Error>) {
        let mut s = Summary::default();
        let e = s.check_into(capture, kinds, slots).err();
        (s, e)
    }

    fn check_into<K: KindLookup + ?Sized, S: SlotSource + ?Sized>(
        &mut self,
        capture: &Capture<'_>,
        kinds: &K,
        slots: &mut S,
    ) -> Result<(), Error> {
        for d in capture.descriptors() {
            d?;
            self.descriptors += 1;
        }
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
        let mut items = capture.items(kinds);
        let walked = items.visit(slots, &mut walk);
        // Values are decoded into `digest`; keeping it keeps the decoding.
        core::hint::black_box(walk.digest);
        let [blocks, events, values, switches] = walk.counts;
        self.blocks += blocks;
        self.events += events;
        self.values += values;
        self.context_switches += switches;
        self.threads += walk.threads;
        self.bookmarks += walk.bookmarks;
        self.levels = self.levels.max(walk.levels);
        walked?;
        self.levels = self.levels.max(walk.current);
        if walk.first <= walk.last {
            (self.first, self.last) = (Some(walk.first), Some(walk.last));
        }
        self.trailing = items.trailing();
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
