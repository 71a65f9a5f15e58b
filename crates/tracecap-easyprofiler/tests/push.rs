//! The push parser against the whole-file reader: fed any file in random pieces (empty and 1-byte
//! pieces included), it gives the same parts in the same order, with the same offsets, and the same
//! error (kind and offset). Also for files cut at a random point (then `eof`), for files with
//! random bytes changed, and for files the writer makes in every version.

mod common;

use std::sync::OnceLock;

use proptest::prelude::*;
use tracecap_easyprofiler::write::*;
use tracecap_easyprofiler::*;
use tracecap_testkit::Rng;

/// What a reader gave: every part (as its `Debug` text, which holds every field and offset;
/// signatures apart) and the error that ended it.
#[derive(Debug, PartialEq)]
struct Walk {
    parts: Vec<String>,
    error: Option<Error>,
}

/// The whole-file reader: the header, the descriptors, then the events walk.
fn whole(bytes: &[u8]) -> Walk {
    let mut parts = Vec::new();
    let error = whole_into(bytes, &mut parts).err();
    Walk { parts, error }
}

fn whole_into(bytes: &[u8], parts: &mut Vec<String>) -> Result<(), Error> {
    let c = Capture::parse(bytes)?;
    parts.push(format!("{:?}", PushItem::Header(c.header())));
    for d in c.descriptors() {
        parts.push(format!("{:?}", PushItem::Descriptor(d?)));
    }
    for item in c.events() {
        parts.push(format!("{:?}", PushItem::Item(item?)));
    }
    Ok(())
}

/// What the push parser gave, and where it ended.
#[derive(Debug)]
struct Fed {
    walk: Walk,
    /// Offsets of the end signatures read.
    signatures: Vec<u64>,
    /// `offset()` at `End`.
    end: Option<u64>,
}

/// One answer of the parser, owned.
enum Answer {
    Item(usize, Option<String>, Option<u64>),
    NeedMore(Option<u64>),
    End,
    Error(Error),
}

/// Feeds `bytes` to a push parser in pieces of the lengths `piece` gives (the last piece is cut
/// to what is left), the way a caller does: parse until `NeedMore`, then drop what was consumed
/// and append the next piece. Checks the parser's bookkeeping on the way.
fn push(bytes: &[u8], mut piece: impl FnMut() -> usize) -> Fed {
    let mut parser = PushParser::new();
    let (mut buf, mut start, mut fed) = (Vec::new(), 0usize, 0usize);
    let mut parts = Vec::new();
    let mut signatures = Vec::new();
    // The bytes the last hint says the next answer needs at least.
    let mut need = 0usize;
    let mut calls = 0u64;
    loop {
        calls += 1;
        assert!(calls < 50 * bytes.len() as u64 + 1000, "the parser loops");
        let eof = fed == bytes.len();
        let data = &buf[start..];
        let len = data.len();
        let before = parser.offset();
        assert_eq!(before, (fed - len) as u64, "offset() is where data starts");
        let answer = match parser.parse(data, eof) {
            Ok(Pushed::Item { consumed, item }) => match item {
                PushItem::Signature(at) => Answer::Item(consumed, None, Some(at)),
                other => Answer::Item(consumed, Some(format!("{other:?}")), None),
            },
            Ok(Pushed::NeedMore { hint }) => Answer::NeedMore(hint),
            Ok(Pushed::End) => Answer::End,
            Err(e) => Answer::Error(e),
        };
        match answer {
            Answer::Item(consumed, part, signature) => {
                assert!(
                    consumed <= len && len >= need,
                    "{consumed} of {len}, need {need}"
                );
                assert_eq!(parser.offset(), before + consumed as u64);
                if let Some(at) = signature {
                    assert_eq!(
                        at + 4,
                        parser.offset(),
                        "a signature is the last 4 bytes read"
                    );
                    signatures.push(at);
                }
                parts.extend(part);
                start += consumed;
                need = 0;
            }
            Answer::NeedMore(hint) => {
                assert!(!eof, "NeedMore with eof set");
                let hint = hint.expect("the parser always knows a lower bound");
                assert!(hint > 0);
                need = len + hint as usize;
                assert_eq!(parser.offset(), before, "NeedMore consumes nothing");
                buf.drain(..start);
                start = 0;
                let n = piece().min(bytes.len() - fed);
                buf.extend_from_slice(&bytes[fed..fed + n]);
                fed += n;
            }
            Answer::End => {
                assert!(parser.is_finished());
                // Called again, it stays at the end.
                assert!(matches!(parser.parse(&buf[start..], eof), Ok(Pushed::End)));
                return Fed {
                    walk: Walk { parts, error: None },
                    signatures,
                    end: Some(parser.offset()),
                };
            }
            Answer::Error(e) => {
                if !eof {
                    assert!(len >= need, "an error before the hinted bytes arrived");
                }
                assert!(parser.is_finished());
                // Called again, it gives the same error.
                assert_eq!(parser.parse(&buf[start..], eof).err(), Some(e));
                return Fed {
                    walk: Walk {
                        parts,
                        error: Some(e),
                    },
                    signatures,
                    end: None,
                };
            }
        }
    }
}

