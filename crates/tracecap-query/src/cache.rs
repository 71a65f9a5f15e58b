//! The cache of parsed tables: a capture's rows of a table, kept in Parquet after a scan of it
//! completed, and read instead of the capture while the file is unchanged.
//!
//! - **Key.** An entry is found by the capture's id and path, the table, the types of its text
//!   (views or dictionaries), the file's identity (device, inode, size, modification and status
//!   change times in ns: a program can set the first back, not the second) and the build of the
//!   program that parses (the path, inode, size and modification time of the executable or
//!   library holding this code). A file changed in any way is another key: a miss, never a stale
//!   answer. A file changed in the last [`Cache::SETTLE`] is not cached at all, since a change
//!   within its clock's tick would not show.
//! - **Layout.** An entry is a [link](link): a line of text naming the [pack](pack)
//!   (`packs/TABLE.ID.parquet`) that holds the capture's rows, and the row groups that are its
//!   own. A partition of a scan writes the rows of all the captures it parses into one pack, and
//!   their links into one file (`links/TABLE.ID.links`), so that a later scan of many captures
//!   opens a few files, not one or two each; a process reads the files of links once, when it
//!   first looks an entry up.
//! - **What is kept.** The columns a scan computed; a later scan that needs more parses the
//!   capture again for the union of both and links that, so an entry grows to what the queries
//!   of that capture read (the rows it linked before stay in their pack, unused, until the pack
//!   is evicted). A damaged capture keeps its rows before the fault and the fault, which a scan
//!   answered from the entry reports as a parse would. A capture that could not be read at all
//!   is not kept.
//! - **Filling.** A pack is written under a temporary name while the partition's run goes on;
//!   when it ends, the pack is renamed into place, then its file of links is written under a
//!   temporary name and renamed. A capture is linked only if its scan ended (whole, or at its
//!   fault) and its file did not change meanwhile; a scan cut short (a `LIMIT` met, a failure,
//!   the process killed) links nothing for the captures it did not finish. Two processes
//!   filling the same entry each put a whole file of links in place: the newer link is used.
//! - **Bounds.** The folder is private to the user (0700). When it grows past its limit, the
//!   packs used least recently (reading one sets its modification time) are removed first,
//!   with the files of links into them. A file of links or a pack that cannot be read is
//!   removed, noted ([`Cache::notes`]) and the captures parsed; a link whose pack was evicted
//!   is a miss.

mod found;
mod held;
mod link;
mod pack;

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime};

use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::arrow::ProjectionMask;
use tracecap::open::CaptureFile;
use tracecap_arrow::Table;

use crate::faults::Damage;
pub(crate) use found::Found;
pub use held::{FileIdentity, Held, HeldTableReader};
use link::Link;
use pack::{OpenPack, PackWriter};

/// The version of the entries' layout, part of the folder's name.
const LAYOUT: &str = "v4";

/// The folders of earlier layouts, removed by the first fill of a process.
const OLD_LAYOUTS: [&str; 3] = ["v1", "v2", "v3"];

/// The folder of the links, in the layout's folder.
const LINKS: &str = "links";

/// The folder of the packs, in the layout's folder.
const PACKS: &str = "packs";

/// The folder of what searches of the inputs found, in the layout's folder.
const FOUND: &str = "found";

/// A folder of cached tables, shared by the queries of a process and by processes.
pub struct Cache {
    dir: PathBuf,
    limit: u64,
    /// The bytes the folder holds, once counted: `u64::MAX` until then.
    bytes: AtomicU64,
    /// What went wrong with entries (each reported once), for the caller to show.
    notes: Mutex<Vec<String>>,
    hits: AtomicU64,
    misses: AtomicU64,
    /// The packs this process opened, by name.
    packs: Mutex<HashMap<String, Arc<OpenPack>>>,
    /// The links of the folder by their entries' keys, read on first use (`None` until then).
    index: Mutex<Option<Index>>,
}

/// The links of a cache's folder, by their entries' keys.
type Index = HashMap<String, Indexed>;

