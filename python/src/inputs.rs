//! What the Python functions take as inputs: a capture's shared bytes, and paths given as one
//! `str`, `bytes` or `os.PathLike`, or a sequence of them.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// A capture's bytes (a memory map), shared by the `Capture` and the readers of its tables.
#[derive(Clone, Debug)]
pub(crate) struct Mapped(pub(crate) Arc<tracecap::Input>);

impl Mapped {
    /// Whether the file shrank under the map since it was opened (its missing pages then read
    /// as zeros).
    pub(crate) fn shrunk(&self) -> bool {
        self.0.shrunk()
    }
}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A path as Python's own `open` takes it: `str`, `bytes` (the file system's bytes, for names
/// that are not UTF-8) or an `os.PathLike` of either. `os.fsdecode` turns bytes into the `str`
/// that encodes back to them, and PyO3 encodes that `str` back into the path's bytes.
pub(crate) struct FsPath(pub(crate) PathBuf);

impl FromPyObject<'_, '_> for FsPath {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let text = ob.py().import("os")?.getattr("fsdecode")?.call1((&*ob,))?;
        Ok(FsPath(text.extract()?))
    }
}

/// The paths in `inputs`: one `str`, `bytes` or `os.PathLike`, or an iterable of them.
pub(crate) fn paths(inputs: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if let Ok(FsPath(one)) = inputs.extract() {
        return Ok(vec![one]);
    }
    let items = inputs.try_iter().map_err(|_| {
        PyTypeError::new_err(
            "inputs: expected a path (str, bytes or os.PathLike) or a list of paths",
        )
    })?;
    items
        .map(|item| match item?.extract() {
            Ok(FsPath(path)) => Ok(path),
            Err(_) => Err(PyTypeError::new_err(
                "inputs: every item must be a path (str, bytes or os.PathLike)",
            )),
        })
        .collect()
}
