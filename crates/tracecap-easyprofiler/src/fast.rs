//! The hot path: whole, well-formed records read straight from the bytes, through the split
//! reads of [`tracecap_wire::fast`], one at a time from a thread's [`Run`] of records, and
//! [`try_for_each`], the loop of `Events::try_for_each_event` and `Records::try_for_each_record`.
//! (The full walk's own loop, which reads, nests and visits records in one pass, is in
//! `visit.rs`.) Each
//! function here reads what the checked readers read, or gives up (`None`, or leaving the run
//! where it stopped) and lets the checked reader find and report the fault;
//! `tests/fast_path.rs` holds the two to the same records and faults.
//!
//! Each record's size says where the next starts, a chain of dependent loads, so every walk
//! touches the input [`tracecap_wire::fast::READ_AHEAD`] bytes ahead ([`touch_ahead`]).

use tracecap_wire::fast::{split_bytes, split_u16_le, touch_ahead};
use tracecap_wire::zerocopy::FromBytes;

use crate::descriptor::DescriptorKind;
use crate::error::Error;
use crate::lookup::KindLookup;
use crate::record::{Block, Record, RecordHead, Value, ValueHead};
use crate::value::DataType;

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

/// A walk the fast path drives ([`crate::Events`], [`crate::Records`]): where it stands as a
/// [`Run`], and its checked reader for what a run does not cover.
pub(crate) trait Walk<'a> {
    /// What the walk yields.
    type Item;
    /// The descriptor kinds its records are read with.
    type Kinds: KindLookup;
    fn kinds(&self) -> &Self::Kinds;
    /// A record read by the fast path, as an item.
    fn item(record: Record<'a>) -> Self::Item;
    /// The records still to read, for the fast path.
    fn take_run(&self) -> Run<'a>;
    /// Hands the position of a run taken by [`Walk::take_run`] back.
    fn put_run(&mut self, run: &Run<'a>);
    /// The next item from the checked reader: `None` at the end.
    fn next_checked(&mut self) -> Option<Result<Self::Item, Error>>;
}

/// Gives every remaining item of `walk` to `f`, in order, as the checked reader would yield
/// them; stops at the first error (the file's, or one `f` returns) and returns it. Records are
/// read by the fast path while they are whole and well-formed, and by the checked reader
/// otherwise.
#[inline(always)]
pub(crate) fn try_for_each<'a, W, E, F>(walk: &mut W, mut f: F) -> Result<(), E>
where
    W: Walk<'a>,
    E: From<Error>,
    F: FnMut(W::Item) -> Result<(), E>,
{
    let mut run = walk.take_run();
    loop {
        // One call site for `f`, so that it is inlined and the item never built in memory.
        let item = match run.next(walk.kinds()) {
            Some(record) => W::item(record),
            None => {
                walk.put_run(&run);
                let item = match walk.next_checked() {
                    Some(Ok(item)) => item,
                    Some(Err(e)) => return Err(e.into()),
                    None => return Ok(()),
                };
                run = walk.take_run();
                item
            }
        };
        if let Err(e) = f(item) {
            walk.put_run(&run);
            return Err(e);
        }
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
