//! apitrace backtraces as call stacks: on every trace of the corpus, the stacks the adapter gives
//! equal the `Backtrace:` blocks of `apitrace dump` (the corpus's oracle dumps), call by call (a
//! call's number is its start on the synthetic clock); on
//! hand-made traces, every part a frame may lack, stacks declared once, a backtrace among a
//! LEAVE's details, and no allocation per call once a stack is declared; and the stacks in the
//! Perfetto, Chrome JSON and pprof outputs.
#![cfg(all(feature = "apitrace", feature = "std"))]

mod common;

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Read;

use common::apitrace::{writer, DRAW, SWAP};
use prost::Message;
use tracecap::adapter::apitrace::TICK_NS;
use tracecap::export::perfetto_proto::Trace;
use tracecap::export::{pprof_proto as pp, ChromeJson, Perfetto, Pprof};
use tracecap::timeline::{
    CounterValue, Event, Frame, Sink, StackId, StackKind, StackSample, Track, TrackId, TrackKind,
};
use tracecap::Format;
use tracecap_apitrace::write::{wrap, WDetail, WFrame, WValue};
use tracecap_apitrace::Container;
use tracecap_testkit::{allocs, corpus_paths, CountingAlloc};

#[global_allocator]
static COUNTING: CountingAlloc = CountingAlloc;

/// A frame as the sink got it, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Owned {
    function: String,
    module: String,
    file: String,
    line: Option<u32>,
    address: Option<u64>,
}

/// One call's backtrace: its thread's tid, its time, the call's name and its stack.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Call {
    tid: u64,
    ts: u64,
    name: String,
    stack: StackId,
}

/// Keeps the stacks and the stack samples; counts stacks declared twice.
#[derive(Default)]
struct Stacks {
    tids: HashMap<TrackId, u64>,
    stacks: HashMap<StackId, Vec<Owned>>,
    declared_twice: u64,
    calls: Vec<Call>,
}

