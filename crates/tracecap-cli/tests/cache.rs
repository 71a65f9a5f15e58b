//! The cache of parsed tables as a user meets it: `tracecap cache` and `cache clear`,
//! `--no-cache`, four processes filling one cache at once, and a query killed while it fills.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::scratch;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples");

/// `tracecap args...` with the cache at `cache`: exit code, stdout, stderr.
fn with_cache(cache: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .env("TRACECAP_CACHE_DIR", cache)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The files of the cache at `cache` in its folder `kind` (`links`, `packs`), temporary ones
/// included.
fn files(cache: &Path, kind: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(cache.join("v4").join(kind))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

const ALL_SLICES: &str =
    "SELECT * FROM slices ORDER BY capture, track, ts, depth, name, dur, category, args";

#[test]
fn cache_info_clear_and_no_cache() {
    let dir = scratch("cache-cli", "info");
    let cache = dir.join("cache");
    let (code, _, err) = with_cache(&cache, &["query", ALL_SLICES, SAMPLES, "--no-cache"]);
    assert_eq!(code, 0, "{err}");
    assert!(!cache.exists(), "--no-cache leaves the cache alone");
    let (code, want, err) = with_cache(&cache, &["query", ALL_SLICES, SAMPLES, "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let (code, info, _) = with_cache(&cache, &["cache"]);
    assert_eq!(code, 0);
    assert!(
        info.contains(&format!("folder   {}", cache.join("v4").display())),
        "{info}"
    );
    assert!(info.contains("entries  2\n"), "{info}");
    let (_, again, err) = with_cache(&cache, &["query", ALL_SLICES, SAMPLES, "--format", "csv"]);
    assert_eq!(again, want, "{err}");
    let (code, cleared, _) = with_cache(&cache, &["cache", "clear"]);
    assert_eq!(code, 0);
    assert!(cleared.starts_with("removed 2 entries"), "{cleared}");
    let (_, info, _) = with_cache(&cache, &["cache", "info"]);
    assert!(info.contains("entries  0\n"), "{info}");
    let (code, help, _) = with_cache(&cache, &["cache", "--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("Examples:\n  tracecap cache") && help.contains("Exit codes:"));
    assert!(help.contains("TRACECAP_CACHE_DIR") && help.contains("--no-cache"));
    assert!(help.lines().all(|l| l.chars().count() < 80), "{help}");
    let bad_size = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(["cache"])
        .env("TRACECAP_CACHE_DIR", &cache)
        .env("TRACECAP_CACHE_SIZE", "lots")
        .output()
        .unwrap();
    let warned = String::from_utf8_lossy(&bad_size.stderr);
    assert!(
        warned.contains("TRACECAP_CACHE_SIZE=\"lots\" is no size"),
        "{warned}"
    );
    // A cache folder that is a file: exit 2, and the folder named.
    let file = dir.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let (code, _, err) = with_cache(&file, &["cache"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&file.join("v4").display().to_string()),
        "{err}"
    );
    // A query with it answers, and warns once that it cannot be written.
    let (code, _, err) = with_cache(&file, &["query", "SELECT count(*) FROM slices", SAMPLES]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("cannot be written").count(), 1, "{err}");
    // A diff reads and fills it too.
    let s = format!("{SAMPLES}/sample_small.prof");
    let (code, _, err) = with_cache(&cache, &["diff", &s, &s]);
    assert_eq!(code, 0, "{err}");
    assert!(!files(&cache, "links").is_empty());
}

#[test]
fn four_processes_fill_one_cache_at_once() {
    let dir = scratch("cache-cli", "four");
    let cache = dir.join("cache");
    let mut inputs = vec![SAMPLES.to_string()];
    if let Some(corpus) = tracecap_testkit::corpus("") {
        inputs.push(corpus.display().to_string());
    }
    let mut args = vec!["query", ALL_SLICES, "--format", "csv"];
    args.extend(inputs.iter().map(String::as_str));
    let mut plain = args.clone();
    plain.push("--no-cache");
    let (_, want, _) = with_cache(&cache, &plain);
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_tracecap"))
                .args(&args)
                .env("TRACECAP_CACHE_DIR", &cache)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    }
    // Every entry is whole: read back with no warning, the same rows.
    let (code, again, err) = with_cache(&cache, &args);
    assert_eq!(code, 0);
    assert_eq!(again, want);
    assert!(!err.contains("cache file"), "{err}");
    // Whole links and packs: no temporary file left.
    for f in files(&cache, "links").iter().chain(&files(&cache, "packs")) {
        let name = f.file_name().unwrap().to_string_lossy();
        assert!(!name.starts_with('.'), "{}", f.display());
    }
}

#[test]
fn a_query_killed_while_it_fills_leaves_nothing_read_as_data() {
    let dir = scratch("cache-cli", "killed");
    let cache = dir.join("cache");
    let capture = dir.join("big.dat");
    std::fs::write(&capture, common::big_capture(3_000_000)).unwrap();
    std::thread::sleep(Duration::from_millis(2100)); // left alone long enough to be cached
    let capture = capture.display().to_string();
    let sql = "SELECT count(*), sum(dur), min(ts), max(ts) FROM slices";
    let (_, want, _) = with_cache(&cache, &["query", sql, &capture, "--no-cache"]);
    for wait in [50, 200, 600] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
            .args(["query", sql, &capture])
            .env("TRACECAP_CACHE_DIR", &cache)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(wait));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // Whatever was left is a temporary file or a whole entry.
        let (code, got, err) = with_cache(&cache, &["query", sql, &capture]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(got, want, "killed after {wait} ms");
        assert!(!err.contains("cache file"), "{err}");
    }
}
