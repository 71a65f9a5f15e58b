//! The timeline: what every format adapter says about a capture, and what every exporter hears.
//!
//! An adapter walks a capture once and calls a [`Sink`] as it goes: first a [`Track`] declaration
//! for each process, thread, counter or other track (before the track's first event), then slices,
//! instants and counter samples on those tracks. Exporters implement [`Sink`] and write as they
//! are called, so a conversion holds no more than the adapter's own bounded state.
//!
//! The contract an adapter keeps, so that every exporter can stream:
//! - a track is declared once, before its first event, and its parent is declared before it;
//! - on one track, [`Sink::begin`] / [`Sink::end`] pairs are properly nested and come in time order
//!   (every `end` closes the most recent open slice of that track, at a time not before its begin);
//! - [`Sink::complete`] is used only for slices that have no children in the stream (leaves), so an
//!   exporter may write it as a begin immediately followed by an end;
//! - times are nanoseconds on the capture's own clock;
//! - a [`NameId`] always comes with the same name within one conversion;
//! - a call stack is declared once ([`Sink::stack`]), before the first [`Sink::stack_sample`]
//!   that names it, and a [`StackId`] always stands for the same frames within one conversion.

/// A track, named by the adapter: unique within one conversion, never 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TrackId(pub u64);

/// What a track is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackKind {
    /// A process (its slices, if any, are process-wide).
    Process {
        /// Process id.
        pid: u64,
    },
    /// A thread of a process (the parent track must be that process).
    Thread {
        /// Process id.
        pid: u64,
        /// Thread id.
        tid: u64,
    },
    /// A counter: carries [`Sink::counter`] samples only.
    Counter,
    /// Any other track of slices and instants (per-CPU, context switches, async, global markers).
    /// Without a parent it is global.
    Slices,
}

/// The end of the name of a [`TrackKind::Slices`] track under a thread that holds the thread's
/// states (running, runnable, sleeping, ...) rather than calls: flame graphs of calls leave its
/// slices out.
pub const THREAD_STATES_SUFFIX: &str = " state";

/// A track declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Track<'s> {
    /// Its id.
    pub id: TrackId,
    /// The track it belongs to (a thread's process, a counter's thread, ...), if any.
    pub parent: Option<TrackId>,
    /// What it is.
    pub kind: TrackKind,
    /// Display name (may be empty for threads and processes without a name).
    pub name: &'s str,
}

/// The value of an event argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'s> {
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    Uint(u64),
    /// A floating-point number (exporters write non-finite ones as strings).
    Double(f64),
    /// Text.
    Str(&'s str),
}

/// A named argument of an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arg<'s> {
    /// Name.
    pub name: &'s str,
    /// Value.
    pub value: Value<'s>,
}

/// A flow arrow end attached to a slice or instant: events sharing an `id` are linked in time order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    /// Flow id, unique within one conversion.
    pub id: u64,
    /// True on the last event of the flow.
    pub terminating: bool,
}

/// The number of an event's name among the names an adapter takes from a fixed set (a
/// descriptor, a function signature, a system call number). Within one conversion, the same
/// number always comes with the same name, so a sink can find what it made of a name by its
/// number, without hashing the text. Numbers are the adapter's own and may be sparse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

impl NameId {
    /// Numbers below this one are worth a slot in a sink's table indexed by number; a sink looks
    /// larger ones up by text.
    pub const DENSE: u32 = 1 << 16;

    /// The number as an index into a table indexed by number, when it is below
    /// [`NameId::DENSE`].
    #[inline]
    pub fn dense(self) -> Option<usize> {
        (self.0 < Self::DENSE).then_some(self.0 as usize)
    }
}

/// What a sink made of each numbered name (an iid, a dictionary key), found by its [`NameId`].
/// Numbers from [`NameId::DENSE`] up, and names without a number, are not kept: the sink finds
/// those by their text.
///
/// ```
/// use tracecap::timeline::{ByNameId, NameId};
///
/// let mut keys = ByNameId::default();
/// keys.insert(Some(NameId(3)), 7u32);
/// keys.insert(Some(NameId(NameId::DENSE)), 8);
/// keys.insert(None, 9);
/// assert_eq!(keys.get(Some(NameId(3))), Some(7));
/// assert_eq!(keys.get(Some(NameId(2))), None);
/// assert_eq!(keys.get(Some(NameId(NameId::DENSE))), None);
/// assert_eq!(keys.get(None), None);
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub struct ByNameId<T> {
    slots: alloc::vec::Vec<Option<T>>,
}

#[cfg(feature = "alloc")]
impl<T> Default for ByNameId<T> {
    fn default() -> Self {
        ByNameId {
            slots: alloc::vec::Vec::new(),
        }
    }
}

