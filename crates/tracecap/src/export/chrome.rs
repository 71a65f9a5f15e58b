//! Chrome Trace Event JSON, written as a stream.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use super::{write_args, write_us};
use crate::timeline::{
    CounterValue, Event, Flow, Frame, Sink, StackId, StackSample, Track, TrackId, TrackKind,
};

/// Pid of the pseudo-process holding tracks that belong to no process.
const GLOBAL_PID: u64 = 0;
/// First tid given to tracks that are not threads (context switches, CPUs, async tracks, ...).
const SYNTHETIC_TID: u64 = 1 << 30;

#[derive(Clone, Copy, Debug)]
struct Place {
    pid: u64,
    tid: u64,
    /// Instant scope: `t` (thread), `p` (process) or `g` (global).
    scope: &'static str,
}

/// A [`Sink`] writing the Trace Event Format (`{"traceEvents":[...]}`) to `W`.
///
/// Times become microseconds with fractional nanoseconds. Processes and threads are named with
/// `M` metadata events; tracks that are not threads (context switches, CPUs, ...) get a synthetic
/// thread id of their own, named the same way. Slices are `B`/`E` (or `X`), instants `i`,
/// counter samples `C`, flows `s`/`t`/`f`.
///
/// Call stacks become the document's `stackFrames` dictionary (one node per distinct call path:
/// `name` the function, `category` the module, `parent` the caller's node) and stack samples its
/// `samples` array (`pid`, `tid`, `ts`, `name`, `sf` the innermost frame's node, `weight`), both
/// written after `traceEvents` by [`ChromeJson::finish`]; the samples are held until then (a few
/// dozen bytes each). Without stacks the document holds `traceEvents` alone. Call
/// [`ChromeJson::finish`] to close the document.
#[derive(Debug)]
pub struct ChromeJson<W: Write> {
    out: W,
    first: bool,
    places: HashMap<TrackId, Place>,
    /// Thread names (for counter series) and counter series names (with their thread's name).
    names: HashMap<TrackId, String>,
    tids: HashSet<(u64, u64)>,
    next_tid: u64,
    global_named: bool,
    open_flows: HashSet<u64>,
    /// The `stackFrames` entries (`"id":{...}`, comma-separated), one per call path node.
    frames_json: Vec<u8>,
    /// Node ids by parent node (0 for none), function and module.
    nodes: HashMap<(u64, String, String), u64>,
    /// The innermost node of each declared stack (0 for an empty stack).
    stacks: HashMap<StackId, u64>,
    /// The `samples` entries, comma-separated.
    samples_json: Vec<u8>,
}

