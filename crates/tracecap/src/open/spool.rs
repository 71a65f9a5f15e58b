//! A stream's bytes kept on disk rather than in memory ([`Spool`]).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{map_file, with_path, Input};

/// Distinguishes the temporary files of one process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A stream's bytes kept on disk rather than in memory: an unnamed temporary file, mapped once
/// the stream has ended.
///
/// A command that needs a whole capture (an Orbit conversion, `info`, `query`) and reads it from
/// a pipe must keep every byte until the end. Kept in memory, a 10 GB stream needs 10 GB of RAM;
/// kept in a [`Spool`], it needs 10 GB of disk in the temporary directory
/// ([`std::env::temp_dir`]: `$TMPDIR`, else `/tmp`) and the pages of the map that are in use.
/// The file is removed from its directory as soon as it is created, so nothing is left behind,
/// whatever ends the process; its space is freed when the spool or the [`Input`] is dropped.
///
/// ```
/// use std::io::Write;
///
/// let mut spool = tracecap::open::Spool::new("standard input".as_ref())?;
/// spool.write_all(b"bytes as they come")?;
/// let input = spool.into_input()?; // mapped, as `tracecap::open` maps a file
/// assert_eq!(&input[..], b"bytes as they come");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Spool {
    file: io::BufWriter<File>,
    /// What the bytes are, for errors ("standard input", a pipe's path).
    name: PathBuf,
}

impl Spool {
    /// A new, empty spool for the bytes of `name` (which errors then name).
    pub fn new(name: &Path) -> io::Result<Spool> {
        let dir = std::env::temp_dir();
        let spool_error = |e: io::Error| {
            with_path(
                name,
                io::Error::new(e.kind(), format!("spooling to {}: {e}", dir.display())),
            )
        };
        let file = loop {
            let candidate = dir.join(format!(
                ".tracecap-spool-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let mut options = OpenOptions::new();
            options.read(true).write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(&candidate) {
                Ok(file) => {
                    // Unnamed from now on: the space goes with the last handle.
                    std::fs::remove_file(&candidate).map_err(spool_error)?;
                    break file;
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(spool_error(e)),
            }
        };
        Ok(Spool {
            file: io::BufWriter::with_capacity(1 << 16, file),
            name: name.to_path_buf(),
        })
    }

    /// The bytes written, mapped read-only (an empty spool gives an empty input).
    pub fn into_input(self) -> io::Result<Input> {
        let name = self.name;
        let file = self
            .file
            .into_inner()
            .map_err(|e| with_path(&name, e.into_error()))?;
        let meta = file.metadata().map_err(|e| with_path(&name, e))?;
        map_file(&file, &meta, &name, None)
    }
}

impl Write for Spool {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file.write(bytes).map_err(|e| with_path(&self.name, e))
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file
            .write_all(bytes)
            .map_err(|e| with_path(&self.name, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| with_path(&self.name, e))
    }
}
