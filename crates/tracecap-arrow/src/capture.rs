//! One capture to batches: the timeline walk, the format's own walk, then the `captures` row.

use arrow_schema::ArrowError;
use tracecap::{ConvertError, Format, FormatError};

use crate::captures::{self, CaptureSummary};
use crate::emit::{BatchSink, Emit, Schemas};
use crate::error::Error;
use crate::formats;
use crate::table::{Table, Tables};

use crate::timeline::TimelineTables;

/// How a capture is walked.
#[derive(Clone, Debug)]
pub struct Options {
    /// Rows per batch (at most; the last batch of a table holds the rest). Default 65 536.
    pub batch_rows: usize,
    /// The tables to build. Default: all.
    pub tables: Tables,
    /// The `path` column of the `captures` row. Default: the capture's id.
    pub path: Option<String>,
    /// Whether the `args` columns of `slices` and `instants` are built. Default: true. When
    /// false they are null, the adapters are told that no arguments are read
    /// ([`tracecap::timeline::Sink::wants`]) and skip decoding and rendering them, and no
    /// JSON is written: for a reader that does not look at them (a query that does not select
    /// them).
    pub args: bool,
    /// The columns read, by index in the schema of each table built (`None`, the default: all
    /// of them): batches hold these columns only, in this order, and the timeline tables do not
    /// fill the others. Meant for a walk that builds one table, as a query's scan does (the
    /// indices are those of [`Table::schema`], whichever table is built).
    pub columns: Option<std::sync::Arc<[usize]>>,
    /// The capture's format, when the caller knows it (a capture found by the `dataset` module's
    /// `find_sources` carries it): it is not detected again. Default: `None`, detected from the bytes. A capture that is no
    /// longer of that format is read as a damaged one (its fault at the offset where the format
    /// breaks).
    pub format: Option<Format>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            batch_rows: 1 << 16,
            tables: Tables::all(),
            path: None,
            args: true,
            columns: None,
            format: None,
        }
    }
}

impl Options {
    /// The default options, building `table` alone.
    pub fn only(table: Table) -> Options {
        Options {
            tables: Tables::only(table),
            ..Options::default()
        }
    }
}

/// Walks the capture `data` (any format [`tracecap::detect`] knows) with the id `id` and hands
/// the batches of `options.tables` to `sink`, ending with the capture's `captures` row.
///
/// A damaged capture is not an error: everything before the fault is handed over and the fault
/// is in the summary (and the `captures` row). Errors are an input that is no capture, and a
/// failure of the sink or of Arrow.
pub fn capture_batches(
    id: &str,
    data: &[u8],
    options: &Options,
    sink: &mut dyn BatchSink,
) -> Result<CaptureSummary, Error> {
    capture_batches_with_progress(id, data, options, sink, &mut |_| {})
}

/// [`capture_batches`], telling `progress` now and then how many bytes of `data` the timeline
/// walk has read.
pub fn capture_batches_with_progress(
    id: &str,
    data: &[u8],
    options: &Options,
    sink: &mut dyn BatchSink,
    progress: &mut dyn FnMut(u64),
) -> Result<CaptureSummary, Error> {
    let format = match options.format {
        Some(format) if !data.is_empty() => format,
        _ => tracecap::require(data).map_err(Error::NotACapture)?,
    };
    let wanted = (
        options.tables,
        options.columns.as_deref(),
        Table::schema as Schemas,
    );
    let mut out = Emit::new(id, options.batch_rows, wanted, sink);
    // The timeline is walked even when none of its tables is wanted: the `captures` row needs
    // its time span and fault.
    let mut tables = TimelineTables::new(&mut out, options.args, data.len(), progress);
    let (stats, converted) = tracecap::adapter::convert_counted(format, data, &mut tables);
    let mut fault = fault_of(converted)?;
    tables.finish()?;
    let own = options.tables.iter().any(|t| t.format() == Some(format));
    if own {
        if let Some(f) = fault_of(formats::walk(format, data, &mut out))? {
            // The earlier of the two faults (both walks read the same records).
            if fault.is_none_or(|g| f.offset() < g.offset()) {
                fault = Some(f);
            }
        }
    }
    let summary = CaptureSummary {
        format,
        version: if options.tables.contains(Table::Captures) {
            formats::version(format, data)
        } else {
            None
        },
        bytes: data.len() as u64,
        stats,
        fault,
    };
    let path = options.path.as_deref().unwrap_or(id);
    out.emit(Table::Captures, captures::row(path, &summary))?;
    Ok(summary)
}

/// A walk's fault, or the error that must stop the whole walk.
fn fault_of(result: Result<(), ConvertError<ArrowError>>) -> Result<Option<FormatError>, Error> {
    match result {
        Ok(()) => Ok(None),
        Err(ConvertError::Format(f)) => Ok(Some(f)),
        Err(ConvertError::Sink(e)) => Err(Error::Arrow(e)),
        Err(ConvertError::Unsupported(f)) => Err(Error::Arrow(ArrowError::NotYetImplemented(
            format!("{f} captures"),
        ))),
    }
}
