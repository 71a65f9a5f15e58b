//! The pprof writer against a plain protobuf decoding of each Orbit capture of the corpus: the
//! samples of the profile are the capture's `CallstackSample`s, in order, each on its thread,
//! with the program counters of its `InternedCallstack` named through `AddressInfo` and
//! `InternedString` (decoded here with the Orbit crate's prost types, not through the views or
//! the adapter). Also: stack samples allocate nothing once their stack is declared, and a
//! capture without stacks gives its calls' self time.
#![cfg(all(feature = "std", feature = "orbit"))]

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use prost::Message;
use tracecap::export::{pprof_proto as pb, Pprof};
use tracecap::orbit::proto::orbit_grpc_protos as orbit;
use tracecap::timeline::{
    Event, Frame, Sink, StackId, StackKind, StackSample, Track, TrackId, TrackKind,
};
use tracecap_testkit::{allocs, CountingAlloc};

mod common;

#[global_allocator]
static COUNTING: CountingAlloc = CountingAlloc;

/// One sample: its thread and its frames (function, module, address), innermost first.
type Sampled = (u64, Vec<common::samples::Frame>);

/// The samples of an Orbit capture, read with prost: `None` when it is not an ORBT capture.
fn oracle(data: &[u8]) -> Option<Vec<Sampled>> {
    let (samples, _) = common::samples::oracle(data)?;
    Some(samples.into_iter().map(|s| (s.tid, s.frames)).collect())
}

/// Un-gzips and decodes a profile.
fn decode(gz: &[u8]) -> pb::Profile {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut bytes)
        .expect("gzip");
    pb::Profile::decode(bytes.as_slice()).expect("a Profile")
}

