//! Agreement between the zero-copy views and prost (feature `prost`): used by the differential
//! test and the fuzz target.

use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::event::Event;
use crate::kind::EventKind;
use crate::proto::orbit_grpc_protos as pb;
use crate::schema::field::{self, client_capture_event as E};
use crate::views::{self, EventView};
use pb::client_capture_event::Event as P;

/// Why a view and prost disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement(pub &'static str);

macro_rules! same {
    ($v:expr, $p:expr, [$($f:ident),*]) => {{
        $( if $v.$f != $p.$f { return Err(Disagreement(stringify!($f))); } )*
    }};
}

macro_rules! same_bytes {
    ($v:expr, $p:expr, [$($f:ident),*]) => {{
        $( if $v.$f != &$p.$f[..] { return Err(Disagreement(stringify!($f))); } )*
    }};
}

macro_rules! same_name {
    ($v:expr, $p:expr) => {{
        same!(
            $v,
            $p,
            [
                encoded_name_1,
                encoded_name_2,
                encoded_name_3,
                encoded_name_4,
                encoded_name_5,
                encoded_name_6,
                encoded_name_7,
                encoded_name_8
            ]
        );
        if $v.encoded_name_additional.iter().collect::<Vec<_>>() != $p.encoded_name_additional {
            return Err(Disagreement("encoded_name_additional"));
        }
    }};
}

fn check_float(a: f64, b: f64, what: &'static str) -> Result<(), Disagreement> {
    if a.to_bits() == b.to_bits() {
        Ok(())
    } else {
        Err(Disagreement(what))
    }
}

/// The prost kind of an event.
pub fn prost_kind(e: &pb::ClientCaptureEvent) -> EventKind {
    let Some(ev) = &e.event else {
        return EventKind::NotSet;
    };
    let n = match ev {
        P::CallstackSample(_) => E::CALLSTACK_SAMPLE,
        P::FunctionCall(_) => E::FUNCTION_CALL,
        P::GpuJob(_) => E::GPU_JOB,
        P::GpuQueueSubmission(_) => E::GPU_QUEUE_SUBMISSION,
        P::InternedCallstack(_) => E::INTERNED_CALLSTACK,
        P::SchedulingSlice(_) => E::SCHEDULING_SLICE,
        P::ThreadStateSlice(_) => E::THREAD_STATE_SLICE,
        P::TracepointEvent(_) => E::TRACEPOINT_EVENT,
        P::ApiScopeStart(_) => E::API_SCOPE_START,
        P::ApiScopeStop(_) => E::API_SCOPE_STOP,
        P::AddressInfo(_) => E::ADDRESS_INFO,
        P::InternedString(_) => E::INTERNED_STRING,
        P::InternedTracepointInfo(_) => E::INTERNED_TRACEPOINT_INFO,
        P::ModuleUpdateEvent(_) => E::MODULE_UPDATE_EVENT,
        P::ThreadName(_) => E::THREAD_NAME,
        P::CaptureStarted(_) => E::CAPTURE_STARTED,
        P::ModulesSnapshot(_) => E::MODULES_SNAPSHOT,
        P::ThreadNamesSnapshot(_) => E::THREAD_NAMES_SNAPSHOT,
        P::CaptureFinished(_) => E::CAPTURE_FINISHED,
        P::MemoryUsageEvent(_) => E::MEMORY_USAGE_EVENT,
        P::WarningEvent(_) => E::WARNING_EVENT,
        P::ErrorEnablingOrbitApiEvent(_) => E::ERROR_ENABLING_ORBIT_API_EVENT,
        P::ClockResolutionEvent(_) => E::CLOCK_RESOLUTION_EVENT,
        P::ErrorsWithPerfEventOpenEvent(_) => E::ERRORS_WITH_PERF_EVENT_OPEN_EVENT,
        P::LostPerfRecordsEvent(_) => E::LOST_PERF_RECORDS_EVENT,
        P::OutOfOrderEventsDiscardedEvent(_) => E::OUT_OF_ORDER_EVENTS_DISCARDED_EVENT,
        P::ApiScopeStartAsync(_) => E::API_SCOPE_START_ASYNC,
        P::ApiScopeStopAsync(_) => E::API_SCOPE_STOP_ASYNC,
        P::ApiStringEvent(_) => E::API_STRING_EVENT,
        P::ApiTrackDouble(_) => E::API_TRACK_DOUBLE,
        P::ApiTrackFloat(_) => E::API_TRACK_FLOAT,
        P::ApiTrackInt(_) => E::API_TRACK_INT,
        P::ApiTrackInt64(_) => E::API_TRACK_INT64,
        P::ApiTrackUint(_) => E::API_TRACK_UINT,
        P::ApiTrackUint64(_) => E::API_TRACK_UINT64,
        P::ErrorEnablingUserSpaceInstrumentationEvent(_) => {
            E::ERROR_ENABLING_USER_SPACE_INSTRUMENTATION_EVENT
        }
        P::WarningInstrumentingWithUserSpaceInstrumentationEvent(_) => {
            E::WARNING_INSTRUMENTING_WITH_USER_SPACE_INSTRUMENTATION_EVENT
        }
        P::PresentEvent(_) => E::PRESENT_EVENT,
        P::WarningInstrumentingWithUprobesEvent(_) => E::WARNING_INSTRUMENTING_WITH_UPROBES_EVENT,
    };
    EventKind::from_field_number(n).unwrap_or(EventKind::NotSet)
}

