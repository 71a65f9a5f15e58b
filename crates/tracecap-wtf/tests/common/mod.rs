//! Shared helpers of the integration tests: finding the corpus, decompressing `.xz`.
#![allow(dead_code)]

use tracecap_wtf::{Capture, Event, Value};

/// Every trace file of the corpus (relative name, bytes), `.xz` decompressed.
pub fn traces() -> Vec<(String, Vec<u8>)> {
    traces_where(|_, _| true)
}

/// The corpus trace files whose relative name and stored size pass `keep`, read and decompressed.
pub fn traces_where(keep: impl Fn(&str, u64) -> bool) -> Vec<(String, Vec<u8>)> {
    let Some(dir) = tracecap_testkit::corpus("wtf") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in ["cff-cpp", "cff-js", "legacy-v3"] {
        let mut entries: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let rel = format!("{sub}/{name}");
            let size = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
            if name.contains(".wtf-trace") && keep(&rel, size) {
                out.push((rel, tracecap_testkit::read(&p)));
            }
        }
    }
    out
}

/// What a consumer sees of an event, values included.
pub fn seen(ev: &Event<'_>) -> String {
    let values: Vec<Value<'_>> = ev.values().collect();
    format!(
        "{:#x} {} {} {} {:?} {} {:?} {values:?}",
        ev.offset,
        ev.chunk,
        ev.wire_id,
        ev.time,
        ev.zone,
        ev.name(),
        ev.arg_bytes()
    )
}

/// Every event and the error, from the iterator.
pub fn iterated(trace: &Capture<'_>) -> (Vec<String>, Option<tracecap_wtf::Error>) {
    let mut events = Vec::new();
    for ev in trace.events() {
        match ev {
            Ok(ev) => events.push(seen(&ev)),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

/// Every event and the error, from `try_for_each_event`.
pub fn visited(trace: &Capture<'_>) -> (Vec<String>, Option<tracecap_wtf::Error>) {
    let mut events = Vec::new();
    let mut walk = trace.events();
    let error = walk
        .try_for_each_event::<tracecap_wtf::Error, _>(|ev| {
            events.push(seen(&ev));
            Ok(())
        })
        .err();
    // Fused after an error, like the iterator.
    assert!(walk.next().is_none());
    (events, error)
}
