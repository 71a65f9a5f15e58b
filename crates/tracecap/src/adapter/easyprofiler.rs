//! EasyProfiler `.prof` -> timeline.
//!
//! | capture | timeline |
//! |---|---|
//! | the capture (pid from the header) | one process track |
//! | thread | thread track (its name, or `thread <id>`) |
//! | block | slice on its thread, named by the run-time name or the descriptor; args `file`, `line`, `color` (and `descriptor` for run-time names) |
//! | event | instant on its thread, same name and args |
//! | scalar numeric value | sample on a counter track per (thread, descriptor) |
//! | array or string value | instant on its thread with `value`, `type`, `value_id` args |
//! | context switch | slice on a `<thread> context switches` track, named by the task switched in |
//! | bookmark | global instant on a `Bookmarks` track |
//!
//! Times are converted to nanoseconds exactly as the format defines ([`Header::to_ns`]).
//!
//! Blocks are stored children-first, so a thread is handled in three passes, of which only the
//! first reads all its records: the crate's nesting walk ([`Thread::nest`]) reads each (borrowed)
//! record once, through the crate's fast walk, and rebuilds the tree as upstream does, keeping
//! each record's times (and, on a fault, the tree of the records before it); for each record the
//! pass keeps its key (its descriptor id, or its offset when it is a value or has a run-time
//! name); the second goes through the indices and puts each record's index at its pre-order
//! position (the first record of its subtree plus its depth); the third goes through the
//! positions in order and emits slices as begin/end pairs, each clamped into its parent so that
//! a track is always properly nested, reading only values and run-time-named blocks from the
//! file again. Scratch is 36 bytes per record of the *largest
//! thread* (24 for the nesting, 8 for the keys, 4 for the positions), reused from thread to thread
//! (the nesting's and the keys' arrays are not cleared between threads: every element is written
//! before it is read); up to 16 MiB per array it is on the heap, beyond that in a temporary file
//! mapped into memory, so the heap stays bounded whatever the capture's size. Everything else is
//! sized by descriptors, threads and nesting depth. When the sink reads no arguments, none are
//! built.
//!
//! A capture whose bytes arrive (a pipe, a followed file) is converted a thread at a time
//! ([`convert_arriving`] over [`by_thread`]): the header, the descriptors and the bookmarks as
//! they arrive, each thread once all its records have, through the same per-thread conversion.
//! No record's depth is known before its thread's last record (a parent follows its children),
//! so the bound is one thread: the bytes of the thread being read and one piece are held, with
//! the scratch above for that thread, its state (counter tracks, open slices) and the
//! descriptors; nothing of the threads already converted. A thread larger than the memory
//! available is an error that names its offset.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use tracecap_easyprofiler::{
    Bookmark, Capture, DataType, Descriptor, DescriptorKind, Element, Error as EpError, Header,
    KindTable, NestSlot, Record, Thread, Value as EpValue,
};
#[cfg(feature = "std")]
use tracecap_easyprofiler::{Item, PushItem, PushParser, Pushed, SharedKind, Version};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::out::Out;
use super::scratch::{Scratch, HEAP_BUDGET};
use super::text::{push_lossy, text};
use crate::error::ConvertError;
use crate::timeline::{Arg, CounterValue, Event, NameId, Sink, TrackId, TrackKind, Value};

const CATEGORY: &str = "easyprofiler";
const PROCESS: TrackId = TrackId(1);
const BOOKMARKS: TrackId = TrackId(2);

/// A descriptor, with its strings decoded once.
struct Desc<'a> {
    name: Cow<'a, str>,
    file: Cow<'a, str>,
    line: i32,
    color: String,
}

/// What emission needs of a record besides its times and depth (which it finds in the nesting):
/// with [`Key::DESCRIBED`] set, a block or event named by its descriptor, or a value no one reads
/// ([`Key::VALUE`]), the descriptor id in the low 32 bits and flags above it; otherwise the
/// absolute offset of a record to read again (a value someone reads, or a block with a run-time
/// name). Offsets are below 2^63: they index a slice.
/// Plain bytes, so that the keys of a huge thread can live in a scratch file.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(transparent)]
struct Key(u64);

impl Key {
    const DESCRIBED: u64 = 1 << 63;
    const EVENT: u64 = 1 << 32;
    /// With [`Key::DESCRIBED`]: a value whose content no one reads (see [`Key::of`]).
    const VALUE: u64 = 1 << 33;
    /// With [`Key::VALUE`]: the value is a counter sample ([`counter_value`] gives one).
    const COUNTER: u64 = 1 << 34;

    /// The key of `record`. With `values_read` false (the sink reads neither counter samples
    /// nor instants), a value is keyed by its descriptor id and whether it is a counter sample,
    /// which is all emission needs of it then (the counter's track is declared at its first
    /// sample), so it is not read again.
    fn of(record: &Record<'_>, values_read: bool) -> Key {
        match record {
            Record::Block(b) if b.name.is_empty() => {
                let event = if b.is_event() { Key::EVENT } else { 0 };
                Key(Key::DESCRIBED | event | u64::from(b.id))
            }
            Record::Value(v) if !values_read => {
                let counter = if counter_value(v).is_some() {
                    Key::COUNTER
                } else {
                    0
                };
                Key(Key::DESCRIBED | Key::VALUE | counter | u64::from(v.id))
            }
            _ => Key(record.offset()),
        }
    }
}

