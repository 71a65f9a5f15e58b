//! Descriptor kinds by index, read from a capture: what a record parser needs to tell values from
//! blocks ([`KindLookup`]).
//!
//! Besides a plain slice (fill it yourself), two tables are offered: a fixed-capacity one that
//! needs no allocator ([`FixedKindTable`]), and an owned one sized by the descriptor count
//! ([`KindTable`], feature `alloc`).

use crate::capture::Capture;
use crate::descriptor::DescriptorKind;
use crate::error::Error;
use crate::kind::KindLookup;

/// Kinds of at most `N` descriptors, stored inline: no allocator needed.
#[derive(Clone, Debug)]
pub struct FixedKindTable<const N: usize> {
    kinds: [DescriptorKind; N],
    len: usize,
}

impl<const N: usize> FixedKindTable<N> {
    /// Reads the descriptor section of `capture`; fails with a full `"descriptor kind"` table
    /// ([`tracecap_wire::ErrorKind::TableFull`]) at the first descriptor past `N` (the header's
    /// `descriptors_count` says how many there are).
    pub fn new(capture: &Capture<'_>) -> Result<Self, Error> {
        let mut t = FixedKindTable {
            kinds: [DescriptorKind::Block; N],
            len: 0,
        };
        for d in capture.descriptors() {
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
    /// Reads the descriptor section of `capture`.
    pub fn new(capture: &Capture<'_>) -> Result<Self, Error> {
        let mut kinds = alloc::vec::Vec::new();
        for d in capture.descriptors() {
            kinds.push(d?.kind);
        }
        Ok(KindTable { kinds })
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
