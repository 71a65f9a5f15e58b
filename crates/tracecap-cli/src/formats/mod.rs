//! One module per format; each offers `info_text` (the text of a `tracecap::info` report),
//! `validate` and `dump` with the same signatures.
//!
//! A format module writes its output to `out` (already buffered) and turns its crate's errors into
//! [`CliError::Format`] with the absolute offset.

use std::io::Write;

use tracecap::info::Info;

use crate::detect::Format;
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
        match &report {
            Info::EasyProfiler(i) => easyprofiler::info_text(i, verbose, out)?,
            Info::Orbit(i) => orbit::info_text(i, verbose, out)?,
            Info::Wtf(i) => wtf::info_text(i, verbose, out)?,
            Info::Syscall(i) => syscall::info_text(i, verbose, out)?,
            Info::Apitrace(i) => apitrace::info_text(i, verbose, out)?,
            _ => return Err(crate::detect::unsupported(format)),
        }
    }
    report.fault().cloned().map_or(Ok(()), |f| Err(fault(f)))
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

/// `tracecap dump` of a capture as its bytes arrive (`--follow`, standard input, a pipe):
/// records printed as they complete; `None`, having read nothing, for a format dumped from its
/// whole bytes once they have all arrived.
pub fn dump_arriving(
    format: Format,
    s: &mut crate::follow::Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<tracecap::push::Pumped, CliError>> {
    match format {
        Format::EasyProfiler => easyprofiler::dump_arriving(s, opts, out),
        Format::Orbit => orbit::dump_arriving(s, opts, out),
        Format::Wtf => wtf::dump_arriving(s, opts, out),
        Format::Syscall => Some(syscall::dump_arriving(s, opts, out)),
        Format::Apitrace => apitrace::dump_arriving(s, opts, out),
        _ => None,
    }
}

#[allow(dead_code)] // for formats not wired in yet
fn unsupported(format: Format) -> Result<(), CliError> {
    Err(CliError::Usage(format!(
        "{} is not supported yet",
        format.name()
    )))
}
