//! Descriptor kinds by index: what a record parser needs to tell values from blocks.
//!
//! A value record carries no marker of its own; only its descriptor's kind says how to read it.
//! [`KindLookup`] is that question. Three answers are offered: a plain slice (fill it yourself), a
//! fixed-capacity table that needs no allocator ([`FixedKindTable`]), and an owned one sized by the
//! descriptor count ([`KindTable`], feature `alloc`). The tables' `new`, which reads the descriptors
//! of a [`crate::Capture`], is defined with the capture, in `capture.rs`.

use crate::descriptor::{DescriptorKind, Descriptors};
use crate::error::Error;

/// Answers "what kind of records does descriptor `index` have?".
pub trait KindLookup {
    /// The kind of descriptor `index`, or `None` when there is no such descriptor (its records
    /// then read as blocks).
    fn kind(&self, index: u32) -> Option<DescriptorKind>;
}

impl<K: KindLookup + ?Sized> KindLookup for &K {
    #[inline(always)]
    fn kind(&self, index: u32) -> Option<DescriptorKind> {
        (**self).kind(index)
    }
}

impl KindLookup for [DescriptorKind] {
    #[inline]
    fn kind(&self, index: u32) -> Option<DescriptorKind> {
        self.get(index as usize).copied()
    }
}

/// Kinds of at most `N` descriptors, stored inline: no allocator needed.
#[derive(Clone, Debug)]
pub struct FixedKindTable<const N: usize> {
    kinds: [DescriptorKind; N],
    len: usize,
}

impl<const N: usize> FixedKindTable<N> {
    /// Reads `descriptors` (see [`FixedKindTable::new`], which reads those of a capture).
    pub(crate) fn from_descriptors(descriptors: Descriptors<'_>) -> Result<Self, Error> {
        let mut t = FixedKindTable {
            kinds: [DescriptorKind::Block; N],
            len: 0,
        };
        for d in descriptors {
            let d = d?;
            let slot = t
                .kinds
                .get_mut(t.len)
                .ok_or_else(|| Error::table_full("descriptor kind", N as u64, d.offset))?;
            *slot = d.kind;
            t.len = t.len.saturating_add(1);
        }
        Ok(t)
    }

    /// The kinds read.
    pub fn as_slice(&self) -> &[DescriptorKind] {
        self.kinds.get(..self.len).unwrap_or(&[])
    }
}

impl<const N: usize> KindLookup for FixedKindTable<N> {
    #[inline]
    fn kind(&self, index: u32) -> Option<DescriptorKind> {
        self.as_slice().kind(index)
    }
}

/// Kinds of every descriptor, owned (one byte-sized entry per descriptor actually in the file).
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default)]
pub struct KindTable {
    kinds: alloc::vec::Vec<DescriptorKind>,
}

#[cfg(feature = "alloc")]
impl KindTable {
    /// Reads `descriptors` (see [`KindTable::new`], which reads those of a capture).
    pub(crate) fn from_descriptors(descriptors: Descriptors<'_>) -> Result<Self, Error> {
        let mut kinds = alloc::vec::Vec::new();
        for d in descriptors {
            kinds.push(d?.kind);
        }
        Ok(KindTable { kinds })
    }

    /// The kinds of the descriptors before the first damaged one (all of them in a sound file).
    pub(crate) fn up_to_fault(descriptors: Descriptors<'_>) -> Self {
        KindTable {
            kinds: descriptors.map_while(Result::ok).map(|d| d.kind).collect(),
        }
    }

    /// The kinds read.
    pub fn as_slice(&self) -> &[DescriptorKind] {
        &self.kinds
    }
}

#[cfg(feature = "alloc")]
impl KindLookup for KindTable {
    #[inline]
    fn kind(&self, index: u32) -> Option<DescriptorKind> {
        self.kinds.as_slice().kind(index)
    }
}
