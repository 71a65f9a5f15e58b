//! Interning tables: strings, callstacks and tracepoint infos by key.
//!
//! [`InternLookup`] is the lookup; [`FixedInternTable`] fills fixed-capacity tables without
//! allocating (a `TableFull` error past a capacity), [`InternTable`] (feature `alloc`) owned
//! tables of any size. Both have the same methods. They grow with the number of definitions in
//! the capture, never with the number of events. Like Orbit's client, the first definition of a
//! key wins; later redefinitions are counted.
//!
//! ```
//! use tracecap_orbit::intern::{FixedInternTable, InternLookup};
//! use tracecap_orbit::Capture;
//!
//! // Header, InternedString{key: 7, intern: "main"}, CaptureFinished{}.
//! let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
//! file.extend_from_slice(&[11, 0x92, 0x01, 8, 0x08, 7, 0x12, 4]);
//! file.extend_from_slice(b"main");
//! file.extend_from_slice(&[3, 0xda, 0x01, 0]);
//!
//! let capture = Capture::parse(&file)?;
//! let mut table = FixedInternTable::<16, 16, 16>::new();
//! for event in capture.events() {
//!     table.add(&event?)?;
//! }
//! assert_eq!(table.string(7), Some(&b"main"[..]));
//! # Ok::<(), tracecap_orbit::Error>(())
//! ```
//!
#![cfg_attr(not(feature = "alloc"), doc = "[`InternTable`]: crate#features")]

use crate::error::Error;
use crate::event::Event;
use crate::table::{FixedMap, Store};
use crate::views::{Callstack, EventView, TracepointInfo};

/// Resolves the keys of interned definitions.
///
/// A table learns the definitions from the events ([`FixedInternTable::add`] or
/// `InternTable::add`); code that only resolves keys takes any `impl InternLookup`:
///
/// ```
/// use tracecap_orbit::{Capture, FixedInternTable, InternLookup};
///
/// fn name<'a>(table: &impl InternLookup<'a>, key: u64) -> &'a [u8] {
///     table.string(key).unwrap_or(b"?")
/// }
///
/// // InternedString{key: 7, intern: "main"}, then CaptureFinished{}.
/// let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
/// file.extend_from_slice(&[11, 0x92, 0x01, 8, 0x08, 7, 0x12, 4]);
/// file.extend_from_slice(b"main");
/// file.extend_from_slice(&[3, 0xda, 0x01, 0]);
/// let capture = Capture::parse(&file)?;
/// // At most 16 strings, 4 callstacks and 4 tracepoints; no allocation.
/// let mut table = FixedInternTable::<16, 4, 4>::new();
/// for event in capture.events() {
///     table.add(&event?)?;
/// }
/// assert_eq!(name(&table, 7), b"main");
/// assert_eq!(table.string_count(), 1);
/// # Ok::<(), tracecap_orbit::Error>(())
/// ```
pub trait InternLookup<'a> {
    /// The string interned under `key`.
    fn string(&self, key: u64) -> Option<&'a [u8]>;
    /// The callstack interned under `key`.
    fn callstack(&self, key: u64) -> Option<Callstack<'a>>;
    /// The tracepoint interned under `key`.
    fn tracepoint(&self, key: u64) -> Option<TracepointInfo<'a>>;
}

impl<'a, T: InternLookup<'a> + ?Sized> InternLookup<'a> for &T {
    fn string(&self, key: u64) -> Option<&'a [u8]> {
        (**self).string(key)
    }
    fn callstack(&self, key: u64) -> Option<Callstack<'a>> {
        (**self).callstack(key)
    }
    fn tracepoint(&self, key: u64) -> Option<TracepointInfo<'a>> {
        (**self).tracepoint(key)
    }
}

