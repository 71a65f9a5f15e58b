//! Every corpus file against its oracle: events (offset, length, kind, proto3 JSON message,
//! decoded API name), header, sections, counts, USER_DATA, and Orbit's error for the bad files.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tracecap_orbit::{json, validate::validate, Capture, EventKind, Layout};

fn file_path(corpus: &Path, name: &str) -> PathBuf {
    let g = corpus.join("generated").join(name);
    if g.exists() {
        g
    } else {
        corpus.join("real").join(name)
    }
}

/// JSON equality where numbers compare by value (the oracle prints `1000.0`, we may print `1000`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || (x.as_f64().is_some() && x.as_f64() == y.as_f64())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn oracle_files(corpus: &Path) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(corpus.join("oracle")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".json") {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            out.push((name, v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn check_dump(data: &[u8], oracle: &Value, name: &str) {
    let capture = Capture::parse(data).unwrap_or_else(|e| panic!("{name}: {e}"));
    let h = &oracle["header"];
    let header: Value = serde_json::from_str(&json::header_line(&capture)).unwrap();
    for key in [
        "version",
        "capture_section_offset",
        "section_list_offset",
        "capture_section_end",
    ] {
        assert_eq!(header[key], h[key], "{name}: header {key}");
    }
    assert_eq!(header["sections"], h["sections"], "{name}: sections");
    let mut events = capture.events();
    let mut n = 0usize;
    let mut counts = std::collections::BTreeMap::<String, u64>::new();
    let want = oracle["events"].as_array().unwrap();
    for ev in events.by_ref() {
        let ev = ev.unwrap_or_else(|e| panic!("{name}: event {n}: {e}"));
        let line: Value = serde_json::from_str(&json::event_line(&ev).unwrap()).unwrap();
        if let Some(w) = want.get(n) {
            for key in ["offset", "length", "event"] {
                assert_eq!(line[key], w[key], "{name}: event {n} {key}");
            }
            assert!(
                same(&line["message"], &w["message"]),
                "{name}: event {n} message\n ours:   {}\n oracle: {}",
                line["message"],
                w["message"]
            );
            assert_eq!(
                line.get("decoded_name"),
                w.get("decoded_name"),
                "{name}: event {n} name"
            );
        }
        *counts.entry(ev.kind.name().to_string()).or_default() += 1;
        n += 1;
    }
    let cs = &oracle["capture_section"];
    assert!(n >= want.len(), "{name}: fewer events than the oracle");
    assert_eq!(
        n as u64,
        cs["event_count"].as_u64().unwrap(),
        "{name}: event count"
    );
    assert!(events.finished(), "{name}: CaptureFinished");
    assert_eq!(
        events.position(),
        cs["end_of_capture_finished"].as_u64().unwrap(),
        "{name}"
    );
    assert_eq!(
        events.trailing().len() as u64,
        cs["trailing_bytes_before_section_end"].as_u64().unwrap(),
        "{name}: trailing bytes"
    );
    let want_counts: std::collections::BTreeMap<String, u64> = cs["event_counts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    assert_eq!(counts, want_counts, "{name}: counts by kind");
    match (capture.user_data().unwrap(), oracle.get("user_data")) {
        (Some(ud), Some(w)) if !w.is_null() => {
            let line: Value = serde_json::from_str(&json::user_data_line(&ud).unwrap()).unwrap();
            assert!(same(&line["message"], &w["message"]), "{name}: user data");
            assert_eq!(
                ud.message.len() as u64,
                w["message_length"].as_u64().unwrap()
            );
            assert_eq!(ud.unused, w["unused_bytes_in_section"].as_u64().unwrap());
        }
        (None, None) => {}
        (None, Some(w)) if w.is_null() => {}
        (ours, theirs) => panic!("{name}: user data mismatch {ours:?} vs {theirs:?}"),
    }
    let summary = validate(data).unwrap_or_else(|e| panic!("{name}: validate: {e}"));
    assert_eq!(summary.events, n as u64);
}

