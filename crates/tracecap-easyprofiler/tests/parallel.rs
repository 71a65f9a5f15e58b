//! A capture checked in pieces (runs of consecutive threads, each its own walk) and merged gives
//! exactly `Summary::check`: at every thread boundary of every corpus file, and of written files
//! of every version (1.x files have no thread count; 2.1+ files end in bookmarks), with empty
//! threads. And the pieces of a damaged file fail wherever the whole check fails.

mod common;

use tracecap_easyprofiler::write::*;
use tracecap_easyprofiler::*;

/// Every thread, when the framing of all of them is sound.
fn sound_threads<'a>(c: &Capture<'a>) -> Option<Vec<Thread<'a>>> {
    c.threads()
        .map(|t| t.ok().filter(|t| t.fault().is_none()))
        .collect()
}

/// The capture checked as two pieces split before thread `k`: threads `..k` (walked one thread
/// at a time when `one_by_one`), then `k..` to the end.
fn check_split(bytes: &[u8], k: usize, one_by_one: bool) -> Result<Summary, Error> {
    let c = Capture::parse(bytes)?;
    let kinds = KindTable::new(&c)?;
    let threads = sound_threads(&c).expect("sound framing");
    let mut slots = Vec::new();
    let mut s = parallel::check_descriptors(&c)?;
    let mut front = c.events_with(&kinds);
    if one_by_one {
        for _ in 0..k {
            parallel::stop_after(&mut front, 1);
            let piece = parallel::check_events(&mut front, &mut slots)?;
            assert_eq!((piece.threads, piece.trailing), (1, 0), "one thread");
            s = parallel::merge(s, piece);
        }
    } else {
        parallel::stop_after(&mut front, k as u32);
        let piece = parallel::check_events(&mut front, &mut slots)?;
        assert_eq!(piece.threads as usize, k, "the front piece's threads");
        assert_eq!(piece.bookmarks, 0, "the trailer is not the front's");
        s = parallel::merge(s, piece);
    }
    let back = match threads.get(k) {
        Some(t) => parallel::check_events(&mut parallel::events_from(&c, t, &kinds), &mut slots)?,
        // Split after the last thread: the front's walk goes on to the trailer.
        None => {
            parallel::stop_after(&mut front, 1);
            let piece = parallel::check_events(&mut front, &mut slots)?;
            assert_eq!(piece.threads, 0);
            piece
        }
    };
    assert_eq!(
        back.threads as usize,
        threads.len() - k,
        "the back piece's threads"
    );
    Ok(parallel::merge(s, back))
}

/// Every split point of `bytes` (a sound file) gives `Summary::check`.
fn assert_splits(name: &str, bytes: &[u8]) {
    let c = Capture::parse(bytes).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let whole = Summary::check(&c, &kinds, &mut Vec::new()).unwrap();
    let n = sound_threads(&c).unwrap().len();
    assert_eq!(n, whole.threads as usize, "{name}");
    for k in 0..=n {
        for one_by_one in [false, true] {
            let split = check_split(bytes, k, one_by_one);
            assert_eq!(
                split,
                Ok(whole),
                "{name}: split at thread {k} ({one_by_one})"
            );
        }
    }
}

#[test]
fn corpus_files_split_at_every_thread() {
    let files = common::prof_files();
    for (name, bytes) in &files {
        assert_splits(name, bytes);
    }
    if let Some((_, bytes)) = files.iter().find(|(n, _)| n == "gen_bookmarks") {
        let c = Capture::parse(bytes).unwrap();
        let s = Summary::check(&c, KindTable::new(&c).unwrap(), &mut Vec::new()).unwrap();
        assert!(
            s.bookmarks > 0 && s.threads > 1,
            "a file with bookmarks is split"
        );
    }
}

