//! The crate's one error type: what went wrong, and where.
//!
//! An [`Error`] is the shared error core of `tracecap-wire`: a kind and an absolute offset. The
//! offset counts in the file for a fault of the container, and in the decompressed event stream
//! for every other fault; [`ErrorKind::space`] says which (they are the same bytes only for an
//! uncompressed stream).

/// What went wrong while reading a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A fault every format shares, met in the decompressed stream: truncation of a named
    /// structure, an overlong or overflowing varint, a count too large for memory, a full
    /// signature table, a stream version above 6 (the newest apitrace knows).
    #[error("{0}")]
    Shared(tracecap_wire::ErrorKind),
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
    /// The file is too short to be any container (a file offset).
    #[error("not an apitrace file: {0}")]
    NotATrace(&'static str),
    /// A compressed container is damaged (a file offset).
    #[error("damaged {0} container")]
    Container(&'static str),
    /// A compressed container ends before its end marker (a cut file or a crashed tracer; a
    /// file offset).
    #[error("{0} container cut short")]
    ContainerTruncated(&'static str),
    /// A snappy chunk claims an uncompressed size it cannot have (a file offset).
    #[error("snappy chunk claims {0} uncompressed bytes")]
    ImplausibleChunk(u64),
    /// The decompressed stream is larger than the caller allowed (a file offset).
    #[error("decompressed stream larger than the {0}-byte limit")]
    StreamLimit(u64),
    /// Memory for the decompressed stream could not be had (the stream is that large; a file
    /// offset).
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

impl ErrorKind {
    /// What the offset of an error of this kind counts in: the file for the faults of the
    /// container ([`ErrorKind::NotATrace`], [`ErrorKind::Container`],
    /// [`ErrorKind::ContainerTruncated`], [`ErrorKind::ImplausibleChunk`],
    /// [`ErrorKind::StreamLimit`], [`ErrorKind::OutOfMemory`]), the decompressed stream for the
    /// others.
    pub const fn space(&self) -> Space {
        match self {
            ErrorKind::NotATrace(_)
            | ErrorKind::Container(_)
            | ErrorKind::ContainerTruncated(_)
            | ErrorKind::ImplausibleChunk(_)
            | ErrorKind::StreamLimit(_)
            | ErrorKind::OutOfMemory(_) => Space::File,
            ErrorKind::Shared(_)
            | ErrorKind::UnknownEvent(_)
            | ErrorKind::UnknownDetail(_)
            | ErrorKind::UnknownTag(_)
            | ErrorKind::UnknownFrameDetail(_)
            | ErrorKind::BadEnumValueTag(_)
            | ErrorKind::TooDeep(_)
            | ErrorKind::Undefined(_)
            | ErrorKind::WindowLimit(_)
            | ErrorKind::ArgIndex(_) => Space::Stream,
        }
    }
}

/// A trace error: its kind and the absolute offset, in the file or in the decompressed stream
/// as [`ErrorKind::space`] says.
///
/// ```
/// use tracecap_apitrace::{decompress, Capture, ErrorKind, FixedSigTable, Space, Stream};
///
/// // Too short to be any container: an error in the file, at its start.
/// let err = Capture::parse(b"??").unwrap_err();
/// assert!(matches!(err.kind, ErrorKind::NotATrace(_)));
/// assert_eq!((err.kind.space(), err.offset), (Space::File, 0));
///
/// // A stream with a bad byte after its last event: every event before it, then the error at
/// // that byte's offset in the decompressed stream.
/// # let file = tracecap_apitrace::doc_example(); // a small snappy .trace file
/// let mut stream = decompress(&file)?.data.to_vec();
/// let end = stream.len() as u64;
/// stream.push(0x7f);
/// let events = Stream::parse(&stream)?.events_with(FixedSigTable::<16>::new());
/// let err = events.filter_map(Result::err).next().unwrap(); // ok: doc example, the file is cut
/// assert!(matches!(err.kind, ErrorKind::UnknownEvent(0x7f)));
/// assert_eq!((err.kind.space(), err.offset), (Space::Stream, end));
/// # Ok::<(), tracecap_apitrace::Error>(())
/// ```
pub type Error = tracecap_wire::Error<ErrorKind>;

tracecap_wire::shared_kind!(ErrorKind, Shared);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_stay_small() {
        assert_eq!(core::mem::size_of::<Error>(), 48);
    }

    #[test]
    fn container_faults_count_in_the_file_the_others_in_the_stream() {
        assert_eq!(ErrorKind::ContainerTruncated("gzip").space(), Space::File);
        assert_eq!(ErrorKind::StreamLimit(1).space(), Space::File);
        let cut: Error = Error::truncated("call number", 9, 1, 0);
        assert_eq!(cut.kind.space(), Space::Stream);
        assert_eq!(ErrorKind::WindowLimit(1).space(), Space::Stream);
    }
}

/// A fault placed in the file: the [`Error`] (whose offset counts where its kind's
/// [`ErrorKind::space`] says) and the file offset it lies at. For a fault of the container the
/// two offsets are the same; for a fault of the stream, `file_offset` is where the snappy chunk
/// or zstd frame holding it starts (0 for gzip and brotli, one compressed stream). What
/// `Capture::parse_located`, `Capture::parse_with_events` and `ChunkedReader::file_error` give
/// (feature `std`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The fault, with its own offset.
    pub error: Error,
    /// The file offset of the fault, or of the piece of the container holding it.
    pub file_offset: u64,
}

impl FileError {
    /// The offset in the decompressed stream, for a fault of the stream.
    pub fn stream_offset(&self) -> Option<u64> {
        match self.error.kind.space() {
            Space::File => None,
            Space::Stream => Some(self.error.offset),
        }
    }
}

impl core::fmt::Display for FileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.stream_offset() {
            None => write!(f, "{}", self.error),
            Some(at) => write!(
                f,
                "{} at decompressed stream offset {at:#x}, in the piece of the container \
                 starting at offset {:#x}",
                self.error.kind, self.file_offset
            ),
        }
    }
}

impl core::error::Error for FileError {}