/// Checks that `event` (classified and viewed in place) equals `decoded` (prost) in kind and in
/// every field of its typed view. Nested messages are compared when they appear once.
pub fn check(event: &Event<'_>, decoded: &pb::ClientCaptureEvent) -> Result<(), Disagreement> {
    if prost_kind(decoded) != event.kind {
        return Err(Disagreement("kind"));
    }
    if event.split {
        // Merged pieces: the view only covers the last one.
        return Ok(());
    }
    let view = match event.view() {
        Ok(v) => v,
        // Groups are rejected on purpose (no Orbit message has one); prost skips them.
        Err(e) if matches!(e.kind, ErrorKind::Group(_)) => return Ok(()),
        Err(_) => return Err(Disagreement("view failed where prost succeeded")),
    };
    let Some(p) = &decoded.event else {
        return Ok(());
    };
    match compare(event, view, p) {
        Err(d) if d == GROUP_SKIPPED => Ok(()),
        other => other,
    }
}

/// A group inside a nested message: prost skips it, the views reject it on purpose, so the
/// comparison stops without a verdict.
const GROUP_SKIPPED: Disagreement = Disagreement("group in a nested message");

/// Why a nested message that prost decoded did not parse as a view.
fn nested(e: Error, what: &'static str) -> Disagreement {
    if matches!(e.kind, ErrorKind::Group(_)) {
        GROUP_SKIPPED
    } else {
        Disagreement(what)
    }
}

