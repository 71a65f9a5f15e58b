//! The WTF adapter: every corpus file through the checking sink and both exporters, scope pairing
//! against the crate's loader-order timeline, hand-made traces (time wrap, appended data, time
//! ranges, frames, flows), and cut or mutated files.
#![cfg(all(feature = "wtf", feature = "std"))]

mod common;

use std::collections::HashMap;

use common::{Ev, Recorder};
use prost::Message;
use tracecap::export::perfetto_proto::{track_event, Trace as PTrace};
use tracecap::export::{ChromeJson, Perfetto};
use tracecap::timeline::{TrackId, TrackKind};
use tracecap::wtf::timeline::{Role, Timeline};
use tracecap::wtf::write::{ChunkedWriter, WValue};
use tracecap::wtf::{
    Builtin, Capture, CLASS_INSTANCE, CLASS_SCOPE, FLAG_APPEND_SCOPE_DATA, FLAG_BUILTIN,
    FLAG_INTERNAL,
};
use tracecap::{ConvertError, Format};

/// What the loader's view (the crate's `Timeline`) says the conversion must contain.
#[derive(Default, Debug)]
struct Expected {
    enters: u64,
    ranges: u64,
    frames: u64,
    instants: u64,
    appends: u64,
    /// Per zone name: (begin, end) of every scope in begin order, in ns (open: the zone's last time).
    scopes: HashMap<String, Vec<(u64, u64)>>,
}

fn expected(bytes: &[u8]) -> Expected {
    let trace = Capture::parse(bytes).unwrap();
    let tl = Timeline::build(&trace);
    assert_eq!(tl.fault, None);
    let mut x = Expected::default();
    for z in &tl.zones {
        if z.events.is_empty() {
            continue;
        }
        let name = match (z.id, z.info.and_then(|i| i.name)) {
            (None, _) => "Script".to_string(),
            (_, Some(n)) => tracecap::wtf::text_lossy(n).into_owned(),
            (Some(id), None) => format!("zone {id}"),
        };
        let last = u64::from(z.events.iter().map(|e| e.time).max().unwrap()) * 1000;
        let mut scopes = Vec::new();
        for s in z.scopes() {
            let builtin = s.event.flags() & FLAG_BUILTIN != 0;
            match s.role {
                Role::Enter => {
                    x.enters += 1;
                    scopes.push((
                        u64::from(s.event.time) * 1000,
                        s.end_time.map_or(last, |t| u64::from(t) * 1000),
                    ));
                }
                Role::Append { .. } => x.appends += 1,
                Role::Leave { .. } => {}
                Role::Instance => match s.event.builtin() {
                    Some(Builtin::TimeRangeBegin) if builtin => x.ranges += 1,
                    Some(Builtin::TimeRangeEnd) if builtin => {}
                    Some(Builtin::FrameStart) => x.frames += 1,
                    Some(Builtin::FrameEnd) => {}
                    _ => x.instants += 1,
                },
            }
        }
        assert!(x.scopes.insert(name, scopes).is_none(), "zone names unique");
    }
    x
}

/// (begin, end) of every slice of `track`, in begin order.
fn slices_of(rec: &Recorder, track: TrackId) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for e in &rec.events {
        match e {
            Ev::Begin(t, ts, _) if *t == track => {
                stack.push(out.len());
                out.push((*ts, 0));
            }
            Ev::End(t, ts) if *t == track => out[stack.pop().unwrap()].1 = *ts,
            _ => {}
        }
    }
    out
}

#[test]
fn corpus_converts_as_the_loader_pairs_scopes() {
    for (name, bytes) in tracecap_testkit::corpus_files("wtf", &["cff-cpp", "cff-js", "legacy-v3"])
    {
        if name.ends_with(".wtf-trace") {
            check_file(&name, &bytes);
        }
    }
}

/// The complete blk originals (xz in the corpus): browser events there come up to ~1 s and
/// ~98,000 events late in the file, which the reorder queue must still put in the loader's order.
#[test]
fn full_blk_originals_pair_like_the_loader() {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return;
    };
    for f in ["blk-client.wtf-trace.xz", "blk-server.wtf-trace.xz"] {
        let xz = std::fs::read(dir.join("legacy-v3").join(f)).unwrap();
        let mut bytes = Vec::new();
        lzma_rs::xz_decompress(&mut xz.as_slice(), &mut bytes).unwrap();
        check_file(f, &bytes);
    }
}

