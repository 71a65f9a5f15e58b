//! Which kind of event a `ClientCaptureEvent` holds, read from its oneof without decoding the rest.

/// The member of `ClientCaptureEvent.event` a message holds (39 kinds), or [`EventKind::NotSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum EventKind {
    /// `callstack_sample` (field 1, `orbit_grpc_protos.CallstackSample`).
    CallstackSample,
    /// `function_call` (field 2, `orbit_grpc_protos.FunctionCall`).
    FunctionCall,
    /// `gpu_job` (field 3, `orbit_grpc_protos.GpuJob`).
    GpuJob,
    /// `gpu_queue_submission` (field 4, `orbit_grpc_protos.GpuQueueSubmission`).
    GpuQueueSubmission,
    /// `interned_callstack` (field 5, `orbit_grpc_protos.InternedCallstack`).
    InternedCallstack,
    /// `scheduling_slice` (field 6, `orbit_grpc_protos.SchedulingSlice`).
    SchedulingSlice,
    /// `thread_state_slice` (field 7, `orbit_grpc_protos.ThreadStateSlice`).
    ThreadStateSlice,
    /// `tracepoint_event` (field 8, `orbit_grpc_protos.TracepointEvent`).
    TracepointEvent,
    /// `api_scope_start` (field 10, `orbit_grpc_protos.ApiScopeStart`).
    ApiScopeStart,
    /// `api_scope_stop` (field 11, `orbit_grpc_protos.ApiScopeStop`).
    ApiScopeStop,
    /// `address_info` (field 16, `orbit_grpc_protos.AddressInfo`).
    AddressInfo,
    /// `interned_string` (field 18, `orbit_grpc_protos.InternedString`).
    InternedString,
    /// `interned_tracepoint_info` (field 19, `orbit_grpc_protos.InternedTracepointInfo`).
    InternedTracepointInfo,
    /// `module_update_event` (field 21, `orbit_grpc_protos.ModuleUpdateEvent`).
    ModuleUpdateEvent,
    /// `thread_name` (field 22, `orbit_grpc_protos.ThreadName`).
    ThreadName,
    /// `capture_started` (field 24, `orbit_grpc_protos.CaptureStarted`).
    CaptureStarted,
    /// `modules_snapshot` (field 25, `orbit_grpc_protos.ModulesSnapshot`).
    ModulesSnapshot,
    /// `thread_names_snapshot` (field 26, `orbit_grpc_protos.ThreadNamesSnapshot`).
    ThreadNamesSnapshot,
    /// `capture_finished` (field 27, `orbit_grpc_protos.CaptureFinished`).
    CaptureFinished,
    /// `memory_usage_event` (field 31, `orbit_grpc_protos.MemoryUsageEvent`).
    MemoryUsageEvent,
    /// `warning_event` (field 32, `orbit_grpc_protos.WarningEvent`).
    WarningEvent,
    /// `error_enabling_orbit_api_event` (field 33, `orbit_grpc_protos.ErrorEnablingOrbitApiEvent`).
    ErrorEnablingOrbitApiEvent,
    /// `clock_resolution_event` (field 34, `orbit_grpc_protos.ClockResolutionEvent`).
    ClockResolutionEvent,
    /// `errors_with_perf_event_open_event` (field 35, `orbit_grpc_protos.ErrorsWithPerfEventOpenEvent`).
    ErrorsWithPerfEventOpenEvent,
    /// `lost_perf_records_event` (field 36, `orbit_grpc_protos.LostPerfRecordsEvent`).
    LostPerfRecordsEvent,
    /// `out_of_order_events_discarded_event` (field 37, `orbit_grpc_protos.OutOfOrderEventsDiscardedEvent`).
    OutOfOrderEventsDiscardedEvent,
    /// `api_scope_start_async` (field 38, `orbit_grpc_protos.ApiScopeStartAsync`).
    ApiScopeStartAsync,
    /// `api_scope_stop_async` (field 39, `orbit_grpc_protos.ApiScopeStopAsync`).
    ApiScopeStopAsync,
    /// `api_string_event` (field 40, `orbit_grpc_protos.ApiStringEvent`).
    ApiStringEvent,
    /// `api_track_double` (field 41, `orbit_grpc_protos.ApiTrackDouble`).
    ApiTrackDouble,
    /// `api_track_float` (field 42, `orbit_grpc_protos.ApiTrackFloat`).
    ApiTrackFloat,
    /// `api_track_int` (field 43, `orbit_grpc_protos.ApiTrackInt`).
    ApiTrackInt,
    /// `api_track_int64` (field 44, `orbit_grpc_protos.ApiTrackInt64`).
    ApiTrackInt64,
    /// `api_track_uint` (field 45, `orbit_grpc_protos.ApiTrackUint`).
    ApiTrackUint,
    /// `api_track_uint64` (field 46, `orbit_grpc_protos.ApiTrackUint64`).
    ApiTrackUint64,
    /// `error_enabling_user_space_instrumentation_event` (field 47, `orbit_grpc_protos.ErrorEnablingUserSpaceInstrumentationEvent`).
    ErrorEnablingUserSpaceInstrumentationEvent,
    /// `warning_instrumenting_with_user_space_instrumentation_event` (field 48, `orbit_grpc_protos.WarningInstrumentingWithUserSpaceInstrumentationEvent`).
    WarningInstrumentingWithUserSpaceInstrumentationEvent,
    /// `present_event` (field 49, `orbit_grpc_protos.PresentEvent`).
    PresentEvent,
    /// `warning_instrumenting_with_uprobes_event` (field 50, `orbit_grpc_protos.WarningInstrumentingWithUprobesEvent`).
    WarningInstrumentingWithUprobesEvent,
    /// No member the schema knows (an empty message, or a removed kind such as `api_event`).
    NotSet,
}

