//! The Orbit bench's generated capture (included with `#[path]` by `benches/orbit.rs` and
//! `examples/export_inputs.rs`): shaped like the real ones (scheduling and thread-state slices,
//! address infos, samples, Orbit API events).

use tracecap_orbit::proto::orbit_grpc_protos::{self as pb, client_capture_event::Event as P};
use tracecap_orbit::write::CaptureWriter;

fn name_chunks(name: &[u8]) -> [u64; 2] {
    let mut a = [0u8; 16];
    a[..name.len().min(16)].copy_from_slice(&name[..name.len().min(16)]);
    [
        u64::from_le_bytes(a[..8].try_into().unwrap()),
        u64::from_le_bytes(a[8..].try_into().unwrap()),
    ]
}

/// A capture of at least `target` bytes.
pub fn generate(target: usize) -> Vec<u8> {
    let mut w = CaptureWriter::with_capacity(target + (1 << 20));
    let ev = |e: P| pb::ClientCaptureEvent { event: Some(e) };
    w.write_message(&ev(P::CaptureStarted(pb::CaptureStarted {
        process_id: 4242,
        executable_path: "/opt/game/bin/game".into(),
        capture_start_timestamp_ns: 1_000_000_000_000,
        orbit_version_major: 1,
        orbit_version_minor: 81,
        ..Default::default()
    })))
    .unwrap();
    let mut t = 1_000_000_000_000u64;
    let mut i = 0u64;
    let scope = name_chunks(b"BusyWork");
    while w.len() < target {
        i += 1;
        t += 1_000 + (i * 7919) % 5_000;
        let tid = 4242 + (i % 17) as u32;
        let e = match i % 20 {
            0..=6 => P::AddressInfo(pb::AddressInfo {
                absolute_address: 0x7f00_0000_0000 + i * 64,
                offset_in_function: i % 300,
                function_name_key: i % 5000,
                module_name_key: 1 + i % 40,
            }),
            7..=13 => P::ThreadStateSlice(pb::ThreadStateSlice {
                tid,
                thread_state: (i % 3) as i32,
                end_timestamp_ns: t,
                duration_ns: 1_000 + i % 100_000,
                wakeup_tid: tid + 1,
                wakeup_pid: 4242,
                wakeup_reason: 1,
                ..Default::default()
            }),
            14..=17 => P::SchedulingSlice(pb::SchedulingSlice {
                pid: 4242,
                tid,
                core: (i % 16) as i32,
                out_timestamp_ns: t,
                duration_ns: 20_000 + i % 1_000_000,
            }),
            18 => P::CallstackSample(pb::CallstackSample {
                pid: 4242,
                tid,
                callstack_id: 1 + i % 500,
                timestamp_ns: t,
            }),
            _ => match (i / 20) % 4 {
                0 => P::ApiScopeStart(pb::ApiScopeStart {
                    pid: 4242,
                    tid,
                    timestamp_ns: t,
                    encoded_name_1: scope[0],
                    color_rgba: 0xff00_00ff,
                    address_in_function: 0x40_1000,
                    ..Default::default()
                }),
                1 => P::ApiScopeStop(pb::ApiScopeStop {
                    pid: 4242,
                    tid,
                    timestamp_ns: t,
                }),
                2 => P::InternedCallstack(pb::InternedCallstack {
                    key: i,
                    intern: Some(pb::Callstack {
                        pcs: (0..12).map(|k| 0x7f00_0000_0000 + k * 4096 + i).collect(),
                        r#type: 0,
                    }),
                }),
                _ => P::FunctionCall(pb::FunctionCall {
                    pid: 4242,
                    tid,
                    function_id: 1 + i % 30,
                    end_timestamp_ns: t,
                    depth: (i % 4) as i32,
                    duration_ns: 500 + i % 10_000,
                    ..Default::default()
                }),
            },
        };
        w.write_message(&ev(e)).unwrap();
    }
    w.write_message(&ev(P::CaptureFinished(pb::CaptureFinished::default())))
        .unwrap();
    w.finish_with_user_data(&[0x0a, 0x00]).unwrap()
}
