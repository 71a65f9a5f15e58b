//! A full check of a capture: every record, every value, the nesting, the trailer.

use crate::capture::Capture;
use crate::error::Error;
use crate::items::Item;
use crate::lookup::KindLookup;
use crate::nesting::{capacity_error, Forest, SlotSource};
use crate::record::Record;

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
    /// decoded), the nesting of each thread (rebuilt with a [`crate::Forest`] whose stack of
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
        let header = *capture.header();
        let mut forest = Forest::with_clock(&mut *slots, header.clock());
        let (mut first, mut last) = (u64::MAX, 0u64);
        let mut items = capture.items(kinds);
        for item in items.by_ref() {
            match item? {
                Item::Thread(_) => {
                    self.levels = self.levels.max(forest.levels());
                    forest.clear();
                    self.threads += 1;
                }
                Item::ContextSwitch(_) => self.context_switches += 1,
                Item::Record(r) => {
                    let (begin, end) = (r.begin(), r.end());
                    first = first.min(begin);
                    last = last.max(end);
                    if forest.push(begin, end).is_none() {
                        return Err(capacity_error(
                            forest.roots() as u32 + 1,
                            forest.roots(),
                            r.offset(),
                        ));
                    }
                    match r {
                        Record::Block(b) if b.is_event() => self.events += 1,
                        Record::Block(_) => self.blocks += 1,
                        Record::Value(v) => {
                            self.values += 1;
                            // Decoding is lazy; touch every element so a check means "decoded".
                            for e in v.elements() {
                                core::hint::black_box(e);
                            }
                        }
                    }
                }
                Item::Bookmark(_) => self.bookmarks += 1,
            }
        }
        self.levels = self.levels.max(forest.levels());
        if first <= last {
            (self.first, self.last) = (Some(first), Some(last));
        }
        self.trailing = items.trailing();
        Ok(())
    }
}
