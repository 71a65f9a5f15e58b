//! The error core every format crate builds on: what went wrong, and where in the file.

/// What went wrong while reading bytes. Format crates add their own kinds on top of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Fewer bytes remain than a read needs.
    #[error("truncated: needs {needed} bytes, {available} left")]
    Truncated {
        /// Bytes the read needed.
        needed: u64,
        /// Bytes that were left.
        available: u64,
    },
    /// A LEB128 varint used more bytes than its value needs (a redundant trailing zero group).
    #[error("overlong varint encoding")]
    VarintOverlong,
    /// A LEB128 varint does not fit the integer it is read into.
    #[error("varint overflows {bits} bits")]
    VarintOverflow {
        /// Width of the target integer.
        bits: u8,
    },
    /// A NUL-terminated string has no NUL before its bound.
    #[error("string without NUL terminator")]
    MissingNul,
    /// A length or count does not fit the platform's address space.
    #[error("length {0} does not fit in memory")]
    TooLarge(u64),
    /// Padding bytes that must be zero are not.
    #[error("non-zero padding")]
    NonZeroPadding,
}

/// A byte-level error: its kind and the absolute file offset where it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at offset {offset:#x}")]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Absolute offset in the file (not in a sub-slice) where it went wrong.
    pub offset: u64,
}

impl Error {
    /// Builds an error at `offset`.
    #[cold]
    pub const fn new(kind: ErrorKind, offset: u64) -> Self {
        Error { kind, offset }
    }

    /// A truncation error: `needed` bytes asked for at `offset`, `available` left.
    #[cold]
    pub fn truncated(offset: u64, needed: u64, available: u64) -> Self {
        Error::new(ErrorKind::Truncated { needed, available }, offset)
    }
}
