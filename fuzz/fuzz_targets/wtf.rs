//! WTF: arbitrary bytes through every reader path (header, chunks, events, arguments, JSON
//! presentation, timeline). No panic, every offset inside the input, the fixed-capacity and
//! growable wire-id tables agree event for event, the visitor walk agrees with the iterator, and
//! values decoded from the types packed per definition agree with values decoded from the
//! signature text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap_wtf::json::ArgsJson;
use tracecap_wtf::timeline::Timeline;
use tracecap_wtf::{Capture, FixedDefinitionTable};

/// A prefix of the input (cut where its last two bytes say) gives the input's events, in order,
/// up to where it stops, and its fault lies inside it.
fn check_prefix(data: &[u8], whole: &[(u64, u32, u32, Option<u16>)]) {
    let Some(&[a, b]) = data.last_chunk::<2>() else {
        return;
    };
    let cut = usize::from(u16::from_le_bytes([a, b])) % (data.len() + 1);
    let part = data.get(..cut).unwrap_or(&[]);
    let Ok(trace) = Capture::parse(part) else {
        return;
    };
    let mut n = 0;
    for ev in trace.events() {
        match ev {
            Ok(ev) => {
                let seen = (ev.offset, ev.wire_id, ev.time, ev.zone);
                assert_eq!(Some(&seen), whole.get(n), "cut at {cut}: event {n}");
                n += 1;
            }
            Err(e) => assert!(e.offset <= cut as u64, "cut at {cut}: {e}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let trace = match Capture::parse(data) {
        Ok(t) => t,
        Err(e) => {
            assert!(e.offset <= len, "{e}");
            return;
        }
    };
    let _ = trace.header().header_value();
    for c in trace.chunks() {
        match c {
            Ok(c) => {
                assert!(c.offset < len);
                for r in c.resources() {
                    if let Ok((_, p)) = r {
                        assert!(p.offset + p.data.len() as u64 <= len);
                    }
                }
                for p in c.parts() {
                    match p {
                        Ok(p) => assert!(p.offset + p.data.len() as u64 <= len),
                        Err(e) => assert!(e.offset <= len, "{e}"),
                    }
                }
            }
            Err(e) => assert!(e.offset <= len, "{e}"),
        }
    }

    let mut fmt = ArgsJson::new();
    let mut grown = Vec::new();
    let mut grown_err = None;
    for ev in trace.events() {
        match ev {
            Ok(ev) => {
                assert!(ev.offset < len);
                assert!(ev.offset + ev.arg_bytes().len() as u64 <= len);
                let _ = fmt.args(&ev);
                let _ = ev.zone_create();
                // Debug text: NaN floats compare unequal to themselves.
                let packed: Vec<String> = ev.values().map(|v| format!("{v:?}")).collect();
                let text: Vec<String> = ev
                    .args()
                    .map_while(Result::ok)
                    .map(|a| format!("{:?}", a.value))
                    .collect();
                assert_eq!(packed, text);
                grown.push((ev.offset, ev.wire_id, ev.time, ev.zone));
            }
            Err(e) => {
                assert!(e.offset <= len, "{e}");
                grown_err = Some(e);
            }
        }
    }

    // The visitor walk gives the same events, values and error as the iterator.
    let mut visited = Vec::new();
    let mut visited_values = 0usize;
    let visit_err = trace
        .events()
        .try_for_each_event::<tracecap_wtf::Error, _>(|ev| {
            visited.push((ev.offset, ev.wire_id, ev.time, ev.zone));
            visited_values += ev.values().count();
            Ok(())
        })
        .err();
    assert_eq!(visited, grown);
    assert_eq!(visit_err, grown_err);
    check_prefix(data, &grown);
    let iter_values: usize = trace
        .events()
        .map_while(Result::ok)
        .map(|ev| ev.values().count())
        .sum();
    assert_eq!(visited_values, iter_values);

    let mut fixed = Vec::new();
    let mut fixed_err = None;
    for ev in trace.events_with(FixedDefinitionTable::<256, 2048>::new()) {
        match ev {
            Ok(ev) => fixed.push((ev.offset, ev.wire_id, ev.time, ev.zone)),
            Err(e) => fixed_err = Some(e),
        }
    }
    match fixed_err {
        // A full table may stop the fixed walk early; up to there both agree.
        Some(e) if matches!(e.shared(), Some(tracecap_wtf::SharedKind::TableFull { .. })) => {
            assert!(fixed.len() <= grown.len());
            assert_eq!(fixed[..], grown[..fixed.len()]);
        }
        _ => {
            assert_eq!(fixed, grown);
            assert_eq!(fixed_err, grown_err);
        }
    }

    {
        let tl = Timeline::build(&trace);
        for z in &tl.zones {
            for s in z.scopes() {
                assert!(s.depth < tracecap_wtf::timeline::MAX_DEPTH);
            }
        }
    }
});
