//! An output file or standard output, written the same way.

use std::io::Write;

/// Where an output goes: a file (through a temporary file, see
/// [`tracecap::output::Output`]) or standard output (`-o -`).
pub(crate) enum Destination<'o> {
    File(tracecap::output::Output),
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
    /// Puts a file output in place; standard output is only flushed.
    pub(crate) fn commit(self) -> std::io::Result<()> {
        match self {
            Destination::File(f) => f.commit(),
            Destination::Stdout(s) => s.flush(),
        }
    }
}
