//! The cache of parsed tables: answers from it equal the parse's on every table of the samples
//! and the corpus; an entry grows to the columns queries read; a changed, cut, rewritten (same
//! size, modification time set back) or deleted capture is parsed again, never answered from a
//! stale entry; a scan cut short by `LIMIT` keeps nothing; an unreadable entry is removed,
//! noted and parsed around.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use datafusion::arrow::record_batch::RecordBatch;
use tracecap_arrow::Table;
use tracecap_query::{Cache, Config, Engine, Inputs};
use tracecap_testkit::TempDir;

mod common;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");

/// The result's rows as text, sorted (scans of several partitions give rows in any order).
fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = common::rows(batches);
    out.sort();
    out
}

/// An engine over `inputs`, with `cache` (none: every capture parsed).
fn engine(inputs: &[PathBuf], cache: Option<&Arc<Cache>>, batch_rows: usize) -> Engine {
    let config = Config {
        cache: cache.cloned(),
        batch_rows,
        ..Config::default()
    };
    let engine = Engine::new(&config).unwrap();
    engine
        .register(None, &Inputs::find(inputs).unwrap())
        .unwrap();
    engine
}

fn query(inputs: &[PathBuf], cache: Option<&Arc<Cache>>, sql: &str) -> Vec<String> {
    rows(&engine(inputs, cache, 65_536).collect(sql).unwrap())
}

/// The files of the cache's folder `kind` (`links`, `packs`), temporary ones included.
fn files(cache: &Cache, kind: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(cache.dir().join(kind))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// The cache's entries: a capture's rows of a table each.
fn entries(cache: &Cache) -> u64 {
    cache.info().unwrap().entries
}

/// The samples and, when it is there, the corpus (files left alone long ago: cacheable).
fn inputs() -> Vec<PathBuf> {
    let mut inputs = vec![PathBuf::from(SAMPLES)];
    if let Some(corpus) = tracecap_testkit::corpus("") {
        inputs.push(corpus);
    }
    inputs
}

#[test]
fn answers_from_the_cache_equal_the_parse_on_every_table() {
    let dir = TempDir::new("cache-equal");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let inputs = inputs();
    for table in Table::ALL {
        let sql = format!("SELECT * FROM {}", table.name());
        let parsed = query(&inputs, None, &sql);
        let (hits, misses) = cache.hits_and_misses();
        let first = engine(&inputs, Some(&cache), 65_536);
        let filled = rows(&first.collect(&sql).unwrap());
        let (hits_1, misses_1) = cache.hits_and_misses();
        let second = engine(&inputs, Some(&cache), 65_536);
        let cached = rows(&second.collect(&sql).unwrap());
        let (hits_2, misses_2) = cache.hits_and_misses();
        assert_eq!(filled, parsed, "{table}: the scan that fills the cache");
        assert_eq!(cached, parsed, "{table}: the scan answered from the cache");
        if misses_1 == misses {
            // No capture of the inputs has rows in this table (without the corpus, the
            // samples are EasyProfiler captures only).
            assert!(parsed.is_empty(), "{table}: rows, but nothing parsed");
            assert_eq!(cached, parsed);
            continue;
        }
        assert_eq!(hits_1, hits, "{table}: nothing to hit on the first scan");
        // Every capture, damaged ones included, is answered from the cache.
        assert_eq!(
            misses_2, misses_1,
            "{table}: the second scan parses nothing"
        );
        assert_eq!(
            hits_2 - hits_1,
            misses_1 - misses,
            "{table}: each capture filled is hit"
        );
        // A damaged capture's fault comes with its rows, as the parse reports it.
        assert_eq!(second.faults(), first.faults(), "{table}: the faults");
    }
    assert!(cache.notes().is_empty(), "{:?}", cache.notes());
}

#[test]
fn an_entry_grows_to_the_columns_queries_read() {
    let dir = TempDir::new("cache-columns");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let samples = [PathBuf::from(SAMPLES)];
    let counted = |sql: &str| {
        let before = cache.hits_and_misses();
        let got = query(&samples, Some(&cache), sql);
        assert_eq!(got, query(&samples, None, sql), "{sql}");
        let after = cache.hits_and_misses();
        (after.0 - before.0, after.1 - before.1)
    };
    let captures = std::fs::read_dir(SAMPLES)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "prof")
        })
        .count() as u64;
    assert_eq!(counted("SELECT name FROM slices"), (0, captures));
    assert_eq!(counted("SELECT count(*) FROM slices"), (captures, 0));
    // `dur` is not kept yet: parsed again, for `name` and `dur` both.
    assert_eq!(
        counted("SELECT name, sum(dur) FROM slices GROUP BY name"),
        (0, captures)
    );
    assert_eq!(counted("SELECT dur, name FROM slices"), (captures, 0));
    assert_eq!(
        counted("SELECT sum(dur) FROM slices WHERE name = 'frame'"),
        (captures, 0)
    );
    // One entry per capture and table, whatever the columns.
    assert_eq!(entries(&cache), captures);
}

