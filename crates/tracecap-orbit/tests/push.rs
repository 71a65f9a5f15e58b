//! The push parser against the whole-file reader: every corpus file and files made by the
//! writer, split at random points into random pieces (empty and 1-byte pieces included), give
//! the same header, the same events at the same offsets, the same final error and the same end
//! position as `Capture::parse` and `Capture::events` on the whole bytes; so do the files cut at
//! a random point (fed with `eof` at the cut) and mutated files.

use proptest::prelude::*;
use tracecap_orbit::push::{PushItem, PushParser, Pushed};
use tracecap_orbit::write::{put_varint, CaptureWriter};
use tracecap_orbit::{Capture, Error, ErrorKind, Event, EventKind, Header, HEADER_LEN};
use tracecap_testkit::Rng;

/// One item with what identifies it; the bytes it views are checked against the file as it is
/// read (the caller's buffer does not outlive the feeding).
#[derive(Clone, Debug, PartialEq)]
enum Rec {
    Header(Header),
    Event {
        offset: u64,
        length: u32,
        message_offset: u64,
        kind: EventKind,
        payload_offset: u64,
        payload_len: usize,
        split: bool,
    },
}

#[derive(Debug, PartialEq)]
struct Outcome {
    items: Vec<Rec>,
    error: Option<Error>,
    /// Where the walk stopped after `CaptureFinished` (`Events::position`); `None` otherwise.
    end: Option<u64>,
}

/// Checks that `ev` views `file` where its offsets say, and records it.
fn rec(file: &[u8], ev: &Event<'_>) -> Rec {
    let at = |o: u64, n: usize| &file[o as usize..o as usize + n];
    assert_eq!(ev.message, at(ev.message_offset, ev.length as usize));
    assert_eq!(ev.payload, at(ev.payload_offset, ev.payload.len()));
    Rec::Event {
        offset: ev.offset,
        length: ev.length,
        message_offset: ev.message_offset,
        kind: ev.kind,
        payload_offset: ev.payload_offset,
        payload_len: ev.payload.len(),
        split: ev.split,
    }
}

/// The whole-file reader: the header, then the event walk.
fn whole(file: &[u8]) -> Outcome {
    let capture = match Capture::parse(file) {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                items: vec![],
                error: Some(e),
                end: None,
            }
        }
    };
    let mut items = vec![Rec::Header(*capture.header())];
    let mut error = None;
    let mut events = capture.events();
    for ev in events.by_ref() {
        match ev {
            Ok(ev) => items.push(rec(file, &ev)),
            Err(e) => error = Some(e),
        }
    }
    let end = events.finished().then(|| events.position());
    Outcome { items, error, end }
}

/// The piece sizes for a file of `len` bytes: a mix chosen by `mode`, covering the file.
fn pieces(len: usize, seed: u64, mode: u8) -> Vec<usize> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    let mut total = 0;
    while total < len {
        let n = match mode % 4 {
            // Mostly single bytes and empty pieces (on big files, larger pieces between).
            0 if len > 100_000 && rng.below(4) == 0 => rng.below(40_000),
            0 => rng.below(3).saturating_sub(1) + rng.below(2),
            1 => rng.below(64),
            2 => rng.below(70_000),
            _ => match rng.below(4) {
                0 => 0,
                1 => 1,
                2 => rng.below(300),
                _ => rng.below(20_000),
            },
        };
        out.push(n);
        total += n;
    }
    out
}

