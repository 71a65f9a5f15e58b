//! Zero-copy reader for Orbit `.orbit` capture files.
//!
//! An Orbit capture is a 24-byte `ORBT` header, a capture section of varint-length-prefixed
//! protobuf `ClientCaptureEvent` messages ending at `CaptureFinished`, and an optional section
//! list pointing at additional sections (USER_DATA, the frame tracks the user picked). This crate
//! reads all of it in place:
//!
//! - [`Capture`] checks the container the way Orbit does (and more, see
//!   [`Capture::check_layout`]), and recognises the Orbit 1.64 layout Orbit itself can no longer
//!   read and the legacy pre-ORBT files;
//! - [`Capture::events`] yields every [`Event`] classified by its oneof member ([`EventKind`])
//!   without decoding it; [`views`] has typed borrowed views of every kind of event, including
//!   Orbit API names decoded from their packed `fixed64` chunks ([`ApiName`]);
//! - [`functions`]: the names of the instrumented functions that `FunctionCall.function_id`
//!   refers to ([`FunctionLookup`]; [`FixedFunctionTable`] without allocating, [`FunctionTable`]
//!   with `alloc`);
//! - [`intern`]: interned strings, callstacks and tracepoints by key ([`InternLookup`];
//!   [`FixedInternTable`] without allocating, [`InternTable`] with `alloc`);
//! - [`schema`]: the message tables and the field-number constants, generated from the crate's
//!   `proto/*.proto` (the one schema source; `tests/schema_fresh.rs` checks the file is fresh);
//! - [`push`]: [`PushParser`] reads a capture as its bytes arrive (a file still being
//!   written, a socket), fed piece by piece, with the same events, offsets and errors;
//! - [`wire`] is the protobuf wire-format reader underneath;
//! - with `alloc`: [`json`], the proto3 canonical JSON of any message driven by the static
//!   [`schema`], and [`validate`][mod@validate], the whole-file checks;
//! - with `prost`: [`proto`], prost types for all 61 messages;
//! - with `write`: [`write::CaptureModel`], an owned model of a whole capture that writes
//!   files the way Orbit lays them out and reads them back.
//!
//! The core (`--no-default-features`) is `no_std` and never allocates.
//!
//! Damage keeps everything before it: [`Capture::parse`] needs only the header and the capture
//! section's start (a cut or malformed section list is [`Capture::section_list_fault`], reported
//! by [`Capture::user_data`] and [`Capture::check_layout`]), and [`Capture::events`] yields every
//! whole message before a cut or a bad message, then its error.
//!
//! ```
//! use tracecap_orbit::{Capture, EventKind, views::EventView};
//!
//! // Header (capture section at 24, no section list), then CaptureStarted{process_id: 42}
//! // and CaptureFinished{}.
//! let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
//! file.extend_from_slice(&[5, 0xc2, 0x01, 2, 0x08, 42]);
//! file.extend_from_slice(&[3, 0xda, 0x01, 0]);
//!
//! let capture = Capture::parse(&file)?;
//! assert!(tracecap_orbit::detect(&file));
//! assert_eq!(capture.header().capture_section_offset, 24);
//! let mut kinds = Vec::new();
//! for event in capture.events() {
//!     let event = event?;
//!     kinds.push(event.kind);
//!     if let EventView::CaptureStarted(started) = event.view()? {
//!         assert_eq!(started.process_id, 42);
//!     }
//! }
//! assert_eq!(kinds, [EventKind::CaptureStarted, EventKind::CaptureFinished]);
//! # Ok::<(), tracecap_orbit::Error>(())
//! ```
//!
//! Naming function calls: the capture lists its instrumented functions once, in
//! `CaptureStarted.capture_options`; a [`FunctionTable`] (or a fixed-size
//! [`FixedFunctionTable`]) built from it resolves each call's `function_id`.
//!
//! ```
//! use tracecap_orbit::{views::EventView, Capture, FunctionLookup, FunctionTable};
//!
//! # fn names(file: &[u8]) -> Result<(), tracecap_orbit::Error> {
//! let capture = Capture::parse(file)?;
//! let functions = FunctionTable::from_capture(&capture)?;
//! for event in capture.events() {
//!     if let EventView::FunctionCall(call) = event?.view()? {
//!         let name = functions.name(call.function_id).unwrap_or("?");
//!         println!("{name}: {} ns", call.duration_ns);
//!     }
//! }
//! # Ok(())
//! # }
//! # // CaptureStarted{capture_options{instrumented_functions{function_id: 1,
//! # // function_name: "main"}}}, FunctionCall{function_id: 1}, CaptureFinished{}.
//! # let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
//! # file.extend_from_slice(&[15, 0xc2, 0x01, 12, 0x2a, 10, 0x2a, 8, 0x18, 1, 0x2a, 4]);
//! # file.extend_from_slice(b"main");
//! # file.extend_from_slice(&[4, 0x12, 2, 0x18, 1]);
//! # file.extend_from_slice(&[3, 0xda, 0x01, 0]);
//! # names(&file)?;
//! # let capture = Capture::parse(&file)?;
//! # assert_eq!(FunctionTable::from_capture(&capture)?.name(1), Some("main"));
//! # let fixed = tracecap_orbit::FixedFunctionTable::<4>::from_capture(&capture)?;
//! # assert_eq!(fixed.name(1), Some("main"));
//! # Ok::<(), tracecap_orbit::Error>(())
//! ```
//!
//! # Features
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `std` | yes | implies `alloc`; nothing else in the reader ([`Error`] implements `core::error::Error` without it) |
//! | `alloc` | through `std` | [`FunctionTable`], [`InternTable`], [`json`], [`validate`][mod@validate] and [`ApiName::to_string_lossy`] |
//! | `prost` | no | implies `alloc`; [`proto`], prost types for all 61 messages, and [`agree`] |
//! | `write` | no | implies `std`; [`write::CaptureModel`] and the writer beneath it |
//!
//! With `default-features = false` the crate is the `no_std` core that never allocates: the
//! container, the event walk, the views, and the fixed-capacity [`FixedFunctionTable`] and
//! [`FixedInternTable`].
//!
#![cfg_attr(not(feature = "alloc"), doc = "[`FunctionTable`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`InternTable`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[`json`]: crate#features")]
#![cfg_attr(not(feature = "alloc"), doc = "[mod@validate]: crate#features")]
#![cfg_attr(
    not(feature = "alloc"),
    doc = "[`ApiName::to_string_lossy`]: crate#features"
)]
#![cfg_attr(not(feature = "prost"), doc = "[`proto`]: crate#features")]
#![cfg_attr(not(feature = "prost"), doc = "[`agree`]: crate#features")]
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
#[cfg(feature = "std")]
extern crate std;

