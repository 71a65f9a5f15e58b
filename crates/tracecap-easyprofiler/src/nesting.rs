//! Rebuilding the block tree from completion order.
//!
//! A thread's records are stored in the order they *ended*: children before their parent, with no
//! parent links and no depth. The upstream reader rebuilds the tree with one rule, applied to each
//! record R in file order against the list of current top-level nodes:
//!
//! > if the list is not empty and R begins before the last top-level node ends, R adopts that last
//! > node and, walking backwards, every earlier consecutive top-level node that begins no earlier
//! > than R; then R becomes the last top-level node.
//!
//! [`Nesting`] applies exactly that rule. Because a record's ancestors come *after* it in the file,
//! its depth is known only once the whole thread has been seen; so the rebuild keeps one small
//! [`NestSlot`] (24 bytes) per record in a buffer the caller provides, and never allocates. The
//! top-level list needs no storage of its own: top-level nodes cover consecutive ranges of the
//! records, so each slot remembers where its subtree starts and the walk backwards jumps from
//! subtree to subtree. The whole rebuild is linear (each node is adopted at most once), and depth
//! is limited only by the buffer: a thread of N records may nest N deep (upstream gives up at 254).

use crate::error::Error;
use crate::time::Clock;
use tracecap_wire::zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

const NO_PARENT: u32 = u32::MAX;

/// Per-record scratch for [`Nesting`].
///
/// Plain bytes (`repr(C)`, no padding), so a caller may keep the slots of a huge thread outside the
/// heap, for instance in a memory-mapped scratch file viewed with zerocopy.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
#[repr(C)]
pub struct NestSlot {
    begin: u64,
    end: u64,
    /// Index of the first record of this node's subtree.
    first: u32,
    /// While building: index of the parent (or `NO_PARENT`). After [`Nesting::finish`]: depth.
    up: u32,
}

/// Where [`crate::Summary::check`] and other whole-file walks get nesting scratch for a thread of
/// `n` records: a slice gives itself (and the walk fails if it is too small); a `Vec` grows to `n`.
pub trait SlotSource {
    /// Scratch for a thread of `n` records (may be shorter than `n` if it cannot grow).
    fn slots(&mut self, n: usize) -> &mut [NestSlot];
}

impl SlotSource for [NestSlot] {
    #[inline]
    fn slots(&mut self, _n: usize) -> &mut [NestSlot] {
        self
    }
}

#[cfg(feature = "alloc")]
impl SlotSource for alloc::vec::Vec<NestSlot> {
    #[inline]
    fn slots(&mut self, n: usize) -> &mut [NestSlot] {
        if self.len() < n {
            self.resize(n, NestSlot::default());
        }
        self
    }
}

/// The tree rebuild over one thread's records, in file order.
#[derive(Debug)]
pub struct Nesting<'s> {
    slots: &'s mut [NestSlot],
    len: u32,
    roots: u32,
    clock: Clock,
}

impl<'s> Nesting<'s> {
    /// A rebuild over nanosecond times that can hold `slots.len()` records (capped at
    /// `u32::MAX - 1`).
    pub fn new(slots: &'s mut [NestSlot]) -> Self {
        Nesting::with_clock(slots, Clock::NS)
    }

    /// A rebuild over raw timestamps, compared as their nanosecond values (see [`Clock`]).
    pub fn with_clock(slots: &'s mut [NestSlot], clock: Clock) -> Self {
        Nesting {
            slots,
            len: 0,
            roots: 0,
            clock,
        }
    }

    /// Records pushed so far.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// True before the first push.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the next record (times in the clock's unit). Returns how many top-level nodes it
    /// adopted as children, or `None` when the buffer is full.
    #[inline]
    pub fn push(&mut self, begin: u64, end: u64) -> Option<u32> {
        let i = self.len;
        if i == NO_PARENT || self.slots.len() <= i as usize {
            return None;
        }
        let mut first = i;
        let mut adopted = 0u32;
        if i > 0 {
            let last = i - 1; // the previous record is always a top-level node
            if let Some(slot) = self.slots.get_mut(last as usize) {
                if self.clock.lt(begin, slot.end) {
                    slot.up = i;
                    first = slot.first;
                    adopted = 1;
                    while first > 0 {
                        let Some(prev) = self.slots.get_mut((first - 1) as usize) else {
                            break;
                        };
                        if self.clock.lt(prev.begin, begin) {
                            break;
                        }
                        prev.up = i;
                        first = prev.first;
                        adopted += 1;
                    }
                }
            }
        }
        if let Some(slot) = self.slots.get_mut(i as usize) {
            *slot = NestSlot {
                begin,
                end,
                first,
                up: NO_PARENT,
            };
        }
        self.len = i + 1;
        self.roots = self.roots + 1 - adopted;
        Some(adopted)
    }

