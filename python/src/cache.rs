//! The cache of parsed tables as the module uses it: one [`Cache`] per process while
//! `TRACECAP_CACHE_DIR` and `TRACECAP_CACHE_SIZE` stay the same (its links are read once, and
//! its hits counted across calls), and `tracecap.cache_info()`.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tracecap_query::{Cache, CacheInfo};

/// The cache the environment names, shared by the calls made while it names the same one.
pub(crate) fn shared() -> Option<Arc<Cache>> {
    static SHARED: Mutex<Option<Arc<Cache>>> = Mutex::new(None);
    let fresh = Cache::from_env()?;
    let mut held = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    match held.as_ref() {
        Some(cache) if cache.dir() == fresh.dir() && cache.limit() == fresh.limit() => {
            Some(Arc::clone(cache))
        }
        _ => {
            let cache = Arc::new(fresh);
            *held = Some(Arc::clone(&cache));
            Some(cache)
        }
    }
}

/// What the cache of parsed tables holds, as a dict: `dir` (its folder), `entries` (a capture's
/// table each), `packs` (the Parquet files holding them), `bytes`, `limit`, and `hits` and
/// `misses`: the tables of captures this process read from it, and parsed and offered to it,
/// since it first used that folder. None when no folder can be named.
#[pyfunction]
pub fn cache_info(py: Python<'_>) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(cache) = shared() else {
        return Ok(None);
    };
    let info = py.detach(|| cache.info())?;
    crate::errors::warn_notes(py, cache.notes())?;
    let CacheInfo {
        dir,
        entries,
        packs,
        bytes,
        limit,
    } = info;
    let (hits, misses) = cache.hits_and_misses();
    let d = PyDict::new(py);
    d.set_item("dir", dir)?;
    d.set_item("entries", entries)?;
    d.set_item("packs", packs)?;
    d.set_item("bytes", bytes)?;
    d.set_item("limit", limit)?;
    d.set_item("hits", hits)?;
    d.set_item("misses", misses)?;
    Ok(Some(d))
}
