//! The crate's error: what went wrong and the absolute file offset where.

/// What is wrong with a `.prof` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The first four bytes are not `79 73 61 45` ("ysaE").
    #[error("not an EasyProfiler file (bad magic)")]
    BadMagic,
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
    /// A fault every format shares: a read past the end of the file or of a record, a string
    /// without its NUL, non-zero header padding, a caller's fixed table or buffer too small, a
    /// version older than 0.1.0.
    #[error("{0}")]
    Shared(tracecap_wire::ErrorKind),
}

/// An error in a `.prof` file: its kind and the absolute offset where it was found.
///
/// ```
/// use tracecap_easyprofiler::{Capture, ErrorKind, FixedKindTable};
///
/// // Not a capture: the kind says what is wrong, the offset where.
/// let err = Capture::parse(b"not a capture at all").unwrap_err();
/// assert_eq!(err.kind, ErrorKind::BadMagic);
/// assert_eq!(err.offset, 0);
///
/// // A capture cut short: the records before the cut, then an error no later than the cut.
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
/// # let bytes = std::fs::read(path).unwrap(); // ok: doc example, the bundled sample
/// let cut = &bytes[..bytes.len() / 2];
/// let capture = Capture::parse(cut)?;
/// let kinds = FixedKindTable::<4096>::new(&capture)?;
/// let err = capture.events_with(&kinds).find_map(Result::err).unwrap(); // ok: a cut capture has a fault
/// assert!(err.is_truncation());
/// assert!(err.offset <= cut.len() as u64);
/// match err.kind {
///     ErrorKind::Shared(shared) => println!("{shared} at {}", err.offset),
///     other => println!("{other} at {}", err.offset),
/// }
/// # Ok::<(), tracecap_easyprofiler::Error>(())
/// ```
pub type Error = tracecap_wire::Error<ErrorKind>;

tracecap_wire::shared_kind!(ErrorKind, Shared);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_ends_with_the_offset() {
        let e = Error::truncated("record", 0x1382, 21, 6);
        assert_eq!(
            e.to_string(),
            "truncated record (needs 21 bytes, 6 left) at offset 0x1382"
        );
        let e = Error::new(ErrorKind::BadEndSignature(0x1234), 0x40);
        assert_eq!(e.to_string(), "bad end signature 0x00001234 at offset 0x40");
    }

    #[test]
    fn a_reader_fault_keeps_its_kind() {
        use tracecap_wire::{Context, Reader};
        fn read(bytes: &[u8]) -> Result<u16, Error> {
            let mut r = Reader::at(bytes, 0x20);
            r.u16_le().what("bookmark count")?;
            Ok(r.uleb32().what("count")? as u16)
        }
        let e = read(&[1, 0, 0x80, 0x00]).unwrap_err();
        let want = tracecap_wire::ErrorKind::VarintOverlong { what: "count" };
        assert_eq!(e, Error::new(ErrorKind::Shared(want), 0x23));
        assert!(!e.is_truncation());
    }

    #[test]
    fn errors_stay_small() {
        // The largest kind (a shared truncation: a name and two counts) and the offset.
        assert_eq!(core::mem::size_of::<Error>(), 48);
    }
}
