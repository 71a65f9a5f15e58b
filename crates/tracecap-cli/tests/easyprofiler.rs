//! The `tracecap` binary on EasyProfiler files: exit codes, error messages, and `dump --json`
//! objects (schema, counts, depths) checked against what the library reads.

use std::path::PathBuf;

mod common;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples")).join(name)
}

fn tracecap(args: &[&str]) -> (i32, String, String) {
    common::tracecap_env(args, &[])
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    common::tmp("ep", name, bytes)
}

#[test]
fn dump_json_objects_follow_the_schema() {
    let path = sample("gen_small.prof");
    let (code, out, err) = tracecap(&["dump", "--json", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let header = &lines[0];
    assert_eq!(header["format"], "easyprofiler");
    assert_eq!(header["version"], "2.1.0");
    assert_eq!(header["pid"], 15499);
    assert_eq!(header["begin_ns"], 301963551849u64);
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(
        keys(header),
        [
            "format",
            "version",
            "pid",
            "cpu_frequency",
            "begin",
            "end",
            "begin_ns",
            "end_ns"
        ]
    );
    let mut counts = std::collections::BTreeMap::new();
    let mut max_depth = 0;
    let bytes = std::fs::read(&path).unwrap();
    let mut last_offset = 0;
    for l in &lines[1..] {
        let kind = l["kind"].as_str().unwrap();
        // Offsets rise through the file; a size-prefixed record's offset is its size field's.
        let offset = l["offset"].as_u64().unwrap();
        assert!(offset > last_offset, "{l}");
        last_offset = offset;
        if kind == "thread" {
            let id = u64::from_le_bytes(bytes[offset as usize..][..8].try_into().unwrap());
            assert_eq!(l["id"], id, "{l}");
        } else if kind != "descriptor" {
            let at = offset as usize;
            let size = u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
            let first = u64::from_le_bytes(bytes[at + 2..][..8].try_into().unwrap());
            let field = ["begin", "time", "position"]
                .iter()
                .find_map(|k| l.get(*k))
                .unwrap();
            assert_eq!(*field, first, "{l}");
            assert!(at + 2 + size <= bytes.len());
        }
        *counts.entry(kind).or_insert(0) += 1;
        let expect: &[&str] = match kind {
            "descriptor" => &[
                "kind", "offset", "id", "line", "color", "type", "status", "name", "file",
            ],
            "thread" => &["kind", "offset", "id", "name"],
            "context_switch" => &[
                "kind",
                "offset",
                "thread",
                "begin",
                "end",
                "begin_ns",
                "end_ns",
                "target_thread",
                "name",
            ],
            "block" | "event" => &[
                "kind", "offset", "thread", "begin", "end", "begin_ns", "end_ns", "id", "name",
                "depth",
            ],
            "value" => &[
                "kind", "offset", "thread", "time", "time_ns", "id", "value_id", "type", "array",
                "data",
            ],
            "bookmark" => &["kind", "offset", "position", "color", "text"],
            other => panic!("unexpected kind {other}"),
        };
        assert_eq!(keys(l), expect, "{l}");
        if let Some(d) = l.get("depth") {
            max_depth = max_depth.max(d.as_u64().unwrap());
        }
        if kind == "value" {
            assert!(l["data"].is_array());
        }
    }
    // gen_small: 28 descriptors, 6 threads, 266 records of which 11 context switches.
    assert_eq!(counts["descriptor"], 28);
    assert_eq!(counts["thread"], 6);
    assert_eq!(counts["context_switch"], 11);
    assert_eq!(
        counts["block"] + counts["event"] + counts["value"] + counts["context_switch"],
        266
    );
    assert_eq!(max_depth, 6, "Worker A nests 7 levels (depth 0..6)");
    // Every data type shows up, with the documented spellings and JSON shapes.
    let values: Vec<&serde_json::Value> = lines.iter().filter(|l| l["kind"] == "value").collect();
    let by_type = |t: &str| values.iter().find(|v| v["type"] == t).copied().unwrap();
    assert_eq!(by_type("Bool")["data"], serde_json::json!([false]));
    assert_eq!(by_type("Char")["data"], serde_json::json!([65]));
    assert_eq!(by_type("Int16")["data"], serde_json::json!([-1000]));
    assert_eq!(
        by_type("Uint32")["data"],
        serde_json::json!([4000000000u64])
    );
    assert!(values
        .iter()
        .any(|v| v["data"] == serde_json::json!(["abc"])));
    assert!(values
        .iter()
        .any(|v| v["data"] == serde_json::json!(["Привет, мир\u{0}"])));
    assert!(values
        .iter()
        .any(|v| v["data"] == serde_json::json!([0.5, -0.25, 0.0])));
}

#[test]
fn info_and_validate_on_every_corpus_file() {
    for name in [
        "sample_small.prof",
        "sample_medium.prof",
        "gen_small.prof",
        "gen_toodeep.prof",
        "gen_bookmarks.prof",
        "sample_v2.0.1.prof",
        "sample_v1.2.0.prof",
        "sample_v1.0.0.prof",
    ] {
        let Some(p) = tracecap_testkit::corpus("easyprofiler").map(|d| d.join(name)) else {
            continue;
        };
        let p = p.to_str().unwrap();
        let (code, out, err) = tracecap(&["validate", p]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.starts_with("ok: easyprofiler"), "{out}");
        let (code, out, _) = tracecap(&["info", "--json", p]);
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["format"], "easyprofiler");
        assert_eq!(v["records"]["total"], v["header_records"], "{name}");
        let (code, text, _) = tracecap(&["info", p]);
        assert_eq!(code, 0);
        assert!(text.contains("threads:"));
    }
}

#[test]
fn bad_files_exit_1_with_an_offset() {
    let good = std::fs::read(sample("sample_small.prof")).unwrap();
    // Cut mid-record: the records before the cut are printed, then the error.
    let cut = tmp("cut.prof", &good[..5000]);
    let (code, out, err) = tracecap(&["dump", "--json", cut.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        "error: truncated record (needs 21 bytes, 6 left) at offset 0x1382"
    );
    assert!(out.lines().count() > 100);
    let (code, _, err2) = tracecap(&["validate", cut.to_str().unwrap()]);
    assert_eq!((code, err2.as_str()), (1, err.as_str()));

    let empty = tmp("empty.prof", b"");
    let (code, _, err) = tracecap(&["validate", empty.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("at offset 0x0"), "{err}");

    let junk = tmp("junk.bin", b"hello world, not a capture");
    let (code, _, err) = tracecap(&["info", junk.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("unknown format") && err.contains("at offset 0x0"),
        "{err}"
    );

    let mut bad_magic_tail = good.clone();
    let n = bad_magic_tail.len();
    bad_magic_tail[n - 1] ^= 0xff; // the end signature
    let p = tmp("sig.prof", &bad_magic_tail);
    let (code, _, err) = tracecap(&["validate", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains(&format!("at offset {:#x}", n - 4)), "{err}");

    let (code, _, _) = tracecap(&["validate", "/nonexistent/file.prof"]);
    assert_eq!(code, 2);
    let (code, _, _) = tracecap(&["frobnicate"]);
    assert_eq!(code, 2);
    for p in [cut, empty, junk, p] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn text_dump_is_indented_by_depth() {
    let path = sample("gen_small.prof");
    let (code, out, _) = tracecap(&["dump", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("thread 15500 \"Worker A\""));
    // the deepest "recurse" of Worker A sits 6 levels in: 2 + 12 spaces of indent
    assert!(out
        .lines()
        .any(|l| l.starts_with(&format!("{}block \"recurse\"", " ".repeat(14)))));
    assert!(out.contains("value \"v_text_utf8\" String array"));
}

/// The JSON lines of `dump --json` of `path`, its exit code and the offset its error names.
fn dump_json(path: &std::path::Path) -> (i32, Vec<String>, Option<u64>) {
    let (code, out, err) = tracecap(&["dump", "--json", path.to_str().unwrap()]);
    let offset = err
        .rsplit_once("at offset 0x")
        .map(|(_, hex)| u64::from_str_radix(hex.trim(), 16).unwrap());
    (code, out.lines().map(str::to_owned).collect(), offset)
}

/// A bundled sample cut at the start and middle of records, inside thread heads and the trailer,
/// and at seeded random points: `dump --json` prints the whole file's lines up to the cut, every
/// record whose next record starts at or before the cut among them, then exits 1 naming an offset
/// within the cut file. The one difference allowed: the `depth` of a record of the thread the cut
/// falls in (its enclosing records come after it in the file). `info --json` counts exactly the
/// lines printed and names the same fault.
#[test]
fn cut_files_dump_every_record_before_the_cut() {
    let mut rng = tracecap_testkit::Rng(0xC07_0017);
    for name in ["gen_small.prof", "sample_small.prof"] {
        let bytes = std::fs::read(sample(name)).unwrap();
        let (code, whole, _) = dump_json(&sample(name));
        assert_eq!(code, 0);
        let parsed: Vec<serde_json::Value> = whole
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let offsets: Vec<u64> = parsed[1..]
            .iter()
            .map(|l| l["offset"].as_u64().unwrap())
            .collect();
        let mut cuts: Vec<u64> = offsets
            .iter()
            .step_by(7)
            .flat_map(|&o| [o, o + 1, o + 5])
            .collect();
        cuts.extend((0..30).map(|_| rng.next_u64() % bytes.len() as u64));
        cuts.push(bytes.len() as u64 - 1);
        for cut in cuts {
            let p = tmp(&format!("cut-{cut}-{name}"), &bytes[..cut as usize]);
            let (code, part, fault) = dump_json(&p);
            assert_eq!(code, 1, "{name} cut at {cut}");
            let fault = fault.unwrap();
            assert!(fault <= cut, "{name} cut at {cut}: fault at {fault:#x}");
            // Record lines after the header whose next record starts at or before the cut.
            let must = offsets.windows(2).take_while(|w| w[1] <= cut).count();
            // The header line, once the header is whole (the first descriptor follows it).
            let header = usize::from(cut >= offsets[0]);
            assert!(
                part.len() >= header + must,
                "{name} cut at {cut}: {} lines",
                part.len()
            );
            let last_thread = part
                .iter()
                .rposition(|l| l.starts_with("{\"kind\":\"thread\""))
                .unwrap_or(part.len());
            for (i, line) in part.iter().enumerate() {
                if *line == whole[i] {
                    continue;
                }
                let mut a: serde_json::Value = serde_json::from_str(line).unwrap();
                let mut b = parsed[i].clone();
                a.as_object_mut().unwrap().remove("depth");
                b.as_object_mut().unwrap().remove("depth");
                assert!(
                    a == b && i > last_thread,
                    "{name} cut at {cut}: line {i}\n{line}\n{}",
                    whole[i]
                );
            }
            let (code, out, _) = tracecap(&["info", "--json", p.to_str().unwrap()]);
            assert_eq!(code, 1);
            if header == 0 {
                let _ = std::fs::remove_file(p);
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let kinds = |k: &[&str]| {
                part.iter()
                    .filter(|l| k.iter().any(|k| l.contains(&format!("{{\"kind\":\"{k}\""))))
                    .count() as u64
            };
            assert_eq!(
                v["descriptors"],
                kinds(&["descriptor"]),
                "{name} cut at {cut}"
            );
            assert_eq!(
                v["threads"].as_array().unwrap().len() as u64,
                kinds(&["thread"])
            );
            assert_eq!(
                v["records"]["total"],
                kinds(&["block", "event", "value", "context_switch"]),
                "{name} cut at {cut}"
            );
            assert_eq!(v["bookmarks"], kinds(&["bookmark"]));
            assert_eq!(v["error"]["offset"], fault, "{name} cut at {cut}");
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The corpus files older than 2.1 (no thread count, no end signature) cut at the start of each
/// thread: every command exits 1 naming the header's missing records at the end of the cut file
/// (the validation on one thread, on two, and with the back worker first alike), after printing
/// every line of the whole file before the cut.
#[test]
fn old_files_cut_between_threads_fail_in_every_command() {
    for name in [
        "sample_v1.0.0.prof",
        "sample_v1.2.0.prof",
        "sample_v2.0.1.prof",
    ] {
        let Some(path) = tracecap_testkit::corpus("easyprofiler").map(|d| d.join(name)) else {
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        let (code, whole, _) = dump_json(&path);
        assert_eq!(code, 0, "{name}");
        let stated = serde_json::from_str::<serde_json::Value>(
            &tracecap(&["info", "--json", path.to_str().unwrap()]).1,
        )
        .unwrap()["header_records"]
            .as_u64()
            .unwrap();
        let starts: Vec<u64> = whole
            .iter()
            .filter(|l| l.starts_with("{\"kind\":\"thread\""))
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["offset"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert!(starts.len() >= 2, "{name}");
        for (threads, &cut) in starts.iter().enumerate() {
            let p = tmp(&format!("thread-cut-{cut}-{name}"), &bytes[..cut as usize]);
            let file = p.to_str().unwrap();
            let (code, part, fault) = dump_json(&p);
            assert_eq!((code, fault), (1, Some(cut)), "{name} cut at {cut}");
            let before = whole
                .iter()
                .position(|l| l.starts_with(&format!("{{\"kind\":\"thread\",\"offset\":{cut},")))
                .unwrap();
            assert_eq!(part[..], whole[..before], "{name} cut at {cut}");
            let read = part
                .iter()
                .filter(|l| {
                    ["block", "event", "value", "context_switch"]
                        .iter()
                        .any(|k| l.starts_with(&format!("{{\"kind\":\"{k}\"")))
                })
                .count();
            let want = format!(
                "error: the file ends after {read} of the header's {stated} records at offset {cut:#x}\n"
            );
            let out = p.with_extension("json");
            let out = out.to_str().unwrap();
            let runs = [
                (vec!["validate", file], "1"),
                (vec!["validate", file], "2"),
                (vec!["validate", file], "back-first"),
                (vec!["info", file], "1"),
                (vec!["info", "--json", file], "1"),
                (vec!["dump", file], "1"),
                (vec!["dump", "--json", file], "1"),
                (vec!["convert", file, "-o", out, "--to", "chrome"], "1"),
            ];
            for (args, threads) in runs {
                let (code, _, err) = common::tracecap_env(&args, &[("TRACECAP_THREADS", threads)]);
                assert_eq!(
                    (code, err.lines().last().map(|l| format!("{l}\n"))),
                    (1, Some(want.clone())),
                    "{name} cut at {cut}: {args:?} on {threads} thread(s)"
                );
            }
            let (_, info, _) = tracecap(&["info", "--json", file]);
            let v: serde_json::Value = serde_json::from_str(&info).unwrap();
            assert_eq!(v["records"]["total"], read as u64, "{name} cut at {cut}");
            assert_eq!(v["threads"].as_array().unwrap().len(), threads);
            assert_eq!(v["error"]["offset"], cut);
            let _ = std::fs::remove_file(out);
            let _ = std::fs::remove_file(&p);
        }
    }
}
