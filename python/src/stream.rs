//! `Stream`: a table that leaves for Python through the Arrow PyCapsule interface.
//!
//! Each call of `__arrow_c_stream__` starts a new reader, so a stream can be read more than once
//! (DuckDB, for one, may ask again): a capture's table is walked anew, a scan runs anew, and a
//! query's result, computed once, is handed out again.

use std::sync::Arc;

use arrow_array::ffi::FFI_ArrowSchema;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::path::PathBuf;

use tracecap_arrow::{Options, Table};
use tracecap_query::{Cache, Engine, FileIdentity, Held, HeldTableReader};

use crate::inputs::Mapped;

/// Where a stream's batches come from.
pub(crate) enum Source {
    /// One table of one capture, read anew for each reader: from the cache, or walked.
    Capture {
        /// The capture's bytes.
        input: Mapped,
        /// Its id (the `capture` column).
        id: String,
        /// The file mapped and its identity when it was ([`Held::file`]).
        file: Option<(PathBuf, FileIdentity)>,
        /// The table.
        table: Table,
        /// How it is walked.
        options: Options,
        /// The cache of parsed tables, unless it is not used.
        cache: Option<Arc<Cache>>,
    },
    /// A query, run anew for each reader.
    Query {
        /// The engine the query runs on (kept alive by its readers).
        engine: Arc<Engine>,
        /// The SQL.
        sql: String,
    },
    /// Batches computed once.
    Held(Vec<RecordBatch>),
}

/// An Arrow table, read batch by batch through the Arrow PyCapsule interface:
/// `pyarrow.table(s)`, `polars.DataFrame(s)`, `duckdb.sql("select ... from s")`.
#[pyclass(module = "tracecap", frozen)]
pub struct Stream {
    schema: SchemaRef,
    source: Source,
    /// What the stream is, for `repr`.
    what: String,
}

impl Stream {
    pub(crate) fn new(schema: SchemaRef, source: Source, what: String) -> Stream {
        Stream {
            schema,
            source,
            what,
        }
    }

    /// A new reader of the batches.
    fn reader(&self, py: Python<'_>) -> PyResult<Box<dyn RecordBatchReader + Send>> {
        Ok(match &self.source {
            Source::Capture {
                input,
                id,
                file,
                table,
                options,
                cache,
            } => Box::new(CaptureReader {
                inner: HeldTableReader::new(
                    cache.clone(),
                    Held {
                        id: id.clone(),
                        bytes: input.clone(),
                        file: file.clone(),
                    },
                    *table,
                    options,
                ),
                input: input.clone(),
                id: id.clone(),
                failed: false,
            }),
            Source::Query { engine, sql } => {
                let batches = py
                    .detach(|| engine.query(sql))
                    .map_err(crate::errors::query_error)?;
                Box::new(QueryReader {
                    batches,
                    _engine: Arc::clone(engine),
                })
            }
            Source::Held(batches) => Box::new(RecordBatchIterator::new(
                batches.clone().into_iter().map(Ok),
                Arc::clone(&self.schema),
            )),
        })
    }
}

#[pymethods]
impl Stream {
    /// The Arrow schema, as a PyCapsule named `arrow_schema` (the Arrow PyCapsule interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    /// A new stream of the batches, as a PyCapsule named `arrow_array_stream` (the Arrow
    /// PyCapsule interface). `requested_schema` is not used: the batches have their own schema.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let stream = FFI_ArrowArrayStream::new(self.reader(py)?);
        // The consumer moves the stream out of the capsule and marks it released; a stream that
        // was never taken is released when the capsule drops it (with the reader it holds).
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The whole table as a `pyarrow.Table` (imports pyarrow).
    fn to_pyarrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("pyarrow")?.call_method1("table", (slf,))
    }

    /// The whole table as a `pandas.DataFrame` (through pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::to_pyarrow(slf)?.call_method0("to_pandas")
    }

    /// The whole table as a `polars.DataFrame` (imports polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("polars")?.call_method1("DataFrame", (slf,))
    }

    /// The column names.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "<tracecap.Stream {}: {} columns>",
            self.what,
            self.schema.fields().len()
        )
    }
}

/// A capture's table, ending with an error when the file shrank while it was walked (its last
/// pages then read as zeros, and the batches cannot be trusted).
struct CaptureReader {
    inner: HeldTableReader,
    input: Mapped,
    id: String,
    failed: bool,
}

impl Iterator for CaptureReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.inner.next();
        if self.input.shrunk() {
            self.failed = true;
            return Some(Err(ArrowError::IoError(
                format!("{}: the file shrank while it was being read", self.id),
                std::io::Error::other("file shrank"),
            )));
        }
        next
    }
}

impl RecordBatchReader for CaptureReader {
    fn schema(&self) -> SchemaRef {
        RecordBatchReader::schema(&self.inner)
    }
}

/// A query's batches, keeping the engine (and its runtime) alive while they are read.
struct QueryReader {
    batches: tracecap_query::Batches,
    _engine: Arc<Engine>,
}

impl Iterator for QueryReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches.next()
    }
}

impl RecordBatchReader for QueryReader {
    fn schema(&self) -> SchemaRef {
        self.batches.schema()
    }
}
