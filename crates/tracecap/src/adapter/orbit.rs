//! Orbit `.orbit` -> timeline.
//!
//! | Orbit | timeline |
//! |---|---|
//! | the target process (`CaptureStarted`) | process track, named by the executable |
//! | thread (names from `ThreadName` / `ThreadNamesSnapshot`) | thread track |
//! | function call | slice on its thread, named by the instrumented function |
//! | Orbit API scope (sync) | slice on the thread's `API scopes` track |
//! | Orbit API async scope | slice on one of the process's `async scopes` lanes |
//! | Orbit API string event | instant on its thread |
//! | Orbit API track value, memory usage | counter samples |
//! | scheduling slice | slice on a `CPU <n>` track |
//! | thread state slice | slice on the thread's `state` track |
//! | GPU job | a `gpu job` slice with its three stages on a GPU timeline track |
//! | GPU queue submission | instant on the submitting thread |
//! | callstack sample | instant on its thread with the resolved frames as args; for a sink that reads stacks, also a stack sample of the interned callstack |
//! | present event, tracepoint | instants |
//!
//! The file is read twice from the mapped bytes: pass 1 applies the checks of
//! `tracecap_orbit::validate` (so the first fault is the one `validate` reports) and collects the
//! definitions (interned strings and callstacks, address infos, thread names, instrumented
//! functions) up to the first fault, pass 2 emits the events before it. Pass 2 reads the typed
//! view only of the kinds that emit something (`emits`); pass 1 reads the others' views, so
//! that a view that does not parse still ends the conversion at that event. Pass 2 names each
//! thread track, when it declares it, by the thread's last name in the whole capture, which is
//! why a capture that is still arriving is converted once it is whole ([`CONVERTS_ARRIVING`]).
//! Function calls are stored when they end, children before their parent: a thread's calls are
//! held until its outermost call (depth 0) ends, then emitted in start order as begin/end pairs,
//! each clamped into its parent. Every time written on a track is clamped to not go back.

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use tracecap_orbit::views::{AddressInfo, EventView, FunctionCall as CallView};
use tracecap_orbit::{validate, Capture, Event as OrbitEvent, EventKind, InternLookup as _};
use tracecap_orbit::{ApiName, FunctionLookup as _, FunctionTable, InternTable};

use super::out::{Out, Written as R};
use super::text::{push_lossy, text, NO_ARG};
use crate::error::ConvertError;
use crate::timeline::{
    Arg, CounterValue, Event, Frame, NameId, Sink, StackId, StackKind, StackSample, TrackId,
    TrackKind, Value,
};

const CATEGORY: &str = "orbit";
/// At most this many frames of a sample become args.
const MAX_FRAMES: usize = 64;
/// A thread's pending calls are flushed once this many are held (bounds memory on captures
/// whose outermost call never ends).
const MAX_PENDING_CALLS: usize = 1 << 20;
/// The `CPU <n>` tracks of cores below this are kept in a `Vec` indexed by core, the others
/// in a map.
const INDEXED_CORES: usize = 1024;

const THREAD_STATES: [&str; 10] = [
    "Running",
    "Runnable",
    "Interruptible sleep",
    "Uninterruptible sleep",
    "Stopped",
    "Traced",
    "Dead",
    "Zombie",
    "Parked",
    "Idle",
];

const FRAME_NAMES: [&str; MAX_FRAMES] = [
    "frame 00", "frame 01", "frame 02", "frame 03", "frame 04", "frame 05", "frame 06", "frame 07",
    "frame 08", "frame 09", "frame 10", "frame 11", "frame 12", "frame 13", "frame 14", "frame 15",
    "frame 16", "frame 17", "frame 18", "frame 19", "frame 20", "frame 21", "frame 22", "frame 23",
    "frame 24", "frame 25", "frame 26", "frame 27", "frame 28", "frame 29", "frame 30", "frame 31",
    "frame 32", "frame 33", "frame 34", "frame 35", "frame 36", "frame 37", "frame 38", "frame 39",
    "frame 40", "frame 41", "frame 42", "frame 43", "frame 44", "frame 45", "frame 46", "frame 47",
    "frame 48", "frame 49", "frame 50", "frame 51", "frame 52", "frame 53", "frame 54", "frame 55",
    "frame 56", "frame 57", "frame 58", "frame 59", "frame 60", "frame 61", "frame 62", "frame 63",
];

/// Whether events of `kind` put anything on the timeline (pass 2 reads the view of these only).
fn emits(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::CaptureStarted
            | EventKind::FunctionCall
            | EventKind::ApiScopeStart
            | EventKind::ApiScopeStop
            | EventKind::ApiScopeStartAsync
            | EventKind::ApiScopeStopAsync
            | EventKind::ApiStringEvent
            | EventKind::ApiTrackDouble
            | EventKind::ApiTrackFloat
            | EventKind::ApiTrackInt
            | EventKind::ApiTrackInt64
            | EventKind::ApiTrackUint
            | EventKind::ApiTrackUint64
            | EventKind::SchedulingSlice
            | EventKind::ThreadStateSlice
            | EventKind::CallstackSample
            | EventKind::GpuJob
            | EventKind::GpuQueueSubmission
            | EventKind::MemoryUsageEvent
            | EventKind::TracepointEvent
            | EventKind::PresentEvent
            | EventKind::WarningEvent
            | EventKind::ErrorEnablingOrbitApiEvent
            | EventKind::ErrorEnablingUserSpaceInstrumentationEvent
            | EventKind::LostPerfRecordsEvent
            | EventKind::OutOfOrderEventsDiscardedEvent
    )
}

