//! Borrowed, typed views of every `ClientCaptureEvent` member and of the messages nested in them.
//!
//! Each view is a small `Copy` struct filled by one pass over the message's fields: scalars are
//! decoded (the last occurrence wins, as in protobuf), `bytes` and `string` fields borrow from
//! the input, nested messages are kept as [`Nested`] and parsed on request, repeated fields are
//! [`Repeated`] / [`RepeatedLen`] handles that re-read the message. Parsing checks what a protobuf
//! decoder checks (wire types of known fields, well-formed packed data, UTF-8 of `string`
//! fields); unknown fields are skipped. Nothing is allocated.

use crate::error::{what, Error, ErrorKind};
use crate::event::Event;
use crate::kind::EventKind;
use crate::repeated::{Element, Repeated, RepeatedLen};
use crate::schema::field::*;
use crate::wire::{
    Field, Fields, PackedVarints, Value, WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT,
};

/// A nested message field: its bytes (empty and `present == false` when absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nested<'a> {
    /// The nested message's bytes (the last occurrence).
    pub bytes: &'a [u8],
    /// Absolute offset of its first byte.
    pub offset: u64,
    /// True when the field was in the message.
    pub present: bool,
}

#[cold]
fn wrong(f: &Field<'_>, expected: u8) -> Error {
    Error::new(
        ErrorKind::WrongWireType {
            field: f.number,
            found: f.value.wire_type(),
            expected,
        },
        f.offset,
    )
}

#[inline(always)]
fn want_varint(f: &Field<'_>) -> Result<u64, Error> {
    match f.value {
        Value::Varint(v) => Ok(v),
        _ => Err(wrong(f, WIRE_VARINT)),
    }
}

#[inline(always)]
fn want_fixed64(f: &Field<'_>) -> Result<u64, Error> {
    match f.value {
        Value::Fixed64(v) => Ok(v),
        _ => Err(wrong(f, WIRE_FIXED64)),
    }
}

#[inline(always)]
fn want_fixed32(f: &Field<'_>) -> Result<u32, Error> {
    match f.value {
        Value::Fixed32(v) => Ok(v),
        _ => Err(wrong(f, WIRE_FIXED32)),
    }
}

#[inline(always)]
fn want_len<'a>(f: &Field<'a>) -> Result<&'a [u8], Error> {
    match f.value {
        Value::Len(v) => Ok(v),
        _ => Err(wrong(f, WIRE_LEN)),
    }
}

fn want_str<'a>(f: &Field<'a>) -> Result<&'a str, Error> {
    let b = want_len(f)?;
    core::str::from_utf8(b).map_err(|e| {
        Error::new(
            ErrorKind::InvalidUtf8(f.number),
            f.value_offset.saturating_add(e.valid_up_to() as u64),
        )
    })
}

fn check_rep_varint(f: &Field<'_>) -> Result<(), Error> {
    match f.value {
        Value::Varint(_) => Ok(()),
        Value::Len(p) => PackedVarints::check(p, f.value_offset),
        _ => Err(wrong(f, WIRE_VARINT)),
    }
}

fn check_rep_fixed64(f: &Field<'_>) -> Result<(), Error> {
    match f.value {
        Value::Fixed64(_) => Ok(()),
        Value::Len(p) if p.len() % 8 == 0 => Ok(()),
        Value::Len(p) => Err(Error::truncated(
            what::FIELD,
            f.value_offset
                .saturating_add((p.len() - p.len() % 8) as u64),
            8,
            (p.len() % 8) as u64,
        )),
        _ => Err(wrong(f, WIRE_FIXED64)),
    }
}

macro_rules! view_ty {
    ($lt:lifetime, u32) => { u32 };
    ($lt:lifetime, u64) => { u64 };
    ($lt:lifetime, i32) => { i32 };
    ($lt:lifetime, i64) => { i64 };
    ($lt:lifetime, bool) => { bool };
    ($lt:lifetime, enum) => { i32 };
    ($lt:lifetime, f64) => { f64 };
    ($lt:lifetime, f32) => { f32 };
    ($lt:lifetime, fx64) => { u64 };
    ($lt:lifetime, bytes) => { &$lt [u8] };
    ($lt:lifetime, string) => { &$lt str };
    ($lt:lifetime, msg) => { Nested<$lt> };
    ($lt:lifetime, rep_u64) => { Repeated<$lt> };
    ($lt:lifetime, rep_fx64) => { Repeated<$lt> };
    ($lt:lifetime, rep_len) => { RepeatedLen<$lt> };
}

macro_rules! view_decode {
    ($v:ident . $field:ident, u32, $f:ident, $num:path) => {
        $v.$field = want_varint(&$f)? as u32
    };
    ($v:ident . $field:ident, u64, $f:ident, $num:path) => {
        $v.$field = want_varint(&$f)?
    };
    ($v:ident . $field:ident, i32, $f:ident, $num:path) => {
        $v.$field = want_varint(&$f)? as i32
    };
    ($v:ident . $field:ident, i64, $f:ident, $num:path) => {
        $v.$field = want_varint(&$f)? as i64
    };
    ($v:ident . $field:ident, bool, $f:ident, $num:path) => {
        $v.$field = want_varint(&$f)? != 0
    };
    ($v:ident . $field:ident, enum, $f:ident, $num:path) => {
        $v.$field = want_varint(&$f)? as i32
    };
    ($v:ident . $field:ident, f64, $f:ident, $num:path) => {
        $v.$field = f64::from_bits(want_fixed64(&$f)?)
    };
    ($v:ident . $field:ident, f32, $f:ident, $num:path) => {
        $v.$field = f32::from_bits(want_fixed32(&$f)?)
    };
    ($v:ident . $field:ident, fx64, $f:ident, $num:path) => {
        $v.$field = want_fixed64(&$f)?
    };
    ($v:ident . $field:ident, bytes, $f:ident, $num:path) => {
        $v.$field = want_len(&$f)?
    };
    ($v:ident . $field:ident, string, $f:ident, $num:path) => {
        $v.$field = want_str(&$f)?
    };
    ($v:ident . $field:ident, msg, $f:ident, $num:path) => {
        $v.$field = Nested {
            bytes: want_len(&$f)?,
            offset: $f.value_offset,
            present: true,
        }
    };
    ($v:ident . $field:ident, rep_u64, $f:ident, $num:path) => {{
        check_rep_varint(&$f)?;
        $v.$field = Repeated::new($v.bytes, $num, Element::Varint);
    }};
    ($v:ident . $field:ident, rep_fx64, $f:ident, $num:path) => {{
        check_rep_fixed64(&$f)?;
        $v.$field = Repeated::new($v.bytes, $num, Element::Fixed64);
    }};
    ($v:ident . $field:ident, rep_len, $f:ident, $num:path) => {{
        want_len(&$f)?;
        $v.$field = RepeatedLen::new($v.bytes, $v.offset, $num);
    }};
}

