//! Zero-copy reader for EasyProfiler `.prof` captures, every version from 0.1 to 2.1.
//!
//! `#![no_std]`, no `unsafe`, and no allocation on the record path: every view borrows from the
//! file's bytes (typically a memory map). Layouts, quirks and the tree rebuild are described in
//! `docs/easyprofiler.md` of the repository.
//!
//! The crate has the shape every tracecap format crate has: [`detect`], [`Capture::parse`],
//! [`Capture::header`], and [`Capture::events`], one iterator over everything in file order
//! (thread heads, context switches, blocks and values), fused after the first error.
//! [`Capture::events_with`] takes any [`KindLookup`] table instead of the owned one
//! ([`FixedKindTable`] allocates nothing; pass `&table` to keep it), and
//! [`Events::try_for_each_event`] is the same walk through a closure, faster; per thread,
//! [`Records::try_for_each_record`] is to [`Thread::records`] what it is to the iterator.
//!
//! ```
//! use tracecap_easyprofiler::{detect, Capture, FixedKindTable, Item, Record};
//!
//! # fn main() -> Result<(), tracecap_easyprofiler::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
//! # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
//! assert!(detect(&bytes));
//! let capture = Capture::parse(&bytes)?;
//! println!("version {}", capture.header().version);
//! let kinds = FixedKindTable::<4096>::new(&capture)?;
//! let (mut threads, mut blocks) = (0, 0);
//! for item in capture.events_with(&kinds) {
//!     match item? {
//!         Item::Thread(_) => threads += 1,
//!         Item::Record(Record::Block(_)) => blocks += 1,
//!         _ => {}
//!     }
//! }
//! println!("{threads} threads, {blocks} blocks and events");
//! # Ok(())
//! # }
//! ```
//!
//! Thread by thread, with each record's depth in the call tree:
//!
//! ```
//! use tracecap_easyprofiler::{Capture, KindTable, NestSlot, Record};
//!
//! # fn main() -> Result<(), tracecap_easyprofiler::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
//! # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
//! let capture = Capture::parse(&bytes)?;
//! println!("version {} with {} descriptors", capture.header().version, capture.header().descriptors_count);
//! let kinds = KindTable::new(&capture)?; // tells value records from blocks
//! let mut slots = Vec::new();
//! for thread in capture.threads() {
//!     let thread = thread?;
//!     // Depth of each record (records are stored children-first; see `Nesting`).
//!     slots.resize(thread.records_count() as usize, NestSlot::default());
//!     let tree = capture.nest(&thread, &kinds, &mut slots)?;
//!     for (i, record) in thread.records(&kinds).enumerate() {
//!         match record? {
//!             Record::Block(b) => println!("{:indent$}block {} {}..{}", "", b.id, b.begin, b.end,
//!                                          indent = 2 * tree.depth(i).unwrap_or(0) as usize),
//!             Record::Value(v) => println!("value {:?} {:?}", v.data_type, v.elements().next()),
//!         }
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! A capture whose bytes arrive over time (a file still being written, a socket) is read with
//! [`PushParser`] (feature `alloc`): fed the bytes piece by piece, it yields the same parts in the
//! same order, with the same offsets and errors, as [`Capture::parse`] and its walks; see
//! [`push`].
//!
//! # Features
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `std` | yes | implies `alloc`; nothing else in the reader ([`Error`] implements `core::error::Error` without it) |
//! | `alloc` | through `std` | the owned [`KindTable`], [`Capture::events`] (which builds one), [`parallel::thread_marks`], `Vec<NestSlot>` as the slots of [`Capture::nest`], and [`PushParser`] (which keeps the descriptors' kinds) |
//! | `json` | no | implies `alloc`; [`json`], each part of a capture as the JSON object `tracecap dump --json` prints (a value's data as the per-format table keeps it) |
//! | `write` | no | implies `std`; [`write`], the writer that produces `.prof` files of every version from a model |
//!
//! With `default-features = false` the crate is the `no_std` core that never allocates: every
//! walk, [`FixedKindTable`], [`Capture::events_with`] and the nesting into caller-provided slots.
//!
//! # Damage
//!
//! Every walk yields every record whose bytes lie wholly before the damage, in file order, then
//! one error with an absolute offset no later than the damage, then nothing. Records here are
//! descriptors, thread heads (id and name), context switches, blocks, events, values and bookmarks;
//! each view carries the offset of its first byte (`offset`, [`Record::offset`]). So:
//!
//! - a bad or cut header: [`Capture::parse`] fails;
//! - a cut or malformed descriptor: the descriptors before it, then the error, which every thread
//!   walk gives first;
//! - a cut thread id, name size or name: the earlier threads whole, then the error;
//! - a cut context-switch or block count: the earlier threads and this thread's head (a
//!   [`Thread`] with [`Thread::fault`], an [`Item::Thread`]), then the error;
//! - a cut or malformed context switch or record: the thread's earlier ones, then the error;
//! - a cut or wrong end signature (2.1+): every thread, then the error;
//! - before 2.1, the end of the file after fewer records than the header's `blocks_count` (a file
//!   cut between two threads): every thread, then [`ErrorKind::RecordsMissing`] at the end of the
//!   file (more records than stated are accepted);
//! - a cut or malformed bookmark, or a bad signature after the last: the bookmarks before it.
//!
//! [`Summary::check_partial`] counts what was read before a fault; [`parallel`] checks a capture
//! in pieces, on several threads at once. Before 2.1 the format has no
//! thread count and no end marker, so the header's `blocks_count` (every record of the thread
//! section, context switches included) is what tells a file cut between two threads: the walks
//! add each thread's counts and compare at the end of the file. Depths need a thread's later
//! records, so a thread cut short is nested from the records read.
//!
#![cfg_attr(not(feature = "alloc"), doc = "[`KindTable`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`PushParser`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`push`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`Capture::events`]: crate#features")]
#![cfg_attr(
    not(feature = "alloc"),
    doc = "[`parallel::thread_marks`]: crate#features"
)]
#![cfg_attr(not(feature = "json"), doc = "[`json`]: crate#features")]
#![cfg_attr(feature = "write", doc = "[`write`]: mod@write")]
#![cfg_attr(not(feature = "write"), doc = "[`write`]: crate#features")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod bookmark;
mod capture;
mod context_switch;
mod descriptor;
mod error;
mod events;
mod fast;
mod header;
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub mod json;
mod lookup;
mod nesting;
pub mod parallel;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub mod push;
mod record;
mod summary;
mod thread;
mod time;
mod value;
mod version;
mod visit;
#[cfg(feature = "write")]
pub mod write;

pub use bookmark::Bookmark;
pub use capture::{Bookmarks, Capture, Threads};
pub use context_switch::ContextSwitch;
pub use descriptor::{Descriptor, DescriptorKind, Descriptors};
pub use error::{Error, ErrorKind};
pub use events::{Events, Item, ThreadHead};
pub use header::{Header, MAGIC, SIGNATURE};
#[cfg(feature = "alloc")]
pub use lookup::KindTable;
pub use lookup::{FixedKindTable, KindLookup};
pub use nesting::{Forest, NestSlot, Nested, Nesting, SlotSource, Tree};
#[cfg(feature = "alloc")]
pub use push::{PushItem, PushParser, Pushed};
pub use record::{Block, Record, Value};
pub use summary::Summary;
pub use thread::{ContextSwitches, Records, Thread};
pub use time::{ticks_to_ns, Clock};
/// The faults every format shares, held by [`ErrorKind::Shared`] (re-exported from `tracecap-wire`).
pub use tracecap_wire::ErrorKind as SharedKind;
pub use value::{DataType, Element, Elements};
pub use version::Version;
pub use visit::{Nest, Visitor};

/// True when `bytes` starts with the EasyProfiler magic.
pub fn detect(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}
