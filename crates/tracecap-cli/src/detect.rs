//! Which format a capture is: the umbrella crate's detection (magic bytes, and structure where a
//! format has none), plus the error the tool reports when a file is none of them.

use crate::error::CliError;

pub use tracecap::Format;

/// The format of `bytes`; an unknown format (an empty file too) is a format error at offset 0.
pub fn require(bytes: &[u8]) -> Result<Format, CliError> {
    tracecap::require(bytes).map_err(|why| CliError::format(why.message(), 0))
}

/// The error for a format this build of the tool does not read (only reachable if the umbrella
/// crate learns a format before the tool does).
pub fn unsupported(format: Format) -> CliError {
    CliError::format(
        format!("{format} captures are not supported by this tool"),
        0,
    )
}