macro_rules! message_view {
    ($(#[$m:meta])* $name:ident = $full:literal {
        $( $(#[$fm:meta])* $field:ident : $num:path => $kind:ident ),* $(,)?
    }) => {
        $(#[$m])*
        #[doc = concat!("\n\nView of `", $full, "`.")]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name<'a> {
            $( $(#[$fm])* pub $field: view_ty!('a, $kind), )*
            /// The message's bytes.
            pub bytes: &'a [u8],
            /// Absolute offset of the message's first byte.
            pub offset: u64,
        }

        impl<'a> $name<'a> {
            /// Reads the message `bytes`, whose first byte is at absolute `offset`.
            #[inline]
            pub fn parse(bytes: &'a [u8], offset: u64) -> Result<Self, Error> {
                let mut v = Self { bytes, offset, ..Default::default() };
                for f in Fields::new(bytes, offset) {
                    let f = f?;
                    match f.number {
                        $( $num => view_decode!(v.$field, $kind, f, $num), )*
                        _ => {}
                    }
                }
                Ok(v)
            }

            /// Reads a [`Nested`] field holding this message (all defaults when absent).
            pub fn from_nested(n: Nested<'a>) -> Result<Self, Error> {
                Self::parse(n.bytes, n.offset)
            }
        }
    };
}

message_view!(
    /// A sampled callstack of a thread.
    CallstackSample = "orbit_grpc_protos.CallstackSample" {
        /// Process id.
        pid: callstack_sample::PID => u32,
        /// Thread id.
        tid: callstack_sample::TID => u32,
        /// Key of an `InternedCallstack`.
        callstack_id: callstack_sample::CALLSTACK_ID => u64,
        /// When it was taken (CLOCK_MONOTONIC ns).
        timestamp_ns: callstack_sample::TIMESTAMP_NS => u64,
    }
);

message_view!(
    /// A call of a dynamically instrumented function.
    FunctionCall = "orbit_grpc_protos.FunctionCall" {
        /// Process id.
        pid: function_call::PID => u32,
        /// Thread id.
        tid: function_call::TID => u32,
        /// Instrumented function id.
        function_id: function_call::FUNCTION_ID => u64,
        /// End of the call.
        end_timestamp_ns: function_call::END_TIMESTAMP_NS => u64,
        /// Nesting depth (may be negative).
        depth: function_call::DEPTH => i32,
        /// Return value, when recorded.
        return_value: function_call::RETURN_VALUE => u64,
        /// Argument registers, when recorded.
        registers: function_call::REGISTERS => rep_u64,
        /// Duration; start = end - duration.
        duration_ns: function_call::DURATION_NS => u64,
    }
);

message_view!(
    /// A GPU job as seen by the amdgpu driver.
    GpuJob = "orbit_grpc_protos.GpuJob" {
        /// Process id.
        pid: gpu_job::PID => u32,
        /// Thread id.
        tid: gpu_job::TID => u32,
        /// Driver context.
        context: gpu_job::CONTEXT => u32,
        /// Sequence number.
        seqno: gpu_job::SEQNO => u32,
        /// Depth.
        depth: gpu_job::DEPTH => i32,
        /// The ioctl that submitted it.
        amdgpu_cs_ioctl_time_ns: gpu_job::AMDGPU_CS_IOCTL_TIME_NS => u64,
        /// When the scheduler ran it.
        amdgpu_sched_run_job_time_ns: gpu_job::AMDGPU_SCHED_RUN_JOB_TIME_NS => u64,
        /// When the hardware started it.
        gpu_hardware_start_time_ns: gpu_job::GPU_HARDWARE_START_TIME_NS => u64,
        /// When its fence was signalled.
        dma_fence_signaled_time_ns: gpu_job::DMA_FENCE_SIGNALED_TIME_NS => u64,
        /// Key of the interned timeline name.
        timeline_key: gpu_job::TIMELINE_KEY => u64,
    }
);

message_view!(
    /// A callstack definition.
    InternedCallstack = "orbit_grpc_protos.InternedCallstack" {
        /// The key samples refer to.
        key: interned_callstack::KEY => u64,
        /// The callstack (see [`InternedCallstack::callstack`]).
        intern: interned_callstack::INTERN => msg,
    }
);

impl<'a> InternedCallstack<'a> {
    /// The interned callstack.
    pub fn callstack(&self) -> Result<Callstack<'a>, Error> {
        Callstack::from_nested(self.intern)
    }
}

message_view!(
    /// Program counters of a callstack, innermost first.
    Callstack = "orbit_grpc_protos.Callstack" {
        /// The program counters.
        pcs: callstack::PCS => rep_u64,
        /// `Callstack.CallstackType` (field `type`).
        callstack_type: callstack::TYPE => enum,
    }
);

message_view!(
    /// A thread ran on a core between two context switches.
    SchedulingSlice = "orbit_grpc_protos.SchedulingSlice" {
        /// Process id.
        pid: scheduling_slice::PID => u32,
        /// Thread id.
        tid: scheduling_slice::TID => u32,
        /// The core.
        core: scheduling_slice::CORE => i32,
        /// When the thread was switched out.
        out_timestamp_ns: scheduling_slice::OUT_TIMESTAMP_NS => u64,
        /// How long it ran.
        duration_ns: scheduling_slice::DURATION_NS => u64,
    }
);

message_view!(
    /// A thread stayed in one state.
    ThreadStateSlice = "orbit_grpc_protos.ThreadStateSlice" {
        /// Process id (not filled by the service).
        pid: thread_state_slice::PID => u32,
        /// Thread id.
        tid: thread_state_slice::TID => u32,
        /// `ThreadStateSlice.ThreadState`.
        thread_state: thread_state_slice::THREAD_STATE => enum,
        /// End of the slice.
        end_timestamp_ns: thread_state_slice::END_TIMESTAMP_NS => u64,
        /// Duration.
        duration_ns: thread_state_slice::DURATION_NS => u64,
        /// The thread that woke this one.
        wakeup_tid: thread_state_slice::WAKEUP_TID => u32,
        /// Its process.
        wakeup_pid: thread_state_slice::WAKEUP_PID => u32,
        /// `ThreadStateSlice.WakeupReason`.
        wakeup_reason: thread_state_slice::WAKEUP_REASON => enum,
        /// `ThreadStateSlice.CallstackStatus`.
        switch_out_or_wakeup_callstack_status: thread_state_slice::SWITCH_OUT_OR_WAKEUP_CALLSTACK_STATUS => enum,
        /// Key of an interned callstack.
        switch_out_or_wakeup_callstack_id: thread_state_slice::SWITCH_OUT_OR_WAKEUP_CALLSTACK_ID => u64,
    }
);

message_view!(
    /// A kernel tracepoint hit.
    TracepointEvent = "orbit_grpc_protos.TracepointEvent" {
        /// Process id.
        pid: tracepoint_event::PID => u32,
        /// Thread id.
        tid: tracepoint_event::TID => u32,
        /// When.
        timestamp_ns: tracepoint_event::TIMESTAMP_NS => u64,
        /// The CPU.
        cpu: tracepoint_event::CPU => i32,
        /// Key of an `InternedTracepointInfo`.
        tracepoint_info_key: tracepoint_event::TRACEPOINT_INFO_KEY => u64,
    }
);

message_view!(
    /// A tracepoint definition.
    InternedTracepointInfo = "orbit_grpc_protos.InternedTracepointInfo" {
        /// Key.
        key: interned_tracepoint_info::KEY => u64,
        /// The `TracepointInfo`.
        intern: interned_tracepoint_info::INTERN => msg,
    }
);

impl<'a> InternedTracepointInfo<'a> {
    /// The interned tracepoint.
    pub fn info(&self) -> Result<TracepointInfo<'a>, Error> {
        TracepointInfo::from_nested(self.intern)
    }
}

message_view!(
    /// A tracepoint's category and name.
    TracepointInfo = "orbit_grpc_protos.TracepointInfo" {
        /// Category, e.g. `sched`.
        category: tracepoint_info::CATEGORY => string,
        /// Name, e.g. `sched_switch`.
        name: tracepoint_info::NAME => string,
    }
);

message_view!(
    /// The symbol of an address seen in callstacks.
    AddressInfo = "orbit_grpc_protos.AddressInfo" {
        /// The address.
        absolute_address: address_info::ABSOLUTE_ADDRESS => u64,
        /// Offset from the function's start.
        offset_in_function: address_info::OFFSET_IN_FUNCTION => u64,
        /// Interned function name.
        function_name_key: address_info::FUNCTION_NAME_KEY => u64,
        /// Interned module name.
        module_name_key: address_info::MODULE_NAME_KEY => u64,
    }
);

message_view!(
    /// A string definition.
    InternedString = "orbit_grpc_protos.InternedString" {
        /// The key events refer to.
        key: interned_string::KEY => u64,
        /// The string's bytes (not necessarily UTF-8).
        intern: interned_string::INTERN => bytes,
    }
);

message_view!(
    /// A thread's name.
    ThreadName = "orbit_grpc_protos.ThreadName" {
        /// Process id.
        pid: thread_name::PID => u32,
        /// Thread id.
        tid: thread_name::TID => u32,
        /// The name (bytes, may be invalid UTF-8).
        name: thread_name::NAME => bytes,
        /// When it was read.
        timestamp_ns: thread_name::TIMESTAMP_NS => u64,
    }
);

message_view!(
    /// The names of all threads at the start.
    ThreadNamesSnapshot = "orbit_grpc_protos.ThreadNamesSnapshot" {
        /// When.
        timestamp_ns: thread_names_snapshot::TIMESTAMP_NS => u64,
        /// `ThreadName` messages (parse each with [`ThreadName::parse`]).
        thread_names: thread_names_snapshot::THREAD_NAMES => rep_len,
    }
);

message_view!(
    /// The first event: what was captured, and how.
    CaptureStarted = "orbit_grpc_protos.CaptureStarted" {
        /// Target process id.
        process_id: capture_started::PROCESS_ID => u32,
        /// Its executable.
        executable_path: capture_started::EXECUTABLE_PATH => string,
        /// Its build id.
        executable_build_id: capture_started::EXECUTABLE_BUILD_ID => string,
        /// Capture start (CLOCK_MONOTONIC ns).
        capture_start_timestamp_ns: capture_started::CAPTURE_START_TIMESTAMP_NS => u64,
        /// `CaptureOptions`.
        capture_options: capture_started::CAPTURE_OPTIONS => msg,
        /// Orbit's major version.
        orbit_version_major: capture_started::ORBIT_VERSION_MAJOR => u32,
        /// Orbit's minor version.
        orbit_version_minor: capture_started::ORBIT_VERSION_MINOR => u32,
        /// Capture start, wall clock (ns since the Unix epoch).
        capture_start_unix_time_ns: capture_started::CAPTURE_START_UNIX_TIME_NS => u64,
    }
);

impl<'a> CaptureStarted<'a> {
    /// The capture's options (all defaults when absent).
    pub fn options(&self) -> Result<CaptureOptions<'a>, Error> {
        CaptureOptions::from_nested(self.capture_options)
    }
}

message_view!(
    /// What the capture was asked to record: among others the instrumented functions, whose
    /// ids `FunctionCall.function_id` refers to.
    CaptureOptions = "orbit_grpc_protos.CaptureOptions" {
        /// Context switches were traced.
        trace_context_switches: capture_options::TRACE_CONTEXT_SWITCHES => bool,
        /// Target process id.
        pid: capture_options::PID => u32,
        /// Sampling rate.
        samples_per_second: capture_options::SAMPLES_PER_SECOND => f64,
        /// `CaptureOptions.UnwindingMethod`.
        unwinding_method: capture_options::UNWINDING_METHOD => enum,
        /// `InstrumentedFunction` messages (see [`CaptureOptions::functions`]).
        instrumented_functions: capture_options::INSTRUMENTED_FUNCTIONS => rep_len,
        /// The GPU driver was traced.
        trace_gpu_driver: capture_options::TRACE_GPU_DRIVER => bool,
        /// `TracepointInfo` messages.
        instrumented_tracepoint: capture_options::INSTRUMENTED_TRACEPOINT => rep_len,
        /// Thread states were traced.
        trace_thread_state: capture_options::TRACE_THREAD_STATE => bool,
        /// Orbit's own introspection was on.
        enable_introspection: capture_options::ENABLE_INTROSPECTION => bool,
        /// GPU debug marker depth limit.
        max_local_marker_depth_per_command_buffer:
            capture_options::MAX_LOCAL_MARKER_DEPTH_PER_COMMAND_BUFFER => u64,
        /// Memory usage was sampled.
        collect_memory_info: capture_options::COLLECT_MEMORY_INFO => bool,
        /// Memory sampling period.
        memory_sampling_period_ns: capture_options::MEMORY_SAMPLING_PERIOD_NS => u64,
        /// `ApiFunction` messages.
        api_functions: capture_options::API_FUNCTIONS => rep_len,
        /// The Orbit API was enabled.
        enable_api: capture_options::ENABLE_API => bool,
        /// Bytes of stack copied per sample.
        stack_dump_size: capture_options::STACK_DUMP_SIZE => u32,
        /// `CaptureOptions.DynamicInstrumentationMethod`.
        dynamic_instrumentation_method: capture_options::DYNAMIC_INSTRUMENTATION_METHOD => enum,
        /// `FunctionToStopUnwindingAt` messages.
        functions_to_stop_unwinding_at: capture_options::FUNCTIONS_TO_STOP_UNWINDING_AT => rep_len,
        /// `FunctionToRecordAdditionalStackOn` messages.
        functions_to_record_additional_stack_on:
            capture_options::FUNCTIONS_TO_RECORD_ADDITIONAL_STACK_ON => rep_len,
        /// `CaptureOptions.ThreadStateChangeCallStackCollection`.
        thread_state_change_callstack_collection:
            capture_options::THREAD_STATE_CHANGE_CALLSTACK_COLLECTION => enum,
        /// Bytes of stack copied on thread state changes.
        thread_state_change_callstack_stack_dump_size:
            capture_options::THREAD_STATE_CHANGE_CALLSTACK_STACK_DUMP_SIZE => u32,
    }
);

impl<'a> CaptureOptions<'a> {
    /// The instrumented functions, in file order; each is parsed when reached (an error ends
    /// with that error).
    pub fn functions(&self) -> impl Iterator<Item = Result<InstrumentedFunction<'a>, Error>> + 'a {
        self.instrumented_functions
            .into_iter()
            .map(|(bytes, offset)| InstrumentedFunction::parse(bytes, offset))
    }
}

message_view!(
    /// A function instrumented for the capture: `FunctionCall.function_id` is its
    /// `function_id`.
    InstrumentedFunction = "orbit_grpc_protos.InstrumentedFunction" {
        /// The module's path.
        file_path: instrumented_function::FILE_PATH => string,
        /// Offset of the function in the module's file.
        file_offset: instrumented_function::FILE_OFFSET => u64,
        /// The id function calls refer to.
        function_id: instrumented_function::FUNCTION_ID => u64,
        /// The function's (demangled) name.
        function_name: instrumented_function::FUNCTION_NAME => string,
        /// The module's build id.
        file_build_id: instrumented_function::FILE_BUILD_ID => string,
        /// Size of the function's code.
        function_size: instrumented_function::FUNCTION_SIZE => u64,
        /// Arguments were recorded.
        record_arguments: instrumented_function::RECORD_ARGUMENTS => bool,
        /// The return value was recorded.
        record_return_value: instrumented_function::RECORD_RETURN_VALUE => bool,
        /// The function's virtual address in the module.
        function_virtual_address: instrumented_function::FUNCTION_VIRTUAL_ADDRESS => u64,
        /// The function could be hot-patched.
        is_hotpatchable: instrumented_function::IS_HOTPATCHABLE => bool,
    }
);

message_view!(
    /// The last event.
    CaptureFinished = "orbit_grpc_protos.CaptureFinished" {
        /// `CaptureFinished.Status`.
        status: capture_finished::STATUS => enum,
        /// Error text on failure.
        error_message: capture_finished::ERROR_MESSAGE => string,
        /// `CaptureFinished.ProcessState`.
        target_process_state_after_capture: capture_finished::TARGET_PROCESS_STATE_AFTER_CAPTURE => enum,
        /// `CaptureFinished.TerminationSignal`.
        target_process_termination_signal: capture_finished::TARGET_PROCESS_TERMINATION_SIGNAL => enum,
    }
);

message_view!(
    /// Memory counters sampled at one time.
    MemoryUsageEvent = "orbit_grpc_protos.MemoryUsageEvent" {
        /// When.
        timestamp_ns: memory_usage_event::TIMESTAMP_NS => u64,
        /// `SystemMemoryUsage`.
        system_memory_usage: memory_usage_event::SYSTEM_MEMORY_USAGE => msg,
        /// `ProcessMemoryUsage`.
        process_memory_usage: memory_usage_event::PROCESS_MEMORY_USAGE => msg,
        /// `CGroupMemoryUsage`.
        cgroup_memory_usage: memory_usage_event::CGROUP_MEMORY_USAGE => msg,
    }
);

impl<'a> MemoryUsageEvent<'a> {
    /// The system counters.
    pub fn system(&self) -> Result<SystemMemoryUsage<'a>, Error> {
        SystemMemoryUsage::from_nested(self.system_memory_usage)
    }
    /// The process counters.
    pub fn process(&self) -> Result<ProcessMemoryUsage<'a>, Error> {
        ProcessMemoryUsage::from_nested(self.process_memory_usage)
    }
    /// The cgroup counters.
    pub fn cgroup(&self) -> Result<CGroupMemoryUsage<'a>, Error> {
        CGroupMemoryUsage::from_nested(self.cgroup_memory_usage)
    }
}

