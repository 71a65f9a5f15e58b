//! The entry point's file offsets: `Capture::parse_located` and the reader of `Capture::events`
//! (`next_located`, `file_error`) give the events, faults and offsets of the plain walk, each
//! offset placed in the file as `decompress` places it for the whole file (the chunk or frame
//! of each event, the file offset of a fault). On every corpus trace, on traces the writer
//! makes in each container (small snappy chunks and zstd frames, so that offsets differ), cut
//! short and with bytes changed. And the whole-stream closure walk stops with the caller's own
//! error.

use tracecap_apitrace::write::{self, WDetail, WValue, Writer};
use tracecap_apitrace::{
    decompress, Capture, Container, Error, ErrorKind, FileError, SigTable, Space, Stream,
};
use tracecap_testkit::Rng;

/// What a walk gives: each event's `Debug` text with the file offset of its piece, and the
/// fault that ends it, placed in the file.
#[derive(Debug, PartialEq)]
struct Walk {
    events: Vec<(String, Option<u64>)>,
    end: Option<FileError>,
}

/// Through the entry point that places everything in the file.
fn located(file: &[u8]) -> Walk {
    let mut events = Vec::new();
    let capture = match Capture::parse_located(file) {
        Ok(c) => c,
        Err(e) => {
            return Walk {
                events,
                end: Some(e),
            }
        }
    };
    let mut reader = capture.events();
    let end = loop {
        match reader.next_located() {
            None => break None,
            Some(Ok((ev, _, chunk))) => events.push((format!("{ev:?}"), chunk)),
            Some(Err(e)) => break Some(reader.file_error(e)),
        }
    };
    Walk { events, end }
}

/// Through `Capture::parse` and the plain walk, each offset mapped by hand: an event's piece
/// through the whole file's `decompress`, a fault through the source that read it.
fn by_hand(file: &[u8]) -> Walk {
    let whole = decompress(file).ok();
    let mut events = Vec::new();
    let capture = match Capture::parse(file) {
        Ok(c) => c,
        Err(e) => {
            // The header's fault: read again, to ask the source where it lies.
            let at = match tracecap_apitrace::ContainerSource::new(file) {
                Ok(src) => {
                    let mut r = tracecap_apitrace::ChunkedReader::new(src, SigTable::new());
                    let _ = r.header();
                    r.source().offsets().error_offset(&e)
                }
                Err(_) => e.offset,
            };
            let end = FileError {
                error: e,
                file_offset: at,
            };
            return Walk {
                events,
                end: Some(end),
            };
        }
    };
    let mut reader = capture.events();
    let end = loop {
        let e = match reader.next_event() {
            None => break None,
            Some(Ok((ev, _))) => {
                let chunk = whole.as_ref().and_then(|w| w.chunk_offset(ev.offset));
                events.push((format!("{ev:?}"), chunk));
                continue;
            }
            Some(Err(e)) => e,
        };
        let file_offset = reader.source().offsets().error_offset(&e);
        break Some(FileError {
            error: e,
            file_offset,
        });
    };
    Walk { events, end }
}

fn agree(what: &str, file: &[u8]) {
    let a = located(file);
    let b = by_hand(file);
    assert_eq!(a, b, "{what}");
    if let Some(e) = a.end {
        // The two offsets, as the kind's space says.
        match e.error.kind.space() {
            Space::File => {
                assert_eq!(e.stream_offset(), None, "{what}");
                assert_eq!(e.file_offset, e.error.offset, "{what}");
            }
            Space::Stream => assert_eq!(e.stream_offset(), Some(e.error.offset), "{what}"),
        }
    }
}

/// A stream of 300 calls with strings of several sizes, so that it spans many small pieces.
fn stream() -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"/usr/bin/test")]);
    w.function(0, b"glBegin", &[b"mode"]);
    w.function(1, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    for i in 0..300u64 {
        let sig = i % 2;
        let text = vec![b'a' + (i % 26) as u8; (i as usize * 7) % 90];
        let no = w.enter(
            0,
            sig,
            &[
                WDetail::Arg(0, WValue::UInt(i)),
                WDetail::Arg(1, WValue::String(text)),
            ],
        );
        w.leave(no, &[WDetail::Ret(WValue::SInt(-(i as i64)))]);
    }
    w.finish()
}

