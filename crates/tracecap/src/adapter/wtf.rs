//! Web Tracing Framework `.wtf-trace` (chunked format 10 and legacy format 3) -> timeline.
//!
//! | capture | timeline |
//! |---|---|
//! | the file | one process track (pid 0) named after the container |
//! | zone (`wtf.zone#create`, or the loader's default zone `Script`) | thread track, tid 1, 2, ... in order of first event |
//! | scope (`wtf.scope#enter`, scope-class events, `enterTracing`) | slice on its zone's track, paired with `wtf.scope#leave` by a stack per zone, as the loader does |
//! | append-data event (`wtf.scope#appendData`, `APPEND_SCOPE_DATA` events) | args merged into the innermost open scope (or an instant, see below) |
//! | instance event, `wtf.trace#mark`, `wtf.trace#timeStamp`, `wtf.trace#discontinuity` | instant on its zone's track (marks and time stamps named by their `name` arg) |
//! | `wtf.flow#branch` / `extend` / `terminate` | instant carrying a flow end (the WTF flow id); `flow#appendData` is a plain instant |
//! | `wtf.timeRange#begin` / `end` | async slice on a `time ranges` lane track under the zone |
//! | `wtf.timing#frameStart` / `frameEnd` | slice `frame N` on a `frames` track under the zone |
//!
//! Times are the 32-bit microsecond counters, unwrapped (each event is put in the 2^32 us window
//! nearest to the latest time seen), times 1000 in nanoseconds, relative to the file's time base.
//!
//! Streaming: the loader sorts each zone's events by time (stably) and then pairs scopes with a
//! stack. Here each zone's events go through a bounded reorder queue (in time order, then file
//! order) that passes an event on once the zone has seen an event [`REORDER_WINDOW_NS`] later,
//! or when the queues hold [`REORDER_CAP`] events; then a stack per zone pairs scopes as they come.
//! That is the loader's order whenever no event is later in the file than the window allows (every
//! corpus file, including the browser events of `blk-client`, up to ~1 s and ~98,000 events late);
//! an event that still comes too late is clamped to its zone's latest time ([`Report::clamped`]).
//! So that appended arguments reach their scope, a zone also holds back up to [`HOLD_LIMIT`] events
//! after a scope opens (until it closes); appends that come after their scope was written become
//! instants. Holding also decides when a zone's events reach the sink, so it is kept when the sink
//! reads no args; only the merging is skipped then.
//!
//! The queues and held events keep where each event lies in the file, its definition's number
//! and its role (a `Kept`), and the event is read again from the mapped file when it is written.
//!
//! Arriving bytes ([`convert_arriving`]: a pipe, a followed file) go through the same state, fed
//! the push parser's items. Their bytes are gone once the parser moves on, so each chunk's body
//! (legacy events: up to 64 KiB of them in a row) is copied when it comes, and its events are
//! converted once the next chunk comes (or the end), read again from that copy. Copies are kept
//! while an event in them waits; once they pass 1 MiB and twice what was left after the last
//! cut, they are cut down to the bytes waiting events are read from (each one's header and
//! arguments, and its chunk's string table). What an arriving conversion holds is therefore what
//! the conversion must hold anyway, not the file: the events in the reorder queues (at most
//! [`REORDER_CAP`], and only those within [`REORDER_WINDOW_NS`] of their zone's latest time) and
//! those held behind open scopes (at most [`HOLD_LIMIT`] per zone), each with its bytes and its
//! chunk's string table (twice that at most before a cut), the chunk being read, the
//! definitions and the zones' state; the same as the whole file's conversion besides the bytes.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use alloc::string::ToString;
use tracecap_wtf::{
    latin1, text_lossy, timeline::MAX_DEPTH, Array, Builtin, Capture, Container, Definition, Elem,
    Event, EventPlace, ScopeRole as Role, Str, StringIndex, StringTable, Value as WValue,
    FLAG_BUILTIN,
};

use super::out::{Out, Written};
use super::reorder::Reorder;
use super::text::{cut, NO_ARG};
use crate::error::ConvertError;
use crate::timeline::{Arg, Event as TEvent, Flow, NameId, Sink, TrackId, TrackKind, Value};

const CATEGORY: &str = "wtf";
const PROCESS: TrackId = TrackId(1);
/// Most events a zone holds back while its outermost held scope is open.
pub const HOLD_LIMIT: usize = 1024;
/// How late (in its zone's time) an event may come in the file and still be put in order: the
/// loader sorts each zone by time, and browser events are recorded up to about a second late.
pub const REORDER_WINDOW_NS: u64 = 2_000_000_000;
/// Most events the reorder queues hold, all zones together; when full, the zone that just
/// received an event passes on its earliest.
pub const REORDER_CAP: usize = 1 << 17;
/// Longest argument text written (longer texts are cut, with their full length).
const MAX_TEXT: usize = 1024;
/// String indexes kept, one per chunk, for the chunks whose strings were looked up last.
const STRING_INDEXES: usize = 4;
/// Wire ids below this find their definition's number in a `Vec`; larger ones in a map.
const DIRECT_DEFS: usize = 4096;
const WRAP: u64 = 1 << 32;
const HALF: u64 = 1 << 31;

/// An event waiting in a queue or held back: where it is in the capture, the number of its
/// definition in `State::defs` and its role. The event is read again from the capture when it
/// is written.
#[derive(Clone, Copy)]
struct Kept {
    place: EventPlace,
    def: u32,
    role: Role,
}

/// A held-back event.
#[derive(Clone, Copy)]
struct Held {
    kept: Kept,
    ts: u64,
    /// Append: index of its target in the held events.
    target: Option<u32>,
    /// Leave: whether it closed a scope.
    closes: bool,
}

/// An open scope: where it is held, or `None` once written.
#[derive(Clone, Copy)]
struct Open {
    held: Option<u32>,
}

struct Lane {
    id: TrackId,
    busy: bool,
    last: u64,
}

struct ZoneState {
    id: Option<u16>,
    track: Option<TrackId>,
    tid: u64,
    stack: Vec<Open>,
    held: Vec<Held>,
    base: usize,
    last: u64,
    stopped: bool,
    frames: Option<TrackId>,
    frame_open: bool,
    lanes: Vec<Lane>,
    /// Events waiting to be put in time order.
    queue: Reorder<Kept>,
    /// Latest time queued.
    seen: u64,
}

