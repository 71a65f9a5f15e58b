//! The push parser gives what the whole-file reader gives: on every corpus trace and on traces
//! made by the writer (in every container: snappy, gzip, brotli, zstd), fed in random pieces (empty ones and single bytes included), cut short
//! at random, and with bytes changed at random, the events (as their `Debug` text, which holds
//! their offsets and the bytes of their details), their order and the final error (kind and
//! offset, and the file offset it maps to) equal those of `Capture::parse` and its walk over
//! the whole bytes.

#![allow(clippy::type_complexity)]

use std::sync::OnceLock;

use proptest::prelude::*;
use tracecap_apitrace::write::{self, WDetail, WValue, Writer};
use tracecap_apitrace::{
    decompress, Calls, Capture, ChunkedReader, ContainerSource, Error, KeptCalls, Parsed,
    PushParser, Pushed, SigTable, Stream,
};

/// What a walk gives: each event's `Debug` text and its function's name, then the error that
/// ends it (none: the end).
#[derive(Debug, PartialEq)]
struct Walk {
    events: Vec<String>,
    end: Option<Error>,
    /// The file offset of `end`: a fault of the stream placed at the chunk holding it.
    end_at: Option<u64>,
}

fn describe(event: &tracecap_apitrace::Event<'_>, table: &SigTable) -> String {
    let details: Vec<String> = event
        .details()
        .iter(table)
        .map(|d| format!("{d:?}"))
        .collect();
    describe_with(event, table, details)
}

fn describe_with(
    event: &tracecap_apitrace::Event<'_>,
    table: &SigTable,
    details: Vec<String>,
) -> String {
    let name = table.function(event.sig).map(|f| f.name().to_vec());
    format!("{event:?} {name:?} {details:?}")
}

/// [`describe`] of an event read in one pass: its details as kept.
fn describe_parsed(p: Parsed<'_, '_, SigTable>) -> String {
    let details: Vec<String> = p.details().map(|d| format!("{d:?}")).collect();
    describe_with(&p.event, p.table(), details)
}

/// `Capture::parse` over the whole file, then its walk.
fn whole(file: &[u8]) -> Walk {
    let mut events = Vec::new();
    let capture = match Capture::parse(file) {
        Ok(c) => c,
        Err(e) => {
            // The header's fault, placed by the source that read it.
            let end_at = match ContainerSource::new(file) {
                Ok(src) => {
                    let mut r = ChunkedReader::new(src, SigTable::new());
                    let _ = r.header();
                    r.source().offsets().error_offset(&e)
                }
                Err(_) => e.offset,
            };
            return Walk {
                events,
                end: Some(e),
                end_at: Some(end_at),
            };
        }
    };
    let mut reader = capture.events();
    let mut end = None;
    while let Some(next) = reader.next_event() {
        match next {
            Ok((event, table)) => events.push(describe(&event, table)),
            Err(e) => {
                end = Some(e);
                break;
            }
        }
    }
    let end_at = end.map(|e| reader.source().offsets().error_offset(&e));
    Walk {
        events,
        end,
        end_at,
    }
}

