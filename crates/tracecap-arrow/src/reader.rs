//! One table of one capture as an Arrow [`RecordBatchReader`]: the walk runs on a thread of its
//! own and hands batches over a channel two batches deep, so the reader holds at most a few
//! batches whatever the capture's size.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

use crate::capture::{capture_batches, Options};
use crate::captures::CaptureSummary;
use crate::error::Error;
use crate::table::{Table, Tables};

/// How many batches may wait between the walk and the reader.
const DEPTH: usize = 2;

/// The batches of one table of one capture, in order: the walk runs on a thread of its own and
/// hands batches over a channel two batches deep, so the reader holds at most a few batches
/// whatever the capture's size.
///
/// The walk stops early when the reader is dropped. A damaged capture gives every batch before
/// the fault and then ends normally; [`TableReader::summary`] tells the fault.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample_small.prof");
/// use tracecap_arrow::{Options, Table, TableReader};
///
/// let input = tracecap::open(path)?; // memory-mapped
/// let mut reader = TableReader::new("sample".into(), input, Table::Slices, &Options::default());
/// let mut rows = 0;
/// for batch in &mut reader {
///     rows += batch?.num_rows();
/// }
/// let summary = reader.summary().ok_or("read to the end")?;
/// assert_eq!(rows as u64, summary.stats.slices);
/// # Ok(())
/// # }
/// ```
pub struct TableReader {
    table: Table,
    worker: Worker<CaptureSummary>,
}

impl TableReader {
    /// Starts walking `data` (anything that holds the capture's bytes: a [`tracecap::Input`], a
    /// `Vec<u8>`, an `Arc` of either) for `table`, under the capture id `id`.
    pub fn new<B>(id: String, data: B, table: Table, options: &Options) -> TableReader
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        let options = Options {
            tables: Tables::only(table),
            ..options.clone()
        };
        let worker = Worker::spawn(move |send| {
            capture_batches(&id, data.as_ref(), &options, &mut |_: Table, batch| {
                send(batch)
            })
            .map_err(|e| match e {
                Error::Arrow(e) => e,
                e => ArrowError::ExternalError(Box::new(e)),
            })
        });
        TableReader { table, worker }
    }

    /// The table read.
    pub fn table(&self) -> Table {
        self.table
    }

    /// What the walk found, once every batch was read (`None` before).
    pub fn summary(&self) -> Option<&CaptureSummary> {
        self.worker.output()
    }
}

/// Batches made on a thread of their own and handed over a channel two batches deep, so that
/// their reader holds at most a few whatever the work's size. The work stops at its next batch
/// once the worker is dropped (its `send` then fails).
pub struct Worker<T> {
    batches: Receiver<RecordBatch>,
    work: Option<JoinHandle<Result<T, ArrowError>>>,
    output: Option<T>,
}

impl<T: Send + 'static> Worker<T> {
    /// Runs `work` on a thread of its own; it hands each batch to the `send` it is given.
    pub fn spawn<F>(work: F) -> Worker<T>
    where
        F: FnOnce(&mut dyn FnMut(RecordBatch) -> Result<(), ArrowError>) -> Result<T, ArrowError>
            + Send
            + 'static,
    {
        let (tx, rx) = sync_channel(DEPTH);
        let work = std::thread::spawn(move || {
            work(&mut |batch| {
                tx.send(batch)
                    .map_err(|_| ArrowError::ExternalError("the reader was dropped".into()))
            })
        });
        Worker {
            batches: rx,
            work: Some(work),
            output: None,
        }
    }

    /// What the work gave, once every batch was read (`None` before).
    pub fn output(&self) -> Option<&T> {
        self.output.as_ref()
    }

    /// The next batch; after the last, the work's error if it failed (then `None`).
    #[allow(clippy::should_implement_trait)] // the readers built on it implement `Iterator`
    pub fn next(&mut self) -> Option<Result<RecordBatch, ArrowError>> {
        if let Ok(batch) = self.batches.recv() {
            return Some(Ok(batch));
        }
        match self.work.take()?.join() {
            Ok(Ok(output)) => {
                self.output = Some(output);
                None
            }
            Ok(Err(e)) => Some(Err(e)),
            Err(_) => Some(Err(ArrowError::ComputeError(
                "the thread reading the capture panicked".into(),
            ))),
        }
    }
}

impl Iterator for TableReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.worker.next()
    }
}

impl RecordBatchReader for TableReader {
    fn schema(&self) -> SchemaRef {
        self.table.schema()
    }
}

impl std::fmt::Debug for TableReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableReader")
            .field("table", &self.table)
            .field("summary", &self.summary())
            .finish_non_exhaustive()
    }
}
