//! Every corpus file cut at every prefix (big files: at every event boundary and a sample of
//! offsets) and mutated byte by byte: no panic, errors inside the file, and every event that
//! precedes the damage is still returned unchanged.

use tracecap_orbit::{json, validate::validate, Capture, Event, EventKind};
use tracecap_testkit::Rng;

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Seen {
    offset: u64,
    length: u32,
    kind: EventKind,
    end: u64,
}

/// Walks everything the crate can do with `data`; returns the events seen before the first error.
fn walk(data: &[u8], deep: bool) -> Vec<Seen> {
    let len = data.len() as u64;
    let mut seen = Vec::new();
    let capture = match Capture::parse(data) {
        Ok(c) => c,
        Err(e) => {
            assert!(e.offset <= len, "error offset {} beyond {len}", e.offset);
            return seen;
        }
    };
    let _ = json::header_line(&capture);
    let mut events = capture.events();
    for ev in events.by_ref() {
        match ev {
            Ok(ev) => {
                seen.push(Seen {
                    offset: ev.offset,
                    length: ev.length,
                    kind: ev.kind,
                    end: ev.message_offset + u64::from(ev.length),
                });
                check_event(&ev, len, deep);
            }
            Err(e) => assert!(e.offset <= len, "event error at {} beyond {len}", e.offset),
        }
    }
    match capture.user_data() {
        Ok(Some(ud)) => {
            if let Ok(v) = ud.view() {
                let _ = v
                    .frame_tracks()
                    .map(|f| f.frame_track_function_ids.iter().count());
            }
            if deep {
                let _ = json::user_data_line(&ud);
            }
        }
        Ok(None) => {}
        Err(e) => assert!(e.offset <= len),
    }
    if deep {
        if let Err(e) = validate(data) {
            assert!(
                e.offset <= len,
                "validate error at {} beyond {len}",
                e.offset
            );
        }
    }
    seen
}

fn check_event(ev: &Event<'_>, len: u64, deep: bool) {
    match ev.view() {
        Ok(v) => {
            if let Some(n) = v.api_name() {
                let _ = n.bytes().count();
            }
            let _ = v.time_span();
        }
        Err(e) => assert!(e.offset <= len, "view error at {} beyond {len}", e.offset),
    }
    if deep {
        if let Err(e) = json::event_line(ev) {
            assert!(e.offset <= len);
        }
    }
}

fn files() -> Vec<(String, Vec<u8>)> {
    tracecap_testkit::corpus_files("orbit", &["real", "generated"])
}

#[test]
fn prefixes() {
    for (name, data) in files() {
        let full = walk(&data, false);
        let small = data.len() <= 30_000;
        let mut cuts: Vec<usize> = if small {
            (0..=data.len()).collect()
        } else {
            let mut c: Vec<usize> = full
                .iter()
                .flat_map(|s| [s.offset as usize, s.offset as usize + 1, s.end as usize - 1])
                .step_by(if data.len() > 500_000 { 31 } else { 5 })
                .collect();
            let mut rng = Rng(0x5eed ^ data.len() as u64);
            c.extend((0..300).map(|_| (rng.next_u64() % data.len() as u64) as usize));
            c
        };
        cuts.sort_unstable();
        cuts.dedup();
        for cut in cuts {
            let prefix = &data[..cut];
            let seen = walk(prefix, small && cut % 16 == 0);
            // Without a section list the capture runs to the end of the prefix: every event that
            // ends inside it must come back unchanged.
            if Capture::parse(prefix).is_ok_and(|c| c.header().section_list_offset == 0) {
                let want: Vec<_> = full
                    .iter()
                    .filter(|s| s.end <= cut as u64)
                    .copied()
                    .collect();
                assert!(seen.len() >= want.len(), "{name} cut at {cut}: lost events");
                assert_eq!(&seen[..want.len()], &want[..], "{name} cut at {cut}");
            }
        }
    }
}

#[test]
fn mutations() {
    for (name, data) in files() {
        let full = walk(&data, false);
        let small = data.len() <= 30_000;
        let rounds = if small {
            1500
        } else if data.len() > 500_000 {
            120
        } else {
            400
        };
        let mut rng = Rng(0xfeed ^ data.len() as u64);
        let capture_start = 24u64;
        let list = Capture::parse(&data)
            .map(|c| c.header().section_list_offset)
            .unwrap_or(0);
        for _ in 0..rounds {
            let mut m = data.clone();
            if m.is_empty() {
                break;
            }
            let at = (rng.next_u64() % m.len() as u64) as usize;
            let byte = rng.next_u64() as u8;
            m[at] = if m[at] == byte { byte ^ 0x80 } else { byte };
            let seen = walk(&m, small && at % 4 == 0);
            let at = at as u64;
            // Damage inside the events (not the header or the list): the events before it stay.
            if !full.is_empty() && at >= capture_start && (list == 0 || at < list) {
                let want: Vec<_> = full.iter().filter(|s| s.end <= at).copied().collect();
                assert!(seen.len() >= want.len(), "{name} byte {at}: lost events");
                assert_eq!(&seen[..want.len()], &want[..], "{name} byte {at}");
            }
        }
    }
}

