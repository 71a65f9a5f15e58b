#![cfg(all(feature = "orbit", feature = "std"))]
//! The Orbit adapter on the corpus (counts against the crate, both exporters), on hand-made
//! captures (call nesting, API scopes, async scopes) and on cut / mutated files.

mod common;

use std::collections::HashMap;

use common::orbit::{capture, msg, varint};
use common::{Ev, Recorder};
use tracecap_testkit::corpus_paths;

use prost::Message;
use tracecap::export::perfetto_proto::{track_event, Trace};
use tracecap::export::{ChromeJson, Perfetto};
use tracecap::orbit::{views::EventView, Capture};
use tracecap::timeline::TrackKind;
use tracecap::{ConvertError, Format};

/// What the adapter must produce, counted from the crate's own reading: (slices, instants,
/// counter samples, fault offset).
fn expected(bytes: &[u8]) -> (u64, u64, u64, Option<u64>) {
    let capture = match Capture::parse(bytes) {
        Ok(c) => c,
        Err(e) => return (0, 0, 0, Some(e.offset)),
    };
    let (mut slices, mut instants, mut samples) = (0, 0, 0);
    for ev in capture.events() {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => return (slices, instants, samples, Some(e.offset)),
        };
        let view = match ev.view() {
            Ok(v) => v,
            Err(e) => return (slices, instants, samples, Some(e.offset)),
        };
        match view {
            EventView::FunctionCall(_)
            | EventView::SchedulingSlice(_)
            | EventView::ThreadStateSlice(_)
            | EventView::ApiScopeStart(_)
            | EventView::ApiScopeStartAsync(_) => slices += 1,
            EventView::GpuJob(_) => slices += 4,
            EventView::CaptureStarted(_)
            | EventView::CallstackSample(_)
            | EventView::ApiStringEvent(_)
            | EventView::TracepointEvent(_)
            | EventView::PresentEvent(_)
            | EventView::WarningEvent(_)
            | EventView::ErrorEnablingOrbitApiEvent(_)
            | EventView::ErrorEnablingUserSpaceInstrumentationEvent(_)
            | EventView::LostPerfRecordsEvent(_)
            | EventView::OutOfOrderEventsDiscardedEvent(_)
            | EventView::GpuQueueSubmission(_) => instants += 1,
            EventView::ApiTrackDouble(v) => samples += u64::from(v.data.is_finite()),
            EventView::ApiTrackFloat(v) => samples += u64::from(v.data.is_finite()),
            EventView::ApiTrackInt(_)
            | EventView::ApiTrackInt64(_)
            | EventView::ApiTrackUint(_)
            | EventView::ApiTrackUint64(_) => samples += 1,
            EventView::MemoryUsageEvent(m) => {
                samples += 4 * u64::from(m.system_memory_usage.present)
                    + u64::from(m.process_memory_usage.present)
                    + 2 * u64::from(m.cgroup_memory_usage.present)
            }
            _ => {}
        }
    }
    // A bad section list does not stop the events; it is the fault after them.
    let fault = capture.section_list_fault().map(|e| e.offset);
    (slices, instants, samples, fault)
}

