//! apitrace `.trace` -> timeline.
//!
//! | trace | timeline |
//! |---|---|
//! | the trace | a process track (pid 1: apitrace records no process ids), named `apitrace: <process.name>` |
//! | trace thread (the per-trace thread index `n`, 0 before version 4) | thread track `thread n` (tid `n + 1`) |
//! | call | slice on its thread from the synthetic time of its ENTER to that of its LEAVE, named by the function; args by the signature's argument names, `ret`, `call_no`, `fake`, `incomplete` |
//! | frame (ends at a call apitrace flags end-of-frame) | slice `frame N` on a `Frames` track |
//! | debug group push ... pop | slice named by the group's text, from the push call's end to the pop call's start |
//! | a call's backtrace | for a sink that reads stacks, a stack sample of kind `call` on the call's thread at its start, named by the call's function, of the backtrace's frames (innermost first) |
//!
//! apitrace records no time at all, only the order of calls. The synthetic clock ticks once per
//! call ([`TICK_NS`], one microsecond): the call numbered `n` enters at `n` ticks, and a call
//! leaves at the tick of the next call to enter, so calls of a single-threaded trace are one
//! tick long and back to back.
//!
//! Streaming: the file is opened through the crate's entry point (`Capture::parse_with_events`:
//! the header, and the `ChunkedReader` that read it), decompressed piece by piece and read in
//! one pass (`try_for_each_parsed`); what is kept is the signature table, one entry per
//! thread, where each snappy chunk or zstd frame under the reader's window starts (16 bytes each:
//! the reader releases what it has parsed, so they cover the unread tail and the piece being
//! read, at most one per stream byte of the window, never one per piece of the file), the name
//! and argument names of each function signature calls use (worked out once, with its flags)
//! and, per call that has entered and not yet left, its arguments' text (each value cut at
//! [`MAX_TEXT`] bytes). A fault's stream offset is mapped back to the file through the container
//! source's `OffsetMap`, as `decompress` maps it for `dump` and `validate`, to the chunk or frame
//! holding it: the fault lies in the event being read, in the window.
//!
//! A backtrace's frames are declared as a stack once per distinct list of frame ids (kept, with
//! its number, in a map; a call whose backtrace was seen before costs a lookup and no
//! allocation). A frame's function is the name the trace gives it, else apitrace's own
//! `module+0xoffset` (`?` for an unknown module), its address the offset in its module.
//!
//! A trace whose bytes arrive (a pipe, a followed file), in any container, is read through the
//! crate's `PushParser` instead (`convert_arriving`), event by event, into the same state: the
//! parser's window replaces the reader's, the parser's offset map the source's.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use tracecap_apitrace::dump::Dumper;
use tracecap_apitrace::{
    call_flags, Backtrace, Capture, Detail, Error as ApiError, ErrorKind, EventKind, FileError,
    OffsetMap, OwnedHeader, Parsed, SigTable, Value as ApiValue, END_FRAME, MARKER_POP,
    MARKER_PUSH,
};

use super::out::{Out, Written};
use super::text::{cut, text, NO_ARG};
use crate::error::{ConvertError, FormatError};
use crate::timeline::{
    Arg, Event, Frame, NameId, Sink, StackId, StackKind, StackSample, TrackId, TrackKind, Value,
};

const CATEGORY: &str = "apitrace";
const MARKER_CATEGORY: &str = "apitrace.marker";
/// One tick of the synthetic clock (one call), in nanoseconds.
pub const TICK_NS: u64 = 1000;
/// Longest argument text written (longer values are cut, with `...`).
pub const MAX_TEXT: usize = 256;
/// The pid given to the trace's process (apitrace records none).
pub const PID: u64 = 1;
/// Reused argument buffers kept.
const POOL: usize = 64;
/// Function signature ids below this are found through a vector, larger ones through a map. The
/// vector grows to the largest such id a call uses: at most this many slots of 4 bytes.
const DENSE_SIGS: u64 = 1 << 14;
/// Threads numbered 0, 1, 2, ... in the order they appear are kept in a vector, up to this many;
/// any other thread in a map.
const DENSE_THREADS: usize = 1 << 12;

/// What the closure of the walk stops it with; `Stop` says why. A walk stopped this way goes on
/// with the next event when it is called again.
const PAUSE: ApiError = ApiError::new(ErrorKind::Undefined("pause"), 0);

/// Why the walk was paused.
enum Stop<E> {
    /// To report progress.
    Progress,
    /// The sink failed.
    Sink(ConvertError<E>),
}

/// An event read in one pass, with the signature table as it stands after it.
type ApiEvent<'p> = Parsed<'p, 'p, SigTable>;

