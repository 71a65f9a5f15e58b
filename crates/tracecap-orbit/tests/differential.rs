//! The zero-copy views agree with prost on every event of every readable corpus file, and the
//! USER_DATA view agrees with prost's `UserDefinedCaptureInfo`.

use std::path::Path;

use prost::Message;
use tracecap_orbit::proto::{orbit_client_protos, orbit_grpc_protos};
use tracecap_orbit::{agree, Capture};

#[test]
fn views_agree_with_prost_on_the_corpus() {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/orbit"
    ));
    if !dir.is_dir() {
        eprintln!("!!! corpus not found at {}: skipped", dir.display());
        return;
    }
    let mut files = 0;
    let mut events = 0;
    for sub in ["real", "generated"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let Ok(capture) = Capture::parse(&data) else {
                continue;
            };
            for ev in capture.events() {
                let Ok(ev) = ev else { break };
                let decoded = orbit_grpc_protos::ClientCaptureEvent::decode(ev.message)
                    .unwrap_or_else(|e| panic!("{}: prost: {e}", path.display()));
                agree::check(&ev, &decoded)
                    .unwrap_or_else(|d| panic!("{} at {}: {d:?}", path.display(), ev.offset));
                events += 1;
            }
            if let Ok(Some(ud)) = capture.user_data() {
                let p = orbit_client_protos::UserDefinedCaptureInfo::decode(ud.message).unwrap();
                let v = ud.view().unwrap().frame_tracks().unwrap();
                let ids: Vec<u64> = v.frame_track_function_ids.iter().collect();
                assert_eq!(
                    ids,
                    p.frame_tracks_info
                        .unwrap_or_default()
                        .frame_track_function_ids
                );
            }
            files += 1;
        }
    }
    assert!(
        files >= 5 && events > 40_000,
        "{files} files, {events} events"
    );
}
