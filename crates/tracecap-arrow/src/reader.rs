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
    batches: Receiver<RecordBatch>,
    walk: Option<JoinHandle<Result<CaptureSummary, Error>>>,
    summary: Option<CaptureSummary>,
}

impl TableReader {
    /// Starts walking `data` (anything that holds the capture's bytes: a [`tracecap::Input`], a
    /// `Vec<u8>`, an `Arc` of either) for `table`, under the capture id `id`.
    pub fn new<B>(id: String, data: B, table: Table, options: &Options) -> TableReader
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        let (tx, rx) = sync_channel(DEPTH);
        let options = Options {
            tables: Tables::only(table),
            ..options.clone()
        };
        let walk = std::thread::spawn(move || {
            let mut send = |_table: Table, batch: RecordBatch| {
                tx.send(batch)
                    .map_err(|_| ArrowError::ExternalError("the reader was dropped".into()))
            };
            capture_batches(&id, data.as_ref(), &options, &mut send)
        });
        TableReader {
            table,
            batches: rx,
            walk: Some(walk),
            summary: None,
        }
    }

    /// The table read.
    pub fn table(&self) -> Table {
        self.table
    }

    /// What the walk found, once every batch was read (`None` before).
    pub fn summary(&self) -> Option<&CaptureSummary> {
        self.summary.as_ref()
    }

    /// Waits for the walk after its last batch: its summary, or why it failed.
    fn join(&mut self) -> Option<Result<RecordBatch, ArrowError>> {
        let walk = self.walk.take()?;
        match walk.join() {
            Ok(Ok(summary)) => {
                self.summary = Some(summary);
                None
            }
            Ok(Err(Error::Arrow(e))) => Some(Err(e)),
            Ok(Err(e)) => Some(Err(ArrowError::ExternalError(Box::new(e)))),
            Err(_) => Some(Err(ArrowError::ComputeError(
                "the walk of the capture panicked".into(),
            ))),
        }
    }
}

impl Iterator for TableReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.batches.recv() {
            Ok(batch) => Some(Ok(batch)),
            Err(_) => self.join(),
        }
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
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}