#[test]
fn oracle_dumps_and_errors() {
    let Some(corpus) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    let mut checked = 0;
    for (oname, oracle) in oracle_files(&corpus) {
        let fname = oracle["file"].as_str().unwrap().to_string();
        let data = std::fs::read(file_path(&corpus, &fname)).unwrap();
        if let Some(err) = oracle.get("error") {
            let err = err.as_str().unwrap();
            if fname == "legacy_v1_orbit164_layout.orbit" {
                // Orbit >= 1.65 rejects the 1.64 layout; we recognise and read it.
                let c = Capture::parse(&data).unwrap();
                assert_eq!(c.layout(), Layout::Orbit164);
                let kinds: Vec<_> = c.events().map(|e| e.unwrap().kind).collect();
                assert_eq!(kinds.first(), Some(&EventKind::CaptureStarted));
                assert_eq!(kinds.last(), Some(&EventKind::CaptureFinished));
                let ud = c.user_data().unwrap().unwrap();
                let ids: Vec<u64> = ud
                    .view()
                    .unwrap()
                    .frame_tracks()
                    .unwrap()
                    .frame_track_function_ids
                    .iter()
                    .collect();
                assert_eq!(ids, [1]);
                validate(&data).unwrap();
                checked += 1;
                continue;
            }
            let (text, at) = match err.rfind(" (at ") {
                Some(i) => (&err[..i], err[i + 5..err.len() - 1].parse::<u64>().ok()),
                None => (err, None),
            };
            let e = validate(&data).expect_err(&fname);
            let ours = e.to_string().to_lowercase();
            assert!(
                ours.contains(&text.to_lowercase()),
                "{fname}: ours {ours:?} does not say {text:?}"
            );
            if let Some(at) = at {
                assert_eq!(e.offset, at, "{fname}: error offset");
            }
            assert!(e.offset <= data.len() as u64);
            checked += 1;
        } else if oname.ends_with(".orbit.json") || oname.ends_with(".first300.json") {
            check_dump(&data, &oracle, &fname);
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} oracle files checked");
}

#[test]
fn index_files_agree() {
    let Some(corpus) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    let mut checked = 0;
    for e in std::fs::read_dir(corpus.join("oracle")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let Some(fname) = name.strip_suffix(".index.tsv") else {
            continue;
        };
        let data = std::fs::read(file_path(&corpus, fname)).unwrap();
        let tsv = std::fs::read_to_string(&p).unwrap();
        let capture = Capture::parse(&data).unwrap();
        let mut events = capture.events();
        let mut lines = tsv.lines().skip(1);
        for (i, line) in lines.by_ref().enumerate() {
            let mut cols = line.split('\t');
            let off: u64 = cols.next().unwrap().parse().unwrap();
            let len: u32 = cols.next().unwrap().parse().unwrap();
            let kind = cols.next().unwrap();
            let ev = events
                .next()
                .unwrap_or_else(|| panic!("{fname}: missing event {i}"))
                .unwrap();
            assert_eq!(
                (ev.offset, ev.length, ev.kind.name()),
                (off, len, kind),
                "{fname}: event {i}"
            );
        }
        assert!(events.next().is_none(), "{fname}: extra events");
        checked += 1;
    }
    assert_eq!(checked, 2);
}

#[test]
fn legacy_file_is_named() {
    let Some(corpus) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    let data = std::fs::read(corpus.join("real/legacy_pre_orbt_OrbitTest_1-64.orbit")).unwrap();
    let e = Capture::parse(&data).unwrap_err();
    assert_eq!(e.kind, tracecap_orbit::ErrorKind::LegacyCapture);
    assert!(e.to_string().contains("legacy"));
}

#[test]
fn intern_tables_resolve_every_reference() {
    let Some(corpus) = tracecap_testkit::corpus("orbit") else {
        return;
    };
    use tracecap_orbit::intern::{FixedInternTable, InternLookup, InternTable};
    use tracecap_orbit::views::EventView;
    for f in [
        "real/orbit181_test_capture.orbit",
        "real/orbit168_OrbitTest_capture.orbit",
    ] {
        let data = std::fs::read(corpus.join(f)).unwrap();
        let capture = Capture::parse(&data).unwrap();
        let mut tables = InternTable::new();
        let mut fixed = FixedInternTable::<8192, 8192, 64>::new();
        let mut resolved = 0;
        for ev in capture.events() {
            let ev = ev.unwrap();
            let defined = tables.add(&ev).unwrap();
            assert_eq!(fixed.add(&ev).unwrap(), defined, "{f}");
            if defined {
                continue;
            }
            match ev.view().unwrap() {
                EventView::CallstackSample(s) => {
                    assert!(
                        tables.callstack(s.callstack_id).is_some(),
                        "{f}: callstack {}",
                        s.callstack_id
                    );
                    resolved += 1;
                }
                EventView::AddressInfo(a) => {
                    assert!(
                        tables.string(a.function_name_key).is_some(),
                        "{f}: function name"
                    );
                    assert!(
                        tables.string(a.module_name_key).is_some(),
                        "{f}: module name"
                    );
                    resolved += 1;
                }
                _ => {}
            }
        }
        assert!(resolved > 100, "{f}: {resolved}");
        assert!(tables.string_count() > 0 && tables.callstack_count() > 0);
        assert_eq!(
            (
                fixed.string_count(),
                fixed.callstack_count(),
                fixed.redefinitions()
            ),
            (
                tables.string_count(),
                tables.callstack_count(),
                tables.redefinitions()
            ),
            "{f}"
        );
        // A table that is too small says so at the definition that does not fit.
        let mut small = FixedInternTable::<1, 1, 1>::new();
        let full = capture
            .events()
            .map(|ev| small.add(&ev.unwrap()))
            .find_map(Result::err)
            .unwrap();
        assert!(
            matches!(
                full.kind,
                tracecap_orbit::ErrorKind::Shared(tracecap_orbit::SharedKind::TableFull {
                    capacity: 1,
                    ..
                })
            ),
            "{f}: {full}"
        );
    }
}
