//! The crate's one error type: what went wrong, and where.

/// What went wrong while reading a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Fewer bytes remain than a read needs.
    #[error("truncated {what} (needs {needed} bytes, {available} left)")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes the read needed.
        needed: u64,
        /// Bytes that were left.
        available: u64,
    },
    /// A varint is malformed (overlong or wider than 64 bits).
    #[error("malformed varint in {what}")]
    BadVarint {
        /// What was being read.
        what: &'static str,
    },
    /// The stream's version number is above 6, the newest apitrace knows.
    #[error("unsupported trace version {0}")]
    UnsupportedVersion(u64),
    /// An event byte other than 0 (enter) or 1 (leave).
    #[error("unknown event byte {0:#04x}")]
    UnknownEvent(u8),
    /// A call detail byte other than 0..=5 (3 is reserved and never written).
    #[error("unknown call detail {0:#04x}")]
    UnknownDetail(u8),
    /// A value tag above 0x0f.
    #[error("unknown value tag {0:#04x}")]
    UnknownTag(u8),
    /// A backtrace frame detail byte other than 0..=5.
    #[error("unknown backtrace frame detail {0:#04x}")]
    UnknownFrameDetail(u8),
    /// An enum value or enum signature value without its 0x03/0x04 tag.
    #[error("enum value with tag {0:#04x} (expected 0x03 or 0x04)")]
    BadEnumValueTag(u8),
    /// Values nested deeper than the parser allows (arrays of arrays of ...).
    #[error("values nested deeper than {0} levels")]
    TooDeep(u32),
    /// A signature id used before (or without) its definition, seen while re-reading a value.
    #[error("{0} signature used before its definition")]
    Undefined(&'static str),
    /// A fixed-capacity signature table is full.
    #[error("{0} signature table full")]
    TableFull(&'static str),
    /// A number that does not fit the platform (a count or length).
    #[error("{what} {value} does not fit in memory")]
    TooLarge {
        /// What it counts.
        what: &'static str,
        /// The number read.
        value: u64,
    },
    /// The file is too short to be any container.
    #[error("not an apitrace file: {0}")]
    NotATrace(&'static str),
    /// A compressed container is damaged.
    #[error("damaged {0} container")]
    Container(&'static str),
    /// A compressed container ends before its end marker (a cut file or a crashed tracer).
    #[error("{0} container cut short")]
    ContainerTruncated(&'static str),
    /// A snappy chunk claims an uncompressed size it cannot have.
    #[error("snappy chunk claims {0} uncompressed bytes")]
    ImplausibleChunk(u64),
    /// The decompressed stream is larger than the caller allowed.
    #[error("decompressed stream larger than the {0}-byte limit")]
    StreamLimit(u64),
    /// Memory for the decompressed stream could not be had (the stream is that large).
    #[error("no memory for {0} bytes of decompressed stream")]
    OutOfMemory(u64),
    /// A single event is larger than the streaming window may grow.
    #[error("event larger than the {0}-byte streaming window limit")]
    WindowLimit(u64),
    /// An argument index far beyond the function's argument count.
    #[error("argument index {0} out of range")]
    ArgIndex(u64),
}

/// Which bytes an [`Error`]'s offset counts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// The file as stored (container level).
    File,
    /// The decompressed event stream (offset 0 = the version number).
    Stream,
}

/// A trace error: its kind, the absolute offset, and whether the offset counts in the file or in
/// the decompressed stream (they are the same bytes only for an uncompressed stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at {} offset {offset:#x}", match .space { Space::File => "file", Space::Stream => "stream" })]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Absolute offset (see [`Error::space`]).
    pub offset: u64,
    /// What the offset counts in.
    pub space: Space,
}

impl Error {
    /// An error in the decompressed stream.
    #[cold]
    pub const fn stream(kind: ErrorKind, offset: u64) -> Self {
        Error {
            kind,
            offset,
            space: Space::Stream,
        }
    }

    /// An error in the container (file offsets).
    #[cold]
    pub const fn file(kind: ErrorKind, offset: u64) -> Self {
        Error {
            kind,
            offset,
            space: Space::File,
        }
    }

    /// Converts a byte-layer error met while reading `what` in the stream.
    #[cold]
    pub fn wire(e: tracecap_wire::Error, what: &'static str) -> Self {
        let kind = match e.kind {
            tracecap_wire::ErrorKind::Truncated {
                needed, available, ..
            } => ErrorKind::Truncated {
                what,
                needed,
                available,
            },
            tracecap_wire::ErrorKind::TooLarge { value, .. } => ErrorKind::TooLarge { what, value },
            _ => ErrorKind::BadVarint { what },
        };
        Error::stream(kind, e.offset)
    }

    /// True when more stream bytes could make the failed read succeed.
    pub fn is_truncation(&self) -> bool {
        matches!(self.kind, ErrorKind::Truncated { .. })
    }
}

impl From<tracecap_wire::Error> for Error {
    #[cold]
    fn from(e: tracecap_wire::Error) -> Self {
        Error::wire(e, "data")
    }
}
