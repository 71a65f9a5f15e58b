//! What the Python functions take as inputs: a capture's shared bytes, and paths given as one
//! `str`/`os.PathLike` or a sequence of them.

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

/// The paths in `inputs`: one `str` or `os.PathLike`, or an iterable of them.
pub(crate) fn paths(inputs: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if let Ok(one) = inputs.extract::<PathBuf>() {
        return Ok(vec![one]);
    }
    let items = inputs.try_iter().map_err(|_| {
        PyTypeError::new_err("inputs: expected a path (str or os.PathLike) or a list of paths")
    })?;
    items
        .map(|item| {
            item?.extract::<PathBuf>().map_err(|_| {
                PyTypeError::new_err("inputs: every item must be a path (str or os.PathLike)")
            })
        })
        .collect()
}
