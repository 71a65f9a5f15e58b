//! Borrowed, typed views of every `ClientCaptureEvent` member and of the messages nested in them
//! (except `CaptureOptions`, kept as bytes).
//!
//! Each view is a small `Copy` struct filled by one pass over the message's fields: scalars are
//! decoded (the last occurrence wins, as in protobuf), `bytes` and `string` fields borrow from
//! the input, nested messages are kept as [`Nested`] and parsed on request, repeated fields are
//! [`Repeated`] / [`RepeatedLen`] handles that re-read the message. Parsing checks what a protobuf
//! decoder checks (wire types of known fields, well-formed packed data, UTF-8 of `string`
//! fields); unknown fields are skipped. Nothing is allocated.

use crate::error::{Error, ErrorKind};
use crate::event::Event;
use crate::kind::EventKind;
use crate::repeated::{Element, Repeated, RepeatedLen};
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
        Value::Len(p) => Err(Error::new(
            ErrorKind::TruncatedField {
                needed: 8,
                available: (p.len() % 8) as u64,
            },
            f.value_offset
                .saturating_add((p.len() - p.len() % 8) as u64),
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
    ($v:ident . $field:ident, u32, $f:ident, $num:literal) => {
        $v.$field = want_varint(&$f)? as u32
    };
    ($v:ident . $field:ident, u64, $f:ident, $num:literal) => {
        $v.$field = want_varint(&$f)?
    };
    ($v:ident . $field:ident, i32, $f:ident, $num:literal) => {
        $v.$field = want_varint(&$f)? as i32
    };
    ($v:ident . $field:ident, i64, $f:ident, $num:literal) => {
        $v.$field = want_varint(&$f)? as i64
    };
    ($v:ident . $field:ident, bool, $f:ident, $num:literal) => {
        $v.$field = want_varint(&$f)? != 0
    };
    ($v:ident . $field:ident, enum, $f:ident, $num:literal) => {
        $v.$field = want_varint(&$f)? as i32
    };
    ($v:ident . $field:ident, f64, $f:ident, $num:literal) => {
        $v.$field = f64::from_bits(want_fixed64(&$f)?)
    };
    ($v:ident . $field:ident, f32, $f:ident, $num:literal) => {
        $v.$field = f32::from_bits(want_fixed32(&$f)?)
    };
    ($v:ident . $field:ident, fx64, $f:ident, $num:literal) => {
        $v.$field = want_fixed64(&$f)?
    };
    ($v:ident . $field:ident, bytes, $f:ident, $num:literal) => {
        $v.$field = want_len(&$f)?
    };
    ($v:ident . $field:ident, string, $f:ident, $num:literal) => {
        $v.$field = want_str(&$f)?
    };
    ($v:ident . $field:ident, msg, $f:ident, $num:literal) => {
        $v.$field = Nested {
            bytes: want_len(&$f)?,
            offset: $f.value_offset,
            present: true,
        }
    };
    ($v:ident . $field:ident, rep_u64, $f:ident, $num:literal) => {{
        check_rep_varint(&$f)?;
        $v.$field = Repeated::new($v.bytes, $num, Element::Varint);
    }};
    ($v:ident . $field:ident, rep_fx64, $f:ident, $num:literal) => {{
        check_rep_fixed64(&$f)?;
        $v.$field = Repeated::new($v.bytes, $num, Element::Fixed64);
    }};
    ($v:ident . $field:ident, rep_len, $f:ident, $num:literal) => {{
        want_len(&$f)?;
        $v.$field = RepeatedLen::new($v.bytes, $v.offset, $num);
    }};
}

macro_rules! message_view {
    ($(#[$m:meta])* $name:ident = $full:literal {
        $( $(#[$fm:meta])* $field:ident : $num:literal => $kind:ident ),* $(,)?
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
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// Key of an `InternedCallstack`.
        callstack_id: 3 => u64,
        /// When it was taken (CLOCK_MONOTONIC ns).
        timestamp_ns: 4 => u64,
    }
);

message_view!(
    /// A call of a dynamically instrumented function.
    FunctionCall = "orbit_grpc_protos.FunctionCall" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// Instrumented function id.
        function_id: 3 => u64,
        /// End of the call.
        end_timestamp_ns: 5 => u64,
        /// Nesting depth (may be negative).
        depth: 6 => i32,
        /// Return value, when recorded.
        return_value: 7 => u64,
        /// Argument registers, when recorded.
        registers: 8 => rep_u64,
        /// Duration; start = end - duration.
        duration_ns: 9 => u64,
    }
);

message_view!(
    /// A GPU job as seen by the amdgpu driver.
    GpuJob = "orbit_grpc_protos.GpuJob" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// Driver context.
        context: 3 => u32,
        /// Sequence number.
        seqno: 4 => u32,
        /// Depth.
        depth: 5 => i32,
        /// The ioctl that submitted it.
        amdgpu_cs_ioctl_time_ns: 6 => u64,
        /// When the scheduler ran it.
        amdgpu_sched_run_job_time_ns: 7 => u64,
        /// When the hardware started it.
        gpu_hardware_start_time_ns: 8 => u64,
        /// When its fence was signalled.
        dma_fence_signaled_time_ns: 9 => u64,
        /// Key of the interned timeline name.
        timeline_key: 10 => u64,
    }
);

message_view!(
    /// A callstack definition.
    InternedCallstack = "orbit_grpc_protos.InternedCallstack" {
        /// The key samples refer to.
        key: 1 => u64,
        /// The callstack (see [`InternedCallstack::callstack`]).
        intern: 2 => msg,
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
        pcs: 1 => rep_u64,
        /// `Callstack.CallstackType` (field `type`).
        callstack_type: 2 => enum,
    }
);

message_view!(
    /// A thread ran on a core between two context switches.
    SchedulingSlice = "orbit_grpc_protos.SchedulingSlice" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// The core.
        core: 3 => i32,
        /// When the thread was switched out.
        out_timestamp_ns: 5 => u64,
        /// How long it ran.
        duration_ns: 6 => u64,
    }
);

message_view!(
    /// A thread stayed in one state.
    ThreadStateSlice = "orbit_grpc_protos.ThreadStateSlice" {
        /// Process id (not filled by the service).
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// `ThreadStateSlice.ThreadState`.
        thread_state: 3 => enum,
        /// End of the slice.
        end_timestamp_ns: 5 => u64,
        /// Duration.
        duration_ns: 6 => u64,
        /// The thread that woke this one.
        wakeup_tid: 7 => u32,
        /// Its process.
        wakeup_pid: 8 => u32,
        /// `ThreadStateSlice.WakeupReason`.
        wakeup_reason: 9 => enum,
        /// `ThreadStateSlice.CallstackStatus`.
        switch_out_or_wakeup_callstack_status: 10 => enum,
        /// Key of an interned callstack.
        switch_out_or_wakeup_callstack_id: 11 => u64,
    }
);

message_view!(
    /// A kernel tracepoint hit.
    TracepointEvent = "orbit_grpc_protos.TracepointEvent" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// When.
        timestamp_ns: 3 => u64,
        /// The CPU.
        cpu: 4 => i32,
        /// Key of an `InternedTracepointInfo`.
        tracepoint_info_key: 5 => u64,
    }
);