/// Argument values waiting for their texts.
#[derive(Clone, Copy)]
enum Slot {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Text(usize),
}

#[derive(Default)]
struct ArgBuf<'a> {
    names: Vec<&'a str>,
    slots: Vec<Slot>,
    texts: Vec<String>,
    used: usize,
}

impl<'a> ArgBuf<'a> {
    fn clear(&mut self) {
        self.names.clear();
        self.slots.clear();
        self.used = 0;
    }

    /// A cleared text buffer for the next argument, and its index.
    fn text(&mut self) -> Option<(usize, &mut String)> {
        if self.texts.len() <= self.used {
            self.texts.push(String::new());
        }
        let i = self.used;
        let t = self.texts.get_mut(i)?;
        self.used += 1;
        t.clear();
        Some((i, t))
    }

    fn push_text(&mut self, name: &'a str, s: &str) {
        if let Some((i, t)) = self.text() {
            cut_into(t, s);
            self.names.push(name);
            self.slots.push(Slot::Text(i));
        }
    }

    /// Calls `f` with the arguments as the sink takes them: from a buffer on the stack for up to
    /// [`STACK_ARGS`] of them, so that an event allocates nothing. Most events have a few, and
    /// take a buffer of [`FEW_ARGS`], which costs less to set up; an event without arguments
    /// (every event, when the sink reads none) takes no buffer.
    fn with_args<R>(&self, f: impl FnOnce(&[Arg<'_>]) -> R) -> R {
        let n = self.names.len();
        if n == 0 {
            f(&[])
        } else if n <= FEW_ARGS {
            f(self.on_stack::<FEW_ARGS>().as_slice())
        } else if n <= STACK_ARGS {
            f(self.on_stack::<STACK_ARGS>().as_slice())
        } else {
            let args: Vec<Arg<'_>> = (0..n).filter_map(|i| self.arg(i)).collect();
            f(&args)
        }
    }

    /// The first `N` arguments in a buffer on the stack.
    fn on_stack<const N: usize>(&self) -> StackArgs<'_, N> {
        let mut buf = [NO_ARG; N];
        let mut n = 0;
        for (i, slot) in buf.iter_mut().enumerate() {
            let Some(a) = self.arg(i) else { break };
            *slot = a;
            n += 1;
        }
        StackArgs { buf, n }
    }

    /// Argument `i` as the sink takes it.
    fn arg(&self, i: usize) -> Option<Arg<'_>> {
        let value = match *self.slots.get(i)? {
            Slot::Bool(b) => Value::Bool(b),
            Slot::Int(v) => Value::Int(v),
            Slot::Uint(u) => Value::Uint(u),
            Slot::Double(d) => Value::Double(d),
            Slot::Text(t) => Value::Str(self.texts.get(t).map_or("", |s| s.as_str())),
        };
        Some(Arg {
            name: self.names.get(i)?,
            value,
        })
    }
}

/// Arguments in a buffer on the stack: the first `n` of `buf`.
struct StackArgs<'b, const N: usize> {
    buf: [Arg<'b>; N],
    n: usize,
}

impl<'b, const N: usize> StackArgs<'b, N> {
    fn as_slice(&self) -> &[Arg<'b>] {
        self.buf.get(..self.n).unwrap_or(&[])
    }
}

/// Arguments an event passes to the sink from the stack (a WTF event has at most
/// [`tracecap_wtf::MAX_ARGS`]; appended scope data can add more, which then take a `Vec`).
const STACK_ARGS: usize = tracecap_wtf::MAX_ARGS;

/// Arguments that most events have at most (a smaller buffer for them).
const FEW_ARGS: usize = 8;

/// The held appends whose scope is the held event `i`. They come after it and before the leave
/// that closes it, so only the events in between are looked at (each flush looks at each event
/// once per scope around it, not once per scope held).
fn appends_to(held: &[Held], i: usize) -> impl Iterator<Item = &Held> {
    let mut depth = 0usize;
    held.get(i + 1..)
        .unwrap_or_default()
        .iter()
        .take_while(move |h| match h.kept.role {
            Role::Enter => {
                depth += 1;
                true
            }
            Role::Leave if h.closes => {
                if depth == 0 {
                    // The leave that closes `i`.
                    return false;
                }
                depth -= 1;
                true
            }
            _ => true,
        })
        .filter(move |h| h.kept.role == Role::Append && h.target.map(|t| t as usize) == Some(i))
}

fn cut_into(out: &mut String, s: &str) {
    let (kept, cut_short) = cut(s, MAX_TEXT);
    out.push_str(kept);
    if cut_short {
        let _ = write!(out, "... ({} bytes)", s.len());
    }
}

/// Whether `a` and `b` are the same definition, read from the same bytes.
fn same_def(a: &Definition<'_>, b: &Definition<'_>) -> bool {
    core::ptr::eq(a.name, b.name)
        && core::ptr::eq(a.signature, b.signature)
        && (a.wire_id, a.class, a.flags) == (b.wire_id, b.class, b.flags)
}

struct State<'c, 'a, S: Sink> {
    out: Out<'c, S>,
    /// Where kept events are read again.
    window: Window<'a>,
    /// Every definition a kept event has had, numbered in order of first use (as they arrive:
    /// every definition the driver met, numbered by [`Pieces`]).
    defs: Vec<Definition<'a>>,
    /// Wire id (below [`DIRECT_DEFS`]) -> number of its latest definition in `defs`
    /// (`u32::MAX`: none yet).
    def_numbers: Vec<u32>,
    /// The same for larger wire ids.
    far_def_numbers: BTreeMap<u16, u32>,
    zones: Vec<ZoneState>,
    zone_index: BTreeMap<Option<u16>, usize>,
    /// The zone of the last event: its id and index.
    last_zone: Option<(Option<u16>, usize)>,
    /// Zone id -> the name its `wtf.zone#create` gave.
    infos: BTreeMap<u16, Option<Vec<u8>>>,
    /// Open time ranges: id -> (zone, lane).
    ranges: BTreeMap<u32, (usize, usize)>,
    /// Latest unwrapped time (us).
    reference: u64,
    /// The string indexes of up to [`STRING_INDEXES`] chunks, built on first use.
    strings: Vec<StringIndex<'a>>,
    /// Which of `strings` the next new index replaces once it is full.
    next_strings: usize,
    args: ArgBuf<'a>,
    label: String,
    /// Events that went back in time within their zone (clamped).
    clamped: u64,
    /// Events in the reorder queues, all zones together.
    queued: usize,
    /// Most events queued at once.
    peak_queue: usize,
}

