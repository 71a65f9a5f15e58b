//! Errors of a conversion: the capture is bad (with an offset), or the sink failed.

use crate::Format;

/// [`FormatKind`] and its conversions, from [`each_format!`](crate::each_format)'s list.
macro_rules! format_kind_items {
    (() $($v:ident $module:ident $name:literal $krate:ident [$($report:tt)*],)*) => {
        /// What is wrong with a capture: the kind of its format crate's error.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum FormatKind {
            $(
                #[doc = concat!("From `", stringify!($krate), "`.")]
                #[cfg(feature = $name)]
                $v($krate::ErrorKind),
            )*
            /// No format is enabled (never constructed).
            #[doc(hidden)]
            None(core::convert::Infallible),
        }

        $(
            #[cfg(feature = $name)]
            impl From<$krate::ErrorKind> for FormatKind {
                fn from(kind: $krate::ErrorKind) -> Self {
                    FormatKind::$v(kind)
                }
            }
        )*

        impl FormatKind {
            /// The format whose crate reported it.
            pub fn format(&self) -> Format {
                match self {
                    $(
                        #[cfg(feature = $name)]
                        FormatKind::$v(_) => Format::$v,
                    )*
                    FormatKind::None(n) => match *n {},
                }
            }
        }

        impl core::fmt::Display for FormatKind {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let _ = &f; // unused when no format is enabled
                match self {
                    $(
                        #[cfg(feature = $name)]
                        FormatKind::$v(k) => k.fmt(f),
                    )*
                    FormatKind::None(n) => match *n {},
                }
            }
        }
    };
}

crate::each_format!(format_kind_items!());

/// A fault in a capture: what is wrong and the absolute file offset where. Every format crate's
/// error (a `tracecap_wire::Error<K>`) converts into it with `?` or `From`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatError {
    kind: FormatKind,
    offset: u64,
    stream_offset: Option<u64>,
}

impl FormatError {
    /// A fault of `kind` at the absolute file offset `offset`.
    #[allow(unused_variables)] // with no format enabled, FormatKind has no value
    pub fn new(kind: impl Into<FormatKind>, offset: u64) -> Self {
        FormatError {
            kind: kind.into(),
            offset,
            stream_offset: None,
        }
    }

    /// A fault found in a compressed capture's decompressed stream (apitrace): at
    /// `stream_offset` in the stream, which lies in the container piece (snappy chunk, zstd
    /// frame) starting at file offset `offset` (0 for a container without pieces).
    #[allow(unused_variables)] // with no format enabled, FormatKind has no value
    pub fn in_stream(kind: impl Into<FormatKind>, offset: u64, stream_offset: u64) -> Self {
        FormatError {
            kind: kind.into(),
            offset,
            stream_offset: Some(stream_offset),
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> &FormatKind {
        &self.kind
    }

    /// Absolute file offset of the fault.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// For a fault in a decompressed stream, its offset there.
    pub fn stream_offset(&self) -> Option<u64> {
        self.stream_offset
    }

    /// What is wrong, without the file offset (for messages that print the offset themselves);
    /// a fault in a decompressed stream names its offset there.
    pub fn what(&self) -> impl core::fmt::Display + '_ {
        struct What<'e>(&'e FormatError);
        impl core::fmt::Display for What<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match self.0.stream_offset {
                    None => write!(f, "{}", self.0.kind),
                    Some(at) => {
                        write!(f, "{} (decompressed stream offset {at:#x})", self.0.kind)
                    }
                }
            }
        }
        What(self)
    }
}

impl core::fmt::Display for FormatError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at offset {:#x}", self.what(), self.offset)
    }
}

impl core::error::Error for FormatError {}

/// The one conversion from a format crate's error.
impl<K> From<tracecap_wire::Error<K>> for FormatError
where
    FormatKind: From<K>,
{
    fn from(e: tracecap_wire::Error<K>) -> Self {
        FormatError::new(FormatKind::from(e.kind), e.offset)
    }
}

/// An apitrace fault placed in the file (`tracecap_apitrace::FileError`): a fault of the
/// decompressed stream keeps its stream offset ([`FormatError::in_stream`]).
#[cfg(feature = "apitrace")]
impl From<tracecap_apitrace::FileError> for FormatError {
    fn from(e: tracecap_apitrace::FileError) -> Self {
        match e.stream_offset() {
            Some(at) => FormatError::in_stream(e.error.kind, e.file_offset, at),
            None => FormatError::new(e.error.kind, e.file_offset),
        }
    }
}

/// Why a conversion stopped.
#[derive(Debug)]
pub enum ConvertError<E> {
    /// The capture is damaged here. Everything before the damage was already sent to the sink.
    Format(FormatError),
    /// The sink failed (e.g. an I/O error while writing).
    Sink(E),
    /// This build has no adapter for the format (its feature is off, or it has none yet).
    Unsupported(crate::Format),
}

impl<E: core::fmt::Display> core::fmt::Display for ConvertError<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConvertError::Format(e) => write!(f, "{e}"),
            ConvertError::Sink(e) => write!(f, "{e}"),
            ConvertError::Unsupported(fmt) => write!(f, "converting {fmt} is not supported"),
        }
    }
}

impl<E: core::fmt::Debug + core::fmt::Display> core::error::Error for ConvertError<E> {}

impl<E> From<FormatError> for ConvertError<E> {
    fn from(e: FormatError) -> Self {
        ConvertError::Format(e)
    }
}

/// A format crate's error stops a conversion.
impl<E, K> From<tracecap_wire::Error<K>> for ConvertError<E>
where
    FormatKind: From<K>,
{
    #[allow(unreachable_code)] // with no format enabled, FormatKind has no value
    fn from(e: tracecap_wire::Error<K>) -> Self {
        ConvertError::Format(e.into())
    }
}
