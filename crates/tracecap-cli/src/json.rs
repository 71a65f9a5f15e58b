//! Small helpers for writing JSON by hand on hot dump paths (serde_json does the escaping).

use std::io::{self, Write};

/// Writes `bytes` as a JSON string; invalid UTF-8 is replaced by U+FFFD.
pub fn str_lossy(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    let s = String::from_utf8_lossy(bytes);
    serde_json::to_writer(&mut *out, s.as_ref()).map_err(io::Error::other)
}

/// Writes a float as a JSON number (shortest round-trip form), or `null` when not finite.
pub fn f64_num(out: &mut dyn Write, x: f64) -> io::Result<()> {
    if x.is_finite() {
        serde_json::to_writer(&mut *out, &x).map_err(io::Error::other)
    } else {
        out.write_all(b"null")
    }
}