impl EventKind {
    /// Every kind, `NotSet` last.
    pub const ALL: [EventKind; 40] = [
        EventKind::CallstackSample,
        EventKind::FunctionCall,
        EventKind::GpuJob,
        EventKind::GpuQueueSubmission,
        EventKind::InternedCallstack,
        EventKind::SchedulingSlice,
        EventKind::ThreadStateSlice,
        EventKind::TracepointEvent,
        EventKind::ApiScopeStart,
        EventKind::ApiScopeStop,
        EventKind::AddressInfo,
        EventKind::InternedString,
        EventKind::InternedTracepointInfo,
        EventKind::ModuleUpdateEvent,
        EventKind::ThreadName,
        EventKind::CaptureStarted,
        EventKind::ModulesSnapshot,
        EventKind::ThreadNamesSnapshot,
        EventKind::CaptureFinished,
        EventKind::MemoryUsageEvent,
        EventKind::WarningEvent,
        EventKind::ErrorEnablingOrbitApiEvent,
        EventKind::ClockResolutionEvent,
        EventKind::ErrorsWithPerfEventOpenEvent,
        EventKind::LostPerfRecordsEvent,
        EventKind::OutOfOrderEventsDiscardedEvent,
        EventKind::ApiScopeStartAsync,
        EventKind::ApiScopeStopAsync,
        EventKind::ApiStringEvent,
        EventKind::ApiTrackDouble,
        EventKind::ApiTrackFloat,
        EventKind::ApiTrackInt,
        EventKind::ApiTrackInt64,
        EventKind::ApiTrackUint,
        EventKind::ApiTrackUint64,
        EventKind::ErrorEnablingUserSpaceInstrumentationEvent,
        EventKind::WarningInstrumentingWithUserSpaceInstrumentationEvent,
        EventKind::PresentEvent,
        EventKind::WarningInstrumentingWithUprobesEvent,
        EventKind::NotSet,
    ];

    /// The kind stored under oneof field `number`, if the schema knows it.
    #[inline]
    pub fn from_field_number(number: u32) -> Option<EventKind> {
        if number >= 64 {
            return None;
        }
        EventKind::from_member_key(number << 3 | 2)
    }

    /// The kind of the oneof member whose field key (`number << 3 | wire type`) is `key`, if
    /// that key is a known member with the length-delimited wire type; the event walk calls it
    /// once per event, so it is one table load rather than the jump table a match compiles to.
    #[inline(always)]
    pub(crate) fn from_member_key(key: u32) -> Option<EventKind> {
        BY_MEMBER_KEY.get(key as usize).copied().flatten()
    }

