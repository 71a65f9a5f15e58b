//! Exporters: [`timeline::Sink`](crate::timeline::Sink)s that write a standard trace or profile
//! file as they are called. Each keeps only per-track and interning state (bounded by the number
//! of tracks, distinct names, stacks and call paths, never by the number of events), except that
//! [`ChromeJson`] holds its stack samples (a few dozen bytes each) until the document's `samples`
//! array, which follows the events.

mod chrome;
mod perfetto;
mod pprof;
mod protobuf;
mod to_target;

pub use chrome::ChromeJson;
pub use perfetto::Perfetto;
pub use pprof::Pprof;
pub use to_target::TargetWriter;

/// The trace files the exporters write, by name and by file extension.
///
/// ```
/// use std::path::Path;
/// use tracecap::export::Target;
///
/// assert_eq!(Target::from_name("perfetto"), Some(Target::Perfetto));
/// assert_eq!(Target::from_path(Path::new("run.JSON")), Some(Target::Chrome));
/// assert_eq!(Target::from_path(Path::new("cpu.pb.gz")), Some(Target::Pprof));
/// assert_eq!(Target::from_path(Path::new("run.txt")), None);
/// assert_eq!(Target::Chrome.name(), "chrome");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Chrome Trace Event JSON, written by [`ChromeJson`] (`.json`).
    Chrome,
    /// A Perfetto protobuf trace, written by [`Perfetto`] (`.pftrace`, `.perfetto-trace`).
    Perfetto,
    /// A gzip-compressed pprof profile, written by [`Pprof`] (`.pb.gz`, `.pprof`).
    Pprof,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 3] = [Target::Chrome, Target::Perfetto, Target::Pprof];

    /// `chrome`, `perfetto` or `pprof`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Chrome => "chrome",
            Target::Perfetto => "perfetto",
            Target::Pprof => "pprof",
        }
    }

    /// The target named `name` (as [`Target::name`] spells it).
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The target a file name's extension asks for, in any case: `.json` for Chrome JSON,
    /// `.pftrace` or `.perfetto-trace` for Perfetto, `.pb.gz` or `.pprof` for pprof.
    pub fn from_path(path: &std::path::Path) -> Option<Target> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".json") {
            Some(Target::Chrome)
        } else if name.ends_with(".pftrace") || name.ends_with(".perfetto-trace") {
            Some(Target::Perfetto)
        } else if name.ends_with(".pb.gz") || name.ends_with(".pprof") {
            Some(Target::Pprof)
        } else {
            None
        }
    }
}

/// The generated Perfetto protobuf messages (a minimal subset of Perfetto's trace schema, with
/// Perfetto's field numbers).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod perfetto_proto {
    include!("perfetto_generated.rs");
}

/// The generated pprof protobuf messages (the `perftools.profiles` messages of google/pprof's
/// `profile.proto`, with its field numbers).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pprof_proto {
    include!("pprof_generated.rs");
}

/// Writes an event's arguments as one JSON object (`{"name":value,...}`), as Chrome JSON's
/// `args` holds them: numbers as numbers, non-finite doubles as strings (`"NaN"`, `"inf"`).
pub fn write_args(
    out: &mut impl std::io::Write,
    args: &[crate::timeline::Arg<'_>],
) -> std::io::Result<()> {
    use crate::timeline::Value;
    out.write_all(b"{")?;
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, a.name)?;
        out.write_all(b":")?;
        match a.value {
            Value::Bool(b) => write!(out, "{b}")?,
            Value::Int(x) => write!(out, "{x}")?,
            Value::Uint(x) => write!(out, "{x}")?,
            Value::Double(x) if x.is_finite() => write!(out, "{x:?}")?,
            Value::Double(x) => serde_json::to_writer(&mut *out, &format!("{x}"))?,
            Value::Str(s) => serde_json::to_writer(&mut *out, s)?,
        }
    }
    out.write_all(b"}")
}

