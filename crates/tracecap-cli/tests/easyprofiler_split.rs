//! `tracecap validate` of EasyProfiler files on two threads (forced with `TRACECAP_THREADS=2`,
//! or `back-first` for the two workers one after the other, the back worker taking every thread)
//! says exactly what the serial check says (`TRACECAP_THREADS=1`): the same line for every
//! corpus file, and the same exit code and message for cut and mutated copies of them.

use std::path::{Path, PathBuf};

mod common;

/// Exit code, stdout and stderr of `tracecap validate path` with `threads` workers.
fn validate(path: &Path, threads: &str) -> (i32, String, String) {
    run(&["validate"], path, threads)
}

/// Exit code, stdout and stderr of `tracecap <args> path` with `threads` workers.
fn run(args: &[&str], path: &Path, threads: &str) -> (i32, String, String) {
    let mut args = args.to_vec();
    args.push(path.to_str().unwrap());
    common::tracecap_env(&args, &[("TRACECAP_THREADS", threads)])
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    common::tmp("split", name, bytes)
}

#[test]
fn two_threads_print_the_serial_line() {
    let files = tracecap_testkit::corpus_paths("easyprofiler", &[], "prof");
    for path in &files {
        let serial = validate(path, "1");
        assert_eq!(serial.0, 0, "{}: {}", path.display(), serial.2);
        // The two workers race for the threads: several runs see several outcomes.
        for _ in 0..5 {
            assert_eq!(validate(path, "2"), serial, "{}", path.display());
        }
        assert_eq!(validate(path, "back-first"), serial, "{}", path.display());
        // `info` reports the same check.
        let info = run(&["info", "--json"], path, "1");
        assert_eq!(run(&["info", "--json"], path, "2"), info);
        assert_eq!(run(&["info", "--json"], path, "back-first"), info);
    }
    if let Some(p) = files.iter().find(|p| p.ends_with("gen_small.prof")) {
        let (_, out, _) = validate(p, "2");
        assert!(out.contains("6 threads"), "a file with many threads: {out}");
    }
}

#[test]
fn two_threads_report_the_serial_error() {
    let files = tracecap_testkit::corpus_paths("easyprofiler", &[], "prof");
    let mut rng = tracecap_testkit::Rng(0x5eed);
    let mut failed = 0;
    for name in [
        "gen_bookmarks.prof",
        "gen_small.prof",
        "sample_v1.2.0.prof",
        "sample_medium.prof",
    ] {
        let Some(path) = files.iter().find(|p| p.ends_with(name)) else {
            continue;
        };
        let good = std::fs::read(path).unwrap();
        let mut copies: Vec<Vec<u8>> = (1..24)
            .map(|k| good[..good.len() * k / 24].to_vec())
            .collect();
        for _ in 0..40 {
            let mut b = good.clone();
            // Past the header and the descriptors, mostly: in the threads and the trailer.
            let at = good.len() / 8 + rng.below(good.len() - good.len() / 8);
            b[at] ^= 1 << rng.below(8);
            copies.push(b);
        }
        for (i, bytes) in copies.iter().enumerate() {
            let p = tmp(&format!("{name}-{i}"), bytes);
            let serial = validate(&p, "1");
            failed += usize::from(serial.0 != 0);
            assert_eq!(validate(&p, "2"), serial, "{name} copy {i}");
            assert_eq!(validate(&p, "back-first"), serial, "{name} copy {i}");
            std::fs::remove_file(&p).unwrap();
        }
    }
    if !files.is_empty() {
        assert!(failed > 40, "only {failed} damaged copies fail");
    }
}

/// `samples/sample_small.prof` made a 2.0.1 file (no thread count: the threads run to the end
/// of the file), its first value record given an unknown data type (a fault that leaves the
/// framing sound), then empty threads (named "t", 19 bytes each) up to about `size` bytes.
fn many_threads_2_0(name: &str, size: usize) -> PathBuf {
    use tracecap_easyprofiler::{Capture, KindTable, Record};
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/sample_small.prof"
    );
    let mut b = std::fs::read(sample).unwrap();
    b[4..8].copy_from_slice(&0x0200_0001u32.to_le_bytes());
    // The 2.1 header's thread count, bookmark count and padding go, and the end signature.
    b.drain(64..72);
    b.truncate(b.len() - 4);
    let c = Capture::parse(&b).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let value = c
        .threads()
        .flat_map(|t| t.unwrap().records(&kinds).collect::<Vec<_>>())
        .find_map(|r| match r.unwrap() {
            Record::Value(v) => Some(v.offset),
            Record::Block(_) => None,
        })
        .unwrap() as usize;
    // The size field, then 24 bytes to the data type.
    b[value + 2 + 24] = 99;
    let mut id = 0u64;
    while b.len() < size {
        b.extend_from_slice(&id.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(b"t\0");
        b.extend_from_slice(&[0; 8]);
        id += 1;
    }
    tmp(name, &b)
}

/// `tracecap <cmd> path` with the heap limited to `limit_kib` (`ulimit -d`): exit code and
/// stderr.
#[cfg(unix)]
fn limited(cmd: &str, path: &Path, threads: &str, limit_kib: u64) -> (Option<i32>, String) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -d {limit_kib} && exec \"$0\" {cmd} \"$1\""))
        .arg(env!("CARGO_BIN_EXE_tracecap"))
        .arg(path)
        .env("TRACECAP_THREADS", threads)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The back worker skims the threads' framing in memory that does not grow with their number:
/// a 64 MiB file of 3.5 M empty threads after a damaged one is checked in 32 MiB of heap,
/// whichever worker goes first, with the serial check's error.
#[cfg(unix)]
#[test]
fn many_threads_are_skimmed_in_small_memory() {
    let p = many_threads_2_0("many.prof", 64 << 20);
    let serial = validate(&p, "1");
    assert_eq!(serial.0, 1, "{serial:?}");
    assert!(
        serial.2.contains("unknown value data type 99 at offset 0x"),
        "{serial:?}"
    );
    for threads in ["2", "back-first"] {
        for cmd in ["validate", "info"] {
            let (code, err) = limited(cmd, &p, threads, 32 << 10);
            assert_eq!(
                (code, err.as_str()),
                (Some(1), serial.2.as_str()),
                "{cmd} with {threads}"
            );
        }
    }
    std::fs::remove_file(&p).unwrap();
}
