//! Function names: `FunctionCall.function_id` -> the name of the instrumented function.
//!
//! A capture names the functions it instrumented once, in
//! `CaptureStarted.capture_options.instrumented_functions` ([`InstrumentedFunction`]); function
//! calls carry only the id. [`FunctionNames`] is the lookup; [`FunctionTable`] fills a
//! fixed-capacity table without allocating, [`FunctionMap`] (feature `alloc`) an owned map of any
//! size. Both keep the first name given for an id, and borrow the names from the capture.
//!
//! This module is a table of the top layer: it reads events with [`Capture`] and the views.

use crate::capture::Capture;
use crate::error::Error;
use crate::kind::EventKind;
use crate::views::{CaptureOptions, EventView, InstrumentedFunction};

/// Resolves a `FunctionCall.function_id` to the instrumented function's name.
pub trait FunctionNames<'a> {
    /// The name of function `function_id`, if the capture instrumented it.
    fn name(&self, function_id: u64) -> Option<&'a str>;
}

impl<'a, T: FunctionNames<'a> + ?Sized> FunctionNames<'a> for &T {
    fn name(&self, function_id: u64) -> Option<&'a str> {
        (**self).name(function_id)
    }
}

/// The options of the capture's first `CaptureStarted` (Orbit writes it as the first event), or
/// `None` when no event before the end is one. Reads events up to that one; the first error of
/// an event before it is returned.
pub fn capture_options<'a>(capture: &Capture<'a>) -> Result<Option<CaptureOptions<'a>>, Error> {
    for event in capture.events() {
        let event = event?;
        if event.kind != EventKind::CaptureStarted {
            continue;
        }
        if let EventView::CaptureStarted(started) = event.view()? {
            return started.options().map(Some);
        }
    }
    Ok(None)
}

/// A sorted table of at most `N` functions, filled without allocating: a lookup is a binary
/// search. Functions beyond `N` are not kept and are counted ([`FunctionTable::dropped`]).
#[derive(Clone, Copy, Debug)]
pub struct FunctionTable<'a, const N: usize> {
    ids: [u64; N],
    names: [&'a str; N],
    len: usize,
    dropped: u64,
}

impl<const N: usize> Default for FunctionTable<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, const N: usize> FunctionTable<'a, N> {
    /// An empty table.
    pub const fn new() -> Self {
        FunctionTable {
            ids: [0; N],
            names: [""; N],
            len: 0,
            dropped: 0,
        }
    }

    /// The table of the functions of the capture's first `CaptureStarted` (see
    /// [`capture_options`]).
    pub fn from_capture(capture: &Capture<'a>) -> Result<Self, Error> {
        let mut table = Self::new();
        if let Some(options) = capture_options(capture)? {
            table.add_options(&options)?;
        }
        Ok(table)
    }

    /// Adds every instrumented function of `options`; stops at the first one that does not parse
    /// and returns its error (the ones before it are kept).
    pub fn add_options(&mut self, options: &CaptureOptions<'a>) -> Result<(), Error> {
        for function in options.functions() {
            self.add(&function?);
        }
        Ok(())
    }

    /// Adds one function. False when the id already has a name (the first is kept) or the table
    /// is full (counted in [`FunctionTable::dropped`]).
    pub fn add(&mut self, function: &InstrumentedFunction<'a>) -> bool {
        self.insert(function.function_id, function.function_name)
    }

    /// Adds the name of `function_id`, as [`FunctionTable::add`].
    pub fn insert(&mut self, function_id: u64, name: &'a str) -> bool {
        let ids = self.ids.get(..self.len).unwrap_or(&[]);
        let at = match ids.binary_search(&function_id) {
            Ok(_) => return false,
            Err(at) => at,
        };
        if self.len == N {
            self.dropped = self.dropped.saturating_add(1);
            return false;
        }
        // Shift the tail up by one and put the new entry at its sorted place.
        if let (Some(ids), Some(names)) = (
            self.ids.get_mut(at..=self.len),
            self.names.get_mut(at..=self.len),
        ) {
            ids.rotate_right(1);
            names.rotate_right(1);
            if let (Some(id), Some(n)) = (ids.first_mut(), names.first_mut()) {
                *id = function_id;
                *n = name;
            }
            self.len += 1;
            return true;
        }
        false
    }

    /// How many functions the table holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many functions did not fit.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// `(function_id, name)` pairs by increasing id.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &'a str)> + '_ {
        self.ids
            .iter()
            .copied()
            .zip(self.names.iter().copied())
            .take(self.len)
    }
}

