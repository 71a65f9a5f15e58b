//! The least each format crate does to reach the records of every capture under a directory:
//! what a reader of slices cannot skip, whatever it builds from them. Per format, on one thread,
//! over the files read into memory first (no I/O, no page faults), best of N:
//!
//! - apitrace: decompressing the stream, then also framing every event (`Events::next_parsed`);
//! - Orbit: framing every event and reading its kind; then the fair floor of `slices`: also the
//!   typed fields (thread, start and end) of the kinds that make rows, and that with Orbit's
//!   message check of every event (`validate::check_event`, which decides where a damaged
//!   capture's good events end, as Orbit's own reader does);
//! - EasyProfiler: every record with its nesting level (`Events::visit`), which is what `slices`
//!   needs of a record (its times, descriptor and depth);
//! - syscall_capture: every entry's fixed fields;
//! - WTF: every event's time, zone and definition; then the fair floor of `slices`: also the name
//!   a renamed scope takes from its argument 0 (looked up in its chunk's strings, UTF-8 checked).
//!
//! A walk stops at a capture's first fault. The format is taken from the file's extension.
//!
//! ```text
//! parse_floor DIR [runs]
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The captures of one format, and the walk timed over them.
struct Format {
    name: &'static str,
    extension: &'static str,
    walk: fn(&[u8]) -> u64,
    files: Vec<Vec<u8>>,
}

fn apitrace_decompress(file: &[u8]) -> u64 {
    tracecap_apitrace::decompress(file).map_or(0, |d| d.data.len() as u64)
}

fn apitrace_events(file: &[u8]) -> u64 {
    let Ok(stream) = tracecap_apitrace::decompress(file) else {
        return 0;
    };
    let Ok(trace) = tracecap_apitrace::Stream::parse(&stream.data) else {
        return 0;
    };
    let mut events = trace.events();
    let mut n = 0;
    while let Some(Ok(_)) = events.next_parsed() {
        n += 1;
    }
    n
}

fn orbit(file: &[u8]) -> u64 {
    let Ok(capture) = tracecap_orbit::Capture::parse(file) else {
        return 0;
    };
    capture
        .events()
        .map_while(Result::ok)
        .fold(0, |acc, ev| acc + ev.kind.index() as u64)
}

/// The kinds of Orbit event that become rows of `slices` or `instants`, read through their typed
/// views: `(thread, start, end)` of each.
fn orbit_slices(file: &[u8], check: bool) -> u64 {
    use tracecap_orbit::views::EventView;
    use tracecap_orbit::EventKind as K;
    let Ok(capture) = tracecap_orbit::Capture::parse(file) else {
        return 0;
    };
    let mut acc = 0u64;
    for ev in capture.events() {
        let Ok(ev) = ev else { break };
        if check && tracecap_orbit::validate::check_event(&ev).is_err() {
            break;
        }
        let makes_rows = matches!(
            ev.kind,
            K::FunctionCall
                | K::ApiScopeStart
                | K::ApiScopeStop
                | K::ApiScopeStartAsync
                | K::ApiScopeStopAsync
                | K::ApiStringEvent
                | K::SchedulingSlice
                | K::ThreadStateSlice
                | K::GpuJob
                | K::TracepointEvent
                | K::PresentEvent
        );
        if !makes_rows {
            continue;
        }
        let Ok(view) = ev.view() else { break };
        let (start, end) = view.time_span().unwrap_or_default();
        let name = match view {
            EventView::FunctionCall(v) => v.function_id,
            _ => 0,
        };
        acc ^= u64::from(view.tid().unwrap_or(0)) ^ start ^ end.rotate_left(7) ^ name;
    }
    acc
}

fn orbit_typed(file: &[u8]) -> u64 {
    orbit_slices(file, false)
}

fn orbit_checked(file: &[u8]) -> u64 {
    orbit_slices(file, true)
}

fn easyprofiler(file: &[u8]) -> u64 {
    use tracecap_easyprofiler::{Capture, Error, KindTable, Nest, Record, Visitor};
    struct Levels(u64);
    impl<'a> Visitor<'a> for Levels {
        #[inline(always)]
        fn record(&mut self, _: Record<'a>, nest: Nest) -> Result<(), Error> {
            self.0 += u64::from(nest.height);
            Ok(())
        }
    }
    let Ok(capture) = Capture::parse(file) else {
        return 0;
    };
    let Ok(kinds) = KindTable::new(&capture) else {
        return 0;
    };
    let mut levels = Levels(0);
    let _ = capture
        .events_with(&kinds)
        .visit(&mut Vec::new(), &mut levels);
    levels.0
}