message_view!(
    /// System-wide memory counters.
    SystemMemoryUsage = "orbit_grpc_protos.SystemMemoryUsage" {
        /// When.
        timestamp_ns: system_memory_usage::TIMESTAMP_NS => u64,
        /// Total.
        total_kb: system_memory_usage::TOTAL_KB => i64,
        /// Free.
        free_kb: system_memory_usage::FREE_KB => i64,
        /// Available.
        available_kb: system_memory_usage::AVAILABLE_KB => i64,
        /// Buffers.
        buffers_kb: system_memory_usage::BUFFERS_KB => i64,
        /// Cached.
        cached_kb: system_memory_usage::CACHED_KB => i64,
        /// Page faults.
        pgfault: system_memory_usage::PGFAULT => i64,
        /// Major page faults.
        pgmajfault: system_memory_usage::PGMAJFAULT => i64,
    }
);

message_view!(
    /// The target process's memory counters.
    ProcessMemoryUsage = "orbit_grpc_protos.ProcessMemoryUsage" {
        /// Process id.
        pid: process_memory_usage::PID => u32,
        /// When.
        timestamp_ns: process_memory_usage::TIMESTAMP_NS => u64,
        /// Minor faults.
        minflt: process_memory_usage::MINFLT => i64,
        /// Major faults.
        majflt: process_memory_usage::MAJFLT => i64,
        /// Anonymous RSS.
        rss_anon_kb: process_memory_usage::RSS_ANON_KB => i64,
    }
);

