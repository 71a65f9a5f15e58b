//! Opening a capture: regular files are memory-mapped, so that parsing borrows the file's pages;
//! pipes, terminals and other streams (and `-`, standard input) are read into memory. Also
//! finding the captures among files and directories ([`find_sources`]), and reading bytes as they
//! arrive ([`Arriving`]).
//!
//! This module is the one place the workspace maps a capture. A map's pages are the file's: if
//! another program truncates the file while it is mapped, reading a page past the new end raises
//! `SIGBUS`. [`guard`] handles that signal in one of two modes, process-wide:
//!
//! - by default it ends the process with a message naming the file and exit status 2, instead of
//!   a silent crash (the command-line tool);
//! - after [`guard::recover_shrunk_maps`] it replaces the missing pages by zeros and the read goes
//!   on; [`Input::shrunk`] then tells the caller that the file shrank while it was being read, so
//!   that it reports that instead of trusting what it read (a host that must not die, such as
//!   the Python module).

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::Path;

pub mod arriving;
mod find;
pub mod guard;
mod spool;

pub use arriving::{Arrival, Arriving, Stop, PIECE};
pub use find::{
    find_sources, find_sources_with, CaptureFile, Found, KnownFormats, Sniffed, Source, EMPTY_FILE,
    UNKNOWN_FORMAT,
};
pub use spool::Spool;

/// How much of a stream is read before its format is known: a stream whose first bytes are no
/// capture (`/dev/zero`, say) is not read further.
const STREAM_HEAD: usize = 1 << 20;

/// How much of a stream is kept in memory: a longer one goes to a [`Spool`] on disk.
pub const STREAM_IN_MEMORY: usize = 16 << 20;

/// The bytes of an opened capture (dereferences to `[u8]`).
#[derive(Debug)]
pub struct Input {
    /// Keeps the map registered with the fault guard. Declared before `bytes` so that it is
    /// dropped (unregistered) before the map is unmapped.
    watch: Option<guard::Watch>,
    bytes: Bytes,
    /// The file's device and inode, when it is a file.
    id: Option<FileId>,
}

#[derive(Debug)]
enum Bytes {
    Empty,
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

/// A file's identity on its file system (device and inode on Unix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        Some(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    #[cfg(not(unix))]
    fn of(_meta: &std::fs::Metadata) -> Option<FileId> {
        None
    }
}

/// `path: what`, the shape of every I/O error this crate returns.
pub(crate) fn with_path(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Opens the capture at `path`.
///
/// - A regular file is mapped read-only (an empty one gives an empty input: mapping zero bytes
///   is not portable), and the map is registered with [`guard`]. When every slot of the guard is
///   taken and its recover mode is on, the file is read into memory instead.
/// - `-` is standard input; it and any other file that is not a regular file (a pipe, `/dev/stdin`
///   on a pipe, a process substitution, a character device) is read to its end: into memory up
///   to [`STREAM_IN_MEMORY`] bytes, and a longer stream into a [`Spool`] (an unnamed file in the
///   temporary directory), mapped as a file is. When the first MiB of such a stream is no known
///   capture, reading stops there.
/// - A directory is an error.
///
/// Every error names the path.
pub fn open(path: impl AsRef<Path>) -> std::io::Result<Input> {
    let path = path.as_ref();
    if path == Path::new("-") {
        let name = Path::new("standard input");
        let stdin = std::io::stdin();
        return read_stream(stdin.lock(), name, None);
    }
    let file = File::open(path).map_err(|e| with_path(path, e))?;
    let meta = file.metadata().map_err(|e| with_path(path, e))?;
    if meta.is_dir() {
        return Err(with_path(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "is a directory, not a capture file",
            ),
        ));
    }
    let id = FileId::of(&meta);
    if !meta.is_file() {
        return read_stream(file, path, id);
    }
    map_file(&file, &meta, path, id)
}