    /// The oneof field number (0 for `NotSet`).
    pub const fn field_number(self) -> u32 {
        use crate::schema::field::client_capture_event as F;
        match self {
            EventKind::CallstackSample => F::CALLSTACK_SAMPLE,
            EventKind::FunctionCall => F::FUNCTION_CALL,
            EventKind::GpuJob => F::GPU_JOB,
            EventKind::GpuQueueSubmission => F::GPU_QUEUE_SUBMISSION,
            EventKind::InternedCallstack => F::INTERNED_CALLSTACK,
            EventKind::SchedulingSlice => F::SCHEDULING_SLICE,
            EventKind::ThreadStateSlice => F::THREAD_STATE_SLICE,
            EventKind::TracepointEvent => F::TRACEPOINT_EVENT,
            EventKind::ApiScopeStart => F::API_SCOPE_START,
            EventKind::ApiScopeStop => F::API_SCOPE_STOP,
            EventKind::AddressInfo => F::ADDRESS_INFO,
            EventKind::InternedString => F::INTERNED_STRING,
            EventKind::InternedTracepointInfo => F::INTERNED_TRACEPOINT_INFO,
            EventKind::ModuleUpdateEvent => F::MODULE_UPDATE_EVENT,
            EventKind::ThreadName => F::THREAD_NAME,
            EventKind::CaptureStarted => F::CAPTURE_STARTED,
            EventKind::ModulesSnapshot => F::MODULES_SNAPSHOT,
            EventKind::ThreadNamesSnapshot => F::THREAD_NAMES_SNAPSHOT,
            EventKind::CaptureFinished => F::CAPTURE_FINISHED,
            EventKind::MemoryUsageEvent => F::MEMORY_USAGE_EVENT,
            EventKind::WarningEvent => F::WARNING_EVENT,
            EventKind::ErrorEnablingOrbitApiEvent => F::ERROR_ENABLING_ORBIT_API_EVENT,
            EventKind::ClockResolutionEvent => F::CLOCK_RESOLUTION_EVENT,
            EventKind::ErrorsWithPerfEventOpenEvent => F::ERRORS_WITH_PERF_EVENT_OPEN_EVENT,
            EventKind::LostPerfRecordsEvent => F::LOST_PERF_RECORDS_EVENT,
            EventKind::OutOfOrderEventsDiscardedEvent => F::OUT_OF_ORDER_EVENTS_DISCARDED_EVENT,
            EventKind::ApiScopeStartAsync => F::API_SCOPE_START_ASYNC,
            EventKind::ApiScopeStopAsync => F::API_SCOPE_STOP_ASYNC,
            EventKind::ApiStringEvent => F::API_STRING_EVENT,
            EventKind::ApiTrackDouble => F::API_TRACK_DOUBLE,
            EventKind::ApiTrackFloat => F::API_TRACK_FLOAT,
            EventKind::ApiTrackInt => F::API_TRACK_INT,
            EventKind::ApiTrackInt64 => F::API_TRACK_INT64,
            EventKind::ApiTrackUint => F::API_TRACK_UINT,
            EventKind::ApiTrackUint64 => F::API_TRACK_UINT64,
            EventKind::ErrorEnablingUserSpaceInstrumentationEvent => {
                F::ERROR_ENABLING_USER_SPACE_INSTRUMENTATION_EVENT
            }
            EventKind::WarningInstrumentingWithUserSpaceInstrumentationEvent => {
                F::WARNING_INSTRUMENTING_WITH_USER_SPACE_INSTRUMENTATION_EVENT
            }
            EventKind::PresentEvent => F::PRESENT_EVENT,
            EventKind::WarningInstrumentingWithUprobesEvent => {
                F::WARNING_INSTRUMENTING_WITH_UPROBES_EVENT
            }
            EventKind::NotSet => 0,
        }
    }