message_view!(
    /// The target's cgroup memory counters.
    CGroupMemoryUsage = "orbit_grpc_protos.CGroupMemoryUsage" {
        /// Cgroup name.
        cgroup_name: cgroup_memory_usage::CGROUP_NAME => string,
        /// When.
        timestamp_ns: cgroup_memory_usage::TIMESTAMP_NS => u64,
        /// Limit.
        limit_bytes: cgroup_memory_usage::LIMIT_BYTES => i64,
        /// RSS.
        rss_bytes: cgroup_memory_usage::RSS_BYTES => i64,
        /// Mapped files.
        mapped_file_bytes: cgroup_memory_usage::MAPPED_FILE_BYTES => i64,
        /// Page faults.
        pgfault: cgroup_memory_usage::PGFAULT => i64,
        /// Major page faults.
        pgmajfault: cgroup_memory_usage::PGMAJFAULT => i64,
        /// Unevictable.
        unevictable_bytes: cgroup_memory_usage::UNEVICTABLE_BYTES => i64,
        /// Inactive anonymous.
        inactive_anon_bytes: cgroup_memory_usage::INACTIVE_ANON_BYTES => i64,
        /// Active anonymous.
        active_anon_bytes: cgroup_memory_usage::ACTIVE_ANON_BYTES => i64,
        /// Inactive file.
        inactive_file_bytes: cgroup_memory_usage::INACTIVE_FILE_BYTES => i64,
        /// Active file.
        active_file_bytes: cgroup_memory_usage::ACTIVE_FILE_BYTES => i64,
    }
);

message_view!(
    /// The clock's resolution.
    ClockResolutionEvent = "orbit_grpc_protos.ClockResolutionEvent" {
        /// When.
        timestamp_ns: clock_resolution_event::TIMESTAMP_NS => u64,
        /// Resolution.
        clock_resolution_ns: clock_resolution_event::CLOCK_RESOLUTION_NS => u64,
    }
);

message_view!(
    /// A frame presented (Windows).
    PresentEvent = "orbit_grpc_protos.PresentEvent" {
        /// Process id.
        pid: present_event::PID => u32,
        /// Thread id.
        tid: present_event::TID => u32,
        /// Start.
        begin_timestamp_ns: present_event::BEGIN_TIMESTAMP_NS => u64,
        /// Duration; end = begin + duration.
        duration_ns: present_event::DURATION_NS => u64,
        /// `PresentEvent.Source`.
        source: present_event::SOURCE => enum,
    }
);

message_view!(
    /// An interval of lost or discarded records (`LostPerfRecordsEvent`,
    /// `OutOfOrderEventsDiscardedEvent`: the same two fields).
    DiscardedInterval = "orbit_grpc_protos.LostPerfRecordsEvent" {
        /// Duration.
        duration_ns: lost_perf_records_event::DURATION_NS => u64,
        /// End.
        end_timestamp_ns: lost_perf_records_event::END_TIMESTAMP_NS => u64,
    }
);

message_view!(
    /// A timestamped message (`WarningEvent`, `ErrorEnablingOrbitApiEvent`,
    /// `ErrorEnablingUserSpaceInstrumentationEvent`: the same two fields).
    MessageEvent = "orbit_grpc_protos.WarningEvent" {
        /// When.
        timestamp_ns: warning_event::TIMESTAMP_NS => u64,
        /// The text (bytes).
        message: warning_event::MESSAGE => bytes,
    }
);

message_view!(
    /// Perf events that could not be opened.
    ErrorsWithPerfEventOpenEvent = "orbit_grpc_protos.ErrorsWithPerfEventOpenEvent" {
        /// When.
        timestamp_ns: errors_with_perf_event_open_event::TIMESTAMP_NS => u64,
        /// What failed to open, one text (bytes) each.
        failed_to_open: errors_with_perf_event_open_event::FAILED_TO_OPEN => rep_len,
    }
);

message_view!(
    /// Functions that could not be instrumented
    /// (`WarningInstrumentingWithUserSpaceInstrumentationEvent`,
    /// `WarningInstrumentingWithUprobesEvent`: the same two fields).
    InstrumentationWarning = "orbit_grpc_protos.WarningInstrumentingWithUprobesEvent" {
        /// When.
        timestamp_ns: warning_instrumenting_with_uprobes_event::TIMESTAMP_NS => u64,
        /// `FunctionThatFailedToBeInstrumented` messages (parse each with
        /// [`FunctionThatFailedToBeInstrumented::parse`]).
        functions_that_failed_to_instrument: warning_instrumenting_with_uprobes_event::FUNCTIONS_THAT_FAILED_TO_INSTRUMENT => rep_len,
    }
);

message_view!(
    /// One function that could not be instrumented.
    FunctionThatFailedToBeInstrumented = "orbit_grpc_protos.FunctionThatFailedToBeInstrumented" {
        /// The function's id (as in `CaptureOptions`).
        function_id: function_that_failed_to_be_instrumented::FUNCTION_ID => u64,
        /// Why (bytes).
        error_message: function_that_failed_to_be_instrumented::ERROR_MESSAGE => bytes,
    }
);

message_view!(
    /// The modules loaded in the target process at the start.
    ModulesSnapshot = "orbit_grpc_protos.ModulesSnapshot" {
        /// Process id.
        pid: modules_snapshot::PID => u32,
        /// When.
        timestamp_ns: modules_snapshot::TIMESTAMP_NS => u64,
        /// `ModuleInfo` messages (parse each with [`ModuleInfo::parse`]).
        modules: modules_snapshot::MODULES => rep_len,
    }
);

