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
        Some(match number {
            1 => EventKind::CallstackSample,
            2 => EventKind::FunctionCall,
            3 => EventKind::GpuJob,
            4 => EventKind::GpuQueueSubmission,
            5 => EventKind::InternedCallstack,
            6 => EventKind::SchedulingSlice,
            7 => EventKind::ThreadStateSlice,
            8 => EventKind::TracepointEvent,
            10 => EventKind::ApiScopeStart,
            11 => EventKind::ApiScopeStop,
            16 => EventKind::AddressInfo,
            18 => EventKind::InternedString,
            19 => EventKind::InternedTracepointInfo,
            21 => EventKind::ModuleUpdateEvent,
            22 => EventKind::ThreadName,
            24 => EventKind::CaptureStarted,
            25 => EventKind::ModulesSnapshot,
            26 => EventKind::ThreadNamesSnapshot,
            27 => EventKind::CaptureFinished,
            31 => EventKind::MemoryUsageEvent,
            32 => EventKind::WarningEvent,
            33 => EventKind::ErrorEnablingOrbitApiEvent,
            34 => EventKind::ClockResolutionEvent,
            35 => EventKind::ErrorsWithPerfEventOpenEvent,
            36 => EventKind::LostPerfRecordsEvent,
            37 => EventKind::OutOfOrderEventsDiscardedEvent,
            38 => EventKind::ApiScopeStartAsync,
            39 => EventKind::ApiScopeStopAsync,
            40 => EventKind::ApiStringEvent,
            41 => EventKind::ApiTrackDouble,
            42 => EventKind::ApiTrackFloat,
            43 => EventKind::ApiTrackInt,
            44 => EventKind::ApiTrackInt64,
            45 => EventKind::ApiTrackUint,
            46 => EventKind::ApiTrackUint64,
            47 => EventKind::ErrorEnablingUserSpaceInstrumentationEvent,
            48 => EventKind::WarningInstrumentingWithUserSpaceInstrumentationEvent,
            49 => EventKind::PresentEvent,
            50 => EventKind::WarningInstrumentingWithUprobesEvent,
            _ => return None,
        })
    }

    /// The oneof field number (0 for `NotSet`).
    pub fn field_number(self) -> u32 {
        match self {
            EventKind::CallstackSample => 1,
            EventKind::FunctionCall => 2,
            EventKind::GpuJob => 3,
            EventKind::GpuQueueSubmission => 4,
            EventKind::InternedCallstack => 5,
            EventKind::SchedulingSlice => 6,
            EventKind::ThreadStateSlice => 7,
            EventKind::TracepointEvent => 8,
            EventKind::ApiScopeStart => 10,
            EventKind::ApiScopeStop => 11,
            EventKind::AddressInfo => 16,
            EventKind::InternedString => 18,
            EventKind::InternedTracepointInfo => 19,
            EventKind::ModuleUpdateEvent => 21,
            EventKind::ThreadName => 22,
            EventKind::CaptureStarted => 24,
            EventKind::ModulesSnapshot => 25,
            EventKind::ThreadNamesSnapshot => 26,
            EventKind::CaptureFinished => 27,
            EventKind::MemoryUsageEvent => 31,
            EventKind::WarningEvent => 32,
            EventKind::ErrorEnablingOrbitApiEvent => 33,
            EventKind::ClockResolutionEvent => 34,
            EventKind::ErrorsWithPerfEventOpenEvent => 35,
            EventKind::LostPerfRecordsEvent => 36,
            EventKind::OutOfOrderEventsDiscardedEvent => 37,
            EventKind::ApiScopeStartAsync => 38,
            EventKind::ApiScopeStopAsync => 39,
            EventKind::ApiStringEvent => 40,
            EventKind::ApiTrackDouble => 41,
            EventKind::ApiTrackFloat => 42,
            EventKind::ApiTrackInt => 43,
            EventKind::ApiTrackInt64 => 44,
            EventKind::ApiTrackUint => 45,
            EventKind::ApiTrackUint64 => 46,
            EventKind::ErrorEnablingUserSpaceInstrumentationEvent => 47,
            EventKind::WarningInstrumentingWithUserSpaceInstrumentationEvent => 48,
            EventKind::PresentEvent => 49,
            EventKind::WarningInstrumentingWithUprobesEvent => 50,
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
