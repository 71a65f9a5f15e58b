//! The fast full walk: every record read, classified and nested in one loop per thread.
//!
//! [`Events::visit`] hands a [`Visitor`] everything [`crate::Capture::events`] yields, and with each
//! record its place in the thread's nesting, rebuilt by the rule of [`crate::Forest`] (with the
//! same [`crate::Clock`]). Most of a file is block, event and value records, so those are read by
//! one loop over the thread's bytes that keeps nothing between records but the position, the
//! records left and the height of the stack of top-level nodes: size, fixed part, kind, name or
//! value header, nesting push and the visitor's call, all inlined. Whatever that loop does not
//! take (a record that does not fit or is malformed, a full stack, the end of the thread, and all
//! other items) goes through the checked state machine of [`Events`], so the items, and the first
//! fault with its offset, are exactly those of [`Events::try_for_each_event`].

use tracecap_wire::zerocopy::byteorder::little_endian::{U16, U32, U64};
use tracecap_wire::zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::descriptor::DescriptorKind;
use crate::error::Error;
use crate::events::{Events, Item};
use crate::fast::Run;
use crate::lookup::KindLookup;
use crate::nesting::{adopt, grown, NestSlot, SlotSource};
use crate::record::{Block, Record, Value, BLOCK_MIN_SIZE, VALUE_FIXED_SIZE};
use crate::time::Clock;
use crate::value::DataType;

/// Where a record sits in its thread's nesting when it is read (see [`crate::Forest`]).
///
/// Records come children first, so a record's depth is not known yet when it is read; what is
/// known is what it adopted: its children, and so the height of its subtree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nest {
    /// How many top-level nodes of the thread the record adopted as its children.
    pub adopted: u32,
    /// Levels of the record's subtree: 1 for a record without children. The greatest height of
    /// a thread is its number of levels.
    pub height: u32,
}

/// What [`Events::visit`] calls, in file order; an error stops the walk and is returned.
pub trait Visitor<'a> {
    /// A block, event or value, and where it sits in the nesting.
    fn record(&mut self, record: Record<'a>, nest: Nest) -> Result<(), Error>;

    /// Any other item: a thread's start (its nesting starts empty), a context switch, a bookmark.
    /// Never [`Item::Record`].
    #[inline]
    fn item(&mut self, item: Item<'a>) -> Result<(), Error> {
        let _ = item;
        Ok(())
    }
}

impl<'a, K: KindLookup> Events<'a, K> {
    /// Gives every remaining item to `visitor`, in file order, records with their [`Nest`];
    /// stops at the first error (the file's, the visitor's, or a `stack` that cannot grow) and
    /// returns it.
    ///
    /// `stack` holds each thread's top-level nodes while it is read: a `Vec` grows as needed, a
    /// fixed slice must hold as many as the thread ever has at once (often a handful), or the
    /// walk fails with a full `"top-level node"` table ([`tracecap_wire::ErrorKind::TableFull`])
    /// at the record that did not fit, as [`crate::Forest`] would. The visitor's methods are
    /// inlined into the walk; nothing is allocated except by a growing `stack`.
    ///
    /// ```
    /// use tracecap_easyprofiler::{Capture, Error, KindTable, Nest, Record, Visitor};
    ///
    /// /// The number of levels of the deepest thread.
    /// struct Levels(u32);
    ///
    /// impl<'a> Visitor<'a> for Levels {
    ///     fn record(&mut self, _: Record<'a>, nest: Nest) -> Result<(), Error> {
    ///         self.0 = self.0.max(nest.height);
    ///         Ok(())
    ///     }
    /// }
    ///
    /// # fn main() -> Result<(), Error> {
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
    /// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
    /// let capture = Capture::parse(&bytes)?;
    /// let kinds = KindTable::new(&capture)?;
    /// let mut levels = Levels(0);
    /// capture.events_with(&kinds).visit(&mut Vec::new(), &mut levels)?;
    /// println!("{} levels", levels.0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn visit<S, V>(&mut self, stack: &mut S, visitor: &mut V) -> Result<(), Error>
    where
        S: SlotSource + ?Sized,
        V: Visitor<'a>,
    {
        let first = FirstKinds::new(self.kinds());
        let clock = self.clock();
        // Top-level nodes of the current thread, in `stack.slots(0)[..roots]`.
        let mut roots = 0usize;
        loop {
            let mut run = self.take_run();
            let kinds = Kinds {
                first: &first,
                all: self.kinds(),
            };
            let fast = records(&mut run, &kinds, clock, stack.slots(0), &mut roots, visitor);
            self.put_run(&run);
            fast?;
            let item = match self.next_slow() {
                Some(item) => item?,
                None => return Ok(()),
            };
            match item {
                Item::Record(r) => {
                    let nest =
                        push(stack, &mut roots, clock, r.begin(), r.end()).ok_or_else(|| {
                            Error::table_full("top-level node", roots as u64, r.offset())
                        })?;
                    visitor.record(r, nest)?;
                }
                Item::Thread(_) => {
                    roots = 0;
                    visitor.item(item)?;
                }
                Item::ContextSwitch(_) | Item::Bookmark(_) => visitor.item(item)?,
            }
        }
    }
}

/// Nests one record read by the general path, growing the stack if needed (as
/// [`crate::Forest::push`]); `None` when it cannot grow.
#[cold]
fn push<S: SlotSource + ?Sized>(
    source: &mut S,
    roots: &mut usize,
    clock: Clock,
    begin: u64,
    end: u64,
) -> Option<Nest> {
    let stack = source.slots(0);
    let (len, adopted, height) = adopt(stack, *roots, clock, begin);
    let stack = if len < stack.len() {
        stack
    } else {
        let have = stack.len();
        source.slots(grown(have, len))
    };
    *stack.get_mut(len)? = NestSlot::top(begin, end, height);
    *roots = len + 1;
    Some(Nest { adopted, height })
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
