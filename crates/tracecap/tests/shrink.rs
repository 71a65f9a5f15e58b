//! The fault guard's recover mode (`tracecap::open::guard::recover_shrunk_maps`): a mapped file
//! that shrinks under the reader does not end the process; the missing bytes read as zeros and
//! the input reports that it shrank.
//!
//! The mode is process-wide and cannot be switched back, so it lives in this test binary of its
//! own, in one test.

#![cfg(all(unix, feature = "std"))]

use std::io::Write;
use std::path::PathBuf;

use tracecap::open::guard;

/// A multiple of every page size in use (4 KiB, 16 KiB, 64 KiB), so that the file's first
/// `PAGE` bytes stay whole pages of the file after it is cut to that length.
const PAGE: usize = 64 << 10;

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tracecap-shrink-{}-{name}", std::process::id()))
}

/// Bytes none of which is zero, so that a zero read is a replaced byte.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| ((i % 251) as u8 ^ seed) | 1)
        .collect::<Vec<u8>>()
}

/// Removes the files when the test ends, whether it passes or not.
struct Cleanup(Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[test]
fn a_file_cut_under_its_map_reads_as_zeros_past_its_new_end_and_reports_it() {
    let path = temp_path("cut.bin");
    let other_path = temp_path("other.bin");
    let out_path = temp_path("out.bin");
    let _cleanup = Cleanup(vec![path.clone(), other_path.clone(), out_path.clone()]);

    let original = pattern(3 * PAGE + 100, 0x5a);
    let other = pattern(PAGE + 7, 0x33);
    std::fs::write(&path, &original).unwrap();
    std::fs::write(&other_path, &other).unwrap();

    let input = tracecap::open(&path).unwrap();
    let untouched = tracecap::open(&other_path).unwrap();
    assert!(input.is_mapped() && untouched.is_mapped());
    assert_eq!(input.len(), original.len());

    guard::recover_shrunk_maps();
    // An output being written is not removed by a recovered fault: the process goes on.
    let mut out = tracecap::output::Output::create(&out_path).unwrap();
    out.write_all(b"before").unwrap();

    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(PAGE as u64)
        .unwrap();
    assert!(!input.shrunk(), "no read has reached a missing page yet");

    // Every byte, one at a time (each read may be the faulting one), then all at once.
    for (i, &b) in input.iter().enumerate() {
        let want = if i < PAGE { original[i] } else { 0 };
        assert_eq!(std::hint::black_box(b), want, "byte {i}");
    }
    let copy = input.to_vec();
    assert!(
        copy[..PAGE] == original[..PAGE],
        "the bytes the file still has"
    );
    assert!(
        copy[PAGE..].iter().all(|&b| b == 0),
        "the bytes past its new end"
    );
    assert_eq!(input.len(), original.len(), "the map keeps its length");
    assert!(input.shrunk());

    assert!(untouched[..] == other[..], "the other file's bytes");
    assert!(!untouched.shrunk(), "only the map that faulted is marked");
    assert!(!guard::ending());

    out.write_all(b" after").unwrap();
    out.commit().unwrap();
    assert_eq!(std::fs::read(&out_path).unwrap(), b"before after");

    // Unmapping the map, zero pages included, and opening the file again: the new map has the
    // new length and its guard slot (the freed one, reused) starts unmarked.
    drop(input);
    let again = tracecap::open(&path).unwrap();
    assert_eq!(again.len(), PAGE);
    assert!(
        again[..] == original[..PAGE],
        "the cut file's bytes, opened again"
    );
    assert!(!again.shrunk(), "a new map of the cut file has not shrunk");
    drop(again);
    drop(untouched);

    // More inputs open at once than the guard has slots: the ones it cannot watch are read into
    // memory instead of mapped unguarded, so cutting the file faults none of them.
    let many_path = temp_path("many.bin");
    let _cleanup_many = Cleanup(vec![many_path.clone()]);
    let bytes = pattern(2 * PAGE, 0x21);
    std::fs::write(&many_path, &bytes).unwrap();
    let inputs: Vec<tracecap::Input> = (0..1100)
        .map(|_| tracecap::open(&many_path).unwrap())
        .collect();
    let read = inputs.iter().filter(|i| !i.is_mapped()).count();
    assert!(read >= 1100 - 1024, "{read} inputs read into memory");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&many_path)
        .unwrap()
        .set_len(PAGE as u64)
        .unwrap();
    for input in &inputs {
        let tail_zero = input[PAGE..].iter().all(|&b| b == 0);
        assert_eq!(input.shrunk(), input.is_mapped() && tail_zero);
        assert!(input[..PAGE] == bytes[..PAGE]);
        if !input.is_mapped() {
            assert!(input[..] == bytes[..], "a copy keeps the bytes it read");
        }
    }
}
