//! The error core of every tracecap format crate: what went wrong, what was being read, and
//! where in the file.
//!
//! An error is an [`Error<K>`]: a kind `K` and the absolute file offset. The byte reader reports
//! the faults every format shares ([`ErrorKind`]: truncation, malformed varints, a missing NUL,
//! non-zero padding, a number too large for memory, a full table, a version the reader does not
//! know). A format crate defines its own kind enum with one variant that holds an [`ErrorKind`]
//! and implements [`FormatKind`]; then `?` turns a byte-level error into the crate's error
//! without losing anything, and [`Context::what`] names the part being read, in every crate the
//! same way:
//!
//! ```
//! use tracecap_wire::{Context, Error, ErrorKind, Reader};
//!
//! #[derive(Clone, Copy, Debug, PartialEq, Eq)]
//! enum Kind {
//!     Shared(ErrorKind),
//!     BadMagic,
//! }
//! tracecap_wire::shared_kind!(Kind, Shared);
//! impl core::fmt::Display for Kind {
//!     fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
//!         match self {
//!             Kind::Shared(k) => k.fmt(f),
//!             Kind::BadMagic => f.write_str("bad magic"),
//!         }
//!     }
//! }
//!
//! fn header(bytes: &[u8]) -> Result<u32, Error<Kind>> {
//!     let mut r = Reader::at(bytes, 0);
//!     if r.u32_le().what("magic")? != 0xfeed {
//!         return Err(Error::new(Kind::BadMagic, 0));
//!     }
//!     Ok(r.u32_le().what("version")?)
//! }
//!
//! let e = header(&[0xed, 0xfe, 0, 0, 1]).unwrap_err();
//! assert_eq!(e.to_string(), "truncated version (needs 4 bytes, 1 left) at offset 0x4");
//! assert!(e.is_truncation());
//! ```

use core::fmt;

/// The faults every format shares. Each but the version mismatch carries `what` was being read
/// (a short noun such as `"thread name"`), set by the format crate through [`Context::what`]; the
/// byte reader says `"data"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Fewer bytes remain than the read needs.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes the read needed.
        needed: u64,
        /// Bytes that were left.
        available: u64,
    },
    /// A LEB128 varint used more bytes than its value needs (a redundant trailing zero group).
    VarintOverlong {
        /// What was being read.
        what: &'static str,
    },
    /// A LEB128 varint does not fit the integer it is read into.
    VarintOverflow {
        /// What was being read.
        what: &'static str,
        /// Width of the target integer.
        bits: u8,
    },
    /// A NUL-terminated string has no NUL before its bound.
    MissingNul {
        /// What was being read.
        what: &'static str,
    },
    /// A length or count does not fit the platform's address space.
    TooLarge {
        /// What it counts.
        what: &'static str,
        /// The number read.
        value: u64,
    },
    /// Padding bytes that must be zero are not.
    NonZeroPadding {
        /// What the padding follows.
        what: &'static str,
    },
    /// A table of fixed capacity (given by the caller) has no room for another entry.
    TableFull {
        /// The table.
        what: &'static str,
        /// Its capacity in entries.
        capacity: u64,
    },
    /// A version of the format this reader does not know (each format has one version field).
    UnsupportedVersion {
        /// The version in the file.
        found: u64,
        /// The versions this reader knows, as text (`"1"`, `"0 to 6"`).
        expected: &'static str,
    },
}

impl ErrorKind {
    /// What was being read when the fault was found (`"format"` for a version mismatch).
    pub const fn what(&self) -> &'static str {
        match *self {
            ErrorKind::UnsupportedVersion { .. } => "format",
            ErrorKind::Truncated { what, .. }
            | ErrorKind::VarintOverlong { what }
            | ErrorKind::VarintOverflow { what, .. }
            | ErrorKind::MissingNul { what }
            | ErrorKind::TooLarge { what, .. }
            | ErrorKind::NonZeroPadding { what }
            | ErrorKind::TableFull { what, .. } => what,
        }
    }

    /// Names what was being read (a version mismatch keeps its own).
    pub fn set_what(&mut self, name: &'static str) {
        match self {
            ErrorKind::UnsupportedVersion { .. } => {}
            ErrorKind::Truncated { what, .. }
            | ErrorKind::VarintOverlong { what }
            | ErrorKind::VarintOverflow { what, .. }
            | ErrorKind::MissingNul { what }
            | ErrorKind::TooLarge { what, .. }
            | ErrorKind::NonZeroPadding { what }
            | ErrorKind::TableFull { what, .. } => *what = name,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ErrorKind::Truncated {
                what,
                needed,
                available,
            } => write!(
                f,
                "truncated {what} (needs {needed} bytes, {available} left)"
            ),
            ErrorKind::VarintOverlong { what } => write!(f, "overlong varint in {what}"),
            ErrorKind::VarintOverflow { what, bits } => {
                write!(f, "varint overflows {bits} bits in {what}")
            }
            ErrorKind::MissingNul { what } => write!(f, "{what} without NUL terminator"),
            ErrorKind::TooLarge { what, value } => {
                write!(f, "{what} {value} does not fit in memory")
            }
            ErrorKind::NonZeroPadding { what } => write!(f, "non-zero padding after {what}"),
            ErrorKind::TableFull { what, capacity } => {
                write!(f, "{what} table full (capacity {capacity})")
            }
            ErrorKind::UnsupportedVersion { found, expected } => {
                write!(f, "incompatible version {found}, expected {expected}")
            }
        }
    }
}

