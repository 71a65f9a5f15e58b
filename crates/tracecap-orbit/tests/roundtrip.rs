//! proptest round trips: prost model -> writer -> parser (views, JSON, validation) -> model,
//! for every event kind; the capture model (`from_bytes(to_bytes(m)) == m`); Orbit API names;
//! USER_DATA rewriting in place.

use proptest::prelude::*;
use prost::Message;
use tracecap_orbit::proto::orbit_client_protos as cp;
use tracecap_orbit::proto::orbit_grpc_protos::{self as pb, client_capture_event::Event as P};
use tracecap_orbit::write::{write_user_data, CaptureModel, CaptureWriter, WriteError};
use tracecap_orbit::{agree, json, validate::validate, Capture, EventKind};

/// Orbit's encoding of an API name into fixed64 chunks.
fn encode_name(name: &[u8]) -> ([u64; 8], Vec<u64>) {
    let mut chunks: Vec<u64> = name
        .chunks(8)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(a)
        })
        .collect();
    if chunks.is_empty() {
        chunks.push(0);
    }
    let mut first = [0u64; 8];
    for (i, c) in chunks.iter().take(8).enumerate() {
        first[i] = *c;
    }
    (first, chunks.into_iter().skip(8).collect())
}

/// An event of kind `k` (0..39, in field-number order) with every field taken from `v`/`s`.
fn make(k: usize, v: &[u64; 12], s: &[u8], name: &[u8]) -> pb::ClientCaptureEvent {
    let u = |i: usize| v[i % 12];
    let u32_ = |i: usize| v[i % 12] as u32;
    let i32_ = |i: usize| v[i % 12] as i32;
    let i64_ = |i: usize| v[i % 12] as i64;
    let text = String::from_utf8_lossy(s).into_owned();
    let bytes = s.to_vec();
    let (n, extra) = encode_name(name);
    let module = pb::ModuleInfo {
        name: text.clone(),
        file_path: text.clone(),
        file_size: u(0),
        address_start: u(1),
        address_end: u(2),
        build_id: text.clone(),
        load_bias: u(3),
        executable_segment_offset: u(4),
        soname: text.clone(),
        object_file_type: i32_(5) & 3,
        object_segments: vec![pb::module_info::ObjectSegment {
            offset_in_file: u(6),
            size_in_file: u(7),
            address: u(8),
            size_in_memory: u(9),
        }],
    };
    let meta = pb::GpuQueueSubmissionMetaInfo {
        tid: u32_(0),
        pre_submission_cpu_timestamp: u(1),
        post_submission_cpu_timestamp: u(2),
        pid: u32_(3),
    };
    let failed = vec![pb::FunctionThatFailedToBeInstrumented {
        function_id: u(1),
        error_message: bytes.clone(),
    }];
    macro_rules! track {
        ($t:ident, $data:expr) => {
            pb::$t {
                pid: u32_(0),
                tid: u32_(1),
                timestamp_ns: u(2),
                data: $data,
                encoded_name_1: n[0],
                encoded_name_2: n[1],
                encoded_name_3: n[2],
                encoded_name_4: n[3],
                encoded_name_5: n[4],
                encoded_name_6: n[5],
                encoded_name_7: n[6],
                encoded_name_8: n[7],
                encoded_name_additional: extra.clone(),
                color_rgba: u32_(4),
            }
        };
    }
    let ev = match k {
        0 => P::CallstackSample(pb::CallstackSample {
            pid: u32_(0),
            tid: u32_(1),
            callstack_id: u(2),
            timestamp_ns: u(3),
        }),
        1 => P::FunctionCall(pb::FunctionCall {
            pid: u32_(0),
            tid: u32_(1),
            function_id: u(2),
            end_timestamp_ns: u(3),
            depth: i32_(4),
            return_value: u(5),
            registers: v[6..].to_vec(),
            duration_ns: u(7),
        }),
        2 => P::GpuJob(pb::GpuJob {
            pid: u32_(0),
            tid: u32_(1),
            context: u32_(2),
            seqno: u32_(3),
            depth: i32_(4),
            amdgpu_cs_ioctl_time_ns: u(5),
            amdgpu_sched_run_job_time_ns: u(6),
            gpu_hardware_start_time_ns: u(7),
            dma_fence_signaled_time_ns: u(8),
            timeline_key: u(9),
        }),
        3 => P::GpuQueueSubmission(pb::GpuQueueSubmission {
            meta_info: Some(meta),
            submit_infos: vec![pb::GpuSubmitInfo {
                command_buffers: vec![pb::GpuCommandBuffer {
                    begin_gpu_timestamp_ns: u(4),
                    end_gpu_timestamp_ns: u(5),
                }],
            }],
            completed_markers: vec![pb::GpuDebugMarker {
                begin_marker: Some(pb::GpuDebugMarkerBeginInfo {
                    meta_info: Some(meta),
                    gpu_timestamp_ns: u(6),
                }),
                end_gpu_timestamp_ns: u(7),
                text_key: u(8),
                depth: i32_(9),
                color: Some(pb::Color {
                    red: 0.5,
                    green: u(10) as f32,
                    blue: 0.0,
                    alpha: 1.0,
                }),
            }],
            num_begin_markers: i32_(11),
        }),
        4 => P::InternedCallstack(pb::InternedCallstack {
            key: u(0),
            intern: Some(pb::Callstack {
                pcs: v.to_vec(),
                r#type: i32_(1) & 7,
            }),
        }),
        5 => P::SchedulingSlice(pb::SchedulingSlice {
            pid: u32_(0),
            tid: u32_(1),
            core: i32_(2),
            out_timestamp_ns: u(3),
            duration_ns: u(4),
        }),
        6 => P::ThreadStateSlice(pb::ThreadStateSlice {
            pid: u32_(0),
            tid: u32_(1),
            thread_state: i32_(2),
            end_timestamp_ns: u(3),
            duration_ns: u(4),
            wakeup_tid: u32_(5),
            wakeup_pid: u32_(6),
            wakeup_reason: i32_(7),
            switch_out_or_wakeup_callstack_status: i32_(8),
            switch_out_or_wakeup_callstack_id: u(9),
        }),
        7 => P::TracepointEvent(pb::TracepointEvent {
            pid: u32_(0),
            tid: u32_(1),
            timestamp_ns: u(2),
            cpu: i32_(3),
            tracepoint_info_key: u(4),
        }),
        8 => P::ApiScopeStart(pb::ApiScopeStart {
            pid: u32_(0),
            tid: u32_(1),
            timestamp_ns: u(2),
            encoded_name_1: n[0],
            encoded_name_2: n[1],
            encoded_name_3: n[2],
            encoded_name_4: n[3],
            encoded_name_5: n[4],
            encoded_name_6: n[5],
            encoded_name_7: n[6],
            encoded_name_8: n[7],
            encoded_name_additional: extra.clone(),
            color_rgba: u32_(3),
            group_id: u(4),
            address_in_function: u(5),
        }),
        9 => P::ApiScopeStop(pb::ApiScopeStop {
            pid: u32_(0),
            tid: u32_(1),
            timestamp_ns: u(2),
        }),
        10 => P::AddressInfo(pb::AddressInfo {
            absolute_address: u(0),
            offset_in_function: u(1),
            function_name_key: u(2),
            module_name_key: u(3),
        }),
        11 => P::InternedString(pb::InternedString {
            key: u(0),
            intern: bytes,
        }),
        12 => P::InternedTracepointInfo(pb::InternedTracepointInfo {
            key: u(0),
            intern: Some(pb::TracepointInfo {
                category: text.clone(),
                name: text,
            }),
        }),
        13 => P::ModuleUpdateEvent(pb::ModuleUpdateEvent {
            pid: u32_(0),
            timestamp_ns: u(1),
            module: Some(module),
        }),
        14 => P::ThreadName(pb::ThreadName {
            pid: u32_(0),
            tid: u32_(1),
            name: bytes,
            timestamp_ns: u(2),
        }),
        15 => P::CaptureStarted(pb::CaptureStarted {
            process_id: u32_(0),
            executable_path: text.clone(),
            executable_build_id: text.clone(),
            capture_start_timestamp_ns: u(1),
            capture_options: Some(pb::CaptureOptions {
                trace_context_switches: u(2) & 1 == 1,
                pid: u32_(3),
                samples_per_second: u(4) as f64,
                unwinding_method: i32_(5) & 3,
                instrumented_functions: vec![pb::InstrumentedFunction {
                    file_path: text.clone(),
                    function_id: u(6),
                    ..Default::default()
                }],
                instrumented_tracepoint: vec![pb::TracepointInfo {
                    category: text.clone(),
                    name: text.clone(),
                }],
                api_functions: vec![pb::ApiFunction {
                    module_path: text,
                    api_version: u(7),
                    ..Default::default()
                }],
                stack_dump_size: u32_(8),
                ..Default::default()
            }),
            orbit_version_major: u32_(9),
            orbit_version_minor: u32_(10),
            capture_start_unix_time_ns: u(11),
        }),
        16 => P::ModulesSnapshot(pb::ModulesSnapshot {
            pid: u32_(0),
            timestamp_ns: u(1),
            modules: vec![module.clone(), module],
        }),
        17 => P::ThreadNamesSnapshot(pb::ThreadNamesSnapshot {
            timestamp_ns: u(0),
            thread_names: vec![
                pb::ThreadName {
                    pid: u32_(1),
                    tid: u32_(2),
                    name: bytes.clone(),
                    timestamp_ns: u(3),
                },
                pb::ThreadName {
                    pid: u32_(4),
                    tid: u32_(5),
                    name: bytes,
                    timestamp_ns: u(6),
                },
            ],
        }),
        18 => P::MemoryUsageEvent(pb::MemoryUsageEvent {
            timestamp_ns: u(0),
            system_memory_usage: Some(pb::SystemMemoryUsage {
                timestamp_ns: u(1),
                total_kb: i64_(2),
                free_kb: i64_(3),
                available_kb: i64_(4),
                buffers_kb: i64_(5),
                cached_kb: i64_(6),
                pgfault: i64_(7),
                pgmajfault: i64_(8),
            }),
            process_memory_usage: Some(pb::ProcessMemoryUsage {
                pid: u32_(9),
                timestamp_ns: u(10),
                minflt: i64_(11),
                majflt: i64_(0),
                rss_anon_kb: i64_(1),
            }),
            cgroup_memory_usage: Some(pb::CGroupMemoryUsage {
                cgroup_name: text,
                timestamp_ns: u(2),
                limit_bytes: i64_(3),
                rss_bytes: i64_(4),
                mapped_file_bytes: i64_(5),
                pgfault: i64_(6),
                pgmajfault: i64_(7),
                unevictable_bytes: i64_(8),
                inactive_anon_bytes: i64_(9),
                active_anon_bytes: i64_(10),
                inactive_file_bytes: i64_(11),
                active_file_bytes: i64_(0),
            }),
        }),
        19 => P::WarningEvent(pb::WarningEvent {
            timestamp_ns: u(0),
            message: bytes,
        }),
        20 => P::ErrorEnablingOrbitApiEvent(pb::ErrorEnablingOrbitApiEvent {
            timestamp_ns: u(0),
            message: bytes,
        }),
        21 => P::ClockResolutionEvent(pb::ClockResolutionEvent {
            timestamp_ns: u(0),
            clock_resolution_ns: u(1),
        }),
        22 => P::ErrorsWithPerfEventOpenEvent(pb::ErrorsWithPerfEventOpenEvent {
            timestamp_ns: u(0),
            failed_to_open: vec![bytes.clone(), bytes],
        }),
        23 => P::LostPerfRecordsEvent(pb::LostPerfRecordsEvent {
            duration_ns: u(0),
            end_timestamp_ns: u(1),
        }),
        24 => P::OutOfOrderEventsDiscardedEvent(pb::OutOfOrderEventsDiscardedEvent {
            duration_ns: u(0),
            end_timestamp_ns: u(1),
        }),
        25 => P::ApiScopeStartAsync(pb::ApiScopeStartAsync {
            pid: u32_(0),
            tid: u32_(1),
            timestamp_ns: u(2),
            encoded_name_1: n[0],
            encoded_name_2: n[1],
            encoded_name_3: n[2],
            encoded_name_4: n[3],
            encoded_name_5: n[4],
            encoded_name_6: n[5],
            encoded_name_7: n[6],
            encoded_name_8: n[7],
            encoded_name_additional: extra.clone(),
            color_rgba: u32_(3),
            id: u(4),
            address_in_function: u(5),
        }),
        26 => P::ApiScopeStopAsync(pb::ApiScopeStopAsync {
            pid: u32_(0),
            tid: u32_(1),
            timestamp_ns: u(2),
            id: u(3),
        }),
        27 => P::ApiStringEvent(pb::ApiStringEvent {
            pid: u32_(0),
            tid: u32_(1),
            timestamp_ns: u(2),
            encoded_name_1: n[0],
            encoded_name_2: n[1],
            encoded_name_3: n[2],
            encoded_name_4: n[3],
            encoded_name_5: n[4],
            encoded_name_6: n[5],
            encoded_name_7: n[6],
            encoded_name_8: n[7],
            encoded_name_additional: extra.clone(),
            id: u(3),
            color_rgba: u32_(4),
        }),
        28 => P::ApiTrackDouble(track!(ApiTrackDouble, f64::from_bits(u(5)))),
        29 => P::ApiTrackFloat(track!(ApiTrackFloat, f32::from_bits(u32_(5)))),
        30 => P::ApiTrackInt(track!(ApiTrackInt, i32_(5))),
        31 => P::ApiTrackInt64(track!(ApiTrackInt64, i64_(5))),
        32 => P::ApiTrackUint(track!(ApiTrackUint, u32_(5))),
        33 => P::ApiTrackUint64(track!(ApiTrackUint64, u(5))),
        34 => P::ErrorEnablingUserSpaceInstrumentationEvent(
            pb::ErrorEnablingUserSpaceInstrumentationEvent {
                timestamp_ns: u(0),
                message: bytes,
            },
        ),
        35 => P::WarningInstrumentingWithUserSpaceInstrumentationEvent(
            pb::WarningInstrumentingWithUserSpaceInstrumentationEvent {
                timestamp_ns: u(0),
                functions_that_failed_to_instrument: failed,
            },
        ),
        36 => P::PresentEvent(pb::PresentEvent {
            pid: u32_(0),
            tid: u32_(1),
            begin_timestamp_ns: u(2),
            duration_ns: u(3),
            source: i32_(4),
        }),
        37 => P::WarningInstrumentingWithUprobesEvent(pb::WarningInstrumentingWithUprobesEvent {
            timestamp_ns: u(0),
            functions_that_failed_to_instrument: failed,
        }),
        _ => P::CaptureFinished(pb::CaptureFinished {
            status: i32_(0),
            error_message: String::from_utf8_lossy(s).into_owned(),
            target_process_state_after_capture: i32_(1),
            target_process_termination_signal: i32_(2),
        }),
    };
    pb::ClientCaptureEvent { event: Some(ev) }
}