    /// The oneof field's name, as in the schema and in proto3 JSON (`EVENT_NOT_SET` for `NotSet`).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::CallstackSample => "callstack_sample",
            EventKind::FunctionCall => "function_call",
            EventKind::GpuJob => "gpu_job",
            EventKind::GpuQueueSubmission => "gpu_queue_submission",
            EventKind::InternedCallstack => "interned_callstack",
            EventKind::SchedulingSlice => "scheduling_slice",
            EventKind::ThreadStateSlice => "thread_state_slice",
            EventKind::TracepointEvent => "tracepoint_event",
            EventKind::ApiScopeStart => "api_scope_start",
            EventKind::ApiScopeStop => "api_scope_stop",
            EventKind::AddressInfo => "address_info",
            EventKind::InternedString => "interned_string",
            EventKind::InternedTracepointInfo => "interned_tracepoint_info",
            EventKind::ModuleUpdateEvent => "module_update_event",
            EventKind::ThreadName => "thread_name",
            EventKind::CaptureStarted => "capture_started",
            EventKind::ModulesSnapshot => "modules_snapshot",
            EventKind::ThreadNamesSnapshot => "thread_names_snapshot",
            EventKind::CaptureFinished => "capture_finished",
            EventKind::MemoryUsageEvent => "memory_usage_event",
            EventKind::WarningEvent => "warning_event",
            EventKind::ErrorEnablingOrbitApiEvent => "error_enabling_orbit_api_event",
            EventKind::ClockResolutionEvent => "clock_resolution_event",
            EventKind::ErrorsWithPerfEventOpenEvent => "errors_with_perf_event_open_event",
            EventKind::LostPerfRecordsEvent => "lost_perf_records_event",
            EventKind::OutOfOrderEventsDiscardedEvent => "out_of_order_events_discarded_event",
            EventKind::ApiScopeStartAsync => "api_scope_start_async",
            EventKind::ApiScopeStopAsync => "api_scope_stop_async",
            EventKind::ApiStringEvent => "api_string_event",
            EventKind::ApiTrackDouble => "api_track_double",
            EventKind::ApiTrackFloat => "api_track_float",
            EventKind::ApiTrackInt => "api_track_int",
            EventKind::ApiTrackInt64 => "api_track_int64",
            EventKind::ApiTrackUint => "api_track_uint",
            EventKind::ApiTrackUint64 => "api_track_uint64",
            EventKind::ErrorEnablingUserSpaceInstrumentationEvent => {
                "error_enabling_user_space_instrumentation_event"
            }
            EventKind::WarningInstrumentingWithUserSpaceInstrumentationEvent => {
                "warning_instrumenting_with_user_space_instrumentation_event"
            }
            EventKind::PresentEvent => "present_event",
            EventKind::WarningInstrumentingWithUprobesEvent => {
                "warning_instrumenting_with_uprobes_event"
            }
            EventKind::NotSet => "EVENT_NOT_SET",
        }
    }

    /// The kind whose oneof field name is `name`.
    pub fn from_name(name: &str) -> Option<EventKind> {
        EventKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// A dense index (0 ..= 39), for counting kinds in an array.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The kind of each length-delimited member key (`field number << 3 | 2`), `None` for every
/// other key; built from [`EventKind::field_number`] at compile time (constant evaluation: an
/// index out of range would fail the build, not the program).
#[allow(clippy::indexing_slicing)]
const BY_MEMBER_KEY: [Option<EventKind>; 51 << 3] = {
    let mut table = [None; 51 << 3];
    let mut i = 0;
    while i < EventKind::ALL.len() {
        let kind = EventKind::ALL[i];
        if kind.field_number() != 0 {
            table[(kind.field_number() << 3 | 2) as usize] = Some(kind);
        }
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_table_matches_the_field_numbers() {
        for kind in EventKind::ALL {
            let n = kind.field_number();
            if kind == EventKind::NotSet {
                assert_eq!(EventKind::from_field_number(n), None);
                continue;
            }
            assert_eq!(EventKind::from_field_number(n), Some(kind));
            for wire in 0..8 {
                let expected = (wire == 2).then_some(kind);
                assert_eq!(EventKind::from_member_key(n << 3 | wire), expected);
            }
        }
        let known = EventKind::ALL.map(|k| k.field_number());
        for n in (0..1000).chain([u32::MAX >> 3, u32::MAX]) {
            if !known.contains(&n) || n == 0 {
                assert_eq!(EventKind::from_field_number(n), None, "{n}");
            }
        }
        for key in 0..0x4000 {
            if let Some(kind) = EventKind::from_member_key(key) {
                assert_eq!(key, kind.field_number() << 3 | 2);
            }
        }
    }
}
