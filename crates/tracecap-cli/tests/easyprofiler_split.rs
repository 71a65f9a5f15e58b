//! `tracecap validate` of EasyProfiler files on two threads (forced with `TRACECAP_THREADS=2`,
//! or `back-first` for the two workers one after the other, the back worker taking every thread)
//! says exactly what the serial check says (`TRACECAP_THREADS=1`): the same line for every
//! corpus file, and the same exit code and message for cut and mutated copies of them.

use std::path::{Path, PathBuf};

mod common;

fn corpus() -> Vec<PathBuf> {
    let Some(dir) = tracecap_testkit::corpus("easyprofiler") else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "prof"))
        .collect();
    files.sort();
    files
}

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
    let files = corpus();
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
    let files = corpus();
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