#[cfg(feature = "alloc")]
impl<T: Copy> ByNameId<T> {
    /// What was kept for `id`, if anything.
    #[inline]
    pub fn get(&self, id: Option<NameId>) -> Option<T> {
        self.slots.get(id?.dense()?).copied().flatten()
    }

    /// Keeps `value` for `id` (nothing for `None` or a number past [`NameId::DENSE`]).
    #[inline]
    pub fn insert(&mut self, id: Option<NameId>, value: T) {
        let Some(i) = id.and_then(NameId::dense) else {
            return;
        };
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = Some(value);
        }
    }

    /// Forgets every number (the memory stays for the next use).
    pub fn clear(&mut self) {
        self.slots.clear();
    }
}

/// A slice start or an instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event<'s> {
    /// Where.
    pub track: TrackId,
    /// When, in nanoseconds.
    pub ts: u64,
    /// Name.
    pub name: &'s str,
    /// The name's number, when the adapter takes it from a fixed set (else `None`).
    pub name_id: Option<NameId>,
    /// Category (a short word such as the format name).
    pub category: &'s str,
    /// Arguments.
    pub args: &'s [Arg<'s>],
    /// Flow ends attached to this event.
    pub flows: &'s [Flow],
}

impl<'s> Event<'s> {
    /// An event without flow ends.
    #[inline]
    pub fn new(
        track: TrackId,
        ts: u64,
        name: &'s str,
        category: &'s str,
        args: &'s [Arg<'s>],
    ) -> Self {
        Event {
            track,
            ts,
            name,
            name_id: None,
            category,
            args,
            flows: &[],
        }
    }

    /// The event, its name numbered `id` among the adapter's fixed names (see [`NameId`]).
    #[inline]
    pub fn named(self, id: NameId) -> Self {
        Event {
            name_id: Some(id),
            ..self
        }
    }
}

/// A counter sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CounterValue {
    /// Integer sample.
    Int(i64),
    /// Floating-point sample (adapters only send finite ones).
    Double(f64),
}

/// A call stack, numbered by the adapter when it declares it ([`Sink::stack`]): within one
/// conversion the same number always stands for the same frames. Numbers are the adapter's own
/// and may be sparse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackId(pub u64);

/// One frame of a call stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'s> {
    /// The function: its name where the capture gives one (as written, mangled or not), else
    /// `module+0xoffset`, else the address in lowercase hex (`0x7f12ab`).
    pub function: &'s str,
    /// The module (library or executable path) the frame is in; empty when unknown.
    pub module: &'s str,
    /// The source file; empty when unknown.
    pub file: &'s str,
    /// The source line, when known.
    pub line: Option<u32>,
    /// The program counter, when known.
    pub address: Option<u64>,
}

/// What a stack sample is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackKind {
    /// A stack sampled by a profiler.
    Sample,
    /// The backtrace of a call (the call is named by [`StackSample::call`]).
    Call,
}

impl StackKind {
    /// `sample` or `call`.
    pub fn name(self) -> &'static str {
        match self {
            StackKind::Sample => "sample",
            StackKind::Call => "call",
        }
    }
}

/// A call stack seen on a track at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackSample<'s> {
    /// Where (a thread's track, as a rule).
    pub track: TrackId,
    /// When, in nanoseconds.
    pub ts: u64,
    /// The stack, declared before by [`Sink::stack`].
    pub stack: StackId,
    /// How much it counts (1 for one sample).
    pub weight: u64,
    /// A sampled stack or a call's backtrace.
    pub kind: StackKind,
    /// With [`StackKind::Call`], the call's name (the frame inside the stack's innermost one).
    pub call: Option<&'s str>,
}

/// Receives a capture's timeline as an adapter walks it (see the module docs for the contract).
pub trait Sink {
    /// What can go wrong while writing.
    type Error;

