//! The crate's error: what is wrong with a capture, and the absolute file offset where.
//!
//! Where Orbit itself rejects a file, the message contains Orbit's own wording (so a user can
//! match it with what Orbit printed), followed by what we know more.

/// The header field a too-short file could not provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderField {
    /// Bytes 0..4, `ORBT`.
    Signature,
    /// Bytes 4..8, the format version.
    Version,
    /// Bytes 8..16, the capture section's offset.
    CaptureSectionOffset,
    /// Bytes 16..24, the section list's offset.
    SectionListOffset,
}

impl core::fmt::Display for HeaderField {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            HeaderField::Signature => "failed to read the file signature",
            HeaderField::Version => "could not read the file's version",
            HeaderField::CaptureSectionOffset => {
                "could not read the capture section's offset value"
            }
            HeaderField::SectionListOffset => "could not read the section list's offset value",
        })
    }
}

/// What is wrong with an `.orbit` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file ends inside the 24-byte header.
    #[error("{field} (truncated header: needs {needed} bytes, {available} left)")]
    TruncatedHeader {
        /// The field that could not be read.
        field: HeaderField,
        /// Bytes needed for it.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// The first four bytes are not `ORBT`.
    #[error("invalid file signature (expected \"ORBT\")")]
    InvalidSignature,
    /// A capture written by Orbit 1.63 or older (the pre-ORBT serializer, format "1.59").
    #[error("invalid file signature: legacy pre-ORBT Orbit capture (format 1.59, Orbit <= 1.64), unsupported")]
    LegacyCapture,
    /// The format version is not 1.
    #[error("incompatible version {0}, expected 1")]
    IncompatibleVersion(u32),
    /// The section list count is above Orbit's limit.
    #[error("the section list is too large: {0} (must be <= 65535)")]
    SectionListTooLarge(u64),
    /// The section list offset is set, but the list holds no section (Orbit aborts on this).
    #[error("the section list is empty although its offset is set")]
    EmptySectionList,
    /// The section list's entries run past the end of the file.
    #[error("unexpected EOF while reading section list (needs {needed} bytes, {available} left)")]
    TruncatedSectionList {
        /// Bytes the entries need.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A section (index in the list) reaches beyond the end of the file.
    #[error("section {index} (offset {start}, size {size}) lies beyond the end of the file ({file_len} bytes)")]
    SectionOutOfBounds {
        /// Index in the section list.
        index: u32,
        /// Its offset.
        start: u64,
        /// Its size.
        size: u64,
        /// The file's length.
        file_len: u64,
    },
    /// Two sections, or a section and the header, the capture section or the list, overlap.
    #[error("section {index} overlaps {other}")]
    SectionOverlap {
        /// Index in the section list.
        index: u32,
        /// What it overlaps.
        other: Overlap,
    },
    /// The capture section starts inside the header, after its bound or after the file's end.
    #[error("the capture section offset {start} is outside the file's layout (bound {bound})")]
    CaptureSectionOutOfBounds {
        /// The capture section offset from the header.
        start: u64,
        /// The end bound computed from the sections.
        bound: u64,
    },
    /// The section bound comes before a message's varint length could be read.
    #[error("unexpected end of section while reading message size")]
    TruncatedMessageSize,
    /// A message length above Orbit's 1 MiB limit.
    #[error("the message size {0} is too big (maximum allowed message size is 1048576)")]
    MessageTooBig(u64),
    /// A message runs past the section bound.
    #[error("unexpected end of section while reading the message (needs {needed} bytes, {available} left)")]
    TruncatedMessage {
        /// The message length.
        needed: u64,
        /// Bytes left before the bound.
        available: u64,
    },
    /// An event of length 0 before `CaptureFinished`: no writer produces one (the zero bytes
    /// Orbit leaves are padding after `CaptureFinished`), and a run of zeros would otherwise read
    /// as one event per byte.
    #[error("empty event (length 0) before CaptureFinished")]
    EmptyEvent,
    /// A message is not in the canonical encoding Orbit re-serializes to (Orbit's size check).
    #[error("the message size {parsed} of the parsed message is different from the parsed size {stated}")]
    NonCanonicalMessage {
        /// The size the message re-serializes to.
        parsed: u64,
        /// The length stated in the file.
        stated: u64,
    },
    /// A protobuf varint is longer than 10 bytes or overflows 64 bits.
    #[error("malformed protobuf varint")]
    MalformedVarint,
    /// A protobuf field runs past the end of its message.
    #[error("truncated protobuf field (needs {needed} bytes, {available} left)")]
    TruncatedField {
        /// Bytes needed.
        needed: u64,
        /// Bytes left in the message.
        available: u64,
    },
    /// A field tag with number 0 or above 2^29-1.
    #[error("invalid protobuf field number {0}")]
    InvalidFieldNumber(u64),
    /// A field with wire type 6 or 7.
    #[error("invalid protobuf wire type {0}")]
    InvalidWireType(u8),
    /// A (deprecated) protobuf group: never written by Orbit, rejected.
    #[error("protobuf groups are not supported (field {0})")]
    Group(u32),
    /// A known field arrived with the wrong wire type.
    #[error("field {field} has wire type {found}, expected {expected}")]
    WrongWireType {
        /// The field number.
        field: u32,
        /// The wire type in the file.
        found: u8,
        /// The wire type the schema asks for.
        expected: u8,
    },
    /// A `string` field is not UTF-8.
    #[error("string field {0} is not valid UTF-8")]
    InvalidUtf8(u32),
    /// Messages nest deeper than the parser allows.
    #[error("messages nested too deeply")]
    TooDeep,
    /// A byte-level read failed.
    #[error("{0}")]
    Wire(tracecap_wire::ErrorKind),
}

/// What a section overlaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    /// The 24-byte header.
    Header,
    /// The events of the capture section (up to the end of `CaptureFinished`).
    CaptureSection,
    /// The section list itself.
    SectionList,
    /// Another section (its index).
    Section(u32),
}

impl core::fmt::Display for Overlap {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Overlap::Header => f.write_str("the file header"),
            Overlap::CaptureSection => f.write_str("the capture section"),
            Overlap::SectionList => f.write_str("the section list"),
            Overlap::Section(i) => write!(f, "section {i}"),
        }
    }
}

/// An error in an `.orbit` file: its kind and the absolute offset where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at offset {offset:#x}")]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Absolute file offset.
    pub offset: u64,
}

impl Error {
    /// An error of `kind` at absolute `offset`.
    #[cold]
    pub const fn new(kind: ErrorKind, offset: u64) -> Self {
        Error { kind, offset }
    }
}

impl From<tracecap_wire::Error> for Error {
    #[cold]
    fn from(e: tracecap_wire::Error) -> Self {
        Error::new(ErrorKind::Wire(e.kind), e.offset)
    }
}
