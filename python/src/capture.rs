//! `tracecap.open(path) -> Capture`: one capture, memory-mapped, and its tables.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tracecap::Format;
use tracecap_arrow::{Options, Table, Tables};

use crate::errors::{arrow_error, capture_error, shrunk};
use crate::inputs::{FsPath, Mapped};
use crate::stream::{Source, Stream};

/// Opens the capture at `path` (memory-mapped; the format is detected from its bytes).
///
/// Raises `CaptureError` (offset 0) when the file is empty or of no known format, and `OSError`
/// when it cannot be opened. A damaged capture opens: its tables hold every row before the
/// fault, `validate()` raises it, and `info()["error"]` describes it.
#[pyfunction]
pub fn open(py: Python<'_>, path: FsPath) -> PyResult<Capture> {
    let FsPath(path) = path;
    let id = path.display().to_string();
    let input = py.detach(|| tracecap::open(&path))?;
    let format = match tracecap::require(&input) {
        Ok(format) => format,
        Err(why) => return Err(capture_error(py, &id, None, why.message(), 0)),
    };
    Ok(Capture {
        path,
        id,
        format,
        input: Mapped(Arc::new(input)),
    })
}

/// One capture file, memory-mapped. Made by `tracecap.open(path)`.
#[pyclass(module = "tracecap", frozen)]
pub struct Capture {
    path: PathBuf,
    id: String,
    format: Format,
    input: Mapped,
}

impl Capture {
    fn check_shrunk(&self) -> PyResult<()> {
        if self.input.shrunk() {
            return Err(shrunk(&self.id));
        }
        Ok(())
    }
}

#[pymethods]
impl Capture {
    /// The path the capture was opened with (also its id: the `capture` column of its tables).
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The format's name: `easyprofiler`, `syscall`, `apitrace`, `wtf` or `orbit`.
    #[getter]
    fn format(&self) -> &'static str {
        self.format.name()
    }

    /// The file's size in bytes.
    #[getter]
    fn size(&self) -> usize {
        self.input.as_ref().len()
    }

    /// The names of the tables this capture has rows in: the seven shared ones and its format's.
    #[getter]
    fn tables(&self) -> Vec<&'static str> {
        Table::ALL
            .iter()
            .filter(|t| t.holds(self.format))
            .map(|t| t.name())
            .collect()
    }

    /// The capture's report (`tracecap::info`) as a dict: the format, version, sizes, record
    /// counts, time span and threads, and on a damaged capture its fault, with the keys of
    /// `tracecap info FILE --json` for the format (docs/python.md lists them).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (format, bytes) = (self.format, self.input.clone());
        let text = py.detach(move || {
            tracecap::info::info(format, bytes.as_ref()).map(|report| {
                // The report's keys are all strings: writing it to a String cannot fail.
                serde_json::to_string(&report).unwrap_or_default()
            })
        });
        self.check_shrunk()?;
        let text = text.map_err(|fault| {
            let (what, offset) = fault.into_parts();
            capture_error(py, &self.id, Some(self.format), what, offset)
        })?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Reads the whole capture; raises `CaptureError` at its first fault (the offset `tracecap
    /// validate` reports), returns None when it is good.
    fn validate(&self, py: Python<'_>) -> PyResult<()> {
        let bytes = self.input.clone();
        let id = self.id.clone();
        let options = Options {
            tables: Tables::only(Table::Captures),
            ..Options::default()
        };
        let summary = py.detach(move || {
            tracecap_arrow::capture_batches(&id, bytes.as_ref(), &options, &mut |_, _| Ok(()))
        });
        self.check_shrunk()?;
        let summary = summary.map_err(arrow_error)?;
        match summary.fault {
            Some(f) => Err(capture_error(
                py,
                &self.id,
                Some(self.format),
                f.what(),
                f.offset(),
            )),
            None => Ok(()),
        }
    }

    /// The table `name` (see `tracecap.TABLES`) as a `Stream` of Arrow batches, walked when it is
    /// read: `pyarrow.table(capture.table("slices"))`.
    ///
    /// `args=False` leaves the `args` columns null (faster, when they are not needed);
    /// `batch_rows` is the rows per batch. A damaged capture gives every row before its fault
    /// (the fault is in the `captures` table). A table of another format is empty.
    #[pyo3(signature = (name, *, args = true, batch_rows = 65536))]
    fn table(&self, name: &str, args: bool, batch_rows: usize) -> PyResult<Stream> {
        self.check_shrunk()?;
        let table = table_named(name)?;
        let options = Options {
            batch_rows: batch_rows.max(1),
            args,
            ..Options::default()
        };
        Ok(Stream::new(
            table.schema(),
            Source::Capture {
                input: self.input.clone(),
                id: self.id.clone(),
                table,
                options,
            },
            format!("{} of {}", table.name(), self.id),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<tracecap.Capture {} ({}, {} bytes)>",
            self.id,
            self.format.name(),
            self.input.as_ref().len()
        )
    }
}

/// The table called `name`, or a `ValueError` listing the tables.
pub(crate) fn table_named(name: &str) -> PyResult<Table> {
    Table::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        PyValueError::new_err(format!(
            "no table {name:?}: the tables are {}",
            names.join(", ")
        ))
    })
}
