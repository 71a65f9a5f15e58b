//! Standard output, buffered, with errors that say where they happened
//! (`standard output: No space left on device`).

use std::io::{self, BufWriter, StdoutLock, Write};

/// The tool's buffered standard output.
pub struct Stdout {
    inner: BufWriter<StdoutLock<'static>>,
}

impl Stdout {
    /// Locks standard output for the whole run.
    pub fn new() -> Stdout {
        Stdout {
            inner: BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        }
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Self::new()
    }
}

fn named(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("standard output: {e}"))
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(named)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(named)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(named)
    }
}
