//! The apitrace adapter on the corpus (both exporters, counts against the crate), on hand-made
//! traces (synthetic clock, frames, debug groups, nesting, out-of-order leaves, containers) and on
//! cut and mutated files.
#![cfg(all(feature = "apitrace", feature = "std"))]

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use common::apitrace::{writer, DRAW, GET, POP, PUSH, SWAP};
use common::{Ev, Recorder};

use prost::Message;
use tracecap::adapter::apitrace::{MAX_TEXT, TICK_NS};
use tracecap::export::perfetto_proto::{track_event, Trace};
use tracecap::export::{ChromeJson, Perfetto};
use tracecap::timeline::{CounterValue, Event, Sink, Track, TrackId, TrackKind, Value};
use tracecap::{ConvertError, Format};
use tracecap_apitrace::write::{wrap, WDetail, WValue, Writer};
use tracecap_apitrace::{call_flags, Calls, Container, EventKind, Stream as ApiTrace};
use tracecap_apitrace::{END_FRAME, MARKER_PUSH};
use tracecap_testkit::corpus_paths;

/// Forwards to a [`Recorder`] and looks at the args: `incomplete` flags, `call_no`s, text length.
#[derive(Default)]
struct Spy {
    rec: Recorder,
    incomplete: u64,
    call_nos: Vec<u64>,
    longest_text: usize,
    args: Vec<(String, Vec<(String, String)>)>,
}

impl Spy {
    fn look(&mut self, e: &Event<'_>) {
        let mut kept = Vec::new();
        for a in e.args {
            match a.value {
                Value::Bool(true) if a.name == "incomplete" => self.incomplete += 1,
                Value::Uint(n) if a.name == "call_no" => self.call_nos.push(n),
                Value::Str(s) => self.longest_text = self.longest_text.max(s.len()),
                _ => {}
            }
            kept.push((a.name.to_string(), format!("{:?}", a.value)));
        }
        if self.args.len() < 10_000 {
            self.args.push((e.name.to_string(), kept));
        }
    }
}

impl Sink for Spy {
    type Error = std::convert::Infallible;
    fn track(&mut self, t: &Track<'_>) -> Result<(), Self::Error> {
        self.rec.track(t)
    }
    fn begin(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        self.look(e);
        self.rec.begin(e)
    }
    fn end(&mut self, track: TrackId, ts: u64) -> Result<(), Self::Error> {
        self.rec.end(track, ts)
    }
    fn complete(&mut self, e: &Event<'_>, dur: u64) -> Result<(), Self::Error> {
        self.look(e);
        self.rec.complete(e, dur)
    }
    fn instant(&mut self, e: &Event<'_>) -> Result<(), Self::Error> {
        self.rec.instant(e)
    }
    fn counter(&mut self, track: TrackId, ts: u64, v: CounterValue) -> Result<(), Self::Error> {
        self.rec.counter(track, ts, v)
    }
}

/// What the format crate itself reads: calls, incomplete calls, frames, threads, completed
/// marker pushes, and the fault if any.
struct Truth {
    calls: u64,
    incomplete: u64,
    frames: u64,
    threads: BTreeSet<u64>,
    pushes: u64,
    fault: bool,
}

fn truth(file: &[u8]) -> Truth {
    let d = tracecap_apitrace::decompress(file).unwrap();
    let mut t = Truth {
        calls: 0,
        incomplete: 0,
        frames: 0,
        threads: BTreeSet::new(),
        pushes: 0,
        fault: d.fault.is_some(),
    };
    let trace = match ApiTrace::parse(&d.data) {
        Ok(tr) => tr,
        Err(_) => {
            t.fault = true;
            return t;
        }
    };
    let mut events = trace.events();
    let mut calls = Calls::new();
    while let Some(ev) = events.next() {
        let Ok(ev) = ev else {
            t.fault = true;
            break;
        };
        let flags = |sig| {
            events
                .table()
                .function(sig)
                .map_or(0, |f| call_flags(f.name()))
        };
        if ev.kind == EventKind::Enter {
            t.calls += 1;
            t.threads.insert(ev.thread);
            if flags(ev.sig) & END_FRAME != 0 {
                t.frames += 1;
            }
        }
        if let Ok(Some(call)) = calls.push(&ev, events.table()) {
            if flags(call.sig) & MARKER_PUSH != 0 {
                t.pushes += 1;
            }
            calls.recycle(call);
        }
    }
    t.incomplete = calls.finish().count() as u64;
    t
}