#[test]
fn hostile_lengths_fail_cleanly() {
    let header = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
    // An event length of 4 GiB - 1.
    let mut f = header.to_vec();
    f.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    let e = Capture::parse(&f)
        .unwrap()
        .events()
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.kind,
        tracecap_orbit::ErrorKind::MessageTooBig(0xffff_ffff)
    );
    assert_eq!(e.offset, 24);
    // A section list claiming 65535 entries in a short file.
    let mut f = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\x18\0\0\0\0\0\0\0".to_vec();
    f.extend_from_slice(&65535u64.to_le_bytes());
    let c = Capture::parse(&f).unwrap();
    let e = c.section_list_fault().unwrap();
    assert!(matches!(
        e.kind,
        tracecap_orbit::ErrorKind::Shared(tracecap_wire::ErrorKind::Truncated {
            what: tracecap_orbit::what::SECTION_LIST,
            ..
        })
    ));
    assert_eq!(c.user_data().unwrap_err(), e);
    assert_eq!(c.check_layout(24).unwrap_err(), e);
    // Section list offset beyond the file: the capture section ends at the end of the file.
    let mut f = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0".to_vec();
    f.extend_from_slice(&u64::MAX.to_le_bytes());
    let c = Capture::parse(&f).unwrap();
    assert!(c.section_list_fault().is_some());
    assert_eq!(c.capture_section_bound(), 24);
    assert_eq!(validate(&f).unwrap_err().offset, 24);
    // Non-canonical events (Orbit's size check): an over-long varint, a default value written.
    let mut f = header.to_vec();
    f.extend_from_slice(&[7, 0x32, 5, 0x08, 0x80, 0x80, 0x80, 0x00]); // scheduling_slice{pid: 0 in 4 bytes}
    f.extend_from_slice(&[3, 0xda, 0x01, 0]);
    let e = validate(&f).unwrap_err();
    assert!(
        matches!(
            e.kind,
            tracecap_orbit::ErrorKind::NonCanonicalMessage {
                parsed: 2,
                stated: 7
            }
        ),
        "{e}"
    );
    // A known field with a foreign wire type: Orbit would keep it as an unknown field, but the
    // view (like prost) rejects it, and so does validate, at the same offset.
    let mut f = header.to_vec();
    f.extend_from_slice(&[5, 0x32, 3, 0x0a, 1, b'x']); // scheduling_slice{pid: LEN "x"}
    f.extend_from_slice(&[3, 0xda, 0x01, 0]);
    let e = validate(&f).unwrap_err();
    let c = Capture::parse(&f).unwrap();
    let ev = c.events().next().unwrap().unwrap();
    assert_eq!(ev.view().unwrap_err(), e);
    assert_eq!(e.offset, 27);
    // Unknown (removed) event kinds pass, and print as EVENT_NOT_SET.
    let mut f = header.to_vec();
    f.extend_from_slice(&[4, 0x4a, 2, 0x08, 1]); // field 9 (api_event, removed)
    f.extend_from_slice(&[3, 0xda, 0x01, 0]);
    validate(&f).unwrap();
    let c = Capture::parse(&f).unwrap();
    let ev = c.events().next().unwrap().unwrap();
    assert_eq!(ev.kind, EventKind::NotSet);
    assert!(json::event_line(&ev)
        .unwrap()
        .contains("\"event\":\"EVENT_NOT_SET\",\"message\":{}"));
}

/// What identifies a record across a cut: its offset, kind and message bytes, and where it ends.
#[derive(Debug, PartialEq)]
struct Record<'a> {
    offset: u64,
    kind: EventKind,
    message: &'a [u8],
    end: u64,
}

/// Every event of `data` and the fault that ended the walk, if any (the end of the events, the
/// section layout and USER_DATA included, as `validate` checks them).
fn records(data: &[u8]) -> (Vec<Record<'_>>, Option<tracecap_orbit::Error>) {
    let capture = match Capture::parse(data) {
        Ok(c) => c,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut out = Vec::new();
    let mut events = capture.events();
    for ev in events.by_ref() {
        match ev {
            Ok(ev) => out.push(Record {
                offset: ev.offset,
                kind: ev.kind,
                message: ev.message,
                end: ev.message_offset + ev.message.len() as u64,
            }),
            Err(e) => return (out, Some(e)),
        }
    }
    let end = tracecap_orbit::validate::check_end(&capture, &events).err();
    (out, end)
}

/// Every corpus file cut at the start, middle and end of each of its first 200 events and at 200
/// seeded random points: the cut file's events are the whole file's, in order, and include every
/// event whose next event starts at or before the cut; a cut file always ends with a fault,
/// inside the cut file.
#[test]
fn cuts_keep_every_record_before_them() {
    let mut rng = Rng(0x5EED_0017);
    for (name, bytes) in files() {
        let (whole, _) = records(&bytes);
        let spans: Vec<(u64, u64)> = whole.iter().map(|r| (r.offset, r.end)).collect();
        for cut in tracecap_testkit::cut_points(&spans, bytes.len(), &mut rng) {
            if cut >= bytes.len() as u64 {
                continue;
            }
            let (got, err) = records(&bytes[..cut as usize]);
            let at = err.as_ref().map(|e| e.offset);
            tracecap_testkit::check_cut(&name, cut, &whole, &spans, &got, at);
            // A capture cut short always ends in a fault.
            assert!(err.is_some(), "{name} cut at {cut:#x}: no fault");
        }
    }
}
