//! `tracecap cache [info|clear]`: the cache of parsed tables that `query` and `diff` keep.

use std::io::Write;

use clap::ValueEnum;
use tracecap_query::{Cache, CacheInfo};

use crate::error::CliError;

/// What `tracecap cache` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Action {
    /// Its folder, entries (a capture's table each), packs (the Parquet files holding them),
    /// bytes and limit.
    Info,
    /// Remove every entry.
    Clear,
}

/// Runs `tracecap cache ACTION`.
pub fn run(action: Action, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let cache = Cache::from_env().ok_or_else(|| {
        CliError::Usage("no cache folder: set TRACECAP_CACHE_DIR, XDG_CACHE_HOME or HOME".into())
    })?;
    for note in cache.notes() {
        writeln!(err, "warning: {note}")?;
    }
    match action {
        Action::Info => {
            let CacheInfo {
                dir,
                entries,
                packs,
                bytes,
                limit,
            } = cache.info().map_err(|e| in_folder(&cache, e))?;
            writeln!(out, "folder   {}", dir.display())?;
            writeln!(out, "entries  {entries}")?;
            writeln!(out, "packs    {packs}")?;
            writeln!(out, "bytes    {bytes} ({})", mib(bytes))?;
            writeln!(
                out,
                "limit    {limit} ({}; TRACECAP_CACHE_SIZE)",
                mib(limit)
            )?;
        }
        Action::Clear => {
            let before = cache.clear().map_err(|e| in_folder(&cache, e))?;
            writeln!(
                out,
                "removed {} entries ({}) from {}",
                before.entries,
                mib(before.bytes),
                before.dir.display()
            )?;
        }
    }
    Ok(())
}

/// An I/O error of the cache's folder, naming it.
fn in_folder(cache: &Cache, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", cache.dir().display()))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}
