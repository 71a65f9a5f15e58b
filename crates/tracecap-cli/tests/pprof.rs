//! `tracecap convert --to pprof`: the target chosen by name and by extension, the profile the
//! command writes equal to the library's, the summary's stacks, a capture without stacks
//! giving its calls' self time, and `go tool pprof` (the reference reader; skipped without Go)
//! reading every profile back with the same stacks and counts.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output};

use prost::Message;
use tracecap::export::{pprof_proto as pb, Pprof};

fn tracecap(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .output()
        .expect("run tracecap")
}

fn decode(gz: &[u8]) -> pb::Profile {
    assert_eq!(gz.get(..2), Some(&[0x1f, 0x8b][..]), "gzip magic");
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut bytes)
        .expect("gzip");
    pb::Profile::decode(bytes.as_slice()).expect("a Profile")
}

fn sample_type(p: &pb::Profile) -> (String, String) {
    let t = &p.sample_type[0];
    let s = |i: i64| p.string_table[i as usize].clone();
    (s(t.r#type), s(t.unit))
}

#[test]
fn orbit_captures_convert_to_the_librarys_profile() {
    let files = tracecap_testkit::corpus_paths("orbit", &["real"], "orbit");
    if files.is_empty() {
        println!("SKIPPED: no Orbit corpus");
        return;
    }
    let dir = tracecap_testkit::TempDir::new("pprof-cli");
    let mut with_samples = 0;
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let mut sink = Pprof::new(Vec::new());
        // A capture Orbit's reader rejects (the legacy layout) is not compared.
        let Ok(stats) = tracecap::convert(tracecap::Format::Orbit, &data, &mut sink) else {
            continue;
        };
        let want = decode(&sink.finish().unwrap());
        let f = file.to_str().unwrap();
        for (name, to) in [
            ("a.pb.gz", None),
            ("b.pprof", None),
            ("c.bin", Some("pprof")),
        ] {
            let out = dir.join(name);
            let mut args = vec!["convert", f, "-o", out.to_str().unwrap()];
            args.extend(to.iter().flat_map(|t| ["--to", t]));
            let run = tracecap(&args);
            assert!(run.status.success(), "{f}: {run:?}");
            let summary = String::from_utf8_lossy(&run.stderr);
            let line = format!(
                "stacks:   {} samples of {} stacks",
                stats.stack_samples, stats.stacks
            );
            assert!(summary.contains(&line), "{f}: {summary}");
            let got = decode(&std::fs::read(&out).unwrap());
            assert_eq!(got, want, "{f} -> {name}");
        }
        let piped = tracecap(&["convert", f, "-o", "-", "--to", "pprof", "--quiet"]);
        assert!(piped.status.success());
        assert_eq!(decode(&piped.stdout), want, "{f} to standard output");
        if !want.sample.is_empty() {
            assert_eq!(sample_type(&want), ("samples".into(), "count".into()));
            with_samples += 1;
        }
    }
    assert!(with_samples > 0, "no Orbit capture with samples");
}

#[test]
fn a_capture_without_stacks_gives_its_calls_self_time() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_small.prof");
    let dir = tracecap_testkit::TempDir::new("pprof-cli-calls");
    let out = dir.join("calls.pb.gz");
    let run = tracecap(&[
        "convert",
        file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(run.status.success(), "{run:?}");
    let summary: serde_json::Value = serde_json::from_slice(&run.stderr).unwrap();
    assert_eq!(summary["to"], "pprof");
    assert_eq!(summary["stack_samples"], 0);
    let p = decode(&std::fs::read(&out).unwrap());
    assert_eq!(sample_type(&p), ("wall".into(), "nanoseconds".into()));
    assert!(!p.sample.is_empty());
    let total: i64 = p.sample.iter().map(|s| s.value[0]).sum();
    assert!(total > 0);
    let span = i64::try_from(summary["span_ns"].as_u64().unwrap()).unwrap();
    let threads = summary["threads"].as_i64().unwrap();
    assert!(
        total <= span * threads,
        "self time {total} within {threads} threads' span"
    );
    for s in &p.sample {
        assert!(s.value[0] > 0);
        assert!(!s.location_id.is_empty());
        assert!(s
            .label
            .iter()
            .any(|l| p.string_table[l.key as usize] == "thread"));
    }
}

/// `go tool pprof -raw`'s samples: each sample's count and its functions, innermost first.
fn go_pprof_samples(profile: &Path) -> Option<Vec<(i64, Vec<String>)>> {
    let out = Command::new("go")
        .args(["tool", "pprof", "-raw"])
        .arg(profile)
        .env("PPROF_TMPDIR", std::env::temp_dir())
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // After `Samples:` and the sample type's line, a sample is `count: loc loc ...`, then its
    // labels; the locations are listed after `Locations` as `id: 0xaddr name ...`.
    let (samples, rest) = text.split_once("Locations").expect("a Locations section");
    let mut names = std::collections::HashMap::new();
    for line in rest.lines().skip(1) {
        let Some((id, what)) = line.trim().split_once(": ") else {
            break;
        };
        let Ok(id) = id.parse::<u64>() else { break };
        // `0xADDR [M=n] name file:line s=0`, with the name as written in parentheses after
        // `s=0` when pprof demangled it.
        let (what, system) = what.rsplit_once(" s=").expect("s=");
        let written = system
            .split_once('(')
            .and_then(|(_, n)| n.strip_suffix(')'));
        let what = what.split_once(' ').map_or("", |(_, rest)| rest);
        let what = what
            .strip_prefix("M=")
            .map_or(what, |m| m.split_once(' ').map_or("", |(_, rest)| rest));
        let shown = what.rsplit_once(' ').map_or(what, |(name, _file)| name);
        names.insert(id, written.unwrap_or(shown).to_owned());
    }
    let mut out = Vec::new();
    for line in samples
        .lines()
        .skip_while(|l| !l.starts_with("Samples:"))
        .skip(2)
    {
        let Some((count, locs)) = line.trim().split_once(": ") else {
            continue;
        };
        let Ok(count) = count.trim().parse::<i64>() else {
            continue;
        };
        let frames = locs
            .split_whitespace()
            .map(|l| names[&l.parse::<u64>().unwrap()].clone())
            .collect();
        out.push((count, frames));
    }
    Some(out)
}

#[test]
fn go_tool_pprof_reads_the_profiles() {
    if Command::new("go").arg("version").output().is_err() {
        println!("SKIPPED: no go (apt-get install golang-go) for go tool pprof");
        return;
    }
    let mut files: Vec<std::path::PathBuf> =
        tracecap_testkit::corpus_paths("orbit", &["real"], "orbit");
    files.extend(tracecap_testkit::corpus_paths("apitrace", &[], "trace"));
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample_small.prof"));
    let dir = tracecap_testkit::TempDir::new("pprof-go");
    let mut read = 0;
    for file in &files {
        let out = dir.join("p.pb.gz");
        let run = tracecap(&[
            "convert",
            file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        if !run.status.success() {
            continue;
        }
        let want = decode(&std::fs::read(&out).unwrap());
        let got = go_pprof_samples(&out).expect("go tool pprof runs");
        // The same samples, in order, with the same counts and functions.
        let s = |i: i64| want.string_table[i as usize].clone();
        let functions: std::collections::HashMap<u64, String> =
            want.function.iter().map(|f| (f.id, s(f.name))).collect();
        let locations: std::collections::HashMap<u64, String> = want
            .location
            .iter()
            .map(|l| (l.id, functions[&l.line[0].function_id].clone()))
            .collect();
        let expected: Vec<(i64, Vec<String>)> = want
            .sample
            .iter()
            .map(|x| {
                let frames = x.location_id.iter().map(|l| locations[l].clone()).collect();
                (x.value[0], frames)
            })
            .collect();
        // go tool pprof merges the samples of one stack and labels: compare counts per stack.
        let per_stack = |samples: &[(i64, Vec<String>)]| {
            let mut m = std::collections::BTreeMap::<Vec<String>, i64>::new();
            for (count, frames) in samples {
                *m.entry(frames.clone()).or_default() += count;
            }
            m
        };
        assert_eq!(per_stack(&got), per_stack(&expected), "{}", file.display());
        println!(
            "{}: {} stacks read back",
            file.display(),
            per_stack(&got).len()
        );
        read += 1;
    }
    assert!(read > 0);
}
