//! Opening a capture: memory-mapped when possible, so parsing borrows the file's pages.

use std::fs::File;
use std::path::Path;

use crate::error::CliError;

/// The bytes of a capture file.
pub enum Input {
    /// A memory map of the file.
    Mapped(memmap2::Mmap),
    /// An empty file (mapping zero bytes is not portable).
    Empty,
}

impl Input {
    /// Maps `path` read-only.
    pub fn open(path: &Path) -> Result<Input, CliError> {
        let file = File::open(path).map_err(|e| {
            CliError::Io(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", path.display()),
            ))
        })?;
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(Input::Empty);
        }
        // SAFETY: the map is read-only. If another process truncates or rewrites the file while we
        // read it, reads may fault or see changed bytes; the parsers treat every byte as untrusted,
        // so changed bytes at worst produce a format error. This is the one unsafe block of the tool.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        Ok(Input::Mapped(map))
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Empty => &[],
        }
    }
}