/// A link, and the file of links holding it.
struct Indexed {
    link: Link,
    /// The file's name in the links folder.
    file: Arc<str>,
    /// When the file was written: of two links of one entry, the newer is used.
    written: SystemTime,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("dir", &self.dir)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// What a cache folder holds ([`Cache::info`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheInfo {
    /// The folder.
    pub dir: PathBuf,
    /// Entries in it: a capture's rows of one table each.
    pub entries: u64,
    /// The Parquet files holding the entries' rows.
    pub packs: u64,
    /// Their bytes, and the entries'.
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
            packs: Mutex::default(),
            index: Mutex::default(),
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

    /// The size the folder is kept under, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
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
        let links = self.files(LINKS)?;
        let packs = self.files(PACKS)?;
        let found = self.files(FOUND)?;
        let keys: std::collections::HashSet<String> = links
            .iter()
            .filter_map(|f| read_links(&f.path).ok())
            .flat_map(|links| links.into_iter().map(|(key, _)| key))
            .collect();
        let entries = keys.len() as u64;
        Ok(CacheInfo {
            dir: self.dir.clone(),
            entries,
            packs: packs.len() as u64,
            bytes: links
                .iter()
                .chain(&packs)
                .chain(&found)
                .map(|f| f.bytes)
                .sum(),
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
        lock(&self.packs).clear();
        *lock(&self.index) = None;
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
        let source = (&capture.source.id, &capture.source.path);
        Cache::keyed(identity, &source, table, schema)
    }

    /// The entry of `table` (with text as `schema`'s types) for the file of identity `identity`
    /// read as `source` says (its id, path, ...): `None` when the program's identity cannot be
    /// had.
    fn keyed(
        identity: Identity,
        source: &impl Hash,
        table: Table,
        schema: &Schema,
    ) -> Option<Entry> {
        let mut h = DefaultHasher::new();
        (build_identity()?, &identity, source).hash(&mut h);
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
        let key = format!("{first:016x}{:016x}.{}", h.finish(), table.name());
        Some(Entry { key, identity })
    }

    /// The entry, when it is linked.
    pub(crate) fn open(&self, entry: &Entry) -> Option<Stored> {
        let index = self.index();
        let found = index.as_ref()?.get(&entry.key)?;
        Some(Stored {
            link: found.link.clone(),
            file: Arc::clone(&found.file),
        })
    }

    /// The links of the folder, read on first use; a file of links that cannot be read is
    /// removed and noted.
    fn index(&self) -> MutexGuard<'_, Option<Index>> {
        let mut index = lock(&self.index);
        if index.is_none() {
            let mut links = Index::new();
            for file in self.files(LINKS).unwrap_or_default() {
                let read = match read_links(&file.path) {
                    Ok(read) => read,
                    Err(why) => {
                        self.unreadable(&file.path, &why);
                        continue;
                    }
                };
                let name: Arc<str> = file
                    .path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                    .into();
                let written = file.used;
                for (key, link) in read {
                    if links.get(&key).is_none_or(|had| had.written <= written) {
                        let file = Arc::clone(&name);
                        links.insert(
                            key,
                            Indexed {
                                link,
                                file,
                                written,
                            },
                        );
                    }
                }
            }
            *index = Some(links);
        }
        index
    }

