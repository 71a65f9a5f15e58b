//! Interning tables: strings, callstacks and tracepoint infos by key (feature `alloc`).
//!
//! Sized by the number of definitions in the capture, never by the number of events. Like
//! Orbit's client, the first definition of a key wins; later redefinitions are counted.

use alloc::collections::BTreeMap;

use crate::error::Error;
use crate::event::Event;
use crate::views::{Callstack, EventView, TracepointInfo};

/// The interned definitions of a capture, resolved by key.
#[derive(Clone, Debug, Default)]
pub struct InternTables<'a> {
    strings: BTreeMap<u64, &'a [u8]>,
    callstacks: BTreeMap<u64, Callstack<'a>>,
    tracepoints: BTreeMap<u64, TracepointInfo<'a>>,
    redefinitions: u64,
}

impl<'a> InternTables<'a> {
    /// Empty tables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `event` if it is a definition; returns true when it was one.
    pub fn add(&mut self, event: &Event<'a>) -> Result<bool, Error> {
        match event.view()? {
            EventView::InternedString(s) => {
                self.redefinitions += u64::from(self.strings.contains_key(&s.key));
                self.strings.entry(s.key).or_insert(s.intern);
            }
            EventView::InternedCallstack(c) => {
                let stack = c.callstack()?;
                self.redefinitions += u64::from(self.callstacks.contains_key(&c.key));
                self.callstacks.entry(c.key).or_insert(stack);
            }
            EventView::InternedTracepointInfo(t) => {
                let info = t.info()?;
                self.redefinitions += u64::from(self.tracepoints.contains_key(&t.key));
                self.tracepoints.entry(t.key).or_insert(info);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The string interned under `key`.
    pub fn string(&self, key: u64) -> Option<&'a [u8]> {
        self.strings.get(&key).copied()
    }

    /// The callstack interned under `key`.
    pub fn callstack(&self, key: u64) -> Option<Callstack<'a>> {
        self.callstacks.get(&key).copied()
    }

    /// The tracepoint interned under `key`.
    pub fn tracepoint(&self, key: u64) -> Option<TracepointInfo<'a>> {
        self.tracepoints.get(&key).copied()
    }

    /// Number of interned strings.
    pub fn string_count(&self) -> usize {
        self.strings.len()
    }

    /// Number of interned callstacks.
    pub fn callstack_count(&self) -> usize {
        self.callstacks.len()
    }

    /// Number of interned tracepoints.
    pub fn tracepoint_count(&self) -> usize {
        self.tracepoints.len()
    }

    /// How many definitions re-used a key already defined (the first one was kept).
    pub fn redefinitions(&self) -> u64 {
        self.redefinitions
    }
}