/// The push parser fed `file` cut at `cuts` (sorted or not; repeats make empty pieces), the
/// last piece with `eof`, the events read by `parse` (`mode` 0), `parse_with` (1),
/// `parse_many` (2) or `read_header` then `parse_located` (3, each event's chunk checked
/// against the whole file's `Decompressed::chunk_offset`).
/// Checks on the way that `consumed` adds up to `offset()`, that the parser never asks for more
/// once `eof` is given, and that nothing is consumed past the file.
fn pushed(file: &[u8], cuts: &[usize], mode: u8) -> Walk {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(file.len())).collect();
    cuts.sort_unstable();
    cuts.push(file.len());
    let mut pieces = Vec::new();
    let mut from = 0;
    for c in cuts {
        pieces.push(&file[from..c]);
        from = c;
    }
    let mut pieces = pieces.into_iter();
    let mut parser = PushParser::new();
    let mut buffer: Vec<u8> = Vec::new();
    let mut events = Vec::new();
    let mut consumed_total = 0u64;
    let mut eof = false;
    let chunks = (mode == 3).then(|| decompress(file).ok()).flatten();
    let mut header = false;
    let end = loop {
        assert_eq!(parser.offset(), consumed_total);
        let answer = match mode {
            3 if !header => parser.read_header(&buffer, eof).map(|a| {
                header = matches!(a, Pushed::Item { .. });
                a.map(|_| Vec::new())
            }),
            3 => parser.parse_located(&buffer, eof).map(|a| {
                a.map(|(event, table, chunk)| {
                    if let Some(d) = &chunks {
                        assert_eq!(chunk, d.chunk_offset(event.offset), "{event:?}");
                    }
                    vec![describe(&event, table)]
                })
            }),
            0 => parser
                .parse(&buffer, eof)
                .map(|a| a.map(|(event, table)| vec![describe(&event, table)])),
            1 => parser
                .parse_with(&buffer, eof, describe_parsed)
                .map(|a| a.map(|e| vec![e])),
            _ => {
                let mut got = Vec::new();
                let a = parser.parse_many(&buffer, eof, |p| got.push(describe_parsed(p)));
                if let Ok(Pushed::Item { item, .. }) = &a {
                    assert_eq!(*item, got.len() as u64);
                    assert!(*item > 0);
                } else {
                    // Events before an error are handed over all the same.
                    events.append(&mut got);
                }
                a.map(|a| a.map(|_| got))
            }
        };
        match answer {
            Ok(Pushed::Item { consumed, mut item }) => {
                events.append(&mut item);
                assert!(consumed <= buffer.len());
                buffer.drain(..consumed);
                consumed_total += consumed as u64;
            }
            Ok(Pushed::NeedMore { hint }) => {
                assert!(!eof, "asked for more after eof");
                assert!(hint.is_some_and(|h| h > 0));
                match pieces.next() {
                    Some(p) => buffer.extend_from_slice(p),
                    None => unreachable!("the last piece is given with eof"),
                }
                eof = pieces.len() == 0;
            }
            Ok(Pushed::End) => break None,
            Err(e) => {
                // After an error, the end.
                assert!(matches!(parser.parse(&buffer, true), Ok(Pushed::End)));
                break Some(e);
            }
        }
    };
    assert!(consumed_total <= file.len() as u64);
    let end_at = end.map(|e| parser.offsets().error_offset(&e));
    Walk {
        events,
        end,
        end_at,
    }
}

/// Every corpus trace (name, bytes), read once.
fn corpus() -> &'static [(String, Vec<u8>, Walk)] {
    static FILES: OnceLock<Vec<(String, Vec<u8>, Walk)>> = OnceLock::new();
    FILES.get_or_init(|| {
        tracecap_testkit::corpus_files("apitrace", &["apitrace-tests", "produced-apitrace-11.1"])
            .into_iter()
            .filter(|(name, _)| name.ends_with(".trace"))
            .map(|(name, bytes)| {
                let w = whole(&bytes);
                (name, bytes, w)
            })
            .collect()
    })
}

/// What the push parser must give for `file`: the whole-file walk, in every container.
fn expected(_file: &[u8], w: &Walk) -> Walk {
    Walk {
        events: w.events.clone(),
        end: w.end,
        end_at: w.end_at,
    }
}

const FUNCS: [(u64, &[u8], &[&[u8]]); 3] = [
    (0, b"glClear", &[b"mask"]),
    (1, b"glBufferData", &[b"target", b"size", b"data", b"usage"]),
    (7, b"glXSwapBuffers", &[b"dpy", b"drawable"]),
];

fn value() -> impl Strategy<Value = WValue> {
    let leaf = prop_oneof![
        Just(WValue::Null),
        any::<bool>().prop_map(WValue::Bool),
        any::<u64>().prop_map(WValue::UInt),
        (i64::MIN..0).prop_map(WValue::SInt),
        prop::collection::vec(any::<u8>(), 0..30).prop_map(WValue::String),
        prop::collection::vec(any::<u8>(), 0..400).prop_map(WValue::Blob),
        any::<u64>().prop_map(WValue::Pointer),
    ];
    leaf.prop_recursive(2, 16, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(WValue::Array)
    })
}

