//! A WTF capture on standard input is dumped and converted as it arrives, in bounded memory:
//! a chunked capture three times the 64 MiB the data segment is allowed, whose events keep the
//! converter's reorder queues full, piped through `-` gives the dump and the trace of the whole
//! file.

use std::path::Path;
use std::process::Command;

/// Flags of the built-in definitions (as the C++ recorder writes them).
const BUILTIN: u32 = 40;

/// One event chunk being written: its string table and its event words.
#[derive(Default)]
struct Chunk {
    strings: Vec<u8>,
    count: u32,
    events: Vec<u8>,
}

impl Chunk {
    /// The ordinal of a new string `s` in the chunk's table.
    fn string(&mut self, s: &str) -> u32 {
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        self.count += 1;
        self.count - 1
    }

    /// An event: wire id, time, then argument slots.
    fn event(&mut self, wire: u32, time: u32, slots: &[u32]) {
        for word in [wire, time].iter().chain(slots) {
            self.events.extend_from_slice(&word.to_le_bytes());
        }
    }

    /// A `wtf.event#define` (wire id 1).
    fn define(&mut self, wire: u32, class: u32, flags: u32, name: &str, signature: &str) {
        let (name, signature) = (self.string(name), self.string(signature));
        self.event(1, 0, &[wire, class, flags, name, signature]);
    }
}

/// Appends a chunk of type `kind` with `parts` (type, body) to `out`.
fn chunk(out: &mut Vec<u8>, kind: u32, parts: &[(u32, &[u8])]) {
    let table = 24 + 12 * parts.len();
    let mut bodies = Vec::new();
    let mut entries = Vec::new();
    for (ty, body) in parts {
        entries.extend([*ty, bodies.len() as u32, body.len() as u32]);
        bodies.extend_from_slice(body);
        bodies.resize(bodies.len().next_multiple_of(4), 0);
    }
    let len = (table + bodies.len()) as u32;
    for word in [2, kind, len, 0xFFFF_FFFF, 0xFFFF_FFFF, parts.len() as u32]
        .into_iter()
        .chain(entries)
    {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&bodies);
}

/// A chunked capture of at least `size` bytes, written word by word (format 10, as
/// docs/wtf.md describes it): two zones, each iteration a scope (`Work#run`) around an
/// instance event (`Work#tick`, with 192 characters and a string), four microseconds apart,
/// a third of the ticks one microsecond late. A chunk holds 4096 iterations; 2 s of them fall
/// in the converter's reorder window, so its queues stay full.
fn big_capture(size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for word in [0xDEAD_BEEFu32, 0xE821_4400, 10] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    chunk(&mut out, 1, &[(0x10000, br#"{"type":"file_header"}"#)]);
    let mut c = Chunk::default();
    c.define(2, 0, BUILTIN, "wtf.scope#leave", "");
    let zone_args = "uint16 zoneId, ascii name, ascii type, ascii location";
    c.define(3, 0, BUILTIN, "wtf.zone#create", zone_args);
    c.define(4, 0, BUILTIN, "wtf.zone#set", "uint16 zoneId");
    c.define(5, 1, 0, "Work#run", "uint32 n, ascii what");
    c.define(6, 0, 0, "Work#tick", "char[] data, utf8 note");
    for zone in 1..=2u32 {
        let (name, at) = (
            c.string(&format!("worker {zone}")),
            c.string("follow_wtf.rs"),
        );
        c.event(3, 0, &[zone, name, u32::MAX, at]);
    }
    let mut array = vec![192u32];
    array.extend((0..48u32).map(|i| u32::from_le_bytes([b'a' + (i % 26) as u8, b'-', b'0', b' '])));
    let notes = ["start", "middle", "end", "again"];
    let mut k = 0u32;
    while out.len() < size {
        let ordinals: Vec<u32> = notes.iter().map(|n| c.string(n)).collect();
        for _ in 0..4096 {
            let t = 10 + k * 4;
            c.event(4, t, &[1 + k % 2]);
            c.event(5, t, &[k, ordinals[(k % 3) as usize]]);
            let mut tick = array.clone();
            tick.push(ordinals[(k % 4) as usize]);
            c.event(6, t + 1 - (k % 3).min(1), &tick);
            c.event(2, t + 2, &[]);
            k += 1;
        }
        let done = std::mem::take(&mut c);
        chunk(
            &mut out,
            2,
            &[(0x30000, &done.strings), (0x20002, &done.events)],
        );
    }
    out
}

/// Runs `script` with bash (`-o pipefail`); its standard output, trimmed. Fails the test when
/// the script does.
fn bash(script: &str) -> String {
    let out = Command::new("bash")
        .args(["-o", "pipefail", "-c", script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `tracecap ARGS` under a 64 MiB data segment when `limited`, its standard output hashed.
fn hashed(args: &str, input: Option<&Path>, limited: bool) -> String {
    let limit = if limited { "ulimit -d 65536; " } else { "" };
    let bin = env!("CARGO_BIN_EXE_tracecap");
    let script = match input {
        Some(input) => format!("{limit}cat '{}' | {bin} {args} | md5sum", input.display()),
        None => format!("{limit}{bin} {args} | md5sum"),
    };
    bash(&script)
}

#[test]
fn a_wtf_stream_is_dumped_and_converted_in_bounded_memory() {
    let bytes = big_capture(3 * (64 << 20));
    assert!(bytes.len() > 3 * (64 << 20), "{}", bytes.len());
    let dir = tracecap_testkit::TempDir::new("follow_wtf-pipe");
    let path = dir.join("big.wtf-trace");
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    let file = path.display().to_string();

    // Dumped from the pipe, line by line as the whole file's dump.
    let whole = hashed(&format!("dump '{file}'"), None, false);
    let piped = hashed("dump -", Some(&path), true);
    assert_eq!(piped, whole, "dump");

    // Converted from the pipe in the same memory, to the trace the whole file gives.
    let whole = hashed(
        &format!("convert '{file}' -o - --to perfetto --quiet"),
        None,
        false,
    );
    let piped = hashed("convert - -o - --to perfetto --quiet", Some(&path), true);
    assert_eq!(piped, whole, "convert");
}

#[test]
fn a_followed_capture_shows_its_events_while_the_rest_is_awaited() {
    // Two chunks of events, the first written whole and 100 bytes of the second: a chunk's
    // events are read once the chunk is whole.
    let one = big_capture(200);
    let bytes = big_capture(one.len() + 1);
    assert_eq!(bytes[..one.len()], one[..]);
    let cut = one.len() + 100;
    let dir = tracecap_testkit::TempDir::new("follow-wtf-shows");
    let part = dir.join("part.wtf-trace");
    std::fs::write(&part, &one).unwrap();
    // What `dump` prints of the whole chunks written so far.
    let out = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .arg("dump")
        .arg(&part)
        .output()
        .unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    let expected: Vec<&str> = printed.lines().collect();
    assert!(expected.len() > 1000, "{} lines", expected.len());

    let path = dir.join("growing.wtf-trace");
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(["dump", "--follow", "--idle", "30"])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    // Every line of the first chunk shows while the file waits for the rest of the second.
    let mut got = Vec::new();
    while got.len() < expected.len() {
        match rx.recv_timeout(std::time::Duration::from_secs(15)) {
            Ok(line) => got.push(line),
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        got.len(),
        expected.len(),
        "lines shown while the rest of the file is awaited"
    );
    assert!(got.iter().zip(&expected).all(|(a, b)| a == b));
}
