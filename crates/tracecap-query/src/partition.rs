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
use tracecap::open::CaptureFile;
use tracecap_arrow::{Options, Table};

use crate::cache::{Cache, Filling};
use crate::cast;
use crate::faults::{Damage, Fault, FaultKind, Faults};
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
    /// The cache of parsed tables, and the table's whole schema as the engine sees it.
    pub(crate) cache: Option<(Arc<Cache>, SchemaRef)>,
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
        let cache = self.cache.clone();
        std::thread::spawn(move || {
            let captures = std::iter::from_fn(|| queue.take(&cursor));
            let scan = Scan {
                table,
                columns,
                schema,
                batch_rows,
                cache,
            };
            scan.run(captures, &faults, &Out { tx });
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

/// What a partition scans: the columns of `table` the engine wants, in its `schema`.
struct Scan {
    table: Table,
    /// The wanted columns' indices in the table (`None`: all of them, in order).
    columns: Option<Arc<[usize]>>,
    schema: SchemaRef,
    batch_rows: usize,
    cache: Option<(Arc<Cache>, SchemaRef)>,
}

impl Scan {
    /// Reads `captures` one after the other, each from the cache or parsed, sending their
    /// batches; stops when the engine drops the stream (a `LIMIT` met, a query cancelled).
    fn run<'q>(&self, captures: impl Iterator<Item = &'q CaptureFile>, faults: &Faults, tx: &Out) {
        let mut filling = self.cache.as_ref().map(|(c, _)| c.filling(self.table));
        for capture in captures {
            let done = match (&self.cache, filling.as_mut()) {
                (Some((cache, whole)), Some(filling)) => {
                    self.cached(capture, (cache, whole, filling), faults, tx)
                }
                _ => self.parse(capture, self.plain(), None, faults, tx),
            };
            if !done || tx.is_closed() {
                break;
            }
        }
        if let Some(filling) = filling {
            filling.finish();
        }
    }

    /// Sends `capture`'s batches from its cache entry when it holds the wanted columns; else
    /// parses it for those and the entry's, sending the wanted ones and filling the entry.
    fn cached(
        &self,
        capture: &CaptureFile,
        (cache, whole, filling): (&Arc<Cache>, &SchemaRef, &mut Filling<'_>),
        faults: &Faults,
        tx: &Out,
    ) -> bool {
        let all: Vec<usize> = (0..whole.fields().len()).collect();
        let wanted: Vec<usize> = self.columns.as_deref().map_or(all, <[usize]>::to_vec);
        let Some(entry) = cache.entry(capture, self.table, whole) else {
            return self.parse(capture, self.plain(), None, faults, tx);
        };
        let stored = cache.open(&entry);
        let stored_columns = stored.as_ref().map_or(Vec::new(), |o| o.columns().to_vec());
        if let Some(stored) = stored.filter(|o| wanted.iter().all(|c| o.columns().contains(c))) {
            let fault = stored.fault().cloned();
            let mut send = |batch| tx.send(batch);
            let how = (&self.schema, self.batch_rows);
            match cache.read(stored, &wanted, how, &mut send) {
                Ok(true) => {
                    if let Some(damage) = fault {
                        faults.add(Fault {
                            capture: capture.source.id.clone(),
                            path: capture.source.path.clone(),
                            kind: FaultKind::Damaged(damage),
                        });
                    }
                    return true;
                }
                Ok(false) => {} // gone or unreadable: parse
                Err(e) => {
                    tx.fail(DataFusionError::ArrowError(Box::new(e), None));
                    return false;
                }
            }
        }
        // Parse for the union, kept in the table's order; never no column (an entry holds at
        // least `capture`, so a later `count(*)` is answered from it).
        let mut keep: Vec<usize> = stored_columns
            .into_iter()
            .chain(wanted.iter().copied())
            .collect();
        keep.sort_unstable();
        keep.dedup();
        if keep.is_empty() {
            keep.push(0);
        }
        let Ok(kept) = whole.project(&keep).map(Arc::new) else {
            return self.parse(capture, self.plain(), None, faults, tx);
        };
        let positions: Vec<usize> = wanted
            .iter()
            .filter_map(|c| keep.iter().position(|k| k == c))
            .collect();
        let fill = filling.begin(entry, &keep, &kept).then_some(filling);
        let parse = Parse {
            columns: Some(keep.as_slice().into()),
            schema: &kept,
            sent: Some(positions),
        };
        self.parse(capture, parse, fill, faults, tx)
    }

    /// The parse of the wanted columns alone.
    fn plain(&self) -> Parse<'_> {
        Parse {
            columns: self.columns.clone(),
            schema: &self.schema,
            sent: None,
        }
    }

    /// Parses `capture` as `how` says and sends the wanted columns; with a fill, writes every
    /// batch to it too, and ends it if the capture was read to its end or its fault. `false`
    /// when the scan must stop.
    fn parse(
        &self,
        capture: &CaptureFile,
        how: Parse<'_>,
        mut fill: Option<&mut Filling<'_>>,
        faults: &Faults,
        tx: &Out,
    ) -> bool {
        let Parse {
            columns,
            schema,
            sent,
        } = how;
        // Whether the capture was read to its end, and its fault.
        let mut ended: Option<Option<Damage>> = None;
        let walked = walk_capture(capture, faults, |input| {
            let options = Options {
                batch_rows: self.batch_rows,
                path: Some(capture.source.absolute_path()),
                columns: columns.clone(),
                format: Some(capture.format),
                ..Options::only(self.table)
            };
            let mut each = |_table: Table, batch: RecordBatch| {
                let batch = cast::batch(&batch, schema)?;
                if let Some(fill) = fill.as_mut() {
                    fill.write(&batch);
                }
                let Some(positions) = &sent else {
                    return tx.send(batch);
                };
                tx.send(cast::pick(&batch, positions, &self.schema)?)
            };
            match tracecap_arrow::capture_batches(&capture.source.id, input, &options, &mut each) {
                Ok(summary) => {
                    ended = Some(summary.fault.as_ref().map(Damage::from));
                    Ok(summary.fault)
                }
                Err(tracecap_arrow::Error::NotACapture(_)) => Err(WalkError::NotACapture),
                Err(e) => Err(WalkError::Failed(e)),
            }
        });
        match walked {
            Ok(()) => {
                if let Some(fill) = fill {
                    match ended {
                        Some(fault) if !tx.is_closed() => fill.end(capture, fault),
                        _ => fill.abandon(), // cut short, or no capture any more
                    }
                }
                true
            }
            Err(Stop::Shrunk(why)) => {
                tx.fail(DataFusionError::IoError(std::io::Error::other(why)));
                false
            }
            Err(Stop::Failed(e)) => {
                tx.fail(DataFusionError::External(
                    format!("{}: {e}", capture.source.id).into(),
                ));
                false
            }
        }
    }
}

/// How a capture is parsed: for `columns`, whose batches come in `schema`; with `sent`, only
/// the columns at those positions go to the engine (the others fill the cache).
struct Parse<'s> {
    columns: Option<Arc<[usize]>>,
    schema: &'s SchemaRef,
    sent: Option<Vec<usize>>,
}

/// Where a partition's batches go: the engine's channel.
struct Out {
    tx: Sender,
}

impl Out {
    /// Whether the engine stopped reading.
    fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Hands `batch` to the engine: an error once it stopped reading.
    fn send(&self, batch: RecordBatch) -> Result<(), ArrowError> {
        self.tx
            .blocking_send(Ok(batch))
            .map_err(|_| ArrowError::ExternalError("the query stopped reading".into()))
    }

    /// Fails the scan with `e`, unless the engine stopped reading.
    fn fail(&self, e: DataFusionError) {
        if !self.tx.is_closed() {
            let _ = self.tx.blocking_send(Err(e));
        }
    }
}