message_view!(
    /// A module loaded (or reloaded) into the target process.
    ModuleUpdateEvent = "orbit_grpc_protos.ModuleUpdateEvent" {
        /// Process id.
        pid: module_update_event::PID => u32,
        /// When.
        timestamp_ns: module_update_event::TIMESTAMP_NS => u64,
        /// The `ModuleInfo` (see [`ModuleUpdateEvent::module_info`]).
        module: module_update_event::MODULE => msg,
    }
);

impl<'a> ModuleUpdateEvent<'a> {
    /// The module.
    pub fn module_info(&self) -> Result<ModuleInfo<'a>, Error> {
        ModuleInfo::from_nested(self.module)
    }
}

message_view!(
    /// A module (executable or shared library) and where it is mapped.
    ModuleInfo = "orbit_grpc_protos.ModuleInfo" {
        /// File name.
        name: module_info::NAME => string,
        /// Full path.
        file_path: module_info::FILE_PATH => string,
        /// File size.
        file_size: module_info::FILE_SIZE => u64,
        /// Start of the executable mapping.
        address_start: module_info::ADDRESS_START => u64,
        /// End of the executable mapping.
        address_end: module_info::ADDRESS_END => u64,
        /// Build id.
        build_id: module_info::BUILD_ID => string,
        /// Load bias.
        load_bias: module_info::LOAD_BIAS => u64,
        /// Offset of the executable segment in the file.
        executable_segment_offset: module_info::EXECUTABLE_SEGMENT_OFFSET => u64,
        /// `DT_SONAME` (ELF).
        soname: module_info::SONAME => string,
        /// `ModuleInfo.ObjectFileType`.
        object_file_type: module_info::OBJECT_FILE_TYPE => enum,
        /// `ModuleInfo.ObjectSegment` messages (parse each with [`ObjectSegment::parse`]).
        object_segments: module_info::OBJECT_SEGMENTS => rep_len,
    }
);

message_view!(
    /// One segment of a module's object file.
    ObjectSegment = "orbit_grpc_protos.ModuleInfo.ObjectSegment" {
        /// Offset in the file.
        offset_in_file: module_info::object_segment::OFFSET_IN_FILE => u64,
        /// Size in the file.
        size_in_file: module_info::object_segment::SIZE_IN_FILE => u64,
        /// Address (unrelocated).
        address: module_info::object_segment::ADDRESS => u64,
        /// Size in memory.
        size_in_memory: module_info::object_segment::SIZE_IN_MEMORY => u64,
    }
);

message_view!(
    /// A Vulkan queue submission and the debug markers it completed.
    GpuQueueSubmission = "orbit_grpc_protos.GpuQueueSubmission" {
        /// `GpuQueueSubmissionMetaInfo` (see [`GpuQueueSubmission::meta`]).
        meta_info: gpu_queue_submission::META_INFO => msg,
        /// `GpuSubmitInfo` messages (parse each with [`GpuSubmitInfo::parse`]).
        submit_infos: gpu_queue_submission::SUBMIT_INFOS => rep_len,
        /// `GpuDebugMarker` messages (parse each with [`GpuDebugMarker::parse`]).
        completed_markers: gpu_queue_submission::COMPLETED_MARKERS => rep_len,
        /// Debug markers begun in this submission.
        num_begin_markers: gpu_queue_submission::NUM_BEGIN_MARKERS => i32,
    }
);

impl<'a> GpuQueueSubmission<'a> {
    /// The submitting thread and the CPU times around the submission.
    pub fn meta(&self) -> Result<GpuQueueSubmissionMetaInfo<'a>, Error> {
        GpuQueueSubmissionMetaInfo::from_nested(self.meta_info)
    }
}

message_view!(
    /// Who submitted to a GPU queue, and when (CPU clock).
    GpuQueueSubmissionMetaInfo = "orbit_grpc_protos.GpuQueueSubmissionMetaInfo" {
        /// Thread id.
        tid: gpu_queue_submission_meta_info::TID => u32,
        /// Before the submission.
        pre_submission_cpu_timestamp: gpu_queue_submission_meta_info::PRE_SUBMISSION_CPU_TIMESTAMP => u64,
        /// After the submission.
        post_submission_cpu_timestamp: gpu_queue_submission_meta_info::POST_SUBMISSION_CPU_TIMESTAMP => u64,
        /// Process id.
        pid: gpu_queue_submission_meta_info::PID => u32,
    }
);

message_view!(
    /// One submit of a queue submission.
    GpuSubmitInfo = "orbit_grpc_protos.GpuSubmitInfo" {
        /// `GpuCommandBuffer` messages (parse each with [`GpuCommandBuffer::parse`]).
        command_buffers: gpu_submit_info::COMMAND_BUFFERS => rep_len,
    }
);

message_view!(
    /// When a command buffer ran (GPU clock).
    GpuCommandBuffer = "orbit_grpc_protos.GpuCommandBuffer" {
        /// Start.
        begin_gpu_timestamp_ns: gpu_command_buffer::BEGIN_GPU_TIMESTAMP_NS => u64,
        /// End.
        end_gpu_timestamp_ns: gpu_command_buffer::END_GPU_TIMESTAMP_NS => u64,
    }
);

message_view!(
    /// A completed debug marker (a region of command buffers).
    GpuDebugMarker = "orbit_grpc_protos.GpuDebugMarker" {
        /// `GpuDebugMarkerBeginInfo` (see [`GpuDebugMarker::begin`]).
        begin_marker: gpu_debug_marker::BEGIN_MARKER => msg,
        /// End (GPU clock).
        end_gpu_timestamp_ns: gpu_debug_marker::END_GPU_TIMESTAMP_NS => u64,
        /// Interned text.
        text_key: gpu_debug_marker::TEXT_KEY => u64,
        /// Nesting depth.
        depth: gpu_debug_marker::DEPTH => i32,
        /// `Color` (see [`GpuDebugMarker::rgba`]).
        color: gpu_debug_marker::COLOR => msg,
    }
);

impl<'a> GpuDebugMarker<'a> {
    /// Where the marker began.
    pub fn begin(&self) -> Result<GpuDebugMarkerBeginInfo<'a>, Error> {
        GpuDebugMarkerBeginInfo::from_nested(self.begin_marker)
    }
    /// Its colour.
    pub fn rgba(&self) -> Result<Color<'a>, Error> {
        Color::from_nested(self.color)
    }
}

message_view!(
    /// Where a debug marker began: the submission that opened it and the GPU time.
    GpuDebugMarkerBeginInfo = "orbit_grpc_protos.GpuDebugMarkerBeginInfo" {
        /// `GpuQueueSubmissionMetaInfo` of the opening submission (see
        /// [`GpuDebugMarkerBeginInfo::meta`]).
        meta_info: gpu_debug_marker_begin_info::META_INFO => msg,
        /// Start (GPU clock).
        gpu_timestamp_ns: gpu_debug_marker_begin_info::GPU_TIMESTAMP_NS => u64,
    }
);

impl<'a> GpuDebugMarkerBeginInfo<'a> {
    /// The opening submission.
    pub fn meta(&self) -> Result<GpuQueueSubmissionMetaInfo<'a>, Error> {
        GpuQueueSubmissionMetaInfo::from_nested(self.meta_info)
    }
}

message_view!(
    /// A colour, each channel in 0..=1.
    Color = "orbit_grpc_protos.Color" {
        /// Red.
        red: color::RED => f32,
        /// Green.
        green: color::GREEN => f32,
        /// Blue.
        blue: color::BLUE => f32,
        /// Alpha.
        alpha: color::ALPHA => f32,
    }
);

message_view!(
    /// The end of the innermost open Orbit API scope of a thread.
    ApiScopeStop = "orbit_grpc_protos.ApiScopeStop" {
        /// Process id.
        pid: api_scope_stop::PID => u32,
        /// Thread id.
        tid: api_scope_stop::TID => u32,
        /// When.
        timestamp_ns: api_scope_stop::TIMESTAMP_NS => u64,
    }
);