/// A trace made by the writer: calls of three functions with random arguments, wrapped in
/// snappy chunks of `chunk` stream bytes, sometimes with bytes after the stream that are no
/// event (`tail`).
fn trace() -> impl Strategy<Value = Vec<u8>> {
    (stream(), 1usize..3000, any::<bool>()).prop_map(|(stream, chunk, end_mark)| {
        let mut file = write::snappy(&stream, chunk);
        if end_mark {
            // A zero length ends the container; what follows is not read.
            file.extend_from_slice(&[0, 0, 0, 0, 0x55, 0x66]);
        }
        file
    })
}

/// A trace made by the writer in any container: snappy (as [`trace`] makes it), gzip, brotli,
/// or zstd frames of `chunk` stream bytes with or without the seek table.
fn any_trace() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![1 => trace(), 3 => stream_trace()]
}

/// A trace made by the writer in a container the decoders read as a stream: gzip, brotli, or
/// zstd frames of `frame` stream bytes with or without the seek table.
fn stream_trace() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        stream().prop_map(|s| write::gzip(&s)),
        stream().prop_map(|s| write::brotli(&s)),
        (stream(), 1usize..3000, any::<bool>())
            .prop_map(|(s, frame, seekable)| write::zstd(&s, frame, seekable)),
    ]
}

/// The event stream of a trace made by the writer: calls of three functions with random
/// arguments, sometimes with bytes after the last event that are no event.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((0usize..3, prop::collection::vec(value(), 0..3)), 0..40),
        prop::collection::vec(any::<u8>(), 0..3),
    )
        .prop_map(|(calls, tail)| {
            let mut w = Writer::new(6, 6, &[(b"process.name", b"push")]);
            for (f, name, args) in FUNCS {
                w.function(f, name, args);
            }
            for (i, (f, args)) in calls.into_iter().enumerate() {
                let details: Vec<WDetail> = args
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| WDetail::Arg(i as u64, v))
                    .collect();
                let no = w.enter(i as u64 % 2, FUNCS[f].0, &details);
                w.leave(no, &[WDetail::Ret(WValue::UInt(i as u64))]);
            }
            w.raw(&tail);
            w.finish()
        })
}

/// Cut points: anywhere in a file of up to `max` bytes, many of them close together (so that
/// pieces of 0 and 1 byte are common).
fn cuts(max: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(
        prop_oneof![0..=max, (0..=max).prop_map(|c| c / 7 * 7), Just(3)],
        0..40,
    )
}

/// Every piece a single byte (and an empty piece between each two).
fn byte_by_byte(file: &[u8]) -> Vec<usize> {
    (0..=file.len()).flat_map(|i| [i, i]).collect()
}

#[test]
fn corpus_fed_byte_by_byte_gives_the_whole_walk() {
    for (name, file, w) in corpus() {
        if file.len() > 64 << 10 {
            continue; // the large ones are fed in random pieces below
        }
        for mode in 0..4 {
            let got = pushed(file, &byte_by_byte(file), mode);
            assert_eq!(got, expected(file, w), "{name}");
        }
    }
}

#[test]
fn the_doc_example_in_every_cut() {
    let file = tracecap_apitrace::doc_example();
    let w = whole(&file);
    assert_eq!(w.events.len(), 4);
    for cut in 0..=file.len() {
        let cut_file = &file[..cut];
        for piece in 1..=cut.max(1) {
            let c: Vec<usize> = (0..cut).step_by(piece).collect();
            for mode in 0..4 {
                let got = pushed(cut_file, &c, mode);
                assert_eq!(got, whole(cut_file), "cut {cut}, pieces of {piece}");
            }
        }
    }
}

