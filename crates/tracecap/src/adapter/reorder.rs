//! A queue that gives items back in time order, then in the order they came, and costs next to
//! nothing when they already come in that order.
//!
//! Items that come no earlier than the last one kept in order go to the back of a deque, which
//! is therefore sorted; the others go to a min-heap. The earlier of the two fronts comes out
//! first. A trace whose events are mostly in time order (every real one) pays a push and a pop
//! at the ends of the deque per event, instead of a heap's sifting (a copy of the item per
//! level); a trace in any order still costs at most a heap's `O(log n)` per item. Only the
//! heap's items carry a sequence number: the deque's order is their push order, and on equal
//! times the deque's front was pushed before the heap's top (see [`Reorder::push`]).

use alloc::collections::{BinaryHeap, VecDeque};
use core::cmp::Ordering;

/// Items in time order, ties in the order they were pushed.
pub(crate) struct Reorder<T> {
    /// Items that came in order, with their times: sorted by time, then push order.
    in_order: VecDeque<(u64, T)>,
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
    ///
    /// An item goes to the heap only when it is earlier than the deque's back, which stays in the
    /// deque (as does every later back) until that item is popped. So while an item is in the
    /// heap, no item at its time or earlier joins the deque: on equal times, the deque's front
    /// was pushed first.
    pub(crate) fn push(&mut self, ts: u64, item: T) {
        if self.in_order.back().is_none_or(|b| b.0 <= ts) {
            self.in_order.push_back((ts, item));
        } else {
            self.late.push(Entry {
                ts,
                seq: self.seq,
                item,
            });
            self.seq += 1;
        }
    }

    /// Time of the earliest item.
    pub(crate) fn first_time(&self) -> Option<u64> {
        if self.first_is_late()? {
            self.late.peek().map(|e| e.ts)
        } else {
            self.in_order.front().map(|e| e.0)
        }
    }

    /// Takes the earliest item (of those at the same time, the first pushed).
    pub(crate) fn pop(&mut self) -> Option<(u64, T)> {
        if self.first_is_late()? {
            self.late.pop().map(|e| (e.ts, e.item))
        } else {
            self.in_order.pop_front()
        }
    }

    /// Every item, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.in_order
            .iter()
            .map(|(_, item)| item)
            .chain(self.late.iter().map(|e| &e.item))
    }

    /// Whether the earliest item is in the heap rather than at the deque's front; `None` when
    /// both are empty.
    fn first_is_late(&self) -> Option<bool> {
        match (self.in_order.front(), self.late.peek()) {
            // On equal times the deque's front came first (see `push`).
            (Some(a), Some(b)) => Some(b.ts < a.0),
            (Some(_), None) => Some(false),
            (None, Some(_)) => Some(true),
            (None, None) => None,
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
