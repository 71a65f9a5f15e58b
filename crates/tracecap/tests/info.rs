//! `tracecap::info` on every corpus capture, whole and cut short: a report (or a header fault)
//! and never a panic; the report's JSON object opens with its format and states its fault, at an
//! offset inside the input, in `error`; a report's lists hold what its counts say.
#![cfg(all(
    feature = "std",
    feature = "easyprofiler",
    feature = "syscall",
    feature = "apitrace",
    feature = "wtf",
    feature = "orbit"
))]

use serde_json::Value;
use tracecap::info::{info, Info};
use tracecap::Format;
use tracecap_testkit::corpus_paths;

/// The corpus folder and file extension of each format.
const FORMATS: [(Format, &str, &str); 5] = [
    (Format::EasyProfiler, "easyprofiler", "prof"),
    (Format::Syscall, "syscall", "dat"),
    (Format::Apitrace, "apitrace", "trace"),
    (Format::Wtf, "wtf", "wtf-trace"),
    (Format::Orbit, "orbit", "orbit"),
];

/// Checks the report of `bytes` (or its header fault); returns it as JSON.
fn check(format: Format, bytes: &[u8], what: &str) -> Option<Value> {
    let report = match info(format, bytes) {
        Ok(r) => r,
        Err(fault) => {
            assert!(
                fault.offset() <= bytes.len() as u64,
                "{what}: header fault {fault} past the end"
            );
            return None;
        }
    };
    let json: Value = serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
    let object = json.as_object().unwrap();
    assert_eq!(
        object.iter().next().map(|(k, v)| (k.as_str(), v.as_str())),
        Some(("format", Some(format.name()))),
        "{what}: the object opens with its format"
    );
    match report.fault() {
        None => assert_eq!(object["error"], Value::Null, "{what}"),
        Some(f) => {
            assert!(f.offset() <= bytes.len() as u64, "{what}: {f} past the end");
            assert_eq!(object["error"]["what"], f.what(), "{what}");
            assert_eq!(object["error"]["offset"], f.offset(), "{what}");
        }
    }
    let len = |key: &str| object[key].as_array().map_or(0, Vec::len) as u64;
    match &report {
        Info::EasyProfiler(i) => {
            assert_eq!(len("threads"), u64::from(i.summary.threads), "{what}");
            assert_eq!(i.threads().len() as u64, len("threads"), "{what}");
        }
        Info::Syscall(i) => {
            assert_eq!(len("threads"), i.threads.len() as u64, "{what}");
            let by_name: u64 = object["by_name"]
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum();
            assert_eq!(by_name, i.syscalls, "{what}");
        }
        Info::Orbit(i) => {
            assert_eq!(len("threads"), i.threads.len() as u64, "{what}");
            assert_eq!(len("sections"), i.capture.sections().len() as u64, "{what}");
            assert_eq!(i.counts.values().sum::<u64>(), i.events, "{what}");
        }
        Info::Wtf(i) => {
            let zone_events: u64 = i.zones.values().map(|z| z.events).sum();
            assert_eq!(zone_events, i.events, "{what}");
            assert_eq!(len("zones"), i.zones.len() as u64, "{what}");
        }
        Info::Apitrace(i) => {
            assert_eq!(object["threads"], i.threads.len(), "{what}");
        }
        _ => unreachable!("every format is on"),
    }
    Some(json)
}

#[test]
fn every_capture_whole_and_cut() {
    for (format, dir, ext) in FORMATS {
        for path in corpus_paths(dir, &[], ext) {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.display().to_string();
            check(format, &bytes, &name);
            if bytes.len() > 2_000_000 {
                continue; // the small files cover the same structures
            }
            let step = (bytes.len() / 40).max(1);
            for cut in (0..bytes.len()).step_by(step) {
                check(format, &bytes[..cut], &format!("{name} cut at {cut}"));
            }
        }
    }
}

/// A capture cut short is reported up to the cut: the EasyProfiler sample, cut inside its
/// threads, still has its header and the threads before the cut, and its fault.
#[test]
fn a_cut_capture_is_reported_up_to_the_fault() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/sample_small.prof"
    );
    let bytes = std::fs::read(path).unwrap();
    let whole = check(Format::EasyProfiler, &bytes, "whole").unwrap();
    assert_eq!(whole["error"], Value::Null);
    let cut = &bytes[..bytes.len() * 3 / 4];
    let part = check(Format::EasyProfiler, cut, "cut").unwrap();
    assert_eq!(part["version"], whole["version"]);
    assert!(part["error"]["offset"].as_u64().unwrap() <= cut.len() as u64);
    let total = |j: &Value| j["records"]["total"].as_u64().unwrap();
    assert!(0 < total(&part) && total(&part) < total(&whole));
}
