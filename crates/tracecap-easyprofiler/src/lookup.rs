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
///
/// Implemented by [`FixedKindTable`], [`KindTable`], a slice of kinds, and a reference to any of
/// them (so a walk can borrow a table instead of taking it).
///
/// ```
/// use tracecap_easyprofiler::{Capture, DescriptorKind, FixedKindTable, KindLookup};
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
/// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
/// let capture = Capture::parse(&bytes)?;
/// let table = FixedKindTable::<4096>::new(&capture)?;
/// let kinds: &[DescriptorKind] = table.as_slice(); // a slice answers too
/// assert_eq!(kinds.kind(0), table.kind(0));
/// assert_eq!(table.kind(u32::MAX), None); // no such descriptor: read as a block
/// # Ok::<(), tracecap_easyprofiler::Error>(())
/// ```
#[cfg_attr(not(feature = "alloc"), doc = "[`KindTable`]: crate#features")]
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
///
/// A capture with more than `N` descriptors is an error (a full table) when the table is built.
///
/// ```
/// use tracecap_easyprofiler::{Capture, FixedKindTable, SharedKind};
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
/// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
/// let capture = Capture::parse(&bytes)?;
/// let table = FixedKindTable::<4096>::new(&capture)?;
/// assert_eq!(table.as_slice().len(), capture.header().descriptors_count as usize);
/// let small = FixedKindTable::<1>::new(&capture).unwrap_err();
/// assert!(matches!(small.shared(), Some(SharedKind::TableFull { .. })));
/// # Ok::<(), tracecap_easyprofiler::Error>(())
/// ```
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
///
/// ```
/// use tracecap_easyprofiler::{Capture, KindLookup, KindTable};
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
/// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
/// let capture = Capture::parse(&bytes)?;
/// let table = KindTable::new(&capture)?;
/// assert_eq!(table.as_slice().len(), capture.header().descriptors_count as usize);
/// let mut events = capture.events_with(&table); // borrowed: the table stays here
/// assert!(events.next().is_some());
/// assert_eq!(table.kind(0), table.as_slice().first().copied());
/// # Ok::<(), tracecap_easyprofiler::Error>(())
/// ```
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