message_view!(
    /// A tracepoint definition.
    InternedTracepointInfo = "orbit_grpc_protos.InternedTracepointInfo" {
        /// Key.
        key: 1 => u64,
        /// The `TracepointInfo`.
        intern: 2 => msg,
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
        category: 1 => string,
        /// Name, e.g. `sched_switch`.
        name: 2 => string,
    }
);

message_view!(
    /// The symbol of an address seen in callstacks.
    AddressInfo = "orbit_grpc_protos.AddressInfo" {
        /// The address.
        absolute_address: 1 => u64,
        /// Offset from the function's start.
        offset_in_function: 2 => u64,
        /// Interned function name.
        function_name_key: 3 => u64,
        /// Interned module name.
        module_name_key: 4 => u64,
    }
);

message_view!(
    /// A string definition.
    InternedString = "orbit_grpc_protos.InternedString" {
        /// The key events refer to.
        key: 1 => u64,
        /// The string's bytes (not necessarily UTF-8).
        intern: 2 => bytes,
    }
);

message_view!(
    /// A thread's name.
    ThreadName = "orbit_grpc_protos.ThreadName" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// The name (bytes, may be invalid UTF-8).
        name: 3 => bytes,
        /// When it was read.
        timestamp_ns: 4 => u64,
    }
);