/// Feeds `file` to a push parser in `pieces` the way a caller does (append, parse until more is
/// needed, drop the consumed bytes: after every item when `drain_each`, else in bulk), `eof`
/// once every piece is in.
fn pushed(file: &[u8], pieces: &[usize], drain_each: bool) -> Outcome {
    let mut parser = PushParser::new();
    let mut buffer: Vec<u8> = Vec::new();
    let mut used = 0usize;
    let mut fed = 0usize;
    let mut next = pieces.iter();
    let mut items = Vec::new();
    loop {
        let eof = fed == file.len();
        let before = parser.offset();
        assert_eq!(before, (fed - (buffer.len() - used)) as u64, "offset()");
        let data = &buffer[used..];
        match parser.parse(data, eof) {
            Ok(Pushed::Item { consumed, item }) => {
                assert!(consumed <= data.len(), "consumed more than given");
                match item {
                    PushItem::Header(h) => {
                        assert_eq!(before, 0);
                        assert_eq!(consumed as u64, h.capture_section_offset);
                        items.push(Rec::Header(h));
                    }
                    PushItem::Event(ev) => {
                        assert_eq!(ev.offset, before, "event offset");
                        assert_eq!(
                            before + consumed as u64,
                            ev.message_offset + u64::from(ev.length)
                        );
                        items.push(rec(file, &ev));
                    }
                }
                used += consumed;
                if drain_each {
                    buffer.drain(..used);
                    used = 0;
                }
                assert_eq!(parser.offset(), before + consumed as u64);
            }
            Ok(Pushed::NeedMore { hint }) => {
                assert!(!eof, "NeedMore at eof");
                assert!(hint != Some(0));
                buffer.drain(..used);
                used = 0;
                let n = next.next().copied().unwrap_or(file.len() - fed);
                let n = n.min(file.len() - fed);
                buffer.extend_from_slice(&file[fed..fed + n]);
                fed += n;
            }
            Ok(Pushed::End) => {
                assert!(parser.finished());
                assert!(matches!(
                    parser.parse(&buffer[used..], eof),
                    Ok(Pushed::End)
                ));
                return Outcome {
                    items,
                    error: None,
                    end: Some(parser.offset()),
                };
            }
            Err(e) => {
                // The error stays.
                assert_eq!(parser.parse(&buffer[used..], eof).err(), Some(e));
                return Outcome {
                    items,
                    error: Some(e),
                    end: None,
                };
            }
        }
    }
}

/// Feeds `file` the way a reader with its own read buffer does: each piece is parsed where it
/// is, and only an event split across pieces is copied, into a carry buffer, a hint at a time
/// (the loop of the bench's `push_walk`).
fn pushed_in_place(file: &[u8], pieces: &[usize]) -> Outcome {
    let mut parser = PushParser::new();
    let mut sizes = pieces.iter();
    let mut fed = 0usize;
    let mut next_piece = || {
        let n = sizes
            .next()
            .copied()
            .unwrap_or(file.len() - fed)
            .min(file.len() - fed);
        let p = &file[fed..fed + n];
        fed += n;
        (p, fed == file.len())
    };
    let mut piece: &[u8] = &[];
    let mut eof = false;
    let mut carry: Vec<u8> = Vec::new();
    let mut used = 0usize;
    let mut items = Vec::new();
    loop {
        let from_piece = carry.is_empty();
        let input = if from_piece { piece } else { &carry[used..] };
        match parser.parse(input, eof) {
            Ok(Pushed::Item { consumed, item }) => {
                items.push(match item {
                    PushItem::Header(h) => Rec::Header(h),
                    PushItem::Event(ev) => rec(file, &ev),
                });
                if from_piece {
                    piece = &piece[consumed..];
                } else {
                    used += consumed;
                    if used == carry.len() {
                        carry.clear();
                        used = 0;
                    }
                }
            }
            Ok(Pushed::NeedMore { hint }) => {
                assert!(!eof, "NeedMore at eof");
                if from_piece {
                    carry.extend_from_slice(piece);
                    piece = &[];
                }
                while piece.is_empty() && !eof {
                    (piece, eof) = next_piece();
                }
                if !carry.is_empty() {
                    carry.drain(..used);
                    used = 0;
                    let n = hint.map_or(piece.len(), |h| piece.len().min(h as usize));
                    carry.extend_from_slice(&piece[..n]);
                    piece = &piece[n..];
                    // The last bytes may all be in the carry now.
                    eof = eof && piece.is_empty();
                }
            }
            Ok(Pushed::End) => {
                return Outcome {
                    items,
                    error: None,
                    end: Some(parser.offset()),
                }
            }
            Err(e) => {
                return Outcome {
                    items,
                    error: Some(e),
                    end: None,
                }
            }
        }
    }
}

/// True when the whole-file reader bounds the events by a section that the section list (after
/// the capture section) names: what the push parser cannot know (see its module docs).
fn bound_from_sections(file: &[u8]) -> bool {
    let Ok(h) = Header::parse(file) else {
        return false;
    };
    let (start, list) = (h.capture_section_offset, h.section_list_offset);
    if list == 0 || list <= start || start < HEADER_LEN {
        return false;
    }
    let known = list.min(file.len() as u64);
    match Capture::parse(file) {
        Ok(c) => c.capture_section_bound() < known,
        Err(e) => matches!(e.kind, ErrorKind::CaptureSectionOutOfBounds { .. }),
    }
}

