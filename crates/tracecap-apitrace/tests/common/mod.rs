//! What several test files share: the traces they read.

use std::path::{Path, PathBuf};

/// The corpus traces under `root` (`../shared/corpus/apitrace`), then the ones kept with the
/// crate (tests/data), sorted.
pub fn traces(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    let own = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"));
    for dir in [
        root.join("apitrace-tests"),
        root.join("produced-apitrace-11.1"),
        own,
    ] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "trace") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}
