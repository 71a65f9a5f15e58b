//! The cache of parsed tables: a capture's rows of a table, kept as a Parquet file after a scan
//! of it completed, and read instead of the capture while the file is unchanged.
//!
//! - **Key.** An entry is found by the capture's id and path, the table, the types of its text
//!   (views or dictionaries), the file's identity (device, inode, size, modification and status
//!   change times in ns: a program can set the first back, not the second) and the build of the
//!   program that parses (the path, inode, size and modification time of the executable or
//!   library holding this code). A file changed in any way is another key: a miss, never a stale
//!   answer. A file changed in the last [`Cache::SETTLE`] is not cached at all, since a change
//!   within its clock's tick would not show.
//! - **What is kept.** The columns a scan computed; a later scan that needs more parses the
//!   capture again for the union of both and keeps that, so an entry grows to what the queries of
//!   that capture read. A capture that is damaged or could not be read is not kept (it is parsed
//!   each time, and its fault reported each time); a damaged one is marked, so that later scans
//!   parse it without filling an entry.
//! - **Filling.** An entry is written under a temporary name while the scan runs and renamed into
//!   place once the capture's scan ends whole; a scan cut short (a `LIMIT` met, a failure, the
//!   process killed) leaves no entry. Two processes filling the same entry each rename a whole
//!   file: the last one stays.
//! - **Bounds.** The folder is private to the user (0700). When it grows past its limit, the
//!   entries used least recently (a hit sets an entry's modification time) are removed first.
//!   An entry that cannot be read is removed, noted ([`Cache::notes`]) and the capture parsed.

use std::collections::hash_map::DefaultHasher;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::arrow::{ArrowWriter, ProjectionMask};
use datafusion::parquet::basic::Compression;
use datafusion::parquet::file::properties::WriterProperties;
use tracecap_arrow::dataset::CaptureFile;
use tracecap_arrow::Table;

/// The version of the entries' layout, part of the folder's name.
const LAYOUT: &str = "v1";

/// The Parquet key under which an entry lists its columns (indices in the table's schema).
const COLUMNS_KEY: &str = "tracecap.columns";

/// A folder of cached tables, shared by the queries of a process and by processes.
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    limit: u64,
    /// The bytes the folder holds, once counted: `u64::MAX` until then.
    bytes: AtomicU64,
    /// What went wrong with entries (each reported once), for the caller to show.
    notes: Mutex<Vec<String>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// What a cache folder holds ([`Cache::info`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheInfo {
    /// The folder.
    pub dir: PathBuf,
    /// Entries in it.
    pub entries: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The size it is kept under.
    pub limit: u64,
}

impl Cache {
    /// How long a file must have been left alone before its tables are cached.
    pub const SETTLE: Duration = Duration::from_secs(2);

    /// The limit of the cache's size when `TRACECAP_CACHE_SIZE` does not set one: 2 GiB.
    pub const DEFAULT_LIMIT: u64 = 2 << 30;