/// Compares the typed view of `event` with prost's member `p`, field by field.
fn compare(event: &Event<'_>, view: EventView<'_>, p: &P) -> Result<(), Disagreement> {
    match (view, p) {
        (EventView::CallstackSample(v), P::CallstackSample(p)) => {
            same!(v, p, [pid, tid, callstack_id, timestamp_ns])
        }
        (EventView::FunctionCall(v), P::FunctionCall(p)) => {
            same!(
                v,
                p,
                [
                    pid,
                    tid,
                    function_id,
                    end_timestamp_ns,
                    depth,
                    return_value,
                    duration_ns
                ]
            );
            if v.registers.iter().collect::<Vec<_>>() != p.registers {
                return Err(Disagreement("registers"));
            }
        }
        (EventView::GpuJob(v), P::GpuJob(p)) => same!(
            v,
            p,
            [
                pid,
                tid,
                context,
                seqno,
                depth,
                amdgpu_cs_ioctl_time_ns,
                amdgpu_sched_run_job_time_ns,
                gpu_hardware_start_time_ns,
                dma_fence_signaled_time_ns,
                timeline_key
            ]
        ),
        (EventView::InternedCallstack(v), P::InternedCallstack(p)) => {
            same!(v, p, [key]);
            if v.intern.present != p.intern.is_some() {
                return Err(Disagreement("intern presence"));
            }
            if single(event.payload, field::interned_callstack::INTERN) {
                let c = v.callstack().map_err(|e| nested(e, "callstack"))?;
                let pc = p.intern.clone().unwrap_or_default();
                if c.pcs.iter().collect::<Vec<_>>() != pc.pcs || c.callstack_type != pc.r#type {
                    return Err(Disagreement("callstack"));
                }
            }
        }
        (EventView::SchedulingSlice(v), P::SchedulingSlice(p)) => {
            same!(v, p, [pid, tid, core, out_timestamp_ns, duration_ns])
        }
        (EventView::ThreadStateSlice(v), P::ThreadStateSlice(p)) => same!(
            v,
            p,
            [
                pid,
                tid,
                thread_state,
                end_timestamp_ns,
                duration_ns,
                wakeup_tid,
                wakeup_pid,
                wakeup_reason,
                switch_out_or_wakeup_callstack_status,
                switch_out_or_wakeup_callstack_id
            ]
        ),
        (EventView::TracepointEvent(v), P::TracepointEvent(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, cpu, tracepoint_info_key])
        }
        (EventView::InternedTracepointInfo(v), P::InternedTracepointInfo(p)) => {
            same!(v, p, [key]);
            if single(event.payload, field::interned_tracepoint_info::INTERN) {
                let i = v.info().map_err(|e| nested(e, "tracepoint info"))?;
                let pi = p.intern.clone().unwrap_or_default();
                same!(i, pi, [category, name]);
            }
        }
        (EventView::AddressInfo(v), P::AddressInfo(p)) => same!(
            v,
            p,
            [
                absolute_address,
                offset_in_function,
                function_name_key,
                module_name_key
            ]
        ),
        (EventView::InternedString(v), P::InternedString(p)) => {
            same!(v, p, [key]);
            same_bytes!(v, p, [intern]);
        }
        (EventView::ThreadName(v), P::ThreadName(p)) => {
            same!(v, p, [pid, tid, timestamp_ns]);
            same_bytes!(v, p, [name]);
        }
        (EventView::ThreadNamesSnapshot(v), P::ThreadNamesSnapshot(p)) => {
            same!(v, p, [timestamp_ns]);
            if v.thread_names.count() != p.thread_names.len() {
                return Err(Disagreement("thread_names"));
            }
            for ((b, o), pt) in v.thread_names.iter().zip(&p.thread_names) {
                let t = views::ThreadName::parse(b, o).map_err(|e| nested(e, "thread name"))?;
                same!(t, pt, [pid, tid, timestamp_ns]);
                same_bytes!(t, pt, [name]);
            }
        }
        (EventView::CaptureStarted(v), P::CaptureStarted(p)) => {
            same!(
                v,
                p,
                [
                    process_id,
                    executable_path,
                    executable_build_id,
                    capture_start_timestamp_ns,
                    orbit_version_major,
                    orbit_version_minor,
                    capture_start_unix_time_ns
                ]
            );
            if v.capture_options.present != p.capture_options.is_some() {
                return Err(Disagreement("capture_options"));
            }
        }
        (EventView::CaptureFinished(v), P::CaptureFinished(p)) => same!(
            v,
            p,
            [
                status,
                error_message,
                target_process_state_after_capture,
                target_process_termination_signal
            ]
        ),
        (EventView::MemoryUsageEvent(v), P::MemoryUsageEvent(p)) => {
            same!(v, p, [timestamp_ns]);
            if single(
                event.payload,
                field::memory_usage_event::SYSTEM_MEMORY_USAGE,
            ) {
                let s = v.system().map_err(|e| nested(e, "system"))?;
                let ps = p.system_memory_usage.unwrap_or_default();
                same!(
                    s,
                    ps,
                    [
                        timestamp_ns,
                        total_kb,
                        free_kb,
                        available_kb,
                        buffers_kb,
                        cached_kb,
                        pgfault,
                        pgmajfault
                    ]
                );
            }
            if single(
                event.payload,
                field::memory_usage_event::PROCESS_MEMORY_USAGE,
            ) {
                let s = v.process().map_err(|e| nested(e, "process"))?;
                let ps = p.process_memory_usage.unwrap_or_default();
                same!(s, ps, [pid, timestamp_ns, minflt, majflt, rss_anon_kb]);
            }
            if single(
                event.payload,
                field::memory_usage_event::CGROUP_MEMORY_USAGE,
            ) {
                let s = v.cgroup().map_err(|e| nested(e, "cgroup"))?;
                let ps = p.cgroup_memory_usage.clone().unwrap_or_default();
                same!(
                    s,
                    ps,
                    [
                        cgroup_name,
                        timestamp_ns,
                        limit_bytes,
                        rss_bytes,
                        mapped_file_bytes,
                        pgfault,
                        pgmajfault,
                        unevictable_bytes,
                        inactive_anon_bytes,
                        active_anon_bytes,
                        inactive_file_bytes,
                        active_file_bytes
                    ]
                );
            }
        }
        (EventView::ClockResolutionEvent(v), P::ClockResolutionEvent(p)) => {
            same!(v, p, [timestamp_ns, clock_resolution_ns])
        }
        (EventView::PresentEvent(v), P::PresentEvent(p)) => {
            same!(v, p, [pid, tid, begin_timestamp_ns, duration_ns, source])
        }
        (EventView::LostPerfRecordsEvent(v), P::LostPerfRecordsEvent(p)) => {
            same!(v, p, [duration_ns, end_timestamp_ns])
        }
        (EventView::OutOfOrderEventsDiscardedEvent(v), P::OutOfOrderEventsDiscardedEvent(p)) => {
            same!(v, p, [duration_ns, end_timestamp_ns])
        }
        (EventView::WarningEvent(v), P::WarningEvent(p)) => {
            same!(v, p, [timestamp_ns]);
            same_bytes!(v, p, [message]);
        }
        (EventView::ErrorEnablingOrbitApiEvent(v), P::ErrorEnablingOrbitApiEvent(p)) => {
            same!(v, p, [timestamp_ns]);
            same_bytes!(v, p, [message]);
        }
        (
            EventView::ErrorEnablingUserSpaceInstrumentationEvent(v),
            P::ErrorEnablingUserSpaceInstrumentationEvent(p),
        ) => {
            same!(v, p, [timestamp_ns]);
            same_bytes!(v, p, [message]);
        }
        (EventView::ApiScopeStop(v), P::ApiScopeStop(p)) => same!(v, p, [pid, tid, timestamp_ns]),
        (EventView::ApiScopeStopAsync(v), P::ApiScopeStopAsync(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, id])
        }
        (EventView::ApiScopeStart(v), P::ApiScopeStart(p)) => {
            same!(
                v,
                p,
                [
                    pid,
                    tid,
                    timestamp_ns,
                    color_rgba,
                    group_id,
                    address_in_function
                ]
            );
            same_name!(v, p);
        }
        (EventView::ApiScopeStartAsync(v), P::ApiScopeStartAsync(p)) => {
            same!(
                v,
                p,
                [pid, tid, timestamp_ns, color_rgba, id, address_in_function]
            );
            same_name!(v, p);
        }
        (EventView::ApiStringEvent(v), P::ApiStringEvent(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, id, color_rgba]);
            same_name!(v, p);
        }
        (EventView::ApiTrackDouble(v), P::ApiTrackDouble(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, color_rgba]);
            check_float(v.data, p.data, "data")?;
            same_name!(v, p);
        }
        (EventView::ApiTrackFloat(v), P::ApiTrackFloat(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, color_rgba]);
            check_float(f64::from(v.data), f64::from(p.data), "data")?;
            same_name!(v, p);
        }
        (EventView::ApiTrackInt(v), P::ApiTrackInt(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, data, color_rgba]);
            same_name!(v, p);
        }
        (EventView::ApiTrackInt64(v), P::ApiTrackInt64(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, data, color_rgba]);
            same_name!(v, p);
        }
        (EventView::ApiTrackUint(v), P::ApiTrackUint(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, data, color_rgba]);
            same_name!(v, p);
        }
        (EventView::ApiTrackUint64(v), P::ApiTrackUint64(p)) => {
            same!(v, p, [pid, tid, timestamp_ns, data, color_rgba]);
            same_name!(v, p);
        }
        (EventView::ErrorsWithPerfEventOpenEvent(v), P::ErrorsWithPerfEventOpenEvent(p)) => {
            same!(v, p, [timestamp_ns]);
            let texts: Vec<&[u8]> = v.failed_to_open.iter().map(|(b, _)| b).collect();
            if texts != p.failed_to_open.iter().map(|t| &t[..]).collect::<Vec<_>>() {
                return Err(Disagreement("failed_to_open"));
            }
        }
        (
            EventView::WarningInstrumentingWithUserSpaceInstrumentationEvent(v),
            P::WarningInstrumentingWithUserSpaceInstrumentationEvent(p),
        ) => {
            same!(v, p, [timestamp_ns]);
            check_failed_functions(&v, &p.functions_that_failed_to_instrument)?;
        }
        (
            EventView::WarningInstrumentingWithUprobesEvent(v),
            P::WarningInstrumentingWithUprobesEvent(p),
        ) => {
            same!(v, p, [timestamp_ns]);
            check_failed_functions(&v, &p.functions_that_failed_to_instrument)?;
        }
        (EventView::ModulesSnapshot(v), P::ModulesSnapshot(p)) => {
            same!(v, p, [pid, timestamp_ns]);
            if v.modules.count() != p.modules.len() {
                return Err(Disagreement("modules"));
            }
            for ((b, o), pm) in v.modules.iter().zip(&p.modules) {
                let m = views::ModuleInfo::parse(b, o).map_err(|e| nested(e, "module"))?;
                check_module(&m, pm)?;
            }
        }
        (EventView::ModuleUpdateEvent(v), P::ModuleUpdateEvent(p)) => {
            same!(v, p, [pid, timestamp_ns]);
            if v.module.present != p.module.is_some() {
                return Err(Disagreement("module presence"));
            }
            if single(event.payload, field::module_update_event::MODULE) {
                let m = v.module_info().map_err(|e| nested(e, "module"))?;
                check_module(&m, &p.module.clone().unwrap_or_default())?;
            }
        }
        (EventView::GpuQueueSubmission(v), P::GpuQueueSubmission(p)) => {
            same!(v, p, [num_begin_markers]);
            if v.meta_info.present != p.meta_info.is_some() {
                return Err(Disagreement("meta_info presence"));
            }
            if single(event.payload, field::gpu_queue_submission::META_INFO) {
                let m = v.meta().map_err(|e| nested(e, "meta_info"))?;
                check_meta(&m, &p.meta_info.unwrap_or_default())?;
            }
            if v.submit_infos.count() != p.submit_infos.len() {
                return Err(Disagreement("submit_infos"));
            }
            for ((b, o), ps) in v.submit_infos.iter().zip(&p.submit_infos) {
                let s = views::GpuSubmitInfo::parse(b, o).map_err(|e| nested(e, "submit"))?;
                if s.command_buffers.count() != ps.command_buffers.len() {
                    return Err(Disagreement("command_buffers"));
                }
                for ((b, o), pc) in s.command_buffers.iter().zip(&ps.command_buffers) {
                    let c = views::GpuCommandBuffer::parse(b, o)
                        .map_err(|e| nested(e, "command buffer"))?;
                    same!(c, pc, [begin_gpu_timestamp_ns, end_gpu_timestamp_ns]);
                }
            }
            if v.completed_markers.count() != p.completed_markers.len() {
                return Err(Disagreement("completed_markers"));
            }
            for ((b, o), pm) in v.completed_markers.iter().zip(&p.completed_markers) {
                let m = views::GpuDebugMarker::parse(b, o).map_err(|e| nested(e, "marker"))?;
                check_marker(&m, pm)?;
            }
        }
        (EventView::Other(..), _) => {}
        _ => return Err(Disagreement("view kind")),
    }
    Ok(())
}

