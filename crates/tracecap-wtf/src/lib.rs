//! Zero-copy reader for Web Tracing Framework `.wtf-trace` files: the chunked format (version 10,
//! little-endian, 4-byte argument slots, per-chunk string tables) and the legacy format (version 3,
//! big-endian, packed arguments).
//!
//! ```
//! use tracecap_wtf::{detect, Capture, FixedDefinitionTable, ScopeRole, Value};
//!
//! # fn main() -> Result<(), tracecap_wtf::Error> {
//! # let bytes = tracecap_wtf::doc_example();
//! assert!(detect(&bytes));
//! let trace = Capture::parse(&bytes)?;
//! assert_eq!(trace.header().format_version, 10);
//! // A fixed-capacity wire-id table: walking every event allocates nothing.
//! let table = FixedDefinitionTable::<64, 256>::new();
//! for event in trace.events_with(table) {
//!     let event = event?;
//!     if event.name() == "App#tick" {
//!         assert_eq!(event.arg(0), Some(Value::Uint32(7)));
//!         assert_eq!(event.scope_role(), ScopeRole::Instance);
//!     }
//! }
//! // The default growable table, a table the caller keeps (`&mut`), and the closure walk.
//! assert_eq!(trace.events().count(), 2);
//! let mut kept = FixedDefinitionTable::<64, 256>::new();
//! let mut n = 0;
//! trace.events_with(&mut kept).try_for_each_event::<tracecap_wtf::Error, _>(|_| {
//!     n += 1;
//!     Ok(())
//! })?;
//! assert_eq!(n, 2);
//! # Ok(()) }
//! ```
//!
//! [`push::PushParser`] (feature `alloc`) reads a capture as its bytes arrive (a growing file, a
//! socket): fed pieces, it yields the same chunks and events, offsets and errors as the walks
//! over the whole file.
//!
//! [`detect`] is the cheap check of the prologue. Events come out in file order, built-ins included (`wtf.event#define`, zones, scopes, flows,
//! ...), from the iterator or from [`Events::try_for_each_event`] (see its note on speed), each
//! with its zone, time, definition and lazily decoded arguments: [`Event::values`]
//! (fast, from the types parsed once per definition), [`Event::args`] (with names), and
//! [`Event::decode_builtin`] (typed built-ins). Strings stay in the file: an argument holds an
//! ordinal ([`Str::Ordinal`]) that [`Event::resolve`] looks up in the event's chunk string table.
//!
//! Damage keeps everything before it: the walk yields every event that lies wholly before a cut
//! or a fault, in either container (a chunk cut by the end of the file gives the events of its
//! event buffer up to the cut), then the error at its offset; [`timeline::Timeline::build`]
//! keeps what was read, with the fault. docs/wtf.md lists each case.
//!
//! # Features
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `std` | yes | implies `alloc`; nothing else in the reader ([`Error`] implements `core::error::Error` without it) |
//! | `alloc` | through `std` | the growable [`DefinitionTable`] and [`Capture::events`] (which uses it), the [`push`] parser, [`StringIndex`], [`latin1`], [`text_lossy`], and [`timeline::Timeline`], which rebuilds the loader's per-zone scope structure |
//! | `json` | no | implies `alloc`; serde_json parsing of the file header and [`json::ArgsJson`] |
//! | `write` | no | implies `std`; [`write::CaptureModel`] (`to_bytes`, `from_bytes`) and the byte-level builders beneath it |
//!
//! With `default-features = false` the crate is the `no_std` core that never allocates: every walk
//! through [`Capture::events_with`] and a [`FixedDefinitionTable`].
//!
#![cfg_attr(not(feature = "alloc"), doc = "[`DefinitionTable`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`Capture::events`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`StringIndex`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`latin1`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`text_lossy`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`timeline::Timeline`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`push::PushParser`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`push`]: crate#features")]
#![cfg_attr(
    not(feature = "alloc"),
    doc = "[`timeline::Timeline::build`]: crate#features"
)]
#![cfg_attr(not(feature = "json"), doc = "[`json::ArgsJson`]: crate#features")]
#![cfg_attr(
    not(feature = "write"),
    doc = "[`write::CaptureModel`]: crate#features"
)]
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
#[cfg(all(feature = "std", not(test)))]
extern crate std;

mod builtin;
mod builtin_event;
mod chunk;
mod defs;
mod error;
mod event;
mod fast;
mod header;
mod json_check;
mod shape;
mod signature;
mod strings;
mod value;
mod values;
mod walk;

#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "alloc")]
pub mod push;
#[cfg(feature = "alloc")]
pub mod timeline;
#[cfg(feature = "write")]
pub mod write;

