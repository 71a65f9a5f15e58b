//! Zero-copy reader for apitrace `.trace` files: every container, every stream version (0-6).
//!
//! An apitrace file is a compressed *container* (snappy chunks, gzip, brotli or zstd) around
//! one *event stream*: a header, then ENTER and LEAVE events whose arguments are tagged values.
//! Function, struct, enum, bitmask and backtrace-frame signatures are defined inline at their
//! first use, so the parser keeps a signature table behind the [`SigLookup`] trait:
//! [`SigTable`] (feature `alloc`, the default: keeps names) or the allocation-free
//! [`FixedSigTable`]. A reader takes its table by value and gives it back (`into_table`); pass
//! `&mut table` to keep it.
//!
//! Two entry points:
//!
//! - [`Capture::parse`] (feature `std`): a whole file. It detects the container and reads the
//!   header; [`Capture::events`] decompresses piece by piece through a bounded window, so a
//!   trace of any size is read in constant memory. Its reader lends each event until the next
//!   read, so it is walked with `next_event()` or `try_for_each_event` (see [`ChunkedReader`]).
//! - [`Stream::parse`] (no allocation, `no_std`): an event stream already decompressed (by
//!   [`decompress`], feature `std`, or by the caller). [`Stream::events`] is an [`Iterator`]
//!   ([`Events`]) of events borrowed from the stream.
//!
//! A third, for a file whose bytes arrive over time (a socket, a file still being written):
//! [`PushParser`] (feature `std`, every container) is fed the bytes as they come and gives the
//! same events and errors as [`Capture::parse`] and its walk (see [`push`]).
//!
//! [`detect`] says whether bytes look like an apitrace file.
//!
//! ```
//! use tracecap_apitrace::{Capture, EventKind};
//!
//! # let file = tracecap_apitrace::doc_example();
//! // `file` holds the bytes of a .trace file (any container).
//! assert!(tracecap_apitrace::detect(&file));
//! let capture = Capture::parse(&file)?;
//! assert_eq!(capture.header().version, 6);
//! let mut events = capture.events();            // the default table: a SigTable
//! let mut enters = 0;
//! while let Some(next) = events.next_event() {
//!     let (event, table) = next?;
//!     if event.kind == EventKind::Enter {
//!         let name = table.function(event.sig).map(|f| f.name());
//!         assert!(name.is_some());
//!         enters += 1;
//!     }
//! }
//! assert_eq!(enters, 2);
//! # Ok::<(), tracecap_apitrace::Error>(())
//! ```
//!
//! The same over the decompressed stream, with an iterator and a table the caller keeps:
//!
//! ```
//! use tracecap_apitrace::{decompress, EventKind, SigTable, Stream};
//!
//! # let file = tracecap_apitrace::doc_example();
//! let whole = decompress(&file)?;               // the whole event stream, once
//! let stream = Stream::parse(&whole.data)?;
//! assert_eq!(stream.header().version, 6);
//! let mut table = SigTable::new();
//! let mut enters = 0;
//! for event in stream.events_with(&mut table) {
//!     enters += u32::from(event?.kind == EventKind::Enter);
//! }
//! assert_eq!(enters, 2);
//! assert!(table.function(6).is_some());
//! // Or with a closure:
//! let mut n = 0;
//! stream.events().try_for_each_event(|_| {
//!     n += 1;
//!     Ok::<(), tracecap_apitrace::Error>(())
//! })?;
//! assert_eq!(n, 4);
//! # Ok::<(), tracecap_apitrace::Error>(())
//! ```
//!
//! # What is kept on damage
//!
//! Every event whose bytes decompress is returned, in order, then the fault: the stream walk
//! stops at the first bad event, and `decompress` (feature `std`) keeps everything its
//! container gives before a fault (`Decompressed::fault`). A snappy chunk cut short or damaged
//! gives the bytes of its elements before the cut or the bad element; a gzip or brotli stream cut short gives what the
//! decoder gives up to the cut; a zstd frame cut short gives every whole block before the cut;
//! a damaged gzip, brotli or zstd stream gives what the decoder handed out before the damage.
//! The stream of a cut file is a prefix of the whole file's (`tests/robustness.rs`); the table
//! per container and kind of damage is in `docs/apitrace.md`.
//!
//! `Calls` assembles ENTER/LEAVE pairs into calls in the order
//! apitrace prints them, and `dump` prints them exactly as `apitrace dump` does.
//!
//! # Features
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `std` | yes | implies `alloc`; the containers (snappy, gzip, brotli, zstd decompression): [`Capture`], [`ChunkedReader`] and its byte sources, [`PushParser`], [`decompress`], [`detect`] |
//! | `alloc` | through `std` | [`SigTable`] (names, enum values, bitmask flags, frames), [`Stream::events`], `Calls` and `dump` |
//! | `json` | no | implies `alloc`; [`json`][mod@json], each call as the JSON of `tracecap dump --json` |
//! | `write` | no | implies `std`; [`write`], the writer from a model to a stream in any container |
//!
//! With `default-features = false` the crate is the `no_std` core that never allocates:
//! [`Stream`] over an already decompressed event stream, walked with [`FixedSigTable`] (or any
//! [`SigLookup`]) through [`Stream::events_with`].
//!
#![cfg_attr(not(feature = "std"), doc = "[`Capture`]: crate#features")]
#![cfg_attr(not(feature = "std"), doc = "[`Capture::parse`]: crate#features")]
#![cfg_attr(not(feature = "std"), doc = "[`Capture::events`]: crate#features")]
#![cfg_attr(not(feature = "std"), doc = "[`ChunkedReader`]: crate#features")]
#![cfg_attr(not(feature = "std"), doc = "[`decompress`]: crate#features")]
#![cfg_attr(not(feature = "std"), doc = "[`detect`]: crate#features")]
#![cfg_attr(not(feature = "std"), doc = "[`PushParser`]: crate#features")]
#![cfg_attr(not(feature = "std"), doc = "[`push`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`SigTable`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`Stream::events`]: crate#features")]
#![cfg_attr(feature = "write", doc = "[`write`]: mod@write")]
#![cfg_attr(not(feature = "write"), doc = "[`write`]: crate#features")]
#![cfg_attr(not(feature = "json"), doc = "[mod@json]: crate#features")]
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

