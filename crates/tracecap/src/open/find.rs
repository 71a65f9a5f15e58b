//! Finding the captures a command line names: files and directories searched recursively, each
//! file's format detected (its first bytes), a capture named by its path as given.
//!
//! ```no_run
//! use std::path::PathBuf;
//!
//! let found = tracecap::open::find_sources(&[PathBuf::from("captures/")], None)?;
//! for c in &found.captures {
//!     println!("{} ({:?}, {} bytes)", c.source.id, c.format, c.bytes);
//! }
//! println!("{} files skipped", found.skipped);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use crate::Format;

/// A capture by its id (its path as the user named it, the `capture` column of the tables) and
/// where it is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    /// The capture's id.
    pub id: String,
    /// Its file.
    pub path: PathBuf,
}

impl Source {
    /// Its file's absolute path, as text: the `path` column of the `captures` table.
    pub fn absolute_path(&self) -> String {
        std::path::absolute(&self.path)
            .unwrap_or_else(|_| self.path.clone())
            .display()
            .to_string()
    }
}

/// The captures named by a command line's inputs; see [`find_sources`].
#[derive(Debug, Default)]
pub struct Found {
    /// The captures, in the order of the inputs (a directory's files sorted by path), each id once.
    pub captures: Vec<CaptureFile>,
    /// Inputs named one by one that are no capture, with why (`empty file`, `unknown format`,
    /// `not a regular file`).
    pub not_captures: Vec<(PathBuf, &'static str)>,
    /// Files under directory inputs that are no capture (skipped).
    pub skipped: usize,
    /// Files under directory inputs that could not be read, with the error.
    pub unreadable: Vec<io::Error>,
}

impl Found {
    /// Bytes of the captures found.
    pub fn bytes(&self) -> u64 {
        self.captures.iter().map(|c| c.bytes).sum()
    }

    /// The captures' ids and paths (what `tracecap_arrow::dataset::export` takes).
    pub fn sources(&self) -> Vec<Source> {
        self.captures.iter().map(|c| c.source.clone()).collect()
    }

    fn push(&mut self, path: PathBuf, (bytes, format): (u64, Format), ids: &mut HashSet<String>) {
        let id = path.display().to_string();
        if ids.insert(id.clone()) {
            self.captures.push(CaptureFile {
                source: Source { id, path },
                bytes,
                format,
            });
        }
    }
}

/// A capture file [`find_sources`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureFile {
    /// Its id (the `capture` column) and its path.
    pub source: Source,
    /// Its size in bytes, when it was found.
    pub bytes: u64,
    /// Its format, when it was found (a walk of it detects it again).
    pub format: Format,
}

/// Finds the captures among `inputs`: a file is a capture if its format is known; a directory is
/// searched recursively (without following links to directories, and skipping `exclude`, the
/// dataset being written). A capture's id is its path as given, or for a file found under a
/// directory, that directory's path joined with the file's path inside it.
///
/// An input that does not exist or cannot be read is an error naming it.
pub fn find_sources(inputs: &[PathBuf], exclude: Option<&Path>) -> io::Result<Found> {
    find_sources_with(inputs, exclude, &NothingKnown)
}

/// What a caller knows of files' formats from an earlier search of them (a cache keyed by the
/// files' identities), so that [`find_sources_with`] does not open them again to find out.
pub trait KnownFormats: Sync {
    /// What the file at `path` is, when known for the file as it is now.
    fn recall(&self, path: &Path) -> Option<Sniffed>;
    /// What the search found opening the file at `path`, which it did not recall.
    fn learn(&self, path: &Path, sniffed: Sniffed);
}

/// What a file turned out to be: a capture (its size and format), or why it is not one
/// ([`EMPTY_FILE`] or [`UNKNOWN_FORMAT`]).
pub type Sniffed = Result<(u64, Format), &'static str>;

