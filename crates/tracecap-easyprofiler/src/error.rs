//! The crate's error: what went wrong and the absolute file offset where.

/// What is wrong with a `.prof` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The first four bytes are not `79 73 61 45` ("ysaE").
    #[error("not an EasyProfiler file (bad magic)")]
    BadMagic,
    /// The version is older than 0.1.0, the oldest any reader accepts.
    #[error("unsupported version {0:#010x}")]
    UnsupportedVersion(u32),
    /// The 2.1+ header padding after the bookmark count is not zero.
    #[error("non-zero header padding")]
    HeaderPadding,
    /// A read ran past the end of the file or of a record.
    #[error("truncated {what} (needs {needed} bytes, {available} left)")]
    Truncated {
        /// The part being read.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A record's size field is smaller than its fixed part.
    #[error("{what} of {size} bytes is shorter than its {min}-byte fixed part")]
    RecordTooShort {
        /// The record kind.
        what: &'static str,
        /// The size field.
        size: u16,
        /// The minimum.
        min: u16,
    },
    /// A string that must end in NUL does not.
    #[error("{0} without NUL terminator")]
    MissingNul(&'static str),
    /// A descriptor's name length runs past the descriptor.
    #[error("descriptor name length {name_len} exceeds its record")]
    DescriptorNameTooLong {
        /// The name length field.
        name_len: u16,
    },
    /// A value record's data type is not one of the 13 known.
    #[error("unknown value data type {0}")]
    UnknownValueType(u8),
    /// A value record's data size runs past the record.
    #[error("value data size {data_size} exceeds its record")]
    ValueDataTooLong {
        /// The data size field.
        data_size: u16,
    },
    /// The end signature after the threads (2.1+) or after the bookmarks is missing or wrong.
    #[error("bad end signature {0:#010x}")]
    BadEndSignature(u32),
    /// A caller-provided buffer (nesting scratch, fixed table) is too small.
    #[error("buffer too small: needs {needed} entries, has {capacity}")]
    CapacityExceeded {
        /// Entries needed.
        needed: u64,
        /// Entries available.
        capacity: u64,
    },
    /// A file without a thread count (older than 2.1) ends between two threads before the
    /// header's `blocks_count` records were read: the rest of the file is missing.
    #[error("the file ends after {read} of the header's {stated} records")]
    RecordsMissing {
        /// Records (context switches, blocks, events and values) read, all threads.
        read: u64,
        /// The header's `blocks_count`.
        stated: u32,
    },
    /// Bytes follow the last part of the file.
    #[error("{0} unexpected trailing bytes")]
    TrailingBytes(u64),
}

/// An error in a `.prof` file: its kind and the absolute offset where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at offset {offset:#x}")]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Absolute file offset.
    pub offset: u64,
}

impl Error {
    /// An error of `kind` at `offset`.
    #[cold]
    pub const fn new(kind: ErrorKind, offset: u64) -> Self {
        Error { kind, offset }
    }
}

/// Attaches the name of the part being read to a byte-level error.
pub(crate) trait Context<T> {
    fn what(self, what: &'static str) -> Result<T, Error>;
}

impl<T> Context<T> for Result<T, tracecap_wire::Error> {
    #[inline]
    fn what(self, what: &'static str) -> Result<T, Error> {
        self.map_err(|e| wire_error(e, what))
    }
}

#[cold]
fn wire_error(e: tracecap_wire::Error, what: &'static str) -> Error {
    use tracecap_wire::ErrorKind as W;
    let kind = match e.kind {
        W::Truncated {
            needed, available, ..
        } => ErrorKind::Truncated {
            what,
            needed,
            available,
        },
        W::MissingNul { .. } => ErrorKind::MissingNul(what),
        // The remaining byte-level kinds (varints, padding) do not occur in this format.
        _ => ErrorKind::Truncated {
            what,
            needed: 1,
            available: 0,
        },
    };
    Error::new(kind, e.offset)
}