/// An argument value kept until the call is written.
#[derive(Clone, Copy)]
enum Val {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    /// A range of the call's text buffer.
    Text(usize, usize),
}

/// Which argument: an index into the signature's names, or the return value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Arg(u64),
    Ret,
}

/// A call that has entered and is not yet written.
struct Pending {
    no: u64,
    /// Its function, an index into [`Functions`] (`None` for a signature the table lacks).
    func: Option<u32>,
    ts: u64,
    /// Set when its LEAVE was read (the call may still wait for calls above it to close).
    left: Option<u64>,
    /// Already written as a begin (a call entered on the same thread before it left).
    begun: bool,
    flags: u32,
    fake: bool,
    text: String,
    args: Vec<(Slot, Val)>,
    /// The group's text, for a marker push.
    label: Option<(usize, usize)>,
}

enum Entry {
    Call(Pending),
    Marker,
}

struct Thread {
    track: TrackId,
    stack: Vec<Entry>,
    last: u64,
}

/// What calls need of a function signature, worked out from the table at its first call.
struct Function {
    /// [`call_flags`] of its name.
    flags: u32,
    /// Its name, then its arguments' names: `Functions::spans[first..=first + args]`.
    first: usize,
    args: usize,
}

/// The function signatures calls have used, by id, with their names as text (each as [`utf8`]
/// gives it): what a call needs of its signature is looked up, not worked out again.
#[derive(Default)]
struct Functions {
    /// For each id below [`DENSE_SIGS`], its index in `list` plus one (0: not met yet).
    dense: Vec<u32>,
    sparse: BTreeMap<u64, u32>,
    list: Vec<Function>,
    text: String,
    /// Ranges of `text`.
    spans: Vec<(usize, usize)>,
}

impl Functions {
    /// The index of function signature `id`, added from `table` at its first call; `None` when
    /// the table does not define it.
    #[inline]
    fn index(&mut self, id: u64, table: &SigTable) -> Option<u32> {
        let dense = usize::try_from(id).ok().filter(|_| id < DENSE_SIGS);
        let found = match dense {
            Some(i) => self.dense.get(i).and_then(|&n| n.checked_sub(1)),
            None => self.sparse.get(&id).copied(),
        };
        if found.is_some() {
            return found;
        }
        let sig = table.function(id)?;
        let index = u32::try_from(self.list.len()).ok()?;
        let stored = index.checked_add(1)?;
        let first = self.spans.len();
        self.push_name(sig.name());
        for name in sig.arg_names() {
            self.push_name(name);
        }
        self.list.push(Function {
            flags: call_flags(sig.name()),
            first,
            args: self.spans.len() - first - 1,
        });
        match dense {
            Some(i) => {
                if self.dense.len() <= i {
                    self.dense.resize(i + 1, 0);
                }
                if let Some(slot) = self.dense.get_mut(i) {
                    *slot = stored;
                }
            }
            None => {
                self.sparse.insert(id, index);
            }
        }
        Some(index)
    }

    fn push_name(&mut self, name: &[u8]) {
        let a = self.text.len();
        self.text.push_str(utf8(name));
        self.spans.push((a, self.text.len()));
    }

    fn get(&self, index: Option<u32>) -> Option<&Function> {
        self.list.get(usize::try_from(index?).ok()?)
    }

    fn span(&self, i: usize) -> Option<&str> {
        let &(a, b) = self.spans.get(i)?;
        self.text.get(a..b)
    }

    /// The function's name.
    fn name(&self, f: &Function) -> &str {
        self.span(f.first).unwrap_or("")
    }

    /// The name of argument `i`, if the signature has that many.
    fn arg_name(&self, f: &Function, i: u64) -> Option<&str> {
        let i = usize::try_from(i).ok().filter(|&i| i < f.args)?;
        self.span(f.first + 1 + i)
    }
}

/// The threads by number: those numbered 0, 1, 2, ... in the order they appear (the way
/// apitrace numbers them) in a vector, up to [`DENSE_THREADS`], any other in a map. A number in
/// the map is never below the vector's length: the vector only grows by the thread numbered
/// with its length, and only while that thread is not in the map.
#[derive(Default)]
struct Threads {
    dense: Vec<Thread>,
    sparse: BTreeMap<u64, Thread>,
}

impl Threads {
    #[inline]
    fn get(&self, n: u64) -> Option<&Thread> {
        match usize::try_from(n) {
            Ok(i) if i < self.dense.len() => self.dense.get(i),
            _ => self.sparse.get(&n),
        }
    }

    #[inline]
    fn get_mut(&mut self, n: u64) -> Option<&mut Thread> {
        match usize::try_from(n) {
            Ok(i) if i < self.dense.len() => self.dense.get_mut(i),
            _ => self.sparse.get_mut(&n),
        }
    }

