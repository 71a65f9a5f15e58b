//! The push parser against the whole-file walk: every corpus file and files made by the writer,
//! fed in random pieces (empty and 1-byte pieces included), cut short at random points, and with
//! random bytes changed, give the same chunks and events (compared as their Debug text, offsets
//! and definitions included), in the same order, and the same error.

mod common;

use std::ops::ControlFlow;

use proptest::prelude::*;
use tracecap_wire::Pushed;
use tracecap_wtf::push::{PushItem, PushParser};
use tracecap_wtf::write::{ChunkedWriter, LegacyWriter, WValue};
use tracecap_wtf::{ArgType, Capture, DefinitionLookup, Error};

/// What a walk gave: its items as text, and its error.
type Walked = (Vec<String>, Option<Error>);

fn chunk_text(c: &tracecap_wtf::Chunk<'_>) -> String {
    format!("chunk {c:?}")
}

fn event_text(e: &tracecap_wtf::Event<'_>) -> String {
    format!("event {e:?}")
}

fn header_text(h: &tracecap_wtf::Header<'_>) -> String {
    format!("header {h:?}")
}

fn defined_text(d: &tracecap_wtf::Definition<'_>) -> String {
    format!("defined {d:?}")
}

/// The whole-file walks: the header, each chunk of `chunks()` that the events walk reaches,
/// followed by its events from `events()` (after each `wtf.event#define`, the definition the
/// table then holds for the wire id it names), then the events walk's error.
fn whole(bytes: &[u8]) -> Walked {
    let capture = match Capture::parse(bytes) {
        Ok(c) => c,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut events = Vec::new();
    let mut error = None;
    let mut walk = capture.events();
    while let Some(ev) = walk.next() {
        match ev {
            Ok(ev) => {
                events.push((ev.chunk, event_text(&ev)));
                if ev.flags() & tracecap_wtf::FLAG_BUILTIN != 0
                    && ev.builtin() == Some(tracecap_wtf::Builtin::EventDefine)
                {
                    let wire = ev.arg(0).and_then(|v| v.as_u32());
                    if let Some((def, _)) = wire.and_then(|w| walk.table().lookup(w)) {
                        events.push((ev.chunk, defined_text(def)));
                    }
                }
            }
            Err(e) => error = Some(e),
        }
    }
    let mut out = vec![header_text(capture.header())];
    let mut events = events.into_iter().peekable();
    for (i, c) in capture.chunks().map_while(Result::ok).enumerate() {
        // The walk reaches a chunk when the chunks before it hold no error: when the walk of
        // the file up to the chunk's start ends cleanly (those chunks are whole there).
        if error.is_some() {
            let before = Capture::parse(&bytes[..c.offset as usize]);
            if !before.is_ok_and(|b| b.events().all(|e| e.is_ok())) {
                break;
            }
        }
        out.push(chunk_text(&c));
        while let Some((_, text)) = events.next_if(|(chunk, _)| *chunk as usize == i) {
            out.push(text);
        }
    }
    out.extend(events.map(|(_, text)| text)); // legacy files: no chunks
    (out, error)
}

/// `bytes` fed to a push parser in pieces of the lengths `sizes` (cycled; the last piece takes
/// the rest), through a buffer the caller owns, as an embedder would.
fn pushed(bytes: &[u8], sizes: &[usize]) -> Walked {
    let mut pieces = Vec::new();
    let (mut at, mut i) = (0usize, 0usize);
    while at < bytes.len() {
        let n = sizes
            .get(i % sizes.len().max(1))
            .copied()
            .unwrap_or(bytes.len());
        let n = if i > 4 * bytes.len() + 8 {
            bytes.len()
        } else {
            n
        };
        let end = (at + n).min(bytes.len());
        pieces.push(&bytes[at..end]);
        at = end;
        i += 1;
    }
    let mut pieces = pieces.into_iter();
    let mut parser = PushParser::new();
    // The bytes not yet consumed are `buffer[start..]`: consumed bytes are dropped by moving
    // `start`, and the buffer is compacted before it grows.
    let (mut buffer, mut start, mut fed) = (Vec::<u8>::new(), 0usize, 0usize);
    let mut out = Vec::new();
    loop {
        // The offset of `buffer[start..]`: what was fed, less what is still held.
        assert_eq!(parser.offset(), (fed - (buffer.len() - start)) as u64);
        let eof = pieces.len() == 0;
        match parser.parse(&buffer[start..], eof) {
            Ok(Pushed::Item { consumed, item }) => {
                out.push(item_text(&item));
                start += consumed;
            }
            Ok(Pushed::NeedMore { hint }) => {
                assert!(!eof, "more wanted ({hint:?}) after the end");
                buffer.drain(..start);
                start = 0;
                let piece = pieces.next().unwrap();
                buffer.extend_from_slice(piece);
                fed += piece.len();
            }
            Ok(Pushed::End) => {
                assert!(matches!(
                    parser.parse(&buffer[start..], true),
                    Ok(Pushed::End)
                ));
                return (out, None);
            }
            Err(e) => {
                // The walk stays over, with the same error.
                assert_eq!(parser.parse(&buffer[start..], true).err(), Some(e));
                return (out, Some(e));
            }
        }
    }
}

/// Piece lengths: empty and 1-byte pieces, short ones, and some long enough to hold whole chunks.
fn sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(
        prop_oneof![
            2 => Just(0usize),
            3 => Just(1usize),
            4 => 2usize..64,
            3 => 64usize..4096,
            1 => 4096usize..(1 << 20),
        ],
        1..40,
    )
}

