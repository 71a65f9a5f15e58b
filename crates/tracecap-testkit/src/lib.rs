//! Helpers the integration tests of every tracecap crate share (a dev-dependency only).
//!
//! - [`corpus`]: the directory of a format's real files in `../shared/corpus`, or `None` with a
//!   notice the user sees ([`skipped`]), so that a checkout without the corpus still runs the
//!   other tests;
//! - [`read`]: a corpus file's bytes, `.xz` files decompressed; [`corpus_files`]: every file of
//!   some of a format's corpus folders, read; [`corpus_paths`]: their paths, by extension;
//! - [`Rng`]: a small deterministic generator for mutation tests;
//! - [`CountingAlloc`] and [`allocs`]: a global allocator that counts the allocations of the
//!   current thread, for the "walking allocates nothing" tests;
//! - [`TempDir`]: a fresh directory for a test's files, removed with everything in it when the
//!   test ends.
#![cfg_attr(docsrs, feature(doc_cfg))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// `../shared/corpus/<format>` beside the workspace, when it is there.
///
/// The workspace is the one of the test being run: the first folder holding a `Cargo.lock` above
/// the manifest directory `cargo test` gives the test at run time (a test binary built in another
/// checkout of the same commit, and reused, still looks beside the checkout it runs in); without
/// it, the one this crate was built in.
pub fn corpus(format: &str) -> Option<PathBuf> {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let workspace = manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(Path::new("."));
    let beside = workspace.parent().unwrap_or(workspace);
    let dir = beside.join("shared/corpus").join(format);
    if dir.is_dir() {
        Some(dir)
    } else {
        skipped(&dir);
        None
    }
}

/// Says, where the user sees it, that the calling test skips its corpus part: the line goes to
/// the process's standard error directly, which the test harness does not capture (its capture
/// takes only `print!` and `eprint!`), so it shows without `--nocapture` even when the test passes.
pub fn skipped(corpus: &Path) {
    use std::io::Write;
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    // Once per test, however many times it asks for the corpus.
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if said.contains(&test) {
        return;
    }
    said.push(test.clone());
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED corpus part of {test}: {} not found (see the README)",
        corpus.display()
    );
}

/// The bytes of `path`, decompressed when its name ends in `.xz`. Panics (it is for tests) when
/// the file cannot be read.
pub fn read(path: &Path) -> Vec<u8> {
    // A corpus file that cannot be read must fail the test loudly.
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())); // ok: test-only crate
    if path.extension().is_some_and(|e| e == "xz") {
        let mut out = Vec::new();
        lzma_rs::xz_decompress(&mut &raw[..], &mut out)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display())); // ok: test-only crate
        out
    } else {
        raw
    }
}

/// Every file in the `subdirs` of `format`'s corpus as (file name, bytes, `.xz` decompressed),
/// sorted by name; empty (with the loud message of [`corpus`]) when the corpus is not there.
pub fn corpus_files(format: &str, subdirs: &[&str]) -> Vec<(String, Vec<u8>)> {
    let Some(dir) = corpus(format) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in subdirs {
        let sub = dir.join(sub);
        // A corpus folder that cannot be listed must fail the test.
        let entries = std::fs::read_dir(&sub).unwrap_or_else(|e| panic!("{}: {e}", sub.display())); // ok: test-only crate
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_file() {
                let name = path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                out.push((name, read(&path)));
            }
        }
    }
    out.sort();
    out
}

/// The paths of the files named `*.ext` under the `subdirs` of `format`'s corpus (under the
/// whole corpus folder when `subdirs` is empty), sub-folders included, sorted; empty (with the
/// loud message of [`corpus`]) when the corpus is not there. For tests that give a file's path to
/// a program.
pub fn corpus_paths(format: &str, subdirs: &[&str], ext: &str) -> Vec<PathBuf> {
    let Some(dir) = corpus(format) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = match subdirs {
        [] => vec![dir],
        _ => subdirs.iter().map(|s| dir.join(s)).collect(),
    };
    let mut out = Vec::new();
    while let Some(d) = dirs.pop() {
        // A corpus folder that cannot be listed must fail the test.
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())); // ok: test-only crate
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A small deterministic pseudo-random generator (xorshift64*), for mutation tests that must be
/// reproducible.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

