//! Parquet datasets: many captures written as one folder per table, which DuckDB
//! (`read_parquet('DIR/slices/*.parquet')`), DataFusion (`LOCATION 'DIR/slices/'`) and Spark
//! (`spark.read.parquet('DIR/slices')`) read as one table each.
//!
//! ```text
//! DIR/captures/part-<run>-<worker>-<n>.parquet
//! DIR/tracks/part-<run>-<worker>-<n>.parquet
//! DIR/slices/...            one folder per table of [`Table::ALL`]
//! ```
//!
//! [`export`] writes it in parallel: each worker thread takes the next capture, walks it, and
//! appends its batches to the worker's own *part*, one Parquet file per table. A part is written
//! under temporary names (`.part-....parquet.<pid>-<n>.tmp`, which the engines skip: they ignore
//! names that start with a dot) and renamed into place once complete, `captures` last, so a capture
//! listed in `captures` has all its rows in the dataset. A crash or `SIGINT` leaves no file under
//! a final name that is not complete (the umbrella's guard removes the temporary files). A worker
//! starts a new part after [`PART_BYTES`] bytes of captures.
//!
//! **One writer at a time.** An export holds an advisory lock on the dataset's [`LOCK_FILE`] from
//! before it reads which captures the dataset holds until its last part is in place; a second
//! export into the same folder (another process, or another thread) waits for it
//! ([`Progress::waiting`] says so meanwhile), then sees what the first added: two appends of the
//! same capture at once leave it in the dataset once. The kernel releases the lock when the
//! process ends, however it ends.
//!
//! **The `captures` table is the dataset's list of parts.** A part is in the dataset once its
//! `captures` file is in place. A writer killed while it renamed a part's files (`SIGKILL`, a
//! power cut) can leave some of the part's other tables under their final names without its
//! `captures` file: [`committed_files`] leaves such files out, so tracecap's readers
//! ([`read_table`], `tracecap query`) never see a capture's rows without its `captures` row, and
//! the next export removes them, with every temporary file a killed writer left. An engine that
//! globs the folders itself (DuckDB's `read_parquet('DIR/slices/*.parquet')`) sees such files
//! until then; joining with `captures` on `capture` leaves them out.
//!
//! Every folder holds at least one file, so a query of a table no capture filled finds an empty
//! table, not an error.

use std::collections::HashSet;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::ArrowError;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use tracecap::lock::FileLock;
use tracecap::open::Found;
pub use tracecap::open::Source;
use tracecap::output::Output;
use tracecap::FormatError;

use crate::capture::{capture_batches_with_progress, Options};
use crate::error::Error;
use crate::table::Table;

/// The dataset's lock file, at the top of its folder (see the [module docs](self)).
pub const LOCK_FILE: &str = ".tracecap-lock";

/// A worker starts a new part after this many bytes of captures.
pub const PART_BYTES: u64 = 1 << 30;
/// A row group is written out once it holds this many bytes (bounds a writer's memory).
const ROW_GROUP_BYTES: usize = 4 << 20;
/// ... or this many rows.
const ROW_GROUP_ROWS: usize = 1 << 20;

/// What to do with a folder that already holds files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Refuse it: the folder must be missing or empty.
    #[default]
    New,
    /// Add captures to the dataset in it; captures already there are skipped.
    Append,
    /// Remove the dataset in it first.
    Overwrite,
}

/// How far an [`export`] is; read it from another thread while the export runs.
#[derive(Debug, Default)]
pub struct Progress {
    /// Captures finished (exported or skipped).
    pub captures: AtomicUsize,
    /// Bytes of captures walked, the capture being walked included.
    pub bytes: AtomicU64,
    /// True while the export waits for another export into the same dataset to finish.
    pub waiting: AtomicBool,
}

/// How [`export`] runs.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// What to do with a folder that holds a dataset.
    pub mode: Mode,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Rows per batch.
    pub batch_rows: usize,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            mode: Mode::New,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            batch_rows: Options::default().batch_rows,
        }
    }
}

