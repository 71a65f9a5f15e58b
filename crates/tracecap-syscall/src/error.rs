//! The crate's error: what is wrong with a capture and the absolute file offset where.

use core::fmt;

/// What is wrong with a syscall_capture file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file has no bytes at all (the traced process died before its first flush).
    #[error("empty file: the traced process wrote nothing")]
    Empty,
    /// The first four bytes are not `78 06 17 a5`.
    #[error("not a syscall_capture file (bad magic)")]
    BadMagic,
    /// The version byte is not 1 (the only version upstream ever wrote).
    #[error("unsupported version {0}")]
    UnsupportedVersion(u8),
    /// Neither offset 28 nor offset 20 starts the VariableHeaderPart segment (tag 1).
    #[error("no host information segment after the fixed header")]
    MissingHostInfo,
    /// A read ran past the end of the file, of a segment or of an argument element.
    #[error("truncated {what} (needs {needed} bytes, {available} left)")]
    Truncated {
        /// The part being read.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A top-level segment tag other than 1, 2 or 3 (and not a zero gap or a second header).
    #[error("unknown segment tag {0:#x}")]
    UnknownSegment(u32),
    /// A run of zero bytes between segments longer than the writer's zero gap can be
    /// ([`MAX_GAP_LEN`](crate::MAX_GAP_LEN) bytes); the offset is the run's first byte.
    #[error(
        "run of zero bytes longer than the writer's largest gap ({} bytes)",
        crate::MAX_GAP_LEN
    )]
    LongZeroRun,
    /// A VariableHeaderPart segment (tag 1) that does not follow a fixed header.
    #[error("host information segment outside a header")]
    StrayHostInfo,
    /// A syscall record's flags have bits other than RESULT, TID, TS and DUR.
    #[error("syscall record flags {0:#04x} have unknown bits")]
    UnknownFlags(u8),
    /// An argument element tag other than 1 to 7.
    #[error("unknown argument element tag {0}")]
    UnknownArgument(u16),
    /// An argument element whose length its kind cannot have (an integer of 5 bytes, a stat of 100).
    #[error("argument element tag {tag} cannot be {len} bytes long")]
    BadArgumentLength {
        /// The element tag.
        tag: u16,
        /// Its length field.
        len: u16,
    },
    /// Padding after a segment or an element that is not zero.
    #[error("non-zero {0} padding")]
    NonZeroPadding(&'static str),
    /// A uname string without its NUL terminator.
    #[error("host name string without NUL terminator")]
    MissingNul,
    /// A byte-level error from the shared reader that has no closer kind.
    #[error("{0}")]
    Wire(tracecap_wire::ErrorKind),
}

/// An error in a capture: its kind and the absolute file offset where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Absolute file offset.
    pub offset: u64,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Truncated {
                what,
                needed,
                available,
            } => write!(
                f,
                "truncated {what} at offset {:#x} (needs {needed} bytes, {available} left)",
                self.offset
            ),
            kind => write!(f, "{kind} at offset {:#x}", self.offset),
        }
    }
}

impl core::error::Error for Error {}

impl Error {
    /// An error of `kind` at `offset`.
    #[cold]
    pub const fn new(kind: ErrorKind, offset: u64) -> Self {
        Error { kind, offset }
    }

    /// `what` needed `needed` bytes at `offset` and only `available` were left.
    #[cold]
    pub const fn truncated(what: &'static str, offset: u64, needed: u64, available: u64) -> Self {
        Error::new(
            ErrorKind::Truncated {
                what,
                needed,
                available,
            },
            offset,
        )
    }

    /// Turns a byte-level error into this crate's, naming the part that was being read.
    #[cold]
    pub(crate) fn wire(what: &'static str, e: tracecap_wire::Error) -> Self {
        match e.kind {
            tracecap_wire::ErrorKind::Truncated { needed, available } => {
                Error::truncated(what, e.offset, needed, available)
            }
            _ => Error::from(e),
        }
    }
}

impl From<tracecap_wire::Error> for Error {
    #[cold]
    fn from(e: tracecap_wire::Error) -> Self {
        let kind = match e.kind {
            tracecap_wire::ErrorKind::Truncated { needed, available } => ErrorKind::Truncated {
                what: "data",
                needed,
                available,
            },
            tracecap_wire::ErrorKind::MissingNul => ErrorKind::MissingNul,
            tracecap_wire::ErrorKind::NonZeroPadding => ErrorKind::NonZeroPadding("element"),
            other => ErrorKind::Wire(other),
        };
        Error::new(kind, e.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_offset_first() {
        let e = Error::truncated("syscall record", 0x1a2b, 25, 7);
        assert_eq!(
            e.to_string(),
            "truncated syscall record at offset 0x1a2b (needs 25 bytes, 7 left)"
        );
        let e = Error::new(ErrorKind::UnknownSegment(0xd0101), 0x197c);
        assert_eq!(
            e.to_string(),
            "unknown segment tag 0xd0101 at offset 0x197c"
        );
    }
}