impl Sink for Stacks {
    type Error = Infallible;
    fn track(&mut self, t: &Track<'_>) -> Result<(), Infallible> {
        if let TrackKind::Thread { tid, .. } = t.kind {
            self.tids.insert(t.id, tid);
        }
        Ok(())
    }
    fn begin(&mut self, _: &Event<'_>) -> Result<(), Infallible> {
        Ok(())
    }
    fn end(&mut self, _: TrackId, _: u64) -> Result<(), Infallible> {
        Ok(())
    }
    fn complete(&mut self, _: &Event<'_>, _: u64) -> Result<(), Infallible> {
        Ok(())
    }
    fn instant(&mut self, _: &Event<'_>) -> Result<(), Infallible> {
        Ok(())
    }
    fn counter(&mut self, _: TrackId, _: u64, _: CounterValue) -> Result<(), Infallible> {
        Ok(())
    }
    fn stack(&mut self, id: StackId, frames: &[Frame<'_>]) -> Result<(), Infallible> {
        let owned = frames
            .iter()
            .map(|f| Owned {
                function: f.function.to_owned(),
                module: f.module.to_owned(),
                file: f.file.to_owned(),
                line: f.line,
                address: f.address,
            })
            .collect();
        if self.stacks.insert(id, owned).is_some() {
            self.declared_twice += 1;
        }
        Ok(())
    }
    fn stack_sample(&mut self, s: &StackSample<'_>) -> Result<(), Infallible> {
        assert_eq!(s.kind, StackKind::Call);
        assert_eq!(s.weight, 1);
        assert!(
            self.stacks.contains_key(&s.stack),
            "a stack sampled before it was declared"
        );
        self.calls.push(Call {
            tid: self.tids[&s.track],
            ts: s.ts,
            name: s.call.expect("a call's name").to_owned(),
            stack: s.stack,
        });
        Ok(())
    }
    fn wants_stacks(&self) -> bool {
        true
    }
}

fn stacks_of(bytes: &[u8]) -> Stacks {
    let mut sink = Stacks::default();
    tracecap::convert(Format::Apitrace, bytes, &mut sink).expect("converts");
    sink
}

/// A frame printed as `apitrace dump` prints it: `module[: function][+0xoffset][: file[:line]]`,
/// with `?` for no module. A function that is the frame's own `module+0xoffset` form is none.
fn dump_line(f: &Owned) -> String {
    let module = if f.module.is_empty() { "?" } else { &f.module };
    let offset = f.address.map(|o| format!("+0x{o:x}")).unwrap_or_default();
    let mut line = module.to_owned();
    if f.function != format!("{module}{offset}") {
        line.push_str(": ");
        line.push_str(&f.function);
    }
    line.push_str(&offset);
    if !f.file.is_empty() {
        line.push_str(": ");
        line.push_str(&f.file);
        if let Some(l) = f.line {
            line.push_str(&format!(":{l}"));
        }
    }
    line
}

/// The calls of an `apitrace dump` text that have a backtrace: number, name and frame lines.
fn oracle_backtraces(dump: &str) -> Vec<(u64, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut last: Option<(u64, String)> = None;
    let mut lines = dump.lines().peekable();
    while let Some(line) = lines.next() {
        if line == "Backtrace:" {
            let mut frames = Vec::new();
            while let Some(f) = lines.next_if(|l| !l.is_empty() && !starts_a_call(l)) {
                frames.push(f.to_owned());
            }
            let (no, name) = last.clone().expect("a backtrace after a call");
            out.push((no, name, frames));
        } else if starts_a_call(line) {
            let (no, rest) = line.split_once(' ').unwrap();
            let rest = rest.split_once(' ').map_or(rest, |(_, r)| r); // `@thread`
            let name = rest.split('(').next().unwrap().to_owned();
            last = Some((no.parse().unwrap(), name));
        }
    }
    out
}

/// `N @T name(...)`: a call's line in a verbose dump.
fn starts_a_call(line: &str) -> bool {
    let mut parts = line.splitn(3, ' ');
    let no = parts.next().unwrap_or("");
    let thread = parts.next().unwrap_or("");
    !no.is_empty() && no.bytes().all(|b| b.is_ascii_digit()) && thread.starts_with('@')
}

#[test]
fn stacks_equal_the_backtraces_of_apitrace_dump() {
    let mut compared = 0;
    for path in corpus_paths("apitrace", &[], "trace") {
        let dump = {
            let plain = path.with_extension("trace.dump.txt");
            let xz = path.with_extension("trace.dump.txt.xz");
            if plain.exists() {
                tracecap_testkit::read(&plain)
            } else if xz.exists() {
                tracecap_testkit::read(&xz)
            } else {
                continue;
            }
        };
        // The dump lists calls as they end, the adapter as they start: both by call number.
        let mut expected = oracle_backtraces(&String::from_utf8_lossy(&dump));
        expected.sort();
        let bytes = std::fs::read(&path).unwrap();
        let mut sink = Stacks::default();
        // Damaged traces give their calls up to the fault, as `apitrace dump` does.
        let _ = tracecap::convert(Format::Apitrace, &bytes, &mut sink);
        let mut got: Vec<(u64, String, Vec<String>)> = sink
            .calls
            .iter()
            .map(|c| {
                let frames = sink.stacks[&c.stack].iter().map(dump_line).collect();
                (c.ts / TICK_NS, c.name.clone(), frames)
            })
            .collect();
        got.sort();
        assert_eq!(sink.declared_twice, 0, "{}", path.display());
        assert_eq!(
            got.len(),
            expected.len(),
            "{}: calls with a backtrace",
            path.display()
        );
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g, e, "{}", path.display());
        }
        if !expected.is_empty() {
            println!("{}: {} backtraces compared", path.display(), expected.len());
            compared += 1;
        }
    }
    if tracecap_testkit::corpus("apitrace").is_some() {
        assert!(compared > 0, "no trace of the corpus has backtraces");
    }
}

const F_MAIN: u64 = 1;
const F_DRAW: u64 = 2;
const F_BARE: u64 = 3;
const F_UNKNOWN: u64 = 4;
const F_NO_FUNCTION: u64 = 5;

/// A trace of `n` calls on two threads, every call with one of two backtraces (one on a LEAVE),
/// whose frames lack each part in turn.
fn trace(n: u64) -> Vec<u8> {
    let mut w = writer();
    let bytes = |s: &str| Some(s.as_bytes().to_vec());
    w.frame(
        F_MAIN,
        WFrame {
            module: bytes("/usr/bin/demo"),
            function: bytes("main"),
            filename: bytes("demo.c"),
            line: Some(42),
            offset: Some(0x1a2b),
        },
    );
    w.frame(
        F_DRAW,
        WFrame {
            module: bytes("/usr/lib/libdemo.so"),
            function: bytes("draw_scene"),
            filename: None,
            line: None,
            offset: Some(0x10),
        },
    );
    w.frame(
        F_BARE,
        WFrame {
            module: bytes("/usr/bin/demo"),
            // A line without a file, as apitrace writes for frames it has no source of.
            line: Some(0),
            offset: Some(0xff),
            ..WFrame::default()
        },
    );
    w.frame(F_UNKNOWN, WFrame::default());
    w.frame(
        F_NO_FUNCTION,
        WFrame {
            module: bytes("libx.so"),
            filename: bytes("x.c"),
            line: Some(7),
            ..WFrame::default()
        },
    );
    for i in 0..n {
        let thread = i % 2;
        if i % 3 == 0 {
            let bt = WDetail::Backtrace(vec![F_DRAW, F_MAIN, F_UNKNOWN]);
            let call = w.enter(thread, DRAW, &[WDetail::Arg(0, WValue::UInt(4)), bt]);
            w.leave(call, &[]);
        } else {
            let call = w.enter(thread, SWAP, &[]);
            let bt = WDetail::Backtrace(vec![F_BARE, F_NO_FUNCTION, F_MAIN]);
            w.leave(call, &[bt]);
        }
    }
    wrap(&w.finish(), Container::Snappy)
}

