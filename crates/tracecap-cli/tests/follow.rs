//! Captures read as they are written: `dump`, `validate`, `info` and `convert` with `--follow`
//! while another thread appends a capture to the file in random pieces at random intervals; the
//! output equals the same command's on the whole file. Also: a followed file that shrinks is
//! reported, Ctrl-C stops following and leaves a whole output, and a syscall_capture stream on
//! standard input is dumped and converted in bounded memory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{big_capture, captures, run, scratch};

/// Writes `bytes` to `path` in random pieces (1 byte to a tenth of the file) with random pauses
/// of up to 20 ms, on a thread.
fn write_slowly(path: &Path, bytes: Vec<u8>, seed: u64) -> std::thread::JoinHandle<()> {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::thread::spawn(move || {
        let mut rng = tracecap_testkit::Rng(seed | 1);
        let mut at = 0usize;
        while at < bytes.len() {
            let n = 1 + rng.below(bytes.len() / 10);
            let end = (at + n).min(bytes.len());
            f.write_all(&bytes[at..end]).unwrap();
            f.flush().unwrap();
            at = end;
            std::thread::sleep(Duration::from_millis(rng.below(20) as u64));
        }
    })
}

/// One capture of each format at hand (the first in the corpus's order), and a written
/// syscall_capture, so the test runs without the corpus too.
fn one_per_format() -> Vec<(String, Vec<u8>)> {
    let mut picked: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, bytes) in captures() {
        let format = name.split('/').next().unwrap_or("").to_string();
        if bytes.len() > 4 << 20 || picked.iter().any(|(n, _)| n.starts_with(&format)) {
            continue;
        }
        picked.push((name, bytes));
    }
    picked.push(("written/syscall.dat".into(), big_capture(20_000)));
    picked
}

/// Runs `tracecap ARGS FILE` with `--follow --idle 1.5` while `bytes` are written to FILE slowly;
/// its exit code, stdout and stderr.
fn followed(dir: &Path, args: &[&str], bytes: &[u8], seed: u64) -> (i32, Vec<u8>, String) {
    let path = dir.join(format!("growing-{seed}"));
    std::fs::write(&path, b"").unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .args(["--follow", "--idle", "1.5"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let writer = write_slowly(&path, bytes.to_vec(), seed);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn dump_follow_prints_what_dump_prints_of_the_whole_file() {
    let dir = scratch("follow", "dump");
    for (i, (name, bytes)) in one_per_format().into_iter().enumerate() {
        let whole = dir.join(format!("whole-{i}"));
        std::fs::write(&whole, &bytes).unwrap();
        for json in [false, true] {
            let mut args = vec!["dump"];
            if json {
                args.push("--json");
            }
            let expected = {
                let mut a = args.clone();
                a.push(whole.to_str().unwrap());
                run(&a)
            };
            let (code, stdout, stderr) = followed(&dir, &args, &bytes, 7 + i as u64);
            assert_eq!(
                Some(code),
                expected.status.code(),
                "{name} json={json}: {stderr}"
            );
            assert!(
                stdout == expected.stdout,
                "{name} json={json}: dump --follow printed {} bytes, dump {} bytes",
                stdout.len(),
                expected.stdout.len()
            );
            assert!(
                stderr.contains("stopped after")
                    && stderr.contains(&format!("{} bytes", bytes.len())),
                "{name}: {stderr}"
            );
        }
    }
}

#[test]
fn convert_validate_and_info_follow_give_what_they_give_of_the_whole_file() {
    let dir = scratch("follow", "convert");
    for (i, (name, bytes)) in one_per_format().into_iter().enumerate() {
        let whole = dir.join(format!("whole-{i}"));
        std::fs::write(&whole, &bytes).unwrap();
        let expected_out = dir.join(format!("whole-{i}.pftrace"));
        let expected = run(&[
            "convert",
            whole.to_str().unwrap(),
            "-o",
            expected_out.to_str().unwrap(),
            "--quiet",
        ]);
        let out = dir.join(format!("followed-{i}.pftrace"));
        let (code, _, stderr) = followed(
            &dir,
            &["convert", "-o", out.to_str().unwrap(), "--quiet"],
            &bytes,
            100 + i as u64,
        );
        assert_eq!(Some(code), expected.status.code(), "{name}: {stderr}");
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&expected_out).unwrap(),
            "{name}: convert --follow wrote another trace than convert"
        );

        for (k, command) in ["validate", "info"].into_iter().enumerate() {
            let expected = run(&[command, whole.to_str().unwrap()]);
            let seed = 200 + 10 * i as u64 + k as u64;
            let (code, stdout, stderr) = followed(&dir, &[command], &bytes, seed);
            assert_eq!(
                Some(code),
                expected.status.code(),
                "{name} {command}: {stderr}"
            );
            assert_eq!(
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&expected.stdout),
                "{name} {command}"
            );
        }
    }
}