fn syscall(file: &[u8]) -> u64 {
    use tracecap_syscall::{Capture, Entry};
    let Ok(capture) = Capture::parse(file) else {
        return 0;
    };
    capture
        .entries()
        .map_while(Result::ok)
        .fold(0, |acc, e| match e {
            Entry::Syscall(s) => {
                acc ^ u64::from(s.number) ^ s.timestamp_ns.unwrap_or(0) as u64 ^ s.ret() as u64
            }
            _ => acc + 1,
        })
}

fn wtf(file: &[u8]) -> u64 {
    let Ok(trace) = tracecap_wtf::Capture::parse(file) else {
        return 0;
    };
    trace.events().map_while(Result::ok).fold(0, |acc, ev| {
        acc ^ u64::from(ev.time) ^ u64::from(ev.def.flags)
    })
}

/// Every event as [`wtf`] reads it, and a renamed scope's name (argument 0 of a scope enter,
/// time stamp or mark) found in its chunk's strings and checked as UTF-8. The string indexes of
/// the last four chunks are kept.
fn wtf_names(file: &[u8]) -> u64 {
    let Ok(trace) = tracecap_wtf::Capture::parse(file) else {
        return 0;
    };
    let mut indexes = Vec::with_capacity(KEPT_INDEXES);
    trace.events().map_while(Result::ok).fold(0, |acc, ev| {
        let acc = acc ^ u64::from(ev.time) ^ u64::from(ev.def.flags);
        match renamed_scope(&ev, &mut indexes) {
            Some(len) => acc.rotate_left(1) ^ len as u64,
            None => acc,
        }
    })
}

/// The string indexes [`wtf_names`] keeps.
const KEPT_INDEXES: usize = 4;

/// The length of the name a renamed scope takes from its argument 0, if `ev` is one.
fn renamed_scope<'a>(
    ev: &tracecap_wtf::Event<'a>,
    indexes: &mut Vec<tracecap_wtf::StringIndex<'a>>,
) -> Option<usize> {
    use tracecap_wtf::{Builtin, Str, StringIndex, Value};
    let renamed = matches!(
        ev.builtin(),
        Some(Builtin::ScopeEnter | Builtin::TimeStamp | Builtin::Mark)
    );
    if !renamed {
        return None;
    }
    let (Value::Ascii(s) | Value::Utf8(s) | Value::Any(s)) = ev.arg(0)? else {
        return None;
    };
    let bytes = match s {
        Str::Null => None,
        Str::Inline(b) => Some(b),
        Str::Ordinal(n) => {
            let at = ev.strings.offset();
            let i = match indexes.iter().position(|i| i.table().offset() == at) {
                Some(i) => i,
                None => {
                    if indexes.len() == KEPT_INDEXES {
                        indexes.remove(0);
                    }
                    indexes.push(StringIndex::new(ev.strings));
                    indexes.len() - 1
                }
            };
            indexes.get(i).and_then(|i| i.resolve(n))
        }
    };
    bytes
        .and_then(|b| std::str::from_utf8(b).ok())
        .map(str::len)
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files_under(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: parse_floor DIR [runs]");
        return ExitCode::FAILURE;
    };
    let runs: u32 = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    let mut paths = Vec::new();
    if let Err(e) = files_under(Path::new(dir), &mut paths) {
        eprintln!("{dir}: {e}");
        return ExitCode::FAILURE;
    }
    let format = |name, extension, walk| Format {
        name,
        extension,
        walk,
        files: Vec::new(),
    };
    let mut formats = [
        format("apitrace, decompress", "trace", apitrace_decompress),
        format("apitrace, events", "trace", apitrace_events),
        format("Orbit", "orbit", orbit),
        format("Orbit, typed slices", "orbit", orbit_typed),
        format("Orbit, checked, typed", "orbit", orbit_checked),
        format("EasyProfiler", "prof", easyprofiler),
        format("syscall_capture", "dat", syscall),
        format("WTF", "wtf-trace", wtf),
        format("WTF, renamed scopes", "wtf-trace", wtf_names),
    ];
    for path in &paths {
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        for f in formats.iter_mut().filter(|f| f.extension == extension) {
            match std::fs::read(path) {
                Ok(bytes) => f.files.push(bytes),
                Err(e) => eprintln!("{}: {e}", path.display()),
            }
        }
    }
    println!(
        "{:<22} {:>6} {:>14} {:>10} {:>9}",
        "walk", "files", "bytes", "seconds", "MB/s"
    );
    for f in &formats {
        let bytes: usize = f.files.iter().map(Vec::len).sum();
        let (secs, digest) = tracecap_benches::best_of(runs, || {
            f.files
                .iter()
                .fold(0u64, |acc, file| acc ^ (f.walk)(std::hint::black_box(file)))
        });
        println!(
            "{:<22} {:>6} {:>14} {:>10.3} {:>9.0}   ({digest:x})",
            f.name,
            f.files.len(),
            bytes,
            secs,
            bytes as f64 / secs / 1e6
        );
    }
    ExitCode::SUCCESS
}
