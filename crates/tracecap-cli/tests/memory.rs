//! Memory bounded by what the input really holds: a real capture's first bytes followed by a
//! long run of zeros (a sparse file: a few KiB on disk, gigabytes long) is a bad capture found at
//! once, in little memory, whatever the sizes its fields claim.
//!
//! (A capture of less than 8 KiB keeps its first half instead of 4 KiB.)
//!
//! Every command runs with its data segment (heap and anonymous maps; the mapped file does not
//! count) limited to 1 GiB, as `ulimit -d 1048576` does, on files of 5 GiB, and must end within
//! 5 seconds with exit 1 and an offset. Its peak resident memory, measured by GNU time, must not
//! grow from a 16 MiB file to a 256 MiB one.
//!
//! The captures: every corpus file of every format and container (when the corpus is there), and
//! the bundled samples. A syscall_capture file is the exception to "exit 1": zeros after its
//! records are gaps its format allows, so its verdict is whatever the tool says of the whole file
//! (checked to be the same at every size), and reading its gigabytes of zeros is bounded in
//! memory, not in time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::captures;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// The prefix kept from each capture.
const PREFIX: usize = 4096;

const COMMANDS: [&[&str]; 5] = [
    &["validate"],
    &["info"],
    &["dump", "--json"],
    &["convert", "-o", "/dev/null", "--to", "perfetto", "--quiet"],
    &["convert", "-o", "/dev/null", "--to", "chrome", "--quiet"],
];

/// A sparse file of `len` bytes that starts with `prefix`.
fn sparse(path: &Path, prefix: &[u8], len: u64) {
    std::fs::write(path, prefix).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

struct Run {
    code: Option<i32>,
    stderr: String,
    took: Duration,
    /// Peak resident set in KiB (GNU time's `%M`), when GNU time is there.
    peak_kib: Option<u64>,
}

/// Runs `tracecap args path` with the data segment limited to 1 GiB.
fn limited(args: &[&str], path: &Path, time: Option<&Path>) -> Run {
    let mut cmd = String::from("ulimit -d 1048576; exec ");
    if let Some(time) = time {
        cmd.push_str(&format!("{} -f 'peak %M' ", time.display()));
    }
    // A run that goes on far past the 5 s it is allowed is stopped rather than waited for.
    cmd.push_str("timeout -s KILL 60 ");
    cmd.push_str(env!("CARGO_BIN_EXE_tracecap"));
    let mut argv = vec![args[0], path.to_str().unwrap()];
    argv.extend(&args[1..]);
    for a in argv {
        cmd.push_str(&format!(" '{a}'"));
    }
    let start = Instant::now();
    let out = Command::new("bash")
        .args(["-c", &cmd])
        .stdout(std::process::Stdio::null())
        .output()
        .unwrap();
    let took = start.elapsed();
    // GNU time adds its own lines: the peak, and a note on a non-zero exit status.
    let mut peak_kib = None;
    let mut stderr = String::new();
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        if let Some(kib) = line.strip_prefix("peak ").filter(|_| time.is_some()) {
            peak_kib = kib.trim().parse().ok();
        } else if !line.starts_with("Command exited with non-zero status")
            && !line.starts_with("Command terminated by signal")
        {
            stderr.push_str(line);
            stderr.push('\n');
        }
    }
    Run {
        code: out.status.code(),
        stderr,
        took,
        peak_kib,
    }
}

fn gnu_time() -> Option<PathBuf> {
    let p = PathBuf::from("/usr/bin/time");
    let ok = Command::new(&p)
        .args(["-f", "%M", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(p)
    } else {
        eprintln!("GNU time not found: peak memory not compared");
        None
    }
}

fn scratch() -> tracecap_testkit::TempDir {
    tracecap_testkit::TempDir::new("memory")
}

#[test]
fn sparse_gigabytes_after_a_real_prefix_are_refused_fast_and_small() {
    let dir = scratch();
    let time = gnu_time();
    let mut failures = Vec::new();
    for (name, bytes) in captures().into_iter().filter(|(_, b)| b.len() > 64) {
        let syscall = name.starts_with("syscall/");
        // A real cut: the first 4 KiB, or half of a capture too small for that (a whole capture
        // followed by zeros may be a good one: several formats ignore what follows their end).
        let keep = if bytes.len() > 2 * PREFIX {
            PREFIX
        } else {
            bytes.len() / 2
        };
        let prefix = &bytes[..keep];
        let path = dir.join(name.replace('/', "_"));
        for args in COMMANDS {
            let mut verdicts = Vec::new();
            let mut peaks = Vec::new();
            for len in [16 * MIB, 256 * MIB, 5 * GIB] {
                sparse(&path, prefix, len);
                let run = limited(args, &path, time.as_deref());
                let what = format!("{name} ({len} bytes) {}", args.join(" "));
                let last = run.stderr.lines().last().unwrap_or_default().to_owned();
                if !syscall {
                    if run.code != Some(1) || !last.contains(" at offset 0x") {
                        failures.push(format!("{what}: exit {:?}: {}", run.code, run.stderr));
                    }
                    if run.took > Duration::from_secs(5) {
                        failures.push(format!("{what}: took {:?}", run.took));
                    }
                } else if !matches!(run.code, Some(0 | 1)) {
                    failures.push(format!("{what}: exit {:?}: {}", run.code, run.stderr));
                }
                verdicts.push((run.code, last));
                peaks.push(run.peak_kib);
                if syscall && len > 256 * MIB {
                    break; // gigabytes of gaps are read, not refused: bounded in memory only
                }
            }
            if verdicts.windows(2).any(|w| w[0] != w[1]) && !syscall {
                failures.push(format!(
                    "{name} {}: verdicts differ by size: {verdicts:?}",
                    args.join(" ")
                ));
            }
            // Peak memory of the 256 MiB file against the 16 MiB one: the same, within a margin
            // for the allocator and, for syscall_capture, the zero pages its walk reads through.
            if let (Some(Some(small)), Some(Some(big))) = (peaks.first(), peaks.get(1)) {
                let margin = if syscall {
                    256 * 1024 + 16 * 1024
                } else {
                    16 * 1024
                };
                if *big > small + margin {
                    failures.push(format!(
                        "{name} {}: peak {small} KiB at 16 MiB, {big} KiB at 256 MiB",
                        args.join(" ")
                    ));
                }
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
