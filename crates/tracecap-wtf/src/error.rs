//! The crate's one error type: what went wrong and the absolute file offset where.

/// What went wrong while reading a `.wtf-trace` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Fewer bytes remain than the named structure needs.
    #[error("truncated {what} (needs {needed} bytes, {available} left)")]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes that were left.
        available: u64,
    },
    /// A byte-level fault from the shared reader other than truncation.
    #[error("{0}")]
    Wire(tracecap_wire::ErrorKind),
    /// The file does not start with `EF BE AD DE` (chunked) or `DE AD BE EF` (legacy).
    #[error("bad magic: not a .wtf-trace file")]
    BadMagic,
    /// The format version is not 10 (chunked) or 3 (legacy).
    #[error("unsupported format version {0}")]
    UnsupportedVersion(u32),
    /// A chunk length is smaller than its own header and part table, or not a multiple of 4.
    #[error("bad chunk length {0}")]
    BadChunkLength(u32),
    /// A part's offset and length point outside its chunk.
    #[error("part outside its chunk (offset {offset}, length {length})")]
    PartOutOfChunk {
        /// Part offset (relative to the end of the part table).
        offset: u32,
        /// Part length.
        length: u32,
    },
    /// An event names a wire id that no `wtf.event#define` defined before it.
    #[error("undefined event wire id {0}")]
    UndefinedEvent(u32),
    /// An event signature names a type that does not exist.
    #[error("unknown argument type in signature")]
    UnknownArgType,
    /// An event signature piece does not have the `TYPE NAME` shape.
    #[error("malformed event signature")]
    BadSignature,
    /// A name or signature is not valid UTF-8.
    #[error("invalid UTF-8")]
    InvalidUtf8,
    /// A definition names a string ordinal that its chunk's string table does not have.
    #[error("string ordinal {0} not in the chunk's string table")]
    BadStringOrdinal(u32),
    /// A fixed-capacity definitions table is full.
    #[error("definitions table full (capacity {0})")]
    TableFull(usize),
    /// A definition declares more arguments than the walker supports ([`crate::MAX_ARGS`]).
    #[error("event definition with more than {0} arguments")]
    TooManyArgs(usize),
    /// An argument type the legacy format cannot carry (`char`, `wchar` and their arrays).
    #[error("argument type not supported in the legacy format")]
    LegacyUnsupportedType,
    /// The file-header part is not one JSON object (as serde_json reads it).
    #[error("file header is not a JSON object")]
    BadHeaderJson,
    /// A `wtf.event#define` for wire id 0, which no recorder assigns (ids start at 1). Zero bytes
    /// after such a definition would each read as an event.
    #[error("event definition for wire id 0")]
    DefinesWireIdZero,
}

/// An error and the absolute file offset where it happened.
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

    /// A truncation of `what` at `offset`.
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

    /// Renames what a wire-level truncation was reading.
    #[cold]
    pub(crate) fn what(mut self, what: &'static str) -> Self {
        if let ErrorKind::Truncated { what: w, .. } = &mut self.kind {
            *w = what;
        }
        self
    }
}

impl From<tracecap_wire::Error> for Error {
    #[cold]
    fn from(e: tracecap_wire::Error) -> Self {
        match e.kind {
            tracecap_wire::ErrorKind::Truncated { needed, available } => {
                Error::truncated("data", e.offset, needed, available)
            }
            kind => Error::new(ErrorKind::Wire(kind), e.offset),
        }
    }
}