    /// Ends the thread: computes every record's depth (0 = top level).
    pub fn finish(self) -> Tree<'s> {
        let mut max_depth = 0;
        let n = self.len as usize;
        let slots = self.slots;
        for i in (0..n).rev() {
            let up = slots.get(i).map_or(NO_PARENT, |s| s.up);
            let depth = if up == NO_PARENT {
                0
            } else {
                // The parent comes later in the file, so its `up` already holds its depth.
                slots.get(up as usize).map_or(0, |p| p.up.saturating_add(1))
            };
            if let Some(s) = slots.get_mut(i) {
                s.up = depth;
            }
            max_depth = max_depth.max(depth);
        }
        let slots: &'s [NestSlot] = slots;
        Tree {
            slots: slots.get(..n).unwrap_or(&[]),
            roots: self.roots,
            levels: if n == 0 { 0 } else { max_depth + 1 },
        }
    }
}

/// What [`crate::Thread::nest`] read of a thread: the tree of the records before the first fault,
/// and that fault.
#[derive(Clone, Copy, Debug)]
pub struct Nested<'s> {
    /// The tree of every record read: all of them when `fault` is `None`, else those before it.
    pub tree: Tree<'s>,
    /// The fault that ended the walk early, with its absolute offset: the file's (as
    /// [`crate::Thread::records`] reports it), or a full `"nesting slot"` table
    /// ([`tracecap_wire::ErrorKind::TableFull`]) at the first record that had no slot.
    pub fault: Option<Error>,
}

impl<'s> Nested<'s> {
    /// The tree when every record was read, else the fault.
    pub fn into_result(self) -> Result<Tree<'s>, Error> {
        match self.fault {
            Some(e) => Err(e),
            None => Ok(self.tree),
        }
    }
}

/// The rebuilt tree of one thread: the depth of each record, by its index in file order.
#[derive(Clone, Copy, Debug)]
pub struct Tree<'s> {
    slots: &'s [NestSlot],
    roots: u32,
    levels: u32,
}

impl Tree<'_> {
    /// Depth of record `index` (0 for top-level records).
    #[inline]
    pub fn depth(&self, index: usize) -> Option<u32> {
        self.slots.get(index).map(|s| s.up)
    }

    /// Index of the first record of the subtree of record `index` (itself when it has no
    /// children): a subtree is a run of consecutive records that ends with its root.
    #[inline]
    pub fn first(&self, index: usize) -> Option<u32> {
        self.slots.get(index).map(|s| s.first)
    }

    /// Begin and end of record `index`, as they were pushed.
    #[inline]
    pub fn times(&self, index: usize) -> Option<(u64, u64)> {
        self.slots.get(index).map(|s| (s.begin, s.end))
    }

    /// Number of top-level records.
    pub fn roots(&self) -> u32 {
        self.roots
    }

    /// Number of levels: the greatest depth plus one (0 for an empty thread).
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True for a thread without records.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Depths of all records in file order.
    pub fn depths(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots.iter().map(|s| s.up)
    }
}

/// The same rebuild when only the shape matters (how many levels, how many top-level nodes):
/// instead of a slot per record it keeps a stack of the current top-level nodes, which stays
/// small and hot in cache. [`crate::Events::visit`] (and so [`crate::Summary::check`] and
/// `tracecap validate`) applies the same rule on the same kind of stack, inside its record loop.
///
/// Top-level nodes form a stack: a record adopts a run of nodes from the top, then is pushed. Each
/// entry remembers the height of its subtree, so the number of levels is known without depths.
#[derive(Debug)]
pub struct Forest<'s, S: SlotSource + ?Sized> {
    source: &'s mut S,
    len: usize,
    levels: u32,
    clock: Clock,
}

