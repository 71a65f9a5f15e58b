//! `tracecap convert --to pprof`: the target chosen by name and by extension, the profile the
//! command writes equal to the library's, the summary's stacks, and a capture without stacks
//! giving its calls' self time.

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
