//! Function names: `FunctionCall.function_id` -> the name of the instrumented function.
//!
//! A capture names the functions it instrumented once, in
//! `CaptureStarted.capture_options.instrumented_functions` ([`InstrumentedFunction`]); function
//! calls carry only the id. [`FunctionLookup`] is the lookup; [`FixedFunctionTable`] fills a
//! fixed-capacity table without allocating (a `TableFull` error past its capacity),
//! [`FunctionTable`] (feature `alloc`) an owned table of any size. Both keep the first name given
//! for an id, borrow the names from the capture, and have the same methods.
//!
//! This module is a table of the top layer: it reads events with [`Capture`] and the views.
//!
#![cfg_attr(not(feature = "alloc"), doc = "[`FunctionTable`]: crate#features")]

use crate::capture::Capture;
use crate::error::Error;
use crate::kind::EventKind;
use crate::table::{FixedMap, Store};
use crate::views::{CaptureOptions, EventView, InstrumentedFunction};

/// What a full table's `TableFull` error names.
const WHAT: &str = "function table";

/// Resolves a `FunctionCall.function_id` to the instrumented function's name.
///
/// ```
/// use tracecap_orbit::{FixedFunctionTable, FunctionLookup};
///
/// fn label<'a>(functions: &impl FunctionLookup<'a>, id: u64) -> &'a str {
///     functions.name(id).unwrap_or("?")
/// }
///
/// // Room for two functions, no allocation; usually filled by `from_capture`.
/// let mut table = FixedFunctionTable::<2>::new();
/// assert!(table.insert(1, "main")?);
/// assert!(!table.insert(1, "other")?); // the first name of an id is kept
/// table.insert(2, "update")?;
/// assert_eq!((label(&table, 1), label(&table, 3)), ("main", "?"));
/// // A third function does not fit.
/// let full = table.insert(3, "render").unwrap_err();
/// assert!(matches!(
///     full.kind,
///     tracecap_orbit::ErrorKind::Shared(tracecap_orbit::SharedKind::TableFull { capacity: 2, .. })
/// ));
/// # Ok::<(), tracecap_orbit::Error>(())
/// ```
pub trait FunctionLookup<'a> {
    /// The name of function `function_id`, if the capture instrumented it.
    fn name(&self, function_id: u64) -> Option<&'a str>;
}

impl<'a, T: FunctionLookup<'a> + ?Sized> FunctionLookup<'a> for &T {
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

/// The methods both tables have, over their `names` store.
macro_rules! function_table {
    ($table:ident) => {
        /// The table of the functions of the capture's first `CaptureStarted` (see
        /// [`capture_options`]).
        pub fn from_capture(capture: &Capture<'a>) -> Result<Self, Error> {
            let mut table = Self::new();
            if let Some(options) = capture_options(capture)? {
                table.add_options(&options)?;
            }
            Ok(table)
        }

        /// Adds every instrumented function of `options`; stops at the first one that does not
        /// parse or does not fit and returns its error (the ones before it are kept).
        pub fn add_options(&mut self, options: &CaptureOptions<'a>) -> Result<(), Error> {
            for function in options.functions() {
                self.add(&function?)?;
            }
            Ok(())
        }

        /// Adds one function: `Ok(false)` when its id already has a name (the first is kept).
        pub fn add(&mut self, function: &InstrumentedFunction<'a>) -> Result<bool, Error> {
            self.names.put(
                function.function_id,
                function.function_name,
                WHAT,
                function.offset,
            )
        }

        /// Adds the name of `function_id`, as
        #[doc = concat!("[`", stringify!($table), "::add`]")]
        /// (a `TableFull` error is at offset 0).
        pub fn insert(&mut self, function_id: u64, name: &'a str) -> Result<bool, Error> {
            self.names.put(function_id, name, WHAT, 0)
        }

        /// How many functions the table holds.
        pub fn len(&self) -> usize {
            self.names.count()
        }

        /// True when it holds none.
        pub fn is_empty(&self) -> bool {
            self.names.count() == 0
        }

        /// `(function_id, name)` pairs by increasing id.
        pub fn iter(&self) -> impl Iterator<Item = (u64, &'a str)> + '_ {
            self.names.entries()
        }
    };
}

/// At most `N` functions in a sorted array, filled without allocating: a lookup is a binary
/// search. A function past the capacity is a `TableFull` error.
#[derive(Clone, Copy, Debug)]
pub struct FixedFunctionTable<'a, const N: usize> {
    names: FixedMap<&'a str, N>,
}

impl<const N: usize> Default for FixedFunctionTable<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, const N: usize> FixedFunctionTable<'a, N> {
    /// An empty table.
    pub const fn new() -> Self {
        FixedFunctionTable {
            names: FixedMap::new(),
        }
    }

    function_table!(FixedFunctionTable);
}

impl<'a, const N: usize> FunctionLookup<'a> for FixedFunctionTable<'a, N> {
    #[inline]
    fn name(&self, function_id: u64) -> Option<&'a str> {
        self.names.get(function_id)
    }
}

#[cfg(feature = "alloc")]
pub use owned::FunctionTable;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::collections::BTreeMap;

    use super::{capture_options, FunctionLookup, WHAT};
    use crate::capture::Capture;
    use crate::error::Error;
    use crate::table::Store;
    use crate::views::{CaptureOptions, InstrumentedFunction};

    /// An owned table of function names (feature `alloc`); it grows by one entry per
    /// `InstrumentedFunction` message read, never by a count read from the file.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct FunctionTable<'a> {
        names: BTreeMap<u64, &'a str>,
    }

    impl<'a> FunctionTable<'a> {
        /// An empty table.
        pub fn new() -> Self {
            Self::default()
        }

        function_table!(FunctionTable);
    }

    impl<'a> FunctionLookup<'a> for FunctionTable<'a> {
        #[inline]
        fn name(&self, function_id: u64) -> Option<&'a str> {
            self.names.get(&function_id).copied()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_keeps_ids_sorted_the_first_name_and_refuses_what_does_not_fit() {
        let mut t = FixedFunctionTable::<3>::new();
        assert_eq!(t.insert(30, "c"), Ok(true));
        assert_eq!(t.insert(10, "a"), Ok(true));
        assert_eq!(t.insert(10, "again"), Ok(false));
        assert_eq!(t.insert(20, "b"), Ok(true));
        assert_eq!(t.insert(20, "again"), Ok(false));
        assert_eq!(t.insert(40, "d"), Err(Error::table_full(WHAT, 3, 0)));
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            [(10, "a"), (20, "b"), (30, "c")]
        );
        assert_eq!(
            [10, 20, 30, 40, 0].map(|id| t.name(id)),
            [Some("a"), Some("b"), Some("c"), None, None]
        );
        let empty = FixedFunctionTable::<0>::new();
        assert_eq!(empty.name(0), None);
    }
}
