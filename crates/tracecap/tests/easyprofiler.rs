#![cfg(all(feature = "easyprofiler", feature = "std"))]
//! The EasyProfiler adapter and both exporters on the corpus and on hand-made captures.

mod common;

use std::collections::HashMap;

use common::{Ev, Recorder};
use tracecap_testkit::corpus_paths;

use prost::Message;
use tracecap::export::perfetto_proto::{track_event, Trace};
use tracecap::export::{ChromeJson, Perfetto};
use tracecap::timeline::{CounterValue, TrackId};
use tracecap::{ConvertError, Format};
use tracecap_easyprofiler::write::{
    CaptureModel, ContextSwitchModel, DescriptorModel, RecordModel, ThreadModel,
};
use tracecap_easyprofiler::{Capture, DescriptorKind, KindTable, NestSlot, Summary, Version};

#[test]
fn corpus_counts_nesting_and_both_exporters() {
    for path in corpus_paths("easyprofiler", &[], "prof") {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let capture = Capture::parse(&bytes).unwrap();
        let kinds = KindTable::new(&capture).unwrap();
        let summary = Summary::check(&capture, &kinds, &mut Vec::<NestSlot>::new()).unwrap();

        let mut rec = Recorder::default();
        let stats = tracecap::convert(Format::EasyProfiler, &bytes, &mut rec).unwrap();
        assert!(
            rec.open.values().all(|s| s.is_empty()),
            "{name}: slices left open"
        );
        assert_eq!(
            stats.slices,
            summary.blocks + summary.context_switches,
            "{name}"
        );
        assert_eq!(
            stats.instants + stats.counter_samples,
            summary.events + summary.values + u64::from(summary.bookmarks),
            "{name}"
        );
        assert_eq!(stats.threads, u64::from(summary.threads), "{name}");
        assert!(rec.max_depth as u32 <= summary.levels, "{name}");
        if name.ends_with("gen_toodeep.prof") {
            assert!(rec.max_depth >= 300, "{name}: depth {}", rec.max_depth);
        }

        // Chrome JSON parses, and has as many slices / instants / samples.
        let mut json = ChromeJson::new(Vec::new()).unwrap();
        let s2 = tracecap::convert(Format::EasyProfiler, &bytes, &mut json).unwrap();
        assert_eq!(s2, stats);
        let doc: serde_json::Value = serde_json::from_slice(&json.finish().unwrap()).unwrap();
        let events = doc["traceEvents"].as_array().unwrap();
        let count = |ph: &str| events.iter().filter(|e| e["ph"] == ph).count() as u64;
        assert_eq!(count("B"), count("E"), "{name}");
        assert_eq!(count("B") + count("X"), stats.slices, "{name}");
        assert_eq!(count("i"), stats.instants, "{name}");
        assert_eq!(count("C"), stats.counter_samples, "{name}");

        // Perfetto decodes with our schema; begin/end balance per track.
        let mut pf = Perfetto::new(Vec::new()).unwrap();
        tracecap::convert(Format::EasyProfiler, &bytes, &mut pf).unwrap();
        let trace = Trace::decode(pf.finish().unwrap().as_slice()).unwrap();
        let mut begins = 0u64;
        let mut depth: HashMap<u64, i64> = HashMap::new();
        let mut descriptors = 0u64;
        for p in &trace.packet {
            descriptors += u64::from(p.track_descriptor.is_some());
            if let Some(e) = &p.track_event {
                let d = depth.entry(e.track_uuid.unwrap()).or_default();
                match e.r#type() {
                    track_event::Type::SliceBegin => {
                        begins += 1;
                        *d += 1
                    }
                    track_event::Type::SliceEnd => {
                        *d -= 1;
                        assert!(*d >= 0, "{name}: end without begin");
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(begins, stats.slices, "{name}");
        assert_eq!(descriptors, stats.tracks, "{name}");
        assert!(depth.values().all(|&d| d == 0), "{name}");
    }
}

fn desc(kind: DescriptorKind, name: &str) -> DescriptorModel {
    DescriptorModel {
        id: 0,
        line: 7,
        color: 0xff112233,
        kind,
        status: 1,
        name: name.as_bytes().to_vec(),
        file: b"a.cpp".to_vec(),
    }
}

fn block(begin: u64, end: u64, id: u32, name: &str) -> RecordModel {
    RecordModel::Block {
        begin,
        end,
        id,
        name: name.as_bytes().to_vec(),
    }
}

fn model(records: Vec<RecordModel>) -> CaptureModel {
    let mut descriptors = vec![
        desc(DescriptorKind::Block, "blk"),
        desc(DescriptorKind::Event, "evt"),
        desc(DescriptorKind::Value, "val"),
    ];
    for (i, d) in descriptors.iter_mut().enumerate() {
        d.id = i as u32;
    }
    CaptureModel {
        version: Version::V2_1_0,
        pid: 7,
        cpu_frequency: 0,
        begin_time: 0,
        end_time: 100,
        descriptors,
        threads: vec![ThreadModel {
            id: 11,
            name: b"main".to_vec(),
            context_switches: vec![ContextSwitchModel {
                begin: 40,
                end: 45,
                target_thread: 12,
                name: b"other".to_vec(),
            }],
            records,
        }],
        bookmarks: Vec::new(),
    }
}

fn slices_of(rec: &Recorder) -> Vec<Ev> {
    rec.events
        .iter()
        .filter(|e| matches!(e, Ev::Begin(..) | Ev::End(..) | Ev::Instant(..)))
        .cloned()
        .collect()
}

#[test]
fn children_first_records_become_nested_slices_in_order() {
    // Stored children first: (2,3) and the event at 5 inside (1,6), all inside (0,10); then (10,12)
    // begins where (0,10) ends.
    let m = model(vec![
        block(2, 3, 0, "inner"),
        block(5, 5, 1, ""),
        block(1, 6, 0, ""),
        block(0, 10, 0, "outer"),
        block(10, 12, 0, ""),
    ]);
    let bytes = m.to_bytes().unwrap();
    let mut rec = Recorder::default();
    let stats = tracecap::convert(Format::EasyProfiler, &bytes, &mut rec).unwrap();
    let t = TrackId(4);
    assert_eq!(rec.tracks[&t].2, "main");
    assert_eq!(
        slices_of(&rec),
        vec![
            Ev::Begin(t, 0, "outer".into()),
            Ev::Begin(t, 1, "blk".into()),
            Ev::Begin(t, 2, "inner".into()),
            Ev::End(t, 3),
            Ev::Instant(t, 5, "evt".into()),
            Ev::End(t, 6),
            Ev::End(t, 10),
            Ev::Begin(t, 10, "blk".into()),
            Ev::End(t, 12),
        ]
    );
    assert_eq!(stats.slices, 5); // 4 blocks and the context switch
    assert!(rec
        .events
        .iter()
        .any(|e| *e == Ev::Complete(TrackId(5), 40, 5, "other".into())));
}

#[test]
fn overlapping_children_are_clamped_into_their_parent() {
    // Upstream's rule makes (0,10) a child of (5,20) although it begins earlier.
    let m = model(vec![block(0, 10, 0, "child"), block(5, 20, 0, "parent")]);
    let bytes = m.to_bytes().unwrap();
    let mut rec = Recorder::default();
    tracecap::convert(Format::EasyProfiler, &bytes, &mut rec).unwrap();
    let t = TrackId(4);
    assert_eq!(
        slices_of(&rec),
        vec![
            Ev::Begin(t, 5, "parent".into()),
            Ev::Begin(t, 5, "child".into()),
            Ev::End(t, 10),
            Ev::End(t, 20),
        ]
    );
}

#[test]
fn values_become_counters_or_instants() {
    let m = model(vec![
        RecordModel::Value {
            time: 3,
            id: 2,
            value_id: 1,
            data_type: tracecap_easyprofiler::DataType::Int32,
            is_array: false,
            data: (-5i32).to_le_bytes().to_vec(),
        },
        RecordModel::Value {
            time: 4,
            id: 2,
            value_id: 1,
            data_type: tracecap_easyprofiler::DataType::String,
            is_array: true,
            data: b"hi\0".to_vec(),
        },
    ]);
    let bytes = m.to_bytes().unwrap();
    let mut rec = Recorder::default();
    let stats = tracecap::convert(Format::EasyProfiler, &bytes, &mut rec).unwrap();
    assert_eq!(
        (stats.counter_samples, stats.instants, stats.counter_tracks),
        (1, 1, 1)
    );
    assert!(rec
        .events
        .iter()
        .any(|e| matches!(e, Ev::Counter(_, 3, CounterValue::Int(-5)))));
}

#[test]
fn damaged_capture_converts_what_precedes_the_damage() {
    let Some(path) = corpus_paths("easyprofiler", &[], "prof")
        .into_iter()
        .find(|p| p.ends_with("sample_small.prof"))
    else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() - 5] {
        let mut rec = Recorder::default();
        let (stats, result) =
            tracecap::adapter::convert_counted(Format::EasyProfiler, &bytes[..cut], &mut rec);
        match result {
            Err(ConvertError::Format(e)) => assert!(e.offset() <= cut as u64),
            other => panic!("cut at {cut}: {other:?}"),
        }
        assert!(stats.slices > 0, "cut at {cut}: nothing converted");
        assert!(rec.open.values().all(|s| s.is_empty()), "slices left open");
    }
}