/// A trace of a few thousand calls (several blocks of input to the gzip and brotli decoders,
/// several zstd frames) in every container, given byte by byte and in pieces of 1000 bytes:
/// every event, and the same cut short anywhere.
#[test]
fn every_container_is_read() {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"push")]);
    for (f, name, args) in FUNCS {
        w.function(f, name, args);
    }
    for i in 0..3000u64 {
        let no = w.enter(
            i % 3,
            FUNCS[(i % 3) as usize].0,
            &[WDetail::Arg(0, WValue::UInt(i * i))],
        );
        w.leave(
            no,
            &[WDetail::Ret(WValue::Blob(
                i.to_le_bytes().repeat(1 + i as usize % 5),
            ))],
        );
    }
    let stream = w.finish();
    for (name, file) in [
        ("snappy", write::snappy(&stream, 10_000)),
        ("gzip", write::gzip(&stream)),
        ("brotli", write::brotli(&stream)),
        ("zstd", write::zstd(&stream, 10_000, false)),
        ("zstd-seekable", write::zstd(&stream, 10_000, true)),
    ] {
        let w = whole(&file);
        assert_eq!(w.events.len(), 6000, "{name}");
        assert_eq!(w.end, None, "{name}");
        let thousands: Vec<usize> = (0..file.len()).step_by(1000).collect();
        for mode in 0..4 {
            assert_eq!(pushed(&file, &thousands, mode), w, "{name}");
        }
        assert_eq!(pushed(&file, &byte_by_byte(&file), 0), w, "{name}");
        for cut in (0..file.len()).step_by(file.len() / 37 + 1) {
            let cut_file = &file[..cut];
            let c: Vec<usize> = (0..cut).step_by(777).collect();
            assert_eq!(
                pushed(cut_file, &c, 2),
                whole(cut_file),
                "{name} cut at {cut}"
            );
        }
    }
}

