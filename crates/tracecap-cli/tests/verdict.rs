//! One verdict per file: `validate`, `info`, `info --json`, `dump`, `dump --json` and `convert`
//! (both exporters) agree on every damaged copy of every capture: the same exit code, and for a
//! bad capture the same fault offset. `validate` is the strictest command, so a file it accepts is
//! accepted by all of them.
//!
//! The damaged copies: seeded single- and multi-byte mutations of every corpus file and bundled
//! sample (at least 2,000 when the corpus is there), a seeded set of cuts of each, and every cut
//! of the small files. The tool runs in this process ([`tracecap_cli::main_with`]), two files at a
//! time.

use std::path::Path;

use tracecap_testkit::Rng;

mod common;
use common::{captures, on_two_threads};

/// The commands that must agree; convert writes to standard output (here a buffer).
const COMMANDS: [&[&str]; 7] = [
    &["validate"],
    &["info"],
    &["info", "--json"],
    &["dump"],
    &["dump", "--json"],
    &["convert", "-o", "-", "--to", "chrome", "--quiet"],
    &["convert", "-o", "-", "--to", "perfetto", "--quiet"],
];

/// Files up to this size are also cut at every byte.
const SMALL: usize = 2048;

/// Mutations per file: fewer for the big files, whose every command takes longer.
fn mutations(len: usize) -> usize {
    if len > 256 << 10 {
        16
    } else {
        56
    }
}

/// The damaged copies of `bytes`, each with a short description.
fn damaged(bytes: &[u8], seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    let len = bytes.len();
    if len == 0 {
        return out;
    }
    for _ in 0..mutations(len) {
        let mut copy = bytes.to_vec();
        // Half the changes fall in the first 4 KiB, where the headers and tables are.
        let span = if rng.below(2) == 0 {
            len.min(4096)
        } else {
            len
        };
        let n = 1 + rng.below(4);
        let mut what = String::from("set");
        for _ in 0..n {
            let at = rng.below(span);
            let value = rng.below(256) as u8;
            if let Some(b) = copy.get_mut(at) {
                *b = value;
            }
            what.push_str(&format!(" {at:#x}={value:#04x}"));
        }
        out.push((what, copy));
    }
    let cuts: Vec<usize> = if len <= SMALL {
        (0..len).collect()
    } else {
        (0..mutations(len) / 2).map(|_| rng.below(len)).collect()
    };
    for cut in cuts {
        out.push((
            format!("cut at {cut:#x}"),
            bytes.get(..cut).unwrap().to_vec(),
        ));
    }
    out
}

/// The exit code and the fault offset (from `error: ... at offset 0x..`) of one command.
fn verdict(args: &[&str], path: &Path) -> (u8, Option<u64>, String) {
    let mut argv = vec!["tracecap"];
    argv.extend(args.iter().take(1));
    argv.push(path.to_str().unwrap());
    argv.extend(args.iter().skip(1));
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = tracecap_cli::main_with(argv.iter().map(Into::into), &mut out, &mut err);
    let err = String::from_utf8_lossy(&err).into_owned();
    let last = err.lines().last().unwrap_or_default().to_owned();
    let offset = last
        .rsplit_once(" at offset 0x")
        .and_then(|(_, hex)| u64::from_str_radix(hex, 16).ok());
    (code, offset, last)
}

/// Checks every damaged copy of one capture; returns the disagreements found.
fn check(name: &str, bytes: &[u8], seed: u64, dir: &Path) -> (usize, Vec<String>) {
    let mut bad = Vec::new();
    let copies = damaged(bytes, seed);
    let path = dir.join(name.replace('/', "_"));
    for (what, copy) in &copies {
        std::fs::write(&path, copy).unwrap();
        let verdicts: Vec<_> = COMMANDS.iter().map(|c| verdict(c, &path)).collect();
        let (code, offset, _) = &verdicts[0];
        let agree = verdicts
            .iter()
            .all(|(c, o, _)| c == code && o == offset && *c != 2 && (*c == 0 || o.is_some()));
        if !agree {
            let mut report = format!("{name} ({what}):");
            for (cmd, (c, _, line)) in COMMANDS.iter().zip(&verdicts) {
                report.push_str(&format!("\n    {:<28} exit {c}  {line}", cmd.join(" ")));
            }
            bad.push(report);
        }
    }
    let _ = std::fs::remove_file(&path);
    (copies.len(), bad)
}

fn scratch() -> tracecap_testkit::TempDir {
    tracecap_testkit::TempDir::new("verdict")
}

#[test]
fn every_command_gives_the_same_verdict_on_damaged_captures() {
    let files = captures();
    let dir = scratch();
    let results = on_two_threads(&files, |i, (name, bytes)| {
        check(name, bytes, 0x5eed_0000 + i as u64, &dir)
    });
    let _ = std::fs::remove_dir_all(&dir);
    let checked: usize = results.iter().map(|(n, _)| n).sum();
    let bad: Vec<String> = results.into_iter().flat_map(|(_, bad)| bad).collect();
    if files.len() > 2 {
        assert!(checked >= 2000, "only {checked} damaged copies");
    }
    // The first disagreement of each capture, and how many it has.
    let mut per_file: Vec<(String, usize, &String)> = Vec::new();
    for report in &bad {
        let name = report.split(" (").next().unwrap_or_default().to_owned();
        match per_file.iter_mut().find(|(n, _, _)| *n == name) {
            Some(entry) => entry.1 += 1,
            None => per_file.push((name, 1, report)),
        }
    }
    let shown: Vec<String> = per_file
        .iter()
        .map(|(name, n, first)| format!("{name}: {n} copies; the first:\n  {first}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {checked} damaged copies get different verdicts:\n{}",
        bad.len(),
        shown.join("\n")
    );
}