/// The methods both tables have, over their `strings`, `callstacks` and `tracepoints` stores.
macro_rules! intern_table {
    () => {
        /// Records `event` if it is a definition; returns true when it was one. A definition
        /// that does not fit is a `TableFull` error at the event.
        pub fn add(&mut self, event: &Event<'a>) -> Result<bool, Error> {
            let at = event.offset;
            let new = match event.view()? {
                EventView::InternedString(s) => {
                    self.strings.put(s.key, s.intern, "interned strings", at)?
                }
                EventView::InternedCallstack(c) => {
                    let stack = c.callstack()?;
                    self.callstacks
                        .put(c.key, stack, "interned callstacks", at)?
                }
                EventView::InternedTracepointInfo(t) => {
                    let info = t.info()?;
                    self.tracepoints
                        .put(t.key, info, "interned tracepoints", at)?
                }
                _ => return Ok(false),
            };
            self.redefinitions += u64::from(!new);
            Ok(true)
        }

        /// Number of interned strings.
        pub fn string_count(&self) -> usize {
            self.strings.count()
        }

        /// Number of interned callstacks.
        pub fn callstack_count(&self) -> usize {
            self.callstacks.count()
        }

        /// Number of interned tracepoints.
        pub fn tracepoint_count(&self) -> usize {
            self.tracepoints.count()
        }

        /// How many definitions re-used a key already defined (the first one was kept).
        pub fn redefinitions(&self) -> u64 {
            self.redefinitions
        }
    };
}

/// The [`InternLookup`] answers of a table with `strings`, `callstacks` and `tracepoints` stores.
macro_rules! intern_lookup {
    () => {
        #[inline]
        fn string(&self, key: u64) -> Option<&'a [u8]> {
            Store::get(&self.strings, key)
        }
        #[inline]
        fn callstack(&self, key: u64) -> Option<Callstack<'a>> {
            Store::get(&self.callstacks, key)
        }
        #[inline]
        fn tracepoint(&self, key: u64) -> Option<TracepointInfo<'a>> {
            Store::get(&self.tracepoints, key)
        }
    };
}

/// Fixed-capacity tables: at most `S` strings, `C` callstacks and `T` tracepoints, in sorted
/// arrays (a lookup is a binary search), filled without allocating.
#[derive(Clone, Copy, Debug)]
pub struct FixedInternTable<'a, const S: usize, const C: usize, const T: usize> {
    strings: FixedMap<&'a [u8], S>,
    callstacks: FixedMap<Callstack<'a>, C>,
    tracepoints: FixedMap<TracepointInfo<'a>, T>,
    redefinitions: u64,
}

impl<const S: usize, const C: usize, const T: usize> Default for FixedInternTable<'_, S, C, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, const S: usize, const C: usize, const T: usize> FixedInternTable<'a, S, C, T> {
    /// Empty tables.
    pub const fn new() -> Self {
        FixedInternTable {
            strings: FixedMap::new(),
            callstacks: FixedMap::new(),
            tracepoints: FixedMap::new(),
            redefinitions: 0,
        }
    }

    intern_table!();
}

impl<'a, const S: usize, const C: usize, const T: usize> InternLookup<'a>
    for FixedInternTable<'a, S, C, T>
{
    intern_lookup!();
}

#[cfg(feature = "alloc")]
pub use owned::InternTable;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::collections::BTreeMap;

    use super::InternLookup;
    use crate::error::Error;
    use crate::event::Event;
    use crate::table::Store;
    use crate::views::{Callstack, EventView, TracepointInfo};

    /// Owned tables of any size (feature `alloc`).
    #[derive(Clone, Debug, Default)]
    pub struct InternTable<'a> {
        strings: BTreeMap<u64, &'a [u8]>,
        callstacks: BTreeMap<u64, Callstack<'a>>,
        tracepoints: BTreeMap<u64, TracepointInfo<'a>>,
        redefinitions: u64,
    }

    impl<'a> InternTable<'a> {
        /// Empty tables.
        pub fn new() -> Self {
            Self::default()
        }

        intern_table!();
    }

    impl<'a> InternLookup<'a> for InternTable<'a> {
        intern_lookup!();
    }
}