/// A pre-order position no record took (none should stay so; see pass 2).
const UNUSED: u32 = u32::MAX;

/// An open node while emitting in pre-order.
#[derive(Clone, Copy)]
struct Open {
    begin: u64,
    end: u64,
    slice: bool,
}

/// Per-thread scratch, reused from thread to thread.
struct ThreadScratch {
    /// Nesting rebuild: 24 bytes per record.
    slots: Scratch<NestSlot>,
    /// Each record's key, in file order: 8 bytes per record.
    keys: Scratch<Key>,
    /// The index of the record at each pre-order position: 4 bytes per record.
    order: Scratch<u32>,
    open: Vec<Open>,
    text: String,
    label: String,
}

struct Ctx<'c, 'a, S: Sink> {
    out: Out<'c, S>,
    header: Header,
    descs: Vec<Desc<'a>>,
    /// The capture's size, for progress (when arriving: the end of what was read so far).
    total: u64,
    /// Whether the bookmarks' track is declared.
    bookmarks: bool,
}

impl<'a> Desc<'a> {
    fn of(d: &Descriptor<'a>) -> Self {
        let mut color = String::new();
        let _ = write!(color, "#{:08x}", d.color);
        Desc {
            name: lossy(d.name),
            file: lossy(d.file),
            line: d.line,
            color,
        }
    }

    /// The descriptor with its strings copied, for a conversion whose bytes do not stay.
    #[cfg(feature = "std")]
    fn owned(self) -> Desc<'static> {
        Desc {
            name: Cow::Owned(self.name.into_owned()),
            file: Cow::Owned(self.file.into_owned()),
            line: self.line,
            color: self.color,
        }
    }
}

impl ThreadScratch {
    fn new(budget: usize) -> Self {
        ThreadScratch {
            slots: Scratch::new(budget),
            keys: Scratch::new(budget),
            order: Scratch::new(budget),
            open: Vec::new(),
            text: String::new(),
            label: String::new(),
        }
    }
}

fn lossy(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// Whether [`convert_arriving`] converts as the bytes arrive (it does, a thread at a time).
pub const CONVERTS_ARRIVING: bool = true;

/// Converts a capture whose bytes arrive from `source` into `sink` as they come: the header and
/// descriptors as they arrive, each thread once all its records have (see [`by_thread`]: the
/// bytes of one thread are held), each bookmark as it arrives. The output is that of
/// [`convert`] on the same bytes, up to and including a fault.
#[cfg(feature = "std")]
pub fn convert_arriving<S: Sink>(
    source: &mut crate::open::Arriving,
    buffer: &mut Vec<u8>,
    sink: &mut S,
) -> Option<crate::push::Arrived<S::Error>> {
    use crate::push::PumpError;
    let mut converter = Converter {
        sink: Some(sink),
        header: None,
        descs: Vec::new(),
        ctx: None,
        scratch: ThreadScratch::new(HEAP_BUDGET),
    };
    let feed = crate::push::Feed::Arriving(source, buffer);
    let converted = by_thread(feed, |part| converter.part(part));
    Some(match converted {
        Ok(pumped) => {
            if let Some(ctx) = converter.ctx.as_mut() {
                ctx.out.progress(pumped.read, pumped.read);
            }
            Ok(Ok(pumped))
        }
        Err(PumpError::Io(e)) => Err(e),
        Err(PumpError::Parse(e)) => Ok(Err(e.into())),
        Err(PumpError::Each(e)) => Ok(Err(e)),
    })
}

/// [`convert_arriving`]'s state between the parts of [`by_thread`].
#[cfg(feature = "std")]
struct Converter<'c, S: Sink> {
    /// The sink, until the descriptors are read and the conversion starts.
    sink: Option<&'c mut S>,
    header: Option<Header>,
    /// The descriptors read, until the conversion starts.
    descs: Vec<Desc<'static>>,
    ctx: Option<Ctx<'c, 'static, S>>,
    scratch: ThreadScratch,
}

#[cfg(feature = "std")]
impl<S: Sink> Converter<'_, S> {
    fn part(&mut self, part: Part<'_>) -> Result<(), ConvertError<S::Error>> {
        match part {
            Part::Header(h) => self.header = Some(h),
            Part::Descriptor(d) => self.descs.push(Desc::of(&d).owned()),
            Part::Threads(_) => {
                if let (Some(sink), Some(header)) = (self.sink.take(), self.header) {
                    let descs = core::mem::take(&mut self.descs);
                    self.ctx = Some(start(sink, header, descs, 0)?);
                }
            }
            Part::Thread(thread, kinds, end) => {
                if let Some(ctx) = self.ctx.as_mut() {
                    ctx.total = end;
                    ctx.out.progress(thread.offset, end);
                    convert_thread(ctx, &thread, kinds, &mut self.scratch)?;
                }
            }
            Part::Bookmark(b) => {
                if let Some(ctx) = self.ctx.as_mut() {
                    bookmark(ctx, &b, &mut self.scratch)?;
                }
            }
            Part::Reading => {}
        }
        Ok(())
    }
}