/// Piece lengths drawn from `seed`: empty, single bytes, small and large pieces mixed, up to
/// `large` bytes.
fn pieces(seed: u64, large: usize) -> impl FnMut() -> usize {
    let mut rng = Rng(seed | 1);
    let style = rng.below(4);
    move || match (style, rng.below(10)) {
        // Mostly single bytes.
        (0, 0..=6) => 1,
        (0, _) => rng.below(8),
        // Empty pieces among the others.
        (_, 0..=1) => 0,
        (_, 2..=3) => 1,
        (_, 4..=6) => rng.below(64),
        (_, _) => rng.below(large + 1),
    }
}

/// The whole-file reader's answer and the push parser's agree; for a file that reads to its end,
/// the end is where the whole-file reader's stops (before any trailing bytes) and every end
/// signature was yielded.
fn check(bytes: &[u8], want: &Walk, fed: &Fed) -> Result<(), TestCaseError> {
    prop_assert_eq!(&fed.walk.error, &want.error);
    prop_assert_eq!(fed.walk.parts.len(), want.parts.len());
    for (i, (got, want)) in fed.walk.parts.iter().zip(&want.parts).enumerate() {
        prop_assert_eq!(got, want, "part {}", i);
    }
    if want.error.is_none() {
        let c = Capture::parse(bytes).unwrap();
        let mut events = c.events();
        events.by_ref().for_each(drop);
        let end = (bytes.len() as u64) - events.trailing();
        prop_assert_eq!(fed.end, Some(end));
        let h = c.header();
        let signatures = match (h.version.has_end_signature(), h.bookmarks_count) {
            (false, _) => vec![],
            (true, 0) => vec![end - 4],
            (true, _) => {
                let first = c.threads().tail().unwrap().next().unwrap().unwrap().offset;
                vec![first - 4, end - 4]
            }
        };
        prop_assert_eq!(&fed.signatures, &signatures);
    } else {
        prop_assert_eq!(fed.end, None);
    }
    Ok(())
}

/// The corpus files (or the crate's samples without the corpus), each with its whole-file walk.
fn files() -> &'static [(String, Vec<u8>, Walk)] {
    static FILES: OnceLock<Vec<(String, Vec<u8>, Walk)>> = OnceLock::new();
    FILES.get_or_init(|| {
        common::prof_files()
            .into_iter()
            .map(|(name, bytes)| {
                let walk = whole(&bytes);
                (name, bytes, walk)
            })
            .collect()
    })
}

/// The piece size a large file is fed in (small enough to cut most records, large enough to keep
/// a debug run short).
fn large_piece(bytes: &[u8]) -> usize {
    if bytes.len() > 256 << 10 {
        16 << 10
    } else {
        4 << 10
    }
}

#[test]
fn every_file_whole_in_one_piece_and_in_single_bytes() {
    for (name, bytes, want) in files() {
        let one = push(bytes, || usize::MAX);
        check(bytes, want, &one).unwrap_or_else(|e| panic!("{name} in one piece: {e}"));
        if bytes.len() <= 64 << 10 {
            let single = push(bytes, || 1);
            check(bytes, want, &single).unwrap_or_else(|e| panic!("{name} byte by byte: {e}"));
        }
    }
}

/// A random version's capture from `seed`, with everything the format holds.
fn model(seed: u64) -> CaptureModel {
    const VERSIONS: [Version; 9] = [
        Version(0x0001_0000),
        Version::V1_0_0,
        Version::V1_0_1,
        Version::V1_2_0,
        Version::V1_3_0,
        Version::V2_0_0,
        Version::V2_0_1,
        Version::V2_1_0,
        Version(0x0201_0007),
    ];
    let mut rng = Rng(seed | 1);
    let r = &mut rng;
    let version = VERSIONS[r.below(VERSIONS.len())];
    let wide = version.wide_ids();
    let narrow = |r: &mut Rng| {
        if wide {
            r.next_u64()
        } else {
            r.next_u64() >> 32
        }
    };
    let text =
        |r: &mut Rng| -> Vec<u8> { (0..r.below(10)).map(|_| 1 + r.below(255) as u8).collect() };
    let descriptors: Vec<DescriptorModel> = (0..r.below(6))
        .map(|_| DescriptorModel {
            id: r.next_u64() as u32,
            line: r.next_u64() as i32,
            color: r.next_u64() as u32,
            kind: DescriptorKind::from_u8(r.below(3) as u8),
            status: r.next_u64() as u8,
            name: text(r),
            file: text(r),
        })
        .collect();
    let kinds: Vec<DescriptorKind> = descriptors.iter().map(|d| d.kind).collect();
    let threads = (0..r.below(4))
        .map(|_| ThreadModel {
            id: narrow(r),
            name: text(r),
            context_switches: (0..r.below(3))
                .map(|_| ContextSwitchModel {
                    begin: r.next_u64(),
                    end: r.next_u64(),
                    target_thread: narrow(r),
                    name: text(r),
                })
                .collect(),
            records: (0..r.below(10))
                .map(|_| {
                    let id = r.below(kinds.len() + 1) as u32;
                    if kinds.get(id as usize) == Some(&DescriptorKind::Value) {
                        RecordModel::Value {
                            time: r.next_u64(),
                            id,
                            value_id: r.next_u64(),
                            data_type: DataType::ALL[r.below(DataType::ALL.len())],
                            is_array: r.below(2) == 1,
                            data: (0..r.below(24)).map(|_| r.next_u64() as u8).collect(),
                        }
                    } else {
                        RecordModel::Block {
                            begin: r.next_u64(),
                            end: r.next_u64(),
                            id,
                            name: text(r),
                        }
                    }
                })
                .collect(),
        })
        .collect();
    let bookmarks = if version.has_end_signature() {
        (0..r.below(3))
            .map(|_| BookmarkModel {
                position: r.next_u64(),
                color: r.next_u64() as u32,
                text: text(r),
            })
            .collect()
    } else {
        vec![]
    };
    CaptureModel {
        version,
        pid: if version.has_pid() { narrow(r) } else { 0 },
        cpu_frequency: r.next_u64() as i64,
        begin_time: r.next_u64(),
        end_time: r.next_u64(),
        descriptors,
        threads,
        bookmarks,
    }
}

