//! The hot path: whole, well-formed records read straight from the bytes, through the split
//! reads of [`tracecap_wire::fast`]. Each function here reads what the checked readers read, or
//! gives up (`None`, or leaving the run where it stopped) and lets the checked reader find and
//! report the fault; `tests/fast_path.rs` holds the two to the same records and faults.
//!
//! Each record's size says where the next starts, a chain of dependent loads, so every walk here
//! touches the input [`tracecap_wire::fast::READ_AHEAD`] bytes ahead ([`touch_ahead`]).

use tracecap_wire::fast::{split_bytes, split_u16_le, touch_ahead};
use tracecap_wire::zerocopy::byteorder::little_endian::{U16, U32, U64};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::descriptor::DescriptorKind;
use crate::error::Error;
use crate::lookup::KindLookup;
use crate::nesting::{adopt, NestSlot};
use crate::record::{
    Block, Record, RecordHead, Value, ValueHead, BLOCK_MIN_SIZE, VALUE_FIXED_SIZE,
};
use crate::time::Clock;
use crate::value::DataType;
use crate::visit::{Nest, Visitor};

/// The records of the current thread still to read, as a plain slice: the walks keep it in local
/// variables and hand the position back to the [`Events`] or [`Records`] they came from only when
/// they leave the fast path.
///
/// [`Events`]: crate::Events
/// [`Records`]: crate::Records
pub(crate) struct Run<'a> {
    /// The bytes from the next record to the end of the input.
    pub(crate) rest: &'a [u8],
    /// Absolute offset of the end of `rest` (a record's offset is this minus what is left).
    pub(crate) end: u64,
    /// Records of the thread still to read (0 outside a thread's records).
    pub(crate) left: u32,
}

impl<'a> Run<'a> {
    /// The next record when it is whole and well-formed; `None` at the end of the thread's
    /// records and for anything the checked reader must look at.
    #[inline(always)]
    pub(crate) fn next<K: KindLookup>(&mut self, kinds: &K) -> Option<Record<'a>> {
        if self.left == 0 {
            return None;
        }
        touch_ahead(self.rest);
        let offset = self.end - self.rest.len() as u64;
        let (rec, after) = read_record_fast(self.rest, offset, |id| kinds.kind(id))?;
        self.rest = after;
        self.left -= 1;
        Some(rec)
    }
}

/// The common case of [`crate::record::read_record`], on plain slices: a whole, well-formed record at the start
/// of `rest`, whose size field is at absolute `offset`. Returns the record and the bytes after it;
/// `None` sends the caller to `read_record`, which finds what is wrong and reports it with its
/// offset. Both give the same record whenever this one gives one.
#[inline(always)]
pub(crate) fn read_record_fast<'a>(
    rest: &'a [u8],
    offset: u64,
    kind_of: impl FnOnce(u32) -> Option<DescriptorKind>,
) -> Option<(Record<'a>, &'a [u8])> {
    let (size, after) = split_u16_le(rest)?;
    let (body, next) = split_bytes(after, usize::from(size))?;
    let (head, tail) = RecordHead::ref_from_prefix(body).ok()?;
    let id = head.id.get();
    let kind = kind_of(id).unwrap_or(DescriptorKind::Block);
    let record = if kind == DescriptorKind::Value {
        let (vh, data) = ValueHead::ref_from_prefix(tail).ok()?;
        Record::Value(Value {
            offset,
            time: head.begin.get(),
            id,
            value_id: vh.value_id.get(),
            data_type: *DataType::ALL.get(usize::from(vh.data_type))?,
            is_array: vh.is_array != 0,
            data: data.get(..usize::from(vh.data_size.get()))?,
        })
    } else {
        let nul = tail.iter().position(|&b| b == 0)?;
        Record::Block(Block {
            offset,
            begin: head.begin.get(),
            end: head.end.get(),
            id,
            name: tail.get(..nul)?,
            kind,
        })
    };
    Some((record, next))
}

/// The size field and the fixed part of a block record, and the first byte of its name: what
/// every block, event and value record starts with.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct RecordStart {
    size: U16,
    begin: U64,
    end: U64,
    id: U32,
    /// The NUL of an empty name (for values, the name stub).
    name: u8,
}

/// The size field and the fixed part of a value record.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct ValueStart {
    head: RecordStart,
    padding: u8,
    data_size: U16,
    data_type: u8,
    is_array: u8,
    value_id: U64,
}

/// Bytes of a value record before its data, size field included.
const VALUE_DATA: usize = 2 + VALUE_FIXED_SIZE as usize;
/// Bytes of a block record before its name, size field included.
const BLOCK_NAME: usize = 2 + BLOCK_MIN_SIZE as usize - 1;

/// The kinds of the first 256 descriptors, copied out of the caller's lookup so that the loop
/// finds them at a fixed place; the rest are asked for.
pub(crate) struct FirstKinds([Option<DescriptorKind>; 256]);