#[test]
fn frames_keep_what_the_trace_gives_and_stacks_are_declared_once() {
    let sink = stacks_of(&trace(12));
    assert_eq!(sink.declared_twice, 0);
    assert_eq!(sink.stacks.len(), 2, "two distinct backtraces");
    assert_eq!(sink.calls.len(), 12, "every call has its backtrace");
    for (i, call) in sink.calls.iter().enumerate() {
        let i = i as u64;
        assert_eq!(call.ts, i * TICK_NS, "at the call's start");
        assert_eq!(call.tid, i % 2 + 1, "on the call's thread");
        let frames: Vec<String> = sink.stacks[&call.stack].iter().map(dump_line).collect();
        if i % 3 == 0 {
            assert_eq!(call.name, "glDrawArrays");
            assert_eq!(
                frames,
                [
                    "/usr/lib/libdemo.so: draw_scene+0x10",
                    "/usr/bin/demo: main+0x1a2b: demo.c:42",
                    "?",
                ]
            );
        } else {
            assert_eq!(call.name, "glXSwapBuffers");
            assert_eq!(
                frames,
                [
                    "/usr/bin/demo+0xff",
                    "libx.so: x.c:7",
                    "/usr/bin/demo: main+0x1a2b: demo.c:42"
                ]
            );
        }
    }
    let bare = sink
        .stacks
        .values()
        .flatten()
        .find(|f| f.address == Some(0xff))
        .unwrap();
    assert_eq!(
        bare,
        &Owned {
            function: "/usr/bin/demo+0xff".into(),
            module: "/usr/bin/demo".into(),
            file: String::new(),
            line: None,
            address: Some(0xff),
        },
        "a frame without a function is named module+0xoffset, its address the offset"
    );
    let unknown = &sink
        .stacks
        .values()
        .find(|s| s.len() == 3 && s[2].function == "?");
    let unknown = &unknown.expect("the stack ending in an unknown frame")[2];
    assert_eq!((unknown.module.as_str(), unknown.address), ("", None));
    let no_function = sink
        .stacks
        .values()
        .flatten()
        .find(|f| f.module == "libx.so")
        .unwrap();
    assert_eq!(
        no_function.function, "libx.so",
        "no offset: the module alone"
    );
    assert_eq!(
        (no_function.file.as_str(), no_function.line),
        ("x.c", Some(7))
    );
}

#[test]
fn a_sink_that_reads_no_stacks_gets_none() {
    let bytes = trace(30);
    let mut rec = common::Recorder::default();
    tracecap::convert(Format::Apitrace, &bytes, &mut rec).unwrap();
    let stats = tracecap::convert(Format::Apitrace, &bytes, tracecap::timeline::Discard).unwrap();
    assert_eq!((stats.stacks, stats.stack_samples), (0, 0));
}

/// Allocations of converting `bytes` into a sink that reads stacks and keeps nothing.
fn allocations(bytes: &[u8]) -> usize {
    let mut sink = common::CountStacks(0);
    let before = allocs();
    tracecap::convert(Format::Apitrace, bytes, &mut sink).unwrap();
    let made = allocs() - before;
    assert!(sink.0 >= 1_000);
    made
}

#[test]
fn backtraces_seen_before_allocate_nothing() {
    let _serial = tracecap_testkit::serial();
    let (small, big) = (trace(1_000), trace(8_000));
    let few = allocations(&small);
    let many = allocations(&big);
    assert!(
        many <= few + 16,
        "{few} allocations for 1,000 calls with backtraces, {many} for 8,000"
    );
}

/// The corpus trace recorded with backtraces, if the corpus is there.
fn glxgears() -> Option<Vec<u8>> {
    let path = corpus_paths("apitrace", &[], "trace")
        .into_iter()
        .find(|p| p.ends_with("glxgears_backtrace.trace"))?;
    Some(std::fs::read(path).unwrap())
}

#[test]
fn perfetto_chrome_and_pprof_carry_the_backtraces() {
    let bytes = trace(30);
    let sink = stacks_of(&bytes);
    let expected = sink.calls.len();
    check_outputs(&bytes, &sink, expected);
    if let Some(bytes) = glxgears() {
        let sink = stacks_of(&bytes);
        assert_eq!(sink.calls.len(), 2923);
        check_outputs(&bytes, &sink, 2923);
    }
}