fn containers(stream: &[u8]) -> Vec<(String, Vec<u8>)> {
    vec![
        ("snappy".into(), write::snappy(stream, 97)),
        ("gzip".into(), write::gzip(stream)),
        ("brotli".into(), write::brotli(stream)),
        ("zstd".into(), write::zstd(stream, 211, false)),
        ("zstd-seekable".into(), write::zstd(stream, 211, true)),
    ]
}

#[test]
fn written_traces_whole_cut_and_changed() {
    let s = stream();
    let mut rng = Rng(0x5eed_1234);
    for (name, file) in containers(&s) {
        agree(&name, &file);
        let whole = located(&file);
        assert!(whole.end.is_none(), "{name}: {:?}", whole.end);
        assert_eq!(whole.events.len(), 600, "{name}");
        if name == "snappy" || name.starts_with("zstd") {
            // Many pieces: the events do not all lie in one.
            let mut pieces: Vec<_> = whole.events.iter().map(|e| e.1).collect();
            pieces.dedup();
            assert!(pieces.len() > 10, "{name}: {pieces:?}");
            assert!(pieces.iter().all(Option::is_some), "{name}");
        } else {
            assert!(whole.events.iter().all(|e| e.1.is_none()), "{name}");
        }
        for _ in 0..40 {
            let cut = rng.below(file.len());
            agree(&format!("{name} cut at {cut}"), &file[..cut]);
        }
        for _ in 0..40 {
            let mut changed = file.clone();
            let at = rng.below(changed.len());
            changed[at] ^= 1 << rng.below(8);
            agree(&format!("{name} byte {at} changed"), &changed);
        }
    }
}

#[test]
fn a_fault_of_the_stream_names_its_chunk() {
    // The version byte past what apitrace writes, in the stream's first byte: at stream offset
    // 0, in the first snappy chunk (after the magic `at`).
    let mut s = stream();
    s[0] = 7;
    let file = write::snappy(&s, 97);
    let e = Capture::parse_located(&file).unwrap_err();
    assert_eq!(e.stream_offset(), Some(0));
    assert_eq!(e.file_offset, 2);
    assert!(matches!(e.error.kind, ErrorKind::Shared(_)), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!(
            "{} at decompressed stream offset 0x0, in the piece of the container starting at \
             offset 0x2",
            e.error.kind
        )
    );
    // A fault of the container is at its own offset.
    let e = Capture::parse_located(b"at").unwrap_err();
    assert_eq!(e.error.kind.space(), Space::File);
    assert_eq!((e.stream_offset(), e.file_offset), (None, e.error.offset));
    assert_eq!(e.to_string(), e.error.to_string());
}

#[test]
fn corpus_traces() {
    let files =
        tracecap_testkit::corpus_files("apitrace", &["apitrace-tests", "produced-apitrace-11.1"]);
    let mut n = 0;
    for (name, file) in files.iter().filter(|(n, _)| n.ends_with(".trace")) {
        agree(name, file);
        let capture = Capture::parse_located(file).unwrap();
        assert_eq!(
            Some(capture.container()),
            Container::detect(file).ok(),
            "{name}"
        );
        n += 1;
    }
    if !files.is_empty() {
        assert!(n >= 10, "{n} corpus traces");
    }
}

/// A reason of the caller's own to stop a walk.
#[derive(Debug, PartialEq)]
enum Stop {
    Enough(u64),
    Trace(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Trace(e)
    }
}

#[test]
fn the_closure_walk_stops_with_the_callers_error() {
    let s = stream();
    let trace = Stream::parse(&s).unwrap();
    let mut seen = 0u64;
    let stopped = trace.events().try_for_each_event(|ev| {
        seen += 1;
        if seen == 5 {
            return Err(Stop::Enough(ev.call_no));
        }
        Ok(())
    });
    assert_eq!(stopped, Err(Stop::Enough(2)));
    // The stream's fault comes converted.
    let cut = &s[..s.len() - 3];
    let trace = Stream::parse(cut).unwrap();
    let mut events = 0;
    let end = trace.events().try_for_each_event(|_| {
        events += 1;
        Ok::<(), Stop>(())
    });
    let Err(Stop::Trace(e)) = end else {
        panic!("{end:?}")
    };
    assert!(e.is_truncation(), "{e}");
    assert!(events < 600);
}
