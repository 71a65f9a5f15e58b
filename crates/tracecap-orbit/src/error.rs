//! The crate's error: what is wrong with a capture, and the absolute file offset where.
//!
//! Where Orbit itself rejects a file, the message contains Orbit's own wording (so a user can
//! match it with what Orbit printed), followed by what we know more. The faults every format
//! shares are [`ErrorKind::Shared`], worded the shared way: a truncation quotes Orbit's words in
//! its `what` (see [`what`]); the shared version mismatch is worded as Orbit words it
//! (`incompatible version 2, expected 1`).

/// The `what` of the truncations Orbit itself reports: the part, then Orbit's own words, so
/// that `truncated {what} (needs .. bytes, .. left)` still quotes what Orbit printed.
pub mod what {
    /// Bytes 0..4 of the header, `ORBT`.
    pub const SIGNATURE: &str = "header: failed to read the file signature";
    /// Bytes 4..8 of the header, the format version.
    pub const VERSION: &str = "header: could not read the file's version";
    /// Bytes 8..16 of the header, the capture section's offset.
    pub const CAPTURE_SECTION_OFFSET: &str =
        "header: could not read the capture section's offset value";
    /// Bytes 16..24 of the header, the section list's offset.
    pub const SECTION_LIST_OFFSET: &str = "header: could not read the section list's offset value";
    /// The section list's count or entries, which run past the end of the file.
    pub const SECTION_LIST: &str = "section list: unexpected EOF while reading section list";
    /// A message of the capture section, which runs past the section's bound.
    pub const MESSAGE: &str = "message: unexpected end of section while reading the message";
    /// A message's varint length, malformed (Orbit has no words for it: it reads the length
    /// with protobuf's own reader).
    pub const MESSAGE_SIZE: &str = "message size";
    /// A protobuf field (its tag, its value or a packed element) that runs past the end of its
    /// message or holds a malformed varint.
    pub const FIELD: &str = "protobuf field";
}

/// What is wrong with an `.orbit` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A fault every format shares: a truncation (of the header, the section list, a message
    /// or a protobuf field, named by one of the [`what`] texts), a malformed varint, the
    /// format version other than 1.
    #[error("{0}")]
    Shared(tracecap_wire::ErrorKind),
    /// The first four bytes are not `ORBT`.
    #[error("invalid file signature (expected \"ORBT\")")]
    InvalidSignature,
    /// A capture written by Orbit 1.63 or older (the pre-ORBT serializer, format "1.59").
    #[error("invalid file signature: legacy pre-ORBT Orbit capture (format 1.59, Orbit <= 1.64), unsupported")]
    LegacyCapture,
    /// The section list count is above Orbit's limit.
    #[error("the section list is too large: {0} (must be <= 65535)")]
    SectionListTooLarge(u64),
    /// The section list offset is set, but the list holds no section (Orbit aborts on this).
    #[error("the section list is empty although its offset is set")]
    EmptySectionList,
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
///
/// ```
/// use tracecap_orbit::Capture;
///
/// // Cut inside the last message: every whole message before it, then the error.
/// # // The crate example's file: the header, CaptureStarted{process_id: 42}, CaptureFinished{}.
/// # let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
/// # file.extend_from_slice(&[5, 0xc2, 0x01, 2, 0x08, 42, 3, 0xda, 0x01, 0]);
/// let cut = &file[..file.len() - 1];
/// let capture = Capture::parse(cut)?;
/// let mut events = capture.events();
/// assert!(events.next().unwrap().is_ok()); // ok: the cut file keeps its first event
/// let err = events.next().unwrap().unwrap_err(); // ok: the cut shows as an error next
/// assert!(err.is_truncation());
/// assert!(err.offset <= cut.len() as u64);
/// # Ok::<(), tracecap_orbit::Error>(())
/// ```
pub type Error = tracecap_wire::Error<ErrorKind>;

tracecap_wire::shared_kind!(ErrorKind, Shared);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_stays_48_bytes() {
        assert_eq!(core::mem::size_of::<Error>(), 48);
    }

    #[test]
    fn the_version_mismatch_keeps_orbits_words() {
        let e = Error::unsupported_version(2, "1", 4);
        assert_eq!(
            e.to_string(),
            "incompatible version 2, expected 1 at offset 0x4"
        );
        assert_eq!(
            e.shared(),
            Some(tracecap_wire::ErrorKind::UnsupportedVersion {
                found: 2,
                expected: "1"
            })
        );
        let e = Error::truncated(what::SECTION_LIST, 0x20, 24, 3);
        assert_eq!(
            e.to_string(),
            "truncated section list: unexpected EOF while reading section list \
             (needs 24 bytes, 3 left) at offset 0x20"
        );
        assert!(e.is_truncation());
    }
}