/// What pass 1 collects: everything events refer to by key (bounded by definitions).
#[derive(Default)]
struct Defs<'a> {
    intern: InternTable<'a>,
    /// Whether to collect `symbols`: only a sink that reads arguments or stacks shows a
    /// sample's frames.
    want_symbols: bool,
    symbols: Symbols,
    /// Each thread's last name, as read in pass 1; [`Defs::seal`] decodes them into `names`.
    thread_names: BTreeMap<u32, &'a [u8]>,
    /// Thread names by tid, sorted, decoded once (invalid UTF-8 replaced).
    names: Vec<(u32, Cow<'a, str>)>,
    functions: FunctionTable<'a>,
}

impl<'a> Defs<'a> {
    /// Collects the definitions `ev` holds. Fails with the view's error when `ev` is of a kind
    /// pass 2 skips ([`emits`] false) and its view does not parse.
    fn add(&mut self, ev: &OrbitEvent<'a>) -> Result<(), tracecap_orbit::Error> {
        match ev.kind {
            EventKind::InternedString
            | EventKind::InternedCallstack
            | EventKind::InternedTracepointInfo => {
                // What fails may be the view, or only what it holds: only the view's error
                // counts.
                self.intern.add(ev).or_else(|_| ev.view().map(|_| false))?;
            }
            EventKind::AddressInfo
            | EventKind::ThreadName
            | EventKind::ThreadNamesSnapshot
            | EventKind::CaptureStarted => match ev.view() {
                Err(e) if !emits(ev.kind) => return Err(e),
                Err(_) => {}
                Ok(EventView::AddressInfo(a)) => {
                    if self.want_symbols {
                        self.symbols.push(ev, &a);
                    }
                }
                Ok(EventView::ThreadName(t)) => {
                    self.thread_names.insert(t.tid, t.name);
                }
                Ok(EventView::ThreadNamesSnapshot(s)) => {
                    for (bytes, offset) in s.thread_names {
                        if let Ok(t) = tracecap_orbit::views::ThreadName::parse(bytes, offset) {
                            self.thread_names.insert(t.tid, t.name);
                        }
                    }
                }
                Ok(EventView::CaptureStarted(c)) => {
                    // A function that does not parse ends the list; the ones before it count.
                    if let Ok(options) = c.options() {
                        let _ = self.functions.add_options(&options);
                    }
                }
                Ok(_) => {}
            },
            kind if !emits(kind) => {
                ev.view()?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Ends pass 1: sorts the symbols and decodes the thread names.
    fn seal(&mut self) {
        self.symbols.seal();
        let names = core::mem::take(&mut self.thread_names);
        self.names = names
            .into_iter()
            .map(|(tid, name)| (tid, String::from_utf8_lossy(name)))
            .collect();
    }

    /// The name of thread `tid`, if it has one.
    fn thread_name(&self, tid: u32) -> Option<&str> {
        let at = self.names.binary_search_by_key(&tid, |n| n.0).ok()?;
        self.names.get(at).map(|n| &*n.1)
    }

    fn string(&self, key: u64) -> Cow<'a, str> {
        String::from_utf8_lossy(self.intern.string(key).unwrap_or(b""))
    }
}

/// Where the `AddressInfo` of each sampled address is: its address and the offset of its event,
/// 16 bytes each, in file order until [`Symbols::seal`] sorts them. A capture can hold millions
/// of addresses; a frame's symbol is read again from the mapped event when a sample names it.
#[derive(Default)]
struct Symbols(Vec<(u64, u64)>);

impl Symbols {
    fn push(&mut self, ev: &OrbitEvent<'_>, a: &AddressInfo<'_>) {
        self.0.push((a.absolute_address, ev.offset));
    }

    /// Sorts by address, then offset; of several infos for one address the first in the file
    /// stands, as in Orbit's own reader (`dedup_by_key` keeps the first of each run).
    fn seal(&mut self) {
        self.0.sort_unstable();
        self.0.dedup_by_key(|&mut (address, _)| address);
        self.0.shrink_to_fit();
    }

    /// The `AddressInfo` of `address` (after [`Symbols::seal`]).
    fn get<'a>(&self, capture: &Capture<'a>, address: u64) -> Option<AddressInfo<'a>> {
        let at = self.0.binary_search_by_key(&address, |&(a, _)| a).ok()?;
        let &(_, offset) = self.0.get(at)?;
        match capture.event_at(offset).ok()?.view().ok()? {
            EventView::AddressInfo(a) => Some(a),
            _ => None,
        }
    }
}

/// The sink with each track's latest time: every time written is clamped to not go back.
struct Clamped<'s, S: Sink> {
    out: Out<'s, S>,
    /// The latest time of each track, indexed by track id (ids are handed out in order from 1).
    last: Vec<u64>,
}

impl<S: Sink> Clamped<'_, S> {
    fn track(
        &mut self,
        parent: Option<TrackId>,
        kind: TrackKind,
        name: &str,
    ) -> Result<TrackId, ConvertError<S::Error>> {
        self.out.track(parent, kind, name)
    }

    fn clamp(&mut self, track: TrackId, ts: u64) -> u64 {
        let Ok(at) = usize::try_from(track.0) else {
            return ts;
        };
        if at >= self.last.len() {
            self.last.resize(at + 1, 0);
        }
        match self.last.get_mut(at) {
            Some(last) => {
                let t = ts.max(*last);
                *last = t;
                t
            }
            None => ts,
        }
    }

    fn begin(&mut self, track: TrackId, ts: u64, name: &str, args: &[Arg<'_>]) -> R<S> {
        let ts = self.clamp(track, ts);
        self.out.begin(&event(track, ts, name, args))
    }

    /// [`Self::begin`] of a slice named by its number among the capture's fixed names.
    fn begin_named(
        &mut self,
        track: TrackId,
        ts: u64,
        (name, id): (&str, NameId),
        args: &[Arg<'_>],
    ) -> R<S> {
        let ts = self.clamp(track, ts);
        self.out.begin(&event(track, ts, name, args).named(id))
    }

    fn end(&mut self, track: TrackId, ts: u64) -> R<S> {
        let ts = self.clamp(track, ts);
        self.out.end(track, ts)
    }

    fn complete(
        &mut self,
        track: TrackId,
        start: u64,
        end: u64,
        name: &str,
        args: &[Arg<'_>],
    ) -> R<S> {
        let ts = self.clamp(track, start);
        let end = self.clamp(track, end);
        self.out.complete(&event(track, ts, name, args), end - ts)
    }

    fn instant(&mut self, track: TrackId, ts: u64, name: &str, args: &[Arg<'_>]) -> R<S> {
        self.out.instant(&event(track, ts, name, args))
    }

    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> R<S> {
        let ts = self.clamp(track, ts);
        self.out.counter(track, ts, value)
    }
}

/// An event of the Orbit category.
fn event<'e>(track: TrackId, ts: u64, name: &'e str, args: &'e [Arg<'e>]) -> Event<'e> {
    Event::new(track, ts, name, CATEGORY, args)
}