/// What an [`export`] did.
#[derive(Debug, Default)]
pub struct Report {
    /// Captures written.
    pub exported: usize,
    /// Captures skipped because the dataset already holds them ([`Mode::Append`]).
    pub already_there: usize,
    /// Sources that were no capture after all (emptied or changed since they were found).
    pub not_captures: Vec<Source>,
    /// Damaged captures: their rows before the fault were written.
    pub faults: Vec<(Source, FormatError)>,
    /// Bytes of captures written.
    pub bytes: u64,
    /// Rows written, per table (in [`Table::ALL`]'s order).
    pub rows: [u64; Table::ALL.len()],
}

impl Report {
    /// The captures this export read only in part or not at all: each damaged capture (its rows
    /// before the fault written), then each source that was no capture any more when it was
    /// read.
    pub fn skipped(&self) -> impl Iterator<Item = Skipped<'_>> {
        let damaged = self
            .faults
            .iter()
            .map(|(source, fault)| Skipped::Damaged { source, fault });
        let gone = self
            .not_captures
            .iter()
            .map(|source| Skipped::NotACaptureAnyMore { source });
        damaged.chain(gone)
    }
}

/// The inputs named one by one that [`tracecap::open::find_sources`] found to be no capture:
/// what an export skips before it starts.
pub fn skipped_inputs(found: &Found) -> impl Iterator<Item = Skipped<'_>> {
    found
        .not_captures
        .iter()
        .map(|(path, why)| Skipped::NotACapture { path, why })
}

/// An input an export skipped or read only in part, as every host reports it: its
/// [`Display`](std::fmt::Display) is the warning (`<id>: not a capture (empty file), skipped`,
/// `<id>: <fault> at offset 0x.. (rows before it exported)`, `<id>: not a capture any more,
/// skipped`), and [`Skipped::what`] with [`Skipped::offset`] the fault it stands for.
#[derive(Clone, Copy, Debug)]
pub enum Skipped<'a> {
    /// An input named one by one that is no capture, with why.
    NotACapture {
        /// The input.
        path: &'a Path,
        /// Why it is no capture (`empty file`, `unknown format`, `not a regular file`).
        why: &'static str,
    },
    /// A damaged capture, written up to its fault.
    Damaged {
        /// The capture.
        source: &'a Source,
        /// Its fault.
        fault: &'a FormatError,
    },
    /// A source that was no capture any more when it was read (emptied or changed since it was
    /// found).
    NotACaptureAnyMore {
        /// The source.
        source: &'a Source,
    },
}

impl Skipped<'_> {
    /// The input's id: the path as the user named it.
    pub fn id(&self) -> String {
        match self {
            Skipped::NotACapture { path, .. } => path.display().to_string(),
            Skipped::Damaged { source, .. } | Skipped::NotACaptureAnyMore { source } => {
                source.id.clone()
            }
        }
    }

    /// What is wrong with it, without the offset.
    pub fn what(&self) -> String {
        match self {
            Skipped::NotACapture { why, .. } => (*why).to_string(),
            Skipped::Damaged { fault, .. } => fault.what().to_string(),
            Skipped::NotACaptureAnyMore { .. } => "not a capture any more".to_string(),
        }
    }

    /// The absolute file offset of the fault (0 for an input that is no capture).
    pub fn offset(&self) -> u64 {
        match self {
            Skipped::Damaged { fault, .. } => fault.offset(),
            _ => 0,
        }
    }
}

impl std::fmt::Display for Skipped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skipped::NotACapture { path, why } => {
                write!(f, "{}: not a capture ({why}), skipped", path.display())
            }
            Skipped::Damaged { source, fault } => {
                write!(f, "{}: {fault} (rows before it exported)", source.id)
            }
            Skipped::NotACaptureAnyMore { source } => {
                write!(f, "{}: not a capture any more, skipped", source.id)
            }
        }
    }
}

