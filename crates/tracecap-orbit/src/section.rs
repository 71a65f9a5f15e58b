//! The section list: the additional sections after the capture section (USER_DATA and others).

use tracecap_wire::zerocopy::byteorder::little_endian::U64;
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// Section type of the user data section (frame tracks).
pub const SECTION_USER_DATA: u64 = 1;
/// Orbit rejects section lists with more entries than this.
pub const MAX_SECTIONS: u64 = 65535;
/// Size of one section list entry.
pub const ENTRY_LEN: usize = 24;

/// One section list entry as it sits in the file (little-endian).
#[derive(FromBytes, KnownLayout, Immutable, Unaligned, Debug)]
#[repr(C)]
pub struct RawSection {
    /// Section type (1 = USER_DATA; others are skipped).
    pub section_type: U64,
    /// Absolute offset of the section.
    pub offset: U64,
    /// Size in bytes.
    pub size: U64,
}

/// One additional section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    /// Position in the section list.
    pub index: u32,
    /// Section type (1 = USER_DATA).
    pub section_type: u64,
    /// Absolute offset of its first byte.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

impl Section {
    /// One past the last byte, saturating.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
}

/// Which of the two layouts that both call themselves version 1 a file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Orbit 1.65 and later: u64 section count, the list before USER_DATA, USER_DATA
    /// length-prefixed.
    Current,
    /// Orbit 1.64: u16 section count with entries right after it, the list at the end of the
    /// file, USER_DATA without a length prefix. Orbit itself can no longer read these.
    Orbit164,
}

/// The entries of a section list, in file order.
#[derive(Clone, Copy, Debug)]
pub struct Sections<'a> {
    pub(crate) entries: &'a [u8],
    pub(crate) index: u32,
}

impl<'a> Sections<'a> {
    /// No sections.
    pub const EMPTY: Sections<'static> = Sections {
        entries: &[],
        index: 0,
    };

    /// How many entries are left.
    pub fn len(&self) -> usize {
        self.entries.len() / ENTRY_LEN
    }

    /// True when there is no entry left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Iterator for Sections<'_> {
    type Item = Section;

    fn next(&mut self) -> Option<Section> {
        let (raw, rest) = RawSection::ref_from_prefix(self.entries).ok()?;
        self.entries = rest;
        let s = Section {
            index: self.index,
            section_type: raw.section_type.get(),
            offset: raw.offset.get(),
            size: raw.size.get(),
        };
        self.index = self.index.saturating_add(1);
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len(), Some(self.len()))
    }
}

impl ExactSizeIterator for Sections<'_> {}
impl core::iter::FusedIterator for Sections<'_> {}