    fn insert(&mut self, n: u64, thread: Thread) {
        if n == self.dense.len() as u64 && self.dense.len() < DENSE_THREADS {
            self.dense.push(thread);
        } else {
            self.sparse.insert(n, thread);
        }
    }

    /// The numbers of every thread, in increasing order.
    fn numbers(&self) -> Vec<u64> {
        (0..self.dense.len() as u64)
            .chain(self.sparse.keys().copied())
            .collect()
    }
}

/// The thread of every open call, in the order of their call numbers (the order of enters).
#[derive(Default)]
struct Open(Vec<(u64, u64)>);

impl Open {
    /// Call `no` is open on thread `tn`.
    #[inline]
    fn insert(&mut self, no: u64, tn: u64) {
        match self.0.last() {
            Some(&(last, _)) if last >= no => {
                let i = self.0.partition_point(|&(n, _)| n < no);
                match self.0.get_mut(i) {
                    Some(slot) if slot.0 == no => slot.1 = tn,
                    _ => self.0.insert(i, (no, tn)),
                }
            }
            _ => self.0.push((no, tn)),
        }
    }

    /// The position of call `no`.
    #[inline]
    fn find(&self, no: u64) -> Option<usize> {
        // Calls usually leave in the reverse order of their enters.
        match self.0.last() {
            Some(&(last, _)) if last == no => Some(self.0.len() - 1),
            _ => self.0.binary_search_by_key(&no, |&(n, _)| n).ok(),
        }
    }

    /// The thread of call `no`, if it is open.
    #[inline]
    fn thread(&self, no: u64) -> Option<u64> {
        self.0.get(self.find(no)?).map(|&(_, tn)| tn)
    }

    /// Call `no` is no longer open.
    #[inline]
    fn remove(&mut self, no: u64) {
        if let Some(i) = self.find(no) {
            self.0.remove(i);
        }
    }
}

struct State<'c, S: Sink> {
    out: Out<'c, S>,
    process: TrackId,
    frames: Option<TrackId>,
    frame_no: u64,
    frame_start: Option<u64>,
    threads: Threads,
    functions: Functions,
    open: Open,
    /// Enters seen (the clock, in ticks).
    enters: u64,
    pool: Vec<(String, Vec<(Slot, Val)>)>,
    dumper: Dumper,
    bytes: Vec<u8>,
    /// Text of a value that is not UTF-8, with each invalid sequence as U+FFFD.
    lossy: String,
    scratch: String,
    /// Ranges of `scratch` holding names of arguments past the signature's count.
    extra: Vec<(usize, usize)>,
    /// The stacks declared, by their frame ids (innermost first).
    stacks: BTreeMap<Vec<u64>, StackId>,
    /// The frame ids of the backtrace being read.
    frame_ids: Vec<u64>,
}

fn utf8(b: &[u8]) -> &str {
    core::str::from_utf8(b).unwrap_or("<non-UTF-8 name>")
}

/// The fault `e` with its file offset: a stream offset is mapped through `offsets` (the pieces
/// the container source decoded) to the snappy chunk or zstd frame holding it.
fn fault(offsets: &OffsetMap, e: ApiError) -> FormatError {
    FileError {
        error: e,
        file_offset: offsets.error_offset(&e),
    }
    .into()
}

/// The process track's name: `apitrace`, with the trace's `process.name` if it has one.
fn process_name(header: &OwnedHeader) -> String {
    let mut name = String::from("apitrace");
    if let Some((_, v)) = header
        .properties
        .iter()
        .find(|(n, _)| n.as_slice() == b"process.name")
    {
        name.push_str(": ");
        name.push_str(&String::from_utf8_lossy(v));
    }
    name
}

/// Whether [`convert_arriving`] converts as the bytes arrive: it does, event by event, in
/// every container.
pub const CONVERTS_ARRIVING: bool = true;