#[test]
fn the_end_mark_ends_the_walk() {
    let mut file = tracecap_apitrace::doc_example().to_vec();
    file.extend_from_slice(&[0, 0, 0, 0, 1, 2, 3]);
    let mut parser = PushParser::new();
    let mut items = 0;
    loop {
        match parser.parse(&file, false).unwrap() {
            Pushed::Item { consumed, .. } => {
                file.drain(..consumed);
                items += 1;
            }
            Pushed::NeedMore { .. } => panic!("the end mark is there"),
            Pushed::End => break,
        }
    }
    assert_eq!(items, 4);
    assert_eq!(parser.offset(), 120);
    assert_eq!(parser.header().map(|h| h.version), Some(6));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// `KeptCalls` over the push parser's events gives the calls `Calls` gives: every corpus
    /// trace in random pieces.
    #[test]
    fn corpus_calls_kept(c in cuts(600_000)) {
        for (name, file, _) in corpus() {
            let c: Vec<usize> = c.iter().map(|&x| x % (file.len() + 1)).collect();
            let (calls, failed) = calls_whole(file);
            prop_assert!(!calls.is_empty(), "{}", name);
            prop_assert_eq!(calls_pushed(file, &c), (calls, failed), "{}", name);
        }
    }

    /// Every corpus trace in random pieces.
    #[test]
    fn corpus_in_random_pieces(c in cuts(600_000), mode in 0u8..4) {
        for (name, file, w) in corpus() {
            let c: Vec<usize> = c.iter().map(|&x| x % (file.len() + 1)).collect();
            prop_assert_eq!(pushed(file, &c, mode), expected(file, w), "{}", name);
        }
    }

    /// Corpus traces cut short, in random pieces, the last with eof: the error of the cut file.
    #[test]
    fn corpus_cut_short(
        at in any::<prop::sample::Index>(),
        pick in any::<prop::sample::Index>(),
        c in cuts(600_000),
        mode in 0u8..4,
    ) {
        let files = corpus();
        if files.is_empty() {
            return Ok(());
        }
        let (name, file, _) = &files[pick.index(files.len())];
        // The small traces, or the start of the large one: a cut within its first 64 KiB.
        let cut = at.index(file.len().min(64 << 10) + 1);
        let cut_file = &file[..cut];
        let c: Vec<usize> = c.iter().map(|&x| x % (cut + 1)).collect();
        let w = whole(cut_file);
        prop_assert_eq!(pushed(cut_file, &c, mode), expected(cut_file, &w), "{} cut at {}", name, cut);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// `KeptCalls` over the push parser's events gives the calls `Calls` gives over the whole
    /// stream: traces from the writer in random pieces, cut short or not, with bytes changed
    /// or not.
    #[test]
    fn written_calls_kept(
        file in any_trace(),
        c in cuts(20_000),
        at in any::<prop::sample::Index>(),
        cut in any::<bool>(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
    ) {
        let mut file = if cut { file[..at.index(file.len() + 1)].to_vec() } else { file };
        for (at, b) in changes {
            if !file.is_empty() {
                let i = at.index(file.len());
                file[i] = b;
            }
        }
        prop_assert_eq!(calls_pushed(&file, &c), calls_whole(&file));
    }

    /// Traces from the writer, in random pieces.
    #[test]
    fn written_in_random_pieces(file in any_trace(), c in cuts(20_000), mode in 0u8..4) {
        let w = whole(&file);
        prop_assert_eq!(pushed(&file, &c, mode), w);
    }

    /// Without `eof`, every event whose bytes have come is given: a trace from the writer given
    /// whole but not ended yields every event of the whole walk, then asks for more (or ends at
    /// the end mark), so a live reader is never behind the bytes it has.
    #[test]
    fn written_events_come_as_soon_as_their_bytes(file in trace(), tail in 0usize..3) {
        let w = whole(&file);
        prop_assume!(w.end.is_none());
        // Any bytes after the file: the start of a chunk not yet whole.
        let mut data = file.clone();
        data.extend_from_slice(&[9, 0, 0, 0][..tail]);
        let mut parser = PushParser::new();
        let mut events = Vec::new();
        let mut at = 0;
        let last = loop {
            match parser.parse(&data[at..], false).unwrap() {
                Pushed::Item { consumed, item: (event, table) } => {
                    events.push(describe(&event, table));
                    at += consumed;
                }
                other => break other.map(|_| ()),
            }
        };
        prop_assert_eq!(&events, &w.events);
        let ended = file.ends_with(&[0, 0, 0, 0, 0x55, 0x66]);
        prop_assert_eq!(matches!(last, Pushed::End), ended);
    }

    /// Without `eof`, a zstd trace given whole yields every event (each frame is decoded once
    /// it is whole), and a gzip or brotli trace the events of its whole blocks of input (a
    /// prefix of the walk: the last block, shorter than `FEED_BLOCK`, waits for more bytes or
    /// for `eof`); then the parser asks for more. A fault of the stream met on the way is given
    /// as the whole walk gives it.
    #[test]
    fn streams_give_their_events_without_eof(file in stream_trace()) {
        let w = whole(&file);
        let mut parser = PushParser::new();
        let mut events = Vec::new();
        let mut at = 0;
        let last = loop {
            match parser.parse(&file[at..], false) {
                Ok(Pushed::Item { consumed, item: (event, table) }) => {
                    events.push(describe(&event, table));
                    at += consumed;
                }
                Ok(other) => break Ok(other.map(|_| ())),
                Err(e) => break Err(e),
            }
        };
        prop_assert!(events.len() <= w.events.len());
        prop_assert_eq!(&events[..], &w.events[..events.len()]);
        match last {
            Ok(Pushed::NeedMore { .. }) => {}
            Ok(_) => prop_assert!(false, "ended without eof"),
            Err(e) => {
                prop_assert_eq!(Some(e), w.end);
                prop_assert_eq!(&events, &w.events);
            }
        }
        if file.starts_with(&tracecap_apitrace::ZSTD_MAGIC) && w.end.is_none() {
            prop_assert_eq!(&events, &w.events);
        }
    }

    /// Traces from the writer, cut anywhere: the error of the cut file.
    #[test]
    fn written_cut_short(
        file in any_trace(),
        at in any::<prop::sample::Index>(),
        c in cuts(20_000),
        mode in 0u8..4,
    ) {
        let cut_file = &file[..at.index(file.len() + 1)];
        prop_assert_eq!(pushed(cut_file, &c, mode), whole(cut_file));
    }

    /// Traces from the writer with bytes changed (container lengths, snappy tags, stream bytes
    /// alike): the same events and the same error.
    #[test]
    fn written_and_damaged(
        file in any_trace(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        c in cuts(20_000),
        mode in 0u8..4,
    ) {
        let mut file = file;
        for (at, b) in changes {
            let i = at.index(file.len());
            file[i] = b;
        }
        prop_assert_eq!(pushed(&file, &c, mode), expected(&file, &whole(&file)));
    }

    /// Small corpus traces with bytes changed.
    #[test]
    fn corpus_damaged(
        pick in any::<prop::sample::Index>(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..3),
        c in cuts(60_000),
        mode in 0u8..4,
    ) {
        let small: Vec<_> = corpus().iter().filter(|(_, f, _)| f.len() <= 60_000).collect();
        if small.is_empty() {
            return Ok(());
        }
        let (name, file, _) = small[pick.index(small.len())];
        let mut file = file.clone();
        for (at, b) in changes {
            let i = at.index(file.len());
            file[i] = b;
        }
        prop_assert_eq!(pushed(&file, &c, mode), expected(&file, &whole(&file)), "{}", name);
    }
}

/// The calls `Calls` pairs from the whole file's events (each as its `Debug` text, values
/// included), the calls never left last when the walk ends cleanly; and whether it ended on a
/// fault.
fn calls_whole(file: &[u8]) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let Ok(d) = decompress(file) else {
        return (out, true);
    };
    let Ok(trace) = Stream::parse(&d.data) else {
        return (out, true);
    };
    let mut events = trace.events();
    let mut calls = Calls::new();
    let mut failed = d.fault.is_some();
    while let Some(next) = events.next() {
        let Ok(event) = next else {
            failed = true;
            break;
        };
        match calls.push(&event, events.table()) {
            Ok(Some(call)) => {
                out.push(format!("{call:?}"));
                calls.recycle(call);
            }
            Ok(None) => {}
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    if !failed {
        out.extend(calls.finish().map(|c| format!("{c:?}")));
    }
    (out, failed)
}

/// [`calls_whole`] from the push parser fed `file` in pieces at `cuts`, paired by `KeptCalls`.
fn calls_pushed(file: &[u8], cuts: &[usize]) -> (Vec<String>, bool) {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(file.len())).collect();
    cuts.sort_unstable();
    cuts.push(file.len());
    let mut pieces = Vec::new();
    let mut from = 0;
    for c in cuts {
        pieces.push(&file[from..c]);
        from = c;
    }
    let mut pieces = pieces.into_iter();
    let mut parser = PushParser::new();
    let mut buffer = Vec::new();
    let mut eof = false;
    let mut calls = KeptCalls::<()>::new();
    let mut out = Vec::new();
    let failed = loop {
        match parser.parse(&buffer, eof) {
            Ok(Pushed::Item {
                consumed,
                item: (event, table),
            }) => {
                let call = calls.feed(&event, table, (), |c, ()| format!("{c:?}"));
                match call {
                    Ok(Some(text)) => out.push(text),
                    Ok(None) => {}
                    Err(_) => break true,
                }
                buffer.drain(..consumed);
            }
            Ok(Pushed::NeedMore { .. }) => {
                buffer.extend_from_slice(pieces.next().unwrap());
                eof = pieces.len() == 0;
            }
            Ok(Pushed::End) => break false,
            Err(_) => break true,
        }
    };
    if !failed {
        let table = parser.table();
        calls
            .finish(table, |c, ()| {
                out.push(format!("{c:?}"));
                Ok::<(), ()>(())
            })
            .unwrap();
    }
    (out, failed)
}

/// An ENTER whose argument index is past its signature's count and the slack is a fault when
/// it comes, for `KeptCalls` as for `Calls`: the call that entered before it and leaves after
/// it is never printed.
#[test]
fn an_argument_index_past_the_slack_stops_the_calls_when_it_enters() {
    let mut w = Writer::new(6, 6, &[]);
    w.function(0, b"glFlush", &[]);
    w.function(1, b"glClear", &[b"mask"]);
    let first = w.enter(0, 0, &[]);
    let _bad = w.enter(1, 1, &[WDetail::Arg(1000, WValue::UInt(1))]);
    w.leave(first, &[]);
    let file = write::snappy(&w.finish(), 1 << 20);
    let (calls, failed) = calls_whole(&file);
    assert!(failed);
    assert!(calls.is_empty(), "{calls:?}");
    for c in [vec![], byte_by_byte(&file)] {
        assert_eq!(calls_pushed(&file, &c), (calls.clone(), failed));
    }
}
