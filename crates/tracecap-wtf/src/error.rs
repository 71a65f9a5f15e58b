//! The crate's one error type: what went wrong and the absolute file offset where.

/// What went wrong while reading a `.wtf-trace` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A fault every format shares: truncation of a named structure, a malformed varint, a
    /// full fixed-capacity definitions table, a format version other than 10 (chunked) or 3
    /// (legacy).
    #[error("{0}")]
    Shared(tracecap_wire::ErrorKind),
    /// The file does not start with `EF BE AD DE` (chunked) or `DE AD BE EF` (legacy).
    #[error("bad magic: not a .wtf-trace file")]
    BadMagic,
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
///
/// ```
/// use tracecap_wtf::{Capture, ErrorKind, FixedDefinitionTable};
///
/// let err = Capture::parse(b"not a trace, just bytes").unwrap_err();
/// assert_eq!(err.kind, ErrorKind::BadMagic);
/// assert_eq!(err.offset, 0);
///
/// // Cut short: the events before the cut, then an error no later than the cut.
/// # let bytes = tracecap_wtf::doc_example(); // one `App#tick` definition and one event
/// let cut = &bytes[..100];
/// let capture = Capture::parse(cut)?;
/// let walk = capture.events_with(FixedDefinitionTable::<16, 64>::new());
/// let err = walk.filter_map(Result::err).next().unwrap();
/// assert!(err.offset <= 100);
/// match err.kind {
///     ErrorKind::Shared(shared) => println!("{shared} at {}", err.offset),
///     other => println!("{other} at {}", err.offset),
/// }
/// # Ok::<(), tracecap_wtf::Error>(())
/// ```
pub type Error = tracecap_wire::Error<ErrorKind>;

tracecap_wire::shared_kind!(ErrorKind, Shared);