/// A copy of `from` at `to`, its modification time an hour back and left alone for the
/// cache's settling time.
fn settled_copy(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(to)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
}

fn settle() {
    std::thread::sleep(Cache::SETTLE + Duration::from_millis(100));
}

#[test]
fn a_changed_capture_is_parsed_again_never_answered_stale() {
    let dir = TempDir::new("cache-stale");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let a = Path::new(SAMPLES).join("sample_small.prof");
    let b = Path::new(SAMPLES).join("gen_small.prof");
    let file = dir.join("c.prof");
    let inputs = [file.clone()];
    let sql = "SELECT * FROM slices";
    let check = |what: &str| {
        let want = query(&inputs, None, sql);
        let got = query(&inputs, Some(&cache), sql);
        assert_eq!(got, want, "{what}");
        got
    };

    settled_copy(&a, &file);
    settle();
    let first = check("first");
    assert_eq!(check("from the cache"), first);
    assert!(cache.hits_and_misses().0 > 0);

    // The same size, other content, the modification time set back to what it was: only its
    // change time tells.
    let was = std::fs::metadata(&file).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&a).unwrap();
    let at = bytes.windows(5).position(|w| w == b"frame").unwrap();
    bytes[at..at + 5].copy_from_slice(b"FRAME");
    std::fs::write(&file, &bytes).unwrap();
    let f = std::fs::File::options().append(true).open(&file).unwrap();
    f.set_modified(was).unwrap();
    drop(f);
    assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), was);
    settle();
    let rewritten = check("rewritten in place");
    assert_ne!(rewritten, first);
    assert_eq!(check("rewritten, from the cache"), rewritten);

    // Another capture in its place, cut, and gone.
    settled_copy(&b, &file);
    assert_ne!(check("replaced"), rewritten);
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    check("cut");
    settle();
    check("cut, settled");
    check("cut, again");
    std::fs::remove_file(&file).unwrap();
    let gone = engine(&[dir.to_path_buf()], Some(&cache), 65_536);
    assert!(rows(&gone.collect(sql).unwrap()).is_empty());
    assert!(cache.notes().is_empty(), "{:?}", cache.notes());
}

#[test]
fn a_scan_cut_short_keeps_nothing() {
    let dir = TempDir::new("cache-limit");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let samples = [PathBuf::from(SAMPLES)];
    // Batches of 7 rows: a capture gives many, and the engine stops reading after the first.
    let engine = engine(&samples, Some(&cache), 7);
    let got = engine.collect("SELECT * FROM slices LIMIT 1").unwrap();
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    drop(engine);
    std::thread::sleep(Duration::from_millis(300)); // the partitions' threads end
    assert_eq!(entries(&cache), 0);
    assert_eq!(files(&cache, "links"), Vec::<PathBuf>::new());
    assert_eq!(files(&cache, "packs"), Vec::<PathBuf>::new());
}

