//! `tracecap.scan`, `tracecap.query` and `tracecap.diff`: the embedded engine over captures,
//! directories of captures and exported datasets.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tracecap_query::{diff as diff_sql, plain, Config, FaultKind, Problem};

use crate::capture::table_named;
use crate::errors::{capture_error, query_error, warn_notes, warn_or_raise};
use crate::inputs::paths;
use crate::stream::{Source, Stream};

/// The library's [`tracecap_query::Sides`], opened and reported for Python.
struct Sides(tracecap_query::Sides);

impl Sides {
    /// Finds the inputs of each side and registers their tables (in the default schema, or in
    /// the schemas `a` and `b`), their text as views or, without `views`, as the export's
    /// dictionaries ([`Config::views`]), reading and filling the cache of parsed tables with
    /// `cache`. A side with nothing to query is a `ValueError`.
    fn open(
        py: Python<'_>,
        sides: Vec<(Option<&'static str>, Vec<PathBuf>)>,
        (threads, views, cache): (Option<usize>, bool, bool),
    ) -> PyResult<Sides> {
        if threads == Some(0) {
            return Err(PyValueError::new_err("threads must be at least 1"));
        }
        let config = Config {
            partitions: threads.unwrap_or(Config::default().partitions),
            views,
            cache: cache.then(crate::cache::shared).flatten(),
            ..Config::default()
        };
        let sides: Vec<(Option<&str>, &[PathBuf])> =
            sides.iter().map(|(s, p)| (*s, p.as_slice())).collect();
        py.detach(|| tracecap_query::Sides::open(&sides, &config))
            .map(Sides)
            .map_err(query_error)
    }

    /// Warns (`RuntimeWarning`) of every input that is no capture or was damaged; with `strict`,
    /// raises `CaptureError` for the first of them instead.
    fn finish(&self, py: Python<'_>, strict: bool) -> PyResult<()> {
        let mut problems: Vec<(String, PyErr)> = Vec::new();
        for problem in self.0.problems() {
            let err = match &problem {
                Problem::NotCapture { path, why } => {
                    capture_error(py, &path.display().to_string(), None, why, 0)
                }
                Problem::Unreadable(e) => std::io::Error::new(e.kind(), e.to_string()).into(),
                Problem::Fault(fault) => {
                    let format = self
                        .0
                        .inputs()
                        .iter()
                        .flat_map(|i| &i.captures)
                        .find(|c| c.source.id == fault.capture)
                        .map(|c| c.format);
                    match &fault.kind {
                        FaultKind::Damaged(e) => {
                            capture_error(py, &fault.capture, format, e.what(), e.offset())
                        }
                        FaultKind::Unreadable(why) => {
                            capture_error(py, &fault.capture, format, why, 0)
                        }
                        // Its rows cannot be trusted: an error whether strict or not.
                        FaultKind::Shrunk => return Err(crate::errors::shrunk(&fault.capture)),
                    }
                }
            };
            problems.push((problem.to_string(), err));
        }
        warn_notes(py, self.0.cache_notes())?;
        warn_or_raise(py, problems, strict)
    }

    /// Runs `sql` to the end.
    fn collect(&self, py: Python<'_>, sql: &str, what: String) -> PyResult<Stream> {
        let engine = Arc::clone(self.0.engine());
        let (schema, batches) = py
            .detach(move || -> Result<_, tracecap_query::Error> {
                let batches = engine.query(sql)?;
                // A result gathered from several partitions may hold a dictionary with the same
                // value twice, which pandas refuses as a categorical: results hold plain text.
                let schema = plain::schema(&arrow_array::RecordBatchReader::schema(&batches));
                let all = batches
                    .map(|b| b.and_then(|b| plain::batch(&schema, &b)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(tracecap_query::Error::from)?;
                Ok((schema, all))
            })
            .map_err(query_error)?;
        Ok(Stream::new(schema, Source::Held(batches), what))
    }
}

/// The table `table` of every capture and dataset in `inputs` (a path or a list of paths:
/// capture files, directories searched for captures, datasets written by `tracecap.export`),
/// as a `Stream` read batch by batch: captures are parsed as it is read, on `threads` threads
/// (default: every core), and no more than a few batches are held at once.
///
/// A damaged capture gives its rows before the fault; the fault is in the `captures` table.
/// Inputs that are no capture are reported as `RuntimeWarning`s when the scan starts; with
/// `strict=True` the first of them raises `CaptureError`.
#[pyfunction]
#[pyo3(signature = (inputs, table, *, strict = false, threads = None, cache = true))]
pub fn scan(
    py: Python<'_>,
    inputs: &Bound<'_, PyAny>,
    table: &str,
    strict: bool,
    threads: Option<usize>,
    cache: bool,
) -> PyResult<Stream> {
    let table = table_named(table)?;
    // The export's types: a scan gives the tables as `tracecap.export` writes them.
    let sides = Sides::open(py, vec![(None, paths(inputs)?)], (threads, false, cache))?;
    sides.finish(py, strict)?;
    let schema = table.schema();
    // Every column by name, so that a dataset's files and the captures give the table's schema.
    let columns: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("\"{}\"", f.name()))
        .collect();
    let sql = format!("SELECT {} FROM {}", columns.join(", "), table.name());
    Ok(Stream::new(
        schema,
        Source::Query {
            engine: Arc::clone(sides.0.engine()),
            sql,
        },
        format!("scan of {}", table.name()),
    ))
}

/// Runs `sql` over `inputs` (a path or a list of paths: capture files, directories searched for
/// captures, datasets) and returns its result as a `Stream`. The tables are those of
/// `tracecap.TABLES`; the SQL is DataFusion's (`ValueError` with its message when it is wrong).
///
/// Inputs that are no capture, and damaged captures (queried up to their fault), are reported as
/// `RuntimeWarning`s; with `strict=True` the first of them raises `CaptureError`.
#[pyfunction]
#[pyo3(signature = (sql, inputs, *, strict = false, threads = None, cache = true))]
pub fn query(
    py: Python<'_>,
    sql: &str,
    inputs: &Bound<'_, PyAny>,
    strict: bool,
    threads: Option<usize>,
    cache: bool,
) -> PyResult<Stream> {
    let sides = Sides::open(py, vec![(None, paths(inputs)?)], (threads, true, cache))?;
    let result = sides.collect(py, sql, "query result".into())?;
    sides.finish(py, strict)?;
    Ok(result)
}

/// Compares the slices of `a` and `b` (each a path or a list of paths) grouped `by` `name`,
/// `track,name` or `category`: count, total, mean, p50 and p95 on each side, the change, and with
/// several captures a side, the spread across them and a `status` (see docs/query.md). Sorted by
/// the largest change in total time. Warnings and `strict` as in `query`.
#[pyfunction]
#[pyo3(signature = (a, b, *, by = "name", strict = false, threads = None, cache = true))]
pub fn diff(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    by: &str,
    strict: bool,
    threads: Option<usize>,
    cache: bool,
) -> PyResult<Stream> {
    let keys = diff_sql::keys(by).ok_or_else(|| {
        PyValueError::new_err(format!(
            "by={by:?}: name one or more of name, track, category, separated by commas, each once"
        ))
    })?;
    let sides = Sides::open(
        py,
        vec![(Some("a"), paths(a)?), (Some("b"), paths(b)?)],
        (threads, true, cache),
    )?;
    let result = sides.collect(py, &diff_sql::sql(&keys), format!("diff by {by}"))?;
    sides.finish(py, strict)?;
    Ok(result)
}
