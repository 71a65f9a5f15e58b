//! Zero-copy reader for the capture files of
//! [syscall_capture](https://github.com/gedimitr/syscall_capture) (`.dat`, magic `78 06 17 a5`), an
//! `LD_PRELOAD` tracer that records every libc system call of a process with its return value,
//! timing and (for the first 19 syscall numbers) its arguments.
//!
//! ```
//! use tracecap_syscall::{detect, Arg, Capture, Entry};
//!
//! // A tiny little-endian capture: the 28-byte header, an empty host-information segment, then
//! // one `close(3) = 0` record with its return value and one integer argument.
//! let mut file = vec![0x78, 0x06, 0x17, 0xa5, 1, 0, 0, 0];
//! file.extend_from_slice(&4242i32.to_le_bytes()); // pid
//! file.extend_from_slice(&1_700_000_000i64.to_le_bytes()); // epoch seconds
//! file.extend_from_slice(&5_000i64.to_le_bytes()); // clock reference (ns)
//! file.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]); // segment 1, length 0
//! file.extend_from_slice(&[2, 0, 0, 0, 20, 0, 0, 0]); // segment 2 (syscall), length 20
//! file.extend_from_slice(&[3, 0, 0x01, 0]); // number 3, flags RESULT
//! file.extend_from_slice(&0i64.to_le_bytes()); // return value
//! file.extend_from_slice(&[1, 0, 4, 0, 3, 0, 0, 0]); // ArgInt, 4 bytes: fd 3
//!
//! assert!(detect(&file));
//! let capture = Capture::parse(&file)?;
//! assert_eq!(capture.header().pid, 4242);
//! assert_eq!(capture.header().clock_reference_ns, Some(5_000));
//! let mut calls = 0;
//! for call in capture.events() {
//!     let call = call?;
//!     assert_eq!(call.name(), Some("close"));
//!     assert_eq!(call.ret(), 0);
//!     assert_eq!(call.timestamp_ns, None);
//!     assert_eq!(call.args().collect::<Vec<_>>(), [Arg::Int(3)]);
//!     calls += 1;
//! }
//! assert_eq!(calls, 1);
//! // The same records through a closure; the whole walk, fillers and gaps included.
//! capture.events().try_for_each_event(|call| {
//!     assert_eq!(call.number, 3);
//!     Ok::<(), tracecap_syscall::Error>(())
//! })?;
//! assert_eq!(capture.entries().filter(|e| matches!(e, Ok(Entry::Syscall(_)))).count(), 1);
//! # Ok::<(), tracecap_syscall::Error>(())
//! ```
//!
//! The layout, and the writer quirks real files carry (zero gaps after a mid-run flush, stale bytes
//! after the last record, several captures in one file after a `fork`), are described in the
//! project's `docs/syscall.md`. In short:
//!
//! - [`Capture::parse`] reads the header ([`Header`]: 28 bytes, or the older 20, then the host's
//!   [`Uname`] strings) and takes the byte order from its flags;
//! - [`detect`] is the cheap magic check;
//! - [`Capture::events`] yields the [`Syscall`] records ([`Events`], also as a closure walk,
//!   [`Events::try_for_each_event`]);
//! - [`Capture::entries`] yields [`Entry`]s: [`Syscall`] records, [`Filler`]s, zero [`Gap`]s and the
//!   [`Header`]s of further captures, each with its absolute offset; the first fault ends the walk
//!   with an [`Error`] naming the offset where the bad bytes start. A run of zero bytes longer than
//!   the writer's gap can be ([`MAX_GAP_LEN`], 1 MiB less 8 bytes) is such a fault, at the run's
//!   first byte, so a file padded with zeros is rejected after at most that many bytes are read;
//! - [`Syscall::args`] yields the record's [`Arg`]s, which were checked when the record was read;
//! - [`PushParser`] reads the same header and entries from bytes that arrive over time (a file
//!   still being written, a socket): the caller feeds it what it has and drops what each item
//!   consumed (see [`push`] for the loop, over pieces in memory and over a `TcpStream`);
//! - [`json`] (feature `json`) writes each entry as the JSON object `tracecap dump --json` prints,
//!   and a record's arguments as the JSON array the `syscall_calls` table keeps.
//!
//! # Features
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `std` | yes | implies `alloc`; nothing else in the reader ([`Error`] implements `core::error::Error` without it) |
//! | `alloc` | through `std` | nothing: the reader never allocates (kept for the shape every tracecap format crate shares) |
//! | `json` | no | implies `alloc`; [`json`], each entry's JSON appended to a `String` |
//! | `write` | no | implies `std`; [`write::CaptureModel`] (an owned model of a whole capture, written in either byte order by `to_bytes` and read back by `from_bytes`) and [`write::CaptureWriter`], the byte-level builder beneath it, for files too big to model whole |
//!
//! With `default-features = false` the crate is the `no_std` core; it is the whole reader, as
//! nothing here allocates.
//!
#![cfg_attr(
    not(feature = "write"),
    doc = "[`write::CaptureModel`]: crate#features"
)]
#![cfg_attr(
    not(feature = "write"),
    doc = "[`write::CaptureWriter`]: crate#features"
)]
#![cfg_attr(not(feature = "json"), doc = "[`json`]: crate#features")]
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

mod arg;
mod capture;
mod error;
mod fast;
mod gap;
mod header;
#[cfg(feature = "json")]
pub mod json;
mod names;
pub mod push;
mod record;
mod tlv;
#[cfg(feature = "write")]
pub mod write;

pub use arg::{
    Arg, Args, PollFd, PollFdIter, PollFds, SigAction, Stat, Timespec, ARG_FULL, ARG_INT, ARG_INTP,
    ARG_PARTIAL, ARG_POLLFDS, ARG_SIGACTION, ARG_STAT, POLLFD_LEN, SIGACTION_LEN, STAT_LEN,
};
pub use capture::{Capture, Entries, Entry, Events, Filler, Gap, SEGMENT_FILLER};
pub use error::{Error, ErrorKind};
pub use gap::MAX_GAP_LEN;
pub use header::{
    detect, Header, Uname, FIXED_LEN, FIXED_LEN_OLD, FLAG_BIG_ENDIAN, MAGIC, SEGMENT_HOST_INFO,
    VERSION,
};
pub use names::{syscall_name, syscall_number};
pub use push::{PushItem, PushParser, Pushed};
pub use record::{
    Syscall, FLAG_DURATION, FLAG_RESULT, FLAG_TID, FLAG_TIMESTAMP, KNOWN_FLAGS, SEGMENT_SYSCALL,
};
pub use tracecap_wire::Endian;
/// The faults every format shares, held by [`ErrorKind::Shared`] (re-exported from `tracecap-wire`).
pub use tracecap_wire::ErrorKind as SharedKind;