/// Writes `sources` as a Parquet dataset in `dir`; see the [module docs](self).
///
/// Damaged captures do not stop it (they are in [`Report::faults`] and in the `captures` table).
/// It stops at the first I/O or Arrow error; the parts finished before it stay.
pub fn export(
    sources: &[Source],
    dir: &Path,
    options: &ExportOptions,
    progress: &Progress,
) -> Result<Report, Error> {
    let dataset = Dataset::open(dir, options.mode, &progress.waiting)?;
    // The largest captures first: the last ones to finish are then the small ones, and no worker
    // is left alone with a big capture while the others have nothing to do.
    let mut order: Vec<(u64, &Source)> = sources
        .iter()
        .map(|s| (std::fs::metadata(&s.path).map_or(0, |m| m.len()), s))
        .collect();
    order.sort_by_key(|(len, _)| std::cmp::Reverse(*len));
    let sources: Vec<&Source> = order.into_iter().map(|(_, s)| s).collect();
    let sources = sources.as_slice();
    let next = AtomicUsize::new(0);
    let report = Mutex::new(Report::default());
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let run = run_name();
    std::thread::scope(|scope| {
        for worker in 0..options.threads.max(1) {
            let (dataset, next, report, failed, run) = (&dataset, &next, &report, &failed, &run);
            scope.spawn(move || {
                let result = work(WorkerCtx {
                    dataset,
                    sources,
                    next,
                    report,
                    progress,
                    name: format!("{run}-{worker:02}"),
                    batch_rows: options.batch_rows,
                    failed,
                });
                if let Err(e) = result {
                    let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
                    f.get_or_insert(e);
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(report.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// A name no other run shares: the time, the process, and the run's number in the process (a
/// program may export twice in the same second).
fn run_name() -> String {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("{secs:x}-{}-{run}", std::process::id())
}

struct WorkerCtx<'a> {
    dataset: &'a Dataset,
    sources: &'a [&'a Source],
    next: &'a AtomicUsize,
    report: &'a Mutex<Report>,
    progress: &'a Progress,
    name: String,
    batch_rows: usize,
    failed: &'a Mutex<Option<Error>>,
}

/// One worker: takes captures until none is left, writing them to its parts.
fn work(ctx: WorkerCtx<'_>) -> Result<(), Error> {
    let mut part: Option<Part> = None;
    let mut seq = 0;
    loop {
        if ctx.failed.lock().map_or(true, |f| f.is_some()) {
            return Ok(()); // another worker failed: stop early
        }
        let i = ctx.next.fetch_add(1, Ordering::Relaxed);
        let Some(&source) = ctx.sources.get(i) else {
            break;
        };
        if ctx.dataset.holds(&source.id) {
            ctx.progress.captures.fetch_add(1, Ordering::Relaxed);
            lock(ctx.report).already_there += 1;
            continue;
        }
        let input = tracecap::open(&source.path)?;
        if part.is_none() {
            part = Some(Part::create(
                &ctx.dataset.dir,
                &format!("{}-{seq:04}", ctx.name),
            )?);
            seq += 1;
        }
        let Some(p) = part.as_mut() else {
            continue; // ok: set just above
        };
        let before = ctx.progress.bytes.load(Ordering::Relaxed);
        let outcome = p.write(source, &input, ctx.batch_rows, &mut |done| {
            ctx.progress.bytes.store(before + done, Ordering::Relaxed);
        });
        ctx.progress
            .bytes
            .store(before + input.len() as u64, Ordering::Relaxed);
        ctx.progress.captures.fetch_add(1, Ordering::Relaxed);
        let mut report = lock(ctx.report);
        match outcome {
            Ok((fault, rows)) => {
                report.exported += 1;
                report.bytes += input.len() as u64;
                for (total, n) in report.rows.iter_mut().zip(rows) {
                    *total += n;
                }
                if let Some(f) = fault {
                    report.faults.push((source.clone(), f));
                }
            }
            Err(Error::NotACapture(_)) => report.not_captures.push(source.clone()),
            Err(e) => return Err(e),
        }
        drop(report);
        if p.bytes >= PART_BYTES {
            if let Some(done) = part.take() {
                done.commit()?;
            }
        }
    }
    match part {
        Some(p) => p.commit(),
        // A worker that wrote nothing still leaves the folders if the dataset has none yet.
        None if !ctx.dataset.has_files() && ctx.name.ends_with("-00") => {
            Part::create(&ctx.dataset.dir, &format!("{}-0000", ctx.name))?.commit()
        }
        None => Ok(()),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The folder being written, its lock, and the captures it held before.
struct Dataset {
    dir: PathBuf,
    existing: HashSet<String>,
    had_files: bool,
    _lock: FileLock,
}

impl Dataset {
    fn open(dir: &Path, mode: Mode, waiting: &AtomicBool) -> Result<Dataset, Error> {
        // A folder that is no dataset is refused before a lock file is put in it.
        dataset_files(dir)?;
        std::fs::create_dir_all(dir).map_err(|e| with_path(dir, e))?;
        let lock = FileLock::acquire(&dir.join(LOCK_FILE), |_| {
            waiting.store(true, Ordering::Relaxed);
        })?;
        waiting.store(false, Ordering::Relaxed);
        // Under the lock: what another writer left is either whole (its `captures` file is in
        // place) or left over by a writer that was killed.
        remove_leftovers(dir)?;
        let files = dataset_files(dir)?;
        let mut existing = HashSet::new();
        let had_files = match (mode, files.is_empty()) {
            (_, true) => false,
            (Mode::New, false) => {
                return Err(io_error(
                    dir,
                    std::io::ErrorKind::AlreadyExists,
                    "is not empty: add captures to the dataset in it (append mode, `--append`) or replace it (overwrite mode, `--overwrite`)",
                ))
            }
            (Mode::Append, false) => {
                for f in files.iter().filter(|f| in_table(f, Table::Captures)) {
                    read_ids(f, &mut existing)?;
                }
                true
            }
            (Mode::Overwrite, false) => {
                for f in &files {
                    std::fs::remove_file(f).map_err(|e| with_path(f, e))?;
                }
                false
            }
        };
        for table in Table::ALL {
            let sub = dir.join(table.name());
            std::fs::create_dir_all(&sub).map_err(|e| with_path(&sub, e))?;
        }
        Ok(Dataset {
            dir: dir.to_path_buf(),
            existing,
            had_files,
            _lock: lock,
        })
    }

    fn holds(&self, id: &str) -> bool {
        self.existing.contains(id)
    }

    fn has_files(&self) -> bool {
        self.had_files
    }
}

/// Removes what writers that were killed left in the dataset in `dir`: temporary files, and the
/// files of parts whose `captures` file is not in place. Only a writer holding the lock may call
/// it.
fn remove_leftovers(dir: &Path) -> Result<(), Error> {
    let committed = committed_parts(dir)?;
    for path in dataset_files(dir)? {
        let whole = part_name(&path).is_some_and(|name| committed.contains(name));
        if !whole {
            std::fs::remove_file(&path).map_err(|e| with_path(&path, e))?;
        }
    }
    Ok(())
}

/// The names of the parts whose `captures` file is in place in the dataset in `dir`.
fn committed_parts(dir: &Path) -> Result<HashSet<String>, Error> {
    Ok(parts(dir, Table::Captures)?
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// The files of `table`'s folder in the dataset in `dir` that are under their final name, with
/// their part's name; empty when the folder is missing.
fn parts(dir: &Path, table: Table) -> Result<Vec<(String, PathBuf)>, Error> {
    let sub = dir.join(table.name());
    let entries = match std::fs::read_dir(&sub) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(with_path(&sub, e)),
    };
    let mut parts = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| with_path(&sub, e))?.path();
        if let Some(name) = part_name(&path) {
            parts.push((name.to_owned(), path));
        }
    }
    Ok(parts)
}

/// The part name of a table file under its final name (`part-<name>.parquet`); `None` for a
/// temporary file or any other name.
fn part_name(path: &Path) -> Option<&str> {
    path.file_name()?
        .to_str()?
        .strip_prefix("part-")?
        .strip_suffix(".parquet")
}

/// The Parquet files of `table` in the dataset in `dir` that are in the dataset (their part's
/// `captures` file is in place; see the [module docs](self)), sorted by name. Empty when the
/// table's folder is missing.
pub fn committed_files(dir: &Path, table: Table) -> Result<Vec<PathBuf>, Error> {
    let committed = committed_parts(dir)?;
    let mut files: Vec<PathBuf> = parts(dir, table)?
        .into_iter()
        .filter(|(name, _)| committed.contains(name))
        .map(|(_, path)| path)
        .collect();
    files.sort();
    Ok(files)
}

fn in_table(path: &Path, table: Table) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == table.name())
}

fn with_path(path: &Path, e: std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        e.kind(),
        format!("{}: {e}", path.display()),
    ))
}

fn io_error(path: &Path, kind: std::io::ErrorKind, what: &str) -> Error {
    Error::Io(std::io::Error::new(
        kind,
        format!("{}: {what}", path.display()),
    ))
}

/// The files of the dataset in `dir` (its tables' Parquet files and temporary files left by an
/// interrupted run); empty when `dir` is missing or empty. Anything else in `dir` is an error:
/// the folder is not a dataset, and neither appending to it nor overwriting it is safe.
fn dataset_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(with_path(dir, e)),
    };
    let mut files = Vec::new();
    let mut foreign = None;
    for entry in entries {
        let entry = entry.map_err(|e| with_path(dir, e))?;
        let path = entry.path();
        let name = entry.file_name();
        if name == LOCK_FILE {
            continue;
        }
        let is_table = name.to_str().and_then(Table::from_name).is_some();
        if !is_table || !path.is_dir() {
            foreign.get_or_insert(path);
            continue;
        }
        for inner in std::fs::read_dir(&path).map_err(|e| with_path(&path, e))? {
            let inner = inner.map_err(|e| with_path(&path, e))?.path();
            let ours = inner
                .extension()
                .is_some_and(|x| x == "parquet" || x == "tmp")
                && inner.is_file();
            if ours {
                files.push(inner);
            } else {
                foreign.get_or_insert(inner);
            }
        }
    }
    if let Some(other) = foreign {
        return Err(io_error(
            dir,
            std::io::ErrorKind::AlreadyExists,
            &format!(
                "is not empty and not a tracecap dataset (it holds {}): refusing to write into it",
                other.display()
            ),
        ));
    }
    files.sort();
    Ok(files)
}

/// Adds the capture ids of a `captures` file to `ids`.
fn read_ids(path: &Path, ids: &mut HashSet<String>) -> Result<(), Error> {
    if path.extension().is_some_and(|x| x == "tmp") {
        return Ok(());
    }
    let file = File::open(path).map_err(|e| with_path(path, e))?;
    let parquet_err = |e: parquet::errors::ParquetError| {
        io_error(path, std::io::ErrorKind::InvalidData, &e.to_string())
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(parquet_err)?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), [0]);
    for batch in builder.with_projection(mask).build().map_err(parquet_err)? {
        let batch =
            batch.map_err(|e| io_error(path, std::io::ErrorKind::InvalidData, &e.to_string()))?;
        let col = batch.column(0);
        for i in 0..col.len() {
            if let Some(id) = text(col.as_ref(), i) {
                ids.insert(id);
            }
        }
    }
    Ok(())
}