/// A format crate's kind of fault: its own kinds, plus one variant holding the shared
/// [`ErrorKind`] (which `From<ErrorKind>` builds and [`FormatKind::shared_mut`] gives back).
///
/// Implementing it lets `?` turn the byte reader's `Error<ErrorKind>` into `Error<Self>`, and
/// [`Context::what`] name the part being read.
pub trait FormatKind: Copy + From<ErrorKind> {
    /// The shared fault this kind holds, if it is one.
    fn shared_mut(&mut self) -> Option<&mut ErrorKind>;
}

/// Makes `$kind` (a format crate's kind enum) a [`FormatKind`] whose variant `$variant` holds
/// the shared faults: implements `From<tracecap_wire::ErrorKind>` (to that variant) and
/// [`FormatKind::shared_mut`].
///
/// ```
/// #[derive(Clone, Copy, Debug)]
/// enum Kind {
///     Shared(tracecap_wire::ErrorKind),
///     BadMagic,
/// }
/// tracecap_wire::shared_kind!(Kind, Shared);
///
/// let e: tracecap_wire::Error<Kind> = tracecap_wire::Error::truncated("magic", 0, 4, 1);
/// assert!(e.is_truncation());
/// assert!(e.shared().is_some());
/// ```
#[macro_export]
macro_rules! shared_kind {
    ($kind:ident, $variant:ident) => {
        impl ::core::convert::From<$crate::ErrorKind> for $kind {
            #[cold]
            fn from(kind: $crate::ErrorKind) -> Self {
                $kind::$variant(kind)
            }
        }

        impl $crate::FormatKind for $kind {
            fn shared_mut(&mut self) -> ::core::option::Option<&mut $crate::ErrorKind> {
                #[allow(unreachable_patterns)] // a kind may have no other variant
                match self {
                    $kind::$variant(kind) => ::core::option::Option::Some(kind),
                    _ => ::core::option::Option::None,
                }
            }
        }
    };
}

/// An error: its kind and the absolute file offset (not an offset in a sub-slice) where it was
/// found. Displayed as the kind followed by `at offset 0x..`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error<K = ErrorKind> {
    /// What went wrong.
    pub kind: K,
    /// Absolute file offset.
    pub offset: u64,
}

impl<K> Error<K> {
    /// An error of `kind` at `offset`.
    #[cold]
    pub const fn new(kind: K, offset: u64) -> Self {
        Error { kind, offset }
    }
}

impl<K: From<ErrorKind>> Error<K> {
    /// A truncation: reading `what` at `offset` needed `needed` bytes, `available` were left.
    #[cold]
    pub fn truncated(what: &'static str, offset: u64, needed: u64, available: u64) -> Self {
        let kind = ErrorKind::Truncated {
            what,
            needed,
            available,
        };
        Error::new(K::from(kind), offset)
    }

    /// A fixed-capacity table `what` of `capacity` entries is full, at `offset`.
    #[cold]
    pub fn table_full(what: &'static str, capacity: u64, offset: u64) -> Self {
        Error::new(K::from(ErrorKind::TableFull { what, capacity }), offset)
    }

    /// The version `found` (at `offset`) is not among the `expected` ones.
    #[cold]
    pub fn unsupported_version(found: u64, expected: &'static str, offset: u64) -> Self {
        Error::new(
            K::from(ErrorKind::UnsupportedVersion { found, expected }),
            offset,
        )
    }
}

impl Error<ErrorKind> {
    /// True when more bytes could make the failed read succeed.
    pub const fn is_truncation(&self) -> bool {
        matches!(self.kind, ErrorKind::Truncated { .. })
    }
}

impl<K: FormatKind> Error<K> {
    /// The shared fault of this error, if it is one.
    pub fn shared(&self) -> Option<ErrorKind> {
        let mut kind = self.kind;
        kind.shared_mut().copied()
    }

    /// True when more bytes could make the failed read succeed.
    pub fn is_truncation(&self) -> bool {
        matches!(self.shared(), Some(ErrorKind::Truncated { .. }))
    }
}