fn check_file(name: &str, bytes: &[u8]) {
    {
        let bytes = bytes.to_vec();
        assert_eq!(tracecap::detect(&bytes), Some(Format::Wtf), "{name}");
        let x = expected(&bytes);
        let mut rec = Recorder::default();
        let report = tracecap::adapter::wtf::convert_with(&bytes, &mut rec).unwrap();
        println!(
            "{name}: {report:?}, {} appends, {} instance events, event size {}",
            x.appends,
            x.instants,
            std::mem::size_of::<tracecap::wtf::Event<'_>>()
        );
        assert_eq!(
            report.clamped, 0,
            "{name}: every zone is in time order in the file"
        );
        assert!(rec.open.values().all(|s| s.is_empty()), "{name}");
        let (stats, result) =
            tracecap::adapter::convert_counted(Format::Wtf, &bytes, &mut Recorder::default());
        result.unwrap();
        assert_eq!(stats.slices, x.enters + x.ranges + x.frames, "{name}");
        // Every append of the corpus reaches its scope: no instant for any of them.
        assert_eq!(stats.instants, x.instants, "{name}");
        assert_eq!(
            stats.flow_ends > 0,
            name.contains("blk") || name.contains("js-"),
            "{name}"
        );
        // Scope pairing and times, zone by zone, exactly as the loader's order gives them.
        for (zone, want) in &x.scopes {
            let track = rec
                .tracks
                .iter()
                .find(|(_, t)| matches!(t.0, TrackKind::Thread { .. }) && &t.2 == zone)
                .map(|(id, _)| *id);
            let got = track.map(|t| slices_of(&rec, t)).unwrap_or_default();
            assert_eq!(&got, want, "{name}: zone {zone}");
        }

        // Chrome JSON: parses, B/E balanced, counts agree.
        let mut json = ChromeJson::new(Vec::new()).unwrap();
        let s = tracecap::convert(Format::Wtf, &bytes, &mut json).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&json.finish().unwrap()).unwrap();
        let events = doc["traceEvents"].as_array().unwrap();
        let count = |ph: &str| events.iter().filter(|e| e["ph"] == ph).count() as u64;
        assert_eq!(count("B"), count("E"), "{name}");
        assert_eq!(count("B") + count("X"), s.slices, "{name}");
        assert_eq!(count("i"), s.instants, "{name}");

        // Perfetto: decodes, begin/end balanced per track, one descriptor per track.
        let mut pf = Perfetto::new(Vec::new()).unwrap();
        let s = tracecap::convert(Format::Wtf, &bytes, &mut pf).unwrap();
        let trace = PTrace::decode(pf.finish().unwrap().as_slice()).unwrap();
        let (mut begins, mut instants, mut descriptors) = (0u64, 0u64, 0u64);
        let mut depth: HashMap<u64, i64> = HashMap::new();
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
                    track_event::Type::Instant => instants += 1,
                    _ => {}
                }
            }
        }
        assert_eq!(begins, s.slices, "{name}");
        assert_eq!(instants, s.instants, "{name}");
        assert_eq!(descriptors, s.tracks, "{name}");
        assert!(depth.values().all(|&d| d == 0), "{name}");
    }
}

#[test]
fn appended_data_reaches_its_scope() {
    for (file, scope, key) in [
        ("cff-cpp/cpp-basic.wtf-trace", "App#middle", "extra"),
        (
            "cff-js/js-snapshot-alltypes.wtf-trace",
            "test#scope",
            "appended",
        ),
    ] {
        let Some(dir) = tracecap_testkit::corpus("wtf") else {
            return;
        };
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let x = expected(&bytes);
        let mut json = ChromeJson::new(Vec::new()).unwrap();
        let s = tracecap::convert(Format::Wtf, &bytes, &mut json).unwrap();
        // Every append merged: no instant for it.
        assert_eq!(s.instants, x.instants, "{file}");
        let doc: serde_json::Value = serde_json::from_slice(&json.finish().unwrap()).unwrap();
        let b = doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["ph"] == "B" && e["name"] == scope)
            .unwrap()
            .clone();
        assert!(b["args"].get(key).is_some(), "{file}: {b}");
    }
}

const LEAVE: u32 = 2;
const ZCREATE: u32 = 3;
const ZSET: u32 = 4;
const WORK: u32 = 5;
const APPEND: u32 = 6;
const TICK: u32 = 7;
const RBEGIN: u32 = 8;
const REND: u32 = 9;
const FSTART: u32 = 10;
const FEND: u32 = 11;
const BRANCH: u32 = 12;
const TERM: u32 = 13;
const ENTER: u32 = 14;