mod container;
mod cursor;
mod error;
mod event;
mod fast;
mod flags;
mod header;
mod parsed;
mod read;
mod sig;
mod stream;
mod value;

#[cfg(feature = "alloc")]
mod calls;
#[cfg(feature = "std")]
mod capture;
#[cfg(feature = "std")]
mod chunked;
#[cfg(feature = "std")]
mod decompress;
#[cfg(feature = "alloc")]
pub mod dump;
#[cfg(feature = "alloc")]
mod guids;
#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "std")]
pub mod push;
#[cfg(feature = "std")]
mod read_ahead;
#[cfg(feature = "std")]
mod source;
#[cfg(feature = "alloc")]
mod table;
#[cfg(feature = "write")]
pub mod write;

pub use container::{Container, SnappyChunk, SnappyChunks, SEEKABLE_MAGIC, ZSTD_MAGIC};
pub use error::{Error, ErrorKind, FileError, Space};
pub use event::{
    Backtrace, Detail, DetailIter, Details, Event, EventKind, Frames, State, PARSED_DETAILS,
};
pub use flags::{call_flags, Api, END_FRAME, MARKER, MARKER_POP, MARKER_PUSH, SWAP_RENDERTARGET};
pub use header::{Header, Properties, MAX_VERSION};
pub use parsed::{Parsed, ParsedDetails};
pub use read::parse_event;
pub use sig::{
    BitmaskFlags, Definition, EnumValues, FixedSigTable, FrameDef, SigInfo, SigKind, SigLookup,
    Strings,
};
pub use stream::{Events, Stream};
/// The faults every format shares, held by [`ErrorKind::Shared`] (re-exported from `tracecap-wire`).
pub use tracecap_wire::ErrorKind as SharedKind;
pub use value::{Array, Repr, Struct, Value, Values, WStr, WUnits, MAX_DEPTH};

#[cfg(feature = "alloc")]
pub use calls::{Call, Calls, KeptCalls, ARG_SLACK, MAX_SIG_ARGS};
#[cfg(feature = "std")]
pub use capture::Capture;
#[cfg(feature = "std")]
pub use chunked::{ChunkedReader, OwnedHeader};
#[cfg(feature = "std")]
pub use decompress::{decompress, decompress_limited, detect, Decompressed};
#[cfg(feature = "std")]
pub use push::PushParser;
#[cfg(feature = "std")]
pub use read_ahead::{read_ahead, ReadAhead, PIECES_AHEAD};
#[cfg(feature = "std")]
pub use source::{
    ByteSource, ContainerSource, OffsetMap, SliceSource, DEFAULT_WINDOW_LIMIT, MAX_SNAPPY_CHUNK,
    OFFSET_WINDOW,
};
#[cfg(feature = "alloc")]
pub use table::{BitmaskSig, EnumSig, Frame, FunctionSig, SigTable, StructSig};
/// The answer of [`PushParser::parse`] (re-exported from `tracecap-wire`).
#[cfg(feature = "std")]
pub use tracecap_wire::Pushed;

/// A tiny version-6 snappy `.trace` file with two GLX calls (`glXGetCurrentContext` and
/// `glXSwapBuffers`), for the examples in these docs; the writer's `write::example_file()` makes
/// the same bytes.
pub fn doc_example() -> [u8; 120] {
    [
        0x61, 0x74, 0x72, 0x00, 0x00, 0x00, 0x6f, 0xf0, 0x6e, 0x06, 0x06, 0x0c, 0x70, 0x72, 0x6f,
        0x63, 0x65, 0x73, 0x73, 0x2e, 0x6e, 0x61, 0x6d, 0x65, 0x10, 0x2f, 0x75, 0x73, 0x72, 0x2f,
        0x62, 0x69, 0x6e, 0x2f, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x00, 0x00, 0x00, 0x05,
        0x14, 0x67, 0x6c, 0x58, 0x47, 0x65, 0x74, 0x43, 0x75, 0x72, 0x72, 0x65, 0x6e, 0x74, 0x43,
        0x6f, 0x6e, 0x74, 0x65, 0x78, 0x74, 0x00, 0x00, 0x01, 0x00, 0x02, 0x0d, 0xb4, 0x24, 0x00,
        0x00, 0x00, 0x06, 0x0e, 0x67, 0x6c, 0x58, 0x53, 0x77, 0x61, 0x70, 0x42, 0x75, 0x66, 0x66,
        0x65, 0x72, 0x73, 0x02, 0x03, 0x64, 0x70, 0x79, 0x08, 0x64, 0x72, 0x61, 0x77, 0x61, 0x62,
        0x6c, 0x65, 0x01, 0x00, 0x0d, 0xbc, 0x15, 0x01, 0x01, 0x04, 0x2a, 0x00, 0x01, 0x01, 0x00,
    ]
}
