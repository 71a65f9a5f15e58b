//! An output file or standard output, written the same way.

use std::io::{BufWriter, Write};
use std::path::Path;

/// Where an output goes: a file (buffered, through a temporary file, see
/// [`tracecap::output::Output`]) or standard output (`-o -`).
pub(crate) enum Destination<'o> {
    File(BufWriter<tracecap::output::Output>),
    Stdout(&'o mut dyn Write),
}

impl Write for Destination<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Destination::File(f) => f.write(buf),
            Destination::Stdout(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Destination::File(f) => f.flush(),
            Destination::Stdout(s) => s.flush(),
        }
    }
}

impl Destination<'_> {
    /// A new output file at `path`: renamed into place by [`Destination::commit`].
    pub(crate) fn create(path: &Path) -> std::io::Result<Self> {
        let file = tracecap::output::Output::create(path)?;
        Ok(Destination::File(BufWriter::with_capacity(1 << 16, file)))
    }

    /// Puts a file output in place; standard output is only flushed.
    pub(crate) fn commit(self) -> std::io::Result<()> {
        match self {
            Destination::File(f) => f.into_inner().map_err(|e| e.into_error())?.commit(),
            Destination::Stdout(s) => s.flush(),
        }
    }
}
