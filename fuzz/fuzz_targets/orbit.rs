//! Orbit: arbitrary bytes as a whole file and as one `ClientCaptureEvent`. No panic, every error
//! offset inside the input, and wherever prost decodes an event the zero-copy views agree with it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap_orbit::proto::orbit_grpc_protos::ClientCaptureEvent;
use tracecap_orbit::proto::prost::Message;
use tracecap_orbit::{agree, json, validate::validate, Capture, Event};

fn check_event(ev: &Event<'_>, len: u64) {
    if let Ok(decoded) = ClientCaptureEvent::decode(ev.message) {
        if let Err(d) = agree::check(ev, &decoded) {
            panic!("views disagree with prost on {:?}: {d:?}", ev.kind);
        }
    }
    match ev.view() {
        Ok(v) => {
            if let Some(n) = v.api_name() {
                let _ = n.bytes().count();
            }
        }
        Err(e) => assert!(e.offset <= len),
    }
    if let Err(e) = json::event_line(ev) {
        assert!(e.offset <= len);
    }
}

/// A prefix of a file that validates (cut where the input's last two bytes say) gives the file's
/// events, in order, every one whose next event starts at or before the cut among them, and
/// ends with a fault inside the prefix.
fn check_prefix(file: &[u8], cut_from: &[u8]) {
    let Some(&[a, b]) = cut_from.last_chunk::<2>() else {
        return;
    };
    if validate(file).is_err() {
        return;
    }
    let Ok(capture) = Capture::parse(file) else {
        return;
    };
    let whole: Vec<(u64, &[u8])> = capture
        .events()
        .map_while(Result::ok)
        .map(|ev| (ev.offset, ev.message))
        .collect();
    let cut = usize::from(u16::from_le_bytes([a, b])) % file.len().max(1);
    let part = file.get(..cut).unwrap_or(&[]);
    let ends = whole.iter().skip(1).map(|w| w.0).chain(
        capture
            .events()
            .map_while(Result::ok)
            .last()
            .map(|ev| ev.message_offset + ev.message.len() as u64),
    );
    let must = ends.take_while(|&e| e <= cut as u64).count();
    let mut got = Vec::new();
    let mut fault = None;
    if let Ok(c) = Capture::parse(part) {
        for ev in c.events() {
            match ev {
                Ok(ev) => got.push((ev.offset, ev.message)),
                Err(e) => {
                    fault = Some(e);
                    break;
                }
            }
        }
    } else {
        fault = Capture::parse(part).err();
    }
    assert!(
        got.len() >= must,
        "cut at {cut}: {} of {must} events",
        got.len()
    );
    assert_eq!(got[..], whole[..got.len()], "cut at {cut}");
    if cut < file.len() {
        let fault = fault.or_else(|| validate(part).err());
        assert!(
            fault.is_some_and(|e| e.offset <= cut as u64),
            "cut at {cut}: {fault:?}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    // The input as one event message.
    match Event::classify(data, 0, 0) {
        Ok(ev) => check_event(&ev, len),
        Err(e) => assert!(e.offset <= len),
    }
    // The input as a file (with the header forced half of the time, to reach the events).
    let mut forced = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    forced.extend_from_slice(data);
    for file in [data, &forced[..]] {
        let flen = file.len() as u64;
        match Capture::parse(file) {
            Ok(c) => {
                for ev in c.events() {
                    match ev {
                        Ok(ev) => check_event(&ev, flen),
                        Err(e) => {
                            assert!(e.offset <= flen);
                            break;
                        }
                    }
                }
                if let Ok(Some(ud)) = c.user_data() {
                    let _ = json::user_data_line(&ud);
                }
            }
            Err(e) => assert!(e.offset <= flen),
        }
        if let Err(e) = validate(file) {
            assert!(e.offset <= flen);
        }
        check_prefix(file, data);
    }
});