/// A model of `threads` threads, some empty, with nesting, values, events and context switches.
fn model(version: Version, threads: usize, bookmarks: usize) -> CaptureModel {
    let kinds = [
        DescriptorKind::Block,
        DescriptorKind::Event,
        DescriptorKind::Value,
    ];
    let descriptors = kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| DescriptorModel {
            id: i as u32,
            line: i as i32,
            color: 0,
            kind,
            status: 1,
            name: format!("d{i}").into_bytes(),
            file: b"f.cpp".to_vec(),
        })
        .collect();
    let mut time = 1_000u64;
    let threads = (0..threads)
        .map(|t| {
            // Every third thread is empty; the others nest deeper the later they come.
            let frames = if t % 3 == 1 { 0 } else { 1 + t % 4 };
            let depth = 1 + t % 5;
            let mut records = Vec::new();
            for _ in 0..frames {
                let begin = time;
                for d in 0..depth {
                    records.push(RecordModel::Value {
                        time: time + 1,
                        id: 2,
                        value_id: d as u64,
                        data_type: DataType::Int32,
                        is_array: false,
                        data: (t as i32).to_le_bytes().to_vec(),
                    });
                    records.push(RecordModel::Block {
                        begin: time + 1,
                        end: time + 1,
                        id: 1,
                        name: Vec::new(),
                    });
                    time += 3;
                }
                // Children first: the enclosing blocks end last.
                for d in 0..depth {
                    records.push(RecordModel::Block {
                        begin: begin + d as u64,
                        end: time + 10 - d as u64,
                        id: 0,
                        name: if d == 0 {
                            b"frame".to_vec()
                        } else {
                            Vec::new()
                        },
                    });
                }
                time += 20;
            }
            // A block that ends before it begins, alone in its thread, and the earliest begin.
            if t == 5 {
                records = vec![RecordModel::Block {
                    begin: 1,
                    end: 0,
                    id: 0,
                    name: Vec::new(),
                }];
            }
            let context_switches = (0..t % 2)
                .map(|i| ContextSwitchModel {
                    begin: time + i as u64,
                    end: time + 2 + i as u64,
                    target_thread: 7,
                    name: b"other".to_vec(),
                })
                .collect();
            ThreadModel {
                id: 100 + t as u64,
                name: format!("thread {t}").into_bytes(),
                context_switches,
                records,
            }
        })
        .collect();
    let bookmarks = if version.has_end_signature() {
        (0..bookmarks)
            .map(|i| BookmarkModel {
                position: 10 * i as u64,
                color: 0,
                text: b"mark".to_vec(),
            })
            .collect()
    } else {
        Vec::new()
    };
    CaptureModel {
        version,
        pid: if version.has_pid() { 42 } else { 0 },
        cpu_frequency: 0,
        begin_time: 0,
        end_time: time,
        descriptors,
        threads,
        bookmarks,
    }
}

#[test]
fn written_files_split_at_every_thread() {
    let versions = [
        Version::V0_1_0,
        Version::V1_0_0,
        Version::V1_2_0,
        Version::V1_3_0,
        Version::V2_0_1,
        Version::V2_1_0,
        Version(0x0201_0005),
    ];
    for version in versions {
        for (threads, bookmarks) in [(0, 0), (1, 0), (1, 3), (2, 1), (9, 0), (9, 4)] {
            let name = format!("{version} with {threads} threads, {bookmarks} bookmarks");
            let bytes = model(version, threads, bookmarks).to_bytes().unwrap();
            assert_splits(&name, &bytes);
        }
    }
    // Bytes after the last signature: the merged trailing is the last piece's.
    let mut bytes = model(Version::V2_1_0, 5, 2).to_bytes().unwrap();
    bytes.extend_from_slice(&[1, 2, 3]);
    let c = Capture::parse(&bytes).unwrap();
    let whole = Summary::check(&c, KindTable::new(&c).unwrap(), &mut Vec::new()).unwrap();
    assert_eq!((whole.trailing, whole.bookmarks, whole.threads), (3, 2, 5));
    assert_splits("trailing bytes", &bytes);
    // The lone block of thread 5, which ends before it begins, still has the earliest begin
    // (and the piece that holds it alone has a first record after its last).
    let bytes = model(Version::V2_1_0, 6, 0).to_bytes().unwrap();
    let c = Capture::parse(&bytes).unwrap();
    let whole = Summary::check(&c, KindTable::new(&c).unwrap(), &mut Vec::new()).unwrap();
    assert_eq!(whole.first, Some(1));
}