    /// The cache at `dir` (created, private to the user, when first written), kept under `limit`
    /// bytes.
    pub fn new(dir: impl Into<PathBuf>, limit: u64) -> Cache {
        Cache {
            dir: dir.into().join(LAYOUT),
            limit,
            bytes: AtomicU64::new(u64::MAX),
            notes: Mutex::default(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The cache where the environment puts it: `TRACECAP_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/tracecap`, else `~/.cache/tracecap`; its limit `TRACECAP_CACHE_SIZE`
    /// (bytes, or with a `K`, `M` or `G` suffix), else [`Cache::DEFAULT_LIMIT`]. `None` when no folder
    /// can be named, or on a platform whose file identities it does not know.
    pub fn from_env() -> Option<Cache> {
        if !cfg!(unix) {
            return None;
        }
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        let dir = match (
            var("TRACECAP_CACHE_DIR"),
            var("XDG_CACHE_HOME"),
            var("HOME"),
        ) {
            (Some(dir), _, _) => PathBuf::from(dir),
            (None, Some(xdg), _) => PathBuf::from(xdg).join("tracecap"),
            (None, None, Some(home)) => PathBuf::from(home).join(".cache").join("tracecap"),
            _ => return None,
        };
        let size = std::env::var("TRACECAP_CACHE_SIZE")
            .ok()
            .filter(|s| !s.is_empty());
        let limit = size.as_deref().map(parse_size);
        let cache = Cache::new(dir, limit.flatten().unwrap_or(Cache::DEFAULT_LIMIT));
        if let (Some(size), Some(None)) = (size, limit) {
            cache.note(format!(
                "TRACECAP_CACHE_SIZE={size:?} is no size (bytes, or 512M, 4G, ...): the cache is \
                 kept under its default of 2 GiB"
            ));
        }
        Some(cache)
    }

    /// The folder of the entries.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Scans of a capture answered from the cache, and scans that parsed it, so far.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// What went wrong with entries since the last call (entries that could not be read and
    /// were removed, a folder that could not be written), each once.
    pub fn notes(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.notes))
    }

    /// What the folder holds.
    pub fn info(&self) -> std::io::Result<CacheInfo> {
        let entries = self.entries()?;
        Ok(CacheInfo {
            dir: self.dir.clone(),
            entries: entries.len() as u64,
            bytes: entries.iter().map(|e| e.1).sum(),
            limit: self.limit,
        })
    }

    /// Removes every entry (and the temporary files of fills under way).
    pub fn clear(&self) -> std::io::Result<CacheInfo> {
        let before = self.info()?;
        match std::fs::remove_dir_all(&self.dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        self.bytes.store(0, Ordering::Relaxed);
        Ok(before)
    }

    fn note(&self, note: String) {
        let mut notes = lock(&self.notes);
        if !notes.contains(&note) {
            notes.push(note);
        }
    }

    /// The entry of `table` (with text as `schema`'s types) for `capture`: `None` when the file's
    /// identity or the program's cannot be had, or the file changed in the last [`Cache::SETTLE`].
    pub(crate) fn entry(
        &self,
        capture: &CaptureFile,
        table: Table,
        schema: &Schema,
    ) -> Option<Entry> {
        let identity = file_identity(&capture.source.path)?;
        let mut h = DefaultHasher::new();
        (
            build_identity()?,
            &identity,
            &capture.source.id,
            &capture.source.path,
        )
            .hash(&mut h);
        (
            table.name(),
            schema
                .fields()
                .iter()
                .map(|f| f.data_type().to_string())
                .collect::<Vec<_>>(),
        )
            .hash(&mut h);
        let first = h.finish();
        LAYOUT.hash(&mut h);
        let name = format!("{first:016x}{:016x}.{}.parquet", h.finish(), table.name());
        Some(Entry {
            path: self.dir.join(name),
            identity,
        })
    }

    /// The entry, opened, when it is there and readable; an unreadable one is removed and
    /// noted.
    pub(crate) fn open(&self, entry: &Entry) -> Option<Stored> {
        let file = File::open(&entry.path).ok()?;
        let read = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| e.to_string())
            .and_then(|builder| {
                let kv = builder.metadata().file_metadata().key_value_metadata();
                Ok(Stored {
                    columns: stored_columns(kv)?,
                    builder,
                })
            });
        match read {
            Ok(stored) => Some(stored),
            Err(e) => {
                self.damaged(&entry.path, &e);
                None
            }
        }
    }

    /// Reads the `wanted` columns of the `stored` entry (they must be among its columns) in
    /// batches of `schema` (the wanted columns' engine schema), handing each to `send`.
    /// `Ok(false)` when the entry turned out unreadable before anything was sent (removed and
    /// noted: parse the capture instead).
    pub(crate) fn read(
        &self,
        (entry, stored): (&Entry, Stored),
        wanted: &[usize],
        schema: &SchemaRef,
        send: &mut dyn FnMut(RecordBatch) -> Result<(), ArrowError>,
    ) -> Result<bool, ArrowError> {
        let mut sent = false;
        let read = (|| -> Result<(), ReadError> {
            let Stored { columns, builder } = stored;
            let positions: Vec<usize> = wanted
                .iter()
                .filter_map(|c| columns.iter().position(|s| s == c))
                .collect();
            let mask = ProjectionMask::roots(builder.parquet_schema(), positions.iter().copied());
            let reader = builder
                .with_projection(mask)
                .build()
                .map_err(ReadError::entry)?;
            // The mask keeps the stored order; the engine wants `wanted`'s.
            let mut read_order = positions.clone();
            read_order.sort_unstable();
            let picked: Vec<usize> = positions
                .iter()
                .filter_map(|p| read_order.binary_search(p).ok())
                .collect();
            for batch in reader {
                let batch = batch.map_err(|e| ReadError::Entry(e.to_string()))?;
                let batch = crate::cast::pick(&batch, &picked, schema)
                    .map_err(|e| ReadError::Entry(e.to_string()))?;
                sent = true;
                send(batch).map_err(ReadError::Send)?;
            }
            Ok(())
        })();
        match read {
            Ok(()) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                // The entry was used now: the last to be evicted.
                if let Ok(f) = File::options().append(true).open(&entry.path) {
                    let _ = f.set_modified(SystemTime::now());
                }
                Ok(true)
            }
            Err(ReadError::Send(e)) => Err(e),
            Err(ReadError::Entry(e)) => {
                self.damaged(&entry.path, &e);
                if sent {
                    Err(ArrowError::ExternalError(
                        format!("cache entry {}: {e}", entry.path.display()).into(),
                    ))
                } else {
                    Ok(false)
                }
            }
        }
    }

