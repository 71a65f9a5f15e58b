//! `info`, `validate` and `dump` for EasyProfiler `.prof` files.

use std::io::Write;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tracecap::adapter::easyprofiler::{by_thread, Part};
use tracecap::push::{Feed, Pumped};
use tracecap_easyprofiler::{
    json, parallel, Bookmark, Capture, Descriptor, DescriptorKind, Error, Events, Header,
    KindTable, NestSlot, Record, Summary, Thread,
};

use super::{DumpOptions, Lines};
use crate::error::CliError;
use crate::follow;
use crate::json::{JsonWriter, Lossy, Raw, Text};

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Everything checked (what `validate` and `info` report): on two threads for a large file, see
/// [`workers`].
fn check(c: &Capture<'_>) -> Result<Summary, Error> {
    let kinds = KindTable::new(c)?;
    match workers(c.data().len()) {
        Workers::One => {
            let mut slots: Vec<NestSlot> = Vec::new();
            Summary::check(c, &kinds, &mut slots)
        }
        two => check_in_two(c, &kinds, two),
    }
}

/// [`check`], and on a fault the counts of everything read before it (a second, serial walk:
/// only a damaged file pays for it) with the fault.
fn check_partial(c: &Capture<'_>) -> (Summary, Option<Error>) {
    match check(c) {
        Ok(s) => (s, None),
        Err(_) => {
            // A damaged descriptor section stops the walk before any thread is read, so the kinds
            // of the descriptors before the damage are never asked for.
            let kinds = KindTable::new(c).unwrap_or_default();
            Summary::check_partial(c, &kinds, &mut Vec::new())
        }
    }
}

/// `tracecap info`: on a damaged file, the counts of everything read before the fault, then the
/// fault.
pub fn info(data: &[u8], opts: &super::InfoOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let json = opts.json;
    let c = Capture::parse(data)?;
    let h = *c.header();
    let (s, fault) = check_partial(&c);
    let (first, last) = (s.first.map(|t| h.to_ns(t)), s.last.map(|t| h.to_ns(t)));
    if json {
        let mut w = JsonWriter::new(out);
        w.begin_object()
            .field("format", "easyprofiler")
            .field("version", Text(h.version))
            .field("file_size", data.len())
            .field("header_size", h.size)
            .field("pid", h.pid)
            .field("cpu_frequency", h.cpu_frequency)
            .field("begin_ns", h.begin_ns())
            .field("end_ns", h.end_ns())
            .field("records_begin_ns", first)
            .field("records_end_ns", last)
            .field("descriptors", s.descriptors)
            .object("records")
            .field("total", s.records())
            .field("blocks", s.blocks)
            .field("events", s.events)
            .field("values", s.values)
            .field("context_switches", s.context_switches)
            .end_object()
            .field("header_records", h.blocks_count)
            .field("bookmarks", s.bookmarks)
            .field("levels", s.levels);
        super::error_field(&mut w, fault.map(|e| (e.kind, e.offset)));
        // The threads go last, one at a time (a capture may hold millions of them).
        w.array("threads");
        for t in threads(&c, &s) {
            w.begin_object()
                .field("id", t.id)
                .field("name", Lossy(t.name))
                .field("records", t.records_count())
                .field("context_switches", t.context_switches_count())
                .end_object();
            w.flush_full()?;
        }
        w.end_array().end_object();
        w.end_line()?;
        return fault.map_or(Ok(()), |e| Err(e.into()));
    }
    writeln!(out, "format:       EasyProfiler .prof")?;
    writeln!(out, "version:      {} ({:#010x})", h.version, h.version.0)?;
    writeln!(
        out,
        "size:         {} bytes (header {} bytes)",
        data.len(),
        h.size
    )?;
    match h.pid {
        Some(pid) => writeln!(out, "pid:          {pid}")?,
        None => writeln!(out, "pid:          (none in this version)")?,
    }
    if h.cpu_frequency == 0 {
        writeln!(out, "timestamps:   nanoseconds")?;
    } else {
        writeln!(out, "timestamps:   ticks at {} Hz", h.cpu_frequency)?;
    }
    let span = h.end_ns().saturating_sub(h.begin_ns());
    writeln!(
        out,
        "capture:      {} .. {} ns ({:.3} ms)",
        h.begin_ns(),
        h.end_ns(),
        span as f64 / 1e6
    )?;
    if let (Some(a), Some(b)) = (first, last) {
        writeln!(
            out,
            "records span: {a} .. {b} ns ({:.3} ms)",
            b.saturating_sub(a) as f64 / 1e6
        )?;
    }
    writeln!(out, "descriptors:  {}", s.descriptors)?;
    writeln!(
        out,
        "records:      {} ({} blocks, {} events, {} values, {} context switches)",
        s.records(),
        s.blocks,
        s.events,
        s.values,
        s.context_switches
    )?;
    writeln!(out, "nesting:      {} levels", s.levels)?;
    writeln!(out, "bookmarks:    {}", s.bookmarks)?;
    let lines = threads(&c, &s).map(|t| {
        format!(
            "{:>10}  {:<24} {} records, {} context switches",
            t.id,
            lossy(t.name),
            t.records_count(),
            t.context_switches_count()
        )
    });
    super::write_list(out, "threads", lines, opts.verbose)?;
    fault.map_or(Ok(()), |e| Err(e.into()))
}

