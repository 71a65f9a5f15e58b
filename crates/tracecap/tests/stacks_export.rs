//! Orbit's sampled stacks in the Perfetto and Chrome JSON exporters, against a plain protobuf
//! decoding of each Orbit capture of the corpus (`CallstackSample` -> `InternedCallstack` ->
//! `AddressInfo` -> `InternedString`, decoded here with the Orbit crate's prost types, not
//! through the views or the adapter):
//! - Perfetto: every `PerfSample` names an interned callstack whose frames resolve to function
//!   names and mappings; the samples, in order, are the capture's, on their threads, at their
//!   times. Decoded with our schema, and with Perfetto's full schema (`perfetto_trace_pb2` of
//!   the `perfetto` Python package, as tools/check_trace.py does) when Python has it.
//! - Chrome JSON: every entry of `samples` names a `stackFrames` node whose parents give the
//!   same frames.
#![cfg(all(feature = "std", feature = "orbit"))]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use prost::Message;
use tracecap::export::perfetto_proto as pf;
use tracecap::export::{ChromeJson, Perfetto};

mod common;
use common::samples::{oracle, Frame, Sampled};

/// The samples of a Perfetto trace decoded with our schema, each callstack resolved through the
/// interned data of the sequence (panics when an iid does not resolve). Also checks that each
/// sample's pid is the one of its thread's track.
fn perfetto_samples(bytes: &[u8]) -> Vec<Sampled> {
    let trace = pf::Trace::decode(bytes).expect("a Trace");
    let mut functions: HashMap<u64, String> = HashMap::new();
    let mut paths: HashMap<u64, String> = HashMap::new();
    let mut mappings: HashMap<u64, u64> = HashMap::new();
    let mut frames: HashMap<u64, pf::Frame> = HashMap::new();
    let mut callstacks: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut threads: HashMap<i32, i32> = HashMap::new();
    let mut out = Vec::new();
    for (i, p) in trace.packet.iter().enumerate() {
        if p.incremental_state_cleared == Some(true) {
            functions.clear();
            paths.clear();
            mappings.clear();
            frames.clear();
            callstacks.clear();
        }
        if let Some(t) = p.track_descriptor.as_ref().and_then(|d| d.thread.as_ref()) {
            threads.insert(t.tid.unwrap(), t.pid.unwrap());
        }
        if let Some(d) = &p.interned_data {
            let text = |s: &pf::InternedString| String::from_utf8(s.str.clone().unwrap()).unwrap();
            for s in &d.function_names {
                assert!(functions.insert(s.iid.unwrap(), text(s)).is_none());
            }
            for s in &d.mapping_paths {
                assert!(paths.insert(s.iid.unwrap(), text(s)).is_none());
            }
            for m in &d.mappings {
                assert_eq!(m.path_string_ids.len(), 1);
                mappings.insert(m.iid.unwrap(), m.path_string_ids[0]);
            }
            for f in &d.frames {
                assert!(frames.insert(f.iid.unwrap(), *f).is_none());
            }
            for c in &d.callstacks {
                assert!(!c.frame_ids.is_empty(), "packet {i}: an empty callstack");
                let old = callstacks.insert(c.iid.unwrap(), c.frame_ids.clone());
                assert!(old.is_none(), "packet {i}: callstack interned twice");
            }
        }
        let Some(s) = &p.perf_sample else {
            continue;
        };
        assert_eq!(
            p.sequence_flags,
            Some(2),
            "packet {i}: needs the interned data"
        );
        let tid = s.tid.expect("a tid");
        assert_eq!(
            threads.get(&(tid as i32)).copied(),
            s.pid.map(|p| p as i32),
            "packet {i}: the pid of the thread's track"
        );
        let stack = &callstacks[&s.callstack_iid.expect("a callstack")];
        let resolved = stack
            .iter()
            .rev()
            .map(|id| {
                let f = &frames[id];
                let module = &paths[&mappings[&f.mapping_id.unwrap()]];
                (
                    functions[&f.function_name_id.unwrap()].clone(),
                    module.clone(),
                    f.rel_pc.unwrap(),
                )
            })
            .collect();
        out.push(Sampled {
            tid: u64::from(tid),
            ts: p.timestamp.unwrap(),
            frames: resolved,
        });
    }
    out
}

