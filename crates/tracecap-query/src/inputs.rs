//! What a query reads: capture files, directories searched for captures, and exported Parquet
//! datasets, in any mix.

use std::path::{Path, PathBuf};

pub use tracecap::open::CaptureFile;
use tracecap::open::{find_sources, find_sources_with};
use tracecap_arrow::Table;

use crate::cache::Cache;
use crate::error::Error;

/// The inputs of a query, sorted out: the captures found and the datasets named.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Capture files, in the order of the inputs (a directory's files sorted by path).
    pub captures: Vec<CaptureFile>,
    /// Folders of datasets written by `tracecap export` (each holds `captures/` and the tables).
    pub datasets: Vec<PathBuf>,
    /// Inputs named one by one that are no capture, with why (`empty file`, `unknown format`,
    /// `not a regular file`).
    pub not_captures: Vec<(PathBuf, &'static str)>,
    /// Files under directory inputs that are no capture (skipped).
    pub skipped: usize,
    /// Files under directory inputs that could not be read.
    pub unreadable: Vec<std::io::Error>,
}

impl Inputs {
    /// Sorts `paths` out: a directory holding a `captures/` folder of Parquet files is a dataset;
    /// any other directory is searched recursively for captures (as `tracecap export` does); a
    /// file is a capture if its format is known.
    ///
    /// An input that does not exist or cannot be read is an error naming it.
    pub fn find(paths: &[PathBuf]) -> Result<Inputs, Error> {
        Inputs::find_with(paths, None)
    }

    /// [`Inputs::find`], where the files that `cache` recalls from an earlier search of the same
    /// `paths` (and that did not change since) are not opened to detect their format again.
    pub fn find_with(paths: &[PathBuf], cache: Option<&Cache>) -> Result<Inputs, Error> {
        let mut inputs = Inputs::default();
        let mut others = Vec::new();
        for path in paths {
            if is_dataset(path) {
                inputs.datasets.push(path.clone());
            } else {
                others.push(path.clone());
            }
        }
        let found = match cache.and_then(|c| c.found(&others)) {
            Some(known) => {
                let found = find_sources_with(&others, None, &known)?;
                known.keep();
                found
            }
            None => find_sources(&others, None)?,
        };
        inputs.captures = found.captures;
        inputs.not_captures = found.not_captures;
        inputs.skipped = found.skipped;
        inputs.unreadable = found.unreadable;
        Ok(inputs)
    }

    /// Whether nothing was found to query (no capture and no dataset).
    pub fn is_empty(&self) -> bool {
        self.captures.is_empty() && self.datasets.is_empty()
    }

    /// Why nothing was found, for a message: the inputs named that are no capture (with why),
    /// and how many files under directories are of no known format; `nothing found` when there
    /// are neither.
    pub fn why_empty(&self) -> String {
        let mut why: Vec<String> = self
            .not_captures
            .iter()
            .map(|(path, why)| format!("{}: {why}", path.display()))
            .collect();
        if self.skipped > 0 {
            why.push(format!("{} file(s) of no known format", self.skipped));
        }
        if why.is_empty() {
            "nothing found".into()
        } else {
            why.join("; ")
        }
    }

    /// Bytes of the captures found.
    pub fn capture_bytes(&self) -> u64 {
        self.captures.iter().map(|c| c.bytes).sum()
    }
}

/// Whether `dir` is a dataset of `tracecap export`: a directory with a `captures` folder holding
/// Parquet files.
pub fn is_dataset(dir: &Path) -> bool {
    let captures = dir.join(Table::Captures.name());
    std::fs::read_dir(captures).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "parquet"))
    })
}
