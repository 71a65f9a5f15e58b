//! Which format a capture is, from its first bytes.

/// The capture formats tracecap knows. Only the formats whose feature is on are detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// EasyProfiler `.prof`.
    EasyProfiler,
    /// syscall_capture `.dat`.
    Syscall,
    /// apitrace `.trace`.
    Apitrace,
    /// Web Tracing Framework `.wtf-trace`.
    Wtf,
    /// Orbit `.orbit`.
    Orbit,
}

impl Format {
    /// Lower-case name (`easyprofiler`, `syscall`, `apitrace`, `wtf`, `orbit`).
    pub const fn name(self) -> &'static str {
        match self {
            Format::EasyProfiler => "easyprofiler",
            Format::Syscall => "syscall",
            Format::Apitrace => "apitrace",
            Format::Wtf => "wtf",
            Format::Orbit => "orbit",
        }
    }

    /// True when this build can convert the format (its feature is on).
    pub const fn is_enabled(self) -> bool {
        match self {
            Format::EasyProfiler => cfg!(feature = "easyprofiler"),
            Format::Syscall => cfg!(feature = "syscall"),
            Format::Apitrace => cfg!(feature = "apitrace"),
            Format::Wtf => cfg!(feature = "wtf"),
            Format::Orbit => cfg!(feature = "orbit"),
        }
    }
}

impl core::fmt::Display for Format {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// The format of `bytes`, from magic bytes (and structure where a format has no magic), among
/// the formats whose feature is enabled.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    #[cfg(feature = "easyprofiler")]
    if tracecap_easyprofiler::detect(bytes) {
        return Some(Format::EasyProfiler);
    }
    #[cfg(feature = "syscall")]
    if tracecap_syscall::detect(bytes) {
        return Some(Format::Syscall);
    }
    #[cfg(feature = "wtf")]
    if tracecap_wtf::detect(bytes) {
        return Some(Format::Wtf);
    }
    #[cfg(feature = "orbit")]
    if tracecap_orbit::detect(bytes) {
        return Some(Format::Orbit);
    }
    // apitrace near the end: its brotli container has no magic, so this decodes a little.
    #[cfg(feature = "apitrace")]
    if tracecap_apitrace::detect(bytes) {
        return Some(Format::Apitrace);
    }
    let _ = bytes;
    None
}

/// Why bytes are no capture: the one "not a capture" of every tool and library of the workspace.
///
/// ```
/// use tracecap::NotACapture;
///
/// assert_eq!(tracecap::require(b""), Err(NotACapture::Empty));
/// assert_eq!(NotACapture::Empty.to_string(), "empty file: not a capture");
/// assert_eq!(NotACapture::Unknown.reason(), "unknown format");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotACapture {
    /// There are no bytes at all.
    Empty,
    /// No format this build reads recognises them.
    Unknown,
}

impl NotACapture {
    /// The short reason, as a list of skipped inputs gives it: `empty file` or `unknown format`.
    pub const fn reason(self) -> &'static str {
        match self {
            NotACapture::Empty => "empty file",
            NotACapture::Unknown => "unknown format",
        }
    }

    /// The whole message: `empty file: not a capture` or `unknown format: no known magic bytes`.
    pub const fn message(self) -> &'static str {
        match self {
            NotACapture::Empty => "empty file: not a capture",
            NotACapture::Unknown => "unknown format: no known magic bytes",
        }
    }
}

impl core::fmt::Display for NotACapture {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.message())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for NotACapture {}

/// The format of `bytes` ([`detect`]), or why they are no capture.
pub fn require(bytes: &[u8]) -> Result<Format, NotACapture> {
    detect(bytes).ok_or(if bytes.is_empty() {
        NotACapture::Empty
    } else {
        NotACapture::Unknown
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_enabled_formats_only() {
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"not a capture"), None);
        #[cfg(feature = "easyprofiler")]
        assert_eq!(
            detect(&[0x79, 0x73, 0x61, 0x45, 0, 0, 1, 2]),
            Some(Format::EasyProfiler)
        );
    }
}