/// The pieces the CLI's back worker checks: runs of `stride` threads from each of
/// `Capture::thread_marks`, the last to the end; merged after the descriptors they give
/// `Summary::check`, whatever the number of marks kept.
#[test]
fn runs_from_thread_marks_give_the_whole_check() {
    for version in [Version::V1_2_0, Version::V2_0_1, Version::V2_1_0] {
        for threads in [0, 1, 7, 40] {
            let bytes = model(version, threads, 2).to_bytes().unwrap();
            let c = Capture::parse(&bytes).unwrap();
            let kinds = KindTable::new(&c).unwrap();
            let whole = Summary::check(&c, &kinds, &mut Vec::new()).unwrap();
            for max in [2, 3, 4, 8, 256] {
                let name = format!("{version}, {threads} threads, {max} marks");
                let marks = parallel::thread_marks(&c, max, |_| true).unwrap();
                assert_eq!(marks.count as usize, threads, "{name}");
                assert!(marks.marks.len() <= max.max(2), "{name}");
                let mut s = parallel::check_descriptors(&c).unwrap();
                let Some(first) = marks.marks.first() else {
                    // No thread: the trailer alone.
                    let rest = parallel::check_events(&mut c.events_with(&kinds), &mut Vec::new());
                    assert_eq!(parallel::merge(s, rest.unwrap()), whole, "{name}");
                    continue;
                };
                assert_eq!(first.index(), 0, "{name}");
                for (k, t) in marks.marks.iter().enumerate() {
                    let mut items = parallel::events_from(&c, t, &kinds);
                    if k + 1 < marks.marks.len() {
                        parallel::stop_after(&mut items, marks.stride);
                    }
                    let piece = parallel::check_events(&mut items, &mut Vec::new()).unwrap();
                    s = parallel::merge(s, piece);
                }
                assert_eq!(s, whole, "{name}");
            }
        }
    }
}

/// Cut and mutated copies of a corpus file: when the skim of the threads and every piece
/// succeed, the whole check succeeds with the same summary, and when the whole check fails, a
/// piece or the skim fails. (The CLI relies on this, then reports the whole check's error.)
#[test]
fn pieces_fail_where_the_whole_fails() {
    let files = common::prof_files();
    // gen_bookmarks has bookmarks; gen_small (also in samples/) is there without the corpus.
    let bytes = ["gen_bookmarks", "gen_small"]
        .iter()
        .find_map(|name| files.iter().find(|(n, _)| n == name))
        .map(|(_, b)| b)
        .expect("gen_small.prof");
    let mut rng = tracecap_testkit::Rng(7);
    let mut damaged = Vec::new();
    for cut in (0..bytes.len()).step_by(37) {
        damaged.push(bytes[..cut].to_vec());
    }
    for _ in 0..2000 {
        let mut b = bytes.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(b.len());
            b[at] = rng.next_u64() as u8;
        }
        damaged.push(b);
    }
    let mut failed = 0;
    for b in &damaged {
        let Ok(c) = Capture::parse(b) else { continue };
        let Ok(kinds) = KindTable::new(&c) else {
            continue;
        };
        let whole = Summary::check(&c, &kinds, &mut Vec::new());
        failed += usize::from(whole.is_err());
        let pieces = sound_threads(&c).map(|t| check_split(b, t.len() / 2, false));
        match (whole, pieces) {
            (Ok(whole), Some(Ok(split))) => assert_eq!(whole, split),
            (Ok(_), None) => panic!("the skim failed on a sound file"),
            (Ok(_), Some(Err(e))) => panic!("a piece failed on a sound file: {e}"),
            (Err(_), Some(Ok(split))) => panic!("pieces passed a damaged file: {split:?}"),
            (Err(_), _) => {}
        }
    }
    assert!(failed > 100, "only {failed} damaged copies fail");
}
