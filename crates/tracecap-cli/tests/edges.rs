//! The tool at its edges, as a user meets them: an output that is the input, a run that is
//! interrupted or whose input shrinks, pipes and standard input and output, devices, directories,
//! a narrow terminal, and `--help`. None of these needs the corpus: inputs are the bundled samples
//! or written here.

mod common;

use common::{big_capture, run, stderr};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../samples/sample_small.prof"
);

fn tracecap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tracecap"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> tracecap_testkit::TempDir {
    common::scratch("edges", name)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn an_output_that_is_the_input_is_refused_and_the_input_kept() {
    let dir = scratch("same");
    let input = dir.join("x.prof");
    std::fs::copy(SAMPLE, &input).unwrap();
    let want = std::fs::read(&input).unwrap();
    std::os::unix::fs::symlink(&input, dir.join("link.prof")).unwrap();
    std::fs::hard_link(&input, dir.join("hard.prof")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    let dotdot = format!("{}/sub/../x.prof", s(&dir));
    let dot = format!("{}/./x.prof", s(&dir));
    let link = dir.join("link.prof");
    let hard = dir.join("hard.prof");
    for out in [s(&input), &dot, &dotdot, s(&link), s(&hard)] {
        for to in [None, Some("chrome"), Some("perfetto")] {
            let mut args = vec!["convert", s(&input), "-o", out];
            if let Some(to) = to {
                args.extend(["--to", to]);
            }
            let r = run(&args);
            assert_eq!(r.status.code(), Some(2), "{out}: {}", stderr(&r));
            assert!(stderr(&r).contains("is the input file"), "{}", stderr(&r));
            assert_eq!(
                std::fs::read(&input).unwrap(),
                want,
                "{out} changed the input"
            );
        }
    }
    assert_eq!(names(&dir), ["hard.prof", "link.prof", "sub", "x.prof"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts `convert big -o out` and waits until its temporary output exists (so the conversion
/// is under way); returns the child.
fn start_big_convert(dir: &Path, input: &Path, out: &Path) -> std::process::Child {
    let child = tracecap()
        .args(["convert", s(input), "-o", s(out), "--quiet"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !names(dir).iter().any(|n| n.ends_with(".tmp")) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary output"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child
}

#[test]
fn an_interrupted_run_leaves_the_old_output_and_no_temporary() {
    let dir = scratch("killed");
    let input = dir.join("big.dat");
    std::fs::write(&input, big_capture(3_000_000)).unwrap();
    let out = dir.join("out.json");
    std::fs::write(&out, b"the old output").unwrap();
    let mut child = start_big_convert(&dir, &input, &out);
    // SIGTERM through the shell's kill, as a user's Ctrl-C or a job scheduler would end it.
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the conversion finished before the signal: make it bigger"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"the old output");
    assert_eq!(names(&dir), ["big.dat", "out.json"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_input_that_shrinks_while_converting_is_an_error_naming_it() {
    let dir = scratch("shrink");
    let input = dir.join("big.dat");
    std::fs::write(&input, big_capture(3_000_000)).unwrap();
    let out = dir.join("out.json");
    std::fs::write(&out, b"the old output").unwrap();
    let child = start_big_convert(&dir, &input, &out);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .set_len(4096)
        .unwrap();
    let r = child.wait_with_output().unwrap();
    assert_eq!(r.status.code(), Some(2), "{:?} {}", r.status, stderr(&r));
    let err = stderr(&r);
    assert!(
        err.starts_with(&format!("error: {}: the file shrank", s(&input))),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"the old output");
    assert_eq!(names(&dir), ["big.dat", "out.json"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pipes_and_standard_input_are_read_like_files() {
    let want = run(&["info", "--json", SAMPLE]);
    assert!(want.status.success());
    let bytes = std::fs::read(SAMPLE).unwrap();
    for path in ["-", "/dev/stdin"] {
        let mut child = tracecap()
            .args(["info", "--json", path])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let feed = bytes.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            stdin.write_all(&feed).unwrap();
        });
        let got = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert_eq!(got.status.code(), Some(0), "{path}: {}", stderr(&got));
        // The same summary as for the file (only the file name may differ).
        assert_eq!(got.stdout, want.stdout, "{path}");
    }
}

#[test]
fn a_process_substitution_reads_like_a_file() {
    let want = run(&["dump", SAMPLE]);
    let got = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} dump <(cat {SAMPLE})",
            env!("CARGO_BIN_EXE_tracecap")
        ))
        .output()
        .unwrap();
    assert_eq!(got.status.code(), Some(0), "{}", stderr(&got));
    assert_eq!(got.stdout, want.stdout);
}

#[test]
fn an_endless_device_is_an_unknown_format_at_once() {
    let start = Instant::now();
    let r = run(&["validate", "/dev/zero"]);
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(
        stderr(&r),
        "error: unknown format: no known magic bytes at offset 0x0\n"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn convert_writes_standard_output_with_dash_and_keeps_it_clean() {
    for (path, to) in [
        ("-", "chrome"),
        ("/dev/stdout", "chrome"),
        ("-", "perfetto"),
    ] {
        let r = run(&["convert", SAMPLE, "-o", path, "--to", to]);
        assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
        if to == "chrome" {
            let v: serde_json::Value = serde_json::from_slice(&r.stdout)
                .unwrap_or_else(|e| panic!("{path}: stdout is not only the JSON: {e}"));
            assert!(v["traceEvents"].as_array().unwrap().len() > 100);
        } else {
            // A Perfetto trace: packets (field 1, length-delimited) from the first byte.
            assert_eq!(r.stdout.first(), Some(&0x0a));
        }
        assert!(stderr(&r).contains("slices:"), "the summary is on stderr");
    }
    assert!(!Path::new("-").exists(), "no file named '-' was written");
    // `-` has no extension to pick the exporter from.
    let r = run(&["convert", SAMPLE, "-o", "-"]);
    assert_eq!(r.status.code(), Some(2));
}

#[test]
fn io_errors_name_the_path() {
    let dir = scratch("io");
    let r = run(&["info", s(&dir)]);
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(
        stderr(&r),
        format!("error: {}: is a directory, not a capture file\n", s(&dir))
    );
    let r = run(&["convert", SAMPLE, "-o", "/dev/full", "--to", "chrome"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).starts_with("error: /dev/full: No space left on device"),
        "{}",
        stderr(&r)
    );
    let r = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} dump {SAMPLE} > /dev/full",
            env!("CARGO_BIN_EXE_tracecap")
        ))
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).starts_with("error: standard output: No space left on device"),
        "{}",
        stderr(&r)
    );
    let missing = dir.join("missing.prof");
    let r = run(&["validate", s(&missing)]);
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).starts_with(&format!("error: {}: ", s(&missing))));
    let r = run(&[
        "convert",
        SAMPLE,
        "-o",
        s(&dir.join("no/such/dir/out.json")),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).contains("no/such/dir/out.json: "),
        "{}",
        stderr(&r)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `command` in a pseudo-terminal 80 columns wide (util-linux `script`); returns what the
/// terminal received, or `None` where `script` is missing.
fn in_terminal(command: &str) -> Option<String> {
    let out = Command::new("script")
        .args([
            "-qec",
            &format!("stty cols 80 rows 24; {command}"),
            "/dev/null",
        ])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn the_progress_line_fits_80_columns_and_is_cleared() {
    let dir = scratch("progress");
    let input = dir.join("big.dat");
    std::fs::write(&input, big_capture(1_000_000)).unwrap();
    let out = dir.join("out.pftrace");
    let start = Instant::now();
    let screen = in_terminal(&format!(
        "{} convert {} -o {}",
        env!("CARGO_BIN_EXE_tracecap"),
        s(&input),
        s(&out)
    ));
    let took = start.elapsed().as_secs_f64();
    let Some(screen) = screen else {
        eprintln!("script(1) not found: skipped");
        return;
    };
    assert!(
        screen.contains("converting"),
        "no progress drawn: {screen:?}"
    );
    // Every state of the progress line, between carriage returns, fits in 79 columns.
    for line in screen.split(['\r', '\n']) {
        let visible: String = strip_escapes(line);
        if !visible.starts_with("converting") {
            continue;
        }
        assert!(visible.chars().count() < 80, "{visible:?}");
        // An ETA, once shown, is no longer than the whole run took.
        if let Some(eta) = visible.split("ETA ").nth(1) {
            assert!(
                eta.ends_with('s') && !eta.contains('m') && !eta.contains('h'),
                "{visible:?} after a run of {took:.1} s"
            );
            let secs: f64 = eta.trim_end_matches('s').parse().unwrap();
            assert!(secs <= took + 1.0, "{visible:?} after a run of {took:.1} s");
        }
    }
    // The line is cleared before the summary is printed.
    let summary = screen.find("slices:").expect("summary"); // ok: test
    let clear = screen.rfind("\x1b[2K").expect("the line is cleared"); // ok: test
    assert!(clear < summary);
    // Not a terminal: nothing but the summary.
    let r = run(&["convert", s(&input), "-o", s(&out)]);
    assert!(!stderr(&r).contains('\r') && !stderr(&r).contains("converting"));
    let r = run(&["convert", s(&input), "-o", s(&out), "--quiet"]);
    assert!(r.stderr.is_empty() && r.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `line` without ANSI escape sequences.
fn strip_escapes(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn every_help_teaches_examples_formats_and_exit_codes() {
    for cmd in [
        vec!["--help"],
        vec!["info", "--help"],
        vec!["validate", "--help"],
        vec!["dump", "--help"],
        vec!["convert", "--help"],
    ] {
        let r = run(&cmd);
        assert_eq!(r.status.code(), Some(0));
        let text = String::from_utf8_lossy(&r.stdout);
        assert!(text.contains("Examples:\n  tracecap"), "{cmd:?}");
        assert!(text.contains("Exit codes:"), "{cmd:?}");
        for format in [
            "EasyProfiler",
            "syscall_capture",
            "apitrace",
            "WTF",
            "Orbit",
        ] {
            assert!(text.contains(format), "{cmd:?} lacks {format}");
        }
        assert!(
            text.contains("magic"),
            "{cmd:?} does not say how formats are detected"
        );
        let width = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(width < 80, "{cmd:?}: a line of {width} columns");
    }
}