/// Resolves every sample of a Perfetto trace with Perfetto's full schema in Python and prints
/// them as JSON lines: tid, timestamp, [function, module, rel_pc] innermost first. Exits 3 when
/// the `perfetto` package is missing.
const PERFETTO_PY: &str = r#"
import json, sys
try:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
except ImportError:
    sys.exit(3)
trace = pb.Trace()
trace.ParseFromString(open(sys.argv[1], "rb").read())
fn, paths, maps, frames, stacks = {}, {}, {}, {}, {}
for p in trace.packet:
    if p.incremental_state_cleared:
        for t in (fn, paths, maps, frames, stacks):
            t.clear()
    if p.HasField("interned_data"):
        d = p.interned_data
        for s in d.function_names: fn[s.iid] = s.str.decode()
        for s in d.mapping_paths: paths[s.iid] = s.str.decode()
        for m in d.mappings: maps[m.iid] = "/".join(paths[i] for i in m.path_string_ids)
        for f in d.frames: frames[f.iid] = (fn[f.function_name_id], maps[f.mapping_id], f.rel_pc)
        for c in d.callstacks: stacks[c.iid] = [frames[i] for i in c.frame_ids]
    if p.HasField("perf_sample"):
        s = p.perf_sample
        print(json.dumps([s.tid, p.timestamp, list(reversed(stacks[s.callstack_iid]))]))
"#;

/// [`PERFETTO_PY`] on `path`, or `None` when Python or its `perfetto` package is missing.
fn perfetto_samples_official(path: &Path) -> Option<Vec<Sampled>> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(PERFETTO_PY)
        .arg(path)
        .output()
        .ok()?;
    if out.status.code() == Some(3) {
        return None;
    }
    assert!(
        out.status.success(),
        "the official schema rejects {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    Some(
        text.lines()
            .map(|line| {
                let (tid, ts, frames): (u64, u64, Vec<Frame>) = serde_json::from_str(line).unwrap();
                Sampled { tid, ts, frames }
            })
            .collect(),
    )
}

/// The samples of a Chrome JSON document: each `sf` resolved through `stackFrames` parents
/// (function, module; `?` stands for no module), with its tid; times are not compared.
fn chrome_samples(bytes: &[u8]) -> Vec<(u64, Vec<(String, String)>)> {
    let doc: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
    let frames = doc["stackFrames"].as_object().expect("stackFrames");
    let samples = doc["samples"].as_array().expect("samples");
    samples
        .iter()
        .map(|s| {
            assert!(s["ts"].is_number() && s["pid"].is_u64());
            assert_eq!(s["weight"], 1);
            assert_eq!(s["name"], "sample");
            let mut id = s["sf"].as_str().expect("an sf").to_string();
            let mut resolved = Vec::new();
            loop {
                let f = &frames[&id];
                let module = f["category"].as_str().unwrap();
                let module = if module == "?" { "" } else { module };
                resolved.push((f["name"].as_str().unwrap().to_string(), module.to_string()));
                match f.get("parent") {
                    Some(p) => id = p.as_str().expect("a parent id").to_string(),
                    None => break,
                }
                assert!(resolved.len() <= frames.len(), "a cycle in stackFrames");
            }
            (s["tid"].as_u64().unwrap(), resolved)
        })
        .collect()
}

/// Every `.orbit` file under `dir`.
fn orbit_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            orbit_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "orbit") {
            out.push(path);
        }
    }
}

