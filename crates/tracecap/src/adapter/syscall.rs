//! syscall_capture `.dat` -> timeline.
//!
//! | capture | timeline |
//! |---|---|
//! | the capture (and each appended capture of a forked child) | a process track, pid from its header, named with the host's `uname` |
//! | thread (record's tid, else the header's pid) | thread track |
//! | syscall record | slice on its thread from the entry timestamp for its duration, named by the syscall (`syscall_<n>` if unassigned); args `ret` and `arg0`, `arg1`, ... |
//! | no timestamps (`RECORD_TIMES=false`) | calls laid one microsecond apart in file order, which the process name says |
//! | the header's uname | args of a `capture start` instant on the process track |
//!
//! Syscalls of one thread never nest; a call that would begin before the previous one on its thread
//! ended (duration rounding of the f32 field) starts at that end instead.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use tracecap_syscall::push::PushItem;
use tracecap_syscall::{Arg as SysArg, Entry, Header, PushParser, Syscall};
use tracecap_wire::Pushed;

use super::out::{Out, Written};
use super::text::{push_lossy, NO_ARG};
use crate::error::ConvertError;
use crate::timeline::{Arg, Event, NameId, Sink, TrackId, TrackKind, Value};

const CATEGORY: &str = "syscall";
/// Step of the synthetic clock for calls without timestamps.
const UNTIMED_STEP_NS: u64 = 1000;
const ARG_NAMES: [&str; 8] = [
    "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7",
];
/// Longest argument text written (buffers are cut, with their full length in the text).
const MAX_TEXT: usize = 256;

struct State<'c, S: Sink> {
    out: Out<'c, S>,
    process: TrackId,
    pid: i32,
    /// Each thread's number in `tracks`, by (process track, tid).
    threads: BTreeMap<(u64, i32), usize>,
    /// Each thread's track and the end of its last call, by number.
    tracks: Vec<(TrackId, u64)>,
    /// The thread of the last call and its number: most calls follow one of the same thread.
    last: Option<((u64, i32), usize)>,
    clock: u64,
    untimed: bool,
    texts: Vec<String>,
    label: String,
}

/// Converts a syscall_capture file, driving `sink`: the file's bytes through the crate's push
/// parser, as a [`Converter`] of bytes that arrive would see them.
pub fn convert<S: Sink>(data: &[u8], sink: &mut S) -> Result<(), ConvertError<S::Error>> {
    let mut converter = Converter::new(sink, data.len() as u64);
    let mut parser = PushParser::new();
    let mut at = 0usize;
    loop {
        let rest = data.get(at..).unwrap_or_default();
        let answer = match parser.parse(rest, true) {
            Ok(answer) => answer,
            Err(e) => {
                converter.fault()?;
                return Err(e.into());
            }
        };
        match answer {
            Pushed::Item { consumed, item } => {
                converter.item(item)?;
                at = at.saturating_add(consumed);
            }
            Pushed::NeedMore { .. } | Pushed::End => break,
        }
    }
    converter.finish()
}

/// Whether [`convert_arriving`] converts as the bytes arrive (it does).
pub const CONVERTS_ARRIVING: bool = true;

/// Converts a capture whose bytes arrive from `source` into `sink` as they come: each record
/// is converted as it completes, so `buffer` holds one record and one piece.
#[cfg(feature = "std")]
pub fn convert_arriving<S: Sink>(
    source: &mut crate::open::Arriving,
    buffer: &mut Vec<u8>,
    sink: &mut S,
) -> Option<crate::push::Arrived<S::Error>> {
    let mut converter = Converter::new(sink, 0);
    let mut parser = PushParser::new();
    let pumped = crate::push::pump(source, &mut parser, buffer, |item| converter.item(item));
    Some(match pumped {
        Ok(p) => Ok(converter.finish().map(|()| p)),
        Err(crate::push::PumpError::Io(e)) => Err(e),
        Err(crate::push::PumpError::Parse(e)) => {
            Ok(converter.fault().and(Err(ConvertError::Format(e.into()))))
        }
        Err(crate::push::PumpError::Each(e)) => Ok(Err(e)),
    })
}

/// A conversion fed the items of the crate's [`PushParser`] one at a time, so that a capture
/// arriving through a pipe is converted in the memory of one record.
///
/// Whether the capture has timestamps is decided by its first system call (without them, calls
/// are laid one microsecond apart), and a process track's name says which: a header is held
/// (its fields copied) until that call or the end.
pub struct Converter<'c, S: Sink> {
    st: State<'c, S>,
    /// Headers met before the first call.
    pending: Vec<Process>,
    /// Whether the first call was met (and `st.untimed` decided).
    decided: bool,
    /// The capture's size, when known, for progress (0: unknown).
    total: u64,
    items: u64,
}