/// Converts a trace whose bytes arrive from `source` into `sink` as they come, through the
/// crate's `PushParser`: the container is decoded as its bytes arrive (a snappy chunk once it
/// is whole; gzip and brotli in blocks of 16 KiB of file bytes; a zstd frame as its blocks
/// come, handed out once it ends) and the events are converted by the state the whole-file
/// [`convert`] drives, so `buffer` holds at most one snappy chunk (or the bytes of a gzip or
/// brotli block, of a zstd block) and one piece, the parser its window (the largest event plus
/// one piece of stream), the decoder's window and the signature table, and the conversion what
/// the module docs list.
#[cfg(feature = "std")]
pub fn convert_arriving<S: Sink>(
    source: &mut crate::open::Arriving,
    buffer: &mut Vec<u8>,
    sink: &mut S,
) -> Option<crate::push::Arrived<S::Error>> {
    use crate::push::{pump, PumpError};

    let mut st = State::new(sink);
    let mut parser = Headed::default();
    let pumped = pump(source, &mut parser, buffer, |piece| match piece {
        Piece::Header(h) => {
            st.process = st
                .out
                .track(None, TrackKind::Process { pid: PID }, &process_name(h))?;
            Ok(())
        }
        Piece::Event(ev) => st.event(&ev),
    });
    Some(match pumped {
        // Calls still open (or waiting for calls above them) are closed, even after a fault
        // (after the header's, nothing was converted).
        Ok(p) => Ok(st.finish().map(|()| p)),
        Err(PumpError::Io(e)) => Err(e),
        Err(PumpError::Parse(e)) => Ok(if parser.header {
            st.finish()
                .and(Err(ConvertError::Format(fault(parser.parser.offsets(), e))))
        } else {
            Err(ConvertError::Format(fault(parser.parser.offsets(), e)))
        }),
        Err(PumpError::Each(e)) => Ok(Err(e)),
    })
}

/// What [`Headed`] gives: the stream's header, then each event.
#[cfg(feature = "std")]
enum Piece<'a> {
    Header(&'a OwnedHeader),
    Event(ApiEvent<'a>),
}

/// The crate's push parser giving the header before the first event (the process track is
/// named by it).
#[cfg(feature = "std")]
#[derive(Default)]
struct Headed {
    parser: tracecap_apitrace::PushParser,
    /// The header was given.
    header: bool,
}

#[cfg(feature = "std")]
impl crate::push::PushParse for Headed {
    type Item<'a> = Piece<'a>;
    type Error = ApiError;

    fn parse<'a>(
        &'a mut self,
        data: &'a [u8],
        eof: bool,
    ) -> Result<tracecap_wire::Pushed<Piece<'a>>, ApiError> {
        if self.header {
            let answer = self.parser.parse(data, eof)?;
            return Ok(answer.map(|(event, table)| Piece::Event(Parsed::of(event, table))));
        }
        let answer = self.parser.read_header(data, eof)?;
        self.header = matches!(answer, tracecap_wire::Pushed::Item { .. });
        Ok(answer.map(Piece::Header))
    }

    fn offset(&self) -> u64 {
        self.parser.offset()
    }
}

/// Converts an apitrace file (any container), driving `sink`.
pub fn convert<S: Sink>(data: &[u8], sink: &mut S) -> Result<(), ConvertError<S::Error>> {
    // The source keeps the start of every piece under the reader's window, however many one
    // read brings (a read of one-byte zstd frames notes 4096 of them), and forgets those the
    // reader has released: a fault lies in the event being read, in the window.
    let (capture, mut reader) = Capture::parse_with_events(data).map_err(FormatError::from)?;
    let name = process_name(capture.header());
    let mut st = State::new(sink);
    st.process = st.out.track(None, TrackKind::Process { pid: PID }, &name)?;
    let total = data.len() as u64;
    let mut n = 0u64;
    // The one-pass walk: the same events and faults as `next_event`. The closure stops it every
    // 65,536 events to report progress, and at a sink error; then the walk's error is `PAUSE`
    // and `stop` says why, else the error is the stream's fault.
    let failure = loop {
        let mut stop = None;
        let walked = reader.try_for_each_parsed(|ev| {
            n += 1;
            match st.event(&ev) {
                Err(e) => stop = Some(Stop::Sink(e)),
                Ok(()) if n % 65536 == 0 => stop = Some(Stop::Progress),
                Ok(()) => return Ok(()),
            }
            Err(PAUSE)
        });
        match (walked, stop) {
            (Ok(()), _) => break None,
            (Err(_), Some(Stop::Progress)) => {
                st.out.progress(reader.source().consumed(), total);
            }
            (Err(_), Some(Stop::Sink(e))) => return Err(e),
            (Err(e), None) => break Some(e),
        }
    };
    // Calls still open (or waiting for calls above them) are closed, even after a fault.
    st.finish()?;
    if let Some(e) = failure {
        return Err(ConvertError::Format(reader.file_error(e).into()));
    }
    st.out.progress(total, total);
    Ok(())
}

impl<'c, S: Sink> State<'c, S> {
    /// Nothing converted yet, into `sink`.
    fn new(sink: &'c mut S) -> Self {
        State {
            out: Out::new(sink, 1),
            process: TrackId(0),
            frames: None,
            frame_no: 0,
            frame_start: None,
            threads: Threads::default(),
            functions: Functions::default(),
            open: Open::default(),
            enters: 0,
            pool: Vec::new(),
            dumper: Dumper::new(),
            bytes: Vec::new(),
            lossy: String::new(),
            scratch: String::new(),
            extra: Vec::new(),
            stacks: BTreeMap::new(),
            frame_ids: Vec::new(),
        }
    }