#[test]
fn an_unreadable_entry_is_removed_noted_and_parsed_around() {
    let dir = TempDir::new("cache-damaged");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let file = Path::new(SAMPLES).join("sample_small.prof");
    let inputs = [file];
    let sql = "SELECT * FROM slices";
    let want = query(&inputs, None, sql);
    assert_eq!(query(&inputs, Some(&cache), sql), want);
    let damages: [&[u8]; 3] = [b"not parquet", b"", b"tracecap cache links 1\nk x 0 1 1\n"];
    for kind in ["links", "packs"] {
        for damage in damages {
            // As another process would: this one has the links in memory already.
            let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
            let links = files(&cache, "links").pop().unwrap();
            let file = match kind {
                "links" => links.clone(),
                // The pack its links name (packs linked before are left unused).
                _ => {
                    let text = std::fs::read_to_string(&links).unwrap();
                    let line = text.lines().nth(1).unwrap();
                    let name = line.split(' ').nth(1).unwrap();
                    cache.dir().join("packs").join(name)
                }
            };
            std::fs::write(&file, damage).unwrap();
            assert_eq!(query(&inputs, Some(&cache), sql), want, "{kind} {damage:?}");
            let notes = cache.notes();
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(notes[0].contains(&file.display().to_string()), "{notes:?}");
            // Removed, and the capture's entry filled again by that query, whole, in a new
            // file of links.
            assert!(!file.exists(), "{kind} {damage:?}: removed");
            let now = files(&cache, "links");
            assert_eq!(now.len(), 1, "{now:?}");
            assert!(std::fs::read_to_string(&now[0])
                .unwrap()
                .starts_with("tracecap cache links 1\n"));
            assert_eq!(query(&inputs, Some(&cache), sql), want);
            assert!(cache.notes().is_empty());
        }
    }
    // A link whose pack is gone (evicted by another process) is a miss, and no note.
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    query(&inputs, Some(&cache), sql);
    for pack in files(&cache, "packs") {
        std::fs::remove_file(pack).unwrap();
    }
    assert_eq!(query(&inputs, Some(&cache), sql), want);
    assert!(cache.notes().is_empty());
}

#[test]
fn the_folder_is_kept_under_its_limit_least_recently_used_first() {
    let dir = TempDir::new("cache-limit-size");
    let samples = [PathBuf::from(SAMPLES)];
    let sizes = {
        let cache = Arc::new(Cache::new(dir.join("probe"), u64::MAX));
        query(&samples, Some(&cache), "SELECT * FROM slices");
        let info = cache.info().unwrap();
        assert_eq!(info.entries, 2);
        info.bytes
    };
    // Room for one entry of the two.
    let cache = Arc::new(Cache::new(dir.join("cache"), sizes * 2 / 3));
    query(&samples, Some(&cache), "SELECT * FROM slices");
    let info = cache.info().unwrap();
    assert!(info.bytes <= sizes * 2 / 3, "{info:?}");
    assert!(info.entries < 2, "{info:?}");
    let cleared = cache.clear().unwrap();
    assert_eq!(cleared.entries, info.entries);
    assert_eq!(cache.info().unwrap().entries, 0);
}

#[test]
fn the_folder_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("cache-private");
    let cache = Arc::new(Cache::new(dir.join("a/b"), u64::MAX));
    query(
        &[PathBuf::from(SAMPLES)],
        Some(&cache),
        "SELECT count(*) FROM tracks",
    );
    for d in [
        dir.join("a/b"),
        cache.dir().to_path_buf(),
        cache.dir().join("links"),
        cache.dir().join("packs"),
    ] {
        let mode = std::fs::metadata(&d).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{}", d.display());
    }
}

#[test]
fn a_search_recalls_what_it_found_while_the_files_are_unchanged() {
    let dir = TempDir::new("cache-found");
    let cache = Cache::new(dir.join("cache"), u64::MAX);
    let captures = dir.join("captures");
    std::fs::create_dir(&captures).unwrap();
    let file = captures.join("a.prof");
    settled_copy(&Path::new(SAMPLES).join("sample_small.prof"), &file);
    settle();
    let inputs = [captures.clone()];
    let format = |cache: &Cache| {
        let found = Inputs::find_with(&inputs, Some(cache)).unwrap();
        assert_eq!(found.captures.len(), 1);
        found.captures[0].format
    };
    assert_eq!(format(&cache), tracecap::Format::EasyProfiler);
    let records = files(&cache, "found");
    assert_eq!(records.len(), 1, "{records:?}");
    let text = std::fs::read_to_string(&records[0]).unwrap();
    assert!(text.contains(" easyprofiler "), "{text}");
    // What the record says is believed while the file's identity is the one it holds: the
    // file is not opened to detect it again.
    std::fs::write(&records[0], text.replace(" easyprofiler ", " syscall ")).unwrap();
    assert_eq!(format(&cache), tracecap::Format::Syscall);
    // Touched: another identity, detected again.
    std::fs::File::options()
        .append(true)
        .open(&file)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(7200))
        .unwrap();
    settle();
    assert_eq!(format(&cache), tracecap::Format::EasyProfiler);
    // Without a cache, every file is detected.
    let plain = Inputs::find(&inputs).unwrap();
    assert_eq!(plain.captures[0].format, tracecap::Format::EasyProfiler);
}

