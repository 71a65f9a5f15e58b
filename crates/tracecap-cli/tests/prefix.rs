//! Nothing lost before a fault, as a user sees it: `tracecap dump --json` of a prefix of any
//! capture prints the record lines that the whole file prints, identical and in order, up to the
//! fault; it prints every record whose bytes lie wholly before the cut; and it ends with exit 1
//! and an error naming an offset no later than the cut (or exit 0 where the prefix is itself a
//! whole capture).
//!
//! EasyProfiler's `depth` (the number of blocks around a record) is the one value that depends on
//! bytes after the record: a thread's records are stored as they end, children before the blocks
//! around them. In the thread a cut falls in it counts only the enclosing blocks read before the
//! cut, so it is left out of the comparison.
//!
//! A record's bytes are known to lie before the cut when another record starts after it and at
//! or before the cut (records do not overlap). apitrace's `offset` is a position in the
//! decompressed stream, so for apitrace only the first rule is checked here; its crate's
//! robustness test checks each container.
//!
//! The tool runs in this process ([`tracecap_cli::main_with`]), on every capture at hand: the
//! corpus when it is there, and the bundled samples.

use tracecap_testkit::Rng;

mod common;
use common::{captures, on_two_threads, tmp};

/// Cuts at record starts and middles for the first records, and seeded random ones.
const RECORD_CUTS: usize = 24;
const RANDOM_CUTS: usize = 24;

/// Exit code, stdout lines and the last stderr line of `tracecap dump --json path`.
fn dump_json(path: &std::path::Path) -> (u8, Vec<String>, String) {
    let argv = ["tracecap", "dump", path.to_str().unwrap(), "--json"];
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = tracecap_cli::main_with(argv.iter().map(Into::into), &mut out, &mut err);
    let out = String::from_utf8(out).unwrap();
    let err = String::from_utf8_lossy(&err);
    let last = err.lines().last().unwrap_or_default().to_owned();
    (code, out.lines().map(str::to_owned).collect(), last)
}

/// The top-level `offset` of a record line (the file's first line describes the file and has
/// none).
fn offset_of(line: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v.get("offset").and_then(serde_json::Value::as_u64)
}

/// The offset named by an error line: `... at offset 0x..`.
fn fault_offset(line: &str) -> Option<u64> {
    let (_, hex) = line.rsplit_once(" at offset 0x")?;
    u64::from_str_radix(hex, 16).ok()
}

/// A line cut to a length that keeps a report readable.
fn short(line: &str) -> &str {
    line.get(..240).unwrap_or(line)
}

/// Whether two EasyProfiler record lines are the same record, `depth` aside (see the module's
/// docs).
fn same_but_depth(a: &str, b: &str) -> bool {
    let parse = |l: &str| serde_json::from_str::<serde_json::Value>(l).unwrap();
    let (mut a, mut b) = (parse(a), parse(b));
    for v in [&mut a, &mut b] {
        if let Some(o) = v.as_object_mut() {
            o.remove("depth");
        }
    }
    a == b
}

/// Whether `got`, the last line of a cut file's dump, is the zero run `whole` cut short: the
/// one record that describes the bytes up to the cut, whatever their number (syscall_capture's
/// `gap`).
fn shortened_zero_run(got: &str, whole: &str) -> bool {
    let parse = |l: &str| serde_json::from_str::<serde_json::Value>(l).unwrap();
    let (g, w) = (parse(got), parse(whole));
    g["kind"] == "gap" && w["kind"] == "gap" && g["offset"] == w["offset"]
}

/// Checks the cuts of one capture; returns what went wrong.
fn check(name: &str, bytes: &[u8], seed: u64) -> Vec<String> {
    let mut bad = Vec::new();
    let whole_path = tmp("prefix", &name.replace('/', "_"), bytes);
    let (code, whole, last) = dump_json(&whole_path);
    let _ = std::fs::remove_file(&whole_path);
    if code > 1 {
        return vec![format!("{name}: the whole file: exit {code}: {last}")];
    }
    let file_offsets = !name.starts_with("apitrace/");
    let prof = name.ends_with(".prof");
    let offsets: Vec<Option<u64>> = whole.iter().map(|l| offset_of(l)).collect();
    let records = offsets.iter().skip(1);
    if let Some(i) = records.clone().position(Option::is_none) {
        bad.push(format!(
            "{name}: line {} has no offset: {}",
            i + 2,
            short(&whole[i + 1])
        ));
        return bad;
    }
    let starts: Vec<u64> = records.flatten().copied().collect();

    let mut rng = Rng(seed | 1);
    let mut cuts: Vec<u64> = Vec::new();
    if file_offsets {
        for pair in starts.windows(2).take(RECORD_CUTS) {
            cuts.extend([pair[0], (pair[0] + pair[1]) / 2, pair[1]]);
        }
    }
    cuts.extend((0..RANDOM_CUTS).map(|_| rng.next_u64() % bytes.len().max(1) as u64));
    cuts.retain(|&c| c < bytes.len() as u64);
    cuts.sort_unstable();
    cuts.dedup();

    let path = tmp("prefix-cut", &name.replace('/', "_"), bytes);
    for cut in cuts {
        std::fs::write(&path, &bytes[..cut as usize]).unwrap();
        let (code, got, last) = dump_json(&path);
        let at = format!("{name} cut at {cut:#x}");
        // The first line describes the file (Orbit's gives where the capture section ends, which
        // a cut moves); the record lines follow it.
        let lines = got.iter().zip(&whole).skip(1);
        let same = |a: &String, b: &String| a == b || (prof && same_but_depth(a, b));
        if let Some(i) = lines.clone().position(|(a, b)| !same(a, b)).map(|i| i + 1) {
            if !(i + 1 == got.len() && shortened_zero_run(&got[i], &whole[i])) {
                let (a, b) = (short(&got[i]), short(&whole[i]));
                bad.push(format!("{at}: line {} differs:\n  {a}\n  {b}", i + 1));
                continue;
            }
        }
        if got.len() > whole.len() {
            bad.push(format!("{at}: more lines than the whole file"));
            continue;
        }
        match (code, fault_offset(&last)) {
            (0, _) => {}
            (1, Some(o)) if !file_offsets || o <= cut => {}
            _ => {
                bad.push(format!("{at}: exit {code}: {last}"));
                continue;
            }
        }
        if file_offsets {
            // Every record that starts before the last record start at or before the cut.
            let last_start = starts.iter().filter(|&&s| s <= cut).max();
            let must = last_start.map_or(0, |&m| starts.iter().filter(|&&s| s < m).count());
            let printed = got.len().saturating_sub(1);
            if printed < must {
                bad.push(format!(
                    "{at}: {printed} records, expected at least {must}; the first missing: {}",
                    short(&whole[printed + 1])
                ));
            }
        }
    }
    let _ = std::fs::remove_file(&path);
    bad
}

#[test]
fn dump_json_of_a_prefix_prints_what_the_whole_file_prints_before_the_cut() {
    let files = captures();
    let bad: Vec<String> = on_two_threads(&files, |i, (name, bytes)| {
        check(name, bytes, 0x5eed_0170 + i as u64)
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