/// Row `i` of a text column, plain or dictionary-encoded.
fn text(col: &dyn Array, i: usize) -> Option<String> {
    if col.is_null(i) {
        return None;
    }
    if let Some(d) = col.as_dictionary_opt::<Int32Type>() {
        let key = usize::try_from(d.keys().value(i)).ok()?;
        let values = d.values().as_string_opt::<i32>()?;
        return (key < values.len()).then(|| values.value(key).to_owned());
    }
    col.as_string_opt::<i32>().map(|s| s.value(i).to_owned())
}

/// One Parquet file per table, being written under temporary names.
struct Part {
    writers: Vec<ArrowWriter<BufWriter<Output>>>,
    bytes: u64,
}

impl Part {
    fn create(dir: &Path, name: &str) -> Result<Part, Error> {
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .set_created_by(format!("tracecap-arrow {}", env!("CARGO_PKG_VERSION")))
            .build();
        let mut writers = Vec::with_capacity(Table::ALL.len());
        for table in Table::ALL {
            let path = dir.join(table.name()).join(format!("part-{name}.parquet"));
            let out = BufWriter::with_capacity(1 << 20, Output::create(&path)?);
            writers.push(ArrowWriter::try_new(
                out,
                table.schema(),
                Some(props.clone()),
            )?);
        }
        Ok(Part { writers, bytes: 0 })
    }