#[derive(Clone, Copy)]
struct Call {
    start: u64,
    end: u64,
    depth: i32,
    function_id: u64,
}

struct Thread {
    track: TrackId,
    /// Calls ended but not yet emitted (waiting for their outermost call).
    calls: Vec<Call>,
    /// The `API scopes` track and how many scopes are open on it.
    api: Option<TrackId>,
    api_open: u32,
    state: Option<TrackId>,
}

struct Process {
    track: TrackId,
    pid: u32,
    /// Async lanes: the scope id open on each (None: free).
    lanes: Vec<(TrackId, Option<u64>)>,
    async_open: BTreeMap<u64, usize>,
    counters: BTreeMap<Vec<u8>, TrackId>,
}

struct State<'a, 's, S: Sink> {
    out: Clamped<'s, S>,
    capture: Capture<'a>,
    defs: Defs<'a>,
    main_pid: Option<u32>,
    processes: BTreeMap<u32, Process>,
    threads: BTreeMap<u32, Thread>,
    /// The `CPU <n>` track of each core below [`INDEXED_CORES`], by core.
    cpus: Vec<Option<TrackId>>,
    /// The `CPU <n>` tracks of the other cores.
    other_cpus: BTreeMap<i32, TrackId>,
    gpu: BTreeMap<(u64, i32), TrackId>,
    global: BTreeMap<&'static str, TrackId>,
    stack: Vec<u64>,
    /// The interned callstacks already declared to the sink as stacks (by key).
    declared: BTreeSet<u64>,
    name: Vec<u8>,
    label: String,
    /// An event's name when it is not borrowed from the file (reused: no allocation per event).
    text: String,
    texts: Vec<String>,
}

/// Whether [`convert_arriving`] converts as the bytes arrive: no. A thread's track is declared,
/// with the thread's last name in the capture, at its first event, and Orbit can send that name
/// any number of events later (docs/orbit.md, "A capture read from a pipe or followed"), so an
/// arriving capture is converted from its whole bytes.
pub const CONVERTS_ARRIVING: bool = false;

/// Converts a capture whose bytes arrive from `source` into `sink` as they come: `None`, an
/// Orbit capture is converted from its whole bytes ([`CONVERTS_ARRIVING`] says why).
#[cfg(feature = "std")]
pub fn convert_arriving<S: Sink>(
    source: &mut crate::open::Arriving,
    buffer: &mut Vec<u8>,
    sink: &mut S,
) -> Option<crate::push::Arrived<S::Error>> {
    let _ = (source, buffer, sink);
    None
}

/// Converts an Orbit capture, driving `sink`.
pub fn convert<S: Sink>(data: &[u8], sink: &mut S) -> Result<(), ConvertError<S::Error>> {
    let capture = Capture::parse(data)?;
    // Pass 1 applies the checks `validate` applies, in its order (the same first fault), and
    // stops at the first fault: pass 2 converts the events before it.
    let out = Out::new(sink, 1);
    let mut defs = Defs {
        want_symbols: out.wants_args() || out.wants_stacks(),
        ..Defs::default()
    };
    let mut fault = None;
    let mut good = 0usize;
    // The first checked event of a kind pass 2 skips whose view does not parse: its index and
    // the view's error. Pass 2 ends there with that error, as at an event whose view it reads.
    let mut skipped_fault = None;
    let mut events = capture.events();
    for ev in events.by_ref() {
        match ev.and_then(|ev| validate::check_event(&ev).map(|()| ev)) {
            Ok(ev) => {
                if let Err(e) = defs.add(&ev) {
                    skipped_fault = skipped_fault.or(Some((good, e)));
                }
                good += 1;
            }
            Err(e) => {
                fault = Some(e);
                break;
            }
        }
    }
    if fault.is_none() {
        fault = validate::check_end(&capture, &events).err();
    }
    defs.seal();
    let mut st = State {
        out: Clamped {
            out,
            last: Vec::new(),
        },
        capture,
        defs,
        main_pid: None,
        processes: BTreeMap::new(),
        threads: BTreeMap::new(),
        cpus: Vec::new(),
        other_cpus: BTreeMap::new(),
        gpu: BTreeMap::new(),
        global: BTreeMap::new(),
        stack: Vec::new(),
        declared: BTreeSet::new(),
        name: Vec::new(),
        label: String::new(),
        text: String::new(),
        texts: Vec::new(),
    };
    let total = data.len() as u64;
    let (end, end_fault) = match skipped_fault {
        Some((at, e)) => (at, Some(e)),
        None => (good, None),
    };
    let mut reached = 0usize;
    for (n, ev) in capture.events().take(end).enumerate() {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                fault = Some(e);
                break;
            }
        };
        let view = if emits(ev.kind) {
            match ev.view() {
                Ok(view) => Some(view),
                Err(e) => {
                    fault = Some(e);
                    break;
                }
            }
        } else {
            None
        };
        if n % 65536 == 0 {
            st.out.out.progress(ev.offset, total);
        }
        if let Some(view) = view {
            st.event(&view)?;
        }
        reached = n + 1;
    }
    if reached == end && end_fault.is_some() {
        fault = end_fault;
    }
    st.finish()?;
    st.out.out.progress(total, total);
    match fault {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// Up to `N` arguments of one event, on the stack (an event allocates nothing).
struct Args<'s, const N: usize> {
    buf: [Arg<'s>; N],
    len: usize,
}

impl<'s, const N: usize> Args<'s, N> {
    fn new() -> Self {
        Args {
            buf: [NO_ARG; N],
            len: 0,
        }
    }

    /// Adds an argument; beyond `N` it is left out.
    fn push(&mut self, name: &'s str, value: Value<'s>) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = Arg { name, value };
            self.len += 1;
        }
    }

    /// Adds `v` unless it is 0.
    fn opt_uint(&mut self, name: &'s str, v: u64) {
        if v != 0 {
            self.push(name, Value::Uint(v));
        }
    }

    fn as_slice(&self) -> &[Arg<'s>] {
        self.buf.get(..self.len).unwrap_or(&[])
    }
}