pub mod api_name;
mod capture;
mod error;
mod event;
mod fast;
pub mod functions;
mod header;
pub mod intern;
mod kind;
pub mod push;
mod repeated;
// The schema's docs (generated) link the prost types, which need the `prost` feature. These
// outer docs are resolved from the crate root, where the schema's own `field` needs its path.
#[cfg_attr(not(feature = "prost"), doc = "[`crate::proto`]: crate#features")]
#[cfg_attr(not(feature = "prost"), doc = "[`field`]: crate::schema::field")]
#[cfg_attr(not(feature = "prost"), doc = "")]
#[rustfmt::skip]
pub mod schema;
pub mod schema_types;
mod section;
mod table;
pub mod views;
pub mod wire;

#[cfg(feature = "prost")]
pub mod agree;
#[cfg(feature = "alloc")]
pub mod json;
#[cfg(feature = "prost")]
pub mod proto;
#[cfg(feature = "alloc")]
pub mod validate;
#[cfg(feature = "write")]
pub mod write;

pub use api_name::{ApiName, ApiNameBytes};
pub use capture::{Capture, Events, Framed, UserData, MAX_MESSAGE_LEN};
pub use error::{what, Error, ErrorKind, Overlap};
pub use event::Event;
#[cfg(feature = "alloc")]
pub use functions::FunctionTable;
pub use functions::{FixedFunctionTable, FunctionLookup};
pub use header::{detect, is_legacy, Header, RawHeader, HEADER_LEN, MAGIC, VERSION};
#[cfg(feature = "alloc")]
pub use intern::InternTable;
pub use intern::{FixedInternTable, InternLookup};
pub use kind::EventKind;
pub use push::{PushItem, PushParser, Pushed};
pub use repeated::{Repeated, RepeatedIter, RepeatedLen, RepeatedLenIter};
pub use section::{
    Layout, RawSection, Section, Sections, ENTRY_LEN, MAX_SECTIONS, SECTION_USER_DATA,
};
/// The faults every format shares, held by [`ErrorKind::Shared`] (re-exported from `tracecap-wire`).
pub use tracecap_wire::ErrorKind as SharedKind;