/// The input of a regular file: mapped and watched (see [`open`]).
fn map_file(
    file: &File,
    meta: &std::fs::Metadata,
    path: &Path,
    id: Option<FileId>,
) -> std::io::Result<Input> {
    if meta.len() == 0 {
        return Ok(Input {
            bytes: Bytes::Empty,
            id,
            watch: None,
        });
    }
    // SAFETY: the map is read-only and private to this process. Another process may still
    // rewrite the file while it is mapped, or truncate it:
    // - changed bytes are only untrusted input, which every parser handles (at worst a format
    //   error);
    // - a page past a new, shorter end raises SIGBUS on access. `guard::watch` below registers
    //   the map's address range so that the guard's handler either reports such a fault as "the
    //   file shrank" and exits, instead of letting the process die silently, or (in recover mode)
    //   maps zero pages over the rest of the map and flags it, which `Input::shrunk` reports;
    //   faults outside every registered range are passed on to the previous handler (or the
    //   default action).
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| with_path(path, e))?;
    let watch = guard::watch(&map, path);
    if watch.is_none() && guard::recovering() {
        // Every slot of the guard is taken: an unguarded map would end the process if the file
        // shrank, which a host in recover mode must never see. Its bytes are read instead.
        drop(map);
        let mut bytes = Vec::new();
        let mut reader = file;
        reader
            .seek(std::io::SeekFrom::Start(0))
            .and_then(|_| reader.read_to_end(&mut bytes))
            .map_err(|e| with_path(path, e))?;
        return Ok(Input {
            bytes: Bytes::Read(bytes),
            id,
            watch: None,
        });
    }
    Ok(Input {
        bytes: Bytes::Mapped(map),
        id,
        watch,
    })
}

/// Reads the stream `name` to its end (see [`open`]), unless its first [`STREAM_HEAD`] bytes
/// are no capture of a known format: then those bytes alone (their verdict cannot change with
/// more).
fn read_stream(mut stream: impl Read, name: &Path, id: Option<FileId>) -> std::io::Result<Input> {
    let read = |bytes: Vec<u8>| Input {
        bytes: Bytes::Read(bytes),
        id,
        watch: None,
    };
    let mut bytes = Vec::new();
    (&mut stream)
        .take(STREAM_HEAD as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| with_path(name, e))?;
    if bytes.len() < STREAM_HEAD || crate::detect(&bytes).is_none() {
        return Ok(read(bytes));
    }
    (&mut stream)
        .take((STREAM_IN_MEMORY - STREAM_HEAD) as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| with_path(name, e))?;
    if bytes.len() <= STREAM_IN_MEMORY {
        return Ok(read(bytes));
    }
    let mut spool = Spool::new(name)?;
    spool.write_all(&bytes)?;
    drop(bytes);
    let mut piece = vec![0u8; PIECE];
    loop {
        let n = match stream.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(with_path(name, e)),
        };
        spool.write_all(piece.get(..n).unwrap_or_default())?;
    }
    let mut input = spool.into_input()?;
    input.id = id;
    Ok(input)
}

impl Input {
    /// Whether `path` names this input's file (the same device and inode, whatever the path:
    /// `./x`, `../d/x`, a symbolic or a hard link). False when `path` does not exist, and always
    /// false where the platform gives no file identity.
    pub fn is_same_file(&self, path: &Path) -> bool {
        let Some(id) = self.id else {
            return false;
        };
        std::fs::metadata(path)
            .ok()
            .and_then(|m| FileId::of(&m))
            .is_some_and(|other| other == id)
    }

    /// Whether the bytes are a memory map of the file (false for streams read into memory).
    pub fn is_mapped(&self) -> bool {
        matches!(self.bytes, Bytes::Mapped(_))
    }

    /// Whether the file shrank under the map since it was opened: in the guard's recover mode
    /// ([`guard::recover_shrunk_maps`]) a read past the file's new end then read zeros in place
    /// of the missing bytes, so what was read from this input cannot be trusted and the caller
    /// should report that the file shrank while it was being read. False until a read reaches a
    /// missing page, and always false for inputs that are not maps registered with the guard
    /// (streams read into memory, empty files, a map made when every guard slot was taken).
    pub fn shrunk(&self) -> bool {
        self.watch.as_ref().is_some_and(guard::Watch::shrunk)
    }
}

impl core::ops::Deref for Input {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Empty => &[],
            Bytes::Mapped(m) => m,
            Bytes::Read(v) => v,
        }
    }
}

impl AsRef<[u8]> for Input {
    fn as_ref(&self) -> &[u8] {
        self
    }
}