fn check_outputs(bytes: &[u8], sink: &Stacks, calls: usize) {
    // Perfetto: a sample per call, on the call's thread, whose callstack resolves to the frames.
    let mut out = Vec::new();
    tracecap::convert(Format::Apitrace, bytes, Perfetto::new(&mut out).unwrap()).unwrap();
    let trace = Trace::decode(&out[..]).unwrap();
    let mut functions = HashMap::new();
    let mut frames = HashMap::new();
    let mut callstacks = HashMap::new();
    let mut samples = Vec::new();
    for p in &trace.packet {
        if let Some(d) = &p.interned_data {
            for s in &d.function_names {
                let text = String::from_utf8(s.str.clone().unwrap()).unwrap();
                functions.insert(s.iid.unwrap(), text);
            }
            for f in &d.frames {
                frames.insert(f.iid.unwrap(), f.function_name_id.unwrap());
            }
            for c in &d.callstacks {
                callstacks.insert(c.iid.unwrap(), c.frame_ids.clone());
            }
        }
        if let Some(s) = &p.perf_sample {
            samples.push((
                p.timestamp.unwrap(),
                s.tid.unwrap(),
                s.callstack_iid.unwrap(),
            ));
        }
    }
    assert_eq!(samples.len(), calls, "Perfetto samples");
    for ((ts, tid, iid), call) in samples.iter().zip(&sink.calls) {
        assert_eq!((*ts, u64::from(*tid)), (call.ts, call.tid));
        let mut names: Vec<String> = callstacks[iid]
            .iter()
            .map(|f| functions[&frames[f]].clone())
            .collect();
        // Perfetto lists a callstack's frames root first.
        names.reverse();
        let want: Vec<String> = sink.stacks[&call.stack]
            .iter()
            .map(|f| f.function.clone())
            .collect();
        assert_eq!(names, want);
    }
    // Chrome JSON: a sample per call, named by the call, whose node resolves.
    let mut chrome = ChromeJson::new(Vec::new()).unwrap();
    tracecap::convert(Format::Apitrace, bytes, &mut chrome).unwrap();
    let out = chrome.finish().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let chrome = json["samples"].as_array().expect("samples");
    assert_eq!(chrome.len(), calls, "Chrome samples");
    let nodes = json["stackFrames"].as_object().expect("stackFrames");
    for (s, call) in chrome.iter().zip(&sink.calls) {
        assert_eq!(s["name"], call.name.as_str());
        let mut node = s["sf"].as_str().expect("a stack frame");
        let mut names = Vec::new();
        loop {
            let n = &nodes[node];
            names.push(n["name"].as_str().unwrap().to_owned());
            match n["parent"].as_str() {
                Some(p) => node = p,
                None => break,
            }
        }
        let want: Vec<String> = sink.stacks[&call.stack]
            .iter()
            .map(|f| f.function.clone())
            .collect();
        assert_eq!(names.len(), want.len());
        for (n, w) in names.iter().zip(&want) {
            assert!(n.contains(w.as_str()), "Chrome frame {n:?} for {w:?}");
        }
    }
    // pprof: `calls/count`, one sample per call, the call's name as the innermost frame.
    let mut pprof = Pprof::new(Vec::new());
    tracecap::convert(Format::Apitrace, bytes, &mut pprof).unwrap();
    let gz = pprof.finish().unwrap();
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut raw)
        .unwrap();
    let profile = pp::Profile::decode(&raw[..]).unwrap();
    let text = |i: i64| profile.string_table[i as usize].clone();
    assert_eq!(profile.sample_type.len(), 1);
    assert_eq!(
        (
            text(profile.sample_type[0].r#type),
            text(profile.sample_type[0].unit)
        ),
        ("calls".to_owned(), "count".to_owned())
    );
    assert_eq!(profile.sample.len(), calls, "pprof samples");
    let locations: HashMap<u64, &pp::Location> =
        profile.location.iter().map(|l| (l.id, l)).collect();
    let functions: HashMap<u64, &pp::Function> =
        profile.function.iter().map(|f| (f.id, f)).collect();
    for (s, call) in profile.sample.iter().zip(&sink.calls) {
        assert_eq!(s.value, [1]);
        let names: Vec<String> = s
            .location_id
            .iter()
            .map(|l| text(functions[&locations[l].line[0].function_id].name))
            .collect();
        let mut want = vec![call.name.clone()];
        want.extend(sink.stacks[&call.stack].iter().map(|f| f.function.clone()));
        assert_eq!(names, want);
    }
}