fn convert(
    bytes: &[u8],
) -> (
    tracecap::Stats,
    Result<(), ConvertError<std::convert::Infallible>>,
    Spy,
) {
    let mut spy = Spy::default();
    let (stats, result) = tracecap::adapter::convert_counted(Format::Apitrace, bytes, &mut spy);
    (stats, result, spy)
}

fn check_closed(spy: &Spy, what: &str) {
    assert!(
        spy.rec.open.values().all(|s| s.is_empty()),
        "{what}: slices left open"
    );
}

#[test]
fn corpus_converts_with_the_crates_counts() {
    for path in corpus_paths("apitrace", &[], "trace") {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(tracecap::detect(&bytes), Some(Format::Apitrace), "{name}");
        let t = truth(&bytes);
        let (stats, result, spy) = convert(&bytes);
        match (&result, t.fault) {
            (Ok(()), false) => {}
            (Err(ConvertError::Format(e)), true) => {
                assert!(e.offset() <= bytes.len() as u64, "{name}: {e}")
            }
            (r, f) => panic!("{name}: convert {r:?}, crate fault {f}"),
        }
        check_closed(&spy, &name);
        // One slice per call, per frame and per debug group.
        assert_eq!(stats.slices, t.calls + t.frames + t.pushes, "{name}");
        assert_eq!(spy.call_nos.len() as u64, t.calls, "{name}");
        assert_eq!(spy.incomplete, t.incomplete, "{name}");
        assert_eq!(stats.threads, t.threads.len() as u64, "{name}");
        assert_eq!(stats.processes, 1, "{name}");
        let frames = spy
            .rec
            .events
            .iter()
            .filter(|e| matches!(e, Ev::Complete(_, _, _, n) if n.starts_with("frame ")))
            .count() as u64;
        assert_eq!(frames, t.frames, "{name}");
        assert!(spy.longest_text <= MAX_TEXT + 3, "{name}");
        // The synthetic clock: the last slice ends at the number of calls, in ticks.
        assert_eq!(stats.last_ts.unwrap_or(0), t.calls * TICK_NS, "{name}");
        assert_eq!(stats.instants + stats.counter_samples, 0, "{name}");

        // Chrome JSON parses; B/E balance; B + X = slices.
        let mut json = ChromeJson::new(Vec::new()).unwrap();
        let _ = tracecap::adapter::convert_counted(Format::Apitrace, &bytes, &mut json);
        let doc: serde_json::Value = serde_json::from_slice(&json.finish().unwrap()).unwrap();
        let events = doc["traceEvents"].as_array().unwrap();
        let count = |ph: &str| events.iter().filter(|e| e["ph"] == ph).count() as u64;
        assert_eq!(count("B"), count("E"), "{name}");
        assert_eq!(count("B") + count("X"), stats.slices, "{name}");

        // Perfetto decodes; begin/end balance per track; one descriptor per track.
        let mut pf = Perfetto::new(Vec::new()).unwrap();
        let _ = tracecap::adapter::convert_counted(Format::Apitrace, &bytes, &mut pf);
        let trace = Trace::decode(pf.finish().unwrap().as_slice()).unwrap();
        let mut begins = 0u64;
        let mut depth: HashMap<u64, i64> = HashMap::new();
        let mut descriptors = 0u64;
        for p in &trace.packet {
            descriptors += u64::from(p.track_descriptor.is_some());
            if let Some(e) = &p.track_event {
                let d = depth.entry(e.track_uuid.unwrap()).or_default();
                match e.r#type() {
                    track_event::Type::SliceBegin => {
                        begins += 1;
                        *d += 1
                    }
                    track_event::Type::SliceEnd => {
                        *d -= 1;
                        assert!(*d >= 0, "{name}: end without begin");
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(begins, stats.slices, "{name}");
        assert_eq!(descriptors, stats.tracks, "{name}");
        assert!(depth.values().all(|&d| d == 0), "{name}");
    }
}

fn call(w: &mut Writer, thread: u64, sig: u64, details: &[WDetail]) -> u64 {
    let no = w.enter(thread, sig, details);
    w.leave(no, &[]);
    no
}

fn push(w: &mut Writer, text: &str) {
    call(
        w,
        0,
        PUSH,
        &[
            WDetail::Arg(0, WValue::UInt(0x824a)),
            WDetail::Arg(1, WValue::UInt(1)),
            WDetail::Arg(2, WValue::SInt(-1)),
            WDetail::Arg(3, WValue::String(text.as_bytes().to_vec())),
        ],
    );
}

fn draw(w: &mut Writer) {
    call(
        w,
        0,
        DRAW,
        &[
            WDetail::Arg(0, WValue::UInt(4)),
            WDetail::Arg(1, WValue::UInt(0)),
            WDetail::Arg(2, WValue::UInt(3)),
        ],
    );
}

#[test]
fn clock_frames_and_debug_groups() {
    let mut w = writer();
    push(&mut w, "scene"); // 0
    push(&mut w, "shadows"); // 1
    draw(&mut w); // 2
    call(&mut w, 0, POP, &[]); // 3
    draw(&mut w); // 4
    call(&mut w, 0, POP, &[]); // 5
    call(&mut w, 0, SWAP, &[WDetail::Arg(0, WValue::Pointer(0x1234))]); // 6: frame 0
    draw(&mut w); // 7
    call(&mut w, 0, SWAP, &[]); // 8: frame 1
    call(&mut w, 0, POP, &[]); // 9: a pop without push: ignored
    push(&mut w, "never popped"); // 10
    let file = wrap(&w.finish(), Container::Snappy);
    let (stats, result, spy) = convert(&file);
    result.unwrap();
    check_closed(&spy, "groups");
    // The groups keep their names for a sink that reads no arguments, which gets fewer.
    let (with, without) = common::same_without_args(Format::Apitrace, &file, "groups");
    assert!(without < with, "{without} arguments of {with}");
    // 11 calls, 2 frames, 3 groups.
    assert_eq!(stats.slices, 16);
    assert_eq!(stats.last_ts, Some(11 * TICK_NS));
    let tracks: HashMap<_, _> = spy
        .rec
        .tracks
        .iter()
        .map(|(id, t)| (t.2.clone(), (*id, t.0)))
        .collect();
    assert!(tracks.contains_key("apitrace: /usr/bin/demo"));
    let (thread, kind) = tracks["thread 0"];
    assert_eq!(kind, TrackKind::Thread { pid: 1, tid: 1 });
    let (frames, _) = tracks["Frames"];
    let t = |n: u64| n * TICK_NS;
    let on_thread: Vec<Ev> = spy
        .rec
        .events
        .iter()
        .filter(|e| match e {
            Ev::Begin(tr, ..) | Ev::End(tr, _) | Ev::Complete(tr, ..) => *tr == thread,
            _ => false,
        })
        .cloned()
        .collect();
    let c = |no: u64, name: &str| Ev::Complete(thread, t(no), TICK_NS, name.to_string());
    let expected = vec![
        c(0, "glPushDebugGroup"),
        Ev::Begin(thread, t(1), "scene".into()),
        c(1, "glPushDebugGroup"),
        Ev::Begin(thread, t(2), "shadows".into()),
        c(2, "glDrawArrays"),
        Ev::End(thread, t(3)),
        c(3, "glPopDebugGroup"),
        c(4, "glDrawArrays"),
        Ev::End(thread, t(5)),
        c(5, "glPopDebugGroup"),
        c(6, "glXSwapBuffers"),
        c(7, "glDrawArrays"),
        c(8, "glXSwapBuffers"),
        c(9, "glPopDebugGroup"),
        c(10, "glPushDebugGroup"),
        Ev::Begin(thread, t(11), "never popped".into()),
        Ev::End(thread, t(11)),
    ];
    assert_eq!(on_thread, expected);
    let frame_slices: Vec<Ev> = spy
        .rec
        .events
        .iter()
        .filter(|e| matches!(e, Ev::Complete(tr, ..) if *tr == frames))
        .cloned()
        .collect();
    assert_eq!(
        frame_slices,
        vec![
            Ev::Complete(frames, 0, t(7), "frame 0".into()),
            Ev::Complete(frames, t(7), t(2), "frame 1".into()),
        ]
    );
    // Arguments by the signature's names; pointers as hex text.
    let (_, args) = spy
        .args
        .iter()
        .find(|(n, _)| n == "glXSwapBuffers")
        .unwrap();
    assert!(args.contains(&("dpy".to_string(), "Str(\"0x1234\")".to_string())));
    assert!(args.contains(&("call_no".to_string(), "Uint(6)".to_string())));
    let (_, args) = spy
        .args
        .iter()
        .find(|(n, _)| n == "glPushDebugGroup")
        .unwrap();
    assert!(args.contains(&("length".to_string(), "Int(-1)".to_string())));
    assert!(args.contains(&("message".to_string(), "Str(\"scene\")".to_string())));
}

#[test]
fn threads_nesting_out_of_order_leaves_and_incomplete_calls() {
    let mut w = writer();
    // Thread 0 and thread 2 interleave; thread 2's leaves come late.
    let a = w.enter(0, DRAW, &[WDetail::Arg(0, WValue::UInt(4))]); // 0
    let b = w.enter(2, GET, &[WDetail::Arg(0, WValue::UInt(0xba2))]); // 1
    w.leave(a, &[]);
    // A call entered on thread 2 while call 1 is still open: call 1 becomes its parent.
    let c = w.enter(2, DRAW, &[]); // 2
                                   // Leaves in the wrong order on thread 2: call 1 waits for call 2.
    w.leave(
        b,
        &[
            WDetail::Arg(1, WValue::Array(vec![WValue::SInt(0), WValue::SInt(7)])),
            WDetail::Ret(WValue::UInt(5)),
        ],
    );
    w.leave(c, &[]);
    // A huge blob and a long string are cut.
    let d = w.enter(
        0,
        GET,
        &[
            WDetail::Arg(0, WValue::String(vec![b'x'; 5000])),
            WDetail::Arg(1, WValue::Blob(vec![0; 100_000])),
            WDetail::Arg(7, WValue::UInt(1)),
            WDetail::Flags(1),
        ],
    ); // 3
    w.leave(d, &[]);
    w.leave(99, &[]); // a leave of nothing
    let e = w.enter(0, SWAP, &[]); // 4: never returns
    let _ = e;
    let stream = w.finish();
    for container in [
        Container::Snappy,
        Container::Gzip,
        Container::Brotli,
        Container::Zstd,
    ] {
        let file = wrap(&stream, container);
        let (stats, result, spy) = convert(&file);
        result.unwrap();
        check_closed(&spy, "threads");
        assert_eq!(stats.threads, 2);
        assert_eq!(stats.slices, 5 + 1, "{container:?}");
        assert_eq!(spy.incomplete, 1);
        assert!(spy.longest_text <= MAX_TEXT + 3);
        let tracks: HashMap<_, _> = spy
            .rec
            .tracks
            .iter()
            .map(|(id, t)| (t.2.clone(), *id))
            .collect();
        let t2 = tracks["thread 2"];
        let on_t2: Vec<Ev> = spy
            .rec
            .events
            .iter()
            .filter(|e| match e {
                Ev::Begin(tr, ..) | Ev::End(tr, _) | Ev::Complete(tr, ..) => *tr == t2,
                _ => false,
            })
            .cloned()
            .collect();
        // Call 1 opens at 1 tick, call 2 inside it from 2 to 3 ticks, then call 1 ends.
        assert_eq!(
            on_t2,
            vec![
                Ev::Begin(t2, TICK_NS, "glGetIntegerv".into()),
                Ev::Complete(t2, 2 * TICK_NS, TICK_NS, "glDrawArrays".into()),
                Ev::End(t2, 3 * TICK_NS),
            ]
        );
        let (_, args) = spy
            .args
            .iter()
            .find(|(_, a)| a.iter().any(|(n, v)| n == "call_no" && v == "Uint(3)"))
            .unwrap();
        assert!(args
            .iter()
            .any(|(n, v)| n == "params" && v == "Str(\"blob(100000)\")"));
        assert!(args.iter().any(|(n, _)| n == "arg7"));
        assert!(args.iter().any(|(n, v)| n == "fake" && v == "Bool(true)"));
        let swap = spy
            .rec
            .events
            .iter()
            .find(|e| matches!(e, Ev::Complete(_, _, _, n) if n == "glXSwapBuffers"))
            .unwrap();
        assert!(
            matches!(swap, Ev::Complete(_, ts, dur, _) if *ts == 4 * TICK_NS && *dur == TICK_NS)
        );
    }
}

#[test]
fn old_versions_and_damage() {
    // Version 2: no thread numbers; a cut stream ends with a fault but closes everything.
    let mut w = Writer::new(2, 0, &[]);
    w.function(DRAW, b"glDrawArrays", &[b"mode", b"first", b"count"]);
    for _ in 0..10 {
        let no = w.enter(0, DRAW, &[WDetail::Arg(2, WValue::UInt(3))]);
        w.leave(no, &[]);
    }
    let open = w.enter(0, DRAW, &[]);
    let _ = open;
    w.raw(&[0x07]); // an unknown event byte
    let file = wrap(&w.finish(), Container::Snappy);
    let (stats, result, spy) = convert(&file);
    check_closed(&spy, "v2");
    match result {
        Err(ConvertError::Format(e)) => {
            assert!(e.offset() <= file.len() as u64);
            assert!(e.to_string().contains("unknown event"), "{e}");
        }
        r => panic!("{r:?}"),
    }
    assert_eq!(stats.slices, 11);
    assert_eq!(spy.incomplete, 1);
    // Not a trace at all.
    let (_, result, _) = convert(b"at");
    assert!(matches!(result, Err(ConvertError::Format(_))));
}

fn damaged(bytes: &[u8], what: &str) {
    let (_, result, spy) = convert(bytes);
    if let Err(ConvertError::Format(e)) = result {
        assert!(
            e.offset() <= bytes.len() as u64,
            "{what}: offset {e} past the end"
        );
    }
    check_closed(&spy, what);
}

#[test]
fn cut_and_mutated_corpus_files() {
    for path in corpus_paths("apitrace", &[], "trace") {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        if bytes.len() > 200_000 {
            continue;
        }
        let step = (bytes.len() / 600).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            damaged(&bytes[..cut], &format!("{name} cut at {cut}"));
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut copy = bytes.clone();
        for _ in 0..1500 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % bytes.len().max(1) as u64) as usize;
            let old = copy[at];
            copy[at] = (seed >> 32) as u8;
            damaged(&copy, &format!("{name} byte {at} = {}", copy[at]));
            copy[at] = old;
        }
    }
}

#[test]
fn mutated_streams() {
    // Mutations inside the decompressed stream (the corpus sweep mostly breaks the container).
    let Some(path) = corpus_paths("apitrace", &[], "trace")
        .into_iter()
        .find(|p| p.ends_with("glthreads.trace"))
    else {
        return;
    };
    let stream = tracecap_apitrace::decompress(&std::fs::read(path).unwrap())
        .unwrap()
        .data;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut copy = stream.clone();
    for _ in 0..1500 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = (seed % stream.len() as u64) as usize;
        let old = copy[at];
        copy[at] = (seed >> 32) as u8;
        let file = wrap(&copy, Container::Snappy);
        damaged(&file, &format!("stream byte {at}"));
        copy[at] = old;
    }
}