/// Whether [`convert_arriving`] converts as the bytes arrive (it does).
pub const CONVERTS_ARRIVING: bool = true;

/// Converts a capture whose bytes arrive from `source` into `sink` as they come, holding the
/// pieces of the capture that queued or held events lie in (see the [module docs](self)).
#[cfg(feature = "std")]
pub fn convert_arriving<S: Sink>(
    source: &mut crate::open::Arriving,
    buffer: &mut Vec<u8>,
    sink: &mut S,
) -> Option<crate::push::Arrived<S::Error>> {
    let mut parser = tracecap_wtf::PushParser::new();
    let mut conv = Arriving::new(sink);
    let pumped = crate::push::pump(source, &mut parser, buffer, |item| conv.item(item));
    Some(match pumped {
        Ok(p) => Ok(conv.finish().map(|()| p)),
        Err(crate::push::PumpError::Io(e)) => Err(e),
        Err(crate::push::PumpError::Parse(e)) => Ok(conv.finish().and(Err(e.into()))),
        Err(crate::push::PumpError::Each(e)) => Ok(Err(e)),
    })
}

/// Where kept events are read again: the whole capture, or the pieces of an arriving one.
#[derive(Clone, Copy)]
enum Window<'a> {
    Whole(Capture<'a>),
    /// Pieces of the capture by absolute offset, each a chunk's body or legacy events in a row.
    Pieces(&'a BTreeMap<u64, Vec<u8>>, Container),
    /// No bytes: a parked conversion, between two batches of arriving events.
    Parked,
}

impl<'a> Window<'a> {
    fn event_at(
        &self,
        place: &EventPlace,
        def: Definition<'a>,
        zone: Option<u16>,
    ) -> Option<Event<'a>> {
        match *self {
            Window::Whole(capture) => capture.event_at(place, def, zone),
            Window::Pieces(pieces, container) => {
                let get = |at: u64, len: u64| {
                    let (&base, bytes) = pieces.range(..=at).next_back()?;
                    let start = usize::try_from(at - base).ok()?;
                    bytes.get(start..start.checked_add(usize::try_from(len).ok()?)?)
                };
                place.event_from(get, container, def, zone)
            }
            Window::Parked => None,
        }
    }
}

/// Legacy events gathered into one piece before they are converted, at most (a chunk is one
/// piece, however long).
const LEGACY_PIECE: usize = 64 << 10;
/// Bytes held in pieces above which they are cut down to what queued and held events are read
/// from (once they are also twice what was left after the last such cut).
const SWEEP_AT: usize = 1 << 20;

/// An event read from arriving bytes, waiting for its piece to be converted.
#[derive(Clone, Copy)]
struct Pending {
    place: EventPlace,
    def: u32,
    zone: Option<u16>,
}

/// A conversion fed the push parser's items: each chunk's body is copied when it arrives, its
/// events are converted once the chunk is over (legacy events: [`LEGACY_PIECE`] at a time), and
/// the bytes of a piece are kept while an event in it waits in a reorder queue or is held.
#[cfg(feature = "std")]
struct Arriving<'c, S: Sink> {
    /// The conversion between batches (without bytes); `None` before the header.
    st: Option<State<'c, 'static, S>>,
    sink: Option<&'c mut S>,
    container: Container,
    /// Pieces that queued or held events may lie in.
    pieces: BTreeMap<u64, Vec<u8>>,
    /// Bytes in `pieces`, and what was left after the last sweep.
    held: usize,
    swept: usize,
    /// The piece being read (the current chunk's body, or legacy events) and its offset.
    piece: Vec<u8>,
    base: u64,
    /// The events of `piece` read so far.
    batch: Vec<Pending>,
    /// Every definition met, with its name and signature: `State::defs` when a batch is
    /// converted.
    defs: Vec<(Definition<'static>, String, String)>,
    /// Wire id -> number of its latest definition.
    latest: BTreeMap<u16, u32>,
}

#[cfg(feature = "std")]
impl<'c, S: Sink> Arriving<'c, S> {
    fn new(sink: &'c mut S) -> Self {
        Arriving {
            st: None,
            sink: Some(sink),
            container: Container::Chunked,
            pieces: BTreeMap::new(),
            held: 0,
            swept: 0,
            piece: Vec::new(),
            base: 0,
            batch: Vec::new(),
            defs: Vec::new(),
            latest: BTreeMap::new(),
        }
    }

    fn item(&mut self, item: tracecap_wtf::PushItem<'_>) -> Written<S> {
        use tracecap_wtf::PushItem;
        match item {
            PushItem::Header(h) => {
                if let Some(sink) = self.sink.take() {
                    self.container = h.container;
                    self.st = Some(State::new(sink, &h, Window::Parked)?);
                }
            }
            PushItem::Chunk(c) => {
                self.convert_batch(false)?;
                self.base = c.body_offset();
                self.piece.extend_from_slice(c.body());
            }
            PushItem::Event(ev) => {
                if self.container == Container::Legacy {
                    let end = self.base.saturating_add(self.piece.len() as u64);
                    if !self.piece.is_empty() && end != ev.offset {
                        self.convert_batch(false)?;
                    }
                    if self.piece.is_empty() {
                        self.base = ev.offset;
                    }
                    self.piece
                        .extend_from_slice(&(ev.wire_id as u16).to_be_bytes());
                    self.piece.extend_from_slice(&ev.time.to_be_bytes());
                    self.piece.extend_from_slice(ev.arg_bytes());
                }
                let def = self.def_number(&ev.def);
                self.batch.push(Pending {
                    place: ev.place(),
                    def,
                    zone: ev.zone,
                });
                if self.container == Container::Legacy && self.piece.len() >= LEGACY_PIECE {
                    self.convert_batch(false)?;
                }
            }
            PushItem::Defined(_) => {}
        }
        Ok(())
    }