fn writer() -> ChunkedWriter {
    let b = FLAG_BUILTIN | FLAG_INTERNAL;
    let mut w = ChunkedWriter::new(0xE821_4400, r#"{"type":"file_header","timebase":0}"#);
    let defs: [(u32, u16, u32, &str, &str); 13] = [
        (LEAVE, CLASS_INSTANCE, b, "wtf.scope#leave", ""),
        (
            ZCREATE,
            CLASS_INSTANCE,
            b,
            "wtf.zone#create",
            "uint16 zoneId, ascii name, ascii type, ascii location",
        ),
        (ZSET, CLASS_INSTANCE, b, "wtf.zone#set", "uint16 zoneId"),
        (WORK, CLASS_SCOPE, 0, "App#work", "int32 n"),
        (
            APPEND,
            CLASS_INSTANCE,
            b | FLAG_APPEND_SCOPE_DATA,
            "wtf.scope#appendData",
            "ascii name, any value",
        ),
        (TICK, CLASS_INSTANCE, 0, "App#tick", "uint32 i"),
        (
            RBEGIN,
            CLASS_INSTANCE,
            b,
            "wtf.timeRange#begin",
            "uint32 id, ascii name, any value",
        ),
        (REND, CLASS_INSTANCE, b, "wtf.timeRange#end", "uint32 id"),
        (
            FSTART,
            CLASS_INSTANCE,
            FLAG_INTERNAL,
            "wtf.timing#frameStart",
            "uint32 number",
        ),
        (
            FEND,
            CLASS_INSTANCE,
            FLAG_INTERNAL,
            "wtf.timing#frameEnd",
            "uint32 number",
        ),
        (
            BRANCH,
            CLASS_INSTANCE,
            b,
            "wtf.flow#branch",
            "flowId id, flowId parentId, ascii name, any value",
        ),
        (
            TERM,
            CLASS_INSTANCE,
            b,
            "wtf.flow#terminate",
            "flowId id, any value",
        ),
        (
            ENTER,
            CLASS_SCOPE,
            FLAG_BUILTIN,
            "wtf.scope#enter",
            "ascii name",
        ),
    ];
    for (id, class, flags, name, args) in defs {
        w.define(id as u16, class, flags, name, args).unwrap();
    }
    let s = |v: &str| WValue::Ascii(Some(v.to_string()));
    w.event(
        ZCREATE,
        0,
        &[WValue::Uint16(1), s("main"), s("script"), s("here")],
    )
    .unwrap();
    w.event(ZSET, 0, &[WValue::Uint16(1)]).unwrap();
    w
}

fn chrome(bytes: &[u8]) -> (tracecap::Stats, Vec<serde_json::Value>) {
    let mut json = ChromeJson::new(Vec::new()).unwrap();
    let s = tracecap::convert(Format::Wtf, bytes, &mut json).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.finish().unwrap()).unwrap();
    (s, doc["traceEvents"].as_array().unwrap().clone())
}

#[test]
fn time_wrap_is_unwrapped() {
    let mut w = writer();
    w.event(WORK, 0xFFFF_FF00, &[WValue::Int32(1)]).unwrap();
    w.event(TICK, 0xFFFF_FFF0, &[WValue::Uint32(1)]).unwrap();
    w.end_chunk();
    w.event(TICK, 0x10, &[WValue::Uint32(2)]).unwrap();
    w.event(LEAVE, 0x20, &[]).unwrap();
    let bytes = w.finish();
    let mut rec = Recorder::default();
    let report = tracecap::adapter::wtf::convert_with(&bytes, &mut rec).unwrap();
    assert_eq!(report.clamped, 0);
    let wrap = 1u64 << 32;
    assert!(rec.events.contains(&Ev::Begin(
        rec.events
            .iter()
            .find_map(|e| match e {
                Ev::Begin(t, ..) => Some(*t),
                _ => None,
            })
            .unwrap(),
        0xFFFF_FF00 * 1000,
        "App#work".into()
    )));
    let times: Vec<u64> = rec
        .events
        .iter()
        .filter_map(|e| match e {
            Ev::Instant(_, ts, _) => Some(*ts),
            Ev::End(_, ts) => Some(*ts),
            _ => None,
        })
        .collect();
    assert_eq!(
        times,
        [
            0xFFFF_FFF0 * 1000,
            (wrap + 0x10) * 1000,
            (wrap + 0x20) * 1000
        ]
    );
}

