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
    }
});