// Counted per thread: the test harness's other threads allocate while a test runs (libtest, for
// one, when a test has been running for over 60 seconds).
thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: allocations during thread teardown, after the counter is gone, are not counted.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

/// Allocations (and reallocations) made so far by the current thread, when the test binary
/// declares `#[global_allocator] static A: CountingAlloc = CountingAlloc;`.
pub fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

/// The system allocator, counting each allocation of the calling thread (see [`allocs`]).
pub struct CountingAlloc;

// SAFETY: every call forwards unchanged to the system allocator; counting touches only a
// thread-local integer and never allocates.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

static PEAK_NOW: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static PEAK_MAX: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn peak_grow(n: usize) {
    use std::sync::atomic::Ordering::Relaxed;
    let now = PEAK_NOW.fetch_add(n, Relaxed) + n;
    PEAK_MAX.fetch_max(now, Relaxed);
}

/// The system allocator, keeping the bytes in use by the whole process and their peak, for the
/// "memory does not grow with the file" tests (see [`peak_of`]).
pub struct PeakAlloc;

// SAFETY: every call forwards unchanged to the system allocator; the counters are atomics and
// never allocate.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        peak_grow(layout.size());
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        peak_grow(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        PEAK_NOW.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        PEAK_NOW.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
        peak_grow(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// `f`'s result and the peak of the bytes allocated while it ran, above those in use before,
/// when the test binary declares `#[global_allocator] static A: PeakAlloc = PeakAlloc;`. The
/// counts are of the whole process: a test binary with several tests must have each of them
/// hold [`serial`], so that no other test allocates while one measures.
pub fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    use std::sync::atomic::Ordering::Relaxed;
    let before = PEAK_NOW.load(Relaxed);
    PEAK_MAX.store(before, Relaxed);
    let r = f();
    (r, PEAK_MAX.load(Relaxed).saturating_sub(before))
}

/// A fresh directory under the system's temporary directory, named after a tag and the
/// process, removed with what it holds when dropped (also when the test panics). It derefs to
/// its [`Path`].
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// `tracecap-<tag>-<pid>`, emptied if it was there.
    pub fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("tracecap-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A lock that the tests of one binary take to run one at a time (see [`peak_of`]); a test that
/// panicked while holding it does not stop the others.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The cut points of the "nothing lost before a fault" tests, for records spanning
/// `spans` (start, end) in a file of `len` bytes: the start, middle and end of each of the first
/// 200 records, and 200 seeded random points below `len`.
pub fn cut_points(spans: &[(u64, u64)], len: usize, rng: &mut Rng) -> Vec<u64> {
    let mut cuts: Vec<u64> = spans
        .iter()
        .take(200)
        .flat_map(|&(start, end)| [start, (start + end) / 2, end])
        .collect();
    cuts.extend((0..200).map(|_| rng.next_u64() % (len.max(1) as u64)));
    cuts
}

/// Checks what was read from a file cut at `cut` against what the whole file gives (records
/// spanning `spans`): the same records in the same order, at least every record whose next
/// record starts at or before the cut (for the last record: whose end is), and a fault, if any,
/// no later than the cut. Panics (it is for tests) naming `name` and the cut.
pub fn check_cut<R: PartialEq + std::fmt::Debug>(
    name: &str,
    cut: u64,
    whole: &[R],
    spans: &[(u64, u64)],
    got: &[R],
    fault_offset: Option<u64>,
) {
    let next = spans
        .iter()
        .skip(1)
        .map(|&(start, _)| start)
        .chain(spans.last().map(|&(_, end)| end));
    let must = next.take_while(|&n| n <= cut).count();
    assert!(
        got.len() >= must,
        "{name} cut at {cut:#x}: {} records, expected at least {must} (fault at {fault_offset:?})",
        got.len()
    ); // ok: test-only crate
    assert!(
        got.len() <= whole.len(),
        "{name} cut at {cut:#x}: more records than the whole file"
    ); // ok: test-only crate
    for (i, (a, b)) in got.iter().zip(whole).enumerate() {
        assert_eq!(a, b, "{name} cut at {cut:#x}: record {i}"); // ok: test-only crate
    }
    if let Some(offset) = fault_offset {
        assert!(
            offset <= cut,
            "{name} cut at {cut:#x}: fault at {offset:#x}, after the cut"
        ); // ok: test-only crate
    }
}