/// Pushing `file` in `pieces` gives what the whole-file reader gives.
fn check(name: &str, file: &[u8], seed: u64, mode: u8) {
    let want = whole(file);
    let p = pieces(file.len(), seed, mode);
    let got = pushed(file, &p, mode & 4 != 0 && file.len() < 100_000);
    assert_eq!(
        pushed_in_place(file, &p),
        want,
        "{name}: {} bytes in {} pieces, parsed in place (seed {seed}, mode {mode})",
        file.len(),
        p.len()
    );
    assert_eq!(
        got,
        want,
        "{name}: {} bytes in {} pieces (seed {seed}, mode {mode})",
        file.len(),
        p.len()
    );
}

fn corpus() -> &'static [(String, Vec<u8>)] {
    static FILES: std::sync::OnceLock<Vec<(String, Vec<u8>)>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| tracecap_testkit::corpus_files("orbit", &["generated", "real"]))
}

/// A file made by the writer: random kinds and payload sizes (lengths of one to three bytes,
/// messages of a shape the fast path takes and of shapes it leaves), `CaptureFinished` or not,
/// USER_DATA or not.
fn written(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut w = CaptureWriter::new();
    let n = rng.below(40);
    for _ in 0..n {
        let kind = EventKind::ALL[rng.below(EventKind::ALL.len() - 1)];
        if kind == EventKind::CaptureFinished {
            continue;
        }
        let size = match rng.below(8) {
            0 => rng.below(20_000),
            1..=2 => rng.below(300),
            _ => rng.below(100),
        };
        let mut message = Vec::new();
        if rng.below(6) == 0 {
            // An unknown varint field before the member: not the common shape.
            message.extend_from_slice(&[0xf8, 0x07, rng.below(200) as u8 & 0x7f]);
        }
        put_varint(&mut message, u64::from(kind.field_number()) << 3 | 2);
        put_varint(&mut message, size as u64);
        message.extend((0..size).map(|_| rng.below(256) as u8));
        w.write_event(&message).expect("a well-formed event");
    }
    if rng.below(5) != 0 {
        let mut fin = Vec::new();
        put_varint(
            &mut fin,
            u64::from(EventKind::CaptureFinished.field_number()) << 3 | 2,
        );
        fin.push(0);
        w.write_event(&fin).expect("CaptureFinished");
    }
    if rng.below(2) == 0 {
        let user_data: Vec<u8> = vec![0x0a, 3, 0x0a, 1, 7];
        w.finish_with_user_data(&user_data).expect("user data")
    } else {
        w.finish()
    }
}