impl<'c, S: Sink> Converter<'c, S> {
    /// A conversion into `sink`; `total` is the capture's size in bytes, or 0 when unknown.
    pub fn new(sink: &'c mut S, total: u64) -> Self {
        Converter {
            st: State {
                out: Out::new(sink, 1),
                process: TrackId(0),
                pid: 0,
                threads: BTreeMap::new(),
                tracks: Vec::new(),
                last: None,
                clock: 0,
                untimed: false,
                texts: Vec::new(),
                label: String::new(),
            },
            pending: Vec::new(),
            decided: false,
            total,
            items: 0,
        }
    }

    /// Converts the next item of the push parser.
    pub fn item(&mut self, item: PushItem<'_>) -> Written<S> {
        if self.items % 65536 == 0 {
            let at = match &item {
                PushItem::Header(h) => h.offset,
                PushItem::Entry(e) => e.offset(),
                PushItem::GapPart(g) => g.offset,
            };
            self.st.out.progress(at, self.total.max(at));
        }
        self.items += 1;
        match item {
            PushItem::Header(h) | PushItem::Entry(Entry::Header(h)) => {
                let p = Process::of(&h);
                if self.decided {
                    self.st.process(&p)
                } else {
                    self.pending.push(p);
                    Ok(())
                }
            }
            PushItem::Entry(Entry::Syscall(call)) => {
                if !self.decided {
                    self.decide(call.timestamp_ns.is_none())?;
                }
                self.st.call(&call)
            }
            PushItem::Entry(Entry::Filler(_) | Entry::Gap(_)) | PushItem::GapPart(_) => Ok(()),
        }
    }

    /// Ends the conversion: headers still held (a capture without calls) go to the sink.
    pub fn finish(mut self) -> Written<S> {
        if !self.decided {
            self.decide(false)?;
        }
        self.st.out.progress(self.total, self.total);
        Ok(())
    }

    /// Ends the conversion at a fault of the capture: headers still held go to the sink, as
    /// they would have before the fault was read. Call it, then report the fault.
    pub fn fault(mut self) -> Written<S> {
        if !self.decided {
            self.decide(false)?;
        }
        Ok(())
    }

    fn decide(&mut self, untimed: bool) -> Written<S> {
        self.decided = true;
        self.st.untimed = untimed;
        for p in core::mem::take(&mut self.pending) {
            self.st.process(&p)?;
        }
        Ok(())
    }
}

/// What a process track is made from: a header's fields, copied.
struct Process {
    pid: i32,
    epoch_seconds: i64,
    clock_reference_ns: Option<i64>,
    /// `sysname`, `nodename`, `release`, `version`, `machine`, `domainname`.
    uname: Option<[String; 6]>,
}

impl Process {
    fn of(h: &Header<'_>) -> Process {
        Process {
            pid: h.pid,
            epoch_seconds: h.epoch_seconds,
            clock_reference_ns: h.clock_reference_ns,
            uname: h.uname().map(|u| {
                [
                    u.sysname,
                    u.nodename,
                    u.release,
                    u.version,
                    u.machine,
                    u.domainname,
                ]
                .map(|b| String::from_utf8_lossy(b).into_owned())
            }),
        }
    }
}

