//! The storage under the lookup tables: values by `u64` key, the first value of a key kept.
//! [`FixedMap`] is a sorted array that never allocates ([`ErrorKind::TableFull`] when full); with
//! `alloc` a `BTreeMap` does the same without a capacity.
//!
//! [`ErrorKind::TableFull`]: tracecap_wire::ErrorKind::TableFull

use crate::error::Error;

/// Values by key; [`Store::put`] keeps the first value of a key.
pub(crate) trait Store<V: Copy> {
    /// The value of `key`.
    fn get(&self, key: u64) -> Option<V>;
    /// Adds `value` under `key`: `Ok(false)` when the key already has one (kept), a `TableFull`
    /// error naming `what` at `offset` when there is no room.
    fn put(&mut self, key: u64, value: V, what: &'static str, offset: u64) -> Result<bool, Error>;
    /// How many keys it holds.
    fn count(&self) -> usize;
    /// `(key, value)` pairs by increasing key.
    fn entries(&self) -> impl Iterator<Item = (u64, V)> + '_;
}

/// At most `N` values in key order, without allocating: a lookup is a binary search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FixedMap<V, const N: usize> {
    keys: [u64; N],
    values: [Option<V>; N],
    len: usize,
}

impl<V: Copy, const N: usize> FixedMap<V, N> {
    pub(crate) const fn new() -> Self {
        FixedMap {
            keys: [0; N],
            values: [None; N],
            len: 0,
        }
    }
}

impl<V: Copy, const N: usize> Store<V> for FixedMap<V, N> {
    #[inline]
    fn get(&self, key: u64) -> Option<V> {
        let keys = self.keys.get(..self.len)?;
        let at = keys.binary_search(&key).ok()?;
        self.values.get(at).copied().flatten()
    }

    fn put(&mut self, key: u64, value: V, what: &'static str, offset: u64) -> Result<bool, Error> {
        let keys = self.keys.get(..self.len).unwrap_or(&[]);
        let at = match keys.binary_search(&key) {
            Ok(_) => return Ok(false),
            Err(at) => at,
        };
        // Shift the tail up by one and put the new entry at its sorted place.
        match (
            self.keys.get_mut(at..=self.len),
            self.values.get_mut(at..=self.len),
        ) {
            (Some(keys), Some(values)) => {
                keys.rotate_right(1);
                values.rotate_right(1);
                if let (Some(k), Some(v)) = (keys.first_mut(), values.first_mut()) {
                    *k = key;
                    *v = Some(value);
                }
                self.len += 1;
                Ok(true)
            }
            _ => Err(Error::table_full(what, N as u64, offset)),
        }
    }

    fn count(&self) -> usize {
        self.len
    }

    fn entries(&self) -> impl Iterator<Item = (u64, V)> + '_ {
        self.keys
            .iter()
            .zip(self.values.iter())
            .take(self.len)
            .filter_map(|(&k, v)| Some((k, (*v)?)))
    }
}

#[cfg(feature = "alloc")]
impl<V: Copy> Store<V> for alloc::collections::BTreeMap<u64, V> {
    #[inline]
    fn get(&self, key: u64) -> Option<V> {
        self.get(&key).copied()
    }

    fn put(&mut self, key: u64, value: V, _: &'static str, _: u64) -> Result<bool, Error> {
        match self.entry(key) {
            alloc::collections::btree_map::Entry::Occupied(_) => Ok(false),
            alloc::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(value);
                Ok(true)
            }
        }
    }

    fn count(&self) -> usize {
        self.len()
    }

    fn entries(&self) -> impl Iterator<Item = (u64, V)> + '_ {
        self.iter().map(|(&k, &v)| (k, v))
    }
}