impl<W: Write> ChromeJson<W> {
    /// Starts the document.
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
        Ok(ChromeJson {
            out,
            first: true,
            places: HashMap::new(),
            names: HashMap::new(),
            tids: HashSet::new(),
            next_tid: SYNTHETIC_TID,
            global_named: false,
            open_flows: HashSet::new(),
            frames_json: Vec::new(),
            nodes: HashMap::new(),
            stacks: HashMap::new(),
            samples_json: Vec::new(),
        })
    }

    /// Closes the document (with its `stackFrames` and `samples` when there were stacks),
    /// flushes and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        if self.stacks.is_empty() {
            self.out.write_all(b"\n]}\n")?;
        } else {
            self.out.write_all(b"\n],\n\"stackFrames\":{")?;
            self.out.write_all(&self.frames_json)?;
            self.out.write_all(b"},\n\"samples\":[")?;
            self.out.write_all(&self.samples_json)?;
            self.out.write_all(b"]}\n")?;
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn sep(&mut self) -> io::Result<()> {
        if self.first {
            self.first = false;
            self.out.write_all(b"\n")
        } else {
            self.out.write_all(b",\n")
        }
    }

    fn str(&mut self, s: &str) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, s).map_err(io::Error::from)
    }

    fn place(&self, track: TrackId) -> io::Result<Place> {
        self.places.get(&track).copied().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("event on undeclared track {}", track.0),
            )
        })
    }

    fn free_tid(&mut self, pid: u64) -> u64 {
        while self.tids.contains(&(pid, self.next_tid)) {
            self.next_tid += 1;
        }
        let tid = self.next_tid;
        self.next_tid += 1;
        self.tids.insert((pid, tid));
        tid
    }

    fn metadata(&mut self, what: &str, pid: u64, tid: u64, name: &str) -> io::Result<()> {
        self.sep()?;
        write!(
            self.out,
            "{{\"ph\":\"M\",\"name\":\"{what}\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":"
        )?;
        self.str(name)?;
        self.out.write_all(b"}}")
    }

    fn head(&mut self, ph: &str, p: &Place, ts: u64) -> io::Result<()> {
        self.sep()?;
        write!(
            self.out,
            "{{\"ph\":\"{ph}\",\"pid\":{},\"tid\":{},\"ts\":",
            p.pid, p.tid
        )?;
        write_us(&mut self.out, ts)
    }

    fn named(&mut self, e: &Event<'_>) -> io::Result<()> {
        self.out.write_all(b",\"name\":")?;
        self.str(e.name)?;
        if !e.category.is_empty() {
            self.out.write_all(b",\"cat\":")?;
            self.str(e.category)?;
        }
        if !e.args.is_empty() {
            self.out.write_all(b",\"args\":")?;
            write_args(&mut self.out, e.args)?;
        }
        Ok(())
    }

    fn flows(&mut self, p: &Place, ts: u64, flows: &[Flow]) -> io::Result<()> {
        for f in flows {
            let ph = if f.terminating {
                self.open_flows.remove(&f.id);
                "f"
            } else if self.open_flows.insert(f.id) {
                "s"
            } else {
                "t"
            };
            self.head(ph, p, ts)?;
            write!(
                self.out,
                ",\"name\":\"flow\",\"cat\":\"flow\",\"id\":{},\"bp\":\"e\"}}",
                f.id
            )?;
        }
        Ok(())
    }
}

/// `s` as a JSON string, appended to `out`.
fn push_json_str(out: &mut Vec<u8>, s: &str) -> io::Result<()> {
    serde_json::to_writer(out, s).map_err(io::Error::from)
}

impl<W: Write> Sink for ChromeJson<W> {
    type Error = io::Error;

    fn wants_stacks(&self) -> bool {
        true
    }

    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> io::Result<()> {
        if self.stacks.contains_key(&id) {
            return Ok(());
        }
        let mut parent = 0;
        for f in frames.iter().rev() {
            let key = (parent, f.function.to_string(), f.module.to_string());
            let next = self.nodes.len() as u64 + 1;
            let node = *self.nodes.entry(key).or_insert(next);
            if node == next {
                let out = &mut self.frames_json;
                if node > 1 {
                    out.push(b',');
                }
                write!(out, "\n\"{node}\":{{\"name\":")?;
                push_json_str(out, f.function)?;
                out.extend_from_slice(b",\"category\":");
                push_json_str(out, if f.module.is_empty() { "?" } else { f.module })?;
                if parent != 0 {
                    write!(out, ",\"parent\":\"{parent}\"")?;
                }
                out.push(b'}');
            }
            parent = node;
        }
        self.stacks.insert(id, parent);
        Ok(())
    }

    fn stack_sample(&mut self, s: &StackSample<'_>) -> io::Result<()> {
        let p = self.place(s.track)?;
        let node = self.stacks.get(&s.stack).copied().unwrap_or(0);
        let out = &mut self.samples_json;
        if !out.is_empty() {
            out.push(b',');
        }
        write!(out, "\n{{\"pid\":{},\"tid\":{},\"ts\":", p.pid, p.tid)?;
        write_us(&mut *out, s.ts)?;
        out.extend_from_slice(b",\"name\":");
        push_json_str(out, s.call.unwrap_or(s.kind.name()))?;
        if node != 0 {
            write!(out, ",\"sf\":\"{node}\"")?;
        }
        write!(out, ",\"weight\":{}}}", s.weight)
    }

