//! The question a record parser asks: which kind of records does a descriptor have?
//!
//! A value record carries no marker of its own; only its descriptor's kind says how to read it.
//! [`KindLookup`] is that question; a plain slice answers it, and so do the tables
//! (`FixedKindTable`, `KindTable`) that read a capture's descriptors.

use crate::descriptor::DescriptorKind;

/// Answers "what kind of records does descriptor `index` have?".
pub trait KindLookup {
    /// The kind of descriptor `index`, or `None` when there is no such descriptor (its records
    /// then read as blocks).
    fn kind(&self, index: u32) -> Option<DescriptorKind>;
}

impl KindLookup for [DescriptorKind] {
    #[inline]
    fn kind(&self, index: u32) -> Option<DescriptorKind> {
        self.get(index as usize).copied()
    }
}
