//! The exceptions: a bad capture raises `CaptureError` (a `ValueError`) with `.path`, `.format`
//! and `.offset`; I/O errors raise `OSError` (its subclasses, such as `FileNotFoundError`);
//! SQL that cannot be planned or run raises `ValueError` with the engine's message, and so does a
//! dataset's Parquet file that cannot be read (the message names it).

use std::ffi::CString;
use std::fmt::Display;

use pyo3::exceptions::{PyOSError, PyRuntimeWarning, PyValueError};
use pyo3::prelude::*;
use tracecap_query::datafusion;

pyo3::create_exception!(
    tracecap,
    CaptureError,
    PyValueError,
    "A file that is no capture, or a damaged one.\n\nAttributes: `path` (the file), `format` \
     (the format's name, or None when it is unknown) and `offset` (the absolute offset of the \
     fault in the file)."
);

/// A `CaptureError` for the file `path`: `what` is wrong at `offset`.
pub(crate) fn capture_error(
    py: Python<'_>,
    path: &str,
    format: Option<tracecap::Format>,
    what: impl Display,
    offset: u64,
) -> PyErr {
    let err = CaptureError::new_err(format!("{path}: {what} at offset {offset:#x}"));
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("path", path)?;
        value.setattr("format", format.map(|f| f.name()))?;
        value.setattr("offset", offset)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The exception for an error of the export's crate: I/O errors are `OSError`, the rest
/// `ValueError`.
pub(crate) fn arrow_error(e: tracecap_arrow::Error) -> PyErr {
    match e {
        tracecap_arrow::Error::Io(io) => io.into(),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// The exception for an error of the query engine.
pub(crate) fn query_error(e: tracecap_query::Error) -> PyErr {
    match e {
        tracecap_query::Error::Io(io) => io.into(),
        tracecap_query::Error::Inputs(e) => arrow_error(e),
        // A side of the inputs with no capture and no dataset.
        tracecap_query::Error::NoInputs { .. } => PyValueError::new_err(e.to_string()),
        // A dataset's file that cannot be read: bad data, named in the message.
        tracecap_query::Error::Dataset(e) => PyValueError::new_err(e.to_string()),
        // A file that shrank under a query fails it with an I/O error (the rest are the SQL's).
        tracecap_query::Error::Query(e) => match e.find_root() {
            datafusion::error::DataFusionError::IoError(io) => PyOSError::new_err(io.to_string()),
            _ => PyValueError::new_err(e.to_string()),
        },
    }
}

/// The `OSError` for a capture whose file shrank while it was read.
pub(crate) fn shrunk(path: &str) -> PyErr {
    PyOSError::new_err(format!(
        "{path}: the file shrank while it was being read (was it truncated or replaced by \
         another program?)"
    ))
}

/// Inputs that were skipped or damaged, each a warning's text and the exception it stands for:
/// a `RuntimeWarning` each, or with `strict` the first one's exception raised.
pub(crate) fn warn_or_raise(
    py: Python<'_>,
    problems: Vec<(String, PyErr)>,
    strict: bool,
) -> PyResult<()> {
    if strict {
        return match problems.into_iter().next() {
            Some((_, err)) => Err(err),
            None => Ok(()),
        };
    }
    let category = py.get_type::<PyRuntimeWarning>();
    for (message, _) in problems {
        PyErr::warn(py, &category, &CString::new(message.replace('\0', " "))?, 1)?;
    }
    Ok(())
}

/// A `RuntimeWarning` of each note (what went wrong with the cache of parsed tables), whatever
/// `strict` says: the answer was not affected.
pub(crate) fn warn_notes(py: Python<'_>, notes: Vec<String>) -> PyResult<()> {
    let category = py.get_type::<PyRuntimeWarning>();
    for note in notes {
        PyErr::warn(py, &category, &CString::new(note.replace('\0', " "))?, 1)?;
    }
    Ok(())
}
