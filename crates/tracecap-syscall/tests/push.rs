//! The push parser against the whole-file reader: every capture (the corpus, and files the writer
//! makes when the `write` feature is on), fed in random pieces, whole, cut short or with bytes
//! changed, gives the same items, offsets and error as `Capture::parse` and `Capture::entries` on
//! the same bytes.

use proptest::prelude::*;
use tracecap_syscall::push::{PushItem, PushParser};
use tracecap_syscall::{Capture, Entry, MAX_GAP_LEN};
use tracecap_wire::Pushed;

/// What a reader saw: each item as its Debug text (offsets included), then the error, if any.
#[derive(Debug, PartialEq)]
struct Walk {
    items: Vec<String>,
    error: Option<String>,
}

/// The whole-file reader: the first header, then every entry, then the error.
fn whole(bytes: &[u8]) -> Walk {
    let mut items = Vec::new();
    let cap = match Capture::parse(bytes) {
        Ok(cap) => cap,
        Err(e) => {
            return Walk {
                items,
                error: Some(format!("{e:?}")),
            }
        }
    };
    items.push(format!("{:?}", Entry::Header(*cap.header())));
    let mut error = None;
    for e in cap.entries() {
        match e {
            Ok(e) => items.push(format!("{e:?}")),
            Err(e) => error = Some(format!("{e:?}")),
        }
    }
    Walk { items, error }
}

/// The push parser, fed `bytes` in pieces of the lengths `pieces` gives in turn (0 included),
/// through a buffer the caller owns. Also checks, for every item, that the parser's offset moves
/// by what it consumed, that an entry starts where the parser stood (a gap where its first part
/// did) and that the parts of a gap add up to it.
fn pushed(bytes: &[u8], pieces: &[usize]) -> Walk {
    let mut parser = PushParser::new();
    let mut buffer: Vec<u8> = Vec::new();
    let mut start = 0;
    let mut fed = 0;
    let mut next_piece = pieces.iter().cycle();
    let mut items = Vec::new();
    let mut gap_parts: Option<(u64, u64)> = None;
    let mut calls = 0u64;
    // Set only when the parser asks for more and every byte was given: until then it sees the
    // whole file without knowing it is whole, as a reader of a growing file does.
    let mut eof = false;
    loop {
        calls += 1;
        assert!(calls < 100_000_000, "the parser does not progress");
        let before = parser.offset();
        assert_eq!(before, (fed - (buffer.len() - start)) as u64);
        let result = parser.parse(&buffer[start..], eof);
        let answer = match result {
            Ok(a) => a,
            Err(e) => {
                // Nothing after an error.
                assert!(matches!(
                    parser.parse(&buffer[start..], eof),
                    Ok(Pushed::End)
                ));
                return Walk {
                    items,
                    error: Some(format!("{e:?}")),
                };
            }
        };
        match answer {
            Pushed::Item { consumed, item } => {
                assert!(consumed <= buffer.len() - start);
                match item {
                    PushItem::GapPart(part) => {
                        assert_eq!(part.offset, before);
                        assert_eq!(part.len, consumed as u64);
                        assert!(part.len > 0 && part.len % 4 == 0);
                        let (at, len) = gap_parts.get_or_insert((before, 0));
                        assert_eq!(*at + *len, before);
                        *len += part.len;
                    }
                    PushItem::Entry(Entry::Gap(gap)) => {
                        let (at, len) = gap_parts.take().unwrap_or((before, 0));
                        assert_eq!(gap.offset, at);
                        assert_eq!(gap.len, len + consumed as u64);
                        items.push(format!("{:?}", Entry::Gap(gap)));
                    }
                    PushItem::Entry(e) => {
                        assert!(gap_parts.is_none());
                        assert_eq!(e.offset(), before);
                        items.push(format!("{e:?}"));
                    }
                    PushItem::Header(h) => {
                        assert_eq!((h.offset, before), (0, 0));
                        assert!(items.is_empty());
                        items.push(format!("{:?}", Entry::Header(h)));
                    }
                }
                start += consumed;
                assert_eq!(parser.offset(), before + consumed as u64);
            }
            Pushed::NeedMore { hint } => {
                assert!(!eof, "NeedMore at the end of the file");
                assert!(hint.is_none_or(|h| h > 0));
                buffer.drain(..start);
                start = 0;
                if fed == bytes.len() {
                    eof = true;
                }
                let n = (*next_piece.next().unwrap_or(&1)).min(bytes.len() - fed);
                buffer.extend_from_slice(&bytes[fed..fed + n]);
                fed += n;
            }
            Pushed::End => {
                assert!(
                    eof && start == buffer.len(),
                    "End before every byte was read"
                );
                assert!(gap_parts.is_none());
                assert!(matches!(parser.parse(&[], true), Ok(Pushed::End)));
                return Walk { items, error: None };
            }
        }
    }
}

