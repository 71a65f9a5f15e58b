//! The fault guard of `tracecap::open`: a mapped file that shrinks under the reader ends the
//! process with a message naming it and exit status 2, and removes the temporary outputs being
//! written; a fault in memory the guard does not watch still ends the process by `SIGBUS`.
//!
//! Each case runs in a child process (this test binary again, with `GUARD_CASE` set), since
//! the outcome is the end of a process.

#![cfg(all(unix, feature = "std"))]

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracecap-guard-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The child's side: open `GUARD_FILE`, start an output in `GUARD_OUT`, shrink the file, read.
fn child(case: &str) {
    let path = PathBuf::from(std::env::var("GUARD_FILE").unwrap());
    let out_path = PathBuf::from(std::env::var("GUARD_OUT").unwrap());
    let input = tracecap::open(&path).unwrap();
    let mut out = tracecap::output::Output::create(&out_path).unwrap();
    out.write_all(b"partial").unwrap();
    out.flush().unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let sum: u64 = match case {
        // Read the watched map past the new end.
        "watched" => input.iter().map(|&b| u64::from(b)).sum(),
        // Read a map the guard does not know about, of another file that shrinks.
        _ => {
            let other = path.with_extension("other");
            std::fs::write(&other, vec![7u8; 1 << 20]).unwrap();
            let file = std::fs::File::open(&other).unwrap();
            #[allow(unsafe_code)]
            // SAFETY: test-only; the map is read after its file shrinks, to raise SIGBUS.
            let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&other)
                .unwrap()
                .set_len(0)
                .unwrap();
            map.iter().map(|&b| u64::from(b)).sum()
        }
    };
    println!("read {sum} without a fault");
    std::process::exit(0);
}

fn run_case(case: &str) -> (std::process::ExitStatus, String, PathBuf) {
    let dir = scratch(case);
    let file = dir.join("capture.bin");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let out = dir.join("out.json");
    std::fs::write(&out, b"old output").unwrap();
    let r = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_side", "--nocapture"])
        .env("GUARD_CASE", case)
        .env("GUARD_FILE", &file)
        .env("GUARD_OUT", &out)
        .output()
        .unwrap();
    (
        r.status,
        String::from_utf8_lossy(&r.stderr).into_owned(),
        dir,
    )
}

#[test]
fn child_side() {
    if let Ok(case) = std::env::var("GUARD_CASE") {
        child(&case);
    }
}

#[test]
fn a_shrinking_input_is_reported_and_the_temporary_output_removed() {
    let (status, stderr, dir) = run_case("watched");
    assert_eq!(status.code(), Some(2), "{status:?}: {stderr}");
    let file = dir.join("capture.bin");
    assert!(
        stderr.contains(&format!(
            "error: {}: the file shrank while it was being read",
            file.display()
        )),
        "{stderr}"
    );
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["capture.bin", "out.json"], "the temporary is gone");
    assert_eq!(std::fs::read(dir.join("out.json")).unwrap(), b"old output");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fault_elsewhere_is_not_taken_for_a_shrinking_input() {
    let (status, stderr, dir) = run_case("unwatched");
    assert_eq!(
        status.signal(),
        Some(libc::SIGBUS),
        "SIGBUS: {status:?}: {stderr}"
    );
    assert!(!stderr.contains("shrank"), "{stderr}");
    // The output was not committed; a SIGBUS the guard does not handle leaves its temporary.
    let _ = std::fs::remove_dir_all(&dir);
}