message_view!(
    /// The end of an asynchronous Orbit API scope.
    ApiScopeStopAsync = "orbit_grpc_protos.ApiScopeStopAsync" {
        /// Process id.
        pid: api_scope_stop_async::PID => u32,
        /// Thread id.
        tid: api_scope_stop_async::TID => u32,
        /// When.
        timestamp_ns: api_scope_stop_async::TIMESTAMP_NS => u64,
        /// Matches `ApiScopeStartAsync.id`.
        id: api_scope_stop_async::ID => u64,
    }
);

message_view!(
    /// The start of an Orbit API scope.
    ApiScopeStart = "orbit_grpc_protos.ApiScopeStart" {
        /// Process id.
        pid: api_scope_start::PID => u32,
        /// Thread id.
        tid: api_scope_start::TID => u32,
        /// When.
        timestamp_ns: api_scope_start::TIMESTAMP_NS => u64,
        /// Name chunk 1.
        encoded_name_1: api_scope_start::ENCODED_NAME_1 => fx64,
        /// Name chunk 2.
        encoded_name_2: api_scope_start::ENCODED_NAME_2 => fx64,
        /// Name chunk 3.
        encoded_name_3: api_scope_start::ENCODED_NAME_3 => fx64,
        /// Name chunk 4.
        encoded_name_4: api_scope_start::ENCODED_NAME_4 => fx64,
        /// Name chunk 5.
        encoded_name_5: api_scope_start::ENCODED_NAME_5 => fx64,
        /// Name chunk 6.
        encoded_name_6: api_scope_start::ENCODED_NAME_6 => fx64,
        /// Name chunk 7.
        encoded_name_7: api_scope_start::ENCODED_NAME_7 => fx64,
        /// Name chunk 8.
        encoded_name_8: api_scope_start::ENCODED_NAME_8 => fx64,
        /// Further name chunks.
        encoded_name_additional: api_scope_start::ENCODED_NAME_ADDITIONAL => rep_fx64,
        /// Colour.
        color_rgba: api_scope_start::COLOR_RGBA => u32,
        /// Group id.
        group_id: api_scope_start::GROUP_ID => u64,
        /// Return address of the API call.
        address_in_function: api_scope_start::ADDRESS_IN_FUNCTION => u64,
    }
);

message_view!(
    /// The start of an asynchronous Orbit API scope.
    ApiScopeStartAsync = "orbit_grpc_protos.ApiScopeStartAsync" {
        /// Process id.
        pid: api_scope_start_async::PID => u32,
        /// Thread id.
        tid: api_scope_start_async::TID => u32,
        /// When.
        timestamp_ns: api_scope_start_async::TIMESTAMP_NS => u64,
        /// Name chunk 1.
        encoded_name_1: api_scope_start_async::ENCODED_NAME_1 => fx64,
        /// Name chunk 2.
        encoded_name_2: api_scope_start_async::ENCODED_NAME_2 => fx64,
        /// Name chunk 3.
        encoded_name_3: api_scope_start_async::ENCODED_NAME_3 => fx64,
        /// Name chunk 4.
        encoded_name_4: api_scope_start_async::ENCODED_NAME_4 => fx64,
        /// Name chunk 5.
        encoded_name_5: api_scope_start_async::ENCODED_NAME_5 => fx64,
        /// Name chunk 6.
        encoded_name_6: api_scope_start_async::ENCODED_NAME_6 => fx64,
        /// Name chunk 7.
        encoded_name_7: api_scope_start_async::ENCODED_NAME_7 => fx64,
        /// Name chunk 8.
        encoded_name_8: api_scope_start_async::ENCODED_NAME_8 => fx64,
        /// Further name chunks.
        encoded_name_additional: api_scope_start_async::ENCODED_NAME_ADDITIONAL => rep_fx64,
        /// Colour.
        color_rgba: api_scope_start_async::COLOR_RGBA => u32,
        /// Matches `ApiScopeStopAsync.id`.
        id: api_scope_start_async::ID => u64,
        /// Return address of the API call.
        address_in_function: api_scope_start_async::ADDRESS_IN_FUNCTION => u64,
    }
);

message_view!(
    /// A string attached to an async scope or shown on its own.
    ApiStringEvent = "orbit_grpc_protos.ApiStringEvent" {
        /// Process id.
        pid: api_string_event::PID => u32,
        /// Thread id.
        tid: api_string_event::TID => u32,
        /// When.
        timestamp_ns: api_string_event::TIMESTAMP_NS => u64,
        /// Name chunk 1.
        encoded_name_1: api_string_event::ENCODED_NAME_1 => fx64,
        /// Name chunk 2.
        encoded_name_2: api_string_event::ENCODED_NAME_2 => fx64,
        /// Name chunk 3.
        encoded_name_3: api_string_event::ENCODED_NAME_3 => fx64,
        /// Name chunk 4.
        encoded_name_4: api_string_event::ENCODED_NAME_4 => fx64,
        /// Name chunk 5.
        encoded_name_5: api_string_event::ENCODED_NAME_5 => fx64,
        /// Name chunk 6.
        encoded_name_6: api_string_event::ENCODED_NAME_6 => fx64,
        /// Name chunk 7.
        encoded_name_7: api_string_event::ENCODED_NAME_7 => fx64,
        /// Name chunk 8.
        encoded_name_8: api_string_event::ENCODED_NAME_8 => fx64,
        /// Further name chunks.
        encoded_name_additional: api_string_event::ENCODED_NAME_ADDITIONAL => rep_fx64,
        /// Async scope id.
        id: api_string_event::ID => u64,
        /// Colour.
        color_rgba: api_string_event::COLOR_RGBA => u32,
    }
);

macro_rules! api_track {
    ($(#[$m:meta])* $name:ident = $full:literal in $module:ident, $data:ident) => {
        message_view!(
            $(#[$m])*
            $name = $full {
                /// Process id.
                pid: $module::PID => u32,
                /// Thread id.
                tid: $module::TID => u32,
                /// When.
                timestamp_ns: $module::TIMESTAMP_NS => u64,
                /// The value.
                data: $module::DATA => $data,
                /// Name chunk 1.
                encoded_name_1: $module::ENCODED_NAME_1 => fx64,
                /// Name chunk 2.
                encoded_name_2: $module::ENCODED_NAME_2 => fx64,
                /// Name chunk 3.
                encoded_name_3: $module::ENCODED_NAME_3 => fx64,
                /// Name chunk 4.
                encoded_name_4: $module::ENCODED_NAME_4 => fx64,
                /// Name chunk 5.
                encoded_name_5: $module::ENCODED_NAME_5 => fx64,
                /// Name chunk 6.
                encoded_name_6: $module::ENCODED_NAME_6 => fx64,
                /// Name chunk 7.
                encoded_name_7: $module::ENCODED_NAME_7 => fx64,
                /// Name chunk 8.
                encoded_name_8: $module::ENCODED_NAME_8 => fx64,
                /// Further name chunks.
                encoded_name_additional: $module::ENCODED_NAME_ADDITIONAL => rep_fx64,
                /// Colour.
                color_rgba: $module::COLOR_RGBA => u32,
            }
        );
    };
}

api_track!(
    /// A value of a `double` track.
    ApiTrackDouble = "orbit_grpc_protos.ApiTrackDouble" in api_track_double, f64);
api_track!(
    /// A value of a `float` track.
    ApiTrackFloat = "orbit_grpc_protos.ApiTrackFloat" in api_track_float, f32);
api_track!(
    /// A value of an `int` track.
    ApiTrackInt = "orbit_grpc_protos.ApiTrackInt" in api_track_int, i32);
api_track!(
    /// A value of an `int64` track.
    ApiTrackInt64 = "orbit_grpc_protos.ApiTrackInt64" in api_track_int64, i64);
api_track!(
    /// A value of a `uint` track.
    ApiTrackUint = "orbit_grpc_protos.ApiTrackUint" in api_track_uint, u32);
api_track!(
    /// A value of a `uint64` track.
    ApiTrackUint64 = "orbit_grpc_protos.ApiTrackUint64" in api_track_uint64, u64);

macro_rules! api_named {
    ($($name:ident),*) => {$(
        impl<'a> $name<'a> {
            /// The name, decoded from the packed `encoded_name_*` chunks.
            pub fn name(&self) -> crate::api_name::ApiName<'a> {
                crate::api_name::ApiName::new(
                    [
                        self.encoded_name_1,
                        self.encoded_name_2,
                        self.encoded_name_3,
                        self.encoded_name_4,
                        self.encoded_name_5,
                        self.encoded_name_6,
                        self.encoded_name_7,
                        self.encoded_name_8,
                    ],
                    self.encoded_name_additional,
                )
            }
        }
    )*};
}

api_named!(
    ApiScopeStart,
    ApiScopeStartAsync,
    ApiStringEvent,
    ApiTrackDouble,
    ApiTrackFloat,
    ApiTrackInt,
    ApiTrackInt64,
    ApiTrackUint,
    ApiTrackUint64
);

message_view!(
    /// The USER_DATA message.
    UserDefinedCaptureInfo = "orbit_client_protos.UserDefinedCaptureInfo" {
        /// `FrameTracksInfo`.
        frame_tracks_info: user_defined_capture_info::FRAME_TRACKS_INFO => msg,
    }
);

impl<'a> UserDefinedCaptureInfo<'a> {
    /// The frame tracks.
    pub fn frame_tracks(&self) -> Result<FrameTracksInfo<'a>, Error> {
        FrameTracksInfo::from_nested(self.frame_tracks_info)
    }
}