    fn damaged(&self, path: &Path, why: &str) {
        let _ = std::fs::remove_file(path);
        self.note(format!(
            "cache entry {} could not be read ({why}): removed, the capture parsed again",
            path.display()
        ));
    }

    /// A writer of `entry` holding `columns` in batches of `schema`: `None` (noted) when the
    /// folder cannot be written.
    pub(crate) fn fill(
        &self,
        entry: &Entry,
        columns: &[usize],
        schema: &SchemaRef,
    ) -> Option<Fill> {
        self.misses.fetch_add(1, Ordering::Relaxed);
        match Fill::create(entry, columns, schema, &self.dir) {
            Ok(fill) => Some(fill),
            Err(e) => {
                self.note(format!(
                    "the cache at {} cannot be written: {e}",
                    self.dir.display()
                ));
                None
            }
        }
    }

    /// Whether the capture of `entry` was found damaged: it is parsed (and its fault reported)
    /// each time, with no fill.
    pub(crate) fn damaged_before(&self, entry: &Entry) -> bool {
        entry.path.with_extension("damaged").exists()
    }

    /// Notes that the capture of `fill` is damaged (an empty file beside where its entry would
    /// be, under the same key), and drops the fill.
    pub(crate) fn damaged_capture(&self, fill: Fill) {
        let _ = File::create(fill.path.with_extension("damaged"));
    }

    /// Puts a completed fill in place when its capture did not change meanwhile, then keeps the
    /// folder under its limit.
    pub(crate) fn commit(&self, fill: Fill, capture: &CaptureFile) {
        if file_identity(&capture.source.path).as_ref() != Some(&fill.identity) {
            return; // changed while it was read: dropping the fill removes it
        }
        match fill.finish() {
            Ok(bytes) => {
                let total = self.counted().saturating_add(bytes);
                self.bytes.store(total, Ordering::Relaxed);
                if total > self.limit {
                    self.evict();
                }
            }
            Err(e) => self.note(format!(
                "the cache at {} cannot be written: {e}",
                self.dir.display()
            )),
        }
    }

    /// The bytes of the folder, counted on first use.
    fn counted(&self) -> u64 {
        match self.bytes.load(Ordering::Relaxed) {
            u64::MAX => {
                let bytes = self.entries().map_or(0, |e| e.iter().map(|e| e.1).sum());
                self.bytes.store(bytes, Ordering::Relaxed);
                bytes
            }
            bytes => bytes,
        }
    }