    /// The number of `def` among the definitions met, added when new (told apart by content:
    /// the parser's copies move).
    fn def_number(&mut self, def: &Definition<'_>) -> u32 {
        let same = |(d, name, signature): &(Definition<'static>, String, String)| {
            (d.wire_id, d.class, d.flags) == (def.wire_id, def.class, def.flags)
                && name == def.name
                && signature == def.signature
        };
        if let Some(&n) = self.latest.get(&def.wire_id) {
            if self.defs.get(n as usize).is_some_and(same) {
                return n;
            }
        }
        let n = self.defs.len() as u32;
        let bare = def.with_names("", "");
        self.defs
            .push((bare, def.name.to_string(), def.signature.to_string()));
        self.latest.insert(def.wire_id, n);
        n
    }

    /// Converts the events read from the current piece (and, when `last`, ends the
    /// conversion), then drops the pieces no waiting event lies in.
    fn convert_batch(&mut self, last: bool) -> Written<S> {
        let Some(parked) = self.st.take() else {
            return Ok(());
        };
        if !self.piece.is_empty() {
            let piece = core::mem::take(&mut self.piece);
            self.held += piece.len();
            if let Some(old) = self.pieces.insert(self.base, piece) {
                self.held -= old.len();
            }
        }
        let defs = self
            .defs
            .iter()
            .map(|(d, name, signature)| d.with_names(name, signature))
            .collect();
        let mut st = parked.rebind(Window::Pieces(&self.pieces, self.container), defs);
        let mut result = Ok(());
        for p in self.batch.drain(..) {
            let Some(&def) = st.defs.get(p.def as usize) else {
                continue;
            };
            let Some(ev) = st.window.event_at(&p.place, def, p.zone) else {
                continue;
            };
            if st.declaration(&ev) {
                continue;
            }
            result = st.kept(&ev, p.def);
            if result.is_err() {
                break;
            }
        }
        if last && result.is_ok() {
            result = st.finish();
        }
        let parked = st.rebind(Window::Parked, Vec::new());
        if self.held > SWEEP_AT.max(self.swept.saturating_mul(2)) {
            self.sweep(&parked);
        }
        self.st = Some(parked);
        result
    }

    /// Keeps, of the pieces, only the bytes that the events waiting in `st` are read from
    /// (each one's header and arguments, and its chunk's string table), copied into new pieces.
    fn sweep(&mut self, st: &State<'c, 'static, S>) {
        let mut spans: Vec<(u64, u64)> = st
            .zones
            .iter()
            .flat_map(|z| z.queue.iter().chain(z.held.iter().map(|h| &h.kept)))
            .flat_map(|k| k.place.spans(self.container))
            .filter(|&(_, len)| len > 0)
            .map(|(at, len)| (at, at.saturating_add(len)))
            .collect();
        spans.sort_unstable();
        let mut kept: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
        let mut held = 0usize;
        let mut spans = spans.into_iter().peekable();
        while let Some((start, mut end)) = spans.next() {
            // One run of bytes, as long as the spans overlap or touch within one piece.
            let Some((&base, bytes)) = self.pieces.range(..=start).next_back() else {
                continue;
            };
            let piece_end = base.saturating_add(bytes.len() as u64);
            while let Some(&(s, e)) = spans.peek() {
                if s > end || e > piece_end {
                    break;
                }
                end = end.max(e);
                spans.next();
            }
            let run = usize::try_from(start - base)
                .ok()
                .zip(usize::try_from(end.min(piece_end) - base).ok())
                .and_then(|(a, b)| bytes.get(a..b));
            if let Some(run) = run {
                held += run.len();
                kept.insert(start, run.to_vec());
            }
        }
        self.pieces = kept;
        self.held = held;
        self.swept = held;
    }

    /// Converts what is left and ends the conversion.
    fn finish(&mut self) -> Result<(), ConvertError<S::Error>> {
        self.convert_batch(true)
    }
}

/// Converts a WTF trace, driving `sink`.
pub fn convert<S: Sink>(data: &[u8], sink: &mut S) -> Result<(), ConvertError<S::Error>> {
    convert_with(data, sink).map(|_| ())
}

/// Why the walk of [`convert_with`] stopped: a fault of the capture (what came before it is
/// finished and written), or the conversion's own error (returned as it is).
enum Stopped<E> {
    Fault(tracecap_wtf::Error),
    Converting(ConvertError<E>),
}

impl<E> From<tracecap_wtf::Error> for Stopped<E> {
    fn from(e: tracecap_wtf::Error) -> Self {
        Stopped::Fault(e)
    }
}

/// What [`convert_with`] saw beyond the sink's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Events that went back in time within their zone and were clamped to its latest time (the
    /// loader would have sorted them; 0 on every corpus file).
    pub clamped: u64,
    /// Most events the reorder queues held at once.
    pub peak_queue: usize,
}

/// Like [`convert`], and tells how many events had to be clamped.
pub fn convert_with<S: Sink>(data: &[u8], sink: &mut S) -> Result<Report, ConvertError<S::Error>> {
    let trace = Capture::parse(data)?;
    let mut st = State::new(sink, trace.header(), Window::Whole(trace))?;
    let total = data.len() as u64;
    let mut n = 0u64;
    let walked = trace.events().try_for_each_event(|ev| {
        if n % 65536 == 0 {
            st.out.progress(ev.offset, total);
        }
        n += 1;
        st.event(ev).map_err(Stopped::Converting)
    });
    let fault = match walked {
        Ok(()) => None,
        Err(Stopped::Fault(e)) => Some(e),
        Err(Stopped::Converting(e)) => return Err(e),
    };
    st.finish()?;
    st.out.progress(total, total);
    match fault {
        Some(e) => Err(e.into()),
        None => Ok(Report {
            clamped: st.clamped,
            peak_queue: st.peak_queue,
        }),
    }
}

impl<'c, 'a, S: Sink> State<'c, 'a, S> {
    /// A conversion into `sink` of the capture with header `info`, reading kept events from
    /// `window`: the process track is declared.
    fn new(
        sink: &'c mut S,
        info: &tracecap_wtf::Header<'_>,
        window: Window<'a>,
    ) -> Result<Self, ConvertError<S::Error>> {
        let mut name = String::new();
        let _ = write!(
            name,
            "WTF trace ({} format {})",
            match info.container {
                Container::Chunked => "chunked",
                Container::Legacy => "legacy",
            },
            info.format_version
        );
        let mut out = Out::new(sink, PROCESS.0);
        out.track(None, TrackKind::Process { pid: 0 }, &name)?;
        Ok(State {
            out,
            window,
            defs: Vec::new(),
            def_numbers: Vec::new(),
            far_def_numbers: BTreeMap::new(),
            zones: Vec::new(),
            zone_index: BTreeMap::new(),
            last_zone: None,
            infos: BTreeMap::new(),
            ranges: BTreeMap::new(),
            reference: 0,
            strings: Vec::new(),
            next_strings: 0,
            args: ArgBuf::default(),
            label: String::new(),
            clamped: 0,
            queued: 0,
            peak_queue: 0,
        })
    }

