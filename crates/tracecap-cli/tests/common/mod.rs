//! What the CLI's test files share: running the tool, writing scratch files, and every capture
//! at hand.
#![allow(dead_code)] // each test file uses some of these

use std::path::{Path, PathBuf};
use std::process::Command;

use tracecap_syscall::write::{CaptureWriter, HeaderModel, SyscallModel};

/// Exit code, stdout and stderr of `tracecap args...` with the environment variables `env`.
pub fn tracecap_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .env("TRACECAP_CACHE_DIR", test_cache())
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `bytes` written to a file of the temporary directory named after `tag`, the process and
/// `name`.
pub fn tmp(tag: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("tracecap-{tag}-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

/// (name, bytes) of every capture at hand: each format's corpus files with a capture's extension
/// (when the corpus is there; `.xz` files decompressed) and the bundled samples.
pub fn captures() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let sets: [(&str, &[&str], &[&str]); 5] = [
        ("easyprofiler", &["."], &[".prof"]),
        ("syscall", &["."], &[".dat"]),
        (
            "apitrace",
            &["apitrace-tests", "produced-apitrace-11.1"],
            &[".trace"],
        ),
        (
            "wtf",
            &["cff-cpp", "cff-js", "legacy-v3"],
            &[".wtf-trace", ".wtf-trace.xz"],
        ),
        ("orbit", &["real", "generated"], &[".orbit"]),
    ];
    for (format, subdirs, exts) in sets {
        for (name, bytes) in tracecap_testkit::corpus_files(format, subdirs) {
            if exts.iter().any(|e| name.ends_with(e)) {
                files.push((format!("{format}/{name}"), bytes));
            }
        }
    }
    let samples = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples"));
    for name in ["sample_small.prof", "gen_small.prof"] {
        files.push((
            format!("samples/{name}"),
            std::fs::read(samples.join(name)).unwrap(),
        ));
    }
    files
}

/// `f(index, item)` for every item, on two threads taking the next item as they finish (the
/// machine's two cores); the results in no particular order.
pub fn on_two_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else {
                    break;
                };
                let r = f(i, item);
                results.lock().unwrap().push(r);
            });
        }
    });
    results.into_inner().unwrap()
}

/// A syscall capture of `records` records: big enough, at a few million, that converting or
/// exporting it takes long enough to be interrupted.
pub fn big_capture(records: u32) -> Vec<u8> {
    let mut w = CaptureWriter::new();
    w.header(&HeaderModel {
        pid: 42,
        epoch_seconds: 1_700_000_000,
        clock_reference_ns: Some(0),
        ..HeaderModel::default()
    })
    .unwrap();
    for i in 0..records {
        w.syscall(&SyscallModel {
            number: (i % 300) as u16,
            result: Some(0),
            tid: Some(42 + (i % 4) as i32),
            timestamp_ns: Some(i64::from(i) * 1000),
            duration_ns: Some(500.0),
            args: Vec::new(),
        })
        .unwrap();
    }
    w.into_bytes()
}

/// Output of `tracecap args...`.
pub fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .env("TRACECAP_CACHE_DIR", test_cache())
        .output()
        .expect("run tracecap")
}

/// Standard error of a run, as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh scratch directory for one test of the file `tag`.
pub fn scratch(tag: &str, name: &str) -> tracecap_testkit::TempDir {
    tracecap_testkit::TempDir::new(&format!("{tag}-{name}"))
}

/// Every file under `dir`, as paths relative to it, sorted.
pub fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// The cache of parsed tables the tests' runs share (not the user's): one folder for every test
/// process, which the cache allows.
pub fn test_cache() -> PathBuf {
    std::env::temp_dir().join("tracecap-tests-cache")
}