impl<S: Sink> State<'_, S> {
    fn process(&mut self, h: &Process) -> Written<S> {
        self.pid = h.pid;
        self.label.clear();
        let _ = write!(self.label, "syscall_capture pid {}", h.pid);
        if let Some([sysname, nodename, release, _, machine, _]) = &h.uname {
            let _ = write!(self.label, " on {nodename} ({sysname} {release} {machine})");
        }
        if self.untimed {
            self.label
                .push_str(" [no timestamps: calls laid out 1 us apart in file order]");
        }
        let id = self.out.track(
            None,
            TrackKind::Process {
                pid: u64::from(h.pid.unsigned_abs()),
            },
            &self.label,
        )?;
        self.process = id;
        // Synthetic clock: where the next call goes. Recorded times: the clock reference (the base
        // of the record timestamps) when the header has one, else the previous call's time.
        let start = match h.clock_reference_ns {
            Some(t) if !self.untimed => u64::try_from(t).unwrap_or(0),
            _ => self.clock,
        };
        let mut args: Vec<Arg<'_>> = Vec::new();
        args.push(Arg {
            name: "epoch_seconds",
            value: Value::Int(h.epoch_seconds),
        });
        args.push(Arg {
            name: "timing",
            value: Value::Str(if self.untimed {
                "synthetic"
            } else {
                "recorded"
            }),
        });
        if let Some(fields) = &h.uname {
            const NAMES: [&str; 6] = [
                "sysname",
                "nodename",
                "release",
                "version",
                "machine",
                "domainname",
            ];
            for (name, v) in NAMES.into_iter().zip(fields) {
                args.push(Arg {
                    name,
                    value: Value::Str(v),
                });
            }
        }
        self.out
            .instant(&Event::new(id, start, "capture start", CATEGORY, &args))
    }

    /// The number of thread `tid` of the current process in `tracks`, declaring its track at
    /// the thread's first call.
    fn thread(&mut self, tid: i32) -> Result<usize, ConvertError<S::Error>> {
        let key = (self.process.0, tid);
        match self.last {
            Some((last, number)) if last == key => return Ok(number),
            _ => {}
        }
        if let Some(&number) = self.threads.get(&key) {
            self.last = Some((key, number));
            return Ok(number);
        }
        let mut name = String::new();
        let _ = write!(name, "thread {tid}");
        let id = self.out.track(
            Some(self.process),
            TrackKind::Thread {
                pid: u64::from(self.pid.unsigned_abs()),
                tid: u64::from(tid.unsigned_abs()),
            },
            &name,
        )?;
        let number = self.tracks.len();
        self.tracks.push((id, 0));
        self.threads.insert(key, number);
        self.last = Some((key, number));
        Ok(number)
    }

    fn call(&mut self, call: &Syscall<'_>) -> Written<S> {
        let tid = call.tid.unwrap_or(self.pid);
        let thread = self.thread(tid)?;
        let Some(&(track, prev_end)) = self.tracks.get(thread) else {
            return Ok(()); // never: `thread` numbers a thread of `tracks`
        };
        let (ts, dur) = match call.timestamp_ns {
            Some(t) if !self.untimed => {
                let dur = call
                    .duration_ns
                    .filter(|d| d.is_finite() && *d > 0.0)
                    .map_or(0, |d| d as u64);
                (u64::try_from(t).unwrap_or(0), dur)
            }
            _ => {
                let t = self.clock;
                self.clock = self.clock.saturating_add(UNTIMED_STEP_NS);
                (t, UNTIMED_STEP_NS)
            }
        };
        let ts = ts.max(prev_end);
        let dur = dur.min(u64::MAX - ts);
        if !self.untimed {
            self.clock = self.clock.max(ts);
        }
        if let Some(t) = self.tracks.get_mut(thread) {
            t.1 = ts.saturating_add(dur);
        }
        // Texts of the arguments, in reused buffers (none when the sink reads no arguments).
        let wanted = if self.out.wants_args() {
            ARG_NAMES.len()
        } else {
            0
        };
        // One walk over the arguments: an integer is kept as it is, anything else as its text.
        let mut ints = [None; ARG_NAMES.len()];
        let mut n = 0usize;
        for (a, int) in call.args().take(wanted).zip(ints.iter_mut()) {
            if self.texts.len() <= n {
                self.texts.push(String::new());
            }
            if let SysArg::Int(x) = a {
                *int = Some(x);
            } else if let Some(text) = self.texts.get_mut(n) {
                text.clear();
                arg_text(text, &a);
            }
            n += 1;
        }
        // The return value and up to ARG_NAMES.len() arguments, on the stack.
        let mut args = [NO_ARG; ARG_NAMES.len() + 1];
        let mut used = 0;
        let ret = (self.out.wants_args() && call.result.is_some()).then(|| Arg {
            name: "ret",
            value: Value::Int(call.ret()),
        });
        let rest = ints
            .iter()
            .zip(ARG_NAMES.iter().zip(self.texts.iter()))
            .take(n)
            .map(|(int, (name, text))| Arg {
                name,
                value: match *int {
                    Some(x) => Value::Int(x),
                    None => Value::Str(text),
                },
            });
        for (slot, arg) in args.iter_mut().zip(ret.into_iter().chain(rest)) {
            *slot = arg;
            used += 1;
        }
        let args = args.get(..used).unwrap_or(&[]);
        self.label.clear();
        let name: &str = match call.name() {
            Some(name) => name,
            None => {
                let _ = write!(self.label, "syscall_{}", call.number);
                &self.label
            }
        };
        // The name is the call's number's, known or not.
        let event = Event::new(track, ts, name, CATEGORY, args).named(NameId(call.number.into()));
        self.out.complete(&event, dur)
    }
}

fn bytes_text(out: &mut String, data: &[u8]) {
    let cut = data.get(..MAX_TEXT).unwrap_or(data);
    push_lossy(out, cut);
    if cut.len() < data.len() {
        let _ = write!(out, "... ({} bytes)", data.len());
    }
}

fn arg_text(out: &mut String, a: &SysArg<'_>) {
    match a {
        // An integer goes to the sink as a number, not as text.
        SysArg::Int(_) => {}
        SysArg::Data(d) => bytes_text(out, d),
        SysArg::Partial { original_len, data } => {
            bytes_text(out, data);
            let _ = write!(out, " [{} of {original_len} bytes captured]", data.len());
        }
        other => {
            let _ = write!(out, "{other:?}");
        }
    }
}