/// Why a file found in a directory is not a capture: it is empty.
pub const EMPTY_FILE: &str = crate::NotACapture::Empty.reason();
/// Why a file found in a directory is not a capture: no format recognises it.
pub const UNKNOWN_FORMAT: &str = crate::NotACapture::Unknown.reason();

/// Knows nothing: every file is opened.
struct NothingKnown;

impl KnownFormats for NothingKnown {
    fn recall(&self, _: &Path) -> Option<Sniffed> {
        None
    }

    fn learn(&self, _: &Path, _: Sniffed) {}
}

/// [`find_sources`], where the files `known` recalls are not opened, and what the others turn
/// out to be is told to it.
pub fn find_sources_with(
    inputs: &[PathBuf],
    exclude: Option<&Path>,
    known: &dyn KnownFormats,
) -> io::Result<Found> {
    let exclude = exclude.and_then(|p| std::fs::canonicalize(p).ok());
    let mut found = Found::default();
    let mut ids = HashSet::new();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| with_path(input, e))?;
        if !meta.is_dir() && !meta.is_file() {
            // A pipe or a device would be read up once to detect it and then be empty.
            found
                .not_captures
                .push((input.clone(), "not a regular file"));
            continue;
        }
        if !meta.is_dir() {
            match sniff_known(input, known).map_err(|e| with_path(input, e))? {
                Ok(sniffed) => found.push(input.clone(), sniffed, &mut ids),
                Err(why) => found.not_captures.push((input.clone(), why)),
            }
            continue;
        }
        let mut files = Vec::new();
        walk_dir(input, exclude.as_deref(), &mut files, &mut found.unreadable);
        files.sort();
        let sniffed = sniff_all(&files, known);
        for (file, sniffed) in files.into_iter().zip(sniffed) {
            match sniffed {
                Ok(Ok(sniffed)) => found.push(file, sniffed, &mut ids),
                Ok(Err(_)) => found.skipped += 1,
                Err(e) => found
                    .unreadable
                    .push(io::Error::new(e.kind(), format!("{}: {e}", file.display()))),
            }
        }
    }
    Ok(found)
}

/// Most threads [`sniff_all`] runs on.
const SNIFF_THREADS: usize = 8;

/// [`sniff_known`] of each of `files`, in their order, on up to one thread per core: a file
/// costs system calls, page faults and, for a compressed apitrace trace, the decoder's first
/// piece.
fn sniff_all(files: &[PathBuf], known: &dyn KnownFormats) -> Vec<io::Result<Sniffed>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(SNIFF_THREADS);
    if threads <= 1 || files.len() < 2 * threads {
        return files.iter().map(|f| sniff_known(f, known)).collect();
    }
    let per = files.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = files
            .chunks(per)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|f| sniff_known(f, known))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|part| {
                part.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// What `known` recalls of the file at `path`, else [`sniff`] (and `known` learns a capture).
fn sniff_known(path: &Path, known: &dyn KnownFormats) -> io::Result<Sniffed> {
    if let Some(recalled) = known.recall(path) {
        return Ok(recalled);
    }
    let sniffed = sniff(path)?;
    known.learn(path, sniffed);
    Ok(sniffed)
}

/// Whether the file at `path` is a capture: its size and format, or why not.
fn sniff(path: &Path) -> io::Result<Sniffed> {
    let input = crate::open(path)?;
    Ok(crate::require(&input)
        .map(|format| (input.len() as u64, format))
        .map_err(crate::NotACapture::reason))
}

/// Every regular file under `dir` (links to files followed, links to directories not).
fn walk_dir(
    dir: &Path,
    exclude: Option<&Path>,
    files: &mut Vec<PathBuf>,
    unreadable: &mut Vec<io::Error>,
) {
    if exclude.is_some_and(|x| std::fs::canonicalize(dir).is_ok_and(|d| d == x)) {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            unreadable.push(io::Error::new(e.kind(), format!("{}: {e}", dir.display())));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk_dir(&path, exclude, files, unreadable);
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            files.push(path);
        }
    }
}

/// `e` with `path` in front of its message.
fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