#[test]
fn corpus_counts_and_both_exporters() {
    let files = corpus_paths("orbit", &["real"], "orbit")
        .into_iter()
        .chain(corpus_paths("orbit", &["generated"], "orbit"));
    let mut seen_real = 0;
    for path in files {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let (slices, instants, samples, fault) = expected(&bytes);
        let mut rec = Recorder::default();
        let (stats, result) = tracecap::adapter::convert_counted(Format::Orbit, &bytes, &mut rec);
        match (&result, fault) {
            (Ok(()), None) => {}
            (Err(ConvertError::Format(e)), Some(at)) => assert_eq!(e.offset(), at, "{name}"),
            (r, f) => panic!("{name}: convert {r:?}, crate fault {f:?}"),
        }
        assert!(rec.open.values().all(|s| s.is_empty()), "{name}: open");
        assert_eq!(stats.slices, slices, "{name}");
        assert_eq!(stats.instants, instants, "{name}");
        assert_eq!(stats.counter_samples, samples, "{name}");
        if name.contains("/real/") || name.contains("/gen_") {
            assert_eq!(tracecap::detect(&bytes), Some(Format::Orbit), "{name}");
        }
        if name.contains("/real/orbit") {
            seen_real += 1;
            assert!(stats.threads > 0 && stats.slices > 1000, "{name}");
            assert!(rec
                .tracks
                .values()
                .any(|t| t.0 == TrackKind::Slices && t.2.starts_with("CPU ")));
        }
        if name.contains("orbit168") {
            // Every kind of the Orbit API is there.
            assert_eq!(stats.counter_tracks, 11, "{name}");
            assert!(rec.tracks.values().any(|t| t.2.starts_with("async scopes")));
            assert!(rec.tracks.values().any(|t| t.2.ends_with(" state")));
            assert!(rec.tracks.values().any(|t| t.2.ends_with("API scopes")));
        }

        // Chrome JSON parses and has as many slices / instants / samples.
        let mut json = ChromeJson::new(Vec::new()).unwrap();
        let (s2, _) = tracecap::adapter::convert_counted(Format::Orbit, &bytes, &mut json);
        // The exporter reads stacks too; the recorder does not.
        let stacks = (s2.stacks, s2.stack_samples);
        let s2 = tracecap::Stats {
            stacks: 0,
            stack_samples: 0,
            ..s2
        };
        assert_eq!(s2, stats, "{name}");
        let doc: serde_json::Value = serde_json::from_slice(&json.finish().unwrap()).unwrap();
        let stack_samples = doc
            .get("samples")
            .map_or(0, |s| s.as_array().unwrap().len());
        assert_eq!(stack_samples as u64, stacks.1, "{name}");
        let events = doc["traceEvents"].as_array().unwrap();
        let count = |ph: &str| events.iter().filter(|e| e["ph"] == ph).count() as u64;
        assert_eq!(count("B"), count("E"), "{name}");
        assert_eq!(count("B") + count("X"), stats.slices, "{name}");
        assert_eq!(count("i"), stats.instants, "{name}");
        assert_eq!(count("C"), stats.counter_samples, "{name}");

        // Perfetto decodes; begin/end balance per track.
        let mut pf = Perfetto::new(Vec::new()).unwrap();
        let _ = tracecap::adapter::convert_counted(Format::Orbit, &bytes, &mut pf);
        let trace = Trace::decode(pf.finish().unwrap().as_slice()).unwrap();
        let mut depth: HashMap<u64, i64> = HashMap::new();
        let mut descriptors = 0u64;
        for p in &trace.packet {
            descriptors += u64::from(p.track_descriptor.is_some());
            if let Some(e) = &p.track_event {
                let d = depth.entry(e.track_uuid.unwrap()).or_default();
                match e.r#type() {
                    track_event::Type::SliceBegin => *d += 1,
                    track_event::Type::SliceEnd => {
                        *d -= 1;
                        assert!(*d >= 0, "{name}: end without begin");
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(descriptors, stats.tracks, "{name}");
        assert!(depth.values().all(|&d| d == 0), "{name}");
    }
    if !corpus_paths("orbit", &["real"], "orbit").is_empty() {
        assert_eq!(seen_real, 2);
    }
}

// --- hand-made captures -------------------------------------------------------------------

/// FunctionCall { pid 42, tid, function_id, end, depth, duration }.
fn call(tid: u64, id: u64, start: u64, end: u64, depth: u64) -> (u32, Vec<u8>) {
    (
        2,
        msg(&[
            (1, 42),
            (2, tid),
            (3, id),
            (5, end),
            (6, depth),
            (9, end - start),
        ]),
    )
}

/// An Orbit API event with a short name (encoded_name_1 at `name_field`, fixed64).
fn api(
    kind: u32,
    tid: u64,
    ts: u64,
    name: &str,
    name_field: u32,
    extra: &[(u32, u64)],
) -> (u32, Vec<u8>) {
    let mut m = msg(&[(1, 42), (2, tid), (3, ts)]);
    let mut chunk = [0u8; 8];
    chunk[..name.len()].copy_from_slice(name.as_bytes());
    varint(&mut m, (u64::from(name_field) << 3) | 1);
    m.extend_from_slice(&chunk);
    m.extend_from_slice(&msg(extra));
    (kind, m)
}

fn slices_on(rec: &Recorder, kind: impl Fn(&TrackKind, &str) -> bool) -> Vec<Ev> {
    rec.events
        .iter()
        .filter(|e| {
            let t = match e {
                Ev::Begin(t, ..) | Ev::End(t, _) | Ev::Complete(t, ..) => t,
                _ => return false,
            };
            let (k, _, n) = &rec.tracks[t];
            kind(k, n)
        })
        .cloned()
        .collect()
}

#[test]
fn calls_stored_children_first_become_nested_slices() {
    // Children end first; the second child crosses its parent's end and is clamped.
    let file = capture(&[
        call(7, 1, 10, 20, 1),
        call(7, 2, 30, 60, 1),
        call(7, 3, 5, 50, 0),
        call(7, 1, 70, 80, 0),
    ]);
    let mut rec = Recorder::default();
    tracecap::convert(Format::Orbit, &file, &mut rec).unwrap();
    let got = slices_on(&rec, |k, _| matches!(k, TrackKind::Thread { .. }));
    let t = match got[0] {
        Ev::Begin(t, ..) => t,
        _ => panic!(),
    };
    assert_eq!(
        got,
        vec![
            Ev::Begin(t, 5, "function 3".into()),
            Ev::Begin(t, 10, "function 1".into()),
            Ev::End(t, 20),
            Ev::Begin(t, 30, "function 2".into()),
            Ev::End(t, 50),
            Ev::End(t, 50),
            Ev::Begin(t, 70, "function 1".into()),
            Ev::End(t, 80),
        ]
    );
}

#[test]
fn api_scopes_async_scopes_and_tracks() {
    let file = capture(&[
        api(10, 7, 100, "outer", 4, &[]),
        api(10, 7, 110, "inner", 4, &[]),
        (11, msg(&[(1, 42), (2, 7), (3, 120)])),
        (11, msg(&[(1, 42), (2, 7), (3, 130)])),
        (11, msg(&[(1, 42), (2, 7), (3, 140)])), // unmatched stop: ignored
        api(38, 7, 100, "a", 4, &[(14, 1)]),
        api(38, 8, 105, "b", 4, &[(14, 2)]),
        (39, msg(&[(1, 42), (2, 7), (3, 150), (4, 1)])),
        api(38, 8, 160, "c", 4, &[(14, 3)]),
        api(38, 8, 170, "open", 4, &[(14, 4)]), // never stopped: closed at the end
        (39, msg(&[(1, 42), (2, 8), (3, 200), (4, 2)])),
        (39, msg(&[(1, 42), (2, 8), (3, 210), (4, 3)])),
        api(43, 7, 100, "val", 5, &[(4, 5)]),
        api(43, 7, 101, "val", 5, &[(4, 6)]),
    ]);
    let mut rec = Recorder::default();
    let stats = tracecap::convert(Format::Orbit, &file, &mut rec).unwrap();
    assert!(rec.open.values().all(|s| s.is_empty()));
    assert_eq!(stats.slices, 2 + 4);
    assert_eq!(stats.counter_samples, 2);
    assert_eq!(stats.counter_tracks, 1);
    let sync = slices_on(&rec, |_, n| n.ends_with("API scopes"));
    assert_eq!(sync.len(), 4);
    assert!(matches!(&sync[1], Ev::Begin(_, 110, n) if n == "inner"));
    assert!(matches!(sync[3], Ev::End(_, 130)));
    // Two overlapping async scopes need two lanes; "c" reuses the first one.
    let lanes = rec
        .tracks
        .values()
        .filter(|t| t.2.starts_with("async scopes"))
        .count();
    assert_eq!(lanes, 3);
}

fn check(bytes: &[u8], what: &str) {
    let mut rec = Recorder::default();
    let (_, result) = tracecap::adapter::convert_counted(Format::Orbit, bytes, &mut rec);
    if let Err(ConvertError::Format(e)) = result {
        assert!(
            e.offset() <= bytes.len() as u64,
            "{what}: offset past the end"
        );
    }
    assert!(
        rec.open.values().all(|s| s.is_empty()),
        "{what}: slices left open"
    );
}

#[test]
fn cut_and_mutated_files_never_panic_nor_leave_slices_open() {
    for path in corpus_paths("orbit", &["real"], "orbit")
        .into_iter()
        .chain(corpus_paths("orbit", &["generated"], "orbit"))
    {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        if bytes.is_empty() {
            continue;
        }
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            check(&bytes[..cut], &format!("{name} cut at {cut}"));
        }
        let rounds = if bytes.len() > 200_000 { 100 } else { 1000 };
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut copy = bytes.clone();
        for _ in 0..rounds {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % bytes.len() as u64) as usize;
            let old = copy[at];
            copy[at] = (seed >> 32) as u8;
            check(&copy, &format!("{name} byte {at} = {}", copy[at]));
            copy[at] = old;
        }
    }
}