message_view!(
    /// Functions that get a frame track.
    FrameTracksInfo = "orbit_client_protos.FrameTracksInfo" {
        /// Function ids.
        frame_track_function_ids: frame_tracks_info::FRAME_TRACK_FUNCTION_IDS => rep_u64,
    }
);

/// The typed view of one event, by kind.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum EventView<'a> {
    /// `capture_started`.
    CaptureStarted(CaptureStarted<'a>),
    /// `capture_finished`.
    CaptureFinished(CaptureFinished<'a>),
    /// `interned_string`.
    InternedString(InternedString<'a>),
    /// `interned_callstack`.
    InternedCallstack(InternedCallstack<'a>),
    /// `interned_tracepoint_info`.
    InternedTracepointInfo(InternedTracepointInfo<'a>),
    /// `callstack_sample`.
    CallstackSample(CallstackSample<'a>),
    /// `function_call`.
    FunctionCall(FunctionCall<'a>),
    /// `scheduling_slice`.
    SchedulingSlice(SchedulingSlice<'a>),
    /// `thread_name`.
    ThreadName(ThreadName<'a>),
    /// `thread_names_snapshot`.
    ThreadNamesSnapshot(ThreadNamesSnapshot<'a>),
    /// `thread_state_slice`.
    ThreadStateSlice(ThreadStateSlice<'a>),
    /// `tracepoint_event`.
    TracepointEvent(TracepointEvent<'a>),
    /// `address_info`.
    AddressInfo(AddressInfo<'a>),
    /// `api_scope_start`.
    ApiScopeStart(ApiScopeStart<'a>),
    /// `api_scope_stop`.
    ApiScopeStop(ApiScopeStop<'a>),
    /// `api_scope_start_async`.
    ApiScopeStartAsync(ApiScopeStartAsync<'a>),
    /// `api_scope_stop_async`.
    ApiScopeStopAsync(ApiScopeStopAsync<'a>),
    /// `api_string_event`.
    ApiStringEvent(ApiStringEvent<'a>),
    /// `api_track_double`.
    ApiTrackDouble(ApiTrackDouble<'a>),
    /// `api_track_float`.
    ApiTrackFloat(ApiTrackFloat<'a>),
    /// `api_track_int`.
    ApiTrackInt(ApiTrackInt<'a>),
    /// `api_track_int64`.
    ApiTrackInt64(ApiTrackInt64<'a>),
    /// `api_track_uint`.
    ApiTrackUint(ApiTrackUint<'a>),
    /// `api_track_uint64`.
    ApiTrackUint64(ApiTrackUint64<'a>),
    /// `gpu_job`.
    GpuJob(GpuJob<'a>),
    /// `memory_usage_event`.
    MemoryUsageEvent(MemoryUsageEvent<'a>),
    /// `present_event`.
    PresentEvent(PresentEvent<'a>),
    /// `clock_resolution_event`.
    ClockResolutionEvent(ClockResolutionEvent<'a>),
    /// `lost_perf_records_event`.
    LostPerfRecordsEvent(DiscardedInterval<'a>),
    /// `out_of_order_events_discarded_event`.
    OutOfOrderEventsDiscardedEvent(DiscardedInterval<'a>),
    /// `warning_event`.
    WarningEvent(MessageEvent<'a>),
    /// `error_enabling_orbit_api_event`.
    ErrorEnablingOrbitApiEvent(MessageEvent<'a>),
    /// `error_enabling_user_space_instrumentation_event`.
    ErrorEnablingUserSpaceInstrumentationEvent(MessageEvent<'a>),
    /// `errors_with_perf_event_open_event`.
    ErrorsWithPerfEventOpenEvent(ErrorsWithPerfEventOpenEvent<'a>),
    /// `warning_instrumenting_with_user_space_instrumentation_event`.
    WarningInstrumentingWithUserSpaceInstrumentationEvent(InstrumentationWarning<'a>),
    /// `warning_instrumenting_with_uprobes_event`.
    WarningInstrumentingWithUprobesEvent(InstrumentationWarning<'a>),
    /// `modules_snapshot`.
    ModulesSnapshot(ModulesSnapshot<'a>),
    /// `module_update_event`.
    ModuleUpdateEvent(ModuleUpdateEvent<'a>),
    /// `gpu_queue_submission`.
    GpuQueueSubmission(GpuQueueSubmission<'a>),
    /// An event without a typed view (today only [`EventKind::NotSet`]): its kind and payload
    /// bytes.
    Other(EventKind, &'a [u8]),
}

impl<'a> Event<'a> {
    /// The typed view of this event (see [`EventView`]).
    pub fn view(&self) -> Result<EventView<'a>, Error> {
        EventView::parse(self)
    }
}

impl<'a> EventView<'a> {
    /// The typed view of `event`'s payload.
    pub fn parse(event: &Event<'a>) -> Result<Self, Error> {
        let (b, o) = (event.payload, event.payload_offset);
        Ok(match event.kind {
            EventKind::CaptureStarted => EventView::CaptureStarted(CaptureStarted::parse(b, o)?),
            EventKind::CaptureFinished => EventView::CaptureFinished(CaptureFinished::parse(b, o)?),
            EventKind::InternedString => EventView::InternedString(InternedString::parse(b, o)?),
            EventKind::InternedCallstack => {
                EventView::InternedCallstack(InternedCallstack::parse(b, o)?)
            }
            EventKind::InternedTracepointInfo => {
                EventView::InternedTracepointInfo(InternedTracepointInfo::parse(b, o)?)
            }
            EventKind::CallstackSample => EventView::CallstackSample(CallstackSample::parse(b, o)?),
            EventKind::FunctionCall => EventView::FunctionCall(FunctionCall::parse(b, o)?),
            EventKind::SchedulingSlice => EventView::SchedulingSlice(SchedulingSlice::parse(b, o)?),
            EventKind::ThreadName => EventView::ThreadName(ThreadName::parse(b, o)?),
            EventKind::ThreadNamesSnapshot => {
                EventView::ThreadNamesSnapshot(ThreadNamesSnapshot::parse(b, o)?)
            }
            EventKind::ThreadStateSlice => {
                EventView::ThreadStateSlice(ThreadStateSlice::parse(b, o)?)
            }
            EventKind::TracepointEvent => EventView::TracepointEvent(TracepointEvent::parse(b, o)?),
            EventKind::AddressInfo => EventView::AddressInfo(AddressInfo::parse(b, o)?),
            EventKind::ApiScopeStart => EventView::ApiScopeStart(ApiScopeStart::parse(b, o)?),
            EventKind::ApiScopeStop => EventView::ApiScopeStop(ApiScopeStop::parse(b, o)?),
            EventKind::ApiScopeStartAsync => {
                EventView::ApiScopeStartAsync(ApiScopeStartAsync::parse(b, o)?)
            }
            EventKind::ApiScopeStopAsync => {
                EventView::ApiScopeStopAsync(ApiScopeStopAsync::parse(b, o)?)
            }
            EventKind::ApiStringEvent => EventView::ApiStringEvent(ApiStringEvent::parse(b, o)?),
            EventKind::ApiTrackDouble => EventView::ApiTrackDouble(ApiTrackDouble::parse(b, o)?),
            EventKind::ApiTrackFloat => EventView::ApiTrackFloat(ApiTrackFloat::parse(b, o)?),
            EventKind::ApiTrackInt => EventView::ApiTrackInt(ApiTrackInt::parse(b, o)?),
            EventKind::ApiTrackInt64 => EventView::ApiTrackInt64(ApiTrackInt64::parse(b, o)?),
            EventKind::ApiTrackUint => EventView::ApiTrackUint(ApiTrackUint::parse(b, o)?),
            EventKind::ApiTrackUint64 => EventView::ApiTrackUint64(ApiTrackUint64::parse(b, o)?),
            EventKind::GpuJob => EventView::GpuJob(GpuJob::parse(b, o)?),
            EventKind::MemoryUsageEvent => {
                EventView::MemoryUsageEvent(MemoryUsageEvent::parse(b, o)?)
            }
            EventKind::PresentEvent => EventView::PresentEvent(PresentEvent::parse(b, o)?),
            EventKind::ClockResolutionEvent => {
                EventView::ClockResolutionEvent(ClockResolutionEvent::parse(b, o)?)
            }
            EventKind::LostPerfRecordsEvent => {
                EventView::LostPerfRecordsEvent(DiscardedInterval::parse(b, o)?)
            }
            EventKind::OutOfOrderEventsDiscardedEvent => {
                EventView::OutOfOrderEventsDiscardedEvent(DiscardedInterval::parse(b, o)?)
            }
            EventKind::WarningEvent => EventView::WarningEvent(MessageEvent::parse(b, o)?),
            EventKind::ErrorEnablingOrbitApiEvent => {
                EventView::ErrorEnablingOrbitApiEvent(MessageEvent::parse(b, o)?)
            }
            EventKind::ErrorEnablingUserSpaceInstrumentationEvent => {
                EventView::ErrorEnablingUserSpaceInstrumentationEvent(MessageEvent::parse(b, o)?)
            }
            EventKind::ErrorsWithPerfEventOpenEvent => {
                EventView::ErrorsWithPerfEventOpenEvent(ErrorsWithPerfEventOpenEvent::parse(b, o)?)
            }
            EventKind::WarningInstrumentingWithUserSpaceInstrumentationEvent => {
                EventView::WarningInstrumentingWithUserSpaceInstrumentationEvent(
                    InstrumentationWarning::parse(b, o)?,
                )
            }
            EventKind::WarningInstrumentingWithUprobesEvent => {
                EventView::WarningInstrumentingWithUprobesEvent(InstrumentationWarning::parse(
                    b, o,
                )?)
            }
            EventKind::ModulesSnapshot => EventView::ModulesSnapshot(ModulesSnapshot::parse(b, o)?),
            EventKind::ModuleUpdateEvent => {
                EventView::ModuleUpdateEvent(ModuleUpdateEvent::parse(b, o)?)
            }
            EventKind::GpuQueueSubmission => {
                EventView::GpuQueueSubmission(GpuQueueSubmission::parse(b, o)?)
            }
            other => EventView::Other(other, b),
        })
    }

    /// The Orbit API name of the event, for the kinds that carry one.
    pub fn api_name(&self) -> Option<crate::api_name::ApiName<'a>> {
        Some(match self {
            EventView::ApiScopeStart(v) => v.name(),
            EventView::ApiScopeStartAsync(v) => v.name(),
            EventView::ApiStringEvent(v) => v.name(),
            EventView::ApiTrackDouble(v) => v.name(),
            EventView::ApiTrackFloat(v) => v.name(),
            EventView::ApiTrackInt(v) => v.name(),
            EventView::ApiTrackInt64(v) => v.name(),
            EventView::ApiTrackUint(v) => v.name(),
            EventView::ApiTrackUint64(v) => v.name(),
            _ => return None,
        })
    }

    /// The thread id, for the kinds that name one.
    pub fn tid(&self) -> Option<u32> {
        Some(match self {
            EventView::CallstackSample(v) => v.tid,
            EventView::FunctionCall(v) => v.tid,
            EventView::SchedulingSlice(v) => v.tid,
            EventView::ThreadName(v) => v.tid,
            EventView::ThreadStateSlice(v) => v.tid,
            EventView::TracepointEvent(v) => v.tid,
            EventView::ApiScopeStart(v) => v.tid,
            EventView::ApiScopeStop(v) => v.tid,
            EventView::ApiScopeStartAsync(v) => v.tid,
            EventView::ApiScopeStopAsync(v) => v.tid,
            EventView::ApiStringEvent(v) => v.tid,
            EventView::ApiTrackDouble(v) => v.tid,
            EventView::ApiTrackFloat(v) => v.tid,
            EventView::ApiTrackInt(v) => v.tid,
            EventView::ApiTrackInt64(v) => v.tid,
            EventView::ApiTrackUint(v) => v.tid,
            EventView::ApiTrackUint64(v) => v.tid,
            EventView::GpuJob(v) => v.tid,
            EventView::PresentEvent(v) => v.tid,
            _ => return None,
        })
    }

    /// `(start, end)` in CLOCK_MONOTONIC ns for the kinds that have a CPU-clock time (an
    /// instant has start == end). GPU-clock times are not included.
    pub fn time_span(&self) -> Option<(u64, u64)> {
        let interval = |end: u64, dur: u64| (end.saturating_sub(dur), end);
        let at = |t: u64| (t, t);
        Some(match self {
            EventView::CaptureStarted(v) => at(v.capture_start_timestamp_ns),
            EventView::CallstackSample(v) => at(v.timestamp_ns),
            EventView::FunctionCall(v) => interval(v.end_timestamp_ns, v.duration_ns),
            EventView::SchedulingSlice(v) => interval(v.out_timestamp_ns, v.duration_ns),
            EventView::ThreadStateSlice(v) => interval(v.end_timestamp_ns, v.duration_ns),
            EventView::TracepointEvent(v) => at(v.timestamp_ns),
            EventView::ApiScopeStart(v) => at(v.timestamp_ns),
            EventView::ApiScopeStop(v) => at(v.timestamp_ns),
            EventView::ApiScopeStartAsync(v) => at(v.timestamp_ns),
            EventView::ApiScopeStopAsync(v) => at(v.timestamp_ns),
            EventView::ApiStringEvent(v) => at(v.timestamp_ns),
            EventView::ApiTrackDouble(v) => at(v.timestamp_ns),
            EventView::ApiTrackFloat(v) => at(v.timestamp_ns),
            EventView::ApiTrackInt(v) => at(v.timestamp_ns),
            EventView::ApiTrackInt64(v) => at(v.timestamp_ns),
            EventView::ApiTrackUint(v) => at(v.timestamp_ns),
            EventView::ApiTrackUint64(v) => at(v.timestamp_ns),
            EventView::GpuJob(v) => (v.amdgpu_cs_ioctl_time_ns, v.dma_fence_signaled_time_ns),
            EventView::MemoryUsageEvent(v) => at(v.timestamp_ns),
            EventView::PresentEvent(v) => (
                v.begin_timestamp_ns,
                v.begin_timestamp_ns.saturating_add(v.duration_ns),
            ),
            EventView::LostPerfRecordsEvent(v) | EventView::OutOfOrderEventsDiscardedEvent(v) => {
                interval(v.end_timestamp_ns, v.duration_ns)
            }
            _ => return None,
        })
    }
}