    /// Removes the file of links called `name` and forgets its links; notes `why` when it is
    /// the file that is wrong (it does not match its packs).
    fn remove_links(&self, name: &str, why: Option<&str>) {
        if let Some(index) = lock(&self.index).as_mut() {
            index.retain(|_, i| &*i.file != name);
        }
        let path = self.dir.join(LINKS).join(name);
        match why {
            Some(why) => self.unreadable(&path, why),
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// What the last search of `inputs` found (as the build of this code detected it): `None`
    /// when the build cannot be known.
    pub(crate) fn found(&self, inputs: &[PathBuf]) -> Option<Found<'_>> {
        let mut h = DefaultHasher::new();
        (build_identity()?, LAYOUT, inputs).hash(&mut h);
        Some(Found::read(self, &format!("{:016x}", h.finish())))
    }

    /// The pack called `name`, opened once per process: `None` when it is gone (evicted) or
    /// unreadable (then removed and noted).
    fn pack(&self, name: &str) -> Option<Arc<OpenPack>> {
        if let Some(open) = lock(&self.packs).get(name) {
            return Some(Arc::clone(open));
        }
        let path = self.dir.join(PACKS).join(name);
        match OpenPack::open(&path) {
            Ok(open) => {
                let open = Arc::new(open);
                lock(&self.packs).insert(name.to_string(), Arc::clone(&open));
                Some(open)
            }
            Err(None) => None,
            Err(Some(why)) => {
                self.unreadable(&path, &why);
                None
            }
        }
    }

    /// Reads the `wanted` columns of the `stored` entry (they must be among its columns) in
    /// batches of `schema` (the wanted columns' engine schema) of up to `batch_rows` rows,
    /// handing each to `send`. `Ok(false)` when the entry turned out gone or unreadable before
    /// anything was sent (removed: parse the capture instead).
    pub(crate) fn read(
        &self,
        stored: Stored,
        wanted: &[usize],
        (schema, batch_rows): (&SchemaRef, usize),
        send: &mut dyn FnMut(RecordBatch) -> Result<(), ArrowError>,
    ) -> Result<bool, ArrowError> {
        let Stored { link, file } = stored;
        let columns = &link.columns;
        let Some(name) = &link.pack else {
            // A capture without a row of the table.
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(true);
        };
        let Some(pack) = self.pack(name) else {
            // Evicted, or unreadable (then removed): its links lead nowhere.
            self.remove_links(&file, None);
            return Ok(false);
        };
        if pack.columns != *columns || link.row_groups.end > pack.row_groups() {
            self.remove_links(&file, Some("it does not match its pack"));
            return Ok(false);
        }
        let mut sent = false;
        let read = (|| -> Result<(), ReadError> {
            let positions: Vec<usize> = wanted
                .iter()
                .filter_map(|c| columns.iter().position(|s| s == c))
                .collect();
            let row_groups: Vec<usize> = link.row_groups.clone().collect();
            let file = pack
                .file
                .prefetch(pack.metadata.metadata(), &row_groups, &positions);
            let builder =
                ParquetRecordBatchReaderBuilder::new_with_metadata(file, pack.metadata.clone());
            let mask = ProjectionMask::roots(builder.parquet_schema(), positions.iter().copied());
            // Batches no larger than the capture's rows: the reader sizes its buffers by them.
            let rows: i64 = link
                .row_groups
                .clone()
                .filter_map(|i| pack.metadata.metadata().row_groups().get(i))
                .map(|g| g.num_rows())
                .sum();
            let rows = usize::try_from(rows).unwrap_or(usize::MAX);
            let reader = builder
                .with_row_groups(row_groups)
                .with_projection(mask)
                .with_batch_size(batch_rows.min(rows).max(1))
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
                let batch = batch.map_err(ReadError::entry)?;
                let batch = crate::cast::pick(&batch, &picked, schema).map_err(ReadError::entry)?;
                sent = true;
                send(batch).map_err(ReadError::Send)?;
            }
            Ok(())
        })();
        match read {
            Ok(()) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Ok(true)
            }
            Err(ReadError::Send(e)) => Err(e),
            Err(ReadError::Entry(e)) => {
                lock(&self.packs).remove(name);
                let pack = self.dir.join(PACKS).join(name);
                self.unreadable(&pack, &e);
                // Its links lead nowhere now.
                self.remove_links(&file, None);
                if sent {
                    Err(ArrowError::ExternalError(
                        format!("cache pack {}: {e}", pack.display()).into(),
                    ))
                } else {
                    Ok(false)
                }
            }
        }
    }

    /// Removes the entry or pack at `path`, which could not be read, and notes it.
    fn unreadable(&self, path: &Path, why: &str) {
        let _ = std::fs::remove_file(path);
        self.note(format!(
            "cache file {} could not be read ({why}): removed, the capture parsed again",
            path.display()
        ));
    }

    /// The fills of a partition's run over `table`'s captures.
    pub(crate) fn filling(&self, table: Table) -> Filling<'_> {
        Filling {
            cache: self,
            table,
            packs: Vec::new(),
            links: Vec::new(),
            current: None,
        }
    }

    /// The bytes of the folder, counted on first use.
    fn counted(&self) -> u64 {
        match self.bytes.load(Ordering::Relaxed) {
            u64::MAX => {
                let count = |kind| {
                    self.files(kind)
                        .map_or(0, |f| f.iter().map(|f| f.bytes).sum())
                };
                let bytes = count(LINKS) + count(PACKS) + count(FOUND);
                self.bytes.store(bytes, Ordering::Relaxed);
                bytes
            }
            bytes => bytes,
        }
    }

    /// Adds `bytes` just written to the count, and keeps the folder under its limit; removes the
    /// packs that fills which died an hour ago or more left half-written.
    fn grew(&self, bytes: u64) {
        self.remove_old_layouts();
        let total = self.counted().saturating_add(bytes);
        self.bytes.store(total, Ordering::Relaxed);
        if total > self.limit {
            self.evict();
        } else {
            self.remove_stale_temporaries(&[PACKS]);
        }
    }

    /// Removes the packs and records of searches used least recently, with the files of links
    /// into the packs removed, until the folder holds nine tenths of its limit; and temporary
    /// files left by fills that died an hour ago or more. A file of links that names no pack
    /// (captures with no row) is removed by its age, as a pack is.
    fn evict(&self) {
        let (Ok(mut files), Ok(links), Ok(found)) =
            (self.files(PACKS), self.files(LINKS), self.files(FOUND))
        else {
            return;
        };
        let mut total: u64 = files
            .iter()
            .chain(&links)
            .chain(&found)
            .map(|f| f.bytes)
            .sum();
        // The files of links with the packs they name.
        let mut into_packs = Vec::new();
        for file in links {
            let packs: Vec<String> = read_links(&file.path)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|(_, link)| link.pack)
                .collect();
            if packs.is_empty() {
                files.push(file);
            } else {
                into_packs.push((file, packs));
            }
        }
        files.extend(found);
        files.sort_by_key(|f| f.used);
        let goal = self.limit / 10 * 9;
        let mut removed = std::collections::HashSet::new();
        for file in files {
            if total <= goal {
                break;
            }
            if std::fs::remove_file(&file.path).is_ok() {
                total = total.saturating_sub(file.bytes);
                if let Some(name) = file.path.file_name() {
                    let name = name.to_string_lossy().into_owned();
                    lock(&self.packs).remove(&name);
                    removed.insert(name);
                }
            }
        }
        if !removed.is_empty() {
            for (file, packs) in into_packs {
                let dead = packs.iter().any(|pack| removed.contains(pack));
                if dead && std::fs::remove_file(&file.path).is_ok() {
                    total = total.saturating_sub(file.bytes);
                }
            }
            *lock(&self.index) = None; // read again when next needed
        }
        self.bytes.store(total, Ordering::Relaxed);
        self.remove_stale_temporaries(&[LINKS, PACKS, FOUND]);
    }

    /// Removes the folders of the cache's earlier layouts, once per process: their entries are
    /// never read.
    fn remove_old_layouts(&self) {
        static DONE: AtomicBool = AtomicBool::new(false);
        if DONE.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Some(parent) = self.dir.parent() {
            for old in OLD_LAYOUTS {
                let _ = std::fs::remove_dir_all(parent.join(old));
            }
        }
    }

    /// Removes the temporary files in the folders `kinds` of fills that died an hour ago or
    /// more.
    fn remove_stale_temporaries(&self, kinds: &[&str]) {
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        for kind in kinds {
            let Ok(dir) = std::fs::read_dir(self.dir.join(kind)) else {
                continue;
            };
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

    /// The files in place (not the temporary ones) of the folder `kind`.
    fn files(&self, kind: &str) -> std::io::Result<Vec<CacheFile>> {
        let dir = match std::fs::read_dir(self.dir.join(kind)) {
            Ok(dir) => dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut files = Vec::new();
        for e in dir {
            let e = e?;
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if let Ok(m) = e.metadata() {
                files.push(CacheFile {
                    path: e.path(),
                    bytes: m.len(),
                    used: m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                });
            }
        }
        Ok(files)
    }
}

/// A file of the cache: its path, bytes and last use.
struct CacheFile {
    path: PathBuf,
    bytes: u64,
    used: SystemTime,
}

/// An entry found: its link, and the file of links holding it.
pub(crate) struct Stored {
    link: Link,
    file: Arc<str>,
}

impl Stored {
    /// The columns it holds (indices in the table's schema), ascending.
    pub(crate) fn columns(&self) -> &[usize] {
        &self.link.columns
    }

    /// Where the capture is damaged, when it is.
    pub(crate) fn fault(&self) -> Option<&Damage> {
        self.link.fault.as_ref()
    }
}

/// Where a capture's table is cached: its key, and the file identity it was keyed by.
#[derive(Debug)]
pub(crate) struct Entry {
    key: String,
    identity: Identity,
}

/// A file's identity: device, inode, size, modification and status change times (ns).
type Identity = (u64, u64, u64, i128, i128);

/// The fills of one partition's run: the packs it writes (one per set of columns kept) and the
/// links into them, written by [`Filling::finish`]. Dropped before, it leaves nothing.
pub(crate) struct Filling<'c> {
    cache: &'c Cache,
    table: Table,
    packs: Vec<PackWriter>,
    /// The links to write, by key, with the index of their pack (`None` for a capture with no
    /// row).
    links: Vec<(String, Link, Option<usize>)>,
    /// The capture being filled.
    current: Option<Current>,
}

/// The capture being filled: its entry, pack and first row group.
struct Current {
    entry: Entry,
    pack: usize,
    first: usize,
}

impl Filling<'_> {
    /// Starts filling `entry` with `columns` (ascending) in batches of `schema`: `false`
    /// (noted) when the folder cannot be written.
    pub(crate) fn begin(&mut self, entry: Entry, columns: &[usize], schema: &SchemaRef) -> bool {
        self.abandon();
        self.cache.misses.fetch_add(1, Ordering::Relaxed);
        let pack = match self.packs.iter().position(|p| p.columns == columns) {
            Some(at) => at,
            None => {
                let dir = self.cache.dir.join(PACKS);
                let created = create_private(&self.cache.dir)
                    .and_then(|()| create_private(&dir))
                    .and_then(|()| PackWriter::create(&dir, self.table.name(), columns, schema));
                match created {
                    Ok(writer) => {
                        self.packs.push(writer);
                        self.packs.len() - 1
                    }
                    Err(e) => {
                        self.cache.note(format!(
                            "the cache at {} cannot be written: {e}",
                            self.cache.dir.display()
                        ));
                        return false;
                    }
                }
            }
        };
        let first = self.packs.get(pack).map_or(0, PackWriter::row_groups);
        self.current = Some(Current { entry, pack, first });
        true
    }

    /// Adds a batch of the capture being filled; on failure, the capture is not kept.
    pub(crate) fn write(&mut self, batch: &RecordBatch) {
        let Some(current) = &self.current else {
            return;
        };
        let written = self.packs.get_mut(current.pack).map(|p| p.write(batch));
        if !matches!(written, Some(Ok(()))) {
            self.abandon();
        }
    }

    /// Ends the capture being filled, read to its end or to its `fault`: linked when its file
    /// did not change while it was read.
    pub(crate) fn end(&mut self, capture: &CaptureFile, fault: Option<Damage>) {
        let path = &capture.source.path;
        self.end_if(|identity| file_identity(path) == Some(*identity), fault);
    }

    /// Ends the capture being filled, read to its end or to its `fault`: linked when
    /// `unchanged` says that its file still has the identity it was keyed by.
    fn end_if(&mut self, unchanged: impl FnOnce(&Identity) -> bool, fault: Option<Damage>) {
        let Some(Current { entry, pack, first }) = self.current.take() else {
            return;
        };
        let Some(writer) = self.packs.get_mut(pack) else {
            return;
        };
        if writer.end_capture().is_err() {
            return;
        }
        if !unchanged(&entry.identity) {
            return; // changed while it was read
        }
        let end = writer.row_groups();
        let link = Link {
            pack: (end > first).then(|| writer.name.clone()),
            row_groups: if end > first { first..end } else { 0..0 },
            columns: writer.columns.clone(),
            fault,
        };
        let at = (end > first).then_some(pack);
        self.links.push((entry.key, link, at));
    }

    /// Drops the capture being filled: its rows stay in the pack, linked by nothing.
    pub(crate) fn abandon(&mut self) {
        if let Some(current) = self.current.take() {
            if let Some(writer) = self.packs.get_mut(current.pack) {
                let _ = writer.end_capture();
            }
        }
    }

    /// Puts the packs in place and writes the links of the captures filled into one file, then
    /// keeps the folder under its limit.
    pub(crate) fn finish(mut self) {
        self.abandon();
        let cache = self.cache;
        let packs_dir = cache.dir.join(PACKS);
        let links_dir = cache.dir.join(LINKS);
        let mut placed = Vec::new();
        let mut bytes = 0;
        for (at, writer) in std::mem::take(&mut self.packs).into_iter().enumerate() {
            if !self.links.iter().any(|(_, _, p)| *p == Some(at)) {
                placed.push(false);
                continue; // dropped: no capture of it was kept
            }
            match writer.finish(&packs_dir) {
                Ok(n) => {
                    bytes += n;
                    placed.push(true);
                }
                Err(e) => {
                    cache.note(format!(
                        "the cache at {} cannot be written: {e}",
                        cache.dir.display()
                    ));
                    placed.push(false);
                }
            }
        }
        let links: Vec<(String, Link)> = std::mem::take(&mut self.links)
            .into_iter()
            .filter(|(_, _, at)| at.is_none_or(|at| placed.get(at).copied().unwrap_or(false)))
            .map(|(key, link, _)| (key, link))
            .collect();
        if !links.is_empty() {
            let name = unique_name(self.table.name(), "links");
            let written = create_private(&links_dir).and_then(|()| {
                write_replacing(&links_dir.join(&name), link::to_text(&links).as_bytes())
            });
            match written {
                Ok(n) => {
                    bytes += n;
                    if let Some(index) = lock(&cache.index).as_mut() {
                        let file: Arc<str> = name.into();
                        let written = SystemTime::now();
                        for (key, link) in links {
                            let file = Arc::clone(&file);
                            index.insert(
                                key,
                                Indexed {
                                    link,
                                    file,
                                    written,
                                },
                            );
                        }
                    }
                }
                Err(e) => cache.note(format!(
                    "the cache at {} cannot be written: {e}",
                    cache.dir.display()
                )),
            }
        }
        if bytes > 0 {
            cache.grew(bytes);
        }
    }
}