fn values() -> impl Strategy<Value = [u64; 12]> {
    // Mix small values, zeros (defaults) and extremes.
    let one = prop_oneof![Just(0u64), 0u64..300, any::<u64>(), Just(u64::MAX)];
    proptest::array::uniform12(one)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_kind_round_trips(
        v in values(),
        s in proptest::collection::vec(any::<u8>(), 0..40),
        name in proptest::collection::vec(1u8..=255, 0..100),
        ids in proptest::collection::vec(any::<u64>(), 0..5),
    ) {
        let mut model = Vec::new();
        model.push(make(15, &v, &s, &name));
        for k in 0..38 {
            model.push(make(k, &v, &s, &name));
        }
        model.push(make(38, &v, &s, &name));
        let mut w = CaptureWriter::new();
        for e in &model {
            w.write_message(e).unwrap();
        }
        prop_assert!(w.write_message(&model[0]).is_err(), "events after CaptureFinished");
        let ud = cp::UserDefinedCaptureInfo {
            frame_tracks_info: Some(cp::FrameTracksInfo { frame_track_function_ids: ids.clone() }),
        };
        let file = w.finish_with_user_data(&ud.encode_to_vec()).unwrap();

        let capture = Capture::parse(&file).unwrap();
        let mut back = Vec::new();
        for ev in capture.events() {
            let ev = ev.unwrap();
            let decoded = pb::ClientCaptureEvent::decode(ev.message).unwrap();
            agree::check(&ev, &decoded).unwrap();
            let line: serde_json::Value = serde_json::from_str(&json::event_line(&ev).unwrap()).unwrap();
            prop_assert_eq!(line["event"].as_str().unwrap(), ev.kind.name());
            if let Some(n) = ev.view().unwrap().api_name() {
                prop_assert_eq!(n.bytes().collect::<Vec<u8>>(), name.clone());
            }
            back.push(decoded);
        }
        // Compare encodings (NaN != NaN in the models).
        prop_assert_eq!(back.len(), model.len());
        for (i, (b, m)) in back.iter().zip(&model).enumerate() {
            prop_assert!(b.encode_to_vec() == m.encode_to_vec(), "event {} differs", i);
        }
        let kinds: std::collections::BTreeSet<_> = capture.events().map(|e| e.unwrap().kind).collect();
        prop_assert_eq!(kinds.len(), EventKind::ALL.len() - 1);
        let got: Vec<u64> = capture.user_data().unwrap().unwrap().view().unwrap()
            .frame_tracks().unwrap().frame_track_function_ids.iter().collect();
        prop_assert_eq!(got, ids);
        validate(&file).unwrap();
    }

    #[test]
    fn the_model_round_trips(
        v in values(),
        s in proptest::collection::vec(any::<u8>(), 0..40),
        kinds in proptest::collection::vec(0usize..38, 0..20),
        finished in any::<bool>(),
        ids in proptest::option::of(proptest::collection::vec(any::<u64>(), 0..5)),
    ) {
        let mut events: Vec<Vec<u8>> =
            kinds.iter().map(|&k| make(k, &v, &s, b"name").encode_to_vec()).collect();
        if finished {
            events.push(make(38, &v, &s, b"").encode_to_vec());
        }
        let user_data = ids.map(|ids| {
            cp::UserDefinedCaptureInfo {
                frame_tracks_info: Some(cp::FrameTracksInfo { frame_track_function_ids: ids }),
            }
            .encode_to_vec()
        });
        let model = CaptureModel { events, user_data };
        match model.to_bytes() {
            Ok(file) => {
                prop_assert_eq!(CaptureModel::from_bytes(&file).unwrap(), model.clone());
                if finished {
                    validate(&file).unwrap();
                }
            }
            Err(e) => {
                prop_assert!(!finished && model.user_data.is_some());
                prop_assert!(matches!(e, WriteError::UnfinishedUserData));
            }
        }
    }
}