message_view!(
    /// The names of all threads at the start.
    ThreadNamesSnapshot = "orbit_grpc_protos.ThreadNamesSnapshot" {
        /// When.
        timestamp_ns: 1 => u64,
        /// `ThreadName` messages (parse each with [`ThreadName::parse`]).
        thread_names: 2 => rep_len,
    }
);

message_view!(
    /// The first event: what was captured, and how.
    CaptureStarted = "orbit_grpc_protos.CaptureStarted" {
        /// Target process id.
        process_id: 1 => u32,
        /// Its executable.
        executable_path: 2 => string,
        /// Its build id.
        executable_build_id: 3 => string,
        /// Capture start (CLOCK_MONOTONIC ns).
        capture_start_timestamp_ns: 4 => u64,
        /// `CaptureOptions`.
        capture_options: 5 => msg,
        /// Orbit's major version.
        orbit_version_major: 6 => u32,
        /// Orbit's minor version.
        orbit_version_minor: 7 => u32,
        /// Capture start, wall clock (ns since the Unix epoch).
        capture_start_unix_time_ns: 8 => u64,
    }
);

message_view!(
    /// The last event.
    CaptureFinished = "orbit_grpc_protos.CaptureFinished" {
        /// `CaptureFinished.Status`.
        status: 1 => enum,
        /// Error text on failure.
        error_message: 2 => string,
        /// `CaptureFinished.ProcessState`.
        target_process_state_after_capture: 3 => enum,
        /// `CaptureFinished.TerminationSignal`.
        target_process_termination_signal: 4 => enum,
    }
);

message_view!(
    /// Memory counters sampled at one time.
    MemoryUsageEvent = "orbit_grpc_protos.MemoryUsageEvent" {
        /// When.
        timestamp_ns: 1 => u64,
        /// `SystemMemoryUsage`.
        system_memory_usage: 2 => msg,
        /// `ProcessMemoryUsage`.
        process_memory_usage: 3 => msg,
        /// `CGroupMemoryUsage`.
        cgroup_memory_usage: 4 => msg,
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
        timestamp_ns: 1 => u64,
        /// Total.
        total_kb: 2 => i64,
        /// Free.
        free_kb: 3 => i64,
        /// Available.
        available_kb: 4 => i64,
        /// Buffers.
        buffers_kb: 5 => i64,
        /// Cached.
        cached_kb: 6 => i64,
        /// Page faults.
        pgfault: 7 => i64,
        /// Major page faults.
        pgmajfault: 8 => i64,
    }
);

message_view!(
    /// The target process's memory counters.
    ProcessMemoryUsage = "orbit_grpc_protos.ProcessMemoryUsage" {
        /// Process id.
        pid: 1 => u32,
        /// When.
        timestamp_ns: 2 => u64,
        /// Minor faults.
        minflt: 4 => i64,
        /// Major faults.
        majflt: 5 => i64,
        /// Anonymous RSS.
        rss_anon_kb: 6 => i64,
    }
);

message_view!(
    /// The target's cgroup memory counters.
    CGroupMemoryUsage = "orbit_grpc_protos.CGroupMemoryUsage" {
        /// Cgroup name.
        cgroup_name: 1 => string,
        /// When.
        timestamp_ns: 2 => u64,
        /// Limit.
        limit_bytes: 3 => i64,
        /// RSS.
        rss_bytes: 4 => i64,
        /// Mapped files.
        mapped_file_bytes: 5 => i64,
        /// Page faults.
        pgfault: 6 => i64,
        /// Major page faults.
        pgmajfault: 7 => i64,
        /// Unevictable.
        unevictable_bytes: 8 => i64,
        /// Inactive anonymous.
        inactive_anon_bytes: 9 => i64,
        /// Active anonymous.
        active_anon_bytes: 10 => i64,
        /// Inactive file.
        inactive_file_bytes: 11 => i64,
        /// Active file.
        active_file_bytes: 12 => i64,
    }
);

message_view!(
    /// The clock's resolution.
    ClockResolutionEvent = "orbit_grpc_protos.ClockResolutionEvent" {
        /// When.
        timestamp_ns: 1 => u64,
        /// Resolution.
        clock_resolution_ns: 2 => u64,
    }
);