/// `tracecap ARGS --follow PATH`, its standard output read on a thread as it comes.
struct Following {
    child: std::process::Child,
    stdout: std::thread::JoinHandle<Vec<u8>>,
}

impl Following {
    fn start(args: &[&str], path: &Path) -> Following {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
            .args(args)
            .arg("--follow")
            .arg(path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut text = Vec::new();
            std::io::Read::read_to_end(&mut out, &mut text).unwrap();
            text
        });
        Following { child, stdout }
    }

    /// Exit code, standard output and standard error.
    fn wait(self) -> (Option<i32>, Vec<u8>, String) {
        let out = self.child.wait_with_output().unwrap();
        let stdout = self.stdout.join().unwrap();
        (
            out.status.code(),
            stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn a_followed_file_that_shrinks_is_reported_and_ctrl_c_stops_with_a_whole_output() {
    let dir = scratch("follow", "stops");
    let bytes = big_capture(20_000);
    let whole = dir.join("whole.dat");
    std::fs::write(&whole, &bytes).unwrap();
    let whole_dump = run(&["dump", whole.to_str().unwrap()]);
    let path: PathBuf = dir.join("capture.dat");

    // Shrinks after it was read: reported on stderr, exit 2, every record read printed.
    std::fs::write(&path, &bytes).unwrap();
    let following = Following::start(&["dump"], &path);
    std::thread::sleep(Duration::from_millis(1500));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(100)
        .unwrap();
    let (code, stdout, stderr) = following.wait();
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("shrank"), "{stderr}");
    assert!(
        stdout == whole_dump.stdout,
        "the records read before it are printed"
    );

    // Ctrl-C while following a whole capture whose writer is not done: the dump, the conversion
    // of what was read, exit 0, and where it stopped.
    std::fs::write(&path, &bytes).unwrap();
    let out_path = dir.join("interrupted.json");
    for args in [
        vec!["dump"],
        vec!["convert", "-o", out_path.to_str().unwrap()],
    ] {
        let following = Following::start(&args, &path);
        std::thread::sleep(Duration::from_millis(1500));
        let kill = Command::new("kill")
            .args(["-INT", &following.child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let (code, stdout, stderr) = following.wait();
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stderr.contains("interrupted"), "{args:?}: {stderr}");
        if args[0] == "dump" {
            assert!(stdout == whole_dump.stdout, "the dump of the file read");
        } else {
            let json: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
            let events = json["traceEvents"].as_array().map_or(0, Vec::len);
            assert!(events > 20_000, "{events} events");
        }
    }
}

#[test]
fn a_syscall_stream_is_dumped_and_converted_in_bounded_memory() {
    // About 3 times the 64 MiB the data segment is allowed.
    let bytes = big_capture(6_000_000);
    assert!(bytes.len() > 3 * (64 << 20), "{}", bytes.len());
    let dir = scratch("follow", "pipe");
    let path = dir.join("big.dat");
    std::fs::write(&path, &bytes).unwrap();
    let expected_lines = 1 + 6_000_000u64;
    let script = format!(
        "ulimit -d 65536; {} dump - < '{}' | wc -l",
        env!("CARGO_BIN_EXE_tracecap"),
        path.display()
    );
    let out = Command::new("bash")
        .args(["-o", "pipefail", "-c", &script])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} {}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim().parse::<u64>().unwrap(), expected_lines);

    // Converted from the pipe in the same memory, to the trace the whole file gives.
    let whole = dir.join("whole.pftrace");
    let piped = dir.join("piped.pftrace");
    let expected = run(&[
        "convert",
        path.to_str().unwrap(),
        "-o",
        whole.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(expected.status.success());
    let script = format!(
        "ulimit -d 65536; cat '{}' | {} convert - -o '{}' --quiet",
        path.display(),
        env!("CARGO_BIN_EXE_tracecap"),
        piped.display()
    );
    let out = Command::new("bash")
        .args(["-o", "pipefail", "-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read(&piped).unwrap() == std::fs::read(&whole).unwrap(),
        "the piped conversion differs from the whole file's"
    );
}

#[test]
fn a_followed_file_shows_its_records_while_the_rest_is_awaited() {
    // A few records (far less than the tool's 64 KiB output buffer) and half of the next one.
    let bytes = big_capture(50);
    let first = big_capture(40);
    let cut = first.len() + (bytes.len() - first.len()) / 20;
    let dir = scratch("follow", "shows");
    let path = dir.join("growing.dat");
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(["dump", "--follow", "--idle", "30"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(out).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    // The header and the 40 whole records show before the file grows.
    let mut lines = 0;
    while lines < 41 {
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(_) => lines += 1,
            Err(_) => {
                let _ = child.kill();
                panic!("only {lines} lines printed while the file waits for its next record");
            }
        }
    }
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "a cut record printed"
    );
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(&bytes[cut..]).unwrap();
    drop(f);
    while lines < 51 {
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(_) => lines += 1,
            Err(_) => {
                let _ = child.kill();
                panic!("only {lines} lines printed after the file grew");
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_followed_capture_that_ends_in_a_fault_says_where_reading_stopped() {
    // Every format's capture cut short, and a written syscall_capture with garbage after a
    // record: `dump --follow` and `convert --follow` exit 1 with the fault, after the line that
    // says how much was read and that reading stopped there.
    let dir = scratch("follow", "fault");
    let mut cases: Vec<(String, Vec<u8>)> = one_per_format()
        .into_iter()
        .map(|(name, mut bytes)| {
            bytes.truncate(bytes.len() * 2 / 3);
            (name, bytes)
        })
        .collect();
    let mut garbage = big_capture(200);
    garbage.extend_from_slice(&[0xff; 64]);
    cases.push(("written/syscall.dat + garbage".into(), garbage));
    for (i, (name, bytes)) in cases.into_iter().enumerate() {
        let whole = dir.join(format!("whole-{i}"));
        std::fs::write(&whole, &bytes).unwrap();
        let out = dir.join(format!("out-{i}.json"));
        for args in [
            vec!["dump"],
            vec![
                "convert",
                "--to",
                "chrome",
                "--quiet",
                "-o",
                out.to_str().unwrap(),
            ],
        ] {
            let expected = {
                let mut a = args.clone();
                a.push(whole.to_str().unwrap());
                run(&a)
            };
            if expected.status.code() != Some(1) {
                continue; // a cut that leaves a whole capture (a format with no end mark)
            }
            let (code, _, stderr) = followed(&dir, &args, &bytes, 31 + i as u64);
            assert_eq!(code, 1, "{name} {args:?}: {stderr}");
            let report = stderr
                .lines()
                .find(|l| l.contains("stopped after"))
                .unwrap_or_else(|| panic!("{name} {args:?}: no line says where: {stderr}"));
            assert!(
                report.contains(&format!("{} bytes", bytes.len())) || report.contains("fault"),
                "{name} {args:?}: {report}"
            );
            assert!(stderr.contains("error: "), "{name} {args:?}: {stderr}");
        }
    }
}
