//! Corpus tests: every trace in ../shared/corpus/apitrace against `apitrace dump` output.

use std::path::{Path, PathBuf};

use tracecap_apitrace::{decompress, dump, Container};

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

/// The oracle dump of `trace` (the zstd file shares the snappy one's).
fn oracle(trace: &Path) -> Vec<u8> {
    let name = trace.file_name().unwrap().to_str().unwrap();
    let name = name.replace(".zstd-seekable.trace", ".trace");
    let txt = trace.with_file_name(format!("{name}.dump.txt"));
    if txt.exists() {
        return std::fs::read(txt).unwrap();
    }
    let xz = trace.with_file_name(format!("{name}.dump.txt.xz"));
    let data = std::fs::read(xz).unwrap();
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut &data[..], &mut out).unwrap();
    out
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
    let i = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let s = i.saturating_sub(200);
    format!(
        "first difference at byte {i}:\n--- ours ---\n{}\n--- apitrace ---\n{}",
        String::from_utf8_lossy(&a[s..(i + 200).min(a.len())]),
        String::from_utf8_lossy(&b[s..(i + 200).min(b.len())])
    )
}

/// Traces kept with the crate (made here with Debian apitrace 11.1 under Xvfb, oracle =
/// `apitrace dump --color=never -v --thread-ids=yes`): `es2tri` (EGL/GLES2, `apitrace trace
/// --api egl es2tri`, SIGINT after 3 s) and `eglinfo_bt` (`APITRACE_BACKTRACE="egl* gl*"
/// apitrace trace --api egl eglinfo`: 2916 backtraces) and `threads_bt` (`threads_bt.c`: three
/// threads, each with its own EGL context, issuing GLES2 calls at once;
/// `APITRACE_BACKTRACE="glBufferData glClear eglSwapBuffers" apitrace trace --api egl`).
fn own_traces() -> Vec<PathBuf> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"));
    vec![
        dir.join("es2tri.trace"),
        dir.join("eglinfo_bt.trace"),
        dir.join("threads_bt.trace"),
    ]
}

#[test]
fn dump_matches_apitrace_on_own_traces() {
    for t in own_traces() {
        let file = std::fs::read(&t).unwrap();
        let d = decompress(&file).unwrap();
        assert!(d.fault.is_none());
        let mut ours = Vec::new();
        dump::dump_text(&d.data, |b| ours.extend_from_slice(b)).unwrap();
        let want = oracle(&t);
        assert!(
            ours == want,
            "{}: {}",
            t.display(),
            first_diff(&ours, &want)
        );
    }
}

#[test]
fn dump_matches_apitrace_byte_for_byte() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let all = traces(&root);
    assert!(
        all.len() >= 13,
        "expected the 13 corpus traces, found {}",
        all.len()
    );
    for t in all {
        let file = std::fs::read(&t).unwrap();
        let d = decompress(&file).unwrap();
        let mut ours = Vec::new();
        let r = dump::dump_text(&d.data, |b| ours.extend_from_slice(b));
        r.unwrap_or_else(|e| panic!("{}: {e}", t.display()));
        let want = oracle(&t);
        assert!(
            ours == want,
            "{}: {}",
            t.display(),
            first_diff(&ours, &want)
        );
        eprintln!("ok {} ({} bytes of dump)", t.display(), ours.len());
    }
}

#[test]
fn containers_and_sizes_match_apitrace_info() {
    let Some(root) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    for t in traces(&root) {
        let file = std::fs::read(&t).unwrap();
        let d = decompress(&file).unwrap();
        let name = t.file_name().unwrap().to_str().unwrap();
        let info = t.with_file_name(format!("{name}.info.json"));
        if name.contains("zstd") {
            assert_eq!(d.container, Container::ZstdSeekable);
            assert!(d.fault.is_none());
            continue;
        }
        let info = std::fs::read_to_string(info).unwrap();
        let size: u64 = info
            .lines()
            .find(|l| l.contains("ActualDataSize"))
            .and_then(|l| l.split(':').nth(1))
            .map(|s| s.trim().trim_end_matches(',').parse().unwrap())
            .unwrap();
        // apitrace's gzip reader does not report the real stream size (it guesses).
        if d.container != Container::Gzip {
            assert_eq!(d.data.len() as u64, size, "{name}");
        }
        let kind = match d.container {
            Container::Snappy => "Snappy",
            Container::Gzip => "ZLib",
            Container::Brotli => "Brotli",
            _ => "?",
        };
        assert!(
            info.contains(&format!("\"ContainerType\": \"{kind}\"")),
            "{name}"
        );
        if name == "zlib-no-eof.trace" {
            assert!(d.fault.is_some(), "gzip without trailer must be reported");
        } else {
            assert!(d.fault.is_none(), "{name}: {:?}", d.fault);
        }
    }
}