#[test]
fn a_search_recalls_the_files_that_are_not_captures() {
    let dir = TempDir::new("cache-found-not");
    let cache = Cache::new(dir.join("cache"), u64::MAX);
    let captures = dir.join("captures");
    std::fs::create_dir(&captures).unwrap();
    settled_copy(
        &Path::new(SAMPLES).join("sample_small.prof"),
        &captures.join("a.prof"),
    );
    let notes = captures.join("notes.txt");
    std::fs::write(&notes, b"not a capture, and not empty").unwrap();
    let empty = captures.join("empty.dat");
    std::fs::write(&empty, b"").unwrap();
    for f in [&notes, &empty] {
        std::fs::File::options()
            .append(true)
            .open(f)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
    }
    settle();
    let inputs = [captures.clone()];
    let found = |cache: &Cache| Inputs::find_with(&inputs, Some(cache)).unwrap();
    let first = found(&cache);
    assert_eq!((first.captures.len(), first.skipped), (1, 2));
    let records = files(&cache, "found");
    let text = std::fs::read_to_string(&records[0]).unwrap();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.ends_with(name))
            .unwrap_or_else(|| panic!("no line for {name}: {text}"))
            .to_string()
    };
    assert!(line("notes.txt").contains(" 0 -unknown "), "{text}");
    assert!(line("empty.dat").contains(" 0 -empty "), "{text}");
    // What the record says is believed: told that the notes are a capture, the search does
    // not open them to find out otherwise.
    let claimed = line("notes.txt").replace(" 0 -unknown ", " 28 easyprofiler ");
    std::fs::write(&records[0], text.replace(&line("notes.txt"), &claimed)).unwrap();
    let second = found(&cache);
    assert_eq!((second.captures.len(), second.skipped), (2, 1));
    // Without a cache, they are detected.
    let plain = Inputs::find(&inputs).unwrap();
    assert_eq!((plain.captures.len(), plain.skipped), (1, 2));
}

#[test]
fn a_damaged_capture_is_kept_up_to_its_fault_and_the_fault_reported_again() {
    let dir = TempDir::new("cache-cut");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let bytes = std::fs::read(Path::new(SAMPLES).join("sample_small.prof")).unwrap();
    let cut = dir.join("cut.prof");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let f = std::fs::File::options().append(true).open(&cut).unwrap();
    f.set_modified(hour_ago).unwrap();
    drop(f);
    settle();
    let inputs = [cut];
    for table in [Table::Slices, Table::Captures] {
        let sql = format!("SELECT * FROM {}", table.name());
        let parse = engine(&inputs, None, 65_536);
        let want = rows(&parse.collect(&sql).unwrap());
        assert!(!want.is_empty(), "{table}: rows before the fault");
        let want_faults = parse.faults();
        assert_eq!(want_faults.len(), 1, "{want_faults:?}");
        for round in ["fills", "from the cache"] {
            let before = cache.hits_and_misses();
            let e = engine(&inputs, Some(&cache), 65_536);
            assert_eq!(rows(&e.collect(&sql).unwrap()), want, "{table} {round}");
            assert_eq!(e.faults(), want_faults, "{table} {round}");
            let after = cache.hits_and_misses();
            let hit = after.0 > before.0 && after.1 == before.1;
            assert_eq!(hit, round == "from the cache", "{table} {round}");
        }
    }
}

#[test]
fn a_fill_removes_what_fills_killed_an_hour_ago_left() {
    let dir = TempDir::new("cache-stale-temp");
    let cache = Arc::new(Cache::new(dir.join("cache"), u64::MAX));
    let samples = [PathBuf::from(SAMPLES)];
    query(&samples, Some(&cache), "SELECT name FROM slices");
    let packs = cache.dir().join("packs");
    let old = packs.join(".slices.1-0-0.parquet.tmp");
    let recent = packs.join(".slices.1-1-0.parquet.tmp");
    for f in [&old, &recent] {
        std::fs::write(f, b"half a pack").unwrap();
    }
    let two_hours_ago = SystemTime::now() - Duration::from_secs(7200);
    let f = std::fs::File::options().append(true).open(&old).unwrap();
    f.set_modified(two_hours_ago).unwrap();
    drop(f);
    // A query that fills (it reads a column not kept yet).
    query(&samples, Some(&cache), "SELECT name, dur FROM slices");
    assert!(!old.exists(), "an hour old: removed");
    assert!(recent.exists(), "maybe a fill under way: kept");
}
