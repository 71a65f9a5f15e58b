//! Tables of a capture whose bytes the caller holds (`HeldTableReader`, the Python `Capture`'s
//! tables): read from the cache of parsed tables for the file that was mapped, never for the
//! file a path names after it was replaced or changed.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use datafusion::arrow::record_batch::RecordBatch;
use tracecap_arrow::{Options, Table};
use tracecap_query::{Cache, FileIdentity, Held, HeldTableReader};
use tracecap_testkit::TempDir;

mod common;

use common::rows;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");

/// A capture's map, shared by the reads of its tables.
#[derive(Clone)]
struct Mapped(Arc<tracecap::Input>);

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A capture opened as the Python module opens one: mapped, with its file's identity.
struct Opened {
    input: Mapped,
    file: (PathBuf, FileIdentity),
}

fn open(path: &Path) -> Opened {
    let input = Mapped(Arc::new(tracecap::open(path).unwrap()));
    let identity = FileIdentity::of(&File::open(path).unwrap()).unwrap();
    Opened {
        input,
        file: (path.to_path_buf(), identity),
    }
}

/// `table` of `opened`, with `cache` (or without).
fn read(opened: &Opened, cache: Option<&Arc<Cache>>, table: Table) -> Vec<String> {
    let held = Held {
        id: "c".to_string(),
        bytes: opened.input.clone(),
        file: Some(opened.file.clone()),
    };
    let reader = HeldTableReader::new(cache.cloned(), held, table, &Options::default());
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    rows(&batches)
}

/// A copy of `from` at `to`, its modification time an hour back.
fn old_copy(from: &Path, to: &Path) {
    let tmp = to.with_extension("tmp");
    std::fs::copy(from, &tmp).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    File::options()
        .append(true)
        .open(&tmp)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    std::fs::rename(&tmp, to).unwrap();
}

fn settle() {
    std::thread::sleep(Cache::SETTLE + Duration::from_millis(100));
}

#[test]
fn a_second_read_comes_from_the_cache() {
    let dir = TempDir::new("held-hit");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let file = dir.join("c.prof");
    old_copy(&Path::new(SAMPLES).join("sample_small.prof"), &file);
    settle();
    let opened = open(&file);
    for table in [Table::Slices, Table::Captures, Table::OrbitEvents] {
        let want = read(&opened, None, table);
        let (hits, misses) = cache.hits_and_misses();
        assert_eq!(read(&opened, Some(&cache), table), want, "{table:?}");
        assert_eq!(cache.hits_and_misses(), (hits, misses + 1), "{table:?}");
        assert_eq!(read(&opened, Some(&cache), table), want, "{table:?}");
        assert_eq!(cache.hits_and_misses(), (hits + 1, misses + 1), "{table:?}");
    }
    assert_eq!(cache.info().unwrap().entries, 3);
    assert!(cache.notes().is_empty());
}

#[test]
fn a_file_changed_since_it_was_mapped_is_walked_from_the_map() {
    let dir = TempDir::new("held-changed");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let (a, b) = (
        Path::new(SAMPLES).join("sample_small.prof"),
        Path::new(SAMPLES).join("gen_small.prof"),
    );
    let file = dir.join("c.prof");
    old_copy(&a, &file);
    settle();
    let opened = open(&file);
    let want = read(&opened, None, Table::Slices);
    assert_eq!(read(&opened, Some(&cache), Table::Slices), want); // kept

    // Replaced by another capture, whose entry the cache then holds.
    old_copy(&b, &file);
    settle();
    let other = open(&file);
    let theirs = read(&other, Some(&cache), Table::Slices);
    assert_ne!(theirs, want);
    assert_eq!(read(&other, Some(&cache), Table::Slices), theirs);
    let (hits, misses) = cache.hits_and_misses();
    assert_eq!(read(&opened, Some(&cache), Table::Slices), want);
    assert_eq!(cache.hits_and_misses(), (hits, misses)); // walked, nothing kept

    // Deleted.
    std::fs::remove_file(&file).unwrap();
    assert_eq!(read(&opened, Some(&cache), Table::Slices), want);
    assert_eq!(read(&other, Some(&cache), Table::Slices), theirs);
    assert_eq!(cache.hits_and_misses(), (hits, misses));

    // Rewritten in place, the same size and modification time: the map shows the new bytes.
    old_copy(&a, &file);
    settle();
    let opened = open(&file);
    assert_eq!(read(&opened, Some(&cache), Table::Slices), want);
    assert_eq!(read(&opened, Some(&cache), Table::Slices), want);
    let was = std::fs::metadata(&file).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&a).unwrap();
    let at = bytes.windows(5).position(|w| w == b"frame").unwrap();
    bytes[at..at + 5].copy_from_slice(b"FRAME");
    std::fs::write(&file, &bytes).unwrap(); // the same inode
    File::options()
        .append(true)
        .open(&file)
        .unwrap()
        .set_modified(was)
        .unwrap();
    settle();
    let now = read(&opened, None, Table::Slices);
    assert_ne!(now, want);
    let (hits, misses) = cache.hits_and_misses();
    assert_eq!(read(&opened, Some(&cache), Table::Slices), now);
    assert_eq!(cache.hits_and_misses(), (hits, misses));
    assert!(cache.notes().is_empty());
}

#[test]
fn a_read_dropped_early_keeps_nothing() {
    let dir = TempDir::new("held-dropped");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let file = dir.join("c.prof");
    old_copy(&Path::new(SAMPLES).join("sample_small.prof"), &file);
    settle();
    let opened = open(&file);
    let held = Held {
        id: "c".to_string(),
        bytes: opened.input.clone(),
        file: Some(opened.file.clone()),
    };
    let options = Options {
        batch_rows: 1,
        ..Options::default()
    };
    let mut reader = HeldTableReader::new(Some(Arc::clone(&cache)), held, Table::Slices, &options);
    assert!(reader.next().unwrap().is_ok());
    drop(reader);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(cache.info().unwrap().entries, 0);
}