    /// The same conversion reading kept events from `window`, with the definitions `defs`
    /// (numbered as before); what borrowed the former bytes is dropped.
    #[cfg(feature = "std")]
    fn rebind<'b>(self, window: Window<'b>, defs: Vec<Definition<'b>>) -> State<'c, 'b, S> {
        let State {
            out,
            window: _,
            defs: _,
            def_numbers,
            far_def_numbers,
            zones,
            zone_index,
            last_zone,
            infos,
            ranges,
            reference,
            strings: _,
            next_strings: _,
            args,
            label,
            clamped,
            queued,
            peak_queue,
        } = self;
        State {
            out,
            window,
            defs,
            def_numbers,
            far_def_numbers,
            zones,
            zone_index,
            last_zone,
            infos,
            ranges,
            reference,
            strings: Vec::new(),
            next_strings: 0,
            args: ArgBuf {
                names: Vec::new(),
                slots: args.slots,
                texts: args.texts,
                used: 0,
            },
            label,
            clamped,
            queued,
            peak_queue,
        }
    }

    /// Unwraps a 32-bit microsecond time to the window nearest the latest time seen, in ns.
    fn unwrap(&mut self, t: u32) -> u64 {
        let r = self.reference;
        let mut c = (r & !(WRAP - 1)) | u64::from(t);
        if c.saturating_add(HALF) < r {
            c = c.saturating_add(WRAP);
        } else if c > r.saturating_add(HALF) && c >= WRAP {
            c -= WRAP;
        }
        self.reference = r.max(c);
        c.saturating_mul(1000)
    }

    fn zone(&mut self, id: Option<u16>) -> usize {
        if let Some((last, i)) = self.last_zone {
            if last == id {
                return i;
            }
        }
        let i = self
            .zone_index
            .get(&id)
            .copied()
            .unwrap_or_else(|| self.new_zone(id));
        self.last_zone = Some((id, i));
        i
    }

    fn new_zone(&mut self, id: Option<u16>) -> usize {
        let i = self.zones.len();
        self.zones.push(ZoneState {
            id,
            track: None,
            tid: i as u64 + 1,
            stack: Vec::new(),
            held: Vec::new(),
            base: 0,
            last: 0,
            stopped: false,
            frames: None,
            frame_open: false,
            lanes: Vec::new(),
            queue: Reorder::new(),
            seen: 0,
        });
        self.zone_index.insert(id, i);
        i
    }

    /// The zone's thread track, declared on first use.
    /// Opens a slice on `track` with the arguments gathered in `self.args`, named `name`
    /// (numbered `name_id` when it is a definition's name).
    fn begin(
        &mut self,
        track: TrackId,
        ts: u64,
        name: &str,
        name_id: Option<NameId>,
    ) -> Written<S> {
        let out = &mut self.out;
        self.args.with_args(|args| {
            out.begin(&TEvent {
                name_id,
                ..TEvent::new(track, ts, name, CATEGORY, args)
            })
        })
    }

    fn thread(&mut self, z: usize) -> Result<TrackId, ConvertError<S::Error>> {
        let Some(zone) = self.zones.get(z) else {
            return Ok(PROCESS);
        };
        if let Some(t) = zone.track {
            return Ok(t);
        }
        let (id, tid) = (zone.id, zone.tid);
        let name: Cow<'_, str> = match id {
            None => Cow::Borrowed("Script"),
            Some(n) => match self.infos.get(&n).and_then(|i| i.as_deref()) {
                Some(b) => text_lossy(b),
                None => Cow::Owned(alloc::format!("zone {n}")),
            },
        };
        let track = self
            .out
            .track(Some(PROCESS), TrackKind::Thread { pid: 0, tid }, &name)?;
        if let Some(zone) = self.zones.get_mut(z) {
            zone.track = Some(track);
        }
        Ok(track)
    }

    fn child_track(&mut self, z: usize, what: &str) -> Result<TrackId, ConvertError<S::Error>> {
        let parent = self.thread(z)?;
        let tid = self.zones.get(z).map_or(0, |zone| zone.tid);
        let mut name = String::new();
        let _ = write!(name, "{what} (zone {tid})");
        self.out.track(Some(parent), TrackKind::Slices, &name)
    }

    fn event(&mut self, ev: Event<'a>) -> Written<S> {
        if self.declaration(&ev) {
            return Ok(());
        }
        let def = self.def_number(&ev.def);
        self.kept(&ev, def)
    }

    /// Whether `ev` only declares (a definition, a zone, the zone in force): nothing to write;
    /// a zone's name is kept for its track.
    fn declaration(&mut self, ev: &Event<'a>) -> bool {
        if ev.flags() & FLAG_BUILTIN == 0 {
            return false;
        }
        match ev.builtin() {
            Some(Builtin::EventDefine | Builtin::ZoneSet | Builtin::ZoneDelete) => true,
            Some(Builtin::ZoneCreate) => {
                if let Some(info) = ev.zone_create() {
                    self.infos.insert(info.id, info.name.map(<[u8]>::to_vec));
                }
                true
            }
            _ => false,
        }
    }

    /// An event that is not a definition or a zone's creation, whose definition is number
    /// `def`: into its zone's reorder queue.
    fn kept(&mut self, ev: &Event<'a>, def: u32) -> Written<S> {
        let z = self.zone(ev.zone);
        let ts = self.unwrap(ev.time);
        let kept = Kept {
            place: ev.place(),
            def,
            role: ev.scope_role(),
        };
        let Some(zone) = self.zones.get_mut(z) else {
            return Ok(());
        };
        zone.queue.push(ts, kept);
        zone.seen = zone.seen.max(ts);
        self.queued += 1;
        self.peak_queue = self.peak_queue.max(self.queued);
        self.release(z, false)
    }

    /// The number of `def` in `self.defs`, added when new.
    fn def_number(&mut self, def: &Definition<'a>) -> u32 {
        let wire = usize::from(def.wire_id);
        let known = match self.def_numbers.get(wire) {
            Some(&n) => Some(n),
            None => self.far_def_numbers.get(&def.wire_id).copied(),
        };
        if let Some(n) = known {
            if self.defs.get(n as usize).is_some_and(|d| same_def(d, def)) {
                return n;
            }
        }
        let n = self.defs.len() as u32;
        self.defs.push(*def);
        if wire < DIRECT_DEFS {
            if self.def_numbers.len() <= wire {
                self.def_numbers.resize(wire + 1, u32::MAX);
            }
            if let Some(slot) = self.def_numbers.get_mut(wire) {
                *slot = n;
            }
        } else {
            self.far_def_numbers.insert(def.wire_id, n);
        }
        n
    }

    /// A kept event of zone `z`, read again from the capture.
    fn event_of(&self, z: usize, kept: &Kept) -> Option<Event<'a>> {
        let def = *self.defs.get(kept.def as usize)?;
        let zone = self.zones.get(z)?.id;
        self.window.event_at(&kept.place, def, zone)
    }

    /// Passes a zone's events on in time order: those at least [`REORDER_WINDOW_NS`] older than
    /// the zone's latest time (all of them when `all`), or its oldest while the queues are full.
    fn release(&mut self, z: usize, all: bool) -> Written<S> {
        loop {
            let Some(zone) = self.zones.get_mut(z) else {
                return Ok(());
            };
            let full = self.queued >= REORDER_CAP;
            let ready = zone
                .queue
                .first_time()
                .is_some_and(|ts| all || full || ts.saturating_add(REORDER_WINDOW_NS) <= zone.seen);
            if !ready {
                return Ok(());
            }
            if let Some((ts, kept)) = zone.queue.pop() {
                self.queued -= 1;
                self.scope_event(z, kept, ts)?;
            }
        }
    }

    /// One event of a zone, in time order: the loader's scope stack.
    fn scope_event(&mut self, z: usize, kept: Kept, raw: u64) -> Written<S> {
        let Some(zone) = self.zones.get_mut(z) else {
            return Ok(());
        };
        if zone.stopped {
            return Ok(());
        }
        let ts = if raw < zone.last {
            self.clamped += 1;
            zone.last
        } else {
            raw
        };
        zone.last = ts;
        let role = kept.role;
        let holding = !zone.held.is_empty();
        match role {
            Role::Enter => {
                // At most `HOLD_LIMIT` events are held.
                let idx = zone.held.len() as u32;
                if !holding {
                    zone.base = zone.stack.len();
                }
                zone.held.push(Held {
                    kept,
                    ts,
                    target: None,
                    closes: false,
                });
                zone.stack.push(Open { held: Some(idx) });
                if zone.stack.len() >= MAX_DEPTH {
                    // The loader stops scoping the zone here.
                    zone.stopped = true;
                    return self.flush(z);
                }
            }
            Role::Leave => {
                let closed = zone.stack.pop();
                if !holding {
                    if closed.is_some() {
                        let track = self.thread(z)?;
                        self.out.end(track, ts)?;
                    }
                    return Ok(());
                }
                zone.held.push(Held {
                    kept,
                    ts,
                    target: None,
                    closes: closed.is_some(),
                });
                if zone.stack.len() <= zone.base {
                    return self.flush(z);
                }
            }
            Role::Append => {
                let target = zone.stack.last().and_then(|o| o.held);
                if !holding {
                    return self.emit_kept(z, &kept, ts);
                }
                zone.held.push(Held {
                    kept,
                    ts,
                    target,
                    closes: false,
                });
            }
            Role::Instance => {
                if !holding {
                    return self.emit_kept(z, &kept, ts);
                }
                zone.held.push(Held {
                    kept,
                    ts,
                    target: None,
                    closes: false,
                });
            }
        }
        if self
            .zones
            .get(z)
            .is_some_and(|zone| zone.held.len() >= HOLD_LIMIT)
        {
            self.flush(z)?;
        }
        Ok(())
    }

    /// Writes a zone's held events.
    fn flush(&mut self, z: usize) -> Written<S> {
        let Some(zone) = self.zones.get_mut(z) else {
            return Ok(());
        };
        let held = core::mem::take(&mut zone.held);
        for o in &mut zone.stack {
            o.held = None;
        }
        let mut result = Ok(());
        for (i, h) in held.iter().enumerate() {
            let r = match h.kept.role {
                Role::Enter => match self.event_of(z, &h.kept) {
                    Some(ev) => self.emit(z, &ev, h.kept.def, h.ts, Role::Enter, Some((i, &held))),
                    None => Ok(()),
                },
                Role::Leave if h.closes => match self.thread(z) {
                    Ok(track) => self.out.end(track, h.ts),
                    Err(e) => Err(e),
                },
                Role::Leave => Ok(()),
                // Merged into a scope written in this flush.
                Role::Append if h.target.is_some() => Ok(()),
                _ => self.emit_kept(z, &h.kept, h.ts),
            };
            if r.is_err() {
                result = r;
                break;
            }
        }
        // Give the buffer back, emptied, to keep its capacity.
        if let Some(zone) = self.zones.get_mut(z) {
            let mut held = held;
            held.clear();
            zone.held = held;
        }
        result
    }

    /// Writes a kept event that is not a held scope's enter.
    fn emit_kept(&mut self, z: usize, kept: &Kept, ts: u64) -> Written<S> {
        match self.event_of(z, kept) {
            Some(ev) => self.emit(z, &ev, kept.def, ts, kept.role, None),
            None => Ok(()),
        }
    }

    fn resolve(&mut self, ev: &Event<'a>, s: Str<'a>) -> Option<&'a [u8]> {
        match s {
            Str::Null => None,
            Str::Inline(b) => Some(b),
            Str::Ordinal(n) => self.string_index(ev.strings)?.resolve(n),
        }
    }

    /// The index of the string table `table`, built when it is not among the kept ones.
    fn string_index(&mut self, table: StringTable<'a>) -> Option<&StringIndex<'a>> {
        let known = self
            .strings
            .iter()
            .position(|i| i.table().offset() == table.offset());
        let at = match known {
            Some(at) => at,
            None if self.strings.len() < STRING_INDEXES => {
                self.strings.push(StringIndex::new(table));
                self.strings.len() - 1
            }
            None => {
                let at = self.next_strings % STRING_INDEXES;
                self.next_strings = at + 1;
                if let Some(slot) = self.strings.get_mut(at) {
                    *slot = StringIndex::new(table);
                }
                at
            }
        };
        self.strings.get(at)
    }

    /// A string argument as text (`None` for null).
    fn text_of(&mut self, ev: &Event<'a>, v: WValue<'a>) -> Option<Cow<'a, str>> {
        match v {
            WValue::Ascii(s) | WValue::Utf8(s) | WValue::Any(s) => {
                self.resolve(ev, s).map(text_lossy)
            }
            _ => None,
        }
    }

    /// Adds the event's arguments (skipping the first `skip`) to the argument buffer.
    fn add_args(&mut self, ev: &Event<'a>, skip: usize) {
        if !self.out.wants_args() {
            return;
        }
        for a in ev.args().skip(skip) {
            let Ok(a) = a else { break };
            self.add_value(ev, a.name, a.value);
        }
    }

    fn add_value(&mut self, ev: &Event<'a>, name: &'a str, v: WValue<'a>) {
        if !self.out.wants_args() {
            return;
        }
        let slot = match v {
            WValue::Bool(b) => Slot::Bool(b),
            WValue::Int8(x) => Slot::Int(i64::from(x)),
            WValue::Int16(x) => Slot::Int(i64::from(x)),
            WValue::Int32(x) => Slot::Int(i64::from(x)),
            WValue::Uint8(x) => Slot::Uint(u64::from(x)),
            WValue::Uint16(x) => Slot::Uint(u64::from(x)),
            WValue::Uint32(x) | WValue::FlowId(x) => Slot::Uint(u64::from(x)),
            WValue::Float32(f) => Slot::Double(f64::from(f)),
            // The loader shows time32 in milliseconds.
            WValue::Time32(t) => Slot::Double(f64::from(t) / 1000.0),
            WValue::Char(c) => {
                let mut b = [0u8; 4];
                let s: &str = char::from(c).encode_utf8(&mut b);
                self.args.push_text(name, s);
                return;
            }
            WValue::WChar(u) => {
                let c = char::decode_utf16([u])
                    .next()
                    .and_then(Result::ok)
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut b = [0u8; 4];
                self.args.push_text(name, c.encode_utf8(&mut b));
                return;
            }
            WValue::Ascii(_) | WValue::Utf8(_) | WValue::Any(_) => {
                let t = self.text_of(ev, v);
                self.args.push_text(name, t.as_deref().unwrap_or("null"));
                return;
            }
            WValue::Array(a) => {
                self.add_array(name, &a);
                return;
            }
        };
        self.args.names.push(name);
        self.args.slots.push(slot);
    }

    fn add_array(&mut self, name: &'a str, a: &Array<'a>) {
        use tracecap_wtf::ArgType;
        let Some(data) = a.data else {
            self.args.push_text(name, "null");
            return;
        };
        match a.ty {
            ArgType::CharArray => {
                let s = latin1(data.get(..MAX_TEXT).unwrap_or(data));
                self.args.push_text(name, &s);
            }
            ArgType::WCharArray => {
                let units: Vec<u16> = a
                    .iter()
                    .take(MAX_TEXT)
                    .map(|e| match e {
                        Elem::Int(i) => i as u16,
                        Elem::Float(_) => 0xFFFD,
                    })
                    .collect();
                let s: String = char::decode_utf16(units)
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect();
                self.args.push_text(name, &s);
            }
            _ => {
                let Some((i, t)) = self.args.text() else {
                    return;
                };
                t.push('[');
                let n = a.len();
                for (k, e) in a.iter().enumerate() {
                    if t.len() > MAX_TEXT {
                        let _ = write!(t, "... ({n} elements)");
                        break;
                    }
                    if k > 0 {
                        t.push_str(", ");
                    }
                    let _ = match e {
                        Elem::Int(i) => write!(t, "{i}"),
                        Elem::Float(f) => write!(t, "{f}"),
                    };
                }
                t.push(']');
                self.args.names.push(name);
                self.args.slots.push(Slot::Text(i));
            }
        }
    }

    /// Writes one event (`scope`: its index among the held events, for merging appended data).
    fn emit(
        &mut self,
        z: usize,
        ev: &Event<'a>,
        def: u32,
        ts: u64,
        role: Role,
        scope: Option<(usize, &[Held])>,
    ) -> Written<S> {
        self.args.clear();
        self.label.clear();
        let builtin = ev.builtin();
        // Name: renamed built-ins take their `name` argument.
        let renamed = matches!(
            builtin,
            Some(Builtin::ScopeEnter | Builtin::TimeStamp | Builtin::Mark)
        );
        // The definition's name is numbered by the definition's number (the same number always
        // comes with the same definition); a name taken from an argument is not numbered.
        let mut name: Cow<'a, str> = Cow::Borrowed(ev.name());
        let mut name_id = Some(NameId(def));
        if renamed {
            if let Some(n) = ev.arg(0).and_then(|v| self.text_of(ev, v)) {
                name = n;
                name_id = None;
            }
        }
        match (role, builtin) {
            (Role::Enter, _) => {
                self.add_args(ev, usize::from(renamed));
                if let Some((i, held)) = scope.filter(|_| self.out.wants_args()) {
                    for h in appends_to(held, i) {
                        let Some(append) = self.event_of(z, &h.kept) else {
                            continue;
                        };
                        if append.builtin() == Some(Builtin::ScopeAppendData) {
                            // {name: value}
                            let key = append.arg(0).and_then(|v| self.text_of(&append, v));
                            let value = append.arg(1);
                            if let (Some(key), Some(value)) = (key, value) {
                                let key: &'a str = match key {
                                    Cow::Borrowed(k) => k,
                                    Cow::Owned(_) => "appended",
                                };
                                self.add_value(&append, key, value);
                            }
                        } else {
                            self.add_args(&append, 0);
                        }
                    }
                }
                let track = self.thread(z)?;
                self.begin(track, ts, &name, name_id)
            }
            (_, Some(Builtin::TimeRangeBegin | Builtin::TimeRangeEnd))
                if ev.flags() & FLAG_BUILTIN != 0 =>
            {
                self.time_range(z, ev, ts, builtin == Some(Builtin::TimeRangeBegin))
            }
            (_, Some(Builtin::FrameStart | Builtin::FrameEnd)) => {
                self.frame(z, ev, ts, builtin == Some(Builtin::FrameStart))
            }
            _ => {
                let flow;
                let mut flows: &[Flow] = &[];
                let is_builtin = ev.flags() & FLAG_BUILTIN != 0;
                match builtin {
                    Some(
                        b @ (Builtin::FlowBranch | Builtin::FlowExtend | Builtin::FlowTerminate),
                    ) if is_builtin => {
                        let id = ev.arg(0).and_then(|v| v.as_u32()).unwrap_or(0);
                        if b != Builtin::FlowTerminate {
                            let arg = if b == Builtin::FlowBranch { 2 } else { 1 };
                            if let Some(n) = ev.arg(arg).and_then(|v| self.text_of(ev, v)) {
                                if !n.is_empty() {
                                    name = n;
                                    name_id = None;
                                }
                            }
                        }
                        if id != 0 {
                            flow = [Flow {
                                id: u64::from(id),
                                terminating: b == Builtin::FlowTerminate,
                            }];
                            flows = &flow;
                        }
                        self.add_args(ev, 0);
                    }
                    _ => self.add_args(ev, usize::from(renamed)),
                }
                let track = self.thread(z)?;
                let out = &mut self.out;
                self.args.with_args(|args| {
                    out.instant(&TEvent {
                        track,
                        ts,
                        name: &name,
                        name_id,
                        category: CATEGORY,
                        args,
                        flows,
                    })
                })
            }
        }
    }

    fn time_range(&mut self, z: usize, ev: &Event<'a>, ts: u64, begin: bool) -> Written<S> {
        let id = ev.arg(0).and_then(|v| v.as_u32()).unwrap_or(0);
        // An end, or a begin reusing an open id, closes the open range of that id.
        if let Some((rz, lane)) = self.ranges.remove(&id) {
            if let Some(l) = self.zones.get_mut(rz).and_then(|zz| zz.lanes.get_mut(lane)) {
                let end = ts.max(l.last);
                l.busy = false;
                l.last = end;
                let track = l.id;
                self.out.end(track, end)?;
            }
        }
        if !begin {
            return Ok(());
        }
        let free = self
            .zones
            .get(z)
            .and_then(|zone| zone.lanes.iter().position(|l| !l.busy && l.last <= ts));
        let lane = match free {
            Some(l) => l,
            None => {
                let track = self.child_track(z, "time ranges")?;
                let Some(zone) = self.zones.get_mut(z) else {
                    return Ok(());
                };
                zone.lanes.push(Lane {
                    id: track,
                    busy: false,
                    last: 0,
                });
                zone.lanes.len() - 1
            }
        };
        let Some(l) = self
            .zones
            .get_mut(z)
            .and_then(|zone| zone.lanes.get_mut(lane))
        else {
            return Ok(());
        };
        l.busy = true;
        l.last = ts;
        let track = l.id;
        self.ranges.insert(id, (z, lane));
        let name = match ev.arg(1).and_then(|v| self.text_of(ev, v)) {
            Some(n) if !n.is_empty() => n,
            _ => Cow::Borrowed(ev.name()),
        };
        self.args.clear();
        self.add_args(ev, 0);
        self.begin(track, ts, &name, None)
    }

    fn frame(&mut self, z: usize, ev: &Event<'a>, ts: u64, start: bool) -> Written<S> {
        let track = match self.zones.get(z).and_then(|zone| zone.frames) {
            Some(t) => t,
            None => {
                if !start {
                    return Ok(()); // an end without any start: nothing to close
                }
                let t = self.child_track(z, "frames")?;
                if let Some(zone) = self.zones.get_mut(z) {
                    zone.frames = Some(t);
                }
                t
            }
        };
        let Some(zone) = self.zones.get_mut(z) else {
            return Ok(());
        };
        // A start while a frame is open ends that frame first.
        if zone.frame_open {
            zone.frame_open = false;
            self.out.end(track, ts)?;
        }
        if !start {
            return Ok(());
        }
        if let Some(zone) = self.zones.get_mut(z) {
            zone.frame_open = true;
        }
        let number = ev.arg(0).and_then(|v| v.as_u32()).unwrap_or(0);
        let mut name = String::new();
        let _ = write!(name, "frame {number}");
        let args = [Arg {
            name: "number",
            value: Value::Uint(u64::from(number)),
        }];
        self.out
            .begin(&TEvent::new(track, ts, &name, CATEGORY, &args))
    }

    /// Writes what is held and closes every open slice at its zone's latest time.
    fn finish(&mut self) -> Written<S> {
        for z in 0..self.zones.len() {
            self.release(z, true)?;
            self.flush(z)?;
            let Some(zone) = self.zones.get_mut(z) else {
                continue;
            };
            let last = zone.last;
            let open = core::mem::take(&mut zone.stack).len();
            let frame = zone.frame_open.then_some(zone.frames).flatten();
            zone.frame_open = false;
            if open > 0 {
                let track = self.thread(z)?;
                for _ in 0..open {
                    self.out.end(track, last)?;
                }
            }
            if let Some(track) = frame {
                self.out.end(track, last)?;
            }
        }
        let ranges = core::mem::take(&mut self.ranges);
        for (_, (z, lane)) in ranges {
            let Some(zone) = self.zones.get_mut(z) else {
                continue;
            };
            let last = zone.last;
            if let Some(l) = zone.lanes.get_mut(lane) {
                let end = last.max(l.last);
                l.busy = false;
                l.last = end;
                let track = l.id;
                self.out.end(track, end)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_events_are_small() {
        // The sizes docs/conversion.md gives for the queues and the held events.
        assert_eq!(core::mem::size_of::<(u64, Kept)>(), 48);
        assert_eq!(core::mem::size_of::<Held>(), 64);
    }

    #[test]
    fn cut_keeps_char_boundaries() {
        let mut s = String::new();
        let long = "é".repeat(MAX_TEXT);
        cut_into(&mut s, &long);
        assert!(s.ends_with(&alloc::format!("... ({} bytes)", long.len())));
    }
}
