//! Opening a capture memory-mapped, so that parsing borrows the file's pages.

use std::fs::File;
use std::path::Path;

/// The bytes of an opened capture file (dereferences to `[u8]`).
#[derive(Debug)]
pub struct Input {
    map: Option<memmap2::Mmap>,
}

/// Maps the file at `path` read-only. An empty file gives an empty input (mapping zero bytes is
/// not portable).
pub fn open(path: impl AsRef<Path>) -> std::io::Result<Input> {
    let path = path.as_ref();
    let file = File::open(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    if file.metadata()?.len() == 0 {
        return Ok(Input { map: None });
    }
    // SAFETY: the map is read-only. If another process truncates or rewrites the file while it is
    // mapped, reads may fault or see changed bytes; every parser treats each byte as untrusted, so
    // changed bytes can at worst produce a format error. This is the crate's only unsafe block.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    Ok(Input { map: Some(map) })
}

impl core::ops::Deref for Input {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

impl AsRef<[u8]> for Input {
    fn as_ref(&self) -> &[u8] {
        self
    }
}