    /// Removes the entries used least recently until the folder holds nine tenths of its limit,
    /// and temporary files left by fills that died an hour ago or more.
    fn evict(&self) {
        let Ok(mut entries) = self.entries() else {
            return;
        };
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        entries.sort_by_key(|e| e.2);
        let goal = self.limit / 10 * 9;
        for (path, bytes, _) in entries {
            if total <= goal {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(bytes);
            }
        }
        self.bytes.store(total, Ordering::Relaxed);
        if let Ok(dir) = std::fs::read_dir(&self.dir) {
            let hour_ago = SystemTime::now() - Duration::from_secs(3600);
            for e in dir.flatten() {
                let old = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t < hour_ago);
                if e.file_name().to_string_lossy().ends_with(".tmp") && old {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }

    /// Each entry: its path, bytes and last use.
    fn entries(&self) -> std::io::Result<Vec<(PathBuf, u64, SystemTime)>> {
        let dir = match std::fs::read_dir(&self.dir) {
            Ok(dir) => dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut entries = Vec::new();
        for e in dir {
            let e = e?;
            if !e.file_name().to_string_lossy().ends_with(".parquet") {
                continue;
            }
            if let Ok(m) = e.metadata() {
                entries.push((
                    e.path(),
                    m.len(),
                    m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                ));
            }
        }
        Ok(entries)
    }
}

/// An entry opened: the columns it holds (indices in the table's schema), and its reader.
pub(crate) struct Stored {
    pub(crate) columns: Vec<usize>,
    builder: ParquetRecordBatchReaderBuilder<File>,
}

/// Where a capture's table is cached, and the file identity it was keyed by.
#[derive(Debug)]
pub(crate) struct Entry {
    path: PathBuf,
    identity: Identity,
}

/// A file's identity: device, inode, size, modification and status change times (ns).
type Identity = (u64, u64, u64, i128, i128);

/// An entry being written, under a temporary name until [`Cache::commit`]; removed if dropped
/// before.
pub(crate) struct Fill {
    writer: Option<ArrowWriter<File>>,
    temp: PathBuf,
    path: PathBuf,
    identity: Identity,
}

impl Fill {
    fn create(
        entry: &Entry,
        columns: &[usize],
        schema: &SchemaRef,
        dir: &Path,
    ) -> std::io::Result<Fill> {
        create_private(dir)?;
        static FILLS: AtomicU64 = AtomicU64::new(0);
        let name = entry
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = dir.join(format!(
            ".{name}.{}-{}.tmp",
            std::process::id(),
            FILLS.fetch_add(1, Ordering::Relaxed)
        ));
        let file = File::create(&temp)?;
        let list = columns
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let props = WriterProperties::builder()
            .set_compression(Compression::LZ4_RAW)
            .set_key_value_metadata(Some(vec![
                datafusion::parquet::file::metadata::KeyValue::new(COLUMNS_KEY.to_string(), list),
            ]))
            .build();
        let mut fill = Fill {
            writer: None,
            temp,
            path: entry.path.clone(),
            identity: entry.identity,
        };
        fill.writer = Some(
            ArrowWriter::try_new(file, Arc::clone(schema), Some(props))
                .map_err(std::io::Error::other)?,
        );
        Ok(fill)
    }

    /// Adds a batch of the entry's columns.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        match &mut self.writer {
            Some(w) => w
                .write(batch)
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
            None => Ok(()),
        }
    }

    /// Closes the file and renames it into place: its bytes.
    fn finish(mut self) -> std::io::Result<u64> {
        let Some(writer) = self.writer.take() else {
            return Ok(0);
        };
        writer.close().map_err(std::io::Error::other)?;
        std::fs::rename(&self.temp, &self.path)?;
        std::fs::metadata(&self.path).map(|m| m.len())
    }
}

impl Drop for Fill {
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

enum ReadError {
    /// The entry could not be read.
    Entry(String),
    /// The engine stopped reading.
    Send(ArrowError),
}

impl ReadError {
    fn entry(e: impl std::fmt::Display) -> ReadError {
        ReadError::Entry(e.to_string())
    }
}

/// The columns an entry lists in its metadata.
fn stored_columns(
    metadata: Option<&Vec<datafusion::parquet::file::metadata::KeyValue>>,
) -> Result<Vec<usize>, String> {
    let list = metadata
        .and_then(|kv| kv.iter().find(|kv| kv.key == COLUMNS_KEY))
        .and_then(|kv| kv.value.as_deref())
        .ok_or_else(|| "no list of columns".to_string())?;
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| format!("bad list of columns {list:?}"))
        })
        .collect()
}

/// Creates `dir` (and its parents) readable by the user alone.
fn create_private(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// The identity of the file at `path`, when it can be had and the file has been left alone for
/// [`Cache::SETTLE`].
fn file_identity(path: &Path) -> Option<Identity> {
    let identity = identity(path)?;
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?
        .as_nanos() as i128;
    let (_, _, _, modified, changed) = identity;
    (now - modified.max(changed) >= Cache::SETTLE.as_nanos() as i128).then_some(identity)
}

/// The identity of the file at `path`, when it can be had.
fn identity(path: &Path) -> Option<Identity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        let (modified, changed) = (ns(m.mtime(), m.mtime_nsec()), ns(m.ctime(), m.ctime_nsec()));
        Some((m.dev(), m.ino(), m.size(), modified, changed))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The identity of the file holding this code (the executable, or the library a host loaded):
/// a new build is a new file, so its entries are other entries. `None` when it cannot be found.
fn build_identity() -> Option<&'static str> {
    static BUILD: OnceLock<Option<String>> = OnceLock::new();
    BUILD
        .get_or_init(|| {
            let here = build_identity as *const () as usize;
            let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
            let path = maps.lines().find_map(|line| {
                let mut fields = line.split_whitespace();
                let (lo, hi) = fields.next()?.split_once('-')?;
                let (lo, hi) = (
                    usize::from_str_radix(lo, 16).ok()?,
                    usize::from_str_radix(hi, 16).ok()?,
                );
                let path = fields.nth(4)?;
                (lo <= here && here < hi && path.starts_with('/')).then(|| path.to_string())
            })?;
            // Not its status change time: linking the file elsewhere (a profiler's cache of
            // binaries does) changes it, and a rebuild writes a new file anyway.
            let (device, inode, size, modified, _) = identity(Path::new(&path))?;
            let version = env!("CARGO_PKG_VERSION");
            Some(format!(
                "{version} {path} {device} {inode} {size} {modified}"
            ))
        })
        .as_deref()
}

/// `2147483648`, `512M`, `2G`, `64k`: bytes.
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches(['B', 'I'])
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1234"), Some(1234));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("64k"), Some(64 << 10));
        assert_eq!(parse_size("3 GiB"), Some(3 << 30));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("1X"), None);
    }

    #[test]
    fn the_build_is_known_here() {
        assert!(build_identity().is_some());
    }
}
