//! The per-format tables: what the timeline cannot hold, one module per format.
//!
//! Each module has the same two functions: `fields(table)`, the columns of its tables after
//! `capture`, and `walk(data, out)`, which reads the capture's main records once and hands their
//! rows to `out` in batches. A fault stops the walk with [`ConvertError::Format`] after every
//! record before it was handed over; a failing consumer stops it with [`ConvertError::Sink`].

use arrow_schema::{ArrowError, Field};
use tracecap::{ConvertError, Format};

use crate::emit::Emit;
use crate::table::Table;

mod apitrace;
mod easyprofiler;
mod orbit;
mod syscall;
mod wtf;

/// The columns of a per-format table after `capture`.
pub(crate) fn fields(table: Table) -> Vec<Field> {
    match table.format() {
        Some(Format::EasyProfiler) => easyprofiler::fields(table),
        Some(Format::Syscall) => syscall::fields(table),
        Some(Format::Apitrace) => apitrace::fields(table),
        Some(Format::Wtf) => wtf::fields(table),
        Some(Format::Orbit) => orbit::fields(table),
        _ => Vec::new(),
    }
}

/// Walks the per-format tables of a capture of `format`.
pub(crate) fn walk(
    format: Format,
    data: &[u8],
    out: &mut Emit<'_>,
) -> Result<(), ConvertError<ArrowError>> {
    match format {
        Format::EasyProfiler => easyprofiler::walk(data, out),
        Format::Syscall => syscall::walk(data, out),
        Format::Apitrace => apitrace::walk(data, out),
        Format::Wtf => wtf::walk(data, out),
        Format::Orbit => orbit::walk(data, out),
        other => Err(ConvertError::Unsupported(other)),
    }
}