impl<'a, S: Sink> State<'a, '_, S> {
    fn process(&mut self, pid: u32) -> Result<&mut Process, ConvertError<S::Error>> {
        if !self.processes.contains_key(&pid) {
            self.label.clear();
            let _ = write!(self.label, "process {pid}");
            let track = self.out.track(
                None,
                TrackKind::Process {
                    pid: u64::from(pid),
                },
                &self.label,
            )?;
            self.processes.insert(
                pid,
                Process {
                    track,
                    pid,
                    lanes: Vec::new(),
                    async_open: BTreeMap::new(),
                    counters: BTreeMap::new(),
                },
            );
        }
        self.processes
            .get_mut(&pid)
            .ok_or(ConvertError::Unsupported(crate::Format::Orbit))
    }

    fn pid_or_main(&self, pid: u32) -> u32 {
        if pid != 0 {
            pid
        } else {
            self.main_pid.unwrap_or(0)
        }
    }

    fn thread(&mut self, pid: u32, tid: u32) -> Result<&mut Thread, ConvertError<S::Error>> {
        if !self.threads.contains_key(&tid) {
            let pid = self.pid_or_main(pid);
            let process = self.process(pid)?.track;
            let name = match self.defs.thread_name(tid) {
                Some(n) => String::from(n),
                None => alloc::format!("thread {tid}"),
            };
            let track = self.out.track(
                Some(process),
                TrackKind::Thread {
                    pid: u64::from(pid),
                    tid: u64::from(tid),
                },
                &name,
            )?;
            self.threads.insert(
                tid,
                Thread {
                    track,
                    calls: Vec::new(),
                    api: None,
                    api_open: 0,
                    state: None,
                },
            );
        }
        self.threads
            .get_mut(&tid)
            .ok_or(ConvertError::Unsupported(crate::Format::Orbit))
    }

    /// A child track of a thread (`API scopes`, `state`), declared on first use.
    fn thread_child(
        &mut self,
        pid: u32,
        tid: u32,
        state: bool,
    ) -> Result<TrackId, ConvertError<S::Error>> {
        if let Some(t) = self.threads.get(&tid) {
            if let Some(id) = if state { t.state } else { t.api } {
                return Ok(id);
            }
        }
        let parent = self.thread(pid, tid)?.track;
        let mut name = match self.defs.thread_name(tid) {
            Some(n) => String::from(n),
            None => alloc::format!("thread {tid}"),
        };
        name.push_str(if state {
            crate::timeline::THREAD_STATES_SUFFIX
        } else {
            " API scopes"
        });
        let id = self.out.track(Some(parent), TrackKind::Slices, &name)?;
        if let Some(t) = self.threads.get_mut(&tid) {
            if state {
                t.state = Some(id);
            } else {
                t.api = Some(id);
            }
        }
        Ok(id)
    }

    /// The `CPU <core>` track, declared on first use.
    fn cpu(&mut self, core: i32) -> Result<TrackId, ConvertError<S::Error>> {
        let index = usize::try_from(core).ok().filter(|&i| i < INDEXED_CORES);
        let known = match index {
            Some(i) => self.cpus.get(i).copied().flatten(),
            None => self.other_cpus.get(&core).copied(),
        };
        if let Some(track) = known {
            return Ok(track);
        }
        let label = alloc::format!("CPU {core}");
        let track = self.out.track(None, TrackKind::Slices, &label)?;
        match index {
            Some(i) => {
                if i >= self.cpus.len() {
                    self.cpus.resize(i + 1, None);
                }
                if let Some(slot) = self.cpus.get_mut(i) {
                    *slot = Some(track);
                }
            }
            None => {
                self.other_cpus.insert(core, track);
            }
        }
        Ok(track)
    }

    fn global(
        &mut self,
        name: &'static str,
        parent: Option<TrackId>,
        kind: TrackKind,
    ) -> Result<TrackId, ConvertError<S::Error>> {
        if let Some(&id) = self.global.get(name) {
            return Ok(id);
        }
        let id = self.out.track(parent, kind, name)?;
        self.global.insert(name, id);
        Ok(id)
    }

    fn api_name(&mut self, name: ApiName<'_>) {
        self.name.clear();
        self.name.extend(name.bytes());
    }

    fn event(&mut self, view: &EventView<'a>) -> R<S> {
        match *view {
            EventView::CaptureStarted(c) => self.capture_started(&c),
            EventView::FunctionCall(c) => self.call(&c),
            EventView::ApiScopeStart(_)
            | EventView::ApiScopeStop(_)
            | EventView::ApiScopeStartAsync(_)
            | EventView::ApiScopeStopAsync(_)
            | EventView::ApiStringEvent(_)
            | EventView::ApiTrackDouble(_)
            | EventView::ApiTrackFloat(_)
            | EventView::ApiTrackInt(_)
            | EventView::ApiTrackInt64(_)
            | EventView::ApiTrackUint(_)
            | EventView::ApiTrackUint64(_) => self.api_event(view),
            EventView::SchedulingSlice(_) | EventView::ThreadStateSlice(_) => {
                self.scheduling_event(view)
            }
            EventView::CallstackSample(s) => self.sample(&s),
            EventView::GpuJob(_) | EventView::GpuQueueSubmission(_) => self.gpu_event(view),
            EventView::MemoryUsageEvent(m) => self.memory(&m),
            EventView::TracepointEvent(_) | EventView::PresentEvent(_) => self.instant_event(view),
            EventView::WarningEvent(_)
            | EventView::ErrorEnablingOrbitApiEvent(_)
            | EventView::ErrorEnablingUserSpaceInstrumentationEvent(_)
            | EventView::LostPerfRecordsEvent(_)
            | EventView::OutOfOrderEventsDiscardedEvent(_) => self.diagnostic_event(view),
            _ => Ok(()),
        }
    }

    /// The capture's target process (`CaptureStarted`).
    fn capture_started(&mut self, c: &tracecap_orbit::views::CaptureStarted<'a>) -> R<S> {
        self.main_pid = Some(c.process_id);
        let exe = c.executable_path;
        let base = exe.rsplit('/').next().unwrap_or(exe);
        let label = alloc::format!("{base} (pid {})", c.process_id);
        let track = match self.processes.get(&c.process_id) {
            Some(p) => p.track,
            None => self.out.track(
                None,
                TrackKind::Process {
                    pid: u64::from(c.process_id),
                },
                &label,
            )?,
        };
        self.processes
            .entry(c.process_id)
            .or_insert_with(|| Process {
                track,
                pid: c.process_id,
                lanes: Vec::new(),
                async_open: BTreeMap::new(),
                counters: BTreeMap::new(),
            });
        let version = alloc::format!("{}.{}", c.orbit_version_major, c.orbit_version_minor);
        let args = [
            Arg {
                name: "executable",
                value: Value::Str(exe),
            },
            Arg {
                name: "orbit_version",
                value: Value::Str(&version),
            },
            Arg {
                name: "unix_time_ns",
                value: Value::Uint(c.capture_start_unix_time_ns),
            },
        ];
        self.out
            .instant(track, c.capture_start_timestamp_ns, "capture start", &args)?;
        Ok(())
    }

    /// Orbit API events: scopes, async scopes, strings and track values.
    fn api_event(&mut self, view: &EventView<'a>) -> R<S> {
        match *view {
            EventView::ApiScopeStart(s) => {
                let track = self.thread_child(s.pid, s.tid, false)?;
                self.api_name(s.name());
                let mut args = Args::<2>::new();
                args.opt_uint("group_id", s.group_id);
                args.opt_uint("color_rgba", u64::from(s.color_rgba));
                let name = text(&self.name, &mut self.text);
                self.out
                    .begin(track, s.timestamp_ns, name, args.as_slice())?;
                if let Some(t) = self.threads.get_mut(&s.tid) {
                    t.api_open += 1;
                }
            }
            EventView::ApiScopeStop(s) => {
                let open = self
                    .threads
                    .get(&s.tid)
                    .and_then(|t| Some((t.api?, t.api_open)));
                if let Some((track, n)) = open.filter(|o| o.1 > 0) {
                    self.out.end(track, s.timestamp_ns)?;
                    if let Some(t) = self.threads.get_mut(&s.tid) {
                        t.api_open = n - 1;
                    }
                }
            }
            EventView::ApiScopeStartAsync(s) => {
                self.api_name(s.name());
                let pid = self.pid_or_main(s.pid);
                self.async_stop(pid, s.id, s.timestamp_ns)?;
                let p = self.process(pid)?;
                let (parent, ppid) = (p.track, p.pid);
                let free = p.lanes.iter().position(|l| l.1.is_none());
                let lane = match free {
                    Some(i) => i,
                    None => {
                        let n = p.lanes.len();
                        let label = alloc::format!("async scopes {ppid}.{n}");
                        let id = self.out.track(Some(parent), TrackKind::Slices, &label)?;
                        let p = self.process(pid)?;
                        p.lanes.push((id, None));
                        n
                    }
                };
                let p = self.process(pid)?;
                let Some(l) = p.lanes.get_mut(lane) else {
                    return Ok(());
                };
                l.1 = Some(s.id);
                let track = l.0;
                p.async_open.insert(s.id, lane);
                let args = [
                    Arg {
                        name: "id",
                        value: Value::Uint(s.id),
                    },
                    Arg {
                        name: "tid",
                        value: Value::Uint(u64::from(s.tid)),
                    },
                ];
                let name = text(&self.name, &mut self.text);
                self.out.begin(track, s.timestamp_ns, name, &args)?;
            }
            EventView::ApiScopeStopAsync(s) => {
                let pid = self.pid_or_main(s.pid);
                self.async_stop(pid, s.id, s.timestamp_ns)?;
            }
            EventView::ApiStringEvent(s) => {
                let track = self.thread(s.pid, s.tid)?.track;
                self.api_name(s.name());
                let mut args = Args::<1>::new();
                args.opt_uint("async_id", s.id);
                let name = text(&self.name, &mut self.text);
                self.out
                    .instant(track, s.timestamp_ns, name, args.as_slice())?;
            }
            EventView::ApiTrackDouble(v) => {
                self.api_name(v.name());
                self.api_value(v.pid, v.timestamp_ns, double(v.data))?;
            }
            EventView::ApiTrackFloat(v) => {
                self.api_name(v.name());
                self.api_value(v.pid, v.timestamp_ns, double(f64::from(v.data)))?;
            }
            EventView::ApiTrackInt(v) => {
                self.api_name(v.name());
                self.api_value(
                    v.pid,
                    v.timestamp_ns,
                    Some(CounterValue::Int(i64::from(v.data))),
                )?;
            }
            EventView::ApiTrackInt64(v) => {
                self.api_name(v.name());
                self.api_value(v.pid, v.timestamp_ns, Some(CounterValue::Int(v.data)))?;
            }
            EventView::ApiTrackUint(v) => {
                self.api_name(v.name());
                self.api_value(
                    v.pid,
                    v.timestamp_ns,
                    Some(CounterValue::Int(i64::from(v.data))),
                )?;
            }
            EventView::ApiTrackUint64(v) => {
                self.api_name(v.name());
                let value = match i64::try_from(v.data) {
                    Ok(i) => CounterValue::Int(i),
                    Err(_) => CounterValue::Double(v.data as f64),
                };
                self.api_value(v.pid, v.timestamp_ns, Some(value))?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Scheduling and thread state slices.
    fn scheduling_event(&mut self, view: &EventView<'a>) -> R<S> {
        match *view {
            EventView::SchedulingSlice(s) => {
                let track = self.cpu(s.core)?;
                let name = match self.defs.thread_name(s.tid) {
                    Some(n) => n,
                    None => {
                        self.text.clear();
                        let _ = write!(self.text, "thread {}", s.tid);
                        &self.text
                    }
                };
                let args = [
                    Arg {
                        name: "pid",
                        value: Value::Uint(u64::from(s.pid)),
                    },
                    Arg {
                        name: "tid",
                        value: Value::Uint(u64::from(s.tid)),
                    },
                ];
                let start = s.out_timestamp_ns.saturating_sub(s.duration_ns);
                self.out
                    .complete(track, start, s.out_timestamp_ns, name, &args)?;
            }
            EventView::ThreadStateSlice(s) => {
                let track = self.thread_child(s.pid, s.tid, true)?;
                let name = usize::try_from(s.thread_state)
                    .ok()
                    .and_then(|i| THREAD_STATES.get(i))
                    .copied()
                    .unwrap_or("unknown state");
                let mut args = Args::<3>::new();
                args.opt_uint("wakeup_tid", u64::from(s.wakeup_tid));
                args.opt_uint("wakeup_pid", u64::from(s.wakeup_pid));
                if s.wakeup_reason != 0 {
                    let reason = if s.wakeup_reason == 2 {
                        "created"
                    } else {
                        "unblocked"
                    };
                    args.push("wakeup_reason", Value::Str(reason));
                }
                let start = s.end_timestamp_ns.saturating_sub(s.duration_ns);
                self.out
                    .complete(track, start, s.end_timestamp_ns, name, args.as_slice())?;
            }
            _ => {}
        }
        Ok(())
    }

    /// GPU jobs and queue submissions.
    fn gpu_event(&mut self, view: &EventView<'a>) -> R<S> {
        match *view {
            EventView::GpuJob(j) => {
                let key = (j.timeline_key, j.depth);
                let track = match self.gpu.get(&key) {
                    Some(&t) => t,
                    None => {
                        let mut label = alloc::format!("GPU {}", self.defs.string(j.timeline_key));
                        if j.depth != 0 {
                            let _ = write!(label, " ({})", j.depth);
                        }
                        let t = self.out.track(None, TrackKind::Slices, &label)?;
                        self.gpu.insert(key, t);
                        t
                    }
                };
                let t0 = j.amdgpu_cs_ioctl_time_ns;
                let t1 = j.amdgpu_sched_run_job_time_ns.max(t0);
                let t2 = j.gpu_hardware_start_time_ns.max(t1);
                let t3 = j.dma_fence_signaled_time_ns.max(t2);
                let args = [
                    Arg {
                        name: "seqno",
                        value: Value::Uint(u64::from(j.seqno)),
                    },
                    Arg {
                        name: "context",
                        value: Value::Uint(u64::from(j.context)),
                    },
                    Arg {
                        name: "tid",
                        value: Value::Uint(u64::from(j.tid)),
                    },
                ];
                self.out.begin(track, t0, "gpu job", &args)?;
                self.out.complete(track, t0, t1, "sw queue", &[])?;
                self.out.complete(track, t1, t2, "hw queue", &[])?;
                self.out.complete(track, t2, t3, "hw execution", &[])?;
                self.out.end(track, t3)?;
            }
            EventView::GpuQueueSubmission(s) => {
                self.submission(&s)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Tracepoints and present events.
    fn instant_event(&mut self, view: &EventView<'a>) -> R<S> {
        match *view {
            EventView::TracepointEvent(t) => {
                let track = self.thread(t.pid, t.tid)?.track;
                let info = self.defs.intern.tracepoint(t.tracepoint_info_key);
                let name = info.map_or("tracepoint", |i| i.name);
                let args = [
                    Arg {
                        name: "category",
                        value: Value::Str(info.map_or("", |i| i.category)),
                    },
                    Arg {
                        name: "cpu",
                        value: Value::Int(i64::from(t.cpu)),
                    },
                ];
                self.out.instant(track, t.timestamp_ns, name, &args)?;
            }
            EventView::PresentEvent(p) => {
                let parent = self.process(self.pid_or_main(p.pid))?.track;
                let track = self.global("Present events", Some(parent), TrackKind::Slices)?;
                let source = match p.source {
                    1 => "DXGI",
                    2 => "D3D9",
                    _ => "unknown",
                };
                let args = [
                    Arg {
                        name: "source",
                        value: Value::Str(source),
                    },
                    Arg {
                        name: "duration_ns",
                        value: Value::Uint(p.duration_ns),
                    },
                    Arg {
                        name: "tid",
                        value: Value::Uint(u64::from(p.tid)),
                    },
                ];
                self.out
                    .instant(track, p.begin_timestamp_ns, "present", &args)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Warnings, errors and lost or discarded records.
    fn diagnostic_event(&mut self, view: &EventView<'a>) -> R<S> {
        match *view {
            EventView::WarningEvent(m)
            | EventView::ErrorEnablingOrbitApiEvent(m)
            | EventView::ErrorEnablingUserSpaceInstrumentationEvent(m) => {
                let track = self.global("Capture messages", None, TrackKind::Slices)?;
                let name = if matches!(view, EventView::WarningEvent(_)) {
                    "warning"
                } else {
                    "error"
                };
                let args = [Arg {
                    name: "message",
                    value: Value::Str(text(m.message, &mut self.text)),
                }];
                self.out.instant(track, m.timestamp_ns, name, &args)?;
            }
            EventView::LostPerfRecordsEvent(d) | EventView::OutOfOrderEventsDiscardedEvent(d) => {
                let track = self.global("Capture messages", None, TrackKind::Slices)?;
                let name = if matches!(view, EventView::LostPerfRecordsEvent(_)) {
                    "lost perf records"
                } else {
                    "out-of-order events discarded"
                };
                let args = [Arg {
                    name: "duration_ns",
                    value: Value::Uint(d.duration_ns),
                }];
                let start = d.end_timestamp_ns.saturating_sub(d.duration_ns);
                self.out.instant(track, start, name, &args)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn async_stop(&mut self, pid: u32, id: u64, ts: u64) -> R<S> {
        let Some(p) = self.processes.get_mut(&pid) else {
            return Ok(());
        };
        let Some(lane) = p.async_open.remove(&id) else {
            return Ok(());
        };
        let Some(l) = p.lanes.get_mut(lane) else {
            return Ok(());
        };
        l.1 = None;
        let track = l.0;
        self.out.end(track, ts)
    }

    fn api_value(&mut self, pid: u32, ts: u64, value: Option<CounterValue>) -> R<S> {
        let Some(value) = value else {
            return Ok(());
        };
        let pid = self.pid_or_main(pid);
        let parent = self.process(pid)?.track;
        let track = match self
            .processes
            .get(&pid)
            .and_then(|p| p.counters.get(&self.name[..]))
        {
            Some(&t) => t,
            None => {
                let label = String::from_utf8_lossy(&self.name).into_owned();
                let t = self.out.track(Some(parent), TrackKind::Counter, &label)?;
                if let Some(p) = self.processes.get_mut(&pid) {
                    p.counters.insert(self.name.clone(), t);
                }
                t
            }
        };
        self.out.counter(track, ts, value)
    }

    fn call(&mut self, c: &CallView<'_>) -> R<S> {
        let call = Call {
            start: c.end_timestamp_ns.saturating_sub(c.duration_ns),
            end: c.end_timestamp_ns,
            depth: c.depth,
            function_id: c.function_id,
        };
        let t = self.thread(c.pid, c.tid)?;
        t.calls.push(call);
        if call.depth <= 0 || t.calls.len() >= MAX_PENDING_CALLS {
            self.flush(c.tid)?;
        }
        Ok(())
    }

    /// Emits a thread's pending calls in start order, each clamped into its parent.
    fn flush(&mut self, tid: u32) -> R<S> {
        let Some(t) = self.threads.get_mut(&tid) else {
            return Ok(());
        };
        let track = t.track;
        let mut calls = core::mem::take(&mut t.calls);
        calls.sort_unstable_by(|a, b| {
            a.start
                .cmp(&b.start)
                .then(a.depth.cmp(&b.depth))
                .then(b.end.cmp(&a.end))
        });
        self.stack.clear();
        let mut result = Ok(());
        for c in &calls {
            let mut start = c.start;
            while let Some(&top) = self.stack.last() {
                if top > start {
                    break;
                }
                self.stack.pop();
                result = self.out.end(track, top);
                if result.is_err() {
                    break;
                }
            }
            if result.is_err() {
                break;
            }
            let mut end = c.end.max(start);
            if let Some(&parent_end) = self.stack.last() {
                end = end.min(parent_end);
                start = start.min(end);
            }
            let name = match self.defs.functions.name(c.function_id) {
                Some(n) if !n.is_empty() => n,
                _ => {
                    self.text.clear();
                    let _ = write!(self.text, "function {}", c.function_id);
                    &self.text
                }
            };
            let args = [Arg {
                name: "function_id",
                value: Value::Uint(c.function_id),
            }];
            // The name is the function id's (from the table read before the events, or made of
            // the id), so the id numbers it.
            result = match u32::try_from(c.function_id) {
                Ok(id) => self
                    .out
                    .begin_named(track, start, (name, NameId(id)), &args),
                Err(_) => self.out.begin(track, start, name, &args),
            };
            if result.is_err() {
                break;
            }
            self.stack.push(end);
        }
        while let Some(top) = self.stack.pop() {
            if result.is_ok() {
                result = self.out.end(track, top);
            }
        }
        calls.clear();
        if let Some(t) = self.threads.get_mut(&tid) {
            t.calls = calls; // keep the allocation
        }
        result
    }

    fn sample(&mut self, s: &tracecap_orbit::views::CallstackSample<'_>) -> R<S> {
        let track = self.thread(s.pid, s.tid)?.track;
        let stack = self.defs.intern.callstack(s.callstack_id);
        let mut n = 0usize;
        let mut frames = 0u64;
        if let Some(stack) = stack.filter(|_| self.out.out.wants_args()) {
            for pc in stack.pcs.iter() {
                frames += 1;
                if n >= MAX_FRAMES {
                    continue;
                }
                if self.texts.len() <= n {
                    self.texts.push(String::new());
                }
                let Some(text) = self.texts.get_mut(n) else {
                    break;
                };
                text.clear();
                match self.defs.symbols.get(&self.capture, pc) {
                    Some(a) => {
                        let intern = &self.defs.intern;
                        push_lossy(text, intern.string(a.function_name_key).unwrap_or(b""));
                        let _ = write!(text, "+{:#x} [", a.offset_in_function);
                        push_lossy(text, intern.string(a.module_name_key).unwrap_or(b""));
                        text.push(']');
                    }
                    None => {
                        let _ = write!(text, "{pc:#x}");
                    }
                }
                n += 1;
            }
        }
        let mut args = Args::<{ MAX_FRAMES + 2 }>::new();
        args.push("frames", Value::Uint(frames));
        if let Some(stack) = stack {
            args.push(
                "callstack_type",
                Value::Int(i64::from(stack.callstack_type)),
            );
        }
        for (name, text) in FRAME_NAMES.iter().zip(self.texts.iter()).take(n) {
            args.push(name, Value::Str(text));
        }
        self.out
            .instant(track, s.timestamp_ns, "callstack sample", args.as_slice())?;
        if self.out.out.wants_stacks() && stack.is_some() {
            if !self.declared.contains(&s.callstack_id) {
                self.declare_stack(s.callstack_id)?;
            }
            self.out.out.stack_sample(&StackSample {
                track,
                ts: s.timestamp_ns,
                stack: StackId(s.callstack_id),
                weight: 1,
                kind: StackKind::Sample,
                call: None,
            })?;
        }
        Ok(())
    }

    /// Declares the interned callstack `key` as a stack: each program counter, innermost first,
    /// named by its `AddressInfo`'s function (as written), else by its address in hex, in the
    /// `AddressInfo`'s module. Once per callstack; allocates for the frames' text.
    fn declare_stack(&mut self, key: u64) -> R<S> {
        self.declared.insert(key);
        let Some(stack) = self.defs.intern.callstack(key) else {
            return Ok(());
        };
        let intern = &self.defs.intern;
        let texts: Vec<(u64, Cow<'_, str>, Cow<'_, str>)> = stack
            .pcs
            .iter()
            .map(|pc| {
                let info = self.defs.symbols.get(&self.capture, pc);
                let lossy = |key| String::from_utf8_lossy(intern.string(key).unwrap_or(b""));
                let function = info
                    .map(|a| lossy(a.function_name_key))
                    .filter(|f| !f.is_empty())
                    .unwrap_or_else(|| Cow::Owned(alloc::format!("{pc:#x}")));
                let module = info.map_or(Cow::Borrowed(""), |a| lossy(a.module_name_key));
                (pc, function, module)
            })
            .collect();
        let frames: Vec<Frame<'_>> = texts
            .iter()
            .map(|(pc, function, module)| Frame {
                function,
                module,
                file: "",
                line: None,
                address: Some(*pc),
            })
            .collect();
        self.out.out.stack(StackId(key), &frames)
    }

    /// `GpuQueueSubmission`: an instant on the submitting thread (from its meta info), with the
    /// number of submits and completed markers.
    fn submission(&mut self, s: &tracecap_orbit::views::GpuQueueSubmission<'_>) -> R<S> {
        let meta = s.meta().unwrap_or_default();
        let (tid, pid) = (meta.tid, meta.pid);
        let (pre, post) = (
            meta.pre_submission_cpu_timestamp,
            meta.post_submission_cpu_timestamp,
        );
        let submits = s.submit_infos.count() as u64;
        let markers = s.completed_markers.count() as u64;
        let track = self.thread(pid, tid)?.track;
        let args = [
            Arg {
                name: "post_submission_ns",
                value: Value::Uint(post),
            },
            Arg {
                name: "submit_infos",
                value: Value::Uint(submits),
            },
            Arg {
                name: "completed_markers",
                value: Value::Uint(markers),
            },
        ];
        self.out.instant(track, pre, "gpu queue submission", &args)
    }

    fn memory(&mut self, m: &tracecap_orbit::views::MemoryUsageEvent<'_>) -> R<S> {
        let ts = m.timestamp_ns;
        if m.system_memory_usage.present {
            if let Ok(s) = m.system() {
                for (name, v) in [
                    ("system free (kB)", s.free_kb),
                    ("system available (kB)", s.available_kb),
                    ("system buffers (kB)", s.buffers_kb),
                    ("system cached (kB)", s.cached_kb),
                ] {
                    let track = self.global(name, None, TrackKind::Counter)?;
                    self.out.counter(track, ts, CounterValue::Int(v))?;
                }
            }
        }
        if m.process_memory_usage.present {
            if let Ok(p) = m.process() {
                let parent = self.process(self.pid_or_main(p.pid))?.track;
                let track =
                    self.global("process RSS anon (kB)", Some(parent), TrackKind::Counter)?;
                self.out
                    .counter(track, ts, CounterValue::Int(p.rss_anon_kb))?;
            }
        }
        if m.cgroup_memory_usage.present {
            if let Ok(c) = m.cgroup() {
                for (name, v) in [
                    ("cgroup RSS (bytes)", c.rss_bytes),
                    ("cgroup limit (bytes)", c.limit_bytes),
                ] {
                    let track = self.global(name, None, TrackKind::Counter)?;
                    self.out.counter(track, ts, CounterValue::Int(v))?;
                }
            }
        }
        Ok(())
    }

    /// Emits the calls still pending and closes every open scope at its track's latest time.
    fn finish(&mut self) -> R<S> {
        let tids: Vec<u32> = self.threads.keys().copied().collect();
        for tid in tids {
            self.flush(tid)?;
            if let Some(t) = self.threads.get_mut(&tid) {
                let n = core::mem::take(&mut t.api_open);
                if let Some(track) = t.api {
                    for _ in 0..n {
                        self.out.end(track, 0)?;
                    }
                }
            }
        }
        let mut open = Vec::new();
        for p in self.processes.values_mut() {
            for l in &mut p.lanes {
                if l.1.take().is_some() {
                    open.push(l.0);
                }
            }
            p.async_open.clear();
        }
        for track in open {
            self.out.end(track, 0)?;
        }
        Ok(())
    }
}

fn double(v: f64) -> Option<CounterValue> {
    v.is_finite().then_some(CounterValue::Double(v))
}