/// A name no other file of the cache has: `TABLE.PROCESS-COUNT-NANOS.EXTENSION`.
fn unique_name(table: &str, extension: &str) -> String {
    static MADE: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{table}.{}-{}-{nanos}.{extension}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    )
}

/// Writes `bytes` to `path` through a temporary file renamed into place
/// ([`tracecap::output::Output`]): a reader sees the old file or the new one, whole. The bytes
/// written.
fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<u64> {
    use std::io::Write;
    let mut out = tracecap::output::Output::create(path)?;
    out.write_all(bytes)?;
    out.commit()?;
    Ok(bytes.len() as u64)
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
    identity(path).filter(settled)
}

/// The links of the file at `path`; why not when it cannot be read whole.
fn read_links(path: &Path) -> Result<Vec<(String, Link)>, String> {
    let text = std::fs::read(path).map_err(|e| e.to_string())?;
    let text = String::from_utf8(text).map_err(|_| "not text".to_string())?;
    link::parse(&text)
}

/// The identity of the file at `path`, when it can be had.
fn identity(path: &Path) -> Option<Identity> {
    std::fs::metadata(path).ok().as_ref().and_then(identity_of)
}

/// The identity of the file whose metadata is `m`, when the platform gives one.
fn identity_of(m: &std::fs::Metadata) -> Option<Identity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        let (modified, changed) = (ns(m.mtime(), m.mtime_nsec()), ns(m.ctime(), m.ctime_nsec()));
        Some((m.dev(), m.ino(), m.size(), modified, changed))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// Whether a file of identity `identity` has been left alone for [`Cache::SETTLE`].
