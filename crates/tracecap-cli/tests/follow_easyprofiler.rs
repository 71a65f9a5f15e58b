//! `dump -` and `convert -` of an EasyProfiler capture arriving through a pipe: a thread at a
//! time, in the memory of one thread, with the whole file's outputs; a thread larger than the
//! memory allowed is an error that names it.

mod common;

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Output};

use common::{run, scratch};

/// The data segment the piped runs are allowed: 64 MiB.
const LIMIT_KIB: u64 = 64 << 10;

/// The bytes of a block record named at run time (`name` without its NUL), size field included.
fn block(out: &mut impl Write, begin: u64, end: u64, id: u32, name: &[u8]) {
    let size = 8 + 8 + 4 + name.len() + 1;
    out.write_all(&u16::try_from(size).unwrap().to_le_bytes())
        .unwrap();
    out.write_all(&begin.to_le_bytes()).unwrap();
    out.write_all(&end.to_le_bytes()).unwrap();
    out.write_all(&id.to_le_bytes()).unwrap();
    out.write_all(name).unwrap();
    out.write_all(&[0]).unwrap();
}

/// Writes to `path` a 2.1.0 capture (timestamps in ns) of `threads` threads, each of `groups`
/// groups of three blocks (two children, then their parent), each block named at run time with
/// about 100 bytes. Returns the file's size.
fn write_capture(path: &Path, threads: u32, groups: u64) -> u64 {
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    let signature = 0x4561_7379u32;
    out.write_all(&signature.to_le_bytes()).unwrap();
    out.write_all(&0x0201_0000u32.to_le_bytes()).unwrap();
    out.write_all(&4242u64.to_le_bytes()).unwrap(); // pid
    out.write_all(&0i64.to_le_bytes()).unwrap(); // cpu frequency: ns
    out.write_all(&1000u64.to_le_bytes()).unwrap(); // begin
    out.write_all(&(1000 + groups * 10).to_le_bytes()).unwrap(); // end
    out.write_all(&0u64.to_le_bytes()).unwrap(); // memory size
    out.write_all(&0u64.to_le_bytes()).unwrap(); // descriptors' memory size
    let records = u64::from(threads) * groups * 3;
    out.write_all(&u32::try_from(records).unwrap().to_le_bytes())
        .unwrap();
    out.write_all(&2u32.to_le_bytes()).unwrap(); // descriptors
    out.write_all(&threads.to_le_bytes()).unwrap();
    out.write_all(&0u16.to_le_bytes()).unwrap(); // bookmarks
    out.write_all(&[0, 0]).unwrap();
    for (id, name) in [(0u32, &b"frame"[..]), (1, b"step")] {
        let mut d = Vec::new();
        d.extend_from_slice(&id.to_le_bytes());
        d.extend_from_slice(&(10 * id as i32).to_le_bytes()); // line
        d.extend_from_slice(&0xff80_4020u32.to_le_bytes()); // colour
        d.extend_from_slice(&[1, 1]); // a block, enabled
        d.extend_from_slice(&u16::try_from(name.len() + 1).unwrap().to_le_bytes());
        d.extend_from_slice(name);
        d.push(0);
        d.extend_from_slice(b"main.cpp\0");
        out.write_all(&u16::try_from(d.len()).unwrap().to_le_bytes())
            .unwrap();
        out.write_all(&d).unwrap();
    }
    let pad = [b'x'; 90];
    for t in 0..threads {
        out.write_all(&u64::from(1000 + t).to_le_bytes()).unwrap();
        let name = format!("worker {t}");
        out.write_all(&u16::try_from(name.len() + 1).unwrap().to_le_bytes())
            .unwrap();
        out.write_all(name.as_bytes()).unwrap();
        out.write_all(&[0]).unwrap();
        out.write_all(&0u32.to_le_bytes()).unwrap(); // context switches
        out.write_all(&u32::try_from(groups * 3).unwrap().to_le_bytes())
            .unwrap();
        for g in 0..groups {
            let at = 1000 + g * 10;
            let mut name = format!("t{t} g{g} ").into_bytes();
            name.extend_from_slice(&pad);
            block(&mut out, at + 1, at + 3, 1, &name);
            block(&mut out, at + 4, at + 6, 1, &name);
            block(&mut out, at, at + 8, 0, &name);
        }
    }
    out.write_all(&signature.to_le_bytes()).unwrap();
    out.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// `script` under bash, with `pipefail` and the data segment limited to [`LIMIT_KIB`].
fn limited(script: &str) -> Output {
    let script = format!("ulimit -d {LIMIT_KIB}; {script}");
    Command::new("bash")
        .args(["-o", "pipefail", "-c", &script])
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The digest `md5sum` prints of what `script` writes (run without a limit when `limit` is
/// false).
fn digest(script: &str, limit: bool) -> String {
    let script = format!("{script} | md5sum");
    let out = if limit {
        limited(&script)
    } else {
        Command::new("bash")
            .args(["-o", "pipefail", "-c", &script])
            .output()
            .unwrap()
    };
    assert!(out.status.success(), "{script}: {}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn a_stream_of_many_threads_is_dumped_and_converted_in_the_memory_of_one() {
    let dir = scratch("follow_easyprofiler", "many");
    let path = dir.join("many.prof");
    // 125 threads of about 1.6 MiB: about 3 times the 64 MiB the piped runs are allowed.
    let size = write_capture(&path, 125, 4_500);
    assert!(size > 3 * (64 << 20), "{size}");
    let bin = env!("CARGO_BIN_EXE_tracecap");
    let p = path.display();
    for json in ["", "--json"] {
        let whole = digest(&format!("'{bin}' dump {json} '{p}'"), false);
        let piped = digest(&format!("'{bin}' dump {json} - < '{p}'"), true);
        assert_eq!(piped, whole, "dump {json}");
    }

    let whole = dir.join("whole.pftrace");
    let piped = dir.join("piped.pftrace");
    let out = run(&[
        "convert",
        path.to_str().unwrap(),
        "-o",
        whole.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = limited(&format!(
        "cat '{p}' | '{bin}' convert - -o '{}' --quiet",
        piped.display()
    ));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        std::fs::read(&piped).unwrap() == std::fs::read(&whole).unwrap(),
        "the piped conversion differs from the whole file's"
    );
}

#[test]
fn a_thread_larger_than_the_memory_allowed_is_an_error_that_names_it() {
    let dir = scratch("follow_easyprofiler", "huge");
    let path = dir.join("huge.prof");
    // One thread of about 90 MiB: more than the 64 MiB allowed.
    let size = write_capture(&path, 1, 250_000);
    assert!(size > 80 << 20, "{size}");
    let bin = env!("CARGO_BIN_EXE_tracecap");
    let p = path.display();
    // The thread's head follows the 72-byte header and the two descriptors (33 and 32 bytes).
    let named = "the EasyProfiler thread at offset 137 does not fit in memory";
    let out = limited(&format!("'{bin}' dump - < '{p}'"));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(named), "{stderr}");
    // What came before the thread was printed, and nothing of the thread.
    assert!(stdout.starts_with("easyprofiler 2.1.0"), "{stdout:.300}");
    assert_eq!(stdout.matches("descriptor ").count(), 2, "{stdout:.300}");
    assert!(!stdout.contains("worker 0"), "{stdout:.300}");

    let out = limited(&format!(
        "cat '{p}' | '{bin}' convert - -o '{}' --quiet",
        dir.join("huge.pftrace").display()
    ));
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(named), "{stderr}");
}

#[test]
fn a_followed_capture_shows_each_thread_once_its_records_are_written() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;

    let dir = scratch("follow_easyprofiler", "growing");
    let whole_path = dir.join("whole.prof");
    write_capture(&whole_path, 3, 50);
    let bytes = std::fs::read(&whole_path).unwrap();
    // Up to a little into the third thread: the first two are whole.
    let third = bytes.windows(9).position(|w| w == b"worker 2\0").unwrap();
    let (first, rest) = bytes.split_at(third + 100);
    let path = dir.join("growing.prof");
    std::fs::write(&path, first).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(["dump", "--follow", "--idle", "20", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            let _ = tx.send(line);
        }
    });
    // The second thread is printed while the file still ends inside the third.
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.starts_with("thread 1001 ")) {
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(line) => seen.push(line),
            Err(e) => panic!("{e}: the first threads were not printed: {seen:?}"),
        }
    }
    assert!(!seen.iter().any(|l| l.contains("worker 2")), "{seen:?}");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(rest)
        .unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    seen.extend(rx.try_iter());
    assert!(status.success());
    let expected = run(&["dump", whole_path.to_str().unwrap()]);
    assert_eq!(seen.join("\n") + "\n", text(&expected.stdout));
}
