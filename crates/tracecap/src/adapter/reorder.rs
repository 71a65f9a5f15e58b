//! A queue that gives items back in time order, then in the order they came, and costs next to
//! nothing when they already come in that order.
//!
//! Items that come no earlier than the last one kept in order go to the back of a deque, which
//! is therefore sorted; the others go to a min-heap. The earlier of the two fronts comes out
//! first. A trace whose events are mostly in time order (every real one) pays a push and a pop
//! at the ends of the deque per event, instead of a heap's sifting (a copy of the item per level,
//! and items here are events of about a hundred bytes); a trace in any order still costs at most
//! a heap's `O(log n)` per item.

use alloc::collections::{BinaryHeap, VecDeque};
use core::cmp::Ordering;

/// Items in time order, ties in the order they were pushed.
pub(crate) struct Reorder<T> {
    /// Items that came in order: sorted by (time, sequence).
    in_order: VecDeque<Entry<T>>,
    /// Items that came earlier than the back of `in_order`.
    late: BinaryHeap<Entry<T>>,
    /// Sequence number of the next item.
    seq: u64,
}

struct Entry<T> {
    ts: u64,
    seq: u64,
    item: T,
}

impl<T> Entry<T> {
    fn key(&self) -> (u64, u64) {
        (self.ts, self.seq)
    }
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl<T> Eq for Entry<T> {}

impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: the heap's top is the earliest.
        other.key().cmp(&self.key())
    }
}

impl<T> Reorder<T> {
    pub(crate) fn new() -> Self {
        Reorder {
            in_order: VecDeque::new(),
            late: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Adds `item` at time `ts`.
    pub(crate) fn push(&mut self, ts: u64, item: T) {
        let entry = Entry {
            ts,
            seq: self.seq,
            item,
        };
        self.seq += 1;
        // Sequence numbers grow, so an item no earlier than the back keeps the deque sorted.
        if self.in_order.back().is_none_or(|b| b.ts <= ts) {
            self.in_order.push_back(entry);
        } else {
            self.late.push(entry);
        }
    }

    /// Time of the earliest item.
    pub(crate) fn first_time(&self) -> Option<u64> {
        let first = if self.first_is_late()? {
            self.late.peek()
        } else {
            self.in_order.front()
        };
        first.map(|e| e.ts)
    }

    /// Takes the earliest item (of those at the same time, the first pushed).
    pub(crate) fn pop(&mut self) -> Option<(u64, T)> {
        let first = if self.first_is_late()? {
            self.late.pop()
        } else {
            self.in_order.pop_front()
        };
        first.map(|e| (e.ts, e.item))
    }

    /// Whether the earliest item is in the heap rather than at the deque's front; `None` when
    /// both are empty.
    fn first_is_late(&self) -> Option<bool> {
        match (self.in_order.front(), self.late.peek()) {
            (Some(a), Some(b)) => Some(b.key() < a.key()),
            (a, b) => a.or(b).map(|_| b.is_some()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    fn drain(q: &mut Reorder<u32>) -> Vec<(u64, u32)> {
        core::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn ties_keep_the_order_of_pushing() {
        let mut q = Reorder::new();
        for (i, ts) in [5, 3, 5, 3, 9, 1].into_iter().enumerate() {
            q.push(ts, i as u32);
        }
        assert_eq!(q.first_time(), Some(1));
        assert_eq!(
            drain(&mut q),
            [(1, 5), (3, 1), (3, 3), (5, 0), (5, 2), (9, 4)]
        );
        assert_eq!(q.first_time(), None);
    }

    proptest! {
        /// Pushes and pops interleaved in any way give what a stable sort by time gives.
        #[test]
        fn pops_in_the_order_of_a_stable_sort(
            ops in proptest::collection::vec(proptest::option::of(0u64..50), 0..300)
        ) {
            let mut q = Reorder::new();
            let mut model: Vec<(u64, u32)> = Vec::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Some(ts) => {
                        q.push(ts, i as u32);
                        model.push((ts, i as u32));
                    }
                    None => {
                        // The model's earliest: least time, then least push order.
                        let at = model
                            .iter()
                            .enumerate()
                            .min_by_key(|(_, e)| **e)
                            .map(|(j, _)| j);
                        let expected = at.map(|j| model.remove(j));
                        prop_assert_eq!(q.pop(), expected);
                    }
                }
                prop_assert_eq!(q.first_time(), model.iter().map(|e| e.0).min());
            }
            model.sort();
            prop_assert_eq!(drain(&mut q), model);
        }
    }
}
