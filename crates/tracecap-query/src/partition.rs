//! The partitions of a table's scan over capture files. Each partition parses captures one after
//! the other on a thread of its own, and its batches stream to the engine over a channel two
//! batches deep. The partitions of a scan share one queue of captures, the largest first: each
//! thread takes the next capture nobody has taken, so the work stays even however the time a
//! capture takes differs from format to format.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use tokio::sync::mpsc;
use tracecap_arrow::dataset::CaptureFile;
use tracecap_arrow::{Options, Table};

use crate::cast;
use crate::faults::Faults;
use crate::walk::{walk_capture, Stop, WalkError};

/// How many batches may wait between a partition's parsing thread and the engine.
const DEPTH: usize = 2;

/// The captures of one scan, shared by its partitions.
#[derive(Debug)]
pub(crate) struct Queue {
    /// The captures, the largest first.
    captures: Vec<CaptureFile>,
    /// Per run of the scan, the index of the next capture to take. The engine runs every
    /// partition of a plan once, except where it runs a plan again (the recursive part of a
    /// recursive query): the `n`th run of a partition takes from the `n`th cursor, so every
    /// run reads every capture.
    runs: Mutex<Runs>,
}

#[derive(Debug, Default)]
struct Runs {
    /// Runs started, per partition.
    started: Vec<usize>,
    cursors: Vec<Arc<AtomicUsize>>,
}

impl Queue {
    pub(crate) fn new(captures: Vec<CaptureFile>) -> Self {
        Queue {
            captures,
            runs: Mutex::new(Runs::default()),
        }
    }

    /// The cursor for a new run of `partition`.
    fn cursor(&self, partition: usize) -> Arc<AtomicUsize> {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        if runs.started.len() <= partition {
            runs.started.resize(partition + 1, 0);
        }
        let run = runs.started.get(partition).copied().unwrap_or(0);
        if let Some(started) = runs.started.get_mut(partition) {
            *started += 1;
        }
        while runs.cursors.len() <= run {
            runs.cursors.push(Arc::new(AtomicUsize::new(0)));
        }
        runs.cursors.get(run).cloned().unwrap_or_default()
    }

    /// The next capture of the run whose cursor is `cursor`, if any is left.
    fn take(&self, cursor: &AtomicUsize) -> Option<&CaptureFile> {
        self.captures.get(cursor.fetch_add(1, Ordering::Relaxed))
    }
}

/// One partition of a scan of `table` over the captures of `queue`.
#[derive(Debug)]
pub(crate) struct CapturePartition {
    pub(crate) table: Table,
    /// Its index among the scan's partitions.
    pub(crate) index: usize,
    /// The scan's columns as the engine sees them: the projected columns of
    /// [`crate::schema`] (or of the export's schema).
    pub(crate) schema: SchemaRef,
    /// The projected columns' indices in the table, `None` for all of them.
    pub(crate) columns: Option<Arc<[usize]>>,
    pub(crate) queue: Arc<Queue>,
    pub(crate) batch_rows: usize,
    pub(crate) faults: Arc<Faults>,
}

impl PartitionStream for CapturePartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (tx, rx) = mpsc::channel(DEPTH);
        let table = self.table;
        let queue = Arc::clone(&self.queue);
        let cursor = queue.cursor(self.index);
        let batch_rows = self.batch_rows;
        let faults = Arc::clone(&self.faults);
        let schema = Arc::clone(&self.schema);
        let columns = self.columns.clone();
        std::thread::spawn(move || {
            let captures = std::iter::from_fn(|| queue.take(&cursor));
            parse(
                (table, columns, &schema),
                captures,
                batch_rows,
                &faults,
                &tx,
            );
        });
        let batches = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|batch| (batch, rx))
        });
        Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            batches,
        ))
    }
}

type Sender = mpsc::Sender<Result<RecordBatch, DataFusionError>>;

/// Parses `captures` one after the other for `table`, sending their batches of `columns` (all
/// of them for `None`; the others are not built) in the engine's `schema`; stops when the
/// engine drops the stream (a `LIMIT` met, a query cancelled).
fn parse<'q>(
    (table, columns, schema): (Table, Option<Arc<[usize]>>, &SchemaRef),
    captures: impl Iterator<Item = &'q CaptureFile>,
    batch_rows: usize,
    faults: &Faults,
    tx: &Sender,
) {
    for capture in captures {
        let walked = walk_capture(capture, faults, |input| {
            let options = Options {
                batch_rows,
                path: Some(capture.source.absolute_path()),
                columns: columns.clone(),
                format: Some(capture.format),
                ..Options::only(table)
            };
            let mut send = |_table: Table, batch: RecordBatch| {
                tx.blocking_send(Ok(cast::batch(&batch, schema)?))
                    .map_err(|_| ArrowError::ExternalError("the query stopped reading".into()))
            };
            match tracecap_arrow::capture_batches(&capture.source.id, input, &options, &mut send) {
                Ok(summary) => Ok(summary.fault),
                Err(tracecap_arrow::Error::NotACapture { .. }) => Err(WalkError::NotACapture),
                Err(e) => Err(WalkError::Failed(e)),
            }
        });
        match walked {
            Ok(()) => {}
            Err(Stop::Shrunk(why)) => {
                let _ = tx.blocking_send(Err(DataFusionError::IoError(std::io::Error::other(why))));
                return;
            }
            Err(Stop::Failed(e)) => {
                if !tx.is_closed() {
                    let e = DataFusionError::External(format!("{}: {e}", capture.source.id).into());
                    let _ = tx.blocking_send(Err(e));
                }
                return;
            }
        }
        if tx.is_closed() {
            return;
        }
    }
}
