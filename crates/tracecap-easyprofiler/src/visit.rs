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

use crate::error::Error;
use crate::events::{Events, Item};
use crate::fast::{records, FirstKinds, Kinds};
use crate::lookup::KindLookup;
use crate::nesting::{adopt, grown, NestSlot, SlotSource};
use crate::record::Record;
use crate::time::Clock;

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