#[test]
fn orbit_samples_in_perfetto_and_chrome_equal_a_protobuf_decoding() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/orbit");
    let mut files = Vec::new();
    orbit_files(&corpus, &mut files);
    if let Some(more) = std::env::var_os("TRACECAP_ORBIT_CAPTURES") {
        files.extend(std::env::split_paths(&more));
    }
    if files.is_empty() {
        println!("SKIPPED: no Orbit capture under {}", corpus.display());
        return;
    }
    files.sort();
    let scratch = std::env::temp_dir().join(format!("tracecap-stacks-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let (mut compared, mut with_samples, mut official) = (0, 0, 0);
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let Some((expected, events)) = oracle(&data) else {
            println!("{}: not a whole ORBT capture, not compared", path.display());
            continue;
        };
        assert_eq!(
            expected.len(),
            events,
            "{}: every CallstackSample names an interned callstack",
            path.display()
        );
        let mut sink = Perfetto::new(Vec::new()).unwrap();
        if let Err(e) = tracecap::convert(tracecap::Format::Orbit, &data, &mut sink) {
            println!("{}: rejected ({e}), not compared", path.display());
            continue;
        }
        let pftrace = sink.finish().unwrap();
        let got = perfetto_samples(&pftrace);
        assert_eq!(
            got.len(),
            events,
            "{}: one sample per CallstackSample",
            path.display()
        );
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "{}: Perfetto sample {i}", path.display());
        }
        let file = scratch.join("t.pftrace");
        std::fs::write(&file, &pftrace).unwrap();
        match perfetto_samples_official(&file) {
            Some(official_samples) => {
                assert_eq!(official_samples, expected, "{}", path.display());
                official += 1;
            }
            None => println!(
                "SKIPPED: Python's perfetto package is missing, {} decoded with our schema only",
                path.display()
            ),
        }

        let mut sink = ChromeJson::new(Vec::new()).unwrap();
        tracecap::convert(tracecap::Format::Orbit, &data, &mut sink).unwrap();
        let json = sink.finish().unwrap();
        if events == 0 {
            let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
            assert!(doc.get("samples").is_none() && doc.get("stackFrames").is_none());
        } else {
            let got = chrome_samples(&json);
            let want: Vec<(u64, Vec<(String, String)>)> = expected
                .iter()
                .map(|s| {
                    let frames = s
                        .frames
                        .iter()
                        .map(|f| (f.0.clone(), f.1.clone()))
                        .collect();
                    (s.tid, frames)
                })
                .collect();
            assert_eq!(got, want, "{}: Chrome samples", path.display());
            with_samples += 1;
        }
        println!("{}: {} samples compared", path.display(), events);
        compared += 1;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(compared > 0, "no ORBT capture compared");
    assert!(with_samples > 0, "no capture with samples compared");
    println!("{official} traces read with Perfetto's full schema");
}

#[global_allocator]
static COUNTING: tracecap_testkit::CountingAlloc = tracecap_testkit::CountingAlloc;

/// Allocations made while the Perfetto writer takes `n` samples of one declared stack.
fn perfetto_sample_allocations(n: u64) -> usize {
    use tracecap::timeline::{
        Frame, Sink, StackId, StackKind, StackSample, Track, TrackId, TrackKind,
    };
    let mut sink = Perfetto::new(std::io::sink()).unwrap();
    sink.track(&Track {
        id: TrackId(1),
        parent: None,
        kind: TrackKind::Thread { pid: 2, tid: 3 },
        name: "main",
    })
    .unwrap();
    let frame = Frame {
        function: "f",
        module: "m",
        file: "",
        line: None,
        address: Some(0x10),
    };
    sink.stack(StackId(1), &[frame, frame]).unwrap();
    let before = tracecap_testkit::allocs();
    for ts in 0..n {
        sink.stack_sample(&StackSample {
            track: TrackId(1),
            ts,
            stack: StackId(1),
            weight: 1,
            kind: StackKind::Sample,
            call: None,
        })
        .unwrap();
    }
    tracecap_testkit::allocs() - before
}

#[test]
fn perfetto_samples_allocate_nothing_once_their_stack_is_declared() {
    let _serial = tracecap_testkit::serial();
    let (few, many) = (
        perfetto_sample_allocations(1_000),
        perfetto_sample_allocations(10_000),
    );
    assert!(
        many <= few && few <= 1,
        "{few} allocations for 1,000 samples, {many} for 10,000"
    );
}