impl<K: FormatKind> From<Error<ErrorKind>> for Error<K> {
    #[cold]
    fn from(e: Error<ErrorKind>) -> Self {
        Error::new(K::from(e.kind), e.offset)
    }
}

impl<K: fmt::Display> fmt::Display for Error<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {:#x}", self.kind, self.offset)
    }
}

impl<K: fmt::Display + fmt::Debug> core::error::Error for Error<K> {}

/// Names the part being read in an error, the same way in every crate:
/// `r.u32_le().what("thread id")?`. It sets `what` of a shared fault and leaves a format's
/// own kinds as they are.
pub trait Context: Sized {
    /// The same result, its error (if any) saying it was reading `what`.
    fn what(self, what: &'static str) -> Self;
}

impl<T> Context for Result<T, Error<ErrorKind>> {
    #[inline]
    fn what(self, what: &'static str) -> Self {
        self.map_err(|e| e.what(what))
    }
}

impl<T, K: FormatKind> Context for Result<T, Error<K>> {
    #[inline]
    fn what(self, what: &'static str) -> Self {
        self.map_err(|e| e.what(what))
    }
}

impl Context for Error<ErrorKind> {
    #[cold]
    fn what(mut self, what: &'static str) -> Self {
        self.kind.set_what(what);
        self
    }
}

impl<K: FormatKind> Context for Error<K> {
    #[cold]
    fn what(mut self, what: &'static str) -> Self {
        if let Some(shared) = self.kind.shared_mut() {
            shared.set_what(what);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Kind {
        Shared(ErrorKind),
        Own,
    }
    impl From<ErrorKind> for Kind {
        fn from(k: ErrorKind) -> Self {
            Kind::Shared(k)
        }
    }
    impl fmt::Display for Kind {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                Kind::Shared(k) => k.fmt(f),
                Kind::Own => f.write_str("own fault"),
            }
        }
    }
    impl FormatKind for Kind {
        fn shared_mut(&mut self) -> Option<&mut ErrorKind> {
            match self {
                Kind::Shared(k) => Some(k),
                Kind::Own => None,
            }
        }
    }

    fn read(bytes: &[u8]) -> Result<u8, Error> {
        bytes
            .first()
            .copied()
            .ok_or(Error::truncated("data", 7, 1, 0))
    }

    fn format_read(bytes: &[u8]) -> Result<u8, Error<Kind>> {
        Ok(read(bytes).what("flag byte")?)
    }

    #[test]
    fn a_shared_fault_converts_without_loss_and_keeps_its_name() {
        let e = format_read(&[]).unwrap_err();
        assert_eq!(e.offset, 7);
        assert_eq!(
            e.kind,
            Kind::Shared(ErrorKind::Truncated {
                what: "flag byte",
                needed: 1,
                available: 0
            })
        );
        assert!(e.is_truncation());
        assert_eq!(
            e.to_string(),
            "truncated flag byte (needs 1 bytes, 0 left) at offset 0x7"
        );
        // Renaming a format error renames its shared fault, and leaves its own kinds alone.
        assert_eq!(e.what("thread").shared().map(|k| k.what()), Some("thread"));
        let own: Error<Kind> = Error::new(Kind::Own, 3);
        assert_eq!(own.what("x"), own);
        assert!(!own.is_truncation());
        assert_eq!(own.to_string(), "own fault at offset 0x3");
    }

    #[test]
    fn every_shared_kind_names_what_was_read() {
        let kinds = [
            ErrorKind::VarintOverlong { what: "data" },
            ErrorKind::VarintOverflow {
                what: "data",
                bits: 32,
            },
            ErrorKind::MissingNul { what: "data" },
            ErrorKind::TooLarge {
                what: "data",
                value: 9,
            },
            ErrorKind::NonZeroPadding { what: "data" },
            ErrorKind::TableFull {
                what: "data",
                capacity: 4,
            },
        ];
        for kind in kinds {
            let e = Error::new(kind, 0x10).what("zone name");
            assert_eq!(e.kind.what(), "zone name");
            let text = e.to_string();
            assert!(text.contains("zone name"), "{text}");
            assert!(text.ends_with(" at offset 0x10"), "{text}");
        }
        let version: Error = Error::unsupported_version(7, "1", 4);
        assert_eq!(version.what("header").kind.what(), "format");
        assert_eq!(
            version.to_string(),
            "incompatible version 7, expected 1 at offset 0x4"
        );
    }

    #[test]
    fn errors_stay_small() {
        // Kind (the largest: a truncation's name and two counts) and offset.
        assert_eq!(core::mem::size_of::<Error>(), 48);
        assert_eq!(core::mem::size_of::<Error<Kind>>(), 48);
    }
}