impl<'s, S: SlotSource + ?Sized> Forest<'s, S> {
    /// An empty forest over nanosecond times whose stack lives in `source` (a fixed slice, or a
    /// `Vec` that grows).
    pub fn new(source: &'s mut S) -> Self {
        Forest::with_clock(source, Clock::NS)
    }

    /// The same over raw timestamps, compared as their nanosecond values (see [`Clock`]).
    pub fn with_clock(source: &'s mut S, clock: Clock) -> Self {
        Forest {
            source,
            len: 0,
            levels: 0,
            clock,
        }
    }

    /// Adds the next record (in the clock's unit). Returns how many top-level nodes it adopted,
    /// or `None` when the stack cannot grow.
    #[inline(always)]
    pub fn push(&mut self, begin: u64, end: u64) -> Option<u32> {
        // Asking for no particular size only hands out the storage (growth is in `grow`).
        let stack = self.source.slots(0);
        let (len, adopted, height) = adopt(stack, self.len, self.clock, begin);
        match stack.get_mut(len) {
            Some(slot) => *slot = NestSlot::top(begin, end, height),
            None => self.grow(len, begin, end, height)?,
        }
        self.len = len + 1;
        self.levels = self.levels.max(height);
        Some(adopted)
    }

    /// Grows the stack and stores a node of this `height` at `len`; `None` when it cannot grow.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, len: usize, begin: u64, end: u64, height: u32) -> Option<()> {
        let have = self.source.slots(0).len();
        let stack = self.source.slots(grown(have, len));
        *stack.get_mut(len)? = NestSlot::top(begin, end, height);
        Some(())
    }

    /// Starts over for a new thread (keeps the stack's storage).
    pub fn clear(&mut self) {
        self.len = 0;
        self.levels = 0;
    }

    /// Greatest depth plus one so far (0 before any record).
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Current number of top-level nodes.
    pub fn roots(&self) -> usize {
        self.len
    }
}

impl NestSlot {
    /// A top-level node of a [`Forest`]: its times and the height of its subtree.
    #[inline(always)]
    pub(crate) fn top(begin: u64, end: u64, height: u32) -> Self {
        NestSlot {
            begin,
            end,
            first: 0,
            up: height,
        }
    }

    /// Makes this slot a top-level node of a [`Forest`] (its `first` is not used there).
    #[inline(always)]
    pub(crate) fn set_top(&mut self, begin: u64, end: u64, height: u32) {
        self.begin = begin;
        self.end = end;
        self.up = height;
    }
}

/// The rule, on a stack of top-level nodes `stack[..len]` (the last one on top) whose `up` holds
/// the height of their subtrees: pops the nodes a record beginning at `begin` adopts. Returns the
/// stack's length after that, how many it adopted, and the height of the record's subtree.
#[inline(always)]
pub(crate) fn adopt(stack: &[NestSlot], len: usize, clock: Clock, begin: u64) -> (usize, u32, u32) {
    let mut len = len;
    let mut adopted = 0u32;
    let mut height = 1u32;
    // `len - 1` wraps for an empty stack, and `get` then finds nothing.
    if let Some(top) = stack.get(len.wrapping_sub(1)) {
        if clock.lt(begin, top.end) {
            let mut tallest = top.up; // height of the tallest adopted subtree
            adopted = 1;
            len -= 1;
            while let Some(prev) = stack.get(len.wrapping_sub(1)) {
                if clock.lt(prev.begin, begin) {
                    break;
                }
                tallest = tallest.max(prev.up);
                adopted += 1;
                len -= 1;
            }
            height = tallest.saturating_add(1);
        }
    }
    (len, adopted, height)
}

