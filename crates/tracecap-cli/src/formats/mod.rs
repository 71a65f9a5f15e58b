//! One module per format, reached through the format's line in the umbrella's list
//! ([`tracecap::each_format!`]); each offers `info_text` (the text of a `tracecap::info` report),
//! `validate`, `dump` and `dump_arriving` with the same signatures.
//!
//! A format module writes its output to `out` (already buffered) and turns its crate's errors into
//! [`CliError::Format`] with the absolute offset.

use std::io::Write;

use crate::detect::{on_format, Format};
use crate::error::CliError;

mod apitrace;
mod easyprofiler;
mod list;
mod orbit;
pub(crate) mod syscall;
mod wtf;

mod output;

use output::fault;
pub use output::{DumpOptions, InfoOptions};

/// `tracecap info`: the capture's report ([`tracecap::info`]) as text, or as its JSON object
/// on one line; a damaged capture's fault is returned after the report is printed.
pub fn info(
    format: Format,
    data: &[u8],
    opts: &InfoOptions,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let report = tracecap::info::info(format, data).map_err(fault)?;
    if opts.json {
        serde_json::to_writer(&mut *out, &report).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        let verbose = opts.verbose;
        on_format!(
            format,
            |m| match (&report).try_into() {
                Ok(i) => m::info_text(i, verbose, out)?,
                Err(_) => return Err(crate::detect::unsupported(format)),
            },
            _ => return Err(crate::detect::unsupported(format))
        )
    }
    report.fault().cloned().map_or(Ok(()), |f| Err(fault(f)))
}

/// `tracecap validate`.
pub fn validate(format: Format, data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    on_format!(
        format,
        |m| m::validate(data, out),
        other => Err(crate::detect::unsupported(other))
    )
}

/// `tracecap dump`.
pub fn dump(
    format: Format,
    data: &[u8],
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    on_format!(
        format,
        |m| m::dump(data, opts, out),
        other => Err(crate::detect::unsupported(other))
    )
}

/// `tracecap dump` of a capture as its bytes arrive (`--follow`, standard input, a pipe):
/// records printed as they complete; `None`, having read nothing, for a format dumped from its
/// whole bytes once they have all arrived.
#[allow(clippy::useless_conversion)] // see below
pub fn dump_arriving(
    format: Format,
    s: &mut crate::follow::Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<tracecap::push::Pumped, CliError>> {
    // syscall_capture's gives its result: every one of its captures is dumped as it arrives;
    // `into` wraps it in `Some` and leaves the others' `Option` as it is.
    on_format!(format, |m| m::dump_arriving(s, opts, out).into(), _ => None)
}
