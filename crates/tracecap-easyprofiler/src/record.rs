//! Thread records: blocks, events and values. Every record is a `u16` size and that many bytes.

use tracecap_wire::zerocopy::byteorder::little_endian::{U16, U64};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};
use tracecap_wire::Reader;

use crate::descriptor::DescriptorKind;
use crate::error::{Error, ErrorKind};
use crate::value::{DataType, Elements};
use tracecap_wire::Context;

/// Begin, end and descriptor id: the start of every block, event and value payload.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct RecordHead {
    pub(crate) begin: U64,
    pub(crate) end: U64,
    pub(crate) id: tracecap_wire::zerocopy::byteorder::little_endian::U32,
}

/// What follows [`RecordHead`] in a value record.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct ValueHead {
    pub(crate) name_stub: u8,
    pub(crate) padding: u8,
    pub(crate) data_size: U16,
    pub(crate) data_type: u8,
    pub(crate) is_array: u8,
    pub(crate) value_id: U64,
}

/// Bytes of a block payload with an empty name (20 fixed + the NUL).
pub const BLOCK_MIN_SIZE: u16 = 21;
/// Bytes of a value payload before its data.
pub const VALUE_FIXED_SIZE: u16 = 34;

/// A block or an event (an event is a block whose begin equals its end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block<'a> {
    /// Absolute offset of the record's size field.
    pub offset: u64,
    /// Start, in the file's time unit.
    pub begin: u64,
    /// End, in the file's time unit.
    pub end: u64,
    /// Index of the descriptor.
    pub id: u32,
    /// The run-time name stored in the record (empty for most blocks), without its NUL.
    pub name: &'a [u8],
    /// The descriptor's kind: [`DescriptorKind::Event`] for events; blocks of unknown
    /// descriptors read as [`DescriptorKind::Block`].
    pub kind: DescriptorKind,
}

impl Block<'_> {
    /// True when the descriptor says it is an event.
    pub fn is_event(&self) -> bool {
        self.kind == DescriptorKind::Event
    }
}

/// A value record: a typed scalar, array or string captured at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value<'a> {
    /// Absolute offset of the record's size field.
    pub offset: u64,
    /// When it was captured (the record's begin; its end is the same).
    pub time: u64,
    /// Index of the descriptor.
    pub id: u32,
    /// Identity of the source variable (a pointer or 0; not stable across runs).
    pub value_id: u64,
    /// Element type.
    pub data_type: DataType,
    /// True for arrays (strings are always arrays).
    pub is_array: bool,
    /// The raw data (little-endian elements, or string bytes).
    pub data: &'a [u8],
}

impl<'a> Value<'a> {
    /// The elements, decoded on the fly (for `String`, its bytes as `Uint8`).
    pub fn elements(&self) -> Elements<'a> {
        Elements::new(self.data_type, self.data)
    }

    /// The text of a `String` value (all its bytes, a trailing NUL included if stored).
    pub fn string_bytes(&self) -> Option<&'a [u8]> {
        (self.data_type == DataType::String).then_some(self.data)
    }
}

/// One record of a thread's block section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record<'a> {
    /// A block or event.
    Block(Block<'a>),
    /// A value.
    Value(Value<'a>),
}

impl Record<'_> {
    /// Begin time (for values, the capture time).
    pub fn begin(&self) -> u64 {
        match self {
            Record::Block(b) => b.begin,
            Record::Value(v) => v.time,
        }
    }
    /// End time (for values, the capture time).
    pub fn end(&self) -> u64 {
        match self {
            Record::Block(b) => b.end,
            Record::Value(v) => v.time,
        }
    }
    /// Descriptor index.
    pub fn id(&self) -> u32 {
        match self {
            Record::Block(b) => b.id,
            Record::Value(v) => v.id,
        }
    }
    /// Absolute offset of the record's size field.
    pub fn offset(&self) -> u64 {
        match self {
            Record::Block(b) => b.offset,
            Record::Value(v) => v.offset,
        }
    }
}

/// Reads one record (size field included) at `r`; `kind_of` gives the kind of its descriptor.
#[inline]
pub(crate) fn read_record<'a>(
    r: &mut Reader<'a>,
    kind_of: impl FnOnce(u32) -> Option<DescriptorKind>,
) -> Result<Record<'a>, Error> {
    let offset = r.offset();
    let size = r.u16_le().what("record size")?;
    let mut body = r.sub(u64::from(size)).what("record")?;
    let head: &RecordHead = body.view().map_err(|_| too_short("record", size, offset))?;
    let id = head.id.get();
    let kind = kind_of(id).unwrap_or(DescriptorKind::Block);
    if kind == DescriptorKind::Value {
        let vh: &ValueHead = body
            .view()
            .map_err(|_| too_short("value record", size, offset))?;
        let data_type = DataType::from_u8(vh.data_type, offset + 26)?;
        let data_size = vh.data_size.get();
        let data = body
            .bytes(usize::from(data_size))
            .map_err(|_| Error::new(ErrorKind::ValueDataTooLong { data_size }, offset + 24))?;
        let _ = (vh.name_stub, vh.padding);
        return Ok(Record::Value(Value {
            offset,
            time: head.begin.get(),
            id,
            value_id: vh.value_id.get(),
            data_type,
            is_array: vh.is_array != 0,
            data,
        }));
    }
    let name = body.cstr().what("block name")?;
    Ok(Record::Block(Block {
        offset,
        begin: head.begin.get(),
        end: head.end.get(),
        id,
        name,
        kind,
    }))
}

#[cold]
fn too_short(what: &'static str, size: u16, offset: u64) -> Error {
    let min = if what == "value record" {
        VALUE_FIXED_SIZE
    } else {
        BLOCK_MIN_SIZE
    };
    Error::new(ErrorKind::RecordTooShort { what, size, min }, offset)
}
