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
        let mut walk = Walk {
            s: self,
            forest: Forest::with_clock(&mut *slots, header.clock()),
            first: u64::MAX,
            last: 0,
        };
        let mut items = capture.items(kinds);
        items.try_for_each_item(|item| walk.visit(item))?;
        let Walk {
            forest,
            first,
            last,
            ..
        } = walk;
        self.levels = self.levels.max(forest.levels());
        if first <= last {
            (self.first, self.last) = (Some(first), Some(last));
        }
        self.trailing = items.trailing();
        Ok(())
    }
}

/// The state of [`Summary::check`]'s walk.
struct Walk<'w, 's, S: SlotSource + ?Sized> {
    s: &'w mut Summary,
    forest: Forest<'s, S>,
    first: u64,
    last: u64,
}

impl<S: SlotSource + ?Sized> Walk<'_, '_, S> {
    /// Counts one item (records: nesting, times, values decoded). Inlined into both of the
    /// walk's call sites (record runs and everything else).
    #[inline(always)]
    fn visit(&mut self, item: Item<'_>) -> Result<(), Error> {
        match item {
            Item::Record(r) => {
                let (begin, end) = (r.begin(), r.end());
                self.first = self.first.min(begin);
                self.last = self.last.max(end);
                if self.forest.push(begin, end).is_none() {
                    let roots = self.forest.roots();
                    return Err(capacity_error(roots as u32 + 1, roots, r.offset()));
                }
                match r {
                    Record::Block(b) if b.is_event() => self.s.events += 1,
                    Record::Block(_) => self.s.blocks += 1,
                    Record::Value(v) => {
                        self.s.values += 1;
                        // Decoding is lazy; touch every element so a check means "decoded".
                        for e in v.elements() {
                            core::hint::black_box(e);
                        }
                    }
                }
            }
            Item::Thread(_) => {
                self.s.levels = self.s.levels.max(self.forest.levels());
                self.forest.clear();
                self.s.threads += 1;
            }
            Item::ContextSwitch(_) => self.s.context_switches += 1,
            Item::Bookmark(_) => self.s.bookmarks += 1,
        }
        Ok(())
    }
}