    /// The thread numbered `n`, declared at its first call.
    #[inline]
    fn thread(&mut self, n: u64) -> Result<(), ConvertError<S::Error>> {
        if self.threads.get(n).is_some() {
            return Ok(());
        }
        self.scratch.clear();
        let _ = write!(self.scratch, "thread {n}");
        let kind = TrackKind::Thread {
            pid: PID,
            tid: n.saturating_add(1),
        };
        let id = self.out.track(Some(self.process), kind, &self.scratch)?;
        self.threads.insert(
            n,
            Thread {
                track: id,
                stack: Vec::new(),
                last: 0,
            },
        );
        Ok(())
    }

    #[inline]
    fn event(&mut self, ev: &ApiEvent<'_>) -> Result<(), ConvertError<S::Error>> {
        match ev.event.kind {
            EventKind::Enter => self.enter(ev),
            EventKind::Leave => self.leave(ev),
        }
    }

    fn enter(&mut self, p: &ApiEvent<'_>) -> Result<(), ConvertError<S::Error>> {
        let ev = &p.event;
        let now = ev.call_no.saturating_mul(TICK_NS);
        self.enters = self.enters.max(ev.call_no.saturating_add(1));
        let func = self.functions.index(ev.sig, p.table());
        let flags = self.functions.get(func).map_or(0, |f| f.flags);
        if self.frame_start.is_none() {
            self.frame_start = Some(now);
        }
        self.thread(ev.thread)?;
        if flags & MARKER_POP != 0 {
            let top_is_marker = self
                .threads
                .get(ev.thread)
                .is_some_and(|t| matches!(t.stack.last(), Some(Entry::Marker)));
            if top_is_marker {
                self.close_top(ev.thread, now)?;
                self.drain(ev.thread)?;
            }
        }
        // A call still open on this thread becomes the parent of this one.
        let Some(thread) = self.threads.get_mut(ev.thread) else {
            return Ok(());
        };
        let track = thread.track;
        let ts = now.max(thread.last);
        if let Some(Entry::Call(parent)) = thread.stack.last_mut() {
            if !parent.begun {
                parent.begun = true;
                thread.last = thread.last.max(parent.ts);
                emit(
                    &mut self.out,
                    track,
                    parent,
                    &self.functions,
                    (&mut self.scratch, &mut self.extra),
                    false,
                    None,
                )?;
            }
        }
        let (text, args) = self.pool.pop().unwrap_or_default();
        let mut call = Pending {
            no: ev.call_no,
            func,
            ts,
            left: None,
            begun: false,
            flags,
            fake: false,
            text,
            args,
            label: None,
        };
        // A sink that reads no arguments gets none, but a marker push's name its group.
        let backtrace = if self.out.wants_args() || flags & MARKER_PUSH != 0 {
            let bufs = (&mut self.dumper, &mut self.bytes, &mut self.lossy);
            apply(&mut call, p, bufs)
        } else if self.out.wants_stacks() {
            find_backtrace(p)
        } else {
            None
        };
        thread.stack.push(Entry::Call(call));
        self.open.insert(ev.call_no, ev.thread);
        if let Some(bt) = backtrace {
            self.backtrace(track, ts, func, &bt, p.table())?;
        }
        if flags & END_FRAME != 0 {
            let start = self.frame_start.take().unwrap_or(now);
            let frames = match self.frames {
                Some(id) => id,
                None => {
                    let id = self
                        .out
                        .track(Some(self.process), TrackKind::Slices, "Frames")?;
                    self.frames = Some(id);
                    id
                }
            };
            self.scratch.clear();
            let _ = write!(self.scratch, "frame {}", self.frame_no);
            let end = now.saturating_add(TICK_NS);
            let args = [
                Arg {
                    name: "frame",
                    value: Value::Uint(self.frame_no),
                },
                Arg {
                    name: "end_call_no",
                    value: Value::Uint(ev.call_no),
                },
            ];
            let args = if self.out.wants_args() {
                &args[..]
            } else {
                &[]
            };
            let event = Event::new(frames, start, &self.scratch, CATEGORY, args);
            self.out.complete(&event, end.saturating_sub(start))?;
            self.frame_no += 1;
        }
        Ok(())
    }

