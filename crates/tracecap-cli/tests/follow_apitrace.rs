//! An apitrace trace piped in is dumped and converted as its bytes arrive, in every container:
//! in bounded memory, to the outputs of the whole file.

mod common;

use std::path::Path;
use std::process::Command;

use common::{run, scratch};

/// Bytes of stream per snappy chunk (what the tracer writes).
const CHUNK: usize = 1 << 20;
/// Bytes of the blob each call on thread 0 passes.
const BLOB: usize = 60 << 10;

/// A snappy chunk holding `stream` as one literal: its length, the block's uncompressed
/// length, a literal tag with a 3-byte length, the bytes.
fn literal_chunk(file: &mut Vec<u8>, stream: &[u8]) {
    let mut block = Vec::with_capacity(stream.len() + 8);
    let mut n = stream.len() as u64;
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            block.push(byte);
            break;
        }
        block.push(byte | 0x80);
    }
    let len = stream.len() - 1;
    assert!(len < 1 << 24);
    block.push(62 << 2);
    block.extend_from_slice(&(len as u32).to_le_bytes()[..3]);
    block.extend_from_slice(stream);
    file.extend_from_slice(&(block.len() as u32).to_le_bytes());
    file.extend_from_slice(&block);
}

fn uleb(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A version-5 snappy trace of `pairs` pairs of calls: `draw(data = blob)` on thread 0 enters,
/// `wait()` on thread 1 enters and leaves, then `draw` leaves; a last `draw` never leaves.
/// Each `draw` ENTER holds a blob of [`BLOB`] bytes, so the file is large and its dump small.
fn big_trace(pairs: u64) -> Vec<u8> {
    let mut stream = vec![5u8];
    let mut file = b"at".to_vec();
    let blob: Vec<u8> = (0..BLOB).map(|i| (i * 7 % 251) as u8).collect();
    let mut call = 0u64;
    let enter_draw = |s: &mut Vec<u8>, first: bool| {
        s.extend_from_slice(&[0, 0, 0]); // ENTER, thread 0, signature 0
        if first {
            s.extend_from_slice(&[4, b'd', b'r', b'a', b'w', 1, 4, b'd', b'a', b't', b'a']);
        }
        s.extend_from_slice(&[1, 0, 8]); // argument 0, a blob
        uleb(s, BLOB as u64);
        s.extend_from_slice(&blob);
        s.push(0);
    };
    for k in 0..pairs {
        enter_draw(&mut stream, k == 0);
        let draw = call;
        call += 1;
        stream.extend_from_slice(&[0, 1, 1]); // ENTER, thread 1, signature 1
        if k == 0 {
            stream.extend_from_slice(&[4, b'w', b'a', b'i', b't', 0]);
        }
        stream.push(0);
        stream.push(1); // LEAVE of wait, returning 1
        uleb(&mut stream, call);
        stream.extend_from_slice(&[2, 4, 1, 0]);
        call += 1;
        stream.push(1); // LEAVE of draw
        uleb(&mut stream, draw);
        stream.push(0);
        while stream.len() >= CHUNK {
            literal_chunk(&mut file, &stream[..CHUNK]);
            stream.drain(..CHUNK);
        }
    }
    enter_draw(&mut stream, pairs == 0);
    literal_chunk(&mut file, &stream);
    file
}

/// The event stream of a snappy trace.
fn stream_of(snappy: &[u8]) -> Vec<u8> {
    tracecap::apitrace::decompress(snappy).unwrap().data
}

/// `stream` in gzip.
fn gzip(stream: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(stream).unwrap();
    e.finish().unwrap()
}

/// `stream` in zstd frames of `frame` stream bytes, each one raw block (or several of at most
/// 128 KiB), and the seekable format's seek table when `seekable`.
fn zstd(stream: &[u8], frame: usize, seekable: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut sizes = Vec::new();
    for piece in stream.chunks(frame) {
        let start = out.len();
        out.extend_from_slice(&[0x28, 0xb5, 0x2f, 0xfd, 0xe0]);
        out.extend_from_slice(&(piece.len() as u64).to_le_bytes());
        let blocks: Vec<&[u8]> = piece.chunks(128 << 10).collect();
        for (i, b) in blocks.iter().enumerate() {
            let last = u32::from(i + 1 == blocks.len());
            out.extend_from_slice(&(last | (b.len() as u32) << 3).to_le_bytes()[..3]);
            out.extend_from_slice(b);
        }
        sizes.push(((out.len() - start) as u32, piece.len() as u32));
    }
    if seekable {
        out.extend_from_slice(&0x184d_2a5eu32.to_le_bytes());
        out.extend_from_slice(&((sizes.len() * 8 + 9) as u32).to_le_bytes());
        for (c, d) in &sizes {
            out.extend_from_slice(&c.to_le_bytes());
            out.extend_from_slice(&d.to_le_bytes());
        }
        out.extend_from_slice(&(sizes.len() as u32).to_le_bytes());
        out.push(0);
        out.extend_from_slice(&[0xb1, 0xea, 0x92, 0x8f]);
    }
    out
}

/// Runs `script` under bash with `pipefail`, asserting it succeeds.
fn bash(script: &str) {
    let out = Command::new("bash")
        .args(["-o", "pipefail", "-c", script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `tracecap ARGS FILE` of the whole file, its standard output into `to`.
fn whole(args: &[&str], file: &Path, to: &Path) {
    let mut all = args.to_vec();
    all.push(file.to_str().unwrap());
    let out = run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(to, out.stdout).unwrap();
}

/// A gzip and a zstd trace of about 90 MB of stream, piped in under a 64 MiB data segment:
/// decoded as they arrive (the whole file's dump decompresses the stream into memory first).
#[test]
fn gzip_and_zstd_streams_are_dumped_and_converted_in_bounded_memory() {
    let stream = stream_of(&big_trace(1500));
    assert!(stream.len() > 85 << 20, "{}", stream.len());
    let dir = scratch("follow_apitrace", "streams");
    let bin = env!("CARGO_BIN_EXE_tracecap");
    for (name, file) in [
        ("gzip", gzip(&stream)),
        ("zstd", zstd(&stream, 2 << 20, false)),
    ] {
        let path = dir.join(format!("big.{name}.trace"));
        std::fs::write(&path, &file).unwrap();
        let p = path.display();
        let expected = dir.join("whole.dump");
        whole(&["dump"], &path, &expected);
        let piped = dir.join("piped.dump");
        bash(&format!(
            "ulimit -d 65536; cat '{p}' | {bin} dump - > '{}'",
            piped.display()
        ));
        assert!(
            std::fs::read(&piped).unwrap() == std::fs::read(&expected).unwrap(),
            "{name}: the piped dump differs from the whole file's"
        );
        let expected = dir.join("whole.chrome");
        let out = run(&[
            "convert",
            path.to_str().unwrap(),
            "-o",
            expected.to_str().unwrap(),
            "--to",
            "chrome",
            "--quiet",
        ]);
        assert!(out.status.success());
        let piped = dir.join("piped.chrome");
        bash(&format!(
            "ulimit -d 65536; cat '{p}' | {bin} convert - -o '{}' --to chrome --quiet",
            piped.display()
        ));
        assert!(
            std::fs::read(&piped).unwrap() == std::fs::read(&expected).unwrap(),
            "{name}: the piped conversion differs from the whole file's"
        );
    }
}

#[test]
fn a_snappy_stream_is_dumped_and_converted_in_bounded_memory() {
    // About 4 times the 64 MiB the data segment is allowed.
    let bytes = big_trace(4500);
    assert!(bytes.len() > 4 * (64 << 20), "{}", bytes.len());
    let dir = scratch("follow_apitrace", "pipe");
    let path = dir.join("big.trace");
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    let bin = env!("CARGO_BIN_EXE_tracecap");
    let p = path.display();

    for (args, name) in [(&["dump"][..], "dump"), (&["dump", "--json"][..], "json")] {
        let expected = dir.join(format!("whole.{name}"));
        whole(args, &path, &expected);
        let piped = dir.join(format!("piped.{name}"));
        let args = args.join(" ");
        bash(&format!(
            "ulimit -d 65536; cat '{p}' | {bin} {args} - > '{}'",
            piped.display()
        ));
        let want = std::fs::read(&expected).unwrap();
        // Every call, the last one incomplete.
        let lines = want.iter().filter(|&&b| b == b'\n').count();
        assert!(lines > 9000, "{lines} lines");
        assert!(
            std::fs::read(&piped).unwrap() == want,
            "the piped {name} differs from the whole file's"
        );
    }

    for to in ["perfetto", "chrome"] {
        let expected = dir.join(format!("whole.{to}"));
        let out = run(&[
            "convert",
            path.to_str().unwrap(),
            "-o",
            expected.to_str().unwrap(),
            "--to",
            to,
            "--quiet",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let piped = dir.join(format!("piped.{to}"));
        bash(&format!(
            "ulimit -d 65536; cat '{p}' | {bin} convert - -o '{}' --to {to} --quiet",
            piped.display()
        ));
        assert!(
            std::fs::read(&piped).unwrap() == std::fs::read(&expected).unwrap(),
            "the piped {to} conversion differs from the whole file's"
        );
    }
}

/// Status, standard error and output of `tracecap ARGS` with its input piped in (`-`) when
/// `piped`, else named; `out` is where a conversion writes (standard output otherwise).
fn outcome(args: &[&str], file: &Path, piped: bool, out: Option<&Path>) -> (i32, String, Vec<u8>) {
    let bin = env!("CARGO_BIN_EXE_tracecap");
    if let Some(o) = out {
        let _ = std::fs::remove_file(o);
    }
    let input = if piped {
        "-".to_string()
    } else {
        format!("'{}'", file.display())
    };
    let script = format!(
        "cat '{}' | {bin} {} {input}{}",
        file.display(),
        args.join(" "),
        out.map_or(String::new(), |o| format!(" -o '{}' --quiet", o.display()))
    );
    let run = Command::new("bash").args(["-c", &script]).output().unwrap();
    let body = match out {
        Some(o) => std::fs::read(o).unwrap_or_default(),
        None => run.stdout,
    };
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&run.stderr).into_owned(),
        body,
    )
}

/// Every corpus trace (snappy, gzip, brotli, zstd) and traces in gzip and zstd frames made
/// here, whole, cut short and with a bit changed: piped in, `dump`, `dump --json` and `convert`
/// give the whole file's status, message and output.
#[test]
fn damaged_traces_piped_in_give_the_whole_files_outputs_and_faults() {
    let mut files: Vec<(String, Vec<u8>)> =
        tracecap_testkit::corpus_files("apitrace", &["apitrace-tests", "produced-apitrace-11.1"])
            .into_iter()
            .filter(|(name, _)| name.ends_with(".trace"))
            .collect();
    if files.is_empty() {
        println!("SKIPPED: no apitrace corpus (the made gzip and zstd traces are still run)");
    }
    let stream = stream_of(&big_trace(3));
    files.push(("made.gzip".into(), gzip(&stream)));
    files.push(("made.zstd".into(), zstd(&stream, 50_000, false)));
    files.push(("made.zstd-seekable".into(), zstd(&stream, 50_000, true)));
    let dir = scratch("follow_apitrace", "damaged");
    let path = dir.join("case.trace");
    let out = dir.join("out.json");
    // A fixed sequence of pseudo-random numbers: the same cases every run.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut compared = 0;
    for (name, bytes) in &files {
        let mut cases = vec![bytes.clone()];
        for _ in 0..3 {
            cases.push(bytes[..2 + next(bytes.len() - 2)].to_vec());
            let mut changed = bytes.clone();
            let at = 2 + next(bytes.len() - 2);
            changed[at] ^= 1 << next(8);
            cases.push(changed);
        }
        for case in &cases {
            std::fs::write(&path, case).unwrap();
            for (args, to) in [
                (&["dump"][..], None),
                (&["dump", "--json"][..], None),
                (&["convert", "--to", "chrome"][..], Some(out.as_path())),
            ] {
                let whole = outcome(args, &path, false, to);
                let piped = outcome(args, &path, true, to);
                assert!(
                    whole == piped,
                    "{name} ({} bytes), {args:?}: whole {} {:?}, piped {} {:?}",
                    case.len(),
                    whole.0,
                    whole.1,
                    piped.0,
                    piped.1
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 0);
}

/// The calls of a followed trace are printed as their chunks arrive, not once following stops:
/// with the first chunks written and the rest held back, lines appear; the whole output then
/// equals the whole file's.
#[test]
fn a_followed_trace_is_printed_as_its_chunks_arrive() {
    let bytes = big_trace(40);
    // The first two chunks: the file's magic, then two lengths and blocks.
    let mut at = 2;
    for _ in 0..2 {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 4 + len;
    }
    assert!(at < bytes.len());
    let dir = scratch("follow_apitrace", "live");
    for json in [false, true] {
        let path = dir.join("live.trace");
        let out_path = dir.join("live.out");
        std::fs::write(&path, &bytes[..at]).unwrap();
        let mut args = vec!["dump", "--follow", "--idle", "4"];
        if json {
            args.push("--json");
        }
        args.push(path.to_str().unwrap());
        let early = printed_before_the_rest(&args, &out_path, &path, &bytes[at..]);
        assert!(early > 1, "json {json}: nothing printed while following");
        let whole_args: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| !["--follow", "--idle", "4"].contains(a))
            .collect();
        let expected = run(&whole_args);
        assert!(expected.status.success());
        assert!(
            std::fs::read(&out_path).unwrap() == expected.stdout,
            "json {json}: the followed dump differs from the whole file's"
        );
    }
}

/// A followed gzip or zstd trace is printed as its bytes arrive: with the first half of the
/// file written and the rest held back, lines appear; the whole output then equals the whole
/// file's.
#[test]
fn a_followed_gzip_or_zstd_trace_is_printed_as_it_arrives() {
    let stream = stream_of(&big_trace(40));
    let dir = scratch("follow_apitrace", "live_streams");
    for (name, bytes) in [
        ("gzip", gzip(&stream)),
        ("zstd", zstd(&stream, 100_000, false)),
    ] {
        let at = bytes.len() / 2;
        let path = dir.join(format!("live.{name}.trace"));
        let out_path = dir.join("live.out");
        std::fs::write(&path, &bytes[..at]).unwrap();
        let args = ["dump", "--follow", "--idle", "4", path.to_str().unwrap()];
        let early = printed_before_the_rest(&args, &out_path, &path, &bytes[at..]);
        assert!(early > 1, "{name}: nothing printed while following");
        let expected = run(&["dump", path.to_str().unwrap()]);
        assert!(expected.status.success());
        assert!(
            std::fs::read(&out_path).unwrap() == expected.stdout,
            "{name}: the followed dump differs from the whole file's"
        );
    }
}

/// Runs `tracecap ARGS` (a `dump --follow --idle 4` of `path`, which holds part of a trace) with
/// its output in `out_path`; once it has printed more than one line (or after 3.5 s), appends
/// `rest` to `path`, and waits for it to succeed. The lines it had printed by then.
fn printed_before_the_rest(args: &[&str], out_path: &Path, path: &Path, rest: &[u8]) -> usize {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .stdout(std::fs::File::create(out_path).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let early = loop {
        let lines = std::fs::read(out_path)
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        // Before following stops for want of bytes (`--idle 4`).
        if lines > 1 || started.elapsed() > std::time::Duration::from_millis(3500) {
            break lines;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut file, rest).unwrap();
    drop(file);
    assert!(child.wait().unwrap().success());
    early
}