fn settled(identity: &Identity) -> bool {
    let Ok(now) = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) else {
        return false;
    };
    let (_, _, _, modified, changed) = *identity;
    now.as_nanos() as i128 - modified.max(changed) >= Cache::SETTLE.as_nanos() as i128
}

/// The identity of the file holding this code (the executable, or the library a host loaded):
/// a new build is a new file, so its entries are other entries. `None` when it cannot be found.
fn build_identity() -> Option<&'static str> {
    static BUILD: OnceLock<Option<String>> = OnceLock::new();
    BUILD
        .get_or_init(|| {
            let here = build_identity as *const () as usize;
            // Bytes, not text: a mapped capture's name need not be UTF-8.
            let maps = std::fs::read("/proc/self/maps").ok()?;
            let path = mapped_file(&maps, here)?;
            // Not its status change time: linking the file elsewhere (a profiler's cache of
            // binaries does) changes it, and a rebuild writes a new file anyway.
            let (device, inode, size, modified, _) = identity(&path)?;
            let version = env!("CARGO_PKG_VERSION");
            Some(format!(
                "{version} {} {device} {inode} {size} {modified}",
                path.display()
            ))
        })
        .as_deref()
}

/// The file mapped at `address`, from the lines of `/proc/self/maps` (`START-END PERMS OFFSET
/// DEVICE INODE PATH`; the path runs to the end of the line and may hold spaces).
#[cfg(unix)]
fn mapped_file(maps: &[u8], address: usize) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    maps.split(|&b| b == b'\n').find_map(|line| {
        let mut rest = line;
        let mut fields = Vec::with_capacity(5);
        for _ in 0..5 {
            rest = rest.get(rest.iter().position(|&b| b != b' ')?..)?;
            let end = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
            fields.push(rest.get(..end)?);
            rest = rest.get(end..)?;
        }
        let path = rest.get(rest.iter().position(|&b| b != b' ')?..)?;
        let range = std::str::from_utf8(fields.first()?).ok()?;
        let (lo, hi) = range.split_once('-')?;
        let lo = usize::from_str_radix(lo, 16).ok()?;
        let hi = usize::from_str_radix(hi, 16).ok()?;
        let holds = lo <= address && address < hi && path.first() == Some(&b'/');
        holds.then(|| PathBuf::from(std::ffi::OsStr::from_bytes(path)))
    })
}

#[cfg(not(unix))]
fn mapped_file(_maps: &[u8], _address: usize) -> Option<PathBuf> {
    None
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

    #[test]
    fn the_mapped_file_is_found_whatever_the_other_names() {
        let maps: &[u8] = b"1000-2000 r--p 00000000 fd:00 12 /tmp/run-\xff.prof\n\
            2000-3000 r-xp 00001000 fd:00 13    /opt/my lib/_native.so\n\
            3000-4000 rw-p 00000000 00:00 0 \n";
        assert_eq!(
            mapped_file(maps, 0x2abc),
            Some(PathBuf::from("/opt/my lib/_native.so"))
        );
        assert_eq!(mapped_file(maps, 0x3abc), None);
        assert_eq!(mapped_file(maps, 0x5000), None);
    }
}
