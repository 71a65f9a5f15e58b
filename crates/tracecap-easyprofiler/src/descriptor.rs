//! Block descriptors: what a record's id refers to (name, source location, colour, kind).

use tracecap_wire::zerocopy::byteorder::little_endian::{I32, U16, U32};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::Reader;

use crate::error::{Error, ErrorKind};
use tracecap_wire::Context;

/// What records of a descriptor are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DescriptorKind {
    /// An instant (begin == end).
    Event,
    /// A block with a duration.
    #[default]
    Block,
    /// A value record (2.0+): 34-byte prefix and typed data.
    Value,
    /// A kind byte no writer produces; its records are read as blocks.
    Unknown(u8),
}

impl DescriptorKind {
    /// Decodes the type byte (0 event, 1 block, 2 value).
    pub const fn from_u8(b: u8) -> Self {
        match b {
            0 => DescriptorKind::Event,
            1 => DescriptorKind::Block,
            2 => DescriptorKind::Value,
            other => DescriptorKind::Unknown(other),
        }
    }

    /// The type byte.
    pub const fn to_u8(self) -> u8 {
        match self {
            DescriptorKind::Event => 0,
            DescriptorKind::Block => 1,
            DescriptorKind::Value => 2,
            DescriptorKind::Unknown(b) => b,
        }
    }

    /// Lower-case name: `event`, `block`, `value` or `unknown`.
    pub const fn name(self) -> &'static str {
        match self {
            DescriptorKind::Event => "event",
            DescriptorKind::Block => "block",
            DescriptorKind::Value => "value",
            DescriptorKind::Unknown(_) => "unknown",
        }
    }
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Fixed {
    id: U32,
    line: I32,
    color: U32,
    kind: u8,
    status: u8,
    name_len: U16,
}

/// Bytes of the fixed part of a descriptor.
pub const DESCRIPTOR_FIXED_SIZE: u16 = 16;

/// One descriptor, borrowing its strings from the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor<'a> {
    /// Absolute offset of the record's size field.
    pub offset: u64,
    /// Position in the descriptor list (what records refer to).
    pub index: u32,
    /// The id stored in the descriptor (equal to `index` in files written by EasyProfiler).
    pub id: u32,
    /// Source line.
    pub line: i32,
    /// Colour, ARGB.
    pub color: u32,
    /// Kind of the records that use it.
    pub kind: DescriptorKind,
    /// Status bits (informational: 0 off, 1 on, 3 force on, 4 off recursive, 5/7 without children).
    pub status: u8,
    /// Name, without its NUL.
    pub name: &'a [u8],
    /// Source file, without its NUL.
    pub file: &'a [u8],
    /// True for a zero-sized entry (the reader keeps an empty slot for it).
    pub empty: bool,
}

impl<'a> Descriptor<'a> {
    /// Reads one descriptor (size field included) at `r`.
    pub fn read(r: &mut Reader<'a>, index: u32) -> Result<Descriptor<'a>, Error> {
        let offset = r.offset();
        let size = r.u16_le().what("descriptor size")?;
        if size == 0 {
            return Ok(Descriptor {
                offset,
                index,
                id: index,
                line: 0,
                color: 0,
                kind: DescriptorKind::Event,
                status: 0,
                name: &[],
                file: &[],
                empty: true,
            });
        }
        let mut body = r.sub(u64::from(size)).what("descriptor")?;
        let fixed: &Fixed = body.view().map_err(|_| {
            Error::new(
                ErrorKind::RecordTooShort {
                    what: "descriptor",
                    size,
                    min: DESCRIPTOR_FIXED_SIZE,
                },
                offset,
            )
        })?;
        let name_len = fixed.name_len.get();
        let name_at = body.offset();
        let name = body
            .bytes(usize::from(name_len))
            .map_err(|_| Error::new(ErrorKind::DescriptorNameTooLong { name_len }, name_at))?;
        Ok(Descriptor {
            offset,
            index,
            id: fixed.id.get(),
            line: fixed.line.get(),
            color: fixed.color.get(),
            kind: DescriptorKind::from_u8(fixed.kind),
            status: fixed.status,
            name: until_nul(name),
            file: until_nul(body.rest()),
            empty: false,
        })
    }
}

/// The bytes before the first NUL (all of them when there is none, as a C reader would see a
/// string that runs to the end of its buffer).
pub(crate) fn until_nul(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(n) => b.get(..n).unwrap_or(b),
        None => b,
    }
}

/// Iterator over the descriptor section, in file order.
#[derive(Clone, Debug)]
pub struct Descriptors<'a> {
    r: Reader<'a>,
    next: u32,
    count: u32,
    failed: bool,
}

impl<'a> Descriptors<'a> {
    pub(crate) fn new(r: Reader<'a>, count: u32) -> Self {
        Descriptors {
            r,
            next: 0,
            count,
            failed: false,
        }
    }

    /// Reads past every descriptor and returns a reader positioned after the section.
    pub(crate) fn skip_all(mut self) -> Result<Reader<'a>, Error> {
        for d in self.by_ref() {
            d?;
        }
        Ok(self.r)
    }
}

impl<'a> Iterator for Descriptors<'a> {
    type Item = Result<Descriptor<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.next >= self.count {
            return None;
        }
        let d = Descriptor::read(&mut self.r, self.next);
        self.failed = d.is_err();
        self.next = self.next.saturating_add(1);
        Some(d)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // Each descriptor takes at least its 2-byte size field: never promise more than fits.
        let left = self.count.saturating_sub(self.next) as usize;
        (0, Some(left.min(self.r.remaining() / 2)))
    }
}

impl core::iter::FusedIterator for Descriptors<'_> {}
