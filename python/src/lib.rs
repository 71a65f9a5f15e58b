//! The Python module `tracecap._native`, re-exported by the package `tracecap`
//! (`tracecap/__init__.py`): captures as Arrow streams, SQL and diffs over many captures,
//! conversion and export.
//!
//! Every table leaves through the Arrow PyCapsule interface (`__arrow_c_stream__`), so pyarrow,
//! Polars, DuckDB and pandas (through pyarrow) take the batches without copying them. Parsing runs
//! on threads of its own or with the interpreter released, so Python threads can parse different
//! captures at once.

mod cache;
mod capture;
mod engine;
mod errors;
mod files;
mod inputs;
mod stream;

use pyo3::prelude::*;

/// The native part of the package `tracecap`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A capture file truncated by another program while it is mapped must not end the
    // interpreter: the missing pages read as zeros and the capture reports that it shrank.
    tracecap::open::guard::recover_shrunk_maps();
    m.add("CaptureError", m.py().get_type::<errors::CaptureError>())?;
    m.add_class::<capture::Capture>()?;
    m.add_class::<stream::Stream>()?;
    m.add_function(wrap_pyfunction!(capture::open, m)?)?;
    m.add_function(wrap_pyfunction!(cache::cache_info, m)?)?;
    m.add_function(wrap_pyfunction!(engine::scan, m)?)?;
    m.add_function(wrap_pyfunction!(engine::query, m)?)?;
    m.add_function(wrap_pyfunction!(engine::diff, m)?)?;
    m.add_function(wrap_pyfunction!(files::convert, m)?)?;
    m.add_function(wrap_pyfunction!(files::export, m)?)?;
    m.add(
        "TABLES",
        tracecap_arrow::Table::ALL.map(|t| t.name()).to_vec(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