/// The samples of a profile as [`oracle`] gives them, after checking what every sample holds.
fn samples(p: &pb::Profile) -> Vec<Sampled> {
    let s = |i: i64| p.string_table[i as usize].clone();
    let functions: HashMap<u64, &pb::Function> = p.function.iter().map(|f| (f.id, f)).collect();
    let mappings: HashMap<u64, &pb::Mapping> = p.mapping.iter().map(|m| (m.id, m)).collect();
    let locations: HashMap<u64, &pb::Location> = p.location.iter().map(|l| (l.id, l)).collect();
    for f in &p.function {
        assert_eq!(f.name, f.system_name, "pprof tools demangle system_name");
    }
    p.sample
        .iter()
        .map(|sample| {
            assert_eq!(sample.value, [1]);
            let thread = sample
                .label
                .iter()
                .find(|l| s(l.key) == "thread")
                .expect("a thread label");
            assert!(!s(thread.str).is_empty());
            let tid = sample
                .label
                .iter()
                .find(|l| s(l.key) == "tid")
                .expect("a tid label")
                .num as u64;
            let frames = sample
                .location_id
                .iter()
                .map(|id| {
                    let l = locations[id];
                    assert_eq!(l.line.len(), 1);
                    let name = s(functions[&l.line[0].function_id].name);
                    let module = match l.mapping_id {
                        0 => String::new(),
                        m => s(mappings[&m].filename),
                    };
                    (name, module, l.address)
                })
                .collect();
            (tid, frames)
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

/// The real Orbit 1.71 test capture (`OrbitTest_1-72.orbit` of google/orbit's
/// contrib/automation_tests/testdata): its counts are known.
const ORBIT_171: &str = "OrbitTest_1-72.orbit";

#[test]
fn orbit_samples_equal_a_protobuf_decoding() {
    let _serial = tracecap_testkit::serial();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/orbit");
    let mut files = Vec::new();
    orbit_files(&corpus, &mut files);
    // Captures kept outside the corpus (the 1.71 capture is larger than the corpus takes).
    if let Some(more) = std::env::var_os("TRACECAP_ORBIT_CAPTURES") {
        files.extend(std::env::split_paths(&more));
    }
    if files.is_empty() {
        println!("SKIPPED: no Orbit capture under {}", corpus.display());
        return;
    }
    files.sort();
    let mut compared = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let Some(expected) = oracle(&data) else {
            println!("{}: not a whole ORBT capture, not compared", path.display());
            continue;
        };
        let mut sink = Pprof::new(Vec::new());
        let stats = match tracecap::convert(tracecap::Format::Orbit, &data, &mut sink) {
            Ok(stats) => stats,
            Err(e) => {
                println!("{}: rejected ({e}), not compared", path.display());
                continue;
            }
        };
        let profile = decode(&sink.finish().unwrap());
        let got = samples(&profile);
        assert_eq!(got.len(), expected.len(), "{}", path.display());
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "{}: sample {i}", path.display());
        }
        assert_eq!(stats.stack_samples, expected.len() as u64);
        if !expected.is_empty() {
            let s = &profile.string_table;
            let t = &profile.sample_type;
            assert_eq!(t.len(), 1);
            assert_eq!(
                (&*s[t[0].r#type as usize], &*s[t[0].unit as usize]),
                ("samples", "count")
            );
            assert!(profile.time_nanos > 0 && profile.duration_nanos > 0);
        }
        if path.file_name().is_some_and(|n| n == ORBIT_171) {
            let stacks: HashSet<Vec<u64>> = got
                .iter()
                .map(|(_, f)| f.iter().map(|x| x.2).collect())
                .collect();
            let named: HashSet<Vec<&str>> = got
                .iter()
                .map(|(_, f)| f.iter().map(|x| &*x.0).collect())
                .collect();
            assert_eq!(
                (got.len(), stacks.len(), named.len()),
                (1583, 213, 148),
                "{ORBIT_171}: samples, call stacks, call stacks named by function"
            );
            assert_eq!(stats.stacks, 213);
        }
        println!("{}: {} samples compared", path.display(), expected.len());
        compared += 1;
    }
    assert!(compared > 0, "no ORBT capture compared");
}

mod capture {
    //! An Orbit capture laid out by hand: the 24-byte header, then varint-length-prefixed
    //! `ClientCaptureEvent`s, each encoded with the Orbit crate's prost types.
    use super::orbit;
    use orbit::client_capture_event::Event as E;
    use prost::Message;

    fn push(file: &mut Vec<u8>, event: E) {
        let bytes = orbit::ClientCaptureEvent { event: Some(event) }.encode_to_vec();
        prost::encoding::encode_varint(bytes.len() as u64, file);
        file.extend_from_slice(&bytes);
    }

    /// `n` samples on 4 threads over 3 call stacks of 3 frames, one of them without an
    /// `AddressInfo`.
    pub fn with_samples(n: u64) -> Vec<u8> {
        let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
        push(
            &mut file,
            E::CaptureStarted(orbit::CaptureStarted {
                process_id: 100,
                executable_path: "/usr/bin/demo".into(),
                ..Default::default()
            }),
        );
        for (key, text) in [
            (1u64, "main"),
            (2, "work"),
            (3, "_ZN4demo4leafEv"),
            (4, "/usr/bin/demo"),
        ] {
            push(
                &mut file,
                E::InternedString(orbit::InternedString {
                    key,
                    intern: text.as_bytes().to_vec(),
                }),
            );
        }
        for (address, function) in [(0x1000u64, 1u64), (0x2000, 2), (0x3000, 3)] {
            push(
                &mut file,
                E::AddressInfo(orbit::AddressInfo {
                    absolute_address: address,
                    offset_in_function: 4,
                    function_name_key: function,
                    module_name_key: 4,
                }),
            );
        }
        for (key, pcs) in [
            (10u64, vec![0x3000u64, 0x2000, 0x1000]),
            (11, vec![0x2000, 0x1000, 0x9999]),
            (12, vec![0x3000, 0x3000, 0x1000]),
        ] {
            push(
                &mut file,
                E::InternedCallstack(orbit::InternedCallstack {
                    key,
                    intern: Some(orbit::Callstack { pcs, r#type: 0 }),
                }),
            );
        }
        for i in 0..n {
            push(
                &mut file,
                E::CallstackSample(orbit::CallstackSample {
                    pid: 100,
                    tid: 200 + (i % 4) as u32,
                    callstack_id: 10 + i % 3,
                    timestamp_ns: 1_000 + 10 * i,
                }),
            );
        }
        push(
            &mut file,
            E::CaptureFinished(orbit::CaptureFinished::default()),
        );
        file
    }
}

#[test]
fn a_hand_made_capture_names_unknown_addresses_in_hex() {
    let data = capture::with_samples(6);
    let mut sink = Pprof::new(Vec::new());
    tracecap::convert(tracecap::Format::Orbit, &data, &mut sink).unwrap();
    let got = samples(&decode(&sink.finish().unwrap()));
    assert_eq!(got, oracle(&data).unwrap());
    let names: Vec<&str> = got[1].1.iter().map(|f| &*f.0).collect();
    assert_eq!(names, ["work", "main", "0x9999"]);
    assert_eq!(got[0].1[0].0, "_ZN4demo4leafEv", "mangled as written");
    assert_eq!(got[0].1[0].1, "/usr/bin/demo");
    assert_eq!(got[1].1[2].1, "", "no module without an AddressInfo");
}

/// Converts `data` into `sink` and counts the allocations.
fn allocations<S: Sink>(data: &[u8], sink: S) -> usize
where
    S::Error: std::fmt::Debug,
{
    let before = allocs();
    tracecap::convert(tracecap::Format::Orbit, data, sink).unwrap();
    allocs() - before
}

#[test]
fn stack_samples_allocate_nothing_once_their_stack_is_declared() {
    let _serial = tracecap_testkit::serial();
    let (small, big) = (capture::with_samples(2_000), capture::with_samples(16_000));
    let mut counted = common::CountStacks(0);
    let few = allocations(&small, &mut counted);
    let many = allocations(&big, &mut counted);
    assert_eq!(counted.0, 18_000);
    assert!(
        many <= few + 16,
        "{few} allocations for 2,000 samples, {many} for 16,000"
    );
    let few = allocations(&small, Pprof::new(std::io::sink()));
    let many = allocations(&big, Pprof::new(std::io::sink()));
    assert!(
        many <= few + 16,
        "pprof: {few} allocations for 2,000 samples, {many} for 16,000"
    );
}

#[test]
fn without_stacks_the_profile_holds_self_time() {
    let mut p = Pprof::new(Vec::new());
    let (process, thread, cpu) = (TrackId(1), TrackId(2), TrackId(3));
    let track = |id, parent, kind, name| Track {
        id,
        parent,
        kind,
        name,
    };
    p.track(&track(process, None, TrackKind::Process { pid: 1 }, "app"))
        .unwrap();
    p.track(&track(
        thread,
        Some(process),
        TrackKind::Thread { pid: 1, tid: 7 },
        "main",
    ))
    .unwrap();
    p.track(&track(cpu, None, TrackKind::Slices, "CPU 0"))
        .unwrap();
    let ev = |track, ts, name| Event::new(track, ts, name, "c", &[]);
    // outer [0, 100) holds inner [10, 40) and a leaf [50, 60); a second outer [200, 210).
    p.begin(&ev(thread, 0, "outer")).unwrap();
    p.begin(&ev(thread, 10, "inner")).unwrap();
    p.end(thread, 40).unwrap();
    p.complete(&ev(thread, 50, "leaf"), 10).unwrap();
    p.end(thread, 100).unwrap();
    p.complete(&ev(thread, 200, "outer"), 10).unwrap();
    // Not a call: a slice on a CPU track.
    p.complete(&ev(cpu, 0, "Running"), 500).unwrap();
    let profile = decode(&p.finish().unwrap());
    let s = |i: i64| profile.string_table[i as usize].as_str();
    let t = &profile.sample_type[0];
    assert_eq!((s(t.r#type), s(t.unit)), ("wall", "nanoseconds"));
    let name = |id: &u64| {
        let l = profile.location.iter().find(|l| l.id == *id).unwrap();
        let f = profile
            .function
            .iter()
            .find(|f| f.id == l.line[0].function_id)
            .unwrap();
        s(f.name)
    };
    let mut got: Vec<(String, i64)> = profile
        .sample
        .iter()
        .map(|x| {
            let path: Vec<&str> = x.location_id.iter().map(name).collect();
            (path.join(";"), x.value[0])
        })
        .collect();
    got.sort();
    let want = [("inner;outer", 30), ("leaf;outer", 10), ("outer", 70)];
    let want: Vec<(String, i64)> = want.iter().map(|(p, v)| (p.to_string(), *v)).collect();
    assert_eq!(got, want);
    assert_eq!((profile.time_nanos, profile.duration_nanos), (0, 500));
}

#[test]
fn a_call_backtrace_has_the_call_innermost() {
    let mut p = Pprof::new(Vec::new());
    let thread = TrackId(1);
    p.track(&Track {
        id: thread,
        parent: None,
        kind: TrackKind::Thread { pid: 1, tid: 1 },
        name: "",
    })
    .unwrap();
    let frame = |function| Frame {
        function,
        module: "",
        file: "main.c",
        line: Some(12),
        address: None,
    };
    p.stack(StackId(0), &[frame("draw"), frame("main")])
        .unwrap();
    p.stack_sample(&StackSample {
        track: thread,
        ts: 5,
        stack: StackId(0),
        weight: 1,
        kind: StackKind::Call,
        call: Some("glDrawArrays"),
    })
    .unwrap();
    assert!(p
        .stack_sample(&StackSample {
            track: thread,
            ts: 6,
            stack: StackId(1),
            weight: 1,
            kind: StackKind::Sample,
            call: None,
        })
        .is_err());
    let profile = decode(&p.finish().unwrap());
    let s = |i: i64| profile.string_table[i as usize].as_str();
    assert_eq!(
        (
            s(profile.sample_type[0].r#type),
            s(profile.sample_type[0].unit)
        ),
        ("calls", "count")
    );
    assert_eq!(profile.sample.len(), 1);
    let names: Vec<&str> = profile.sample[0]
        .location_id
        .iter()
        .map(|id| {
            let l = &profile.location[*id as usize - 1];
            let f = &profile.function[l.line[0].function_id as usize - 1];
            s(f.name)
        })
        .collect();
    assert_eq!(names, ["glDrawArrays", "draw", "main"]);
    let thread = &profile.sample[0].label[0];
    assert_eq!((s(thread.key), s(thread.str)), ("thread", "thread 1"));
}