    fn track(&mut self, track: &Track<'_>) -> io::Result<()> {
        let parent = match track.parent {
            Some(p) => Some((self.place(p)?, self.names.get(&p).cloned())),
            None => None,
        };
        let parent_place = parent.as_ref().map(|p| p.0);
        let mut name = None;
        let place = match track.kind {
            TrackKind::Process { pid } => {
                if !track.name.is_empty() {
                    self.metadata("process_name", pid, 0, track.name)?;
                }
                self.tids.insert((pid, 0));
                Place {
                    pid,
                    tid: 0,
                    scope: "p",
                }
            }
            TrackKind::Thread { pid, tid } => {
                let tid = if self.tids.insert((pid, tid)) {
                    tid
                } else {
                    self.free_tid(pid)
                };
                let thread_name = if track.name.is_empty() {
                    format!("thread {tid}")
                } else {
                    track.name.to_string()
                };
                self.metadata("thread_name", pid, tid, &thread_name)?;
                name = Some(thread_name);
                Place {
                    pid,
                    tid,
                    scope: "t",
                }
            }
            TrackKind::Counter => {
                let pid = parent_place.map_or(GLOBAL_PID, |p| p.pid);
                name = Some(match &parent {
                    Some((p, Some(thread))) if p.scope == "t" => {
                        format!("{} ({thread})", track.name)
                    }
                    _ => track.name.to_string(),
                });
                Place {
                    pid,
                    tid: 0,
                    scope: "p",
                }
            }
            TrackKind::Slices => {
                let (pid, scope) = match parent_place {
                    Some(p) => (p.pid, "t"),
                    None => (GLOBAL_PID, "g"),
                };
                if parent_place.is_none() && !self.global_named {
                    self.global_named = true;
                    self.metadata("process_name", GLOBAL_PID, 0, "Global")?;
                }
                let tid = self.free_tid(pid);
                self.metadata("thread_name", pid, tid, track.name)?;
                Place { pid, tid, scope }
            }
        };
        self.places.insert(track.id, place);
        if let Some(name) = name {
            self.names.insert(track.id, name);
        }
        Ok(())
    }

    fn begin(&mut self, e: &Event<'_>) -> io::Result<()> {
        let p = self.place(e.track)?;
        self.head("B", &p, e.ts)?;
        self.named(e)?;
        self.out.write_all(b"}")?;
        self.flows(&p, e.ts, e.flows)
    }

    fn end(&mut self, track: TrackId, ts: u64) -> io::Result<()> {
        let p = self.place(track)?;
        self.head("E", &p, ts)?;
        self.out.write_all(b"}")
    }

    fn complete(&mut self, e: &Event<'_>, dur: u64) -> io::Result<()> {
        let p = self.place(e.track)?;
        self.head("X", &p, e.ts)?;
        self.out.write_all(b",\"dur\":")?;
        write_us(&mut self.out, dur)?;
        self.named(e)?;
        self.out.write_all(b"}")?;
        self.flows(&p, e.ts, e.flows)
    }

    fn instant(&mut self, e: &Event<'_>) -> io::Result<()> {
        let p = self.place(e.track)?;
        self.head("i", &p, e.ts)?;
        write!(self.out, ",\"s\":\"{}\"", p.scope)?;
        self.named(e)?;
        self.out.write_all(b"}")?;
        self.flows(&p, e.ts, e.flows)
    }

    fn counter(&mut self, track: TrackId, ts: u64, value: CounterValue) -> io::Result<()> {
        let p = self.place(track)?;
        self.head("C", &p, ts)?;
        self.out.write_all(b",\"name\":")?;
        let name = self.names.get(&track).map_or("", String::as_str);
        serde_json::to_writer(&mut self.out, name).map_err(io::Error::from)?;
        match value {
            CounterValue::Int(x) => write!(self.out, ",\"args\":{{\"value\":{x}}}}}"),
            CounterValue::Double(x) if x.is_finite() => {
                write!(self.out, ",\"args\":{{\"value\":{x:?}}}}}")
            }
            CounterValue::Double(_) => write!(self.out, ",\"args\":{{\"value\":0}}}}"),
        }
    }
}