fn same(bytes: &[u8], sizes: &[usize]) -> Result<(), TestCaseError> {
    let (want, want_err) = whole(bytes);
    for (how, (got, got_err)) in [
        ("parse", pushed(bytes, sizes)),
        ("parse_many", pushed_many(bytes, sizes, 0)),
        // Stopped after every few items: 1 to 5, from the first piece length.
        (
            "parse_many_while",
            pushed_many(bytes, sizes, sizes.first().map_or(1, |n| n % 5 + 1)),
        ),
    ] {
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(g, w, "{}: item {}", how, i);
        }
        prop_assert_eq!(got.len(), want.len(), "{}: item count", how);
        prop_assert_eq!(got_err, want_err, "{}", how);
    }
    Ok(())
}

/// The text of a push item.
fn item_text(item: &PushItem<'_>) -> String {
    match item {
        PushItem::Header(h) => header_text(h),
        PushItem::Defined(d) => defined_text(d),
        PushItem::Chunk(c) => chunk_text(c),
        PushItem::Event(e) => event_text(e),
    }
}

/// [`pushed`] with `parse_many`: every item it hands over, and the count it answers with; with
/// `parse_many_while` stopping after every `stop`-th item when `stop` is not 0.
fn pushed_many(bytes: &[u8], sizes: &[usize], stop: usize) -> Walked {
    let mut pieces = Vec::new();
    let (mut at, mut i) = (0usize, 0usize);
    while at < bytes.len() {
        let n = sizes
            .get(i % sizes.len().max(1))
            .copied()
            .unwrap_or(bytes.len());
        let n = if i > 4 * bytes.len() + 8 {
            bytes.len()
        } else {
            n
        };
        let end = (at + n).min(bytes.len());
        pieces.push(&bytes[at..end]);
        at = end;
        i += 1;
    }
    let mut pieces = pieces.into_iter();
    let mut parser = PushParser::new();
    let (mut buffer, mut start, mut fed) = (Vec::<u8>::new(), 0usize, 0usize);
    let mut out = Vec::new();
    loop {
        assert_eq!(parser.offset(), (fed - (buffer.len() - start)) as u64);
        let eof = pieces.len() == 0;
        let before = out.len();
        let answer = if stop == 0 {
            parser.parse_many(&buffer[start..], eof, |item| out.push(item_text(&item)))
        } else {
            parser.parse_many_while(&buffer[start..], eof, |item| {
                out.push(item_text(&item));
                match out.len() % stop {
                    0 => ControlFlow::Break(()),
                    _ => ControlFlow::Continue(()),
                }
            })
        };
        match answer {
            Ok(Pushed::Item { consumed, item }) => {
                assert_eq!(item, (out.len() - before) as u64);
                assert!(item > 0);
                if stop > 0 {
                    // No item but the last asked to stop.
                    assert!((before + 1..out.len()).all(|len| len % stop != 0));
                }
                start += consumed;
            }
            Ok(Pushed::NeedMore { hint }) => {
                assert!(!eof, "more wanted ({hint:?}) after the end");
                assert_eq!(out.len(), before);
                buffer.drain(..start);
                start = 0;
                let piece = pieces.next().unwrap();
                buffer.extend_from_slice(piece);
                fed += piece.len();
            }
            Ok(Pushed::End) => {
                assert_eq!(out.len(), before);
                return (out, None);
            }
            Err(e) => return (out, Some(e)),
        }
    }
}

/// The corpus files, the small ones first (`.xz` decompressed), or none (with a SKIP line).
fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files = common::traces();
    files.sort_by_key(|(_, b)| b.len());
    files
}

/// The corpus files of at most `max` bytes.
fn small_corpus(max: usize) -> Vec<Vec<u8>> {
    corpus()
        .into_iter()
        .filter(|(_, b)| b.len() <= max)
        .map(|(_, b)| b)
        .collect()
}

