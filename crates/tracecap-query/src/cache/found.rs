//! What a search of the inputs found: each capture's format and size, keyed by the file's
//! identity, so that the next search of the same inputs does not open and detect every file
//! again (for a compressed apitrace trace, detecting means decompressing its first piece).
//!
//! One record per list of inputs, `found/KEY`, a line per file the search opened:
//!
//! ```text
//! tracecap cache found 1
//! DEVICE INODE SIZE MODIFIED CHANGED LENGTH FORMAT PATH
//! ```
//!
//! `FORMAT` is a capture's format, or why a file is not a capture (`-empty`, `-unknown`): a
//! file that no format recognises is otherwise tried by every detector at each search,
//! apitrace's brotli one decoding its start with a 16 MiB window.
//!
//! A file is recalled only when its identity now is the one in the record, and only once it was
//! left alone for [`Cache::SETTLE`], as the entries are.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tracecap::open::{KnownFormats, Sniffed, EMPTY_FILE, UNKNOWN_FORMAT};
use tracecap::Format;

use super::{file_identity, lock, write_replacing, Cache, Identity};

/// The first line of every record.
const MAGIC: &str = "tracecap cache found 1";

/// How a record names why a file is not a capture.
const NOT_CAPTURES: [(&str, &str); 2] = [("-empty", EMPTY_FILE), ("-unknown", UNKNOWN_FORMAT)];

/// The record of one list of inputs, read, and what the search recalls and learns of it.
pub(crate) struct Found<'c> {
    cache: &'c Cache,
    path: PathBuf,
    known: HashMap<PathBuf, (Identity, Sniffed)>,
    /// The files recalled or learned, with the identity they had before they were opened.
    now: Mutex<Now>,
}

#[derive(Default)]
struct Now {
    /// Identities taken for files not recalled, before they were opened.
    taken: HashMap<PathBuf, Identity>,
    /// What the record will hold.
    kept: Vec<(PathBuf, (Identity, Sniffed))>,
    learned: usize,
}

impl<'c> Found<'c> {
    /// The record of `inputs` in `cache` (empty when there is none, or it cannot be read).
    pub(crate) fn read(cache: &'c Cache, key: &str) -> Found<'c> {
        let path = cache.dir.join(super::FOUND).join(key);
        let known = std::fs::read_to_string(&path)
            .ok()
            .map(|text| parse(&text))
            .unwrap_or_default();
        Found {
            cache,
            path,
            known,
            now: Mutex::default(),
        }
    }

    /// Writes the record again when the search learned something or recalled less than it
    /// holds.
    pub(crate) fn keep(self) {
        let now = self.now.into_inner().unwrap_or_else(|p| p.into_inner());
        if now.learned == 0 && now.kept.len() == self.known.len() {
            return;
        }
        let mut text = format!("{MAGIC}\n");
        for (path, ((device, inode, size, modified, changed), sniffed)) in &now.kept {
            let Some(path) = path.to_str().filter(|p| !p.contains(['\n', '\r'])) else {
                continue; // recalled by no later search: detected each time
            };
            let (len, name) = match sniffed {
                Ok((len, format)) => (*len, format.name()),
                Err(why) => match NOT_CAPTURES.iter().find(|(_, w)| w == why) {
                    Some((name, _)) => (0, *name),
                    None => continue,
                },
            };
            text.push_str(&format!(
                "{device} {inode} {size} {modified} {changed} {len} {name} {path}\n"
            ));
        }
        let dir = self.cache.dir.join(super::FOUND);
        let written = super::create_private(&self.cache.dir)
            .and_then(|()| super::create_private(&dir))
            .and_then(|()| write_replacing(&self.path, text.as_bytes()));
        if let Ok(bytes) = written {
            self.cache.grew(bytes);
        }
    }
}

impl KnownFormats for Found<'_> {
    fn recall(&self, path: &Path) -> Option<Sniffed> {
        let identity = file_identity(path);
        let mut now = lock(&self.now);
        let Some(identity) = identity else {
            return None; // changed just now, or no identity: detected, not kept
        };
        match self.known.get(path) {
            Some(&(was, sniffed)) if was == identity => {
                now.kept.push((path.to_path_buf(), (identity, sniffed)));
                Some(sniffed)
            }
            _ => {
                now.taken.insert(path.to_path_buf(), identity);
                None
            }
        }
    }

    fn learn(&self, path: &Path, sniffed: Sniffed) {
        let mut now = lock(&self.now);
        if let Some(identity) = now.taken.remove(path) {
            now.kept.push((path.to_path_buf(), (identity, sniffed)));
            now.learned += 1;
        }
    }
}

/// The files a record holds; lines that do not read are left out.
fn parse(text: &str) -> HashMap<PathBuf, (Identity, Sniffed)> {
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) || !text.ends_with('\n') {
        return HashMap::new();
    }
    lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.splitn(8, ' ').collect();
            let [device, inode, size, modified, changed, len, name, path] = fields[..] else {
                return None;
            };
            let identity = (
                device.parse().ok()?,
                inode.parse().ok()?,
                size.parse().ok()?,
                modified.parse().ok()?,
                changed.parse().ok()?,
            );
            let sniffed = match Format::from_name(name) {
                Some(format) => Ok((len.parse().ok()?, format)),
                None => Err(NOT_CAPTURES.iter().find(|(n, _)| *n == name)?.1),
            };
            Some((PathBuf::from(path), (identity, sniffed)))
        })
        .collect()
}