#[test]
fn the_model_refuses_what_it_cannot_write() {
    let finished = vec![0xda, 0x01, 0];
    let after = CaptureModel {
        events: vec![finished.clone(), finished.clone()],
        user_data: None,
    };
    assert!(matches!(
        after.to_bytes(),
        Err(WriteError::AfterFinished { index: 1 })
    ));
    let empty = CaptureModel {
        events: vec![vec![0xff]],
        user_data: None,
    };
    assert!(matches!(
        empty.to_bytes(),
        Err(WriteError::NotAnEvent { index: 0, .. })
    ));
    let big = CaptureModel {
        events: vec![vec![0; (1 << 20) + 1]],
        user_data: None,
    };
    assert!(matches!(
        big.to_bytes(),
        Err(WriteError::TooBig { index: 0, .. })
    ));
}

#[test]
fn user_data_is_rewritten_in_place() {
    let mut w = CaptureWriter::new();
    let started = make(15, &[1; 12], b"x", b"");
    w.write_message(&started).unwrap();
    w.write_message(&make(38, &[0; 12], b"", b"")).unwrap();
    let big = cp::UserDefinedCaptureInfo {
        frame_tracks_info: Some(cp::FrameTracksInfo {
            frame_track_function_ids: vec![1, 2, 300],
        }),
    };
    let mut file = w.finish_with_user_data(&big.encode_to_vec()).unwrap();
    assert_eq!(file.len() % 8, 1); // a 9-byte section at an 8-aligned offset
    let len_before = file.len();
    // Smaller: the section keeps its size, the stale tail stays.
    let small = cp::UserDefinedCaptureInfo {
        frame_tracks_info: Some(cp::FrameTracksInfo::default()),
    };
    write_user_data(&mut file, &small.encode_to_vec()).unwrap();
    assert_eq!(file.len(), len_before);
    let ud = Capture::parse(&file).unwrap().user_data().unwrap().unwrap();
    assert_eq!(ud.unused, 9 - 3);
    assert_eq!(
        ud.view()
            .unwrap()
            .frame_tracks()
            .unwrap()
            .frame_track_function_ids
            .count(),
        0
    );
    validate(&file).unwrap();
    // Larger: the section grows at the end of the file.
    let larger = cp::UserDefinedCaptureInfo {
        frame_tracks_info: Some(cp::FrameTracksInfo {
            frame_track_function_ids: (0..100).collect(),
        }),
    };
    write_user_data(&mut file, &larger.encode_to_vec()).unwrap();
    let c = Capture::parse(&file).unwrap();
    let ud = c.user_data().unwrap().unwrap();
    assert_eq!(ud.unused, 0);
    assert_eq!(
        ud.view()
            .unwrap()
            .frame_tracks()
            .unwrap()
            .frame_track_function_ids
            .count(),
        100
    );
    assert_eq!(c.sections().len(), 1);
    validate(&file).unwrap();
}