fn check_failed_functions(
    v: &views::InstrumentationWarning<'_>,
    p: &[pb::FunctionThatFailedToBeInstrumented],
) -> Result<(), Disagreement> {
    if v.functions_that_failed_to_instrument.count() != p.len() {
        return Err(Disagreement("functions_that_failed_to_instrument"));
    }
    for ((b, o), pf) in v.functions_that_failed_to_instrument.iter().zip(p) {
        let f = views::FunctionThatFailedToBeInstrumented::parse(b, o)
            .map_err(|e| nested(e, "function that failed"))?;
        same!(f, pf, [function_id]);
        same_bytes!(f, pf, [error_message]);
    }
    Ok(())
}

fn check_module(m: &views::ModuleInfo<'_>, p: &pb::ModuleInfo) -> Result<(), Disagreement> {
    same!(
        m,
        p,
        [
            name,
            file_path,
            file_size,
            address_start,
            address_end,
            build_id,
            load_bias,
            executable_segment_offset,
            soname,
            object_file_type
        ]
    );
    if m.object_segments.count() != p.object_segments.len() {
        return Err(Disagreement("object_segments"));
    }
    for ((b, o), ps) in m.object_segments.iter().zip(&p.object_segments) {
        let s = views::ObjectSegment::parse(b, o).map_err(|e| nested(e, "object segment"))?;
        same!(
            s,
            ps,
            [offset_in_file, size_in_file, address, size_in_memory]
        );
    }
    Ok(())
}