message_view!(
    /// A frame presented (Windows).
    PresentEvent = "orbit_grpc_protos.PresentEvent" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// Start.
        begin_timestamp_ns: 3 => u64,
        /// Duration; end = begin + duration.
        duration_ns: 4 => u64,
        /// `PresentEvent.Source`.
        source: 5 => enum,
    }
);

message_view!(
    /// An interval of lost or discarded records (`LostPerfRecordsEvent`,
    /// `OutOfOrderEventsDiscardedEvent`: the same two fields).
    DiscardedInterval = "orbit_grpc_protos.LostPerfRecordsEvent" {
        /// Duration.
        duration_ns: 1 => u64,
        /// End.
        end_timestamp_ns: 2 => u64,
    }
);

message_view!(
    /// A timestamped message (`WarningEvent`, `ErrorEnablingOrbitApiEvent`,
    /// `ErrorEnablingUserSpaceInstrumentationEvent`: the same two fields).
    MessageEvent = "orbit_grpc_protos.WarningEvent" {
        /// When.
        timestamp_ns: 1 => u64,
        /// The text (bytes).
        message: 2 => bytes,
    }
);

message_view!(
    /// Perf events that could not be opened.
    ErrorsWithPerfEventOpenEvent = "orbit_grpc_protos.ErrorsWithPerfEventOpenEvent" {
        /// When.
        timestamp_ns: 1 => u64,
        /// What failed to open, one text (bytes) each.
        failed_to_open: 2 => rep_len,
    }
);

message_view!(
    /// Functions that could not be instrumented
    /// (`WarningInstrumentingWithUserSpaceInstrumentationEvent`,
    /// `WarningInstrumentingWithUprobesEvent`: the same two fields).
    InstrumentationWarning = "orbit_grpc_protos.WarningInstrumentingWithUprobesEvent" {
        /// When.
        timestamp_ns: 1 => u64,
        /// `FunctionThatFailedToBeInstrumented` messages (parse each with
        /// [`FunctionThatFailedToBeInstrumented::parse`]).
        functions_that_failed_to_instrument: 2 => rep_len,
    }
);

message_view!(
    /// One function that could not be instrumented.
    FunctionThatFailedToBeInstrumented = "orbit_grpc_protos.FunctionThatFailedToBeInstrumented" {
        /// The function's id (as in `CaptureOptions`).
        function_id: 1 => u64,
        /// Why (bytes).
        error_message: 2 => bytes,
    }
);

message_view!(
    /// The modules loaded in the target process at the start.
    ModulesSnapshot = "orbit_grpc_protos.ModulesSnapshot" {
        /// Process id.
        pid: 1 => u32,
        /// When.
        timestamp_ns: 2 => u64,
        /// `ModuleInfo` messages (parse each with [`ModuleInfo::parse`]).
        modules: 3 => rep_len,
    }
);

message_view!(
    /// A module loaded (or reloaded) into the target process.
    ModuleUpdateEvent = "orbit_grpc_protos.ModuleUpdateEvent" {
        /// Process id.
        pid: 1 => u32,
        /// When.
        timestamp_ns: 2 => u64,
        /// The `ModuleInfo` (see [`ModuleUpdateEvent::module_info`]).
        module: 3 => msg,
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
        name: 1 => string,
        /// Full path.
        file_path: 2 => string,
        /// File size.
        file_size: 3 => u64,
        /// Start of the executable mapping.
        address_start: 4 => u64,
        /// End of the executable mapping.
        address_end: 5 => u64,
        /// Build id.
        build_id: 6 => string,
        /// Load bias.
        load_bias: 7 => u64,
        /// Offset of the executable segment in the file.
        executable_segment_offset: 8 => u64,
        /// `DT_SONAME` (ELF).
        soname: 9 => string,
        /// `ModuleInfo.ObjectFileType`.
        object_file_type: 10 => enum,
        /// `ModuleInfo.ObjectSegment` messages (parse each with [`ObjectSegment::parse`]).
        object_segments: 11 => rep_len,
    }
);

message_view!(
    /// One segment of a module's object file.
    ObjectSegment = "orbit_grpc_protos.ModuleInfo.ObjectSegment" {
        /// Offset in the file.
        offset_in_file: 1 => u64,
        /// Size in the file.
        size_in_file: 2 => u64,
        /// Address (unrelocated).
        address: 3 => u64,
        /// Size in memory.
        size_in_memory: 4 => u64,
    }
);