/// Writes `ns` nanoseconds as microseconds with the nanoseconds as a fraction (`1234.567`).
pub(crate) fn write_us(out: &mut impl std::io::Write, ns: u64) -> std::io::Result<()> {
    let frac = ns % 1000;
    if frac == 0 {
        write!(out, "{}", ns / 1000)
    } else {
        write!(out, "{}.{:03}", ns / 1000, frac)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{Arg, CounterValue, Event, Flow, Sink, Track, TrackId, TrackKind, Value};

    fn us(ns: u64) -> String {
        let mut v = Vec::new();
        write_us(&mut v, ns).unwrap(); // ok: unit test
        String::from_utf8(v).unwrap() // ok: unit test
    }

    #[test]
    fn microseconds_keep_every_nanosecond() {
        assert_eq!(us(0), "0");
        assert_eq!(us(1), "0.001");
        assert_eq!(us(1_000), "1");
        assert_eq!(us(1_234_567), "1234.567");
        assert_eq!(us(u64::MAX), "18446744073709551.615");
    }

    /// Drives a sink through every kind of call, odd values included.
    fn drive<S: Sink>(s: &mut S) -> Result<(), S::Error> {
        let (p, t, c, g) = (TrackId(1), TrackId(2), TrackId(3), TrackId(4));
        s.track(&Track {
            id: p,
            parent: None,
            kind: TrackKind::Process { pid: 1 << 40 },
            name: "big \"pid\"",
        })?;
        s.track(&Track {
            id: t,
            parent: Some(p),
            kind: TrackKind::Thread {
                pid: 1 << 40,
                tid: 5,
            },
            name: "",
        })?;
        s.track(&Track {
            id: c,
            parent: Some(t),
            kind: TrackKind::Counter,
            name: "mem",
        })?;
        s.track(&Track {
            id: g,
            parent: None,
            kind: TrackKind::Slices,
            name: "markers",
        })?;
        let args = [
            Arg {
                name: "nan",
                value: Value::Double(f64::NAN),
            },
            Arg {
                name: "s",
                value: Value::Str("a\n\"b\"\u{1}"),
            },
            Arg {
                name: "u",
                value: Value::Uint(u64::MAX),
            },
            Arg {
                name: "b",
                value: Value::Bool(true),
            },
        ];
        let flows = [Flow {
            id: 9,
            terminating: false,
        }];
        let ev = |track, ts, name, flows| Event {
            track,
            ts,
            name,
            name_id: None,
            category: "cat",
            args: &args,
            flows,
        };
        s.begin(&ev(t, 10, "outer", &flows[..]))?;
        s.complete(&ev(t, 11, "leaf", &[]), 2)?;
        s.end(t, 20)?;
        s.instant(&ev(
            g,
            15,
            "mark",
            &[Flow {
                id: 9,
                terminating: true,
            }][..],
        ))?;
        s.counter(c, 12, CounterValue::Double(1.5))?;
        s.counter(c, 13, CounterValue::Int(-3))?;
        Ok(())
    }

    #[test]
    fn chrome_json_is_valid_json_with_names() {
        let mut w = ChromeJson::new(Vec::new()).unwrap(); // ok: unit test
        drive(&mut w).unwrap(); // ok: unit test
        let bytes = w.finish().unwrap(); // ok: unit test
        let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap(); // ok: unit test
        let events = doc["traceEvents"].as_array().unwrap(); // ok: unit test
        let phases: String = events.iter().map(|e| e["ph"].as_str().unwrap()).collect(); // ok: unit test
        assert_eq!(phases, "MMMMBsXEifCC");
        assert_eq!(events[0]["args"]["name"], "big \"pid\"");
        assert_eq!(events[4]["args"]["s"], "a\n\"b\"\u{1}");
        assert_eq!(events[4]["args"]["nan"], "NaN");
        assert_eq!(events[6]["dur"], 0.002);
        assert_eq!(events[10]["name"], "mem (thread 5)");
    }

    #[test]
    fn chrome_rejects_undeclared_tracks() {
        let mut w = ChromeJson::new(Vec::new()).unwrap(); // ok: unit test
        assert!(w.end(TrackId(7), 0).is_err());
    }

    #[test]
    fn perfetto_interns_and_falls_back_for_wide_pids() {
        use prost::Message;
        let mut w = Perfetto::new(Vec::new()).unwrap(); // ok: unit test
        drive(&mut w).unwrap(); // ok: unit test
        drive(&mut w).unwrap_or(()); // same names again: interned once
        let bytes = w.finish().unwrap(); // ok: unit test
        let trace = perfetto_proto::Trace::decode(bytes.as_slice()).unwrap(); // ok: unit test
        let first = &trace.packet[0];
        assert_eq!(first.sequence_flags, Some(1));
        // A pid past i32 gives a named track, not a process descriptor.
        let process = trace.packet[1].track_descriptor.as_ref().unwrap(); // ok: unit test
        assert!(process.process.is_none());
        assert_eq!(process.name.as_deref(), Some("big \"pid\""));
        let names: usize = trace
            .packet
            .iter()
            .filter_map(|p| p.interned_data.as_ref())
            .map(|d| d.event_names.len())
            .sum();
        assert_eq!(names, 3, "outer, leaf, mark interned once each");
    }
}