/// The size a stack of `have` entries grows to so that index `len` fits.
pub(crate) fn grown(have: usize, len: usize) -> usize {
    have.saturating_mul(2).max(64).max(len.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depths(records: &[(u64, u64)]) -> (Vec<u32>, u32, u32) {
        let mut slots = vec![NestSlot::default(); records.len()];
        let mut n = Nesting::new(&mut slots);
        for &(b, e) in records {
            n.push(b, e).unwrap(); // ok: unit test
        }
        let t = n.finish();
        (t.depths().collect(), t.roots(), t.levels())
    }

    fn firsts(records: &[(u64, u64)]) -> Vec<u32> {
        let mut slots = vec![NestSlot::default(); records.len()];
        let mut n = Nesting::new(&mut slots);
        for &(b, e) in records {
            n.push(b, e).unwrap(); // ok: unit test
        }
        let t = n.finish();
        (0..records.len()).map(|i| t.first(i).unwrap()).collect() // ok: unit test
    }

    #[test]
    fn post_order_tree() {
        // a(0..10) { b(1..4) { c(2..3) }, d(5..9) }, e(11..12)
        let recs = [(2, 3), (1, 4), (5, 9), (0, 10), (11, 12)];
        assert_eq!(depths(&recs), (vec![2, 1, 1, 0, 0], 2, 3));
        assert_eq!(firsts(&recs), vec![0, 0, 2, 0, 4]);
    }

    proptest::proptest! {
        /// The subtree of a record is the records from its first to itself: each of them has a
        /// greater depth, except the record itself, and the record before the first has no
        /// greater depth (a subtree ends where its root is, and begins after an earlier one).
        #[test]
        fn a_subtree_runs_from_its_first_record(recs in proptest::collection::vec((0u64..60, 0u64..60), 0..80)) {
            let (depths, _, _) = depths(&recs);
            for (i, first) in firsts(&recs).into_iter().enumerate() {
                let first = first as usize;
                proptest::prop_assert!(first <= i);
                proptest::prop_assert!(depths[first..i].iter().all(|&d| d > depths[i]));
                if first > 0 {
                    proptest::prop_assert!(depths[first - 1] <= depths[i]);
                }
            }
        }
    }

    #[test]
    fn last_top_level_adopted_even_if_it_begins_earlier() {
        // Upstream adopts the last node whenever R begins before it ends.
        let recs = [(0, 10), (5, 20)];
        assert_eq!(depths(&recs), (vec![1, 0], 1, 2));
        // ...but an earlier one only if it begins no earlier than R.
        let recs = [(0, 3), (4, 10), (2, 20)];
        assert_eq!(depths(&recs), (vec![0, 1, 0], 2, 2));
    }

    #[test]
    fn very_deep() {
        let n = 100_000u64;
        let recs: Vec<(u64, u64)> = (0..n).map(|i| (n - i, n + i + 1)).collect();
        let (d, roots, levels) = depths(&recs);
        assert_eq!(roots, 1);
        assert_eq!(levels, n as u32);
        assert_eq!(d[0], n as u32 - 1);
    }

    fn forest(records: &[(u64, u64)]) -> (u32, usize) {
        let mut stack: Vec<NestSlot> = Vec::new();
        let mut f = Forest::new(&mut stack);
        for &(b, e) in records {
            f.push(b, e).unwrap(); // ok: unit test
        }
        (f.levels(), f.roots())
    }

    proptest::proptest! {
        /// Forest (stack of top-level nodes) and Nesting (slot per record) agree on any input,
        /// sane or not.
        #[test]
        fn forest_agrees_with_nesting(recs in proptest::collection::vec((0u64..60, 0u64..60), 0..80)) {
            let (_, roots, levels) = depths(&recs);
            proptest::prop_assert_eq!(forest(&recs), (levels, roots as usize));
        }
    }

    #[test]
    fn forest_in_a_fixed_stack() {
        let mut stack = [NestSlot::default(); 2];
        let mut f = Forest::new(&mut stack[..]);
        // nested: the stack never holds more than one node
        for i in 0..1000u64 {
            f.push(1000 - i, 1000 + i).unwrap(); // ok: unit test
        }
        assert_eq!((f.levels(), f.roots()), (1000, 1));
        // three siblings need three entries
        f.push(5000, 5001).unwrap(); // ok: unit test
        assert_eq!(f.push(6000, 6001), None);
    }

    #[test]
    fn full_buffer() {
        let mut slots = [NestSlot::default(); 1];
        let mut n = Nesting::new(&mut slots);
        assert_eq!(n.push(0, 1), Some(0));
        assert_eq!(n.push(2, 3), None);
    }
}