/// The threads of a capture that the check `s` read, one at a time (a thread cut short by a
/// fault with its whole records).
fn threads<'a>(c: &Capture<'a>, s: &Summary) -> Counted<impl Iterator<Item = Thread<'a>>> {
    Counted {
        items: c.threads().map_while(Result::ok).take(s.threads as usize),
        left: s.threads as usize,
    }
}

/// An iterator that knows how many items it has left.
struct Counted<I> {
    items: I,
    left: usize,
}

impl<I: Iterator> Iterator for Counted<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let item = self.items.next()?;
        self.left = self.left.saturating_sub(1);
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<I: Iterator> ExactSizeIterator for Counted<I> {}

/// Files at least this large are checked on two threads (when there are two cores): below it,
/// starting a thread costs more than it saves.
const SPLIT_MIN_BYTES: usize = 4 << 20;

/// How `validate` checks a capture.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Workers {
    /// [`Summary::check`] on the calling thread.
    One,
    /// [`check_in_two`].
    Two,
    /// [`check_in_two`]'s workers one after the other, the back worker first (so that it
    /// takes every thread): a test of its part, whatever the timing.
    BackFirst,
}

/// How `validate` checks a file of `len` bytes: on two threads when it is large and there are
/// two cores. The environment variable `TRACECAP_THREADS` (undocumented, for tests and
/// measurements) overrides the choice: `1` for one thread, `2` for two whatever the size and
/// the cores, `back-first` for [`Workers::BackFirst`].
fn workers(len: usize) -> Workers {
    match std::env::var("TRACECAP_THREADS").as_deref() {
        Ok("1") => Workers::One,
        Ok("2") => Workers::Two,
        Ok("back-first") => Workers::BackFirst,
        _ if len >= SPLIT_MIN_BYTES
            && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2) =>
        {
            Workers::Two
        }
        _ => Workers::One,
    }
}

/// The threads of the capture claimed so far by the two workers of [`check_in_two`], so that no
/// thread is checked twice or skipped. The front worker claims them in file order, each before
/// it starts it (the end signature and bookmarks count as one more, after the last thread); the
/// back worker claims runs of them from the last down (its first claim includes the trailer).
struct Claims {
    /// The next thread the front worker would take; `u32::MAX` once it has met a fault or
    /// walked to the end, when the back worker has nothing left to do.
    front: u32,
    /// The first thread the back worker has taken (`u32::MAX` before it takes any).
    back: u32,
}

impl Claims {
    /// Claims the next thread for the front worker: `false` when the back worker has it.
    fn front(&mut self) -> bool {
        let free = self.front < self.back;
        if free {
            self.front += 1;
        }
        free
    }

    /// Claims the threads from `first` up to the back worker's first for the back worker:
    /// `false` when the front worker has already taken `first`.
    fn back(&mut self, first: u32) -> bool {
        let free = first >= self.front && first < self.back;
        if free {
            self.back = first;
        }
        free
    }

    /// Whether the front worker is done, by a fault or at the end.
    fn front_done(&self) -> bool {
        self.front == u32::MAX
    }
}

/// Locks the claims. A worker that panicked left them whole (they are two numbers).
fn lock(claims: &Mutex<Claims>) -> MutexGuard<'_, Claims> {
    claims.lock().unwrap_or_else(PoisonError::into_inner)
}