    /// Declares a track.
    fn track(&mut self, track: &Track<'_>) -> Result<(), Self::Error>;

    /// Opens a slice on `event.track`.
    fn begin(&mut self, event: &Event<'_>) -> Result<(), Self::Error>;

    /// Closes the most recent open slice of `track` at `ts`.
    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), Self::Error>;

    /// A slice of known duration without children in the stream.
    fn complete(&mut self, event: &Event<'_>, dur: u64) -> Result<(), Self::Error>;

    /// An instant.
    fn instant(&mut self, event: &Event<'_>) -> Result<(), Self::Error>;

    /// A counter sample on a [`TrackKind::Counter`] track.
    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> Result<(), Self::Error>;

    /// How far the adapter is: `done` of `total` input bytes. Called now and then; ignore it freely.
    fn progress(&mut self, done: u64, total: u64) {
        let _ = (done, total);
    }

    /// What the sink reads of the timeline. An adapter skips the calls of the kinds it does not
    /// read, and may skip the work of making them; without [`Wants::args`] it may pass events
    /// with fewer arguments, or none, and skip decoding and rendering them. The tracks, and the
    /// names, categories, times and flows of the events it does send, are the same either way.
    /// Asked once, before the first call.
    fn wants(&self) -> Wants {
        Wants::ALL
    }

    /// Declares the call stack `id`: its frames, innermost first. Called once per stack, before
    /// the first sample of it, and only when [`Sink::wants_stacks`] says so. Ignored unless a
    /// sink implements it.
    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Result<(), Self::Error> {
        let _ = (id, frames);
        Ok(())
    }

    /// A call stack seen on a track ([`StackSample`]), only when [`Sink::wants_stacks`] says
    /// so. Ignored unless a sink implements it.
    fn stack_sample(&mut self, sample: &StackSample<'_>) -> Result<(), Self::Error> {
        let _ = sample;
        Ok(())
    }

    /// Whether the sink reads call stacks ([`Sink::stack`], [`Sink::stack_sample`]): an adapter
    /// resolves and sends stacks only when it does. Asked once, before the first call.
    fn wants_stacks(&self) -> bool {
        false
    }
}

/// What a sink reads of the timeline ([`Sink::wants`]). Tracks are always declared.
///
/// ```
/// use tracecap::timeline::Wants;
///
/// let slices_only = Wants { slices: true, ..Wants::NOTHING };
/// assert!(!slices_only.args && !slices_only.instants);
/// assert_eq!(Wants::ALL.without_args(), Wants { args: false, ..Wants::ALL });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wants {
    /// Slices: [`Sink::begin`], [`Sink::end`] and [`Sink::complete`].
    pub slices: bool,
    /// Instants: [`Sink::instant`].
    pub instants: bool,
    /// Counter samples: [`Sink::counter`].
    pub counters: bool,
    /// The arguments of the events sent ([`Event::args`]).
    pub args: bool,
}

impl Wants {
    /// Every event, with its arguments.
    pub const ALL: Wants = Wants {
        slices: true,
        instants: true,
        counters: true,
        args: true,
    };

    /// No event (tracks only).
    pub const NOTHING: Wants = Wants {
        slices: false,
        instants: false,
        counters: false,
        args: false,
    };

    /// The same events, without their arguments.
    #[must_use]
    pub const fn without_args(self) -> Wants {
        Wants {
            args: false,
            ..self
        }
    }
}

/// A sink that keeps nothing: for a walk that only counts (the `Stats` that `tracecap::convert`
/// returns) or only checks that a capture converts to its end.
///
/// ```
/// # #[cfg(all(feature = "std", feature = "easyprofiler"))]
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample_small.prof");
/// use tracecap::timeline::Discard;
///
/// let input = tracecap::open(path)?;
/// let format = tracecap::detect(&input).ok_or("unknown format")?;
/// let stats = tracecap::convert(format, &input, Discard)?;
/// assert!(stats.slices > 0);
/// # Ok(())
/// # }
/// # #[cfg(not(all(feature = "std", feature = "easyprofiler")))]
/// # fn main() {}
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Discard;

impl Sink for Discard {
    type Error = core::convert::Infallible;

    fn track(&mut self, _: &Track<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn begin(&mut self, _: &Event<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn end(&mut self, _: TrackId, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn complete(&mut self, _: &Event<'_>, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn instant(&mut self, _: &Event<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn counter(&mut self, _: TrackId, _: u64, _: CounterValue) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Every event, so that the counts of a walk are a conversion's; no arguments.
    fn wants(&self) -> Wants {
        Wants::ALL.without_args()
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    type Error = S::Error;

    fn track(&mut self, track: &Track<'_>) -> Result<(), Self::Error> {
        (**self).track(track)
    }
    fn begin(&mut self, event: &Event<'_>) -> Result<(), Self::Error> {
        (**self).begin(event)
    }
    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), Self::Error> {
        (**self).end(track, ts)
    }
    fn complete(&mut self, event: &Event<'_>, dur: u64) -> Result<(), Self::Error> {
        (**self).complete(event, dur)
    }
    fn instant(&mut self, event: &Event<'_>) -> Result<(), Self::Error> {
        (**self).instant(event)
    }
    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> Result<(), Self::Error> {
        (**self).counter(track, ts, value)
    }
    fn progress(&mut self, done: u64, total: u64) {
        (**self).progress(done, total)
    }
    fn wants(&self) -> Wants {
        (**self).wants()
    }
    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Result<(), Self::Error> {
        (**self).stack(id, frames)
    }
    fn stack_sample(&mut self, sample: &StackSample<'_>) -> Result<(), Self::Error> {
        (**self).stack_sample(sample)
    }
    fn wants_stacks(&self) -> bool {
        (**self).wants_stacks()
    }
}