impl<'a, const N: usize> FunctionNames<'a> for FunctionTable<'a, N> {
    fn name(&self, function_id: u64) -> Option<&'a str> {
        let ids = self.ids.get(..self.len)?;
        let at = ids.binary_search(&function_id).ok()?;
        self.names.get(at).copied()
    }
}

#[cfg(feature = "alloc")]
pub use owned::FunctionMap;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::collections::BTreeMap;

    use super::{capture_options, FunctionNames};
    use crate::capture::Capture;
    use crate::error::Error;
    use crate::views::{CaptureOptions, InstrumentedFunction};

    /// An owned map of function names (feature `alloc`); it grows by one entry per
    /// `InstrumentedFunction` message read, never by a count read from the file.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct FunctionMap<'a> {
        names: BTreeMap<u64, &'a str>,
    }

    impl<'a> FunctionMap<'a> {
        /// An empty map.
        pub fn new() -> Self {
            Self::default()
        }

        /// The map of the functions of the capture's first `CaptureStarted` (see
        /// [`capture_options`]).
        pub fn from_capture(capture: &Capture<'a>) -> Result<Self, Error> {
            let mut map = Self::new();
            if let Some(options) = capture_options(capture)? {
                map.add_options(&options)?;
            }
            Ok(map)
        }

        /// Adds every instrumented function of `options`; stops at the first one that does not
        /// parse and returns its error (the ones before it are kept).
        pub fn add_options(&mut self, options: &CaptureOptions<'a>) -> Result<(), Error> {
            for function in options.functions() {
                self.add(&function?);
            }
            Ok(())
        }

        /// Adds one function; false when its id already has a name (the first is kept).
        pub fn add(&mut self, function: &InstrumentedFunction<'a>) -> bool {
            self.insert(function.function_id, function.function_name)
        }

        /// Adds the name of `function_id`, as [`FunctionMap::add`].
        pub fn insert(&mut self, function_id: u64, name: &'a str) -> bool {
            match self.names.entry(function_id) {
                alloc::collections::btree_map::Entry::Occupied(_) => false,
                alloc::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(name);
                    true
                }
            }
        }

        /// How many functions the map holds.
        pub fn len(&self) -> usize {
            self.names.len()
        }

        /// True when it holds none.
        pub fn is_empty(&self) -> bool {
            self.names.is_empty()
        }

        /// `(function_id, name)` pairs by increasing id.
        pub fn iter(&self) -> impl Iterator<Item = (u64, &'a str)> + '_ {
            self.names.iter().map(|(&id, &name)| (id, name))
        }
    }

    impl<'a> FunctionNames<'a> for FunctionMap<'a> {
        fn name(&self, function_id: u64) -> Option<&'a str> {
            self.names.get(&function_id).copied()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_keeps_ids_sorted_the_first_name_and_counts_what_does_not_fit() {
        let mut t = FunctionTable::<3>::new();
        assert!(t.insert(30, "c"));
        assert!(t.insert(10, "a"));
        assert!(!t.insert(10, "again"));
        assert!(t.insert(20, "b"));
        assert!(!t.insert(40, "d"));
        assert_eq!(t.dropped(), 1);
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            [(10, "a"), (20, "b"), (30, "c")]
        );
        assert_eq!(
            [10, 20, 30, 40, 0].map(|id| t.name(id)),
            [Some("a"), Some("b"), Some("c"), None, None]
        );
        let empty = FunctionTable::<0>::new();
        assert_eq!(empty.name(0), None);
    }
}