/// [`Summary::check`] on two threads, with the same result, error included.
///
/// The front worker is the serial walk, from the first thread on, one thread at a time; the
/// back worker skims every thread's framing (which also brings the file's pages in ahead of the
/// front worker), then takes threads from the last down while the front worker has not reached
/// them. Each thread goes to whichever worker is free first, which balances the two as well as
/// whole threads allow, and the pieces are merged in file order.
///
/// A fault the front worker meets is the serial check's (everything before it is sound), so it
/// is the answer, and the back worker stops at its next thread. When the back worker meets one
/// (or a damaged thread in its skim), its work is dropped and the front worker walks on to the
/// end: the serial check, which reports the first fault in file order.
fn check_in_two(c: &Capture<'_>, kinds: &KindTable, workers: Workers) -> Result<Summary, Error> {
    let claims = Mutex::new(Claims {
        front: 0,
        back: u32::MAX,
    });
    let mut front = Front::new(c, kinds)?;
    let back = if workers == Workers::BackFirst {
        let back = check_back(c, kinds, &claims);
        front.walk(&claims)?;
        back
    } else {
        std::thread::scope(|scope| {
            let back = scope.spawn(|| check_back(c, kinds, &claims));
            let walked = front.walk(&claims);
            // A panicked worker is one that failed.
            walked.map(|()| back.join().ok().flatten())
        })?
    };
    match back {
        Some(Some(back)) => Ok(parallel::merge(front.summary, back)),
        Some(None) => Ok(front.summary),
        None => {
            front.walk_to_end()?;
            Ok(front.summary)
        }
    }
}

/// The front worker of [`check_in_two`]: the serial walk, taken a thread at a time.
struct Front<'a, 'k> {
    items: Events<'a, &'k KindTable>,
    slots: Vec<NestSlot>,
    /// What the walk has checked so far.
    summary: Summary,
}

impl<'a, 'k> Front<'a, 'k> {
    /// The walk of `c`, its descriptors checked.
    fn new(c: &Capture<'a>, kinds: &'k KindTable) -> Result<Self, Error> {
        Ok(Front {
            items: c.events_with(kinds),
            slots: Vec::new(),
            summary: parallel::check_descriptors(c)?,
        })
    }

    /// Checks the next thread while the back worker has not taken it; on a fault or at the
    /// end, tells the back worker it is done.
    fn walk(&mut self, claims: &Mutex<Claims>) -> Result<(), Error> {
        while lock(claims).front() {
            parallel::stop_after(&mut self.items, 1);
            let piece =
                parallel::check_events(&mut self.items, &mut self.slots).inspect_err(|_| {
                    lock(claims).front = u32::MAX;
                })?;
            self.summary = parallel::merge(self.summary, piece);
            if piece.threads == 0 {
                // No thread left: this piece was the trailer.
                lock(claims).front = u32::MAX;
                break;
            }
        }
        Ok(())
    }

    /// Checks every thread left and the trailer, whatever the claims.
    fn walk_to_end(&mut self) -> Result<(), Error> {
        parallel::stop_after(&mut self.items, u32::MAX);
        let rest = parallel::check_events(&mut self.items, &mut self.slots)?;
        self.summary = parallel::merge(self.summary, rest);
        Ok(())
    }
}

/// How many threads the back worker of [`check_in_two`] keeps to start its pieces from (see
/// [`parallel::thread_marks`]): a capture with more threads is taken in runs of several.
const MARKS: usize = 256;

/// How often (in threads) the back worker's skim asks whether the front worker is done.
const SKIM_POLL: u32 = 1024;

/// The back worker of [`check_in_two`]: skims the threads (their framing, keeping at most
/// [`MARKS`] of them, so its memory does not grow with the file), then checks runs of them from
/// the last down (the last with the trailer), while the front worker has not reached them. Its
/// pieces merged in file order (`Some(None)` if it took none); `None` on a fault, and then it
/// gives the front worker every thread. It stops early, taking nothing, when the front worker is
/// done first (a fault it met, or the end).
fn check_back(
    c: &Capture<'_>,
    kinds: &KindTable,
    claims: &Mutex<Claims>,
) -> Option<Option<Summary>> {
    let mut stopped = false;
    let marks = parallel::thread_marks(c, MARKS, |i| {
        stopped = i % SKIM_POLL == 0 && lock(claims).front_done();
        !stopped
    });
    let checked = match marks {
        Some(marks) => check_back_pieces(c, kinds, claims, &marks),
        None if stopped => Some(None),
        None => None,
    };
    if checked.is_none() {
        lock(claims).back = u32::MAX;
    }
    checked
}

