//! The `tracecap` binary on the apitrace corpus: identical dumps, info, validate, faults.

use std::path::{Path, PathBuf};
use std::process::Command;

fn traces(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for sub in ["apitrace-tests", "produced-apitrace-11.1"] {
        for e in std::fs::read_dir(root.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "trace") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn tracecap(args: &[&str], file: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

fn json_number(info: &str, key: &str) -> u64 {
    info.lines()
        .find(|l| l.contains(&format!("\"{key}\"")))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().trim_end_matches(',').parse().unwrap())
        .unwrap()
}

#[test]
fn dump_apitrace_is_identical() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let mut checked = 0;
    for t in traces(&root) {
        let name = t
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .replace(".zstd-seekable", "");
        let oracle = t.with_file_name(format!("{name}.dump.txt"));
        if !oracle.exists() {
            continue; // .xz oracles are checked by the crate's own corpus test
        }
        let out = tracecap(&["dump", "--apitrace"], &t);
        let want = std::fs::read(&oracle).unwrap();
        assert!(out.stdout == want, "{}: dump differs", t.display());
        let cut = name == "zlib-no-eof.trace";
        assert_eq!(
            out.status.code(),
            Some(if cut { 1 } else { 0 }),
            "{}",
            t.display()
        );
        if cut {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(
                    "error: gzip container cut short after 32 calls were read at offset 0x7bd"
                ),
                "{err}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} traces had a text oracle");
}

#[test]
fn info_json_matches_apitrace_info() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    for t in traces(&root) {
        let name = t.file_name().unwrap().to_str().unwrap().to_string();
        let out = tracecap(&["info", "--json"], &t);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for key in ["version", "container", "calls", "frames", "threads", "api"] {
            assert!(v.get(key).is_some(), "{name}: no {key}");
        }
        let info = t.with_file_name(format!("{}.info.json", name.replace(".zstd-seekable", "")));
        let info = std::fs::read_to_string(info).unwrap();
        assert_eq!(
            v["version"],
            json_number(&info, "ContainerVersion"),
            "{name}"
        );
        assert_eq!(v["frames"], json_number(&info, "FramesCount"), "{name}");
        let api = v["api"].as_str().unwrap();
        assert!(
            info.contains(&format!("\"API\": \"{api}\"")),
            "{name}: {api}"
        );
    }
}

#[test]
fn counts_of_known_files() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let info = |f: &str| -> serde_json::Value {
        let out = tracecap(&["info", "--json"], &root.join(f));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = info("apitrace-tests/glthreads.trace");
    assert_eq!(v["threads"], 3);
    assert_eq!(v["calls"], 240);
    let v = info("apitrace-tests/incomplete-call.trace");
    assert_eq!(v["calls"], 8);
    assert_eq!(v["container"], "snappy");
    let v = info("produced-apitrace-11.1/glxinfo_tiny.zstd-seekable.trace");
    assert_eq!(v["container"], "zstd-seekable");
    assert_eq!(v["calls"], 571);
    let v = info("produced-apitrace-11.1/glxinfo_tiny.brotli.trace");
    assert_eq!(v["container"], "brotli");
}

#[test]
fn validate_and_json_dump() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    for t in traces(&root) {
        let name = t.file_name().unwrap().to_str().unwrap().to_string();
        let cut = name == "zlib-no-eof.trace";
        let out = tracecap(&["validate"], &t);
        assert_eq!(out.status.code(), Some(if cut { 1 } else { 0 }), "{name}");
        let out = tracecap(&["dump", "--json"], &t);
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        let head: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(head["format"], "apitrace");
        let mut n = 0u64;
        for l in lines {
            let c: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(c["name"].is_string() && c["args"].is_array() && c["flags"].is_object());
            n += 1;
        }
        let info = tracecap(&["info", "--json"], &t);
        let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        assert_eq!(v["calls"], n, "{name}: one JSON line per call");
    }
}

#[test]
fn cut_file_reports_offset_and_keeps_earlier_calls() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let src = std::fs::read(root.join("produced-apitrace-11.1/glxgears_backtrace.trace")).unwrap();
    let dir = tracecap_testkit::TempDir::new("apitrace-cut");
    let cut = dir.join("cut.trace");
    std::fs::write(&cut, &src[..src.len() - 1000]).unwrap();
    let out = tracecap(&["dump", "--apitrace"], &cut);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: snappy container cut short after ")
            && err.contains(" calls were read at offset 0x"),
        "{err}"
    );
    // The first chunk (1 MiB of stream) is whole: its calls are printed.
    assert!(out.stdout.len() > 100_000);
    let garbage = dir.join("garbage.trace");
    std::fs::write(&garbage, b"at\x05\x00\x00\x00\x03\x08\xff\xff\xff").unwrap();
    let out = tracecap(&["validate"], &garbage);
    assert_eq!(out.status.code(), Some(1));
}

/// The call lines of `dump --json` (the head line left out: a zstd-seekable file cut before its
/// seek table is a plain zstd file), its exit code and its last stderr line.
fn json_calls(file: &Path) -> (Vec<String>, Option<i32>, String) {
    let out = tracecap(&["dump", "--json"], file);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines = text.lines().skip(1).map(str::to_owned).collect();
    let err = String::from_utf8_lossy(&out.stderr);
    (lines, out.status.code(), err.trim_end().to_owned())
}

/// Every corpus trace cut at several points: `dump --json` prints the first call lines of the
/// whole file's dump, identical (offsets included), then exits 1 naming the offset; every call
/// line carries `offset` (increasing within the stream's ENTER order) and, for snappy and zstd,
/// `file_offset`.
#[test]
fn cut_files_print_the_first_lines_of_the_whole_dump() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let dir = tracecap_testkit::TempDir::new("apitrace-cuts");
    let cut = dir.join("cut.trace");
    for t in traces(&root) {
        let name = t.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&t).unwrap();
        let (whole, _, _) = json_calls(&t);
        let chunked = bytes.starts_with(b"at") || bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]);
        for l in &whole {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(v["offset"].is_u64(), "{name}: {l}");
            assert_eq!(v["file_offset"].is_u64(), chunked, "{name}: {l}");
        }
        let len = bytes.len();
        let mut most = 0;
        for n in [len / 10, len / 3, len / 2, len * 9 / 10, len - 9, len - 1] {
            std::fs::write(&cut, &bytes[..n]).unwrap();
            let (got, code, err) = json_calls(&cut);
            assert_eq!(code, Some(1), "{name} cut at {n}: {err}");
            assert!(
                err.starts_with("error: ") && err.contains(" at offset 0x"),
                "{err}"
            );
            assert!(got.len() <= whole.len(), "{name} cut at {n}");
            assert_eq!(got[..], whole[..got.len()], "{name} cut at {n}");
            assert!(
                got.len() >= most,
                "{name} cut at {n}: fewer calls than a shorter cut"
            );
            most = got.len();
        }
    }
}