pub use builtin::Builtin;
pub use builtin_event::BuiltinEvent;
pub use chunk::{
    Chunk, Chunks, Part, RawChunkHeader, RawPartEntry, CHUNK_EVENT_DATA, CHUNK_FILE_HEADER,
    PART_BINARY_EVENTS, PART_BINARY_RESOURCE, PART_FILE_HEADER, PART_JSON_EVENTS,
    PART_LEGACY_EVENTS, PART_STRING_RESOURCE, PART_STRING_TABLE, PROLOGUE_LEN,
};
#[cfg(feature = "alloc")]
pub use defs::DefinitionTable;
pub use defs::{
    Definition, DefinitionLookup, FixedDefinitionTable, CLASS_INSTANCE, CLASS_SCOPE,
    DEFINE_SIGNATURE, FLAG_APPEND_FLOW_DATA, FLAG_APPEND_SCOPE_DATA, FLAG_BUILTIN,
    FLAG_HIGH_FREQUENCY, FLAG_INTERNAL, FLAG_SYSTEM_TIME,
};
pub use error::{Error, ErrorKind};
pub use event::{Event, EventPlace, ScopeRole, ZoneInfo, MAX_ARGS};
pub use header::{
    detect, Container, Header, LegacyHeader, CHUNKED_VERSION, FLAG_HIGH_RESOLUTION_TIMES,
    FLAG_TIMES_AS_COUNT, LEGACY_VERSION, MAGIC,
};
#[cfg(feature = "alloc")]
pub use push::{PushItem, PushParser, Pushed};
pub use signature::{ArgDecl, ArgType, Signature};
#[cfg(feature = "alloc")]
pub use strings::StringIndex;
pub use strings::{StringIter, StringTable, EMPTY_ORDINAL, NULL_ORDINAL};
/// The faults every format shares, held by [`ErrorKind::Shared`] (re-exported from `tracecap-wire`).
pub use tracecap_wire::ErrorKind as SharedKind;
#[cfg(feature = "alloc")]
pub use value::{latin1, text_lossy};
pub use value::{utf16_units, Arg, Args, Array, Elem, Str, Value};
pub use values::Values;
pub use walk::Events;

/// A parsed `.wtf-trace` file: its header, and iterators over its chunks and events.
///
/// ```
/// use tracecap_wtf::{Capture, Container, FixedDefinitionTable};
///
/// # let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
/// let capture = Capture::parse(&bytes)?;
/// assert_eq!(capture.header().container, Container::Chunked);
/// assert_eq!(capture.chunks().count(), 1);
/// let events = capture.events_with(FixedDefinitionTable::<16, 64>::new());
/// assert_eq!(events.count(), 2); // the definition, then the event
/// # Ok::<(), tracecap_wtf::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Capture<'a> {
    data: &'a [u8],
    header: Header<'a>,
}

impl<'a> Capture<'a> {
    /// Reads the prologue and header of `data` (either container).
    pub fn parse(data: &'a [u8]) -> Result<Self, Error> {
        Ok(Capture {
            data,
            header: Header::parse(data)?,
        })
    }

    /// Container, versions and header.
    pub fn header(&self) -> &Header<'a> {
        &self.header
    }

    /// The whole file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The chunks (chunked files; a legacy file has none).
    pub fn chunks(&self) -> Chunks<'a> {
        match self.header.container {
            Container::Chunked => Chunks::new(self.data),
            Container::Legacy => Chunks::new(&[]),
        }
    }

    /// Every event in file order, with the wire-id table `table` (for example a
    /// [`FixedDefinitionTable`], or `&mut table` to keep the table once the walk is over).
    pub fn events_with<T: DefinitionLookup<'a>>(&self, table: T) -> Events<'a, T> {
        Events::new(self.data, &self.header, table)
    }

    /// The event at `place` (from [`Event::place`] on an event of this capture) read again, with
    /// the definition `def` and zone `zone` it was read with; `None` when `place` does not hold
    /// an event of `def` in this capture.
    ///
    /// ```
    /// use tracecap_wtf::Capture;
    ///
    /// # let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
    /// let capture = Capture::parse(&bytes)?;
    /// for event in capture.events() {
    ///     let event = event?;
    ///     let again = capture.event_at(&event.place(), event.def, event.zone).unwrap();
    ///     assert_eq!(again.offset, event.offset);
    ///     assert_eq!((again.time, again.chunk), (event.time, event.chunk));
    ///     assert_eq!(again.arg_bytes(), event.arg_bytes());
    ///     assert_eq!(again.strings, event.strings);
    /// }
    /// # Ok::<(), tracecap_wtf::Error>(())
    /// ```
    pub fn event_at(
        &self,
        place: &EventPlace,
        def: Definition<'a>,
        zone: Option<u16>,
    ) -> Option<Event<'a>> {
        let enc = match self.header.container {
            Container::Chunked => value::Encoding::Chunked,
            Container::Legacy => value::Encoding::Legacy,
        };
        place.event(self.data, enc, def, zone)
    }

    /// Every event in file order, with a growable [`DefinitionTable`].
    #[cfg(feature = "alloc")]
    pub fn events(&self) -> Events<'a, DefinitionTable<'a>> {
        self.events_with(DefinitionTable::new())
    }
}

/// A small chunked file used by the crate-level example: one event chunk defining `App#tick`
/// (wire id 2, `uint32 n`) and one such event at t=5 µs with n=7.
#[doc(hidden)]
pub fn doc_example() -> [u8; 120] {
    let mut out = [0u8; 120];
    let head: [u32; 15] = [
        0xDEAD_BEEF,
        0,
        CHUNKED_VERSION,
        0,
        CHUNK_EVENT_DATA,
        108,
        0,
        0,
        2,
        PART_STRING_TABLE,
        0,
        18,
        PART_BINARY_EVENTS,
        20,
        40,
    ];
    let strings = *b"App#tick\0uint32 n\0\0\0";
    let events: [u32; 10] = [1, 0, 2, 0, 0, 0, 1, 2, 5, 7];
    let words = head.iter().map(|w| w.to_le_bytes());
    let tail = events.iter().map(|w| w.to_le_bytes());
    let bytes = words.flatten().chain(strings).chain(tail.flatten());
    for (dst, b) in out.iter_mut().zip(bytes) {
        *dst = b;
    }
    out
}