/// Piece lengths: empty pieces, single bytes, a few bytes (shorter than a segment's tag and
/// length) and larger pieces, mixed; fed in turn, cycling.
fn pieces() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(
        prop_oneof![
            1 => Just(0usize),
            2 => Just(1usize),
            3 => 2usize..12,
            3 => 12usize..400,
            2 => 400usize..70_000,
        ],
        1..12,
    )
    .prop_map(at_least_one_byte)
}

/// Pieces that are all empty would never end: one byte more then.
fn at_least_one_byte(mut pieces: Vec<usize>) -> Vec<usize> {
    if pieces.iter().all(|&n| n == 0) {
        pieces.push(1);
    }
    pieces
}

/// Like [`pieces`], without the tiny ones: for the big corpus files, where byte-sized pieces
/// would make the test slow.
fn big_pieces() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(
        prop_oneof![
            1 => Just(0usize),
            1 => Just(1usize),
            2 => 2usize..400,
            4 => 400usize..200_000,
        ],
        1..12,
    )
    .prop_map(at_least_one_byte)
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    tracecap_testkit::corpus_paths("syscall", &[], "dat")
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, tracecap_testkit::read(&p))
        })
        .collect()
}

fn check(name: &str, bytes: &[u8], pieces: &[usize]) -> Result<(), TestCaseError> {
    let expected = whole(bytes);
    let got = pushed(bytes, pieces);
    prop_assert_eq!(
        &got,
        &expected,
        "{} ({} bytes), pieces {:?}",
        name,
        bytes.len(),
        pieces
    );
    Ok(())
}

/// The corpus, each file read once.
fn corpus_cached() -> &'static [(String, Vec<u8>)] {
    static CORPUS: std::sync::OnceLock<Vec<(String, Vec<u8>)>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(corpus)
}

#[test]
fn corpus_is_there_and_read_whole() {
    let files = corpus_cached();
    if files.is_empty() {
        return;
    }
    assert!(files.len() >= 6);
    for (name, bytes) in files {
        // Pieces of one size each: a byte at a time for the small files.
        let size = if bytes.len() < 20_000 { 1 } else { 4096 };
        let walk = pushed(bytes, &[size]);
        assert_eq!(walk, whole(bytes), "{name}");
    }
}

