//! The byte layer shared by every tracecap format crate.
//!
//! `tracecap-wire` is `#![no_std]` and never allocates. It gives format crates:
//!
//! - [`Reader`]: a cursor over `&[u8]` that knows the absolute file offset of its first byte, so
//!   every error it reports names a position in the *file*, not in a sub-slice;
//! - little-, big- and runtime-endian ([`Endian`]) reads of integers and floats;
//! - LEB128 varints ([`Reader::uleb32`], [`Reader::uleb64`], [`Reader::sleb64`]) that reject
//!   overlong and overflowing encodings;
//! - bounded sub-readers for length-prefixed parts ([`Reader::sub`]) and alignment helpers
//!   ([`Reader::align`], [`padding_to`]);
//! - typed views of fixed layouts through zerocopy ([`Reader::view`]);
//! - [`Pushed`]: the answer of every format crate's push parser (a record, "need more data", or
//!   the end), for captures whose bytes arrive over time;
//! - [`fast`]: `Option`-returning reads for a format's fast path, and the read-ahead touch of
//!   record walks ([`fast::touch_ahead`]);
//! - [`json`]: the escaping of JSON strings the format crates' record JSON shares;
//! - the error core of every format crate ([`Error<K>`](Error): a kind and the absolute `u64`
//!   offset; the faults all formats share in [`ErrorKind`]; [`FormatKind`] for a crate's own
//!   kinds; [`Context::what`] to name the part being read).
//!
//! ```
//! use tracecap_wire::{Reader, ErrorKind};
//!
//! let bytes = [0x2a, 0x00, 0xe5, 0x8e, 0x26, 0x01];
//! let mut r = Reader::at(&bytes, 0x1000); // these bytes start at file offset 0x1000
//! assert_eq!(r.u16_le()?, 42);
//! assert_eq!(r.uleb32()?, 624_485);
//! let err = r.u32_le().unwrap_err();
//! assert_eq!(err.offset, 0x1005);
//! assert!(matches!(err.kind, ErrorKind::Truncated { needed: 4, available: 1, .. }));
//! # Ok::<(), tracecap_wire::Error>(())
//! ```
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

mod endian;
mod error;
pub mod fast;
pub mod json;
mod leb128;
pub mod push;
mod reader;

pub use endian::Endian;
pub use error::{Context, Error, ErrorKind, FormatKind};
pub use leb128::{decode_uleb32, decode_uleb64};
pub use push::Pushed;
pub use reader::{padding_to, Reader};

/// Re-export of the zerocopy crate, so format crates use the same version for their layouts.
pub use zerocopy;