    fn leave(&mut self, p: &ApiEvent<'_>) -> Result<(), ConvertError<S::Error>> {
        let ev = &p.event;
        let Some(tn) = self.open.thread(ev.call_no) else {
            return Ok(()); // a LEAVE without its ENTER: nothing to close
        };
        let now = self.enters.saturating_mul(TICK_NS);
        // A backtrace among a LEAVE's details (apitrace writes it with the ENTER) is the call's.
        let mut backtrace = None;
        if let Some(thread) = self.threads.get_mut(tn) {
            let track = thread.track;
            for entry in thread.stack.iter_mut().rev() {
                if let Entry::Call(c) = entry {
                    if c.no == ev.call_no {
                        let found =
                            if !c.begun && (self.out.wants_args() || c.flags & MARKER_PUSH != 0) {
                                let bufs = (&mut self.dumper, &mut self.bytes, &mut self.lossy);
                                apply(c, p, bufs)
                            } else if self.out.wants_stacks() {
                                find_backtrace(p)
                            } else {
                                None
                            };
                        backtrace = found.map(|bt| (track, c.ts, c.func, bt));
                        c.left = Some(now.max(c.ts.saturating_add(TICK_NS)));
                        break;
                    }
                }
            }
        }
        if let Some((track, ts, func, bt)) = backtrace {
            self.backtrace(track, ts, func, &bt, p.table())?;
        }
        self.drain(tn)
    }

    /// A call's backtrace: a stack sample of kind `call` at `ts` on `track`, its stack declared
    /// at its first use. Frame ids that do not resolve end the stack where they start.
    fn backtrace(
        &mut self,
        track: TrackId,
        ts: u64,
        func: Option<u32>,
        bt: &Backtrace<'_>,
        table: &SigTable,
    ) -> Result<(), ConvertError<S::Error>> {
        if !self.out.wants_stacks() {
            return Ok(());
        }
        self.frame_ids.clear();
        for id in bt.frames(table) {
            let Ok(id) = id else { break };
            self.frame_ids.push(id);
        }
        let stack = match self.stacks.get(self.frame_ids.as_slice()) {
            Some(&id) => id,
            None => {
                let id = StackId(self.stacks.len() as u64);
                declare_stack(&mut self.out, id, &self.frame_ids, table)?;
                self.stacks.insert(self.frame_ids.clone(), id);
                id
            }
        };
        let call = self
            .functions
            .get(func)
            .map_or("call", |f| self.functions.name(f));
        self.out.stack_sample(&StackSample {
            track,
            ts,
            stack,
            weight: 1,
            kind: StackKind::Call,
            call: Some(call),
        })
    }

    /// Closes the calls on top of `tn`'s stack that have left.
    fn drain(&mut self, tn: u64) -> Result<(), ConvertError<S::Error>> {
        loop {
            let at = match self.threads.get(tn).and_then(|t| t.stack.last()) {
                Some(Entry::Call(c)) => match c.left {
                    Some(at) => at,
                    None => return Ok(()),
                },
                _ => return Ok(()),
            };
            self.close_top_call(tn, at, false)?;
        }
    }

    /// Ends the marker on top of `tn`'s stack at `at`.
    fn close_top(&mut self, tn: u64, at: u64) -> Result<(), ConvertError<S::Error>> {
        let Some(thread) = self.threads.get_mut(tn) else {
            return Ok(());
        };
        if let Some(Entry::Marker) = thread.stack.last() {
            thread.stack.pop();
            let end = at.max(thread.last);
            thread.last = end;
            self.out.end(thread.track, end)?;
        }
        Ok(())
    }

    /// Writes (or ends) the call on top of `tn`'s stack at `at`; a finished marker push then
    /// opens its group.
    fn close_top_call(
        &mut self,
        tn: u64,
        at: u64,
        incomplete: bool,
    ) -> Result<(), ConvertError<S::Error>> {
        let Some(thread) = self.threads.get_mut(tn) else {
            return Ok(());
        };
        let Some(Entry::Call(call)) = thread.stack.pop() else {
            return Ok(());
        };
        self.open.remove(call.no);
        let end = at.max(thread.last).max(call.ts);
        thread.last = end;
        let track = thread.track;
        if call.begun {
            self.out.end(track, end)?;
        } else {
            emit(
                &mut self.out,
                track,
                &call,
                &self.functions,
                (&mut self.scratch, &mut self.extra),
                incomplete,
                Some(end.saturating_sub(call.ts)),
            )?;
        }
        if call.flags & MARKER_PUSH != 0 && !incomplete {
            let name = match call.label {
                Some((a, b)) => call.text.get(a..b).unwrap_or(""),
                None => "",
            };
            let name = if name.is_empty() {
                let f = self.functions.get(call.func);
                f.map_or("group", |f| self.functions.name(f))
            } else {
                name
            };
            self.out
                .begin(&Event::new(track, end, name, MARKER_CATEGORY, &[]))?;
            if let Some(thread) = self.threads.get_mut(tn) {
                thread.stack.push(Entry::Marker);
            }
        }
        let Pending {
            mut text, mut args, ..
        } = call;
        if self.pool.len() < POOL {
            text.clear();
            args.clear();
            self.pool.push((text, args));
        }
        Ok(())
    }