fn check_back_pieces(
    c: &Capture<'_>,
    kinds: &KindTable,
    claims: &Mutex<Claims>,
    marks: &parallel::ThreadMarks<'_>,
) -> Option<Option<Summary>> {
    let mut slots: Vec<NestSlot> = Vec::new();
    let mut s: Option<Summary> = None;
    for (k, thread) in marks.marks.iter().enumerate().rev() {
        if !lock(claims).back(thread.index()) {
            break;
        }
        let mut items = parallel::events_from(c, thread, kinds);
        if k + 1 < marks.marks.len() {
            parallel::stop_after(&mut items, marks.stride);
        }
        let piece = parallel::check_events(&mut items, &mut slots).ok()?;
        s = Some(s.map_or(piece, |later| parallel::merge(piece, later)));
    }
    Some(s)
}

/// `tracecap validate`.
pub fn validate(data: &[u8], out: &mut dyn Write) -> Result<(), CliError> {
    let c = Capture::parse(data)?;
    let s = check(&c)?;
    writeln!(
        out,
        "ok: easyprofiler {}: {} descriptors, {} threads, {} records ({} blocks, {} events, {} values, {} context switches), {} bookmarks, {} levels",
        c.header().version,
        s.descriptors,
        s.threads,
        s.records(),
        s.blocks,
        s.events,
        s.values,
        s.context_switches,
        s.bookmarks,
        s.levels
    )?;
    Ok(())
}

/// `tracecap dump` of a capture as its bytes arrive (`--follow`, standard input, a pipe): the
/// header and each descriptor as it arrives, each thread once all its records have (their depths
/// need the whole thread: the bytes of one thread are held, see
/// [`tracecap::adapter::easyprofiler::by_thread`]), each bookmark as it arrives.
pub fn dump_arriving(
    s: &mut crate::follow::Started,
    opts: &DumpOptions,
    out: &mut dyn Write,
) -> Option<Result<Pumped, CliError>> {
    Some(dump_from(
        Feed::Arriving(&mut s.source, &mut s.buffer),
        opts,
        out,
    ))
}

/// `tracecap dump`: every record in file order; JSON Lines with `--json`.
pub fn dump(data: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<(), CliError> {
    dump_from(Feed::Whole(data), opts, out).map(|_| ())
}

/// The one dump loop, over a capture in memory or arriving: the header, the descriptors, each
/// thread whole, the bookmarks. The JSON lines are the EasyProfiler crate's
/// (`tracecap_easyprofiler::json`).
fn dump_from(feed: Feed<'_>, opts: &DumpOptions, out: &mut dyn Write) -> Result<Pumped, CliError> {
    let mut lines = Out {
        lines: Lines::new(opts.json, out),
        line: String::new(),
    };
    let mut header: Option<Header> = None;
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut slots: Vec<NestSlot> = Vec::new();
    follow::finish(by_thread(feed, |part| {
        match part {
            Part::Header(h) => {
                header = Some(h);
                dump_header(&h, &mut lines)?;
            }
            Part::Descriptor(d) => {
                names.push(d.name.to_vec());
                dump_descriptor(&d, &mut lines)?;
            }
            Part::Threads(_) => {}
            Part::Thread(t, kinds, _) => {
                if let Some(h) = &header {
                    dump_thread(h, &t, kinds, &names, &mut slots, &mut lines)?;
                }
            }
            Part::Bookmark(b) => dump_bookmark(&b, &mut lines)?,
            // What was printed shows while the rest of the capture is awaited.
            Part::Reading => lines.lines.flush()?,
        }
        Ok(())
    }))
}

/// Where `dump` prints, with the JSON line being written.
struct Out<'o> {
    lines: Lines<'o>,
    /// The JSON of the record being printed, reused from line to line.
    line: String,
}

/// Prints one JSON line: the record's JSON that `write` appends to `line`, emptied first.
fn json_line(
    w: &mut JsonWriter<'_>,
    line: &mut String,
    write: impl FnOnce(&mut String),
) -> std::io::Result<()> {
    line.clear();
    write(line);
    w.item(Raw(line));
    w.end_line()
}

fn dump_header(h: &Header, lines: &mut Out<'_>) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::header(h, s))?,
        Lines::Text(out) => writeln!(
            out,
            "easyprofiler {} pid={} cpu_frequency={} begin={} ({} ns) end={} ({} ns)",
            h.version,
            h.pid.map_or("none".to_string(), |p| p.to_string()),
            h.cpu_frequency,
            h.begin_time,
            h.begin_ns(),
            h.end_time,
            h.end_ns()
        )?,
    }
    Ok(())
}