/// A stream of 400 draws, and the stream offset of the ENTER event of draw 300 (in a later
/// frame or chunk of the containers below, whose pieces are 1000 and 700 bytes).
fn draws() -> (Vec<u8>, usize) {
    let mut w = writer();
    let mut bad = 0;
    for i in 0..400 {
        if i == 300 {
            bad = w.stream_len();
        }
        draw(&mut w);
    }
    (w.finish(), bad)
}

/// The fault `convert` reports for `file`, and the file offset `decompress` gives the stream's
/// first fault (what `tracecap validate` reports).
fn both_offsets(file: &[u8]) -> (tracecap::FormatError, u64) {
    let d = tracecap_apitrace::decompress(file).unwrap();
    let stream = ApiTrace::parse(&d.data).unwrap();
    let e = stream
        .events()
        .find_map(Result::err)
        .expect("a stream fault");
    let (_, result, spy) = convert(file);
    check_closed(&spy, "damaged stream");
    let Err(ConvertError::Format(f)) = result else {
        panic!("{result:?}");
    };
    assert_eq!(f.stream_offset(), Some(e.offset));
    (f, d.error_offset(&e))
}

#[test]
fn stream_faults_map_to_the_file_as_decompress_maps_them() {
    let (stream, bad) = draws();
    // zstd: frames of 1000 stream bytes in raw blocks (4-byte magic, descriptor, 8-byte content
    // size, 3-byte block header), so stream byte `bad` is at a known place in the file. Its
    // event byte becomes an unknown event.
    for seekable in [false, true] {
        let mut file = tracecap_apitrace::write::zstd(&stream, 1000, seekable);
        let at = bad / 1000 * 1016 + 16 + bad % 1000;
        assert_eq!(file[at], 0, "an ENTER event");
        file[at] = 0x07;
        let (f, expected) = both_offsets(&file);
        assert_eq!(f.stream_offset(), Some(bad as u64));
        let frame = (bad / 1000 * 1016) as u64;
        assert_eq!(expected, frame, "the frame holding the fault");
        assert_eq!(f.offset(), expected, "zstd (seekable: {seekable}): {f}");
    }
    // snappy: chunks of 700 stream bytes, the stream damaged before it is compressed.
    let mut damaged = stream.clone();
    damaged[bad] = 0x07;
    let file = tracecap_apitrace::write::snappy(&damaged, 700);
    let (f, expected) = both_offsets(&file);
    let chunk = tracecap_apitrace::SnappyChunks::new(&file)
        .unwrap()
        .nth(bad / 700)
        .unwrap()
        .unwrap()
        .offset;
    assert_eq!(expected, chunk, "the chunk holding the fault");
    assert_eq!(f.offset(), expected, "snappy: {f}");
}