/// A part of a capture as [`by_thread`] gives them, in file order.
#[derive(Clone, Copy, Debug)]
pub enum Part<'a> {
    /// The file header.
    Header(Header),
    /// A descriptor.
    Descriptor(Descriptor<'a>),
    /// Every descriptor is read (given once, before the first thread, the end signature, the
    /// end, or a fault after the descriptors): their kinds, which records need.
    Threads(&'a [DescriptorKind]),
    /// A thread whose records have all arrived (or the last one, cut short or damaged), read
    /// over its bytes as [`Capture::threads`] reads it, with the kinds of the descriptors and
    /// the absolute offset where the bytes held end.
    Thread(Thread<'a>, &'a [DescriptorKind], u64),
    /// A bookmark (2.1+).
    Bookmark(Bookmark<'a>),
    /// Every part the bytes read so far make was given: more are read now, and may take a while
    /// to come (a followed file, a pipe). A caller that prints flushes its output here.
    Reading,
}

/// Reads a capture from `feed` and gives `each` its parts as [`Capture::parse`],
/// [`Capture::descriptors`], [`Capture::threads`] and [`Threads::tail`] give them on the whole
/// bytes, a thread once all its records are there: one loop for a capture in memory and for
/// one whose bytes arrive.
///
/// The crate's [`PushParser`] reads the bytes. Arriving bytes are kept in the feed's buffer from
/// a thread's head on until the parser reaches the next thread, the end signature or the end
/// of the capture, and the thread is then read over them ([`Thread::read_at`]). Blocks are
/// written as they end, a parent after its children, so no record's depth is known before the
/// thread's last record: the buffer holds the bytes of one thread and one piece
/// ([`PIECE`](crate::open::PIECE)), and nothing of the threads before it. At a fault inside a
/// thread the bytes are read on until that thread's record sizes end (or the source stops),
/// so that the thread is framed as on the whole file. A thread that does not fit in memory is an
/// error ([`std::io::ErrorKind::OutOfMemory`], naming its offset) rather than a thread cut short.
///
/// The result is [`Feed::run`]'s: how reading ended, or the source's, the parser's or `each`'s
/// error. A fault inside a thread reaches `each` with the thread ([`Thread::fault`], or a record
/// that fails to read) before the parser's error is returned.
///
/// [`Threads::tail`]: tracecap_easyprofiler::Threads::tail
/// [`Feed::run`]: crate::push::Feed::run
#[cfg(feature = "std")]
pub fn by_thread<E>(
    feed: crate::push::Feed<'_>,
    mut each: impl FnMut(Part<'_>) -> Result<(), E>,
) -> Result<crate::push::Pumped, crate::push::PumpError<EpError, E>> {
    use crate::push::{PumpError, Pumped};

    /// What to do after one answer of the parser.
    enum Next {
        Took(usize),
        /// A thread's head, of this many bytes.
        Thread(usize),
        /// An end signature, of this many bytes.
        Signature(usize),
        More,
        End,
        Fault(EpError),
    }

    let mut bytes = Held::new(feed);
    let mut parser = PushParser::new();
    // The parser is at `bytes.data()[at]`.
    let mut at = 0usize;
    // The absolute offset of the head of the thread whose bytes are held.
    let mut held: Option<u64> = None;
    let mut index = 0u32;
    let mut kinds: Option<Vec<DescriptorKind>> = None;
    loop {
        let answer = parser.parse(bytes.data().get(at..).unwrap_or_default(), bytes.eof());
        let next = match answer {
            Err(e) => Next::Fault(e),
            Ok(Pushed::NeedMore { .. }) if !bytes.eof() => Next::More,
            Ok(Pushed::NeedMore { .. } | Pushed::End) => Next::End,
            Ok(Pushed::Item { consumed, item }) => match item {
                PushItem::Header(h) => {
                    each(Part::Header(*h)).map_err(PumpError::Each)?;
                    Next::Took(consumed)
                }
                PushItem::Descriptor(d) => {
                    each(Part::Descriptor(d)).map_err(PumpError::Each)?;
                    Next::Took(consumed)
                }
                PushItem::Item(Item::Bookmark(b)) => {
                    each(Part::Bookmark(b)).map_err(PumpError::Each)?;
                    Next::Took(consumed)
                }
                PushItem::Item(Item::Thread(_)) => Next::Thread(consumed),
                PushItem::Signature(_) => Next::Signature(consumed),
                PushItem::Item(Item::ContextSwitch(_) | Item::Record(_)) => Next::Took(consumed),
            },
        };
        // Every descriptor read: the threads' section begins.
        if kinds.is_none() && !matches!(next, Next::Took(_) | Next::More) {
            let all = parser
                .header()
                .is_some_and(|h| parser.kinds().len() == h.descriptors_count as usize);
            if all {
                let k = kinds.insert(parser.kinds().to_vec());
                each(Part::Threads(k)).map_err(PumpError::Each)?;
            }
        }
        let version = parser.header().map_or(Version(0), |h| h.version);
        let kinds = kinds.as_deref().unwrap_or_default();
        // The held thread, over its bytes up to `end` (an index into the data held).
        let mut flush = |bytes: &Held<'_>, end: usize, held: Option<u64>| {
            let Some(head) = held else { return Ok(()) };
            let data = bytes.data();
            let thread_bytes = data.get(bytes.index(head)..end).unwrap_or_default();
            let thread =
                Thread::read_at(thread_bytes, head, version, index).map_err(PumpError::Parse)?;
            index = index.saturating_add(1);
            let end = head.saturating_add(thread_bytes.len() as u64);
            each(Part::Thread(thread, kinds, end)).map_err(PumpError::Each)
        };
        match next {
            Next::Took(consumed) => at = at.saturating_add(consumed),
            Next::Thread(consumed) | Next::Signature(consumed) => {
                flush(&bytes, at, held.take())?;
                if let Next::Thread(_) = next {
                    held = Some(bytes.offset(at));
                }
                at = at.saturating_add(consumed);
            }
            Next::More => {
                each(Part::Reading).map_err(PumpError::Each)?;
                // Nothing before the parser, or before the held thread, is needed again.
                let keep = held.map_or(at, |h| bytes.index(h).min(at));
                at -= bytes.read_more(keep, held)?;
                if let Some(why) = bytes.fault() {
                    // The bytes read may no longer be the file's: nothing more is read from them.
                    return Ok(Pumped {
                        stop: Some(why),
                        read: bytes.read(),
                        parsed: parser.offset(),
                    });
                }
            }
            Next::End => {
                flush(&bytes, bytes.data().len(), held.take())?;
                return Ok(Pumped {
                    stop: bytes.stop(),
                    read: bytes.read(),
                    parsed: parser.offset(),
                });
            }
            Next::Fault(e) => {
                if let Some(head) = held {
                    frame_whole(&mut bytes, head, version)?;
                }
                flush(&bytes, bytes.data().len(), held.take())?;
                return Err(PumpError::Parse(e));
            }
        }
    }
}

/// The bytes [`by_thread`] reads: a whole capture, or the window of an arriving one that its
/// buffer holds.
#[cfg(feature = "std")]
struct Held<'s> {
    feed: crate::push::Feed<'s>,
    /// The absolute offset of the first byte held.
    base: u64,
    /// Why the source stopped, once it has.
    stop: Option<crate::open::Stop>,
}

#[cfg(feature = "std")]
impl<'s> Held<'s> {
    fn new(feed: crate::push::Feed<'s>) -> Self {
        Held {
            feed,
            base: 0,
            stop: None,
        }
    }

    /// The bytes held.
    fn data(&self) -> &[u8] {
        match &self.feed {
            crate::push::Feed::Whole(data) => data,
            crate::push::Feed::Arriving(_, buffer) => buffer,
        }
    }

    /// Whether no more bytes come.
    fn eof(&self) -> bool {
        matches!(self.feed, crate::push::Feed::Whole(_)) || self.stop.is_some()
    }

    /// Why the source stopped (`None` for a whole capture).
    fn stop(&self) -> Option<crate::open::Stop> {
        self.stop
    }

    /// Why the source stopped, when the bytes read may no longer be the file's.
    fn fault(&self) -> Option<crate::open::Stop> {
        self.stop.filter(|s| s.is_fault())
    }

    /// Bytes read from the source.
    fn read(&self) -> u64 {
        match &self.feed {
            crate::push::Feed::Whole(data) => data.len() as u64,
            crate::push::Feed::Arriving(source, _) => source.position(),
        }
    }

    /// The absolute offset of `data()[index]`.
    fn offset(&self, index: usize) -> u64 {
        self.base.saturating_add(index as u64)
    }

    /// The index in `data()` of absolute offset `offset` (held: not before the first byte).
    fn index(&self, offset: u64) -> usize {
        usize::try_from(offset.saturating_sub(self.base)).unwrap_or(usize::MAX)
    }

    /// Drops the first `done` bytes held (no longer needed) and reads a piece, or learns that
    /// the source stopped; returns how many bytes were dropped. `held` names the thread in the
    /// error for want of memory.
    fn read_more<E>(
        &mut self,
        done: usize,
        held: Option<u64>,
    ) -> Result<usize, crate::push::PumpError<EpError, E>> {
        use crate::open::Arrival;
        let crate::push::Feed::Arriving(source, buffer) = &mut self.feed else {
            return Ok(0);
        };
        let done = done.min(buffer.len());
        buffer.drain(..done);
        self.base = self.base.saturating_add(done as u64);
        make_room(buffer, held)?;
        match source
            .read_more(buffer)
            .map_err(crate::push::PumpError::Io)?
        {
            Arrival::More(_) => {}
            Arrival::Stopped(why) => self.stop = Some(why),
        }
        Ok(done)
    }
}

/// Reads on until the thread held from absolute offset `head` has all the bytes its record sizes
/// span, or the source stops: after a fault the parser gave inside the thread, so that the
/// thread is framed as on the whole file. The framing is tried again each time the held bytes
/// have doubled, so the time stays linear in them.
#[cfg(feature = "std")]
fn frame_whole<E>(
    bytes: &mut Held<'_>,
    head: u64,
    version: Version,
) -> Result<(), crate::push::PumpError<EpError, E>> {
    let mut check_at = 0usize;
    while !bytes.eof() {
        let data = bytes.data();
        if data.len() >= check_at {
            let thread_bytes = data.get(bytes.index(head)..).unwrap_or_default();
            let end = head.saturating_add(thread_bytes.len() as u64);
            let short = match Thread::read_at(thread_bytes, head, version, 0) {
                Ok(t) => t.fault().is_some_and(|e| runs_out(&e, end)),
                Err(_) => false,
            };
            if !short {
                return Ok(());
            }
            check_at = data.len().saturating_add(thread_bytes.len());
        }
        bytes.read_more(0, Some(head))?;
    }
    Ok(())
}

/// Whether `e` is a read that ran into the end of the bytes held, absolute offset `end`.
#[cfg(feature = "std")]
fn runs_out(e: &EpError, end: u64) -> bool {
    matches!(e.shared(), Some(SharedKind::Truncated { available, .. })
        if e.offset.saturating_add(available) == end)
}

/// Room in `buffer` for one more piece, or the error that names the thread that does not fit.
#[cfg(feature = "std")]
fn make_room<P, E>(
    buffer: &mut Vec<u8>,
    held: Option<u64>,
) -> Result<(), crate::push::PumpError<P, E>> {
    use crate::open::PIECE;
    if buffer.try_reserve(PIECE).is_ok() || buffer.try_reserve_exact(PIECE).is_ok() {
        return Ok(());
    }
    let what = match held {
        Some(head) => alloc::format!(
            "the EasyProfiler thread at offset {head} does not fit in memory ({} bytes of it held): \
             a thread is converted once all its records have arrived, as its blocks are written \
             after the blocks they enclose",
            buffer.len()
        ),
        None => alloc::format!("no memory for {} more bytes of the capture", PIECE),
    };
    Err(crate::push::PumpError::Io(std::io::Error::new(
        std::io::ErrorKind::OutOfMemory,
        what,
    )))
}

/// Converts an EasyProfiler capture, driving `sink`.
pub fn convert<S: Sink>(data: &[u8], sink: &mut S) -> Result<(), ConvertError<S::Error>> {
    convert_with_budget(data, sink, HEAP_BUDGET)
}

/// [`convert`] with scratch arrays of at most `budget` bytes each on the heap (the rest in a
/// temporary file).
fn convert_with_budget<S: Sink>(
    data: &[u8],
    sink: &mut S,
    budget: usize,
) -> Result<(), ConvertError<S::Error>> {
    let capture = Capture::parse(data)?;
    let kinds = KindTable::new(&capture)?;
    let mut descs = Vec::new();
    for d in capture.descriptors() {
        descs.push(Desc::of(&d?));
    }
    let mut ctx = start(sink, *capture.header(), descs, data.len() as u64)?;
    let mut scratch = ThreadScratch::new(budget);
    let mut threads = capture.threads();
    for thread in threads.by_ref() {
        let thread = thread?;
        ctx.out.progress(thread.offset, ctx.total);
        convert_thread(&mut ctx, &thread, kinds.as_slice(), &mut scratch)?;
    }
    for b in threads.tail()? {
        bookmark(&mut ctx, &b?, &mut scratch)?;
    }
    ctx.out.progress(ctx.total, ctx.total);
    Ok(())
}

/// The conversion once the descriptors are read: the process track declared.
fn start<'c, 'a, S: Sink>(
    sink: &'c mut S,
    header: Header,
    descs: Vec<Desc<'a>>,
    total: u64,
) -> Result<Ctx<'c, 'a, S>, ConvertError<S::Error>> {
    let mut out = Out::new(sink, BOOKMARKS.0 + 2);
    out.declare(
        PROCESS,
        None,
        TrackKind::Process {
            pid: header.pid.unwrap_or(0),
        },
        "EasyProfiler capture",
    )?;
    Ok(Ctx {
        out,
        header,
        descs,
        total,
        bookmarks: false,
    })
}

/// A bookmark: a global instant on the `Bookmarks` track (declared with the first).
fn bookmark<S: Sink>(
    ctx: &mut Ctx<'_, '_, S>,
    b: &Bookmark<'_>,
    s: &mut ThreadScratch,
) -> Result<(), ConvertError<S::Error>> {
    if !ctx.bookmarks {
        ctx.bookmarks = true;
        ctx.out
            .declare(BOOKMARKS, None, TrackKind::Slices, "Bookmarks")?;
    }
    s.label.clear();
    let _ = write!(s.label, "#{:08x}", b.color);
    let text = text(b.text, &mut s.text);
    let args = [Arg {
        name: "color",
        value: Value::Str(&s.label),
    }];
    ctx.out.instant(&Event::new(
        BOOKMARKS,
        b.position,
        if text.is_empty() { "bookmark" } else { text },
        CATEGORY,
        &args,
    ))
}

fn convert_thread<'a, S: Sink>(
    ctx: &mut Ctx<'_, '_, S>,
    thread: &Thread<'a>,
    kinds: &[DescriptorKind],
    s: &mut ThreadScratch,
) -> Result<(), ConvertError<S::Error>> {
    let h = ctx.header;
    let track = ctx.out.next_id();
    let tname = lossy(thread.name);
    let mut label = String::new();
    let tname: &str = if tname.is_empty() {
        let _ = write!(label, "thread {}", thread.id);
        &label
    } else {
        &tname
    };
    ctx.out.declare(
        track,
        Some(PROCESS),
        TrackKind::Thread {
            pid: h.pid.unwrap_or(0),
            tid: thread.id,
        },
        tname,
    )?;

    // Context switches: a track of their own, one slice per interval switched out.
    let mut cs_track = None;
    let mut prev_end = 0u64;
    for cs in thread.context_switches() {
        let cs = cs?;
        let id = match cs_track {
            Some(id) => id,
            None => {
                s.text.clear();
                let _ = write!(s.text, "{tname} context switches");
                let id = ctx.out.track(Some(track), TrackKind::Slices, &s.text)?;
                cs_track = Some(id);
                id
            }
        };
        let b = h.to_ns(cs.begin).max(prev_end);
        let e = h.to_ns(cs.end).max(b);
        prev_end = e;
        let name = text(cs.name, &mut s.label);
        let args = [Arg {
            name: "target_thread",
            value: Value::Uint(cs.target_thread),
        }];
        ctx.out.complete(
            &Event {
                track: id,
                ts: b,
                name: if name.is_empty() {
                    "switched out"
                } else {
                    name
                },
                name_id: None,
                category: CATEGORY,
                args: &args,
                flows: &[],
            },
            e - b,
        )?;
    }

    // Pass 1: the tree, as upstream rebuilds it (times in ns), and each record's key: the only
    // walk over all the records, the crate's nesting walk, which keeps what it read before a
    // fault. Each slot and key is written for its record before anything reads it: no fill
    // needed.
    let n = thread.records_count() as usize;
    let keys = s.keys.reuse(n);
    let wants = ctx.out.wants();
    let values_read = wants.counters || wants.instants;
    let (out, total) = (&mut ctx.out, ctx.total);
    let nested = thread.nest(kinds, &h, s.slots.reuse(n), |i, r| {
        if i % 65536 == 0 {
            out.progress(r.offset(), total);
        }
        if let Some(key) = keys.get_mut(i) {
            *key = Key::of(r, values_read);
        }
    });
    let (tree, fault) = (nested.tree, nested.fault);
    let good = tree.len();

    // Pass 2: where each record goes in pre-order. A subtree is a run of records ending with its
    // root, so the records before a record in pre-order are those before its subtree and its
    // ancestors: the first record of its subtree plus its depth.
    let order = s.order.reset(good, UNUSED);
    for i in 0..good {
        let first = tree.first(i).unwrap_or(0) as usize;
        let depth = tree.depth(i).unwrap_or(0) as usize;
        if let Some(slot) = order.get_mut(first + depth) {
            *slot = i as u32;
        }
    }

    // Emission in pre-order, each node clamped into its parent and never before what was already
    // emitted (damaged times can make a node end before it begins, or a sibling start too early).
    // Only values and blocks with a run-time name are read again from the file.
    let mut counters: BTreeMap<u32, TrackId> = BTreeMap::new();
    s.open.clear();
    let mut floor = 0u64;
    for &index in order.iter() {
        if index == UNUSED {
            continue;
        }
        let index = index as usize;
        let depth = tree.depth(index).unwrap_or(0) as usize;
        let Some(&Key(key)) = keys.get(index) else {
            continue;
        };
        while s.open.len() > depth {
            if let Some(o) = s.open.pop() {
                if o.slice {
                    ctx.out.end(track, o.end)?;
                }
                floor = floor.max(o.end);
            }
        }
        let (begin, end) = tree.times(index).unwrap_or((0, 0));
        let (lo, hi) = s.open.last().map_or((0, u64::MAX), |o| (o.begin, o.end));
        let b = begin.max(lo).max(floor).min(hi);
        let e = end.min(hi).max(b);
        floor = b;
        if key & (Key::DESCRIBED | Key::VALUE) == Key::DESCRIBED | Key::VALUE {
            // A value no one reads: only a counter's track is declared, at its first sample.
            if key & Key::COUNTER != 0 {
                counter_track(ctx, key as u32, track, &mut counters)?;
            }
            s.open.push(Open {
                begin: b,
                end: b,
                slice: false,
            });
            continue;
        }
        let (id, name, is_event) = if key & Key::DESCRIBED != 0 {
            (key as u32, &[][..], key & Key::EVENT != 0)
        } else {
            match thread.record_at(key, kinds)? {
                Record::Value(v) => {
                    emit_value(ctx, &v, b, track, &mut counters, &mut s.text)?;
                    s.open.push(Open {
                        begin: b,
                        end: b,
                        slice: false,
                    });
                    continue;
                }
                Record::Block(block) => (block.id, block.name, block.is_event()),
            }
        };
        let desc = ctx.descs.get(id as usize);
        let runtime = !name.is_empty();
        let name: &str = match desc {
            _ if runtime => text(name, &mut s.label),
            Some(d) => &d.name,
            None => {
                s.label.clear();
                let _ = write!(s.label, "block #{id}");
                &s.label
            }
        };
        let with_desc;
        let args: &[Arg<'_>] = match desc {
            Some(d) if ctx.out.wants_args() => {
                with_desc = [
                    Arg {
                        name: "file",
                        value: Value::Str(&d.file),
                    },
                    Arg {
                        name: "line",
                        value: Value::Int(i64::from(d.line)),
                    },
                    Arg {
                        name: "color",
                        value: Value::Str(&d.color),
                    },
                    Arg {
                        name: "descriptor",
                        value: Value::Str(&d.name),
                    },
                ];
                let n = if runtime { 4 } else { 3 };
                with_desc.get(..n).unwrap_or(&[])
            }
            _ => &[],
        };
        let mut event = Event::new(track, b, name, CATEGORY, args);
        if !runtime {
            // Named by its descriptor (or, without one, by its id alone).
            event = event.named(NameId(id));
        }
        if is_event {
            ctx.out.instant(&event)?;
            s.open.push(Open {
                begin: b,
                end: b,
                slice: false,
            });
        } else {
            ctx.out.begin(&event)?;
            s.open.push(Open {
                begin: b,
                end: e,
                slice: true,
            });
        }
    }
    while let Some(o) = s.open.pop() {
        if o.slice {
            ctx.out.end(track, o.end)?;
        }
    }
    match fault {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// The counter track of descriptor `id` on a thread, declared at its first sample.
fn counter_track<S: Sink>(
    ctx: &mut Ctx<'_, '_, S>,
    id: u32,
    thread_track: TrackId,
    counters: &mut BTreeMap<u32, TrackId>,
) -> Result<TrackId, ConvertError<S::Error>> {
    if let Some(&track) = counters.get(&id) {
        return Ok(track);
    }
    let name: &str = ctx.descs.get(id as usize).map_or("value", |d| &d.name);
    let track = ctx
        .out
        .track(Some(thread_track), TrackKind::Counter, name)?;
    counters.insert(id, track);
    Ok(track)
}

/// A scalar as a counter sample, when it is one.
fn counter_value(v: &EpValue<'_>) -> Option<CounterValue> {
    if v.is_array || v.data_type == DataType::String {
        return None;
    }
    Some(match v.elements().next()? {
        Element::Bool(b) => CounterValue::Int(i64::from(b)),
        Element::Char(x) | Element::Int8(x) => CounterValue::Int(i64::from(x)),
        Element::Uint8(x) => CounterValue::Int(i64::from(x)),
        Element::Int16(x) => CounterValue::Int(i64::from(x)),
        Element::Uint16(x) => CounterValue::Int(i64::from(x)),
        Element::Int32(x) => CounterValue::Int(i64::from(x)),
        Element::Uint32(x) => CounterValue::Int(i64::from(x)),
        Element::Int64(x) => CounterValue::Int(x),
        Element::Uint64(x) => match i64::try_from(x) {
            Ok(x) => CounterValue::Int(x),
            Err(_) => CounterValue::Double(x as f64),
        },
        Element::Float(x) if x.is_finite() => CounterValue::Double(f64::from(x)),
        Element::Double(x) if x.is_finite() => CounterValue::Double(x),
        Element::Float(_) | Element::Double(_) => return None,
    })
}

fn write_element(out: &mut String, e: Element) {
    let _ = match e {
        Element::Bool(b) => write!(out, "{b}"),
        Element::Char(x) | Element::Int8(x) => write!(out, "{x}"),
        Element::Uint8(x) => write!(out, "{x}"),
        Element::Int16(x) => write!(out, "{x}"),
        Element::Uint16(x) => write!(out, "{x}"),
        Element::Int32(x) => write!(out, "{x}"),
        Element::Uint32(x) => write!(out, "{x}"),
        Element::Int64(x) => write!(out, "{x}"),
        Element::Uint64(x) => write!(out, "{x}"),
        Element::Float(x) => write!(out, "{x}"),
        Element::Double(x) => write!(out, "{x}"),
    };
}

fn emit_value<S: Sink>(
    ctx: &mut Ctx<'_, '_, S>,
    v: &EpValue<'_>,
    ts: u64,
    thread_track: TrackId,
    counters: &mut BTreeMap<u32, TrackId>,
    text: &mut String,
) -> Result<(), ConvertError<S::Error>> {
    let wants = ctx.out.wants();
    if !wants.counters && !wants.instants && counters.contains_key(&v.id) {
        // A sample of a counter already declared, which nobody reads.
        return Ok(());
    }
    if let Some(value) = counter_value(v) {
        let id = counter_track(ctx, v.id, thread_track, counters)?;
        return ctx.out.counter(id, ts, value);
    }
    let name: &str = ctx.descs.get(v.id as usize).map_or("value", |d| &d.name);
    if !ctx.out.wants_args() {
        return ctx
            .out
            .instant(&Event::new(thread_track, ts, name, CATEGORY, &[]));
    }
    text.clear();
    if let Some(bytes) = v.string_bytes() {
        let mut end = bytes.len();
        while end > 0 && bytes.get(end - 1) == Some(&0) {
            end -= 1;
        }
        push_lossy(text, bytes.get(..end).unwrap_or(bytes));
    } else if v.is_array {
        text.push('[');
        for (k, e) in v.elements().enumerate() {
            if k > 0 {
                text.push_str(", ");
            }
            write_element(text, e);
        }
        text.push(']');
    } else if let Some(e) = v.elements().next() {
        write_element(text, e);
    }
    let args = [
        Arg {
            name: "value",
            value: Value::Str(text),
        },
        Arg {
            name: "type",
            value: Value::Str(v.data_type.name()),
        },
        Arg {
            name: "value_id",
            value: Value::Uint(v.value_id),
        },
    ];
    ctx.out
        .instant(&Event::new(thread_track, ts, name, CATEGORY, &args))
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::export::ChromeJson;
    use alloc::string::ToString;
    use std::io::Read;
    use tracecap_easyprofiler::write::{BookmarkModel, CaptureModel};
    use tracecap_easyprofiler::Version;

    /// A reader that gives its bytes in pieces of 1 to `max` bytes, sizes drawn at random.
    struct Pieces {
        data: Vec<u8>,
        at: usize,
        rng: u64,
        max: usize,
    }

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            let want = 1 + (self.rng % self.max as u64) as usize;
            let rest = self.data.get(self.at..).unwrap_or_default();
            let n = want.min(buf.len()).min(rest.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            Ok(n)
        }
    }

    /// The Chrome JSON of `data` and how the conversion ended: whole, or arriving in pieces of at
    /// most `max` bytes (`None`).
    fn converted(data: &[u8], max: Option<usize>) -> (Vec<u8>, Result<(), String>) {
        let mut sink = ChromeJson::new(Vec::new()).unwrap(); // ok: unit test, a Vec cannot fail
        let result = match max {
            None => convert(data, &mut sink).map_err(|e| e.to_string()),
            Some(max) => {
                let pieces = Pieces {
                    data: data.to_vec(),
                    at: 0,
                    rng: 0x2545_f491_4f6c_dd1d ^ data.len() as u64,
                    max,
                };
                let path = std::path::Path::new("pieces");
                let mut source = crate::open::Arriving::stream(Box::new(pieces), path);
                let arrived = convert_arriving(&mut source, &mut Vec::new(), &mut sink);
                match arrived.unwrap().unwrap() {
                    // ok: unit test, the reader cannot fail
                    Ok(pumped) => {
                        assert_eq!(pumped.read, data.len() as u64);
                        Ok(())
                    }
                    Err(e) => Err(e.to_string()),
                }
            }
        };
        (sink.finish().unwrap(), result) // ok: unit test
    }

    /// Captures of every layout, sound, cut short and with bytes changed, converted as they
    /// arrive in small pieces, give what the whole-file conversion gives, faults included.
    #[test]
    fn arriving_in_pieces_converts_as_the_whole_file() {
        let mut captures = Vec::new();
        for version in [
            Version::V1_0_0,
            Version::V1_3_0,
            Version::V2_0_0,
            Version::V2_1_0,
        ] {
            let mut m = CaptureModel::synthetic(20_000);
            m.version = version;
            if version == Version::V2_1_0 {
                m.bookmarks.push(BookmarkModel {
                    position: 1_000_500,
                    color: 0xff00_ff00,
                    text: b"here".to_vec(),
                });
            }
            captures.push(m.to_bytes().unwrap()); // ok: unit test, a model the writer takes
        }
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut damaged = 0;
        for data in &captures {
            let mut cases = vec![data.clone()];
            for _ in 0..12 {
                let cut = (next() % data.len() as u64) as usize;
                cases.push(data[..cut].to_vec());
            }
            for _ in 0..12 {
                let mut changed = data.clone();
                for _ in 0..2 {
                    let at = (next() % data.len() as u64) as usize;
                    changed[at] = next() as u8;
                }
                cases.push(changed);
            }
            for case in &cases {
                let whole = converted(case, None);
                damaged += usize::from(whole.1.is_err());
                for max in [1, 7, 300, 70_000] {
                    assert!(
                        converted(case, Some(max)) == whole,
                        "{} bytes, pieces of {max}",
                        case.len()
                    );
                }
            }
        }
        assert!(damaged > 20, "{damaged} damaged captures");
    }

    fn to_json(data: &[u8], budget: usize) -> (Vec<u8>, bool) {
        let mut sink = ChromeJson::new(Vec::new()).unwrap(); // ok: unit test, a Vec cannot fail
        let ok = convert_with_budget(data, &mut sink, budget).is_ok();
        (sink.finish().unwrap(), ok) // ok: unit test
    }

    /// Threads whose scratch goes to a file convert exactly as with everything on the heap, whole
    /// and cut short.
    #[test]
    fn scratch_in_a_file_gives_the_same_trace() {
        let data = CaptureModel::synthetic(300_000).to_bytes().unwrap(); // ok: unit test
        let (heap, ok) = to_json(&data, usize::MAX);
        assert!(ok);
        assert!(heap.len() > 100_000);
        assert_eq!(to_json(&data, 64), (heap.clone(), true));
        for cut in [data.len() / 3, data.len() - 7] {
            let cut = data.get(..cut).unwrap(); // ok: unit test, cut < data.len()
            assert_eq!(to_json(cut, 64), to_json(cut, usize::MAX));
        }
    }
}