fn dump_descriptor(d: &Descriptor<'_>, lines: &mut Out<'_>) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::descriptor(d, s))?,
        Lines::Text(out) => writeln!(
            out,
            "descriptor {:>4} {:<5} {:?} {}:{} color={:#010x} status={}",
            d.id,
            d.kind.name(),
            lossy(d.name),
            lossy(d.file),
            d.line,
            d.color,
            d.status
        )?,
    }
    Ok(())
}

fn dump_bookmark(b: &Bookmark<'_>, lines: &mut Out<'_>) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::bookmark(b, s))?,
        Lines::Text(out) => writeln!(
            out,
            "bookmark {} ns color={:#010x} {:?}",
            b.position,
            b.color,
            lossy(b.text)
        )?,
    }
    Ok(())
}

fn dump_thread(
    h: &Header,
    t: &Thread<'_>,
    kinds: &[DescriptorKind],
    names: &[Vec<u8>],
    slots: &mut Vec<NestSlot>,
    lines: &mut Out<'_>,
) -> Result<(), CliError> {
    match &mut lines.lines {
        Lines::Json(w) => json_line(w, &mut lines.line, |s| json::thread(t, s))?,
        Lines::Text(out) => writeln!(
            out,
            "thread {} {:?}: {} records, {} context switches",
            t.id,
            lossy(t.name),
            t.records_count(),
            t.context_switches_count()
        )?,
    }
    for cs in t.context_switches() {
        let cs = cs?;
        match &mut lines.lines {
            Lines::Json(w) => json_line(w, &mut lines.line, |s| {
                json::context_switch(h, t.id, &cs, s)
            })?,
            Lines::Text(out) => writeln!(
                out,
                "  switched out {} .. {} ns -> thread {} {:?}",
                h.to_ns(cs.begin),
                h.to_ns(cs.end),
                cs.target_thread,
                lossy(cs.name)
            )?,
        }
    }
    // Depths need the whole thread (parents come after children), so nest first; on a fault,
    // nest the records before it, print them, then report it.
    slots.resize(t.records_count() as usize, NestSlot::default());
    let nested = t.nest(kinds, h, slots, |_, _| {});
    let tree = nested.tree;
    for (i, r) in t.records(kinds).take(tree.len()).enumerate() {
        let Ok(r) = r else { break };
        let depth = tree.depth(i).unwrap_or(0);
        match r {
            Record::Block(b) => match &mut lines.lines {
                Lines::Json(w) => {
                    json_line(w, &mut lines.line, |s| json::block(h, t.id, &b, depth, s))?
                }
                Lines::Text(out) => {
                    let kind = if b.is_event() { "event" } else { "block" };
                    let name = if b.name.is_empty() {
                        names.get(b.id as usize).map_or(&[][..], |n| n)
                    } else {
                        b.name
                    };
                    let (bn, en) = (h.to_ns(b.begin), h.to_ns(b.end));
                    writeln!(
                        out,
                        "  {:indent$}{kind} {:?} {bn} .. {en} ns ({} ns) desc={}",
                        "",
                        lossy(name),
                        en.saturating_sub(bn),
                        b.id,
                        indent = 2 * depth as usize
                    )?;
                }
            },
            Record::Value(v) => match &mut lines.lines {
                Lines::Json(w) => json_line(w, &mut lines.line, |s| json::value(h, t.id, &v, s))?,
                Lines::Text(out) => {
                    let name = names.get(v.id as usize).map_or(&[][..], |n| n);
                    write!(
                        out,
                        "  {:indent$}value {:?} {} {}{} @ {} ns = ",
                        "",
                        lossy(name),
                        v.data_type.name(),
                        if v.is_array { "array " } else { "" },
                        v.data.len(),
                        h.to_ns(v.time),
                        indent = 2 * depth as usize
                    )?;
                    if let Some(s) = v.string_bytes() {
                        writeln!(out, "{:?}", lossy(s))?;
                    } else {
                        // Each element as its JSON, separated by ", ".
                        let items = &mut lines.line;
                        items.clear();
                        for (i, e) in v.elements().enumerate() {
                            if i > 0 {
                                items.push_str(", ");
                            }
                            json::element(e, items);
                        }
                        writeln!(out, "[{items}]")?;
                    }
                }
            },
        }
    }
    match nested.fault {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