/// zstd frames of one stream byte each, a bad value tag and 3000 more bytes behind it: the
/// reader decodes thousands of frames past the fault before it meets it, and the fault still
/// names the frame that holds it.
#[test]
fn stream_faults_in_tiny_zstd_frames_name_their_frame() {
    let mut w = writer();
    for _ in 0..20 {
        draw(&mut w);
    }
    // An ENTER of `glDrawArrays` whose first argument has the tag 0x20.
    let bad = w.stream_len() as u64 + 5;
    w.raw(&[0x00, 0x00, DRAW as u8, 0x01, 0x00, 0x20, 0x00]);
    w.raw(&[0; 3000]);
    let file = tracecap_apitrace::write::zstd(&w.finish(), 1, true);
    let (f, expected) = both_offsets(&file);
    assert_eq!(f.stream_offset(), Some(bad), "{f}");
    let frame = expected as usize;
    assert_eq!(file[frame..frame + 4], tracecap_apitrace::ZSTD_MAGIC);
    assert!(
        expected > 0,
        "the fault lies in a later frame than the first"
    );
    assert_eq!(f.offset(), expected, "{f}");
}

#[test]
fn other_formats_are_not_taken_for_apitrace() {
    let Some(apitrace) = tracecap_testkit::corpus("apitrace") else {
        return;
    };
    let root = apitrace.parent().unwrap().to_path_buf();
    let mut dirs: Vec<PathBuf> = ["easyprofiler", "syscall", "wtf", "orbit"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            if e.metadata().map_or(true, |m| m.len() > 64 << 20) {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            assert_ne!(
                tracecap::detect(&bytes),
                Some(Format::Apitrace),
                "{}",
                p.display()
            );
        }
    }
}
