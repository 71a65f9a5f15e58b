//! Streams that a command needs whole (`info`, `validate`, and the conversion of a format that
//! is not converted as it arrives) are kept on disk, not in memory: each runs on a stream several
//! times the 64 MiB of data segment it is allowed (`ulimit -d 65536`) and gives what it gives of
//! the file.

use std::path::Path;
use std::process::Command;

mod common;
use common::{big_capture, captures, run, scratch};

/// Runs `script` under bash with pipefail: its exit status, stdout and stderr.
fn bash(script: &str) -> (bool, String, String) {
    let out = Command::new("bash")
        .args(["-o", "pipefail", "-c", script])
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `tracecap ARGS -` with `file` on standard input and 64 MiB of data segment.
fn limited(args: &str, file: &Path) -> (bool, String, String) {
    bash(&format!(
        "ulimit -d 65536; cat '{}' | {} {args} -",
        file.display(),
        env!("CARGO_BIN_EXE_tracecap")
    ))
}

#[test]
fn info_and_validate_of_a_long_stream_keep_it_on_disk() {
    let bytes = big_capture(6_000_000);
    assert!(bytes.len() > 3 * (64 << 20), "{}", bytes.len());
    let dir = scratch("spool", "info");
    let path = dir.join("big.dat");
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    for command in ["validate", "info"] {
        let whole = run(&[command, path.to_str().unwrap()]);
        assert!(whole.status.success(), "{command} of the file failed");
        let (ok, stdout, stderr) = limited(command, &path);
        assert!(ok, "{command} -: {stderr}");
        assert_eq!(stdout, String::from_utf8_lossy(&whole.stdout), "{command}");
    }
    // The same limit is too small for the stream held in memory: the test can fail.
    let (ok, _, _) = bash(&format!(
        "ulimit -d 65536; cat '{}' | python3 -c 'import sys; b = sys.stdin.buffer.read(); print(len(b))'",
        path.display()
    ));
    assert!(!ok, "the limit does not bind");
}

/// An Orbit capture of about `size` bytes: the events of `file` (a real capture) up to its
/// `CaptureFinished`, written again and again, then that `CaptureFinished`.
fn repeated_orbit(file: &[u8], size: usize) -> Vec<u8> {
    use tracecap::orbit::{Capture, EventKind};
    let capture = Capture::parse(file).unwrap();
    let mut events = Vec::new();
    let mut finished = None;
    for ev in capture.events() {
        let ev = ev.unwrap();
        if ev.kind == EventKind::CaptureFinished {
            finished = Some(ev.message.to_vec());
            break;
        }
        events.push(ev.message.to_vec());
    }
    let mut w = tracecap_orbit::write::CaptureWriter::with_capacity(size + (1 << 20));
    while w.len() < size {
        for message in &events {
            w.write_event(message).unwrap();
        }
    }
    w.write_event(&finished.expect("a finished capture"))
        .unwrap();
    w.finish()
}

#[test]
fn an_orbit_stream_converts_from_disk_in_bounded_memory() {
    let Some((name, file)) = captures()
        .into_iter()
        .filter(|(name, _)| name.starts_with("orbit/real/"))
        .max_by_key(|(_, bytes)| bytes.len())
    else {
        println!("SKIPPED: no real Orbit capture (see the README)");
        return;
    };
    let bytes = repeated_orbit(&file, 3 * (64 << 20) + (1 << 20));
    let dir = scratch("spool", "orbit");
    let path = dir.join("big.orbit");
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    let whole = dir.join("whole.pftrace");
    let piped = dir.join("piped.pftrace");
    let expected = run(&[
        "convert",
        path.to_str().unwrap(),
        "-o",
        whole.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(expected.status.success(), "{name} repeated: convert failed");
    let (ok, _, stderr) = limited(&format!("convert -o '{}' --quiet", piped.display()), &path);
    assert!(ok, "{name} repeated: convert -: {stderr}");
    assert!(
        std::fs::read(&piped).unwrap() == std::fs::read(&whole).unwrap(),
        "{name} repeated: the piped conversion differs"
    );
}
