//! Errors of a conversion: the capture is bad (with an offset), or the sink failed.

/// A fault in a capture, from its format crate (every one carries an absolute offset).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum FormatError {
    /// From `tracecap-easyprofiler`.
    #[cfg(feature = "easyprofiler")]
    EasyProfiler(tracecap_easyprofiler::Error),
    /// From `tracecap-syscall`.
    #[cfg(feature = "syscall")]
    Syscall(tracecap_syscall::Error),
    /// From `tracecap-wtf`.
    #[cfg(feature = "wtf")]
    Wtf(tracecap_wtf::Error),
    /// From `tracecap-apitrace`, with the file offset of the fault (for a fault in the
    /// decompressed stream: the offset of the snappy chunk holding it, 0 in other containers).
    #[cfg(feature = "apitrace")]
    Apitrace {
        /// The crate's error (its offset may count in the decompressed stream).
        error: tracecap_apitrace::Error,
        /// File offset.
        file: u64,
    },
    /// From `tracecap-orbit`.
    #[cfg(feature = "orbit")]
    Orbit(tracecap_orbit::Error),
    /// No format is enabled (never constructed).
    #[doc(hidden)]
    None(core::convert::Infallible),
}

impl FormatError {
    /// Absolute file offset of the fault.
    pub fn offset(&self) -> u64 {
        match self {
            #[cfg(feature = "easyprofiler")]
            FormatError::EasyProfiler(e) => e.offset,
            #[cfg(feature = "syscall")]
            FormatError::Syscall(e) => e.offset,
            #[cfg(feature = "wtf")]
            FormatError::Wtf(e) => e.offset,
            #[cfg(feature = "apitrace")]
            FormatError::Apitrace { file, .. } => *file,
            #[cfg(feature = "orbit")]
            FormatError::Orbit(e) => e.offset,
            FormatError::None(n) => match *n {},
        }
    }

    /// What is wrong, without the offset (for messages that print the offset themselves).
    pub fn what(&self) -> impl core::fmt::Display + '_ {
        struct What<'e>(&'e FormatError);
        impl core::fmt::Display for What<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let _ = &f; // unused when no format is enabled
                match self.0 {
                    #[cfg(feature = "easyprofiler")]
                    FormatError::EasyProfiler(e) => write!(f, "{}", e.kind),
                    #[cfg(feature = "syscall")]
                    FormatError::Syscall(e) => write!(f, "{}", e.kind),
                    #[cfg(feature = "wtf")]
                    FormatError::Wtf(e) => write!(f, "{}", e.kind),
                    #[cfg(feature = "apitrace")]
                    FormatError::Apitrace { error, .. } => match error.kind.space() {
                        tracecap_apitrace::Space::File => write!(f, "{}", error.kind),
                        tracecap_apitrace::Space::Stream => write!(
                            f,
                            "{} (decompressed stream offset {:#x})",
                            error.kind, error.offset
                        ),
                    },
                    #[cfg(feature = "orbit")]
                    FormatError::Orbit(e) => write!(f, "{}", e.kind),
                    FormatError::None(n) => match *n {},
                }
            }
        }
        What(self)
    }
}

impl core::fmt::Display for FormatError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at offset {:#x}", self.what(), self.offset())
    }
}

impl core::error::Error for FormatError {}

#[cfg(feature = "easyprofiler")]
impl From<tracecap_easyprofiler::Error> for FormatError {
    fn from(e: tracecap_easyprofiler::Error) -> Self {
        FormatError::EasyProfiler(e)
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

#[cfg(feature = "easyprofiler")]
impl<E> From<tracecap_easyprofiler::Error> for ConvertError<E> {
    fn from(e: tracecap_easyprofiler::Error) -> Self {
        ConvertError::Format(FormatError::EasyProfiler(e))
    }
}

#[cfg(feature = "syscall")]
impl<E> From<tracecap_syscall::Error> for ConvertError<E> {
    fn from(e: tracecap_syscall::Error) -> Self {
        ConvertError::Format(FormatError::Syscall(e))
    }
}

#[cfg(feature = "orbit")]
impl<E> From<tracecap_orbit::Error> for ConvertError<E> {
    fn from(e: tracecap_orbit::Error) -> Self {
        ConvertError::Format(FormatError::Orbit(e))
    }
}

#[cfg(feature = "wtf")]
impl<E> From<tracecap_wtf::Error> for ConvertError<E> {
    fn from(e: tracecap_wtf::Error) -> Self {
        ConvertError::Format(FormatError::Wtf(e))
    }
}
