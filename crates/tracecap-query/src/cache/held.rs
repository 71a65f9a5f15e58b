//! One table of a capture whose bytes a host holds (the Python module's `Capture`: the file
//! mapped when it was opened), read from the cache or walked and kept.
//!
//! A path names whatever file is there now; a map holds the file that was there when it was
//! made, even after that file is deleted or replaced. So the entry of a held capture is keyed by
//! the identity of the mapped file taken when it was mapped ([`FileIdentity`], from the open
//! file), not by what its path names:
//!
//! - a read looks the entry up only when the path, opened again, still gives a file of that
//!   identity: the same device and inode (the very file mapped, which the map keeps from being
//!   reused) with the same size and times (unchanged since it was mapped), left alone for
//!   [`Cache::SETTLE`]; that file stays open while the read goes on;
//! - a walk of the bytes fills the entry only when it reached the capture's end (or its fault)
//!   and the file held open still has that identity (`fstat`) after it;
//! - otherwise (the file deleted, replaced, changed, or no file at all) the bytes are walked and
//!   nothing is kept.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchReader};
use tracecap_arrow::{Options, Table, Tables, Worker};

use super::{identity_of, settled, Cache, Identity};
use crate::faults::Damage;

/// A file's identity: device, inode, size, modification and status change times (ns), taken
/// from an open file (`fstat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity(Identity);

impl FileIdentity {
    /// The identity of the open file `file`: `None` where the platform gives none.
    pub fn of(file: &File) -> Option<FileIdentity> {
        file.metadata()
            .ok()
            .as_ref()
            .and_then(identity_of)
            .map(FileIdentity)
    }
}

/// A capture whose bytes the caller holds.
#[derive(Debug)]
pub struct Held<B> {
    /// Its id: the `capture` column.
    pub id: String,
    /// Its bytes.
    pub bytes: B,
    /// The file the bytes are a map of: a path that named it, and its identity taken when it
    /// was mapped. `None` for bytes of no file (never cached).
    pub file: Option<(PathBuf, FileIdentity)>,
}

/// One table of a [`Held`] capture, batch by batch: from its cache entry when there is one for
/// the mapped file, else walked from the bytes (and kept, see the module). The work runs on a
/// thread of its own and hands batches over a channel two batches deep; it stops when the
/// reader is dropped, and a walk stopped so keeps nothing.
pub struct HeldTableReader {
    schema: SchemaRef,
    worker: Worker<()>,
}

impl HeldTableReader {
    /// Starts reading `table` of `held` (its batches as [`Table::schema`], of `options`'
    /// `batch_rows` rows; `options.args` as a walk takes it, and part of the entry's key), with
    /// `cache` when given.
    pub fn new<B>(
        cache: Option<Arc<Cache>>,
        held: Held<B>,
        table: Table,
        options: &Options,
    ) -> HeldTableReader
    where
        B: AsRef<[u8]> + Send + 'static,
    {
        let schema = table.schema();
        let options = Options {
            tables: Tables::only(table),
            columns: None,
            batch_rows: options.batch_rows.max(1),
            ..options.clone()
        };
        let whole = Arc::clone(&schema);
        let worker = Worker::spawn(move |send| {
            let Held { id, bytes, file } = held;
            let bytes = bytes.as_ref();
            match cache.zip(file).and_then(|(c, (path, identity))| {
                let file = File::open(path).ok()?;
                (FileIdentity::of(&file) == Some(identity) && settled(&identity.0))
                    .then_some((c, file, identity))
            }) {
                Some((cache, file, identity)) => {
                    let held = (id.as_str(), bytes, &file, identity);
                    read_or_fill(&cache, held, (table, &whole, &options), send)
                }
                None => walk(&id, bytes, &options, send).map(drop),
            }
        });
        HeldTableReader { schema, worker }
    }
}

/// Sends the capture's batches from its entry when it holds the table; else walks `bytes`,
/// sending the batches and filling the entry, linked when the walk reached the end and `file`
/// still has `identity`.
fn read_or_fill(
    cache: &Cache,
    (id, bytes, file, identity): (&str, &[u8], &File, FileIdentity),
    (table, schema, options): (Table, &SchemaRef, &Options),
    send: &mut dyn FnMut(RecordBatch) -> Result<(), ArrowError>,
) -> Result<(), ArrowError> {
    // What the rows depend on besides the bytes: the id, the `path` column, the `args`.
    let source = ("held", id, options.path.as_deref(), options.args);
    let Some(entry) = Cache::keyed(identity.0, &source, table, schema) else {
        return walk(id, bytes, options, send).map(drop);
    };
    let all: Vec<usize> = (0..schema.fields().len()).collect();
    if let Some(stored) = cache
        .open(&entry)
        .filter(|s| all.iter().all(|c| s.columns().contains(c)))
    {
        if cache.read(stored, &all, (schema, options.batch_rows), send)? {
            return Ok(());
        } // gone or unreadable (removed): walked below
    }
    let mut filling = cache.filling(table);
    let filled = filling.begin(entry, &all, schema);
    let summary = walk(id, bytes, options, &mut |batch| {
        if filled {
            filling.write(&batch);
        }
        send(batch)
    })?;
    let fault = summary.fault.as_ref().map(Damage::from);
    filling.end_if(
        |kept| FileIdentity::of(file) == Some(FileIdentity(*kept)),
        fault,
    );
    filling.finish();
    Ok(())
}

/// Walks `bytes` for `options`' table, handing each batch to `send`.
fn walk(
    id: &str,
    bytes: &[u8],
    options: &Options,
    send: &mut dyn FnMut(RecordBatch) -> Result<(), ArrowError>,
) -> Result<tracecap_arrow::CaptureSummary, ArrowError> {
    tracecap_arrow::capture_batches(id, bytes, options, &mut |_: Table, batch| send(batch)).map_err(
        |e| match e {
            tracecap_arrow::Error::Arrow(e) => e,
            e => ArrowError::ExternalError(Box::new(e)),
        },
    )
}

impl Iterator for HeldTableReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.worker.next()
    }
}

impl RecordBatchReader for HeldTableReader {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

impl std::fmt::Debug for HeldTableReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldTableReader")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}