    /// Closes everything still open at the end of the stream (or at a fault): calls that never
    /// left are marked incomplete.
    fn finish(&mut self) -> Result<(), ConvertError<S::Error>> {
        let end = self.enters.saturating_mul(TICK_NS);
        for tn in self.threads.numbers() {
            loop {
                let top = match self.threads.get(tn).and_then(|t| t.stack.last()) {
                    None => break,
                    Some(Entry::Marker) => None,
                    Some(Entry::Call(c)) => Some(c.left),
                };
                match top {
                    None => self.close_top(tn, end)?,
                    Some(left) => self.close_top_call(tn, left.unwrap_or(end), left.is_none())?,
                }
            }
        }
        Ok(())
    }
}

/// Declares the stack `id` of the backtrace frames `ids` (innermost first): each frame's
/// function is its name, else `module+0xoffset` as apitrace prints it (`?` for no module), its
/// address the offset in its module. Once per distinct backtrace; allocates for the frames' text.
fn declare_stack<S: Sink>(
    out: &mut Out<'_, S>,
    id: StackId,
    ids: &[u64],
    table: &SigTable,
) -> Written<S> {
    /// A frame's texts (function, module, file), line and address.
    type Texts = (String, String, String, Option<u32>, Option<u64>);
    let lossy = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(cstr(b)).into_owned());
    let texts: Vec<Texts> = ids
        .iter()
        .map(|&frame| {
            let f = table.frame(frame).unwrap_or_default();
            let module = lossy(f.module);
            let offset = f.offset.filter(|&o| (o as i64) >= 0);
            let function = match lossy(f.function).filter(|s| !s.is_empty()) {
                Some(name) => name,
                None => {
                    let mut text = module.clone().unwrap_or_else(|| String::from("?"));
                    if let Some(o) = offset {
                        let _ = write!(text, "+0x{o:x}");
                    }
                    text
                }
            };
            // A line is a line of the frame's file (apitrace prints none without one).
            let line = f.line.filter(|&l| f.filename.is_some() && (l as i32) >= 0);
            let line = line.map(|l| l as i32 as u32);
            let file = lossy(f.filename).unwrap_or_default();
            (function, module.unwrap_or_default(), file, line, offset)
        })
        .collect();
    let frames: Vec<Frame<'_>> = texts
        .iter()
        .map(|(function, module, file, line, address)| Frame {
            function,
            module,
            file,
            line: *line,
            address: *address,
        })
        .collect();
    out.stack(id, &frames)
}

/// The bytes before the first NUL (apitrace's names are C strings).
fn cstr(s: &[u8]) -> &[u8] {
    match s.iter().position(|&b| b == 0) {
        Some(n) => s.get(..n).unwrap_or(s),
        None => s,
    }
}

/// The backtrace among an event's details, if any.
fn find_backtrace<'p>(ev: &ApiEvent<'p>) -> Option<Backtrace<'p>> {
    ev.details().find_map(|d| match d {
        Ok(Detail::Backtrace(bt)) => Some(bt),
        _ => None,
    })
}

/// Applies an event's details (arguments, return value, flags) to a pending call and returns its
/// backtrace, if any; `bufs` are the dumper with its output buffer and the buffer for text that
/// is not UTF-8.
fn apply<'p>(
    call: &mut Pending,
    ev: &ApiEvent<'p>,
    bufs: (&mut Dumper, &mut Vec<u8>, &mut String),
) -> Option<Backtrace<'p>> {
    let (dumper, bytes, lossy) = bufs;
    let table = ev.table();
    let mut backtrace = None;
    for d in ev.details() {
        let Ok(d) = d else { break };
        let (slot, v) = match d {
            Detail::Arg { index, value } => (Slot::Arg(index), value),
            Detail::Ret(v) => (Slot::Ret, v),
            Detail::Flags(f) => {
                call.fake |= f & 1 != 0;
                continue;
            }
            Detail::Backtrace(bt) => {
                backtrace = Some(bt);
                continue;
            }
        };
        // A later value of the same argument replaces the earlier one.
        call.args.retain(|(s, _)| *s != slot);
        let val = match v {
            ApiValue::Bool(b) => Val::Bool(b),
            ApiValue::SInt(i) => Val::Int(i),
            ApiValue::UInt(u) => Val::Uint(u),
            ApiValue::Float(f) => Val::Double(f64::from(f)),
            ApiValue::Double(f) => Val::Double(f),
            ApiValue::String(s) => {
                let a = call.text.len();
                push_cut(&mut call.text, text(s, lossy));
                let b = call.text.len();
                if call.flags & MARKER_PUSH != 0 && call.label.is_none() {
                    call.label = Some((a, b));
                }
                Val::Text(a, b)
            }
            other => {
                bytes.clear();
                if dumper.value(bytes, &other, table).is_err() {
                    bytes.clear();
                    bytes.push(b'?');
                }
                let a = call.text.len();
                let mut s = text(bytes, lossy);
                if matches!(other, ApiValue::WString(_)) {
                    // L"text": the group's text is what is inside the quotes.
                    if let Some(inner) = s.strip_prefix("L\"").and_then(|x| x.strip_suffix('"')) {
                        s = inner;
                    }
                }
                push_cut(&mut call.text, s);
                let b = call.text.len();
                if matches!(other, ApiValue::WString(_))
                    && call.flags & MARKER_PUSH != 0
                    && call.label.is_none()
                {
                    call.label = Some((a, b));
                }
                Val::Text(a, b)
            }
        };
        call.args.push((slot, val));
    }
    backtrace
}