#[test]
fn scopes_ranges_frames_flows_and_appends() {
    let mut w = writer();
    let s = |v: &str| WValue::Ascii(Some(v.to_string()));
    let any = |v: &str| WValue::Any(Some(v.to_string()));
    w.event(FSTART, 5, &[WValue::Uint32(1)]).unwrap();
    w.event(RBEGIN, 6, &[WValue::Uint32(9), s("loading"), any("1")])
        .unwrap();
    w.event(RBEGIN, 7, &[WValue::Uint32(10), s("overlap"), any("null")])
        .unwrap();
    w.event(ENTER, 10, &[s("renamed")]).unwrap();
    w.event(TICK, 11, &[WValue::Uint32(1)]).unwrap();
    w.event(APPEND, 12, &[s("k"), any("{\"a\":1}")]).unwrap();
    w.event(
        BRANCH,
        13,
        &[
            WValue::FlowId(77),
            WValue::FlowId(0),
            s("send"),
            any("null"),
        ],
    )
    .unwrap();
    w.event(LEAVE, 14, &[]).unwrap();
    w.event(LEAVE, 15, &[]).unwrap(); // nothing open: ignored
    w.event(REND, 16, &[WValue::Uint32(9)]).unwrap();
    w.event(TERM, 17, &[WValue::FlowId(77), any("null")])
        .unwrap();
    w.event(FEND, 18, &[WValue::Uint32(1)]).unwrap();
    // A long scope: more than the hold limit of events, then an append that can no longer merge.
    w.event(WORK, 20, &[WValue::Int32(2)]).unwrap();
    for i in 0..1100 {
        w.event(TICK, 21 + i, &[WValue::Uint32(i)]).unwrap();
    }
    w.event(APPEND, 2000, &[s("late"), any("2")]).unwrap();
    w.event(WORK, 2001, &[WValue::Int32(3)]).unwrap(); // left open at the end
    let bytes = w.finish();

    let mut rec = Recorder::default();
    tracecap::adapter::wtf::convert_with(&bytes, &mut rec).unwrap();
    assert!(rec.open.values().all(|s| s.is_empty()));
    // Scopes, ranges and flows keep the names their arguments give them for a sink that reads
    // no arguments, which gets only the frame's number.
    let (with, without) = common::same_without_args(Format::Wtf, &bytes, "scopes");
    assert!(without == 1 && with > 1000, "{without} arguments of {with}");
    let (stats, events) = chrome(&bytes);
    // Slices: frame, two ranges, renamed scope, two App#work.
    assert_eq!(stats.slices, 6);
    // Instants: 1101 ticks, branch, terminate, the late append.
    assert_eq!(stats.instants, 1104);
    assert_eq!(stats.flow_ends, 2);
    let find = |ph: &str, name: &str| {
        events
            .iter()
            .find(|e| e["ph"] == ph && e["name"] == name)
            .unwrap_or_else(|| panic!("no {ph} {name}"))
            .clone()
    };
    assert_eq!(find("B", "renamed")["args"]["k"], "{\"a\":1}");
    assert_eq!(find("B", "frame 1")["ts"], 5);
    assert!(find("B", "loading")["tid"] != find("B", "overlap")["tid"]);
    assert_eq!(find("i", "send")["args"]["id"], 77);
    assert_eq!(find("i", "wtf.scope#appendData")["args"]["name"], "late");
    // The open-at-end scope closes at the zone's last time.
    let main: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["tid"] == find("B", "renamed")["tid"] && (e["ph"] == "E"))
        .collect();
    assert_eq!(main.last().unwrap()["ts"], 2001);
}

fn check_damaged(bytes: &[u8], what: &str) {
    let mut rec = Recorder::default();
    let (_, result) = tracecap::adapter::convert_counted(Format::Wtf, bytes, &mut rec);
    if let Err(ConvertError::Format(e)) = result {
        assert!(
            e.offset() <= bytes.len() as u64,
            "{what}: offset {e} past the end"
        );
    }
    assert!(
        rec.open.values().all(|s| s.is_empty()),
        "{what}: slices left open"
    );
}

#[test]
fn cut_and_mutated_files_never_panic() {
    for (name, bytes) in tracecap_testkit::corpus_files("wtf", &["cff-cpp", "cff-js", "legacy-v3"])
    {
        if !name.ends_with(".wtf-trace") {
            continue;
        }
        // Big files: fewer cuts (the small ones cover the same structures).
        let cuts = if bytes.len() > 200_000 { 60 } else { 600 };
        let step = (bytes.len() / cuts).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            check_damaged(&bytes[..cut], &format!("{name} cut at {cut}"));
        }
        if bytes.len() > 200_000 {
            continue;
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut copy = bytes.clone();
        for _ in 0..1500 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % bytes.len() as u64) as usize;
            let old = copy[at];
            copy[at] = (seed >> 32) as u8;
            check_damaged(&copy, &format!("{name} byte {at} = {}", copy[at]));
            copy[at] = old;
        }
    }
}