fn check_meta(
    m: &views::GpuQueueSubmissionMetaInfo<'_>,
    p: &pb::GpuQueueSubmissionMetaInfo,
) -> Result<(), Disagreement> {
    same!(
        m,
        p,
        [
            tid,
            pre_submission_cpu_timestamp,
            post_submission_cpu_timestamp,
            pid
        ]
    );
    Ok(())
}

fn check_marker(m: &views::GpuDebugMarker<'_>, p: &pb::GpuDebugMarker) -> Result<(), Disagreement> {
    same!(m, p, [end_gpu_timestamp_ns, text_key, depth]);
    if m.begin_marker.present != p.begin_marker.is_some() {
        return Err(Disagreement("begin_marker presence"));
    }
    if single(m.bytes, field::gpu_debug_marker::BEGIN_MARKER) {
        let b = m.begin().map_err(|e| nested(e, "begin_marker"))?;
        let pb = p.begin_marker.unwrap_or_default();
        same!(b, pb, [gpu_timestamp_ns]);
        if b.meta_info.present != pb.meta_info.is_some() {
            return Err(Disagreement("begin meta_info presence"));
        }
        if single(b.bytes, field::gpu_debug_marker_begin_info::META_INFO) {
            let meta = b.meta().map_err(|e| nested(e, "begin meta_info"))?;
            check_meta(&meta, &pb.meta_info.unwrap_or_default())?;
        }
    }
    if m.color.present != p.color.is_some() {
        return Err(Disagreement("color presence"));
    }
    if single(m.bytes, field::gpu_debug_marker::COLOR) {
        let c = m.rgba().map_err(|e| nested(e, "color"))?;
        let pc = p.color.unwrap_or_default();
        for (a, b, what) in [
            (c.red, pc.red, "red"),
            (c.green, pc.green, "green"),
            (c.blue, pc.blue, "blue"),
            (c.alpha, pc.alpha, "alpha"),
        ] {
            check_float(f64::from(a), f64::from(b), what)?;
        }
    }
    Ok(())
}

/// True when field `number` appears at most once in `payload` (so a view of it is the whole
/// value; protobuf would merge several pieces).
fn single(payload: &[u8], number: u32) -> bool {
    crate::wire::Fields::new(payload, 0)
        .filter(|f| f.as_ref().map_or(true, |f| f.number == number))
        .count()
        <= 1
}