/// `bytes` with 1 to 4 bytes changed, half the time within the first 512 bytes (header,
/// descriptors, first threads), where damage shows most.
fn mutate(bytes: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut b = bytes.to_vec();
    if b.is_empty() {
        return b;
    }
    for _ in 0..1 + rng.below(4) {
        let span = if rng.below(2) == 0 {
            b.len().min(512)
        } else {
            b.len()
        };
        let at = rng.below(span);
        b[at] = match rng.below(3) {
            0 => 0,
            1 => 0xff,
            _ => rng.next_u64() as u8,
        };
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every corpus file, fed in random pieces.
    #[test]
    fn corpus_files_in_random_pieces(index in any::<prop::sample::Index>(), seed in any::<u64>()) {
        let (_, bytes, want) = &files()[index.index(files().len())];
        check(bytes, want, &push(bytes, pieces(seed, large_piece(bytes))))?;
    }

    /// A corpus file cut at a random point, fed in random pieces then `eof`: the error (or end)
    /// the whole-file reader gives on the cut file.
    #[test]
    fn cut_corpus_files(index in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), seed in any::<u64>()) {
        let (_, bytes, _) = &files()[index.index(files().len())];
        let cut = &bytes[..at.index(bytes.len() + 1)];
        check(cut, &whole(cut), &push(cut, pieces(seed, large_piece(cut))))?;
    }

    /// A corpus file (the small ones) with random bytes changed.
    #[test]
    fn mutated_corpus_files(index in any::<prop::sample::Index>(), seed in any::<u64>()) {
        let small: Vec<_> = files().iter().filter(|f| f.1.len() <= 64 << 10).collect();
        let bytes = mutate(&small[index.index(small.len())].1, seed);
        check(&bytes, &whole(&bytes), &push(&bytes, pieces(seed >> 7, 256)))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Files the writer makes, every version, whole, cut, with bytes changed, and (2.1+) with
    /// bytes after the end.
    #[test]
    fn written_files(seed in any::<u64>(), cut in any::<prop::sample::Index>(), trail in 0usize..6) {
        let bytes = model(seed).to_bytes().unwrap();
        let want = whole(&bytes);
        prop_assert_eq!(want.error, None);
        check(&bytes, &want, &push(&bytes, pieces(seed, 64)))?;

        let cut = &bytes[..cut.index(bytes.len() + 1)];
        check(cut, &whole(cut), &push(cut, pieces(seed >> 3, 64)))?;

        let changed = mutate(&bytes, seed >> 5);
        check(&changed, &whole(&changed), &push(&changed, pieces(seed >> 9, 64)))?;

        let mut longer = bytes.clone();
        longer.extend((0..trail).map(|i| i as u8 ^ 0x5a));
        check(&longer, &whole(&longer), &push(&longer, pieces(seed >> 11, 64)))?;
    }
}

/// A larger synthetic capture (random trees, every record kind), in random pieces and cut.
#[test]
fn synthetic_capture() {
    let bytes = CaptureModel::synthetic(300 << 10).to_bytes().unwrap();
    let want = whole(&bytes);
    assert_eq!(want.error, None);
    for seed in 1..4u64 {
        check(
            &bytes,
            &want,
            &push(&bytes, pieces(seed * 0x9e37_79b9, 4096)),
        )
        .unwrap();
        let cut = &bytes[..bytes.len() * seed as usize / 4 + 3];
        check(cut, &whole(cut), &push(cut, pieces(seed, 4096))).unwrap();
    }
}