impl FirstKinds {
    pub(crate) fn new<K: KindLookup>(all: &K) -> Self {
        FirstKinds(core::array::from_fn(|i| all.kind(i as u32)))
    }
}

/// [`FirstKinds`] and the lookup they were copied from, for the descriptors past them.
pub(crate) struct Kinds<'k, K> {
    pub(crate) first: &'k FirstKinds,
    pub(crate) all: &'k K,
}

impl<K: KindLookup> Kinds<'_, K> {
    #[inline(always)]
    fn kind(&self, id: u32) -> Option<DescriptorKind> {
        match self.first.0.get(id as usize) {
            Some(k) => *k,
            None => self.all.kind(id),
        }
    }
}

/// The loop: reads the records of `run` while they are whole and well-formed and the stack has
/// room for one more node, nests each and gives it to the visitor. Leaves `run` and `roots` at
/// the first record it did not take, for the checked reader.
#[inline(always)]
pub(crate) fn records<'a, K, V>(
    run: &mut Run<'a>,
    kinds: &Kinds<'_, K>,
    clock: Clock,
    stack: &mut [NestSlot],
    roots: &mut usize,
    visitor: &mut V,
) -> Result<(), Error>
where
    K: KindLookup,
    V: Visitor<'a>,
{
    let room = stack.len();
    let end = run.end;
    let mut rest = run.rest;
    let mut left = run.left;
    let mut len = *roots;
    let result = loop {
        // A record that adopts nothing needs a free slot; the general path grows the stack.
        if left == 0 || len >= room {
            break Ok(());
        }
        let Ok((head, _)) = RecordStart::ref_from_prefix(rest) else {
            break Ok(());
        };
        let size = usize::from(head.size.get());
        let Some(next) = rest.get(2 + size..) else {
            break Ok(());
        };
        // ok: `rest` is a suffix of the run, whose last byte ends at absolute offset `end`.
        let offset = end - rest.len() as u64;
        let begin = head.begin.get();
        let id = head.id.get();
        let kind = kinds.kind(id);
        let visited = if kind == Some(DescriptorKind::Value) {
            let Some(v) = value(rest, size, offset) else {
                break Ok(());
            };
            nest_and_visit(
                stack,
                clock,
                &mut len,
                visitor,
                Record::Value(v),
                (begin, begin),
            )
        } else {
            let name = if size >= usize::from(BLOCK_MIN_SIZE) && head.name == 0 {
                &[][..]
            } else {
                match name(rest, size) {
                    Some(name) => name,
                    None => break Ok(()),
                }
            };
            let finish = head.end.get();
            let block = Block {
                offset,
                begin,
                end: finish,
                id,
                name,
                kind: kind.unwrap_or(DescriptorKind::Block),
            };
            nest_and_visit(
                stack,
                clock,
                &mut len,
                visitor,
                Record::Block(block),
                (begin, finish),
            )
        };
        rest = next;
        left -= 1;
        if let Err(e) = visited {
            break Err(e);
        }
    };
    run.rest = rest;
    run.left = left;
    *roots = len;
    result
}

/// Nests a record on `stack[..len]` and hands it to the visitor. The loop has one copy for
/// blocks and one for values, so that the visitor is inlined where the record's kind is known.
#[inline(always)]
fn nest_and_visit<'a, V: Visitor<'a>>(
    stack: &mut [NestSlot],
    clock: Clock,
    len: &mut usize,
    visitor: &mut V,
    record: Record<'a>,
    (begin, end): (u64, u64),
) -> Result<(), Error> {
    let (popped, adopted, height) = adopt(stack, *len, clock, begin);
    if let Some(slot) = stack.get_mut(popped) {
        slot.set_top(begin, end, height);
    }
    *len = popped + 1;
    visitor.record(record, Nest { adopted, height })
}

/// The value record at the start of `rest`, whose size field says `size` (and fits); `None`
/// when it is malformed.
#[inline(always)]
fn value(rest: &[u8], size: usize, offset: u64) -> Option<Value<'_>> {
    let (vh, _) = ValueStart::ref_from_prefix(rest).ok()?;
    let data_size = usize::from(vh.data_size.get());
    if size < usize::from(VALUE_FIXED_SIZE) || data_size > size - usize::from(VALUE_FIXED_SIZE) {
        return None;
    }
    Some(Value {
        offset,
        time: vh.head.begin.get(),
        id: vh.head.id.get(),
        value_id: vh.value_id.get(),
        data_type: *DataType::ALL.get(usize::from(vh.data_type))?,
        is_array: vh.is_array != 0,
        data: rest.get(VALUE_DATA..VALUE_DATA + data_size)?,
    })
}

/// The name of the block record at the start of `rest` (`size` bytes after the size field,
/// which fit), when it is not simply empty; `None` without a NUL.
#[inline(never)]
fn name(rest: &[u8], size: usize) -> Option<&[u8]> {
    let tail = rest.get(BLOCK_NAME..2 + size)?;
    let nul = tail.iter().position(|&b| b == 0)?;
    tail.get(..nul)
}
