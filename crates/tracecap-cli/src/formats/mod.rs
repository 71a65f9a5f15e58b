//! One module per format; each offers `info`, `validate` and `dump` with the same signatures.
//!
//! A format module writes its output to `out` (already buffered) and turns its crate's errors into
//! [`CliError::Format`] with the absolute offset.

use std::io::Write;

use crate::detect::Format;
use crate::error::CliError;

mod apitrace;
mod easyprofiler;
mod list;
mod orbit;
mod syscall;
mod wtf;

pub use list::write_list;

/// How `dump` should print.
pub struct DumpOptions {
    /// JSON Lines instead of text.
    pub json: bool,
    /// apitrace's own dump format (apitrace only).
    pub apitrace: bool,
}

/// How `info` should print.
pub struct InfoOptions {
    /// One JSON object (always with every list whole) instead of text.
    pub json: bool,
    /// Text with every list whole; without it, long lists show their first few items and a count.
    pub verbose: bool,
}

/// `tracecap info`.
pub fn info(
    format: Format,
    data: &[u8],
    opts: &InfoOptions,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    match format {
        Format::EasyProfiler => easyprofiler::info(data, opts, out),
        Format::Orbit => orbit::info(data, opts, out),
        Format::Wtf => wtf::info(data, opts, out),
        Format::Syscall => syscall::info(data, opts, out),
        Format::Apitrace => apitrace::info(data, opts, out),
        other => Err(crate::detect::unsupported(other)),
    }
}

/// `tracecap validate`.
pub fn validate(format: Format, data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    match format {
        Format::EasyProfiler => easyprofiler::validate(data, out),
        Format::Orbit => orbit::validate(data, out),
        Format::Wtf => wtf::validate(data, out),
        Format::Syscall => syscall::validate(data, out),
        Format::Apitrace => apitrace::validate(data, out),
        other => Err(crate::detect::unsupported(other)),
    }
}

/// `tracecap dump`.
pub fn dump(
    format: Format,
    data: &[u8],
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    match format {
        Format::EasyProfiler => easyprofiler::dump(data, opts, out),
        Format::Orbit => orbit::dump(data, opts, out),
        Format::Wtf => wtf::dump(data, opts, out),
        Format::Syscall => syscall::dump(data, opts, out),
        Format::Apitrace => apitrace::dump(data, opts, out),
        other => Err(crate::detect::unsupported(other)),
    }
}

#[allow(dead_code)] // for formats not wired in yet
fn unsupported(format: Format) -> Result<(), CliError> {
    Err(CliError::Usage(format!(
        "{} is not supported yet",
        format.name()
    )))
}
