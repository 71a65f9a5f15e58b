//! The tool's error: either the capture is bad (exit 1, with an offset) or the call is (exit 2).

use std::fmt;

/// Why a command failed.
#[derive(Debug)]
pub enum CliError {
    /// The file is not a good capture: what is wrong, and the absolute offset where.
    Format {
        /// What is wrong, without the offset (it is printed after it).
        what: String,
        /// Absolute file offset.
        offset: u64,
    },
    /// Some inputs are not good captures (exit 1), said without an offset: each was reported
    /// with its own before.
    Verdict(String),
    /// Reading the file or writing the output failed.
    Io(std::io::Error),
    /// The command line asks for something that cannot be done.
    Usage(String),
}

impl CliError {
    /// A format fault at `offset`.
    pub fn format(what: impl fmt::Display, offset: u64) -> Self {
        CliError::Format {
            what: what.to_string(),
            offset,
        }
    }

    /// 1 for a bad capture, 2 for usage and I/O.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Format { .. } | CliError::Verdict(_) => 1,
            CliError::Io(_) | CliError::Usage(_) => 2,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Format { what, offset } => write!(f, "{what} at offset {offset:#x}"),
            CliError::Verdict(m) => write!(f, "{m}"),
            CliError::Io(e) => write!(f, "{e}"),
            CliError::Usage(m) => write!(f, "{m}"),
        }
    }
}

/// A format crate's error: every one is a [`tracecap_wire::Error`], a kind and the absolute offset.
impl<K: fmt::Display> From<tracecap_wire::Error<K>> for CliError {
    fn from(e: tracecap_wire::Error<K>) -> Self {
        CliError::format(e.kind, e.offset)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Io(e)
    }
}