/// Appends `s`, cut at [`MAX_TEXT`] bytes (on a character boundary) with `...`.
fn push_cut(out: &mut String, s: &str) {
    let (kept, was_cut) = cut(s, MAX_TEXT);
    out.push_str(kept);
    if was_cut {
        out.push_str("...");
    }
}

/// Arguments a call passes to the sink from the stack (`call_no`, `fake` and `incomplete`
/// included); a call with more takes a `Vec`.
const STACK_ARGS: usize = 20;

/// Writes a call: a complete slice when `dur` is given, else a begin. `names` are a buffer for
/// the names of arguments past the signature's count and the ranges of it they take. A sink that
/// reads no arguments gets none.
fn emit<S: Sink>(
    out: &mut Out<'_, S>,
    track: TrackId,
    call: &Pending,
    functions: &Functions,
    names: (&mut String, &mut Vec<(usize, usize)>),
    incomplete: bool,
    dur: Option<u64>,
) -> Written<S> {
    let func = functions.get(call.func);
    let name = func.map_or("call", |f| functions.name(f));
    // A function's name is numbered by its place in `functions` (its signature's).
    let name_id = call.func.filter(|_| func.is_some()).map(NameId);
    let wants_args = out.wants_args();
    let mut write = |args: &[Arg<'_>]| {
        let mut event = Event::new(track, call.ts, name, CATEGORY, args);
        event.name_id = name_id;
        match dur {
            Some(d) => out.complete(&event, d),
            None => out.begin(&event),
        }
    };
    if !wants_args {
        return write(&[]);
    }
    let (scratch, extra) = names;
    let arg_name = |i: u64| func.and_then(|f| functions.arg_name(f, i));
    scratch.clear();
    extra.clear();
    for (slot, _) in &call.args {
        if let Slot::Arg(i) = slot {
            if arg_name(*i).is_none() {
                let a = scratch.len();
                let _ = write!(scratch, "arg{i}");
                extra.push((a, scratch.len()));
            }
        }
    }
    let scratch: &str = scratch;
    let mut extra_names = extra.iter();
    let mut arg = |(slot, val): &(Slot, Val)| {
        let name = match slot {
            Slot::Ret => "ret",
            Slot::Arg(i) => match arg_name(*i) {
                Some(n) => n,
                None => extra_names
                    .next()
                    .and_then(|&(a, b)| scratch.get(a..b))
                    .unwrap_or("arg"),
            },
        };
        let value = match *val {
            Val::Bool(b) => Value::Bool(b),
            Val::Int(i) => Value::Int(i),
            Val::Uint(u) => Value::Uint(u),
            Val::Double(d) => Value::Double(d),
            Val::Text(a, b) => Value::Str(call.text.get(a..b).unwrap_or("")),
        };
        Arg { name, value }
    };
    let call_no = Arg {
        name: "call_no",
        value: Value::Uint(call.no),
    };
    let fake = call.fake.then_some(Arg {
        name: "fake",
        value: Value::Bool(true),
    });
    let cut = incomplete.then_some(Arg {
        name: "incomplete",
        value: Value::Bool(true),
    });
    if call.args.len() + 3 > STACK_ARGS {
        let all = core::iter::once(call_no)
            .chain(call.args.iter().map(arg))
            .chain(fake)
            .chain(cut);
        let args: Vec<Arg<'_>> = all.collect();
        return write(&args);
    }
    let mut buf = [NO_ARG; STACK_ARGS];
    let mut used = 0;
    let mut put = |a| {
        if let Some(slot) = buf.get_mut(used) {
            *slot = a;
            used += 1;
        }
    };
    put(call_no);
    for a in &call.args {
        put(arg(a));
    }
    if let Some(a) = fake {
        put(a);
    }
    if let Some(a) = cut {
        put(a);
    }
    write(buf.get(..used).unwrap_or(&[]))
}
