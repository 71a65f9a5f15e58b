//! A capture's first bytes followed by zeros up to 16 MiB or 256 MiB (what a zero-filled or
//! sparse file looks like): every reader fails fast, at the same offset for both sizes, and its
//! peak heap does not grow with the size.

use prost::Message;
use tracecap_orbit::proto::orbit_client_protos::{FrameTracksInfo, UserDefinedCaptureInfo};
use tracecap_orbit::proto::orbit_grpc_protos::{
    client_capture_event::Event as E, CaptureFinished, CaptureStarted, ClientCaptureEvent,
    FunctionCall, InternedString, ThreadName,
};
use tracecap_orbit::write::CaptureWriter;
use tracecap_orbit::{json, validate, Capture, Error};

#[global_allocator]
static GLOBAL: tracecap_testkit::PeakAlloc = tracecap_testkit::PeakAlloc;

fn event(e: E) -> Vec<u8> {
    ClientCaptureEvent { event: Some(e) }.encode_to_vec()
}

/// A capture with a few kinds of events; with USER_DATA (and so a section list) or without.
fn capture(user_data: bool) -> Vec<u8> {
    let mut w = CaptureWriter::new();
    w.write_event(&event(E::CaptureStarted(CaptureStarted {
        process_id: 42,
        executable_path: "/usr/bin/game".into(),
        ..Default::default()
    })))
    .unwrap();
    for i in 0..40u32 {
        w.write_event(&event(E::ThreadName(ThreadName {
            pid: 42,
            tid: 100 + i,
            name: format!("worker thread number {i}").into_bytes(),
            timestamp_ns: 1000 + u64::from(i),
        })))
        .unwrap();
        w.write_event(&event(E::InternedString(InternedString {
            key: u64::from(i) + 1,
            intern: "a".repeat(200).into_bytes(),
        })))
        .unwrap();
        w.write_event(&event(E::FunctionCall(FunctionCall {
            pid: 42,
            tid: 100 + i,
            function_id: 7,
            end_timestamp_ns: 5000 + u64::from(i),
            duration_ns: 10,
            ..Default::default()
        })))
        .unwrap();
    }
    w.write_event(&event(E::CaptureFinished(CaptureFinished::default())))
        .unwrap();
    if !user_data {
        return w.finish();
    }
    let ud = UserDefinedCaptureInfo {
        frame_tracks_info: Some(FrameTracksInfo {
            frame_track_function_ids: (1..200).collect(),
        }),
    };
    w.finish_with_user_data(&ud.encode_to_vec()).unwrap()
}

/// What the commands of `tracecap` do with a file: `validate`, and the walk `info`, `dump` and
/// `convert` make (checks, views, JSON of each event, then the end). Returns both faults.
fn every_reader(data: &[u8]) -> (Result<(), Error>, Result<(), Error>) {
    let validated = validate::validate(data).map(|_| ());
    let walked = (|| {
        let capture = Capture::parse(data)?;
        let _ = json::header_line(&capture);
        let mut events = capture.events();
        for ev in events.by_ref() {
            let ev = ev?;
            validate::check_event(&ev)?;
            ev.view()?;
            json::event_line(&ev)?;
        }
        if let Some(ud) = validate::check_end(&capture, &events)? {
            json::user_data_line(&ud)?;
        }
        Ok(())
    })();
    (validated, walked)
}

/// The first `cut` bytes of `file`, then zeros up to `size`; the fault and the peak heap (bytes)
/// of reading it. The fault must lie near the cut, or at the section list (where the header says
/// it is, in the zeros).
fn read_zero_filled(file: &[u8], cut: usize, size: usize) -> (Error, usize) {
    let list = u64::from_le_bytes(file[16..24].try_into().unwrap());
    let mut data = vec![0u8; size];
    data[..cut].copy_from_slice(&file[..cut]);
    let ((validated, walked), peak) = tracecap_testkit::peak_of(|| every_reader(&data));
    let e = validated.expect_err("a zero-filled tail is a fault");
    assert_eq!(walked, Err(e), "cut {cut}: the readers disagree");
    assert!(
        e.offset <= cut as u64 + 1024 || e.offset == list,
        "cut {cut}: fault at {e}"
    );
    (e, peak)
}

#[test]
fn zero_filled_tails_fail_fast_in_bounded_memory() {
    for user_data in [false, true] {
        let file = capture(user_data);
        let list = u64::from_le_bytes(file[16..24].try_into().unwrap()) as usize;
        let events_end = if user_data { list } else { file.len() };
        // Event boundaries, inside events, inside the section list and inside USER_DATA.
        let mut cuts = vec![24, 25, 30, 100, 1000, 4096, events_end - 3];
        if user_data {
            let entry = list + 8;
            let ud = u64::from_le_bytes(file[entry + 8..entry + 16].try_into().unwrap()) as usize;
            cuts.extend([list + 4, list + 8, list + 20, ud + 3]);
        }
        for cut in cuts {
            let (small, small_peak) = read_zero_filled(&file, cut, 16 << 20);
            let (big, big_peak) = read_zero_filled(&file, cut, 256 << 20);
            assert_eq!(small, big, "cut {cut}: the fault moved with the size");
            assert!(
                big_peak <= small_peak + 4096 && big_peak < 1 << 20,
                "cut {cut} (user data {user_data}): peak heap {small_peak} B at 16 MiB, \
                 {big_peak} B at 256 MiB"
            );
        }
    }
}