#[test]
fn forked_capture_in_pieces() {
    // A forked child's capture after its parent's: ls_l.dat twice.
    let Some((_, one)) = corpus_cached().iter().find(|(n, _)| n == "ls_l.dat") else {
        return;
    };
    let two = [&one[..], &one[..]].concat();
    let expected = whole(&two);
    assert!(expected.error.is_none());
    assert_eq!(
        expected
            .items
            .iter()
            .filter(|i| i.starts_with("Header"))
            .count(),
        2
    );
    for pieces in [&[1][..], &[3, 0, 17], &[4096], &[one.len() - 2, 5]] {
        assert_eq!(pushed(&two, pieces), expected, "pieces {pieces:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn corpus_in_random_pieces(pieces in big_pieces()) {
        for (name, bytes) in corpus_cached() {
            check(name, bytes, &pieces)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The small corpus files and the starts of the big ones, in any pieces, cut anywhere.
    #[test]
    fn corpus_cut_anywhere(file in any::<prop::sample::Index>(), cut in any::<prop::sample::Index>(), pieces in pieces()) {
        let files = corpus_cached();
        if files.is_empty() {
            return Ok(());
        }
        let (name, bytes) = &files[file.index(files.len())];
        // The big files cut within their first 64 KiB or around their gap and filler.
        let end = if bytes.len() > 1_100_000 && cut.index(2) == 0 {
            1_048_576 + cut.index(180_000)
        } else {
            cut.index(bytes.len().min(65_536) + 1)
        };
        let end = end.min(bytes.len());
        check(&format!("{name} cut at {end}"), &bytes[..end], &pieces)?;
    }

    /// Corpus files with a few bytes changed (the start of the big ones).
    #[test]
    fn corpus_mutated(
        file in any::<prop::sample::Index>(),
        changes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        pieces in pieces(),
    ) {
        let files = corpus_cached();
        if files.is_empty() {
            return Ok(());
        }
        let (name, bytes) = &files[file.index(files.len())];
        let mut bytes = bytes[..bytes.len().min(40_000)].to_vec();
        if bytes.is_empty() {
            return Ok(());
        }
        for (at, b) in &changes {
            let i = at.index(bytes.len());
            bytes[i] = *b;
        }
        check(&format!("{name} changed {changes:?}"), &bytes, &pieces)?;
    }
}

/// Little-endian words.
fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A 28-byte little-endian header with an empty host information segment (36 bytes).
fn small_header() -> Vec<u8> {
    let mut h = vec![0x78, 0x06, 0x17, 0xa5, 1, 0, 0, 0];
    h.extend_from_slice(&7i32.to_le_bytes());
    h.extend_from_slice(&1i64.to_le_bytes());
    h.extend_from_slice(&2i64.to_le_bytes());
    h.extend_from_slice(&words(&[1, 0]));
    h
}

/// `close(3) = 0` as a segment.
fn close_record() -> Vec<u8> {
    let mut r = words(&[2, 20]);
    r.extend_from_slice(&[3, 0, 1, 0]);
    r.extend_from_slice(&0i64.to_le_bytes());
    r.extend_from_slice(&[1, 0, 4, 0, 3, 0, 0, 0]);
    r
}

#[test]
fn gaps_of_every_size_around_the_limit() {
    let max = MAX_GAP_LEN as usize;
    for gap in [4, 64 << 10, max - 4, max, max + 4, max + 64, 3 << 20] {
        for tail in [&close_record()[..], &[][..], &[0, 0][..], &[5, 0, 0, 0][..]] {
            let mut bytes = small_header();
            bytes.extend_from_slice(&close_record());
            bytes.resize(bytes.len() + gap, 0);
            bytes.extend_from_slice(tail);
            for pieces in [&[65_536][..], &[1_000_003], &[7, 0, 100_000], &[4 << 20]] {
                let got = pushed(&bytes, pieces);
                assert_eq!(
                    got,
                    whole(&bytes),
                    "gap {gap}, tail {tail:?}, pieces {pieces:?}"
                );
            }
        }
    }
}

#[test]
fn a_gap_is_not_held_by_the_caller() {
    // 1 MiB less 8 of zeros, fed in 4 KiB pieces: the caller never holds more than a piece.
    let mut bytes = small_header();
    let gap_at = bytes.len() as u64;
    bytes.resize(bytes.len() + MAX_GAP_LEN as usize, 0);
    bytes.extend_from_slice(&close_record());
    let mut parser = PushParser::new();
    let mut buffer = Vec::new();
    let mut pieces = bytes.chunks(4096);
    let mut parts = 0;
    let mut gap = None;
    loop {
        let eof = pieces.len() == 0;
        match parser.parse(&buffer, eof).unwrap() {
            Pushed::Item { consumed, item } => {
                match item {
                    PushItem::GapPart(_) => parts += 1,
                    PushItem::Entry(Entry::Gap(g)) => gap = Some(g),
                    _ => {}
                }
                buffer.drain(..consumed);
            }
            Pushed::NeedMore { .. } => {
                assert!(buffer.len() < 8192);
                buffer.extend_from_slice(pieces.next().unwrap());
            }
            Pushed::End => break,
        }
    }
    let gap = gap.unwrap();
    assert_eq!((gap.offset, gap.len), (gap_at, MAX_GAP_LEN));
    assert!(parts > 200);
}

#[test]
fn a_header_whose_size_more_bytes_could_change() {
    // An old 20-byte big-endian header whose host information starts with an element of tag 0
    // and length 1: offset 28 then also reads as a tag-1 segment, of length 0x4000_0000, which
    // does not fit, so the header is the 20-byte one. The parser cannot know that before the end.
    let mut bytes = vec![0x78, 0x06, 0x17, 0xa5, 1, 1, 0, 0];
    bytes.extend_from_slice(&9i32.to_be_bytes());
    bytes.extend_from_slice(&3i64.to_be_bytes());
    let uname = b"Linux\0h\0r\0v\0m\0d\0\0\0\0\0";
    bytes.extend_from_slice(&1u32.to_be_bytes());
    bytes.extend_from_slice(&(8 + 4 + uname.len() as u32).to_be_bytes());
    bytes.extend_from_slice(&[0, 0, 0, 1, 0x40, 0, 0, 0]);
    bytes.extend_from_slice(&1u16.to_be_bytes());
    bytes.extend_from_slice(&(uname.len() as u16).to_be_bytes());
    bytes.extend_from_slice(uname);
    // close(3) = 0, big-endian.
    bytes.extend_from_slice(&2u32.to_be_bytes());
    bytes.extend_from_slice(&20u32.to_be_bytes());
    bytes.extend_from_slice(&[0, 3, 1, 0]);
    bytes.extend_from_slice(&0i64.to_be_bytes());
    bytes.extend_from_slice(&[0, 1, 0, 4, 0, 0, 0, 3]);
    let expected = whole(&bytes);
    assert!(expected.error.is_none(), "{expected:?}");
    assert!(expected.items[0].contains("fixed_len: 20"), "{expected:?}");
    assert_eq!(expected.items.len(), 2);
    for pieces in [&[1][..], &[5, 0, 3], &[1000]] {
        assert_eq!(pushed(&bytes, pieces), expected);
    }
    // Until the end the parser waits.
    let mut parser = PushParser::new();
    assert!(matches!(
        parser.parse(&bytes, false).unwrap(),
        Pushed::NeedMore { .. }
    ));
}

#[test]
fn header_answers_do_not_wait_when_no_byte_can_change_them() {
    let mut parser = PushParser::new();
    assert!(parser.parse(b"\x78\x06\x17", false).is_ok());
    let err = parser.parse(b"\x78\x06\x18", false).unwrap_err();
    assert_eq!(err.offset, 0);
    let mut parser = PushParser::new();
    let mut h = small_header();
    h[4] = 2;
    assert_eq!(
        parser.parse(&h[..20], false).unwrap_err(),
        Capture::parse(&h).unwrap_err()
    );
}

#[test]
fn empty_file() {
    assert_eq!(pushed(&[], &[1]), whole(&[]));
    assert!(whole(&[]).error.unwrap().contains("Empty"));
}

#[test]
fn the_first_header_is_kept() {
    let mut bytes = small_header();
    bytes.extend_from_slice(&close_record());
    let mut parser = PushParser::new();
    assert!(parser.header().is_none());
    let Pushed::Item { consumed, item } = parser.parse(&bytes, true).unwrap() else {
        panic!("no header")
    };
    assert_eq!(consumed, 36);
    assert!(matches!(item, PushItem::Header(h) if h.pid == 7));
    let h = parser.header().unwrap();
    assert_eq!((h.pid, h.len, h.clock_reference_ns), (7, 36, Some(2)));
    assert_eq!(parser.offset(), 36);
}

#[cfg(feature = "write")]
mod written {
    //! Files the crate's writer makes from random models: every entry kind, both byte orders, both
    //! header sizes, forked headers, gaps and fillers.

    use super::*;
    use tracecap_syscall::write::{
        ArgModel, CaptureModel, EntryModel, HeaderModel, SyscallModel, UnameModel,
    };

    fn header() -> impl Strategy<Value = HeaderModel> {
        (
            any::<bool>(),
            any::<i32>(),
            proptest::option::of(any::<i64>()),
            any::<bool>(),
        )
            .prop_map(|(big_endian, pid, clock_reference_ns, uname)| HeaderModel {
                big_endian,
                pid,
                epoch_seconds: 1_700_000_000,
                clock_reference_ns,
                uname: uname.then(|| UnameModel {
                    sysname: b"Linux".to_vec(),
                    nodename: b"host".to_vec(),
                    release: b"6.1".to_vec(),
                    version: b"#1 SMP".to_vec(),
                    machine: b"x86_64".to_vec(),
                    domainname: b"(none)".to_vec(),
                }),
            })
    }

    fn arg() -> impl Strategy<Value = ArgModel> {
        prop_oneof![
            any::<i64>().prop_map(ArgModel::Int),
            any::<i32>().prop_map(|v| ArgModel::Int(i64::from(v))),
            proptest::collection::vec(any::<u8>(), 0..300).prop_map(ArgModel::Data),
            (any::<u32>(), proptest::collection::vec(any::<u8>(), 0..40))
                .prop_map(|(original_len, data)| ArgModel::Partial { original_len, data }),
            Just(ArgModel::SigAction(None)),
        ]
    }

    fn syscall() -> impl Strategy<Value = SyscallModel> {
        (
            any::<u16>(),
            proptest::option::of(any::<i64>()),
            proptest::option::of(any::<i32>()),
            proptest::option::of(any::<i64>()),
            proptest::option::of(any::<f32>()),
            proptest::collection::vec(arg(), 0..4),
        )
            .prop_map(|(number, result, tid, timestamp_ns, duration_ns, args)| {
                SyscallModel {
                    number,
                    result,
                    tid,
                    timestamp_ns,
                    duration_ns,
                    args,
                }
            })
    }

    fn entry() -> impl Strategy<Value = EntryModel> {
        prop_oneof![
            8 => syscall().prop_map(EntryModel::Syscall),
            1 => (0u32..64).prop_map(EntryModel::Filler),
            1 => (1u32..40).prop_map(|n| EntryModel::Gap(n * 4)),
            1 => header().prop_map(EntryModel::Header),
        ]
    }

    fn capture() -> impl Strategy<Value = Vec<u8>> {
        (header(), proptest::collection::vec(entry(), 0..30))
            .prop_map(|(header, entries)| CaptureModel { header, entries }.to_bytes().unwrap())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(160))]

        #[test]
        fn written_files_in_random_pieces(bytes in capture(), pieces in pieces()) {
            check("written", &bytes, &pieces)?;
        }

        #[test]
        fn written_files_cut_anywhere(bytes in capture(), cut in any::<prop::sample::Index>(), pieces in pieces()) {
            let end = cut.index(bytes.len() + 1);
            check(&format!("written, cut at {end}"), &bytes[..end], &pieces)?;
        }

        #[test]
        fn written_files_mutated(
            bytes in capture(),
            changes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
            pieces in pieces(),
        ) {
            let mut bytes = bytes;
            for (at, b) in &changes {
                let i = at.index(bytes.len());
                bytes[i] = *b;
            }
            check(&format!("written, changed {changes:?}"), &bytes, &pieces)?;
        }
    }
}
