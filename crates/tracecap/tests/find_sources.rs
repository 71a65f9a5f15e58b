//! Finding captures: a directory's files are detected on several threads and come back in path
//! order, each with its own size and format, and the files of no known format are counted.

#![cfg(all(feature = "std", feature = "easyprofiler"))]

use std::path::{Path, PathBuf};

use tracecap::open::find_sources;
use tracecap::Format;
use tracecap_testkit::TempDir;

#[test]
fn a_directory_of_many_files_gives_its_captures_in_path_order() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_small.prof");
    let bytes = std::fs::read(sample).unwrap();
    let dir = TempDir::new("find-sources");
    // 90 files in 4 folders: every third one a capture (each a different length), the others
    // text or empty.
    let mut want = Vec::new();
    for i in 0..90usize {
        let folder = dir.join(format!("d{}", i % 4));
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join(format!("f{i:02}"));
        match i % 3 {
            0 => {
                let mut capture = bytes.clone();
                capture.extend(std::iter::repeat_n(0u8, i));
                std::fs::write(&file, &capture).unwrap();
                want.push((file, capture.len() as u64));
            }
            1 => std::fs::write(&file, b"not a capture").unwrap(),
            _ => std::fs::write(&file, b"").unwrap(),
        }
    }
    want.sort();
    let found = find_sources(&[dir.to_path_buf()], None).unwrap();
    let got: Vec<(PathBuf, u64)> = found
        .captures
        .iter()
        .map(|c| (c.source.path.clone(), c.bytes))
        .collect();
    assert_eq!(got, want);
    assert!(found
        .captures
        .iter()
        .all(|c| c.format == Format::EasyProfiler));
    assert_eq!(found.skipped, 60);
    assert_eq!(found.bytes(), want.iter().map(|w| w.1).sum::<u64>());
}