message_view!(
    /// A Vulkan queue submission and the debug markers it completed.
    GpuQueueSubmission = "orbit_grpc_protos.GpuQueueSubmission" {
        /// `GpuQueueSubmissionMetaInfo` (see [`GpuQueueSubmission::meta`]).
        meta_info: 1 => msg,
        /// `GpuSubmitInfo` messages (parse each with [`GpuSubmitInfo::parse`]).
        submit_infos: 2 => rep_len,
        /// `GpuDebugMarker` messages (parse each with [`GpuDebugMarker::parse`]).
        completed_markers: 3 => rep_len,
        /// Debug markers begun in this submission.
        num_begin_markers: 4 => i32,
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
        tid: 1 => u32,
        /// Before the submission.
        pre_submission_cpu_timestamp: 2 => u64,
        /// After the submission.
        post_submission_cpu_timestamp: 3 => u64,
        /// Process id.
        pid: 4 => u32,
    }
);

message_view!(
    /// One submit of a queue submission.
    GpuSubmitInfo = "orbit_grpc_protos.GpuSubmitInfo" {
        /// `GpuCommandBuffer` messages (parse each with [`GpuCommandBuffer::parse`]).
        command_buffers: 1 => rep_len,
    }
);

message_view!(
    /// When a command buffer ran (GPU clock).
    GpuCommandBuffer = "orbit_grpc_protos.GpuCommandBuffer" {
        /// Start.
        begin_gpu_timestamp_ns: 1 => u64,
        /// End.
        end_gpu_timestamp_ns: 2 => u64,
    }
);

message_view!(
    /// A completed debug marker (a region of command buffers).
    GpuDebugMarker = "orbit_grpc_protos.GpuDebugMarker" {
        /// `GpuDebugMarkerBeginInfo` (see [`GpuDebugMarker::begin`]).
        begin_marker: 1 => msg,
        /// End (GPU clock).
        end_gpu_timestamp_ns: 2 => u64,
        /// Interned text.
        text_key: 3 => u64,
        /// Nesting depth.
        depth: 4 => i32,
        /// `Color` (see [`GpuDebugMarker::rgba`]).
        color: 5 => msg,
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
        meta_info: 1 => msg,
        /// Start (GPU clock).
        gpu_timestamp_ns: 2 => u64,
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
        red: 1 => f32,
        /// Green.
        green: 2 => f32,
        /// Blue.
        blue: 3 => f32,
        /// Alpha.
        alpha: 4 => f32,
    }
);

message_view!(
    /// The end of the innermost open Orbit API scope of a thread.
    ApiScopeStop = "orbit_grpc_protos.ApiScopeStop" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// When.
        timestamp_ns: 3 => u64,
    }
);

message_view!(
    /// The end of an asynchronous Orbit API scope.
    ApiScopeStopAsync = "orbit_grpc_protos.ApiScopeStopAsync" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// When.
        timestamp_ns: 3 => u64,
        /// Matches `ApiScopeStartAsync.id`.
        id: 4 => u64,
    }
);

message_view!(
    /// The start of an Orbit API scope.
    ApiScopeStart = "orbit_grpc_protos.ApiScopeStart" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// When.
        timestamp_ns: 3 => u64,
        /// Name chunk 1.
        encoded_name_1: 4 => fx64,
        /// Name chunk 2.
        encoded_name_2: 5 => fx64,
        /// Name chunk 3.
        encoded_name_3: 6 => fx64,
        /// Name chunk 4.
        encoded_name_4: 7 => fx64,
        /// Name chunk 5.
        encoded_name_5: 8 => fx64,
        /// Name chunk 6.
        encoded_name_6: 9 => fx64,
        /// Name chunk 7.
        encoded_name_7: 10 => fx64,
        /// Name chunk 8.
        encoded_name_8: 11 => fx64,
        /// Further name chunks.
        encoded_name_additional: 12 => rep_fx64,
        /// Colour.
        color_rgba: 13 => u32,
        /// Group id.
        group_id: 14 => u64,
        /// Return address of the API call.
        address_in_function: 15 => u64,
    }
);