/// `file` with a few bytes changed: in the header now and then, else anywhere.
fn mutate(file: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut out = file.to_vec();
    if out.is_empty() {
        return out;
    }
    for _ in 0..1 + rng.below(4) {
        let at = if rng.below(4) == 0 {
            rng.below(out.len().min(HEADER_LEN as usize))
        } else {
            rng.below(out.len())
        };
        out[at] = match rng.below(4) {
            0 => 0,
            1 => 0xff,
            2 => out[at] ^ (1 << rng.below(8)),
            _ => rng.below(256) as u8,
        };
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn corpus_files_in_random_pieces(seed in any::<u64>(), mode in 0u8..8) {
        for (name, file) in corpus() {
            check(name, file, seed, mode);
        }
    }

    #[test]
    fn cut_corpus_files(seed in any::<u64>(), mode in 0u8..8) {
        let mut rng = Rng(seed | 1);
        for (name, file) in corpus() {
            // Mostly near the front, where the header and the first events are.
            let cut = if rng.below(2) == 0 { rng.below(file.len().min(400) + 1) } else { rng.below(file.len() + 1) };
            check(&format!("{name} cut at {cut}"), &file[..cut], seed, mode);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_files(seed in any::<u64>(), mode in 0u8..8) {
        let mut rng = Rng(seed | 1);
        for (name, file) in corpus().iter().filter(|(_, f)| f.len() < 100_000) {
            let m = mutate(file, rng.next_u64());
            if !bound_from_sections(&m) {
                check(&format!("{name} mutated"), &m, seed, mode);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn written_files_in_random_pieces(file_seed in any::<u64>(), seed in any::<u64>(), mode in 0u8..8) {
        let file = written(file_seed);
        check("written", &file, seed, mode);
        let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
        let cut = rng.below(file.len() + 1);
        check(&format!("written, cut at {cut}"), &file[..cut], seed, mode);
        let m = mutate(&file, rng.next_u64());
        if !bound_from_sections(&m) {
            check("written, mutated", &m, seed, mode);
        }
    }
}

/// Hand-made headers: each of the header's answers, at every split.
#[test]
fn headers_at_every_split() {
    let mut w = CaptureWriter::new();
    w.write_event(&[0xda, 0x01, 0]).unwrap();
    let base = w.finish_with_user_data(&[0x0a, 0]).unwrap();
    let mut files = vec![base.clone()];
    let header = |start: u64, list: u64| {
        let mut f = base.clone();
        f[8..16].copy_from_slice(&start.to_le_bytes());
        f[16..24].copy_from_slice(&list.to_le_bytes());
        f
    };
    // The capture section inside the header, after the file, after the list; the list inside
    // the header, before the events, inside the events, after the file.
    for (start, list) in [
        (0, 0),
        (8, 0),
        (23, 40),
        (24, 0),
        (24, 8),
        (24, 24),
        (24, 26),
        (28, 0),
        (500, 0),
        (24, 500),
        (u64::MAX, 0),
        (24, u64::MAX),
    ] {
        files.push(header(start, list));
    }
    files.push(b"ORBT".to_vec());
    files.push(b"ORBX\x01\0\0\0".to_vec());
    files.push(b"ORBT\x02\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec());
    for file in &files {
        let want = whole(file);
        for split in 0..=file.len() {
            let got = pushed(file, &[split, file.len() - split], false);
            assert_eq!(got, want, "{file:?} split at {split}");
        }
        let ones = vec![1; file.len()];
        assert_eq!(pushed(file, &ones, true), want, "{file:?} in single bytes");
    }
}

/// A section listed inside the events: the documented case the push parser cannot see before
/// the list; the whole-file walk stops at the section, the push parser reads on.
#[test]
fn a_section_inside_the_events_is_known_only_to_the_whole_file() {
    let mut w = CaptureWriter::new();
    w.write_event(&[0x12, 1, 0]).unwrap();
    w.write_event(&[0xda, 0x01, 0]).unwrap();
    let mut file = w.finish_with_user_data(&[0x0a, 0]).unwrap();
    let list = u64::from_le_bytes(file[16..24].try_into().unwrap()) as usize;
    // USER_DATA's entry now points at the second event.
    file[list + 16..list + 24].copy_from_slice(&28u64.to_le_bytes());
    assert!(bound_from_sections(&file));
    let want = whole(&file);
    let got = pushed(&file, &[40, file.len() - 40], false);
    assert_eq!(want.items.len(), 2);
    assert!(want.error.is_some());
    assert_eq!(got.items.len(), 3);
    assert_eq!(got.items[..2], want.items[..]);
}

/// Reading events allocates nothing: the push parser over the real capture, in 64 KiB pieces
/// through a buffer reserved up front.
#[test]
fn pushing_allocates_nothing() {
    use tracecap_testkit::{allocs, CountingAlloc};
    #[global_allocator]
    static GLOBAL: CountingAlloc = CountingAlloc;

    let Some((_, file)) = corpus()
        .iter()
        .find(|(n, _)| n == "orbit168_OrbitTest_capture.orbit")
    else {
        return;
    };
    let mut buffer: Vec<u8> = Vec::with_capacity(4 << 20);
    let probe = allocs();
    drop(std::hint::black_box(vec![1u8; 16]));
    assert!(allocs() > probe, "the counting allocator is not counting");
    let before = allocs();
    let mut parser = PushParser::new();
    let (mut used, mut fed, mut events) = (0usize, 0usize, 0u64);
    loop {
        match parser
            .parse(&buffer[used..], fed == file.len())
            .expect("event")
        {
            Pushed::Item { consumed, item } => {
                events += u64::from(matches!(item, PushItem::Event(_)));
                used += consumed;
            }
            Pushed::NeedMore { .. } => {
                buffer.drain(..used);
                used = 0;
                let n = (64 << 10).min(file.len() - fed);
                buffer.extend_from_slice(&file[fed..fed + n]);
                fed += n;
            }
            Pushed::End => break,
        }
    }
    assert_eq!(allocs() - before, 0, "allocations while pushing");
    assert_eq!(events, 38765);
}
