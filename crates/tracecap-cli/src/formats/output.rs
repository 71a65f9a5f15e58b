//! How a format module prints: the options of `dump` and `info`, where `dump`'s lines go, and a
//! report's fault as the command's error.

use std::io::Write;

use crate::error::CliError;
use crate::json::JsonWriter;

/// How `dump` should print.
pub struct DumpOptions {
    /// JSON Lines instead of text.
    pub json: bool,
    /// apitrace's own dump format (apitrace only).
    pub apitrace: bool,
}

/// Where `dump` prints: JSON Lines through the writer, or text.
pub(crate) enum Lines<'o> {
    /// `dump --json`.
    Json(JsonWriter<'o>),
    /// `dump`.
    Text(&'o mut dyn Write),
}

impl<'o> Lines<'o> {
    pub(super) fn new(json: bool, out: &'o mut dyn Write) -> Self {
        if json {
            Lines::Json(JsonWriter::new(out))
        } else {
            Lines::Text(out)
        }
    }

    /// Flushes what was printed, so that it shows while more bytes are awaited.
    pub(super) fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Lines::Json(w) => w.flush(),
            Lines::Text(out) => out.flush(),
        }
    }
}

/// A fault as stated by a report of `tracecap::info`.
pub(super) fn fault(f: tracecap::info::Fault) -> CliError {
    let (what, offset) = f.into_parts();
    CliError::Format { what, offset }
}

/// How `info` should print.
pub struct InfoOptions {
    /// One JSON object (always with every list whole) instead of text.
    pub json: bool,
    /// Text with every list whole; without it, long lists show their first few items and a count.
    pub verbose: bool,
}
