//! Which format a capture is, from its first bytes.

use crate::error::CliError;

/// The capture formats the tool reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// EasyProfiler `.prof`.
    EasyProfiler,
    /// apitrace `.trace` (any container).
    Apitrace,
    /// Orbit `.orbit` (ORBT, and legacy pre-ORBT files, which are reported as such).
    Orbit,
    /// Web Tracing Framework `.wtf-trace` (chunked format 10 and legacy format 3).
    Wtf,
    /// syscall_capture `.dat` (magic 78 06 17 a5).
    Syscall,
}

impl Format {
    /// Lower-case name, as used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Format::EasyProfiler => "easyprofiler",
            Format::Apitrace => "apitrace",
            Format::Orbit => "orbit",
            Format::Wtf => "wtf",
            Format::Syscall => "syscall",
        }
    }
}

/// The format of `bytes`, from magic bytes.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if tracecap_easyprofiler::is_easyprofiler(bytes) {
        return Some(Format::EasyProfiler);
    }
    if tracecap_orbit::is_orbit(bytes) || tracecap_orbit::is_legacy(bytes) {
        return Some(Format::Orbit);
    }
    if tracecap_wtf::is_wtf(bytes) {
        return Some(Format::Wtf);
    }
    if tracecap_syscall::is_syscall_capture(bytes) {
        return Some(Format::Syscall);
    }
    // Last: apitrace's brotli container has no magic, so this decodes a little to check.
    if tracecap_apitrace::is_apitrace(bytes) {
        return Some(Format::Apitrace);
    }
    None
}

/// Like [`detect`], but an unknown format (an empty file too) is a format error at offset 0.
pub fn require(bytes: &[u8]) -> Result<Format, CliError> {
    detect(bytes).ok_or_else(|| {
        if bytes.is_empty() {
            CliError::format("empty file: not a capture", 0)
        } else {
            CliError::format("unknown format: no known magic bytes", 0)
        }
    })
}