/// A file with `defs` definitions spread over `chunks` chunks (or a legacy file), each with
/// events of every kind of argument the definitions use.
fn written(legacy: bool, defs: &[(Vec<u8>, usize)], chunks: usize, seed: u32) -> Vec<u8> {
    let types = [
        ArgType::Uint32,
        ArgType::Int8,
        ArgType::Ascii,
        ArgType::Utf8,
        ArgType::Uint8Array,
        ArgType::Float32Array,
        ArgType::Uint16,
    ];
    let names = [
        "uint32",
        "int8",
        "ascii",
        "utf8",
        "uint8[]",
        "float32[]",
        "uint16",
    ];
    let value = |t: ArgType, k: u32| match t {
        ArgType::Uint32 => WValue::Uint32(k.wrapping_mul(2_654_435_761)),
        ArgType::Int8 => WValue::Int8(k as i8),
        ArgType::Ascii => WValue::Ascii((k % 3 != 0).then(|| "x".repeat(k as usize % 9))),
        ArgType::Utf8 => WValue::Utf8(Some("é€".repeat(k as usize % 4))),
        ArgType::Uint8Array => WValue::Ints(t, Some((0..i64::from(k % 6)).collect())),
        ArgType::Float32Array => WValue::Floats((k % 4 != 0).then(|| vec![1.5; k as usize % 3])),
        _ => WValue::Uint16(k as u16),
    };
    let sig = |pick: &[u8]| {
        pick.iter()
            .enumerate()
            .map(|(i, &p)| format!("{} a{i}", names[p as usize % names.len()]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let args = |pick: &[u8], k: u32| {
        pick.iter()
            .map(|&p| value(types[p as usize % types.len()], k))
            .collect::<Vec<_>>()
    };
    if legacy {
        let mut w = LegacyWriter::new(1, Some("{}"), 1, 7, Some("{}")).unwrap();
        for (d, (pick, _)) in defs.iter().enumerate() {
            let pick: Vec<u8> = pick.iter().map(|p| p % 4).collect(); // no arrays of utf8 here
            w.define(2 + d as u16, 0, 0, &format!("L#d{d}"), &sig(&pick))
                .unwrap();
            for k in 0..(seed % 5 + d as u32) {
                w.event(2 + d as u32, k, &args(&pick, k + seed)).unwrap();
            }
        }
        return w.finish();
    }
    let mut w = ChunkedWriter::new(0x90BA_3800, r#"{"type":"file_header"}"#);
    for c in 0..chunks {
        for (d, (pick, at)) in defs.iter().enumerate() {
            if at % chunks == c {
                w.define(
                    2 + d as u16,
                    (d % 2) as u16,
                    0,
                    &format!("T#d{d}"),
                    &sig(pick),
                )
                .unwrap();
            }
        }
        for (d, (pick, at)) in defs.iter().enumerate() {
            if at % chunks <= c {
                for k in 0..(seed % 4 + d as u32) {
                    w.event(2 + d as u32, k + c as u32, &args(pick, k + seed))
                        .unwrap();
                }
            }
        }
        w.end_chunk();
    }
    w.finish()
}

fn model() -> impl Strategy<Value = (bool, Vec<(Vec<u8>, usize)>, usize, u32)> {
    (
        any::<bool>(),
        prop::collection::vec((prop::collection::vec(any::<u8>(), 0..5), 0usize..4), 1..6),
        1usize..5,
        any::<u32>(),
    )
}

#[test]
fn corpus_in_pieces_of_every_size() {
    let files = corpus();
    if files.is_empty() {
        eprintln!("SKIP: corpus not found");
        return;
    }
    for (name, bytes) in &files {
        for sizes in [
            vec![1usize],
            vec![0, 7, 1, 4096],
            vec![65536],
            vec![bytes.len()],
        ] {
            if bytes.len() > 1 << 20 && sizes.len() == 1 {
                continue; // the legacy originals: one mixed feed is enough in debug builds
            }
            let r = same(bytes, &sizes);
            assert!(r.is_ok(), "{name} in pieces of {sizes:?}: {r:?}");
        }
    }
}

/// Definitions of large wire ids (the push parser keeps those below 4096 apart, with their
/// names) and redefinitions, wire id 1's included: every event keeps the name and signature of
/// the definition in force when it was read, whatever the pieces.
#[test]
fn large_wire_ids_and_redefinitions() {
    let mut w = ChunkedWriter::new(0x90BA_3800, r#"{"type":"file_header"}"#);
    let ids = [3u16, 4095, 4096, 4097, 60000];
    for &id in &ids {
        w.define(id, 0, 0, &format!("Id#{id}"), "uint32 a, ascii s")
            .unwrap();
    }
    let one = |k: u32| {
        [
            WValue::Uint32(k),
            WValue::Ascii(Some("x".repeat(k as usize % 5))),
        ]
    };
    for k in 0..6 {
        for &id in &ids {
            w.event(u32::from(id), k, &one(k)).unwrap();
        }
    }
    w.end_chunk();
    // Redefined with other names and arguments, in the next chunk and in the middle of one.
    for k in 0..4 {
        if k < 2 {
            for &id in &ids {
                w.event(u32::from(id), k, &one(k)).unwrap();
            }
        }
        if k == 1 {
            for &id in &ids {
                w.define(id, 1, 0, &format!("Again#{id}"), "uint16 b")
                    .unwrap();
            }
        }
        if k >= 2 {
            for &id in &ids {
                w.event(u32::from(id), k, &[WValue::Uint16(k as u16)])
                    .unwrap();
            }
        }
    }
    // Wire id 1 redefined: the defines after it are read with the new definition.
    w.define(
        1,
        0,
        tracecap_wtf::FLAG_BUILTIN,
        "wtf.event#define",
        "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args",
    )
    .unwrap();
    w.define(5, 0, 0, "After#one", "uint32 c").unwrap();
    w.event(5, 9, &[WValue::Uint32(9)]).unwrap();
    w.end_chunk();
    let bytes = w.finish();
    let walked = whole(&bytes);
    assert!(
        walked.1.is_none(),
        "{:?} after {:?}",
        walked.1,
        walked.0.last()
    );
    for sizes in [vec![1usize], vec![0, 7, 1, 4096], vec![bytes.len()]] {
        let r = same(&bytes, &sizes);
        assert!(r.is_ok(), "in pieces of {sizes:?}: {r:?}");
    }
}

#[test]
fn header_and_definitions_after_the_walk() {
    let bytes = tracecap_wtf::doc_example();
    let mut parser = PushParser::new();
    assert!(parser.header().is_none());
    assert!(matches!(
        parser.parse(&bytes[..20], false),
        Ok(Pushed::NeedMore { hint: Some(_) })
    ));
    let mut rest = &bytes[..];
    while let Pushed::Item { consumed, .. } = parser.parse(rest, true).unwrap() {
        rest = &rest[consumed..];
    }
    let header = parser.header().unwrap();
    assert_eq!(header.format_version, 10);
    let def = parser.definition(2).unwrap();
    assert_eq!((def.name, def.signature), ("App#tick", "uint32 n"));
    assert_eq!(parser.definition(1).unwrap().name, "wtf.event#define");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn corpus_in_random_pieces(pick in any::<prop::sample::Index>(), sizes in sizes()) {
        let files = small_corpus(1 << 20);
        if files.is_empty() {
            eprintln!("SKIP: corpus not found");
            return Ok(());
        }
        same(&files[pick.index(files.len())], &sizes)?;
    }

    #[test]
    fn corpus_cut_short(pick in any::<prop::sample::Index>(), cut in any::<prop::sample::Index>(), sizes in sizes()) {
        let files = small_corpus(1 << 20);
        if files.is_empty() {
            eprintln!("SKIP: corpus not found");
            return Ok(());
        }
        let bytes = &files[pick.index(files.len())];
        same(&bytes[..cut.index(bytes.len() + 1)], &sizes)?;
    }

    #[test]
    fn corpus_with_changed_bytes(
        pick in any::<prop::sample::Index>(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        sizes in sizes(),
    ) {
        let files = small_corpus(1 << 16);
        if files.is_empty() {
            eprintln!("SKIP: corpus not found");
            return Ok(());
        }
        let mut bytes = files[pick.index(files.len())].clone();
        for (at, b) in changes {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        same(&bytes, &sizes)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn written_in_random_pieces((legacy, defs, chunks, seed) in model(), sizes in sizes()) {
        same(&written(legacy, &defs, chunks, seed), &sizes)?;
    }

    #[test]
    fn written_cut_short((legacy, defs, chunks, seed) in model(), cut in any::<prop::sample::Index>(), sizes in sizes()) {
        let bytes = written(legacy, &defs, chunks, seed);
        same(&bytes[..cut.index(bytes.len() + 1)], &sizes)?;
    }

    #[test]
    fn written_with_changed_bytes(
        (legacy, defs, chunks, seed) in model(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        sizes in sizes(),
    ) {
        let mut bytes = written(legacy, &defs, chunks, seed);
        for (at, b) in changes {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        same(&bytes, &sizes)?;
    }

    #[test]
    fn random_bytes_after_a_prologue(chunked in any::<bool>(), tail in prop::collection::vec(any::<u8>(), 0..300), sizes in sizes()) {
        let mut bytes = if chunked {
            vec![0xEF, 0xBE, 0xAD, 0xDE, 0, 0, 0, 0, 10, 0, 0, 0]
        } else {
            vec![0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 0, 0, 0, 0, 3]
        };
        bytes.extend_from_slice(&tail);
        same(&bytes, &sizes)?;
    }
}
