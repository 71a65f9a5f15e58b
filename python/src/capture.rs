//! `tracecap.open(path) -> Capture`: one capture, memory-mapped, and its tables.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tracecap::Format;
use tracecap_arrow::{Options, Table, Tables};
use tracecap_query::FileIdentity;

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
    let (input, file) = py.detach(|| -> std::io::Result<_> {
        let input = tracecap::open(&path)?;
        let file = mapped_identity(&path, &input);
        Ok((input, file))
    })?;
    let format = match tracecap::require(&input) {
        Ok(format) => format,
        Err(why) => return Err(capture_error(py, &id, None, why.message(), 0)),
    };
    Ok(Capture {
        path,
        id,
        format,
        input: Mapped(Arc::new(input)),
        file,
    })
}

/// The file `input` maps, as the cache keys a held capture ([`tracecap_query::Held`]): its
/// absolute path and its identity now, taken from the file opened again at `path` once that is
/// known to be the mapped file (the same device and inode as the map's, seen through
/// `/dev/fd`). `None` for input read into memory, or when the path names another file already.
fn mapped_identity(path: &Path, input: &tracecap::Input) -> Option<(PathBuf, FileIdentity)> {
    if !input.is_mapped() || !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = File::open(path).ok()?;
    let identity = FileIdentity::of(&file)?;
    #[cfg(unix)]
    let fd = std::os::unix::io::AsRawFd::as_raw_fd(&file);
    #[cfg(not(unix))]
    let fd = -1;
    if !input.is_same_file(Path::new(&format!("/dev/fd/{fd}"))) {
        return None;
    }
    Some((std::path::absolute(path).ok()?, identity))
}

/// One capture file, memory-mapped. Made by `tracecap.open(path)`.
#[pyclass(module = "tracecap", frozen)]
pub struct Capture {
    path: PathBuf,
    id: String,
    format: Format,
    input: Mapped,
    /// The mapped file's absolute path and identity when it was opened (see
    /// [`tracecap_query::Held`]): `None` for input read into memory.
    file: Option<(PathBuf, FileIdentity)>,
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
    ///
    /// The table is read from the cache of parsed tables when it holds it for the file this
    /// capture mapped, unchanged since `open`; else the map is walked, and the cache filled
    /// when the walk reaches the end and the file is still unchanged. `cache=False` walks the
    /// map and leaves the cache alone.
    #[pyo3(signature = (name, *, args = true, batch_rows = 65536, cache = true))]
    fn table(
        &self,
        py: Python<'_>,
        name: &str,
        args: bool,
        batch_rows: usize,
        cache: bool,
    ) -> PyResult<Stream> {
        self.check_shrunk()?;
        let table = table_named(name)?;
        let options = Options {
            batch_rows: batch_rows.max(1),
            args,
            ..Options::default()
        };
        let cache = match &self.file {
            Some(_) if cache => crate::cache::shared(),
            _ => None,
        };
        if let Some(cache) = &cache {
            crate::errors::warn_notes(py, cache.notes())?;
        }
        Ok(Stream::new(
            table.schema(),
            Source::Capture {
                input: self.input.clone(),
                id: self.id.clone(),
                file: self.file.clone(),
                table,
                options,
                cache,
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
