//! `tracecap convert` on every EasyProfiler corpus file: exit codes, the summary, and the Trace
//! Event rules on the JSON it writes (every B has its E on the same thread, in order; X durations
//! non-negative; metadata names every thread and process that has events).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use tracecap_testkit::corpus_paths;

fn tracecap(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .output()
        .expect("run tracecap")
}

/// The `--json` summary, the first line of standard error (a fault's message may follow it).
fn summary_of(out: &Output) -> Value {
    let first = out.stderr.split(|&b| b == b'\n').next().unwrap_or_default();
    serde_json::from_slice(first)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn out_dir(name: &str) -> tracecap_testkit::TempDir {
    tracecap_testkit::TempDir::new(&format!("convert-test-{name}"))
}

/// Checks the Trace Event rules; returns (slices, instants, counter samples).
fn check_chrome(path: &Path) -> (u64, u64, u64) {
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let mut stacks: HashMap<(u64, u64), Vec<f64>> = HashMap::new();
    let mut named_threads = HashSet::new();
    let mut named_processes = HashSet::new();
    let mut used_threads = HashSet::new();
    let mut used_processes = HashSet::new();
    let (mut slices, mut instants, mut samples) = (0, 0, 0);
    for (i, e) in events.iter().enumerate() {
        let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        let ph = e["ph"].as_str().unwrap();
        if ph == "M" {
            match e["name"].as_str().unwrap() {
                "thread_name" => named_threads.insert(key),
                "process_name" => named_processes.insert(key.0),
                _ => true,
            };
            continue;
        }
        let ts = e["ts"]
            .as_f64()
            .unwrap_or_else(|| panic!("event {i}: no ts"));
        used_processes.insert(key.0);
        match ph {
            "B" => {
                slices += 1;
                used_threads.insert(key);
                let stack = stacks.entry(key).or_default();
                assert!(
                    stack.last().is_none_or(|&b| b <= ts),
                    "event {i}: B before its parent"
                );
                stack.push(ts);
            }
            "E" => {
                let b = stacks.get_mut(&key).and_then(|s| s.pop());
                assert!(
                    b.is_some_and(|b| b <= ts),
                    "event {i}: E without its B on {key:?}"
                );
            }
            "X" => {
                slices += 1;
                used_threads.insert(key);
                assert!(
                    e["dur"].as_f64().is_some_and(|d| d >= 0.0),
                    "event {i}: bad dur"
                );
            }
            "i" => {
                instants += 1;
                if e["s"] == "t" {
                    used_threads.insert(key);
                }
            }
            "C" => samples += 1,
            // Flow arrows (WTF flows).
            "s" | "t" | "f" => {}
            other => panic!("event {i}: unexpected phase {other}"),
        }
    }
    assert!(
        stacks.values().all(|s| s.is_empty()),
        "{}: B without E",
        path.display()
    );
    for t in &used_threads {
        assert!(
            named_threads.contains(t),
            "{}: thread {t:?} unnamed",
            path.display()
        );
    }
    for p in &used_processes {
        assert!(
            named_processes.contains(p),
            "{}: process {p} unnamed",
            path.display()
        );
    }
    (slices, instants, samples)
}

#[test]
fn every_corpus_file_converts_to_both_formats() {
    let dir = out_dir("easyprofiler");
    for file in corpus_paths("easyprofiler", &[], "prof") {
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        let json_out = dir.join(format!("{stem}.json"));
        let out = tracecap(&[
            "convert",
            file.to_str().unwrap(),
            "-o",
            json_out.to_str().unwrap(),
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: Value = summary_of(&out);
        assert_eq!(summary["to"], "chrome");
        let (slices, instants, samples) = check_chrome(&json_out);
        assert_eq!(summary["slices"], slices, "{stem}");
        assert_eq!(summary["instants"], instants, "{stem}");
        assert_eq!(summary["counter_samples"], samples, "{stem}");

        let info = tracecap(&["info", "--json", file.to_str().unwrap()]);
        let info: Value = serde_json::from_slice(&info.stdout).unwrap();
        let r = &info["records"];
        assert_eq!(
            slices,
            r["blocks"].as_u64().unwrap() + r["context_switches"].as_u64().unwrap(),
            "{stem}"
        );
        assert_eq!(
            instants + samples,
            r["events"].as_u64().unwrap()
                + r["values"].as_u64().unwrap()
                + info["bookmarks"].as_u64().unwrap(),
            "{stem}"
        );

        let pf_out = dir.join(format!("{stem}.pftrace"));
        let out = tracecap(&[
            "convert",
            file.to_str().unwrap(),
            "-o",
            pf_out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(
            out.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "--quiet printed"
        );
        let bytes = std::fs::read(&pf_out).unwrap();
        assert_eq!(
            bytes.first(),
            Some(&0x0a),
            "{stem}: a Trace starts with packet 1"
        );
    }
}

#[test]
fn extension_and_to_choose_the_exporter() {
    let Some(file) = corpus_paths("easyprofiler", &[], "prof")
        .into_iter()
        .find(|p| p.ends_with("sample_small.prof"))
    else {
        return;
    };
    let dir = out_dir("ext");
    let f = file.to_str().unwrap();
    let odd = dir.join("trace.out");
    let out = tracecap(&["convert", f, "-o", odd.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "unknown extension is a usage error"
    );
    let out = tracecap(&["convert", f, "-o", odd.to_str().unwrap(), "--to", "chrome"]);
    assert!(out.status.success());
    check_chrome(&odd);
    assert!(out.stdout.is_empty(), "the summary goes to standard error");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("slices:") && text.contains("span:"), "{text}");
    let pf = dir.join("t.perfetto-trace");
    let out = tracecap(&["convert", f, "-o", pf.to_str().unwrap(), "--json"]);
    let summary: Value = summary_of(&out);
    assert_eq!(summary["to"], "perfetto");
}

#[test]
fn damaged_capture_exits_1_with_a_usable_output() {
    let Some(file) = corpus_paths("easyprofiler", &[], "prof")
        .into_iter()
        .find(|p| p.ends_with("sample_small.prof"))
    else {
        return;
    };
    let dir = out_dir("cut");
    let bytes = std::fs::read(&file).unwrap();
    let cut = dir.join("cut.prof");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let json_out = dir.join("cut.json");
    let out = tracecap(&[
        "convert",
        cut.to_str().unwrap(),
        "-o",
        json_out.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    // The summary of what was converted, then the fault.
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: ") && last.contains("at offset 0x"),
        "{err}"
    );
    let (slices, _, _) = check_chrome(&json_out);
    assert!(slices > 0, "what precedes the damage is converted");
}

#[test]
fn syscall_captures_convert_like_validate_reads_them() {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let entries = std::fs::read_dir(dir).unwrap();
    let out_dir = out_dir("syscall");
    for file in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if file.extension().is_none_or(|x| x != "dat") {
            continue;
        }
        let f = file.to_str().unwrap();
        let validate = tracecap(&["validate", f]);
        let json_out = out_dir.join("out.json");
        let out = tracecap(&["convert", f, "-o", json_out.to_str().unwrap(), "--json"]);
        // Same verdict as validate: 0 for a good capture, 1 for a damaged or empty one.
        assert_eq!(out.status.code(), validate.status.code(), "{f}");
        if !out.stderr.starts_with(b"{") {
            continue; // not a capture at all: nothing written
        }
        let summary: Value = summary_of(&out);
        let (slices, _, _) = check_chrome(&json_out);
        assert_eq!(summary["slices"], slices, "{f}");
        let info = tracecap(&["info", "--json", f]);
        let info: Value = serde_json::from_slice(&info.stdout).unwrap();
        assert_eq!(info["syscalls"], slices, "{f}");
    }
}

#[test]
fn orbit_captures_convert_like_validate_reads_them() {
    let files = corpus_paths("orbit", &["real", "generated"], "orbit");
    let out_dir = out_dir("orbit");
    for file in files {
        let f = file.to_str().unwrap();
        let validate = tracecap(&["validate", f]);
        let json_out = out_dir.join("out.json");
        let out = tracecap(&["convert", f, "-o", json_out.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), validate.status.code(), "{f}");
        if !out.stderr.starts_with(b"{") {
            continue; // refused before anything was written
        }
        let summary: Value = summary_of(&out);
        let (slices, instants, _) = check_chrome(&json_out);
        assert_eq!(summary["slices"], slices, "{f}");
        assert_eq!(summary["instants"], instants, "{f}");
        let info = tracecap(&["info", "--json", f]);
        let Ok(info) = serde_json::from_slice::<Value>(&info.stdout) else {
            continue; // info refuses the file (its header is bad): nothing to compare
        };
        let n = |k: &str| info["event_counts"][k].as_u64().unwrap_or(0);
        if validate.status.success() {
            let want_slices = n("function_call")
                + n("scheduling_slice")
                + n("thread_state_slice")
                + n("api_scope_start")
                + n("api_scope_start_async")
                + 4 * n("gpu_job");
            assert_eq!(slices, want_slices, "{f}");
            let want_instants = [
                "capture_started",
                "callstack_sample",
                "api_string_event",
                "tracepoint_event",
                "present_event",
                "warning_event",
                "error_enabling_orbit_api_event",
                "error_enabling_user_space_instrumentation_event",
                "lost_perf_records_event",
                "out_of_order_events_discarded_event",
                "gpu_queue_submission",
            ]
            .iter()
            .map(|k| n(k))
            .sum::<u64>();
            assert_eq!(instants, want_instants, "{f}");
        }
    }
}

#[test]
fn wtf_traces_convert_like_validate_reads_them() {
    let files = corpus_paths("wtf", &["cff-cpp", "cff-js", "legacy-v3"], "wtf-trace");
    let out_dir = out_dir("wtf");
    for file in files {
        let f = file.to_str().unwrap();
        let validate = tracecap(&["validate", f]);
        for ext in ["json", "pftrace"] {
            let out_file = out_dir.join(format!("out.{ext}"));
            let out = tracecap(&["convert", f, "-o", out_file.to_str().unwrap(), "--json"]);
            assert_eq!(out.status.code(), validate.status.code(), "{f}");
            let summary: Value = summary_of(&out);
            assert!(summary["threads"].as_u64().unwrap() >= 1, "{f}");
            if ext == "json" {
                let (slices, instants, _) = check_chrome(&out_file);
                assert_eq!(summary["slices"], slices, "{f}");
                assert_eq!(summary["instants"], instants, "{f}");
                let info = tracecap(&["info", "--json", f]);
                let info: Value = serde_json::from_slice(&info.stdout).unwrap();
                // Every leave that closes a scope ends one slice; scopes left open are closed too.
                let leaves = info["events_by_name"]["wtf.scope#leave"]
                    .as_u64()
                    .unwrap_or(0);
                assert!(slices >= leaves.min(1), "{f}");
            }
        }
    }
}

#[test]
fn apitrace_traces_convert_like_info_reads_them() {
    let files = corpus_paths(
        "apitrace",
        &["apitrace-tests", "produced-apitrace-11.1"],
        "trace",
    );
    let out_dir = out_dir("apitrace");
    for file in files {
        let f = file.to_str().unwrap();
        let info = tracecap(&["info", "--json", f]);
        let info: Value = serde_json::from_slice(&info.stdout).unwrap();
        // A fault (zlib-no-eof.trace: gzip without its trailer) converts what precedes it, exit 1.
        let code = if info["error"].is_null() { 0 } else { 1 };
        for ext in ["json", "pftrace"] {
            let out_file = out_dir.join(format!("out.{ext}"));
            let out = tracecap(&["convert", f, "-o", out_file.to_str().unwrap(), "--json"]);
            assert_eq!(out.status.code(), Some(code), "{f}");
            let summary: Value = summary_of(&out);
            // One slice per call and per frame (the corpus has no debug groups).
            let want = info["calls"].as_u64().unwrap() + info["frames"].as_u64().unwrap();
            assert_eq!(summary["slices"], want, "{f}");
            assert_eq!(summary["threads"], info["threads"], "{f}");
            // The synthetic clock: one microsecond per call.
            assert_eq!(
                summary["span_ns"],
                info["calls"].as_u64().unwrap() * 1000,
                "{f}"
            );
            if ext == "json" {
                let (slices, instants, samples) = check_chrome(&out_file);
                assert_eq!(summary["slices"], slices, "{f}");
                assert_eq!(instants + samples, 0, "{f}");
            }
        }
    }
}
