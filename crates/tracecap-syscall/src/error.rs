//! The crate's error: what is wrong with a capture and the absolute file offset where.

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
    /// Neither offset 28 nor offset 20 starts the VariableHeaderPart segment (tag 1).
    #[error("no host information segment after the fixed header")]
    MissingHostInfo,
    /// A top-level segment tag other than 1, 2 or 3 (and not a zero gap or a second header).
    #[error("unknown segment tag {0:#x}")]
    UnknownSegment(u32),
    /// A run of zero bytes between segments longer than the writer's zero gap can be
    /// ([`MAX_GAP_LEN`](crate::MAX_GAP_LEN) bytes); the offset is the run's first byte.
    #[error(
        "run of zero bytes longer than the writer's largest gap ({} bytes)",
        crate::gap::MAX_GAP_LEN
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
    /// A fault every format shares: truncation (of the file, a segment or an argument
    /// element), non-zero padding, a uname string without NUL, a version other than 1.
    #[error("{0}")]
    Shared(tracecap_wire::ErrorKind),
}

/// An error in a capture: its kind and the absolute file offset where it was found.
///
/// ```
/// use tracecap_syscall::{Capture, ErrorKind};
///
/// let err = Capture::parse(b"not a capture file at all").unwrap_err();
/// assert_eq!(err.kind, ErrorKind::BadMagic);
/// assert_eq!(err.offset, 0);
///
/// // Cut inside the record: nothing before it, then the error, no later than the cut.
/// # // The crate example's capture: a 28-byte header, no host information, one `close(3) = 0`.
/// # let mut file = vec![0x78, 0x06, 0x17, 0xa5, 1, 0, 0, 0];
/// # file.extend_from_slice(&4242i32.to_le_bytes());
/// # file.extend_from_slice(&1_700_000_000i64.to_le_bytes());
/// # file.extend_from_slice(&5_000i64.to_le_bytes());
/// # file.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0x01, 0]);
/// # file.extend_from_slice(&0i64.to_le_bytes());
/// # file.extend_from_slice(&[1, 0, 4, 0, 3, 0, 0, 0]);
/// let cut = &file[..file.len() - 2];
/// let err = Capture::parse(cut)?.events().find_map(Result::err).unwrap();
/// assert!(err.offset <= cut.len() as u64);
/// match err.kind {
///     ErrorKind::Shared(shared) => println!("{shared} at {}", err.offset),
///     other => println!("{other} at {}", err.offset),
/// }
/// # Ok::<(), tracecap_syscall::Error>(())
/// ```
pub type Error = tracecap_wire::Error<ErrorKind>;

tracecap_wire::shared_kind!(ErrorKind, Shared);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_ends_with_the_offset() {
        let e = Error::truncated("syscall record", 0x1a2b, 25, 7);
        assert_eq!(
            e.to_string(),
            "truncated syscall record (needs 25 bytes, 7 left) at offset 0x1a2b"
        );
        let e = Error::new(ErrorKind::UnknownSegment(0xd0101), 0x197c);
        assert_eq!(
            e.to_string(),
            "unknown segment tag 0xd0101 at offset 0x197c"
        );
    }
}