    /// Writes one capture; its fault (if damaged) and the rows written per table.
    fn write(
        &mut self,
        source: &Source,
        data: &[u8],
        batch_rows: usize,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(Option<FormatError>, [u64; Table::ALL.len()]), Error> {
        let mut rows = [0u64; Table::ALL.len()];
        let options = Options {
            batch_rows,
            path: Some(source.absolute_path()),
            ..Options::default()
        };
        let writers = &mut self.writers;
        let summary = capture_batches_with_progress(
            &source.id,
            data,
            &options,
            &mut |table: Table, batch: RecordBatch| {
                let i = table as usize;
                if let Some(n) = rows.get_mut(i) {
                    *n += batch.num_rows() as u64;
                }
                match writers.get_mut(i) {
                    Some(w) => w.write(&batch).map_err(ArrowError::from),
                    None => Ok(()), // ok: one writer per table of ALL
                }
            },
            progress,
        )?;
        self.bytes += data.len() as u64;
        Ok((summary.fault, rows))
    }

    /// Closes every file and puts it in place, `captures` last.
    fn commit(self) -> Result<(), Error> {
        let mut outputs = Vec::with_capacity(self.writers.len());
        for w in self.writers {
            let buffered = w.into_inner()?;
            outputs.push(
                buffered
                    .into_inner()
                    .map_err(|e| Error::Io(e.into_error()))?,
            );
        }
        // Table::ALL starts with `captures`: it goes in last.
        let mut outputs = outputs.into_iter();
        let captures = outputs.next();
        for out in outputs {
            out.commit()?;
        }
        if let Some(out) = captures {
            out.commit()?;
        }
        Ok(())
    }
}

/// Every row of `table` in the dataset in `dir`, file by file (sorted by name), as batches: the
/// files of [`committed_files`].
pub fn read_table(dir: &Path, table: Table) -> Result<Vec<RecordBatch>, Error> {
    let files = committed_files(dir, table)?;
    let mut batches = Vec::new();
    for path in files {
        let file = File::open(&path).map_err(|e| with_path(&path, e))?;
        let parquet_err = |e: parquet::errors::ParquetError| {
            io_error(&path, std::io::ErrorKind::InvalidData, &e.to_string())
        };
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|b| b.build())
            .map_err(parquet_err)?;
        for batch in reader {
            let batch = batch
                .map_err(|e| io_error(&path, std::io::ErrorKind::InvalidData, &e.to_string()))?;
            batches.push(batch);
        }
    }
    Ok(batches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_inputs_read_as_the_hosts_warn() {
        let found = Found {
            not_captures: vec![(PathBuf::from("runs/empty.prof"), "empty file")],
            ..Found::default()
        };
        let inputs: Vec<String> = skipped_inputs(&found).map(|s| s.to_string()).collect();
        assert_eq!(
            inputs,
            ["runs/empty.prof: not a capture (empty file), skipped"]
        );
        let source = |id: &str| Source {
            id: id.into(),
            path: PathBuf::from(id),
        };
        let fault = FormatError::new(tracecap::syscall::ErrorKind::BadMagic, 0x40);
        let report = Report {
            faults: vec![(source("a.dat"), fault)],
            not_captures: vec![source("b.dat")],
            ..Report::default()
        };
        let skipped: Vec<Skipped<'_>> = report.skipped().collect();
        let lines: Vec<String> = skipped.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                format!("a.dat: {fault} (rows before it exported)"),
                "b.dat: not a capture any more, skipped".to_string(),
            ]
        );
        assert!(lines[0].ends_with("at offset 0x40 (rows before it exported)"));
        let parts: Vec<(String, String, u64)> = skipped
            .iter()
            .map(|s| (s.id(), s.what(), s.offset()))
            .collect();
        assert_eq!(
            parts,
            [
                ("a.dat".into(), fault.what().to_string(), 0x40),
                ("b.dat".into(), "not a capture any more".into(), 0),
            ]
        );
    }
}
