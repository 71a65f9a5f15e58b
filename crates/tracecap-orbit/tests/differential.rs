//! The zero-copy views agree with prost on every event of every readable corpus file, and the
//! USER_DATA view agrees with prost's `UserDefinedCaptureInfo`.

use prost::Message;
use tracecap_orbit::proto::{orbit_client_protos, orbit_grpc_protos};
use tracecap_orbit::{agree, Capture};

#[test]
fn views_agree_with_prost_on_the_corpus() {
    let Some(dir) = tracecap_testkit::corpus("orbit") else {
        return;
    };
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

/// The views added last (GPU queue submissions, modules, instrumentation and perf_event_open
/// warnings) are compared field by field, nested and repeated messages included: a rich event
/// agrees with its own decoding, and disagrees as soon as one deep field of prost's side changes.
#[test]
fn rich_events_are_compared_deeply() {
    use orbit_grpc_protos::{self as pb, client_capture_event::Event as P};

    let meta = pb::GpuQueueSubmissionMetaInfo {
        tid: 7,
        pre_submission_cpu_timestamp: 100,
        post_submission_cpu_timestamp: 200,
        pid: 3,
    };
    let module = pb::ModuleInfo {
        name: "libc.so.6".into(),
        file_path: "/lib/libc.so.6".into(),
        file_size: 2_000_000,
        address_start: 0x7f00_0000_0000,
        address_end: 0x7f00_0020_0000,
        build_id: "abcdef".into(),
        load_bias: 0x1000,
        executable_segment_offset: 0x2000,
        soname: "libc.so.6".into(),
        object_file_type: 1,
        object_segments: vec![
            pb::module_info::ObjectSegment {
                offset_in_file: 0,
                size_in_file: 10,
                address: 0x400,
                size_in_memory: 12,
            };
            2
        ],
    };
    let failed = vec![
        pb::FunctionThatFailedToBeInstrumented {
            function_id: 42,
            error_message: b"no space".to_vec(),
        };
        3
    ];
    // Each event, and a change deep inside prost's copy that must be noticed.
    type Change = fn(&mut P);
    let cases: Vec<(P, Change)> = vec![
        (
            P::GpuQueueSubmission(pb::GpuQueueSubmission {
                meta_info: Some(meta),
                submit_infos: vec![pb::GpuSubmitInfo {
                    command_buffers: vec![pb::GpuCommandBuffer {
                        begin_gpu_timestamp_ns: 5,
                        end_gpu_timestamp_ns: 9,
                    }],
                }],
                completed_markers: vec![pb::GpuDebugMarker {
                    begin_marker: Some(pb::GpuDebugMarkerBeginInfo {
                        meta_info: Some(meta),
                        gpu_timestamp_ns: 6,
                    }),
                    end_gpu_timestamp_ns: 8,
                    text_key: 11,
                    depth: 1,
                    color: Some(pb::Color {
                        red: 0.25,
                        green: 0.5,
                        blue: 0.75,
                        alpha: 1.0,
                    }),
                }],
                num_begin_markers: 2,
            }),
            |p| {
                if let P::GpuQueueSubmission(s) = p {
                    let m = &mut s.completed_markers[0];
                    m.begin_marker
                        .as_mut()
                        .unwrap()
                        .meta_info
                        .as_mut()
                        .unwrap()
                        .tid += 1;
                }
            },
        ),
        (
            P::GpuQueueSubmission(pb::GpuQueueSubmission::default()),
            |p| {
                if let P::GpuQueueSubmission(s) = p {
                    s.submit_infos.push(pb::GpuSubmitInfo::default());
                }
            },
        ),
        (
            P::ModulesSnapshot(pb::ModulesSnapshot {
                pid: 3,
                timestamp_ns: 10,
                modules: vec![module.clone(), module.clone()],
            }),
            |p| {
                if let P::ModulesSnapshot(s) = p {
                    s.modules[1].object_segments[1].size_in_memory += 1;
                }
            },
        ),
        (
            P::ModuleUpdateEvent(pb::ModuleUpdateEvent {
                pid: 3,
                timestamp_ns: 10,
                module: Some(module),
            }),
            |p| {
                if let P::ModuleUpdateEvent(s) = p {
                    s.module.as_mut().unwrap().soname.push('x');
                }
            },
        ),
        (
            P::ErrorsWithPerfEventOpenEvent(pb::ErrorsWithPerfEventOpenEvent {
                timestamp_ns: 10,
                failed_to_open: vec![b"sched_switch".to_vec(), b"cycles".to_vec()],
            }),
            |p| {
                if let P::ErrorsWithPerfEventOpenEvent(s) = p {
                    s.failed_to_open[1].push(b'!');
                }
            },
        ),
        (
            P::WarningInstrumentingWithUprobesEvent(pb::WarningInstrumentingWithUprobesEvent {
                timestamp_ns: 10,
                functions_that_failed_to_instrument: failed.clone(),
            }),
            |p| {
                if let P::WarningInstrumentingWithUprobesEvent(s) = p {
                    s.functions_that_failed_to_instrument[2].function_id += 1;
                }
            },
        ),
        (
            P::WarningInstrumentingWithUserSpaceInstrumentationEvent(
                pb::WarningInstrumentingWithUserSpaceInstrumentationEvent {
                    timestamp_ns: 10,
                    functions_that_failed_to_instrument: failed,
                },
            ),
            |p| {
                if let P::WarningInstrumentingWithUserSpaceInstrumentationEvent(s) = p {
                    s.functions_that_failed_to_instrument[0]
                        .error_message
                        .clear();
                }
            },
        ),
    ];
    for (event, change) in cases {
        let message = pb::ClientCaptureEvent { event: Some(event) }.encode_to_vec();
        let ev = tracecap_orbit::Event::classify(&message, 0, 1).unwrap();
        let mut decoded = pb::ClientCaptureEvent::decode(&message[..]).unwrap();
        assert_eq!(agree::check(&ev, &decoded), Ok(()), "{:?}", ev.kind);
        change(decoded.event.as_mut().unwrap());
        assert!(agree::check(&ev, &decoded).is_err(), "{:?}", ev.kind);
    }
}

/// `validate::canonical_size` against prost's re-encoding on messages that repeat fields: a
/// singular message twice (merged), a scalar twice (the last wins), two oneof members (the last
/// wins), packed and unpacked repeated values. (No unknown fields: the C++ runtime keeps them,
/// prost drops them.)
#[test]
fn canonical_size_agrees_with_prost_on_repeated_fields() {
    use prost::Message;
    use tracecap_orbit::proto::orbit_grpc_protos::ClientCaptureEvent;
    use tracecap_orbit::schema::ORBIT_GRPC_PROTOS_CLIENTCAPTUREEVENT as DESC;
    use tracecap_orbit::validate::canonical_size;
    // CaptureStarted{process_id 1, capture_options{pid 5, instrumented_functions{id 1}}}.
    let started_a = [0x08, 1, 0x2a, 8, 0x10, 5, 0x2a, 4, 0x18, 1, 0x2a, 0];
    // CaptureStarted{process_id 2, capture_options{trace_gpu_driver, instrumented_functions{id 2}}}.
    let started_b = [0x08, 2, 0x2a, 8, 0x30, 1, 0x2a, 4, 0x18, 2, 0x2a, 0];
    // FunctionCall{pid 3, registers packed [1, 300], registers 7 unpacked, pid 0}.
    let call = [0x08, 3, 0x42, 3, 1, 0xac, 0x02, 0x40, 7, 0x08, 0];
    let mut cases: Vec<Vec<u8>> = Vec::new();
    let field = |number: u8, payload: &[u8]| {
        let mut v = Vec::new();
        if number < 16 {
            v.push(number << 3 | 2);
        } else {
            v.extend_from_slice(&[(number << 3 | 2) | 0x80, number >> 4]);
        }
        v.push(payload.len() as u8);
        v.extend_from_slice(payload);
        v
    };
    cases.push([field(24, &started_a), field(24, &started_b)].concat());
    cases.push([field(2, &call), field(24, &started_a)].concat());
    cases.push(
        [
            field(24, &started_a),
            field(2, &call),
            field(24, &started_b),
        ]
        .concat(),
    );
    cases.push([field(2, &call), field(2, &call)].concat());
    for (i, bytes) in cases.iter().enumerate() {
        let expected = ClientCaptureEvent::decode(&bytes[..])
            .unwrap()
            .encoded_len() as u64;
        let size = canonical_size(&DESC, &[(bytes, 0)]).unwrap();
        assert_eq!(size, expected, "case {i}");
    }
}