message_view!(
    /// The start of an asynchronous Orbit API scope.
    ApiScopeStartAsync = "orbit_grpc_protos.ApiScopeStartAsync" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// When.
        timestamp_ns: 3 => u64,
        /// Name chunk 1.
        encoded_name_1: 4 => fx64,
        /// Name chunk 2.
        encoded_name_2: 5 => fx64,
        /// Name chunk 3.
        encoded_name_3: 6 => fx64,
        /// Name chunk 4.
        encoded_name_4: 7 => fx64,
        /// Name chunk 5.
        encoded_name_5: 8 => fx64,
        /// Name chunk 6.
        encoded_name_6: 9 => fx64,
        /// Name chunk 7.
        encoded_name_7: 10 => fx64,
        /// Name chunk 8.
        encoded_name_8: 11 => fx64,
        /// Further name chunks.
        encoded_name_additional: 12 => rep_fx64,
        /// Colour.
        color_rgba: 13 => u32,
        /// Matches `ApiScopeStopAsync.id`.
        id: 14 => u64,
        /// Return address of the API call.
        address_in_function: 15 => u64,
    }
);

message_view!(
    /// A string attached to an async scope or shown on its own.
    ApiStringEvent = "orbit_grpc_protos.ApiStringEvent" {
        /// Process id.
        pid: 1 => u32,
        /// Thread id.
        tid: 2 => u32,
        /// When.
        timestamp_ns: 3 => u64,
        /// Name chunk 1.
        encoded_name_1: 4 => fx64,
        /// Name chunk 2.
        encoded_name_2: 5 => fx64,
        /// Name chunk 3.
        encoded_name_3: 6 => fx64,
        /// Name chunk 4.
        encoded_name_4: 7 => fx64,
        /// Name chunk 5.
        encoded_name_5: 8 => fx64,
        /// Name chunk 6.
        encoded_name_6: 9 => fx64,
        /// Name chunk 7.
        encoded_name_7: 10 => fx64,
        /// Name chunk 8.
        encoded_name_8: 11 => fx64,
        /// Further name chunks.
        encoded_name_additional: 12 => rep_fx64,
        /// Async scope id.
        id: 13 => u64,
        /// Colour.
        color_rgba: 14 => u32,
    }
);

macro_rules! api_track {
    ($(#[$m:meta])* $name:ident = $full:literal, $data:ident) => {
        message_view!(
            $(#[$m])*
            $name = $full {
                /// Process id.
                pid: 1 => u32,
                /// Thread id.
                tid: 2 => u32,
                /// When.
                timestamp_ns: 3 => u64,
                /// The value.
                data: 4 => $data,
                /// Name chunk 1.
                encoded_name_1: 5 => fx64,
                /// Name chunk 2.
                encoded_name_2: 6 => fx64,
                /// Name chunk 3.
                encoded_name_3: 7 => fx64,
                /// Name chunk 4.
                encoded_name_4: 8 => fx64,
                /// Name chunk 5.
                encoded_name_5: 9 => fx64,
                /// Name chunk 6.
                encoded_name_6: 10 => fx64,
                /// Name chunk 7.
                encoded_name_7: 11 => fx64,
                /// Name chunk 8.
                encoded_name_8: 12 => fx64,
                /// Further name chunks.
                encoded_name_additional: 13 => rep_fx64,
                /// Colour.
                color_rgba: 14 => u32,
            }
        );
    };
}

api_track!(
    /// A value of a `double` track.
    ApiTrackDouble = "orbit_grpc_protos.ApiTrackDouble", f64);
api_track!(
    /// A value of a `float` track.
    ApiTrackFloat = "orbit_grpc_protos.ApiTrackFloat", f32);
api_track!(
    /// A value of an `int` track.
    ApiTrackInt = "orbit_grpc_protos.ApiTrackInt", i32);
api_track!(
    /// A value of an `int64` track.
    ApiTrackInt64 = "orbit_grpc_protos.ApiTrackInt64", i64);
api_track!(
    /// A value of a `uint` track.
    ApiTrackUint = "orbit_grpc_protos.ApiTrackUint", u32);
api_track!(
    /// A value of a `uint64` track.
    ApiTrackUint64 = "orbit_grpc_protos.ApiTrackUint64", u64);

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
        frame_tracks_info: 1 => msg,
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
        frame_track_function_ids: 2 => rep_u64,
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
