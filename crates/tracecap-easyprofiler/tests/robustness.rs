//! Cut and mutated corpus files: never a panic, errors point inside the file, and every record
//! before the damage is still returned, unchanged.
//!
//! Each fault the crate shares with every format: its kind names what was read, and its message
//! ends with the absolute offset, in the one layout of `tracecap_wire::Error`.

mod common;

use common::{walk, walk_items, Seen};
use tracecap_easyprofiler::{
    parallel, Capture, Error, ErrorKind, FixedKindTable, KindTable, NestSlot, Nesting,
};
use tracecap_wire::ErrorKind as Shared;

/// Offsets where an item of the full file ends (its last byte + 1), for cutting right at and
/// around record boundaries.
fn boundaries(seen: &[Seen], len: usize) -> Vec<usize> {
    let mut b: Vec<usize> = seen.iter().map(|s| s.offset as usize).collect();
    b.push(len);
    b
}

/// Everything the full walk saw that starts before `cut` and is not the item straddling it.
fn expected_before(full: &[Seen], cut: usize) -> Vec<Seen> {
    // An item is complete in the prefix when the next item starts at or before the cut.
    let mut out = Vec::new();
    for (i, s) in full.iter().enumerate() {
        let end = full.get(i + 1).map_or(usize::MAX, |n| n.offset as usize);
        if end <= cut {
            out.push(s.clone());
        }
    }
    out
}

fn check_prefix(name: &str, bytes: &[u8], full: &[Seen], cut: usize) {
    let (seen, err) = walk(&bytes[..cut]);
    // The single-pass stream sees exactly the same records and the same fault.
    let (streamed, stream_err) = walk_items(&bytes[..cut]);
    assert_eq!(
        streamed, seen,
        "{name} cut at {cut}: items() and threads() disagree"
    );
    assert_eq!(
        stream_err, err,
        "{name} cut at {cut}: items() and threads() errors differ"
    );
    if let Some(e) = err {
        assert!(
            e.offset <= cut as u64,
            "{name} cut at {cut}: error offset {:#x} outside the file",
            e.offset
        );
    }
    // Everything fully inside the prefix, except possibly the last item (whose end we estimate
    // from the next item's start, which may include thread headers), must be there unchanged.
    let want = expected_before(full, cut);
    let n = want.len().saturating_sub(1);
    assert!(
        seen.len() >= n && seen[..n] == want[..n],
        "{name} cut at {cut}: lost records before the damage ({} seen, {} expected)",
        seen.len(),
        n
    );
}

#[test]
fn every_prefix_and_boundary() {
    for (name, bytes) in common::prof_files() {
        let (full, err) = walk(&bytes);
        if name != "gen_toodeep" {
            assert!(err.is_none(), "{name}: {err:?}");
        }
        let mut cuts: Vec<usize> = Vec::new();
        if bytes.len() <= 12 * 1024 {
            cuts.extend(0..bytes.len()); // every prefix
        } else {
            // big files: the first 4 KiB byte by byte, around a sample of record boundaries,
            // and a stride through the rest
            cuts.extend(0..2048);
            let b = boundaries(&full, bytes.len());
            let step = (b.len() / 200).max(1);
            for &x in b.iter().step_by(step) {
                cuts.extend([x.saturating_sub(1), x, x + 1, x + 2]);
            }
            cuts.extend((0..bytes.len()).step_by(bytes.len() / 200));
        }
        cuts.retain(|&c| c < bytes.len());
        for cut in cuts {
            check_prefix(&name, &bytes, &full, cut);
        }
    }
}

#[test]
fn single_byte_mutations() {
    let mut total = 0;
    for (name, bytes) in common::prof_files() {
        let (full, _) = walk(&bytes);
        let first_record = full
            .iter()
            .find(|s| s.what != "desc")
            .map_or(bytes.len(), |s| s.offset as usize);
        // ~15 MB of walking per file at most: every byte of small files, a stride through big ones.
        let positions = (15_000_000 / bytes.len()).clamp(60, 1000);
        let step = (bytes.len() / positions).max(1);
        let mut m = bytes.clone();
        for pos in (0..bytes.len()).step_by(step) {
            for x in [0xffu8, 0x80, 0x01] {
                m[pos] ^= x;
                let (seen, err) = walk(&m);
                let (streamed, stream_err) = walk_items(&m);
                assert_eq!(
                    (&streamed, &stream_err),
                    (&seen, &err),
                    "{name} @{pos} ^ {x:#x}"
                );
                if let Some(e) = err {
                    assert!(
                        e.offset <= bytes.len() as u64,
                        "{name} @{pos}: offset {:#x}",
                        e.offset
                    );
                }
                // Damage in the thread section leaves every earlier record intact.
                if pos > first_record {
                    let want: Vec<&Seen> = full
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| {
                            full.get(i + 1).map_or(usize::MAX, |n| n.offset as usize) <= pos
                        })
                        .map(|(_, s)| s)
                        .collect();
                    let n = want.len().saturating_sub(1);
                    assert!(
                        seen.len() >= n && seen.iter().take(n).eq(want.into_iter().take(n)),
                        "{name}: byte {pos} ^ {x:#x} lost records before it"
                    );
                }
                m[pos] ^= x;
                total += 1;
            }
        }
    }
    println!("{total} mutations checked");
}

#[test]
fn huge_counts_do_not_allocate_or_loop() {
    // A 2.1 header claiming 2^32-1 descriptors, threads and records, followed by a few bytes.
    let mut b = Vec::new();
    b.extend_from_slice(&tracecap_easyprofiler::MAGIC);
    b.extend_from_slice(&0x0201_0000u32.to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes()); // pid
    b.extend_from_slice(&0i64.to_le_bytes()); // cpu frequency
    b.extend_from_slice(&[0; 16]); // begin, end
    b.extend_from_slice(&u64::MAX.to_le_bytes()); // memory size
    b.extend_from_slice(&u64::MAX.to_le_bytes()); // descriptors memory size
    b.extend_from_slice(&u32::MAX.to_le_bytes()); // blocks
    b.extend_from_slice(&0u32.to_le_bytes()); // descriptors
    b.extend_from_slice(&u32::MAX.to_le_bytes()); // threads
    b.extend_from_slice(&[0, 0, 0, 0]); // bookmarks, padding
                                        // one thread claiming u32::MAX records, with three real ones
    b.extend_from_slice(&7u64.to_le_bytes());
    b.extend_from_slice(&[1, 0, 0]); // unnamed
    b.extend_from_slice(&0u32.to_le_bytes()); // no context switches
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    for i in 0..3u64 {
        b.extend_from_slice(&21u16.to_le_bytes());
        b.extend_from_slice(&i.to_le_bytes());
        b.extend_from_slice(&(i + 1).to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.push(0);
    }
    let start = std::time::Instant::now();
    let (seen, err) = walk(&b);
    assert_eq!(seen.len(), 3, "the three real records come out");
    let e = err.expect("the missing records are an error");
    assert_eq!(e.offset, b.len() as u64);
    assert!(start.elapsed().as_secs() < 2);
    // The same with descriptors claimed: parse stops at the real end.
    b[52..56].copy_from_slice(&u32::MAX.to_le_bytes());
    let (_, err) = walk(&b);
    assert!(err.is_some());
}

/// One record of a capture, as `tracecap dump` prints them: a descriptor, a thread's head, a
/// context switch, a block, event or value, or a bookmark.
#[derive(Debug, PartialEq)]
enum Rec<'a> {
    Descriptor(tracecap_easyprofiler::Descriptor<'a>),
    Thread(tracecap_easyprofiler::ThreadHead<'a>),
    ContextSwitch(tracecap_easyprofiler::ContextSwitch<'a>),
    Record(tracecap_easyprofiler::Record<'a>),
    Bookmark(tracecap_easyprofiler::Bookmark<'a>),
}

/// Every record of `bytes` in file order, through the per-thread API (what `tracecap dump`
/// walks), and the fault that ended the walk, if any.
fn records(bytes: &[u8]) -> (Vec<Rec<'_>>, Option<tracecap_easyprofiler::Error>) {
    use tracecap_easyprofiler::{Capture, KindTable, ThreadHead};
    let mut out = Vec::new();
    let walked = (|| {
        let c = Capture::parse(bytes)?;
        for d in c.descriptors() {
            out.push(Rec::Descriptor(d?));
        }
        let kinds = KindTable::new(&c)?;
        let mut threads = c.threads();
        for t in threads.by_ref() {
            let t = t?;
            out.push(Rec::Thread(ThreadHead {
                offset: t.offset,
                id: t.id,
                name: t.name,
            }));
            for cs in t.context_switches() {
                out.push(Rec::ContextSwitch(cs?));
            }
            for r in t.records(&kinds) {
                out.push(Rec::Record(r?));
            }
        }
        for b in threads.tail()? {
            out.push(Rec::Bookmark(b?));
        }
        Ok(())
    })();
    (out, walked.err())
}

/// Where each record of a whole file starts and ends: a size-prefixed record spans its size
/// field and payload; a thread's head spans its id, name size and name.
fn spans(bytes: &[u8], recs: &[Rec<'_>]) -> Vec<(u64, u64)> {
    let u16_at = |at: u64| {
        let at = at as usize;
        u64::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]))
    };
    let wide = tracecap_easyprofiler::Capture::parse(bytes)
        .unwrap()
        .header()
        .version
        .wide_ids();
    let id_len = if wide { 8 } else { 4 };
    recs.iter()
        .map(|r| {
            let at = match r {
                Rec::Descriptor(d) => d.offset,
                Rec::ContextSwitch(c) => c.offset,
                Rec::Record(r) => r.offset(),
                Rec::Bookmark(b) => b.offset,
                Rec::Thread(t) => {
                    return (t.offset, t.offset + id_len + 2 + u16_at(t.offset + id_len));
                }
            };
            (at, at + 2 + u16_at(at))
        })
        .collect()
}

/// Every `.prof` of the corpus and of the repository's `samples/`.
fn cut_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = tracecap_testkit::corpus_files("easyprofiler", &["."])
        .into_iter()
        .filter(|(name, _)| name.ends_with(".prof"))
        .collect();
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/samples");
    for entry in std::fs::read_dir(samples).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "prof") {
            let name = format!("samples/{}", path.file_name().unwrap().to_string_lossy());
            files.push((name, tracecap_testkit::read(&path)));
        }
    }
    files.sort();
    assert!(files.iter().any(|(n, _)| n.starts_with("samples/")));
    files
}

/// Every corpus file and bundled sample cut at the start, middle and end of each of its first
/// 200 records, at the start of each thread and at 200 seeded random points: the cut file's
/// records are the whole file's, in order, and include every record whose next record starts at
/// or before the cut; a cut file is a fault, which lies within it. The single-pass walk (`Capture::events`) gives the same records and fault,
/// and `Summary::check_partial` (what `tracecap info` reports) counts exactly those records.
#[test]
fn cuts_keep_every_record_before_them() {
    use tracecap_easyprofiler::{Capture, Item, KindTable, Summary};
    let mut rng = tracecap_testkit::Rng(0x5EED_0017);
    for (name, bytes) in &cut_files() {
        let (whole, err) = records(bytes);
        assert!(err.is_none(), "{name}: {err:?}");
        let spans = spans(bytes, &whole);
        let mut cuts = tracecap_testkit::cut_points(&spans, bytes.len() + 1, &mut rng);
        // Between two threads too (before 2.1, only the header's record count tells).
        cuts.extend(thread_starts(&whole));
        cuts.retain(|&c| c <= bytes.len() as u64);
        for cut in cuts {
            let part = &bytes[..cut as usize];
            let (got, err) = records(part);
            let at = err.as_ref().map(|e| e.offset);
            tracecap_testkit::check_cut(name, cut, &whole, &spans, &got, at);
            assert!(
                cut == bytes.len() as u64 || err.is_some(),
                "{name} cut at {cut:#x}: reads as a whole file"
            );
            let Ok(c) = Capture::parse(part) else {
                continue;
            };
            let kinds = KindTable::new(&c).unwrap_or_default();
            // The single pass: descriptors, then thread heads, switches, records, bookmarks.
            let descriptors = got
                .iter()
                .take_while(|r| matches!(r, Rec::Descriptor(_)))
                .count();
            let mut streamed = Vec::new();
            let mut stream_err = None;
            if err.is_none() || descriptors == c.header().descriptors_count as usize {
                for item in c.events_with(&kinds) {
                    match item {
                        Ok(Item::Thread(t)) => streamed.push(Rec::Thread(t)),
                        Ok(Item::ContextSwitch(cs)) => streamed.push(Rec::ContextSwitch(cs)),
                        Ok(Item::Record(r)) => streamed.push(Rec::Record(r)),
                        Ok(Item::Bookmark(b)) => streamed.push(Rec::Bookmark(b)),
                        Err(e) => stream_err = Some(e),
                    }
                }
                assert_eq!(
                    (&streamed[..], stream_err),
                    (&got[descriptors..], err),
                    "{name} cut at {cut:#x}: items() and threads() differ"
                );
            }
            // What `tracecap info` counts.
            let (s, fault) = Summary::check_partial(&c, &kinds, &mut Vec::new());
            let count = |f: fn(&Rec<'_>) -> bool| got.iter().filter(|r| f(r)).count() as u64;
            assert_eq!(
                (
                    u64::from(s.descriptors),
                    s.context_switches,
                    s.blocks + s.events + s.values,
                    u64::from(s.bookmarks)
                ),
                (
                    count(|r| matches!(r, Rec::Descriptor(_))),
                    count(|r| matches!(r, Rec::ContextSwitch(_))),
                    count(|r| matches!(r, Rec::Record(_))),
                    count(|r| matches!(r, Rec::Bookmark(_))),
                ),
                "{name} cut at {cut:#x}: summary counts"
            );
            assert_eq!(fault, err, "{name} cut at {cut:#x}: summary fault");
            check_nest(&format!("{name} cut at {cut:#x}"), &c, &kinds);
        }
    }
}

/// `Thread::nest` on every thread of `c` keeps what it read before a fault: its closure gets
/// the records the per-thread iterator yields, with their indices, its tree holds their depths
/// as a `Nesting` over them alone (on the file's clock) gives them and their times in
/// nanoseconds, and its fault is the iterator's.
fn check_nest(name: &str, c: &Capture<'_>, kinds: &KindTable) {
    let clock = c.header().clock();
    let (mut slots, mut again) = (Vec::new(), Vec::new());
    for t in c.threads().map_while(Result::ok) {
        let (mut read, mut fault) = (Vec::new(), None);
        for r in t.records(kinds) {
            match r {
                Ok(r) => read.push(r),
                Err(e) => fault = Some(e),
            }
        }
        slots.clear();
        slots.resize(t.records_count() as usize, NestSlot::default());
        let mut given = Vec::new();
        let nested = t.nest(kinds, c.header(), &mut slots, |i, r| given.push((i, *r)));
        let id = t.id;
        assert_eq!(
            given,
            read.iter().copied().enumerate().collect::<Vec<_>>(),
            "{name}, thread {id}: records"
        );
        assert_eq!(nested.fault, fault, "{name}, thread {id}: fault");
        again.clear();
        again.resize(read.len(), NestSlot::default());
        let mut nesting = Nesting::with_clock(&mut again, clock);
        for r in &read {
            nesting.push(r.begin(), r.end());
        }
        let want = nesting.finish();
        assert_eq!(
            (
                nested.tree.depths().collect::<Vec<_>>(),
                nested.tree.levels()
            ),
            (want.depths().collect::<Vec<_>>(), want.levels()),
            "{name}, thread {id}: depths"
        );
        let h = c.header();
        assert!(
            read.iter()
                .enumerate()
                .all(|(i, r)| nested.tree.times(i) == Some((h.to_ns(r.begin()), h.to_ns(r.end())))),
            "{name}, thread {id}: times in nanoseconds"
        );
    }
}

/// The offsets where the threads of a whole file start (its cuts "between two threads").
fn thread_starts(whole: &[Rec<'_>]) -> Vec<u64> {
    whole
        .iter()
        .filter_map(|r| match r {
            Rec::Thread(t) => Some(t.offset),
            _ => None,
        })
        .collect()
}

/// Checks a file older than 2.1 cut at the start of each of its threads: every thread before
/// the cut comes out whole, through the per-thread walk, the single pass and the summary, and
/// then the fault that the header's records are not all there, at the end of the cut file.
fn check_thread_cuts(name: &str, bytes: &[u8]) {
    use tracecap_easyprofiler::{Capture, ErrorKind, Item, KindTable, Summary};
    let (whole, err) = records(bytes);
    assert!(err.is_none(), "{name}: {err:?}");
    let header = *Capture::parse(bytes).unwrap().header();
    assert!(!header.version.has_end_signature(), "{name}: not pre-2.1");
    let starts = thread_starts(&whole);
    assert!(starts.len() >= 2, "{name}: needs two threads");
    for &cut in &starts {
        let part = &bytes[..cut as usize];
        let (got, err) = records(part);
        let before = whole
            .iter()
            .take_while(|r| !matches!(r, Rec::Thread(t) if t.offset == cut))
            .count();
        assert_eq!(got[..], whole[..before], "{name} cut at {cut:#x}: records");
        let read = got
            .iter()
            .filter(|r| matches!(r, Rec::ContextSwitch(_) | Rec::Record(_)))
            .count() as u64;
        let want = tracecap_easyprofiler::Error::new(
            ErrorKind::RecordsMissing {
                read,
                stated: header.blocks_count,
            },
            cut,
        );
        assert_eq!(err, Some(want), "{name} cut at {cut:#x}: fault");
        let c = Capture::parse(part).unwrap();
        let kinds = KindTable::new(&c).unwrap();
        let mut streamed = 0u64;
        let mut stream_err = None;
        for item in c.events_with(&kinds) {
            match item {
                Ok(Item::ContextSwitch(_) | Item::Record(_)) => streamed += 1,
                Ok(_) => {}
                Err(e) => stream_err = Some(e),
            }
        }
        assert_eq!(
            (streamed, stream_err),
            (read, Some(want)),
            "{name} cut at {cut:#x}: items()"
        );
        let (s, fault) = Summary::check_partial(&c, &kinds, &mut Vec::new());
        assert_eq!(
            (s.records(), fault),
            (read, Some(want)),
            "{name} cut at {cut:#x}: summary"
        );
        assert_eq!(
            Summary::check(&c, &kinds, &mut Vec::new()),
            Err(want),
            "{name} cut at {cut:#x}: check"
        );
        // A walk in pieces from the last thread before the cut ends with the same fault.
        if let Some(last) = c.threads().filter_map(Result::ok).last() {
            let mut rest = parallel::events_from(&c, &last, &kinds);
            assert_eq!(
                parallel::check_events(&mut rest, &mut Vec::new()).err(),
                Some(want),
                "{name} cut at {cut:#x}: items_from"
            );
        }
    }
}

/// A version 1.2.0 file (32-bit pid and thread ids, old header order) of one block descriptor
/// and three threads, each with one context switch and two blocks, built byte by byte.
fn old_file() -> Vec<u8> {
    let mut threads = Vec::new();
    for t in 0..3u8 {
        threads.extend_from_slice(&(100 + u32::from(t)).to_le_bytes()); // thread id
        threads.extend_from_slice(&[2, 0, b'a' + t, 0]); // name
        threads.extend_from_slice(&1u32.to_le_bytes()); // one context switch
        threads.extend_from_slice(&21u16.to_le_bytes());
        threads.extend_from_slice(&5u64.to_le_bytes());
        threads.extend_from_slice(&6u64.to_le_bytes());
        threads.extend_from_slice(&200u32.to_le_bytes());
        threads.push(0);
        threads.extend_from_slice(&2u32.to_le_bytes()); // two blocks
        for (begin, end) in [(2u64, 3u64), (1, 4)] {
            threads.extend_from_slice(&21u16.to_le_bytes());
            threads.extend_from_slice(&begin.to_le_bytes());
            threads.extend_from_slice(&end.to_le_bytes());
            threads.extend_from_slice(&0u32.to_le_bytes());
            threads.push(0);
        }
    }
    let mut descriptor = Vec::new();
    descriptor.extend_from_slice(&0u32.to_le_bytes()); // id
    descriptor.extend_from_slice(&7i32.to_le_bytes()); // line
    descriptor.extend_from_slice(&0xff00_ff00u32.to_le_bytes()); // color
    descriptor.extend_from_slice(&[1, 1]); // block, on
    descriptor.extend_from_slice(&2u16.to_le_bytes()); // name length
    descriptor.extend_from_slice(b"b\0f.cpp\0");
    let mut b = Vec::new();
    b.extend_from_slice(&tracecap_easyprofiler::MAGIC);
    b.extend_from_slice(&0x0102_0000u32.to_le_bytes());
    b.extend_from_slice(&42u32.to_le_bytes()); // pid
    b.extend_from_slice(&0i64.to_le_bytes()); // nanoseconds
    b.extend_from_slice(&0u64.to_le_bytes()); // begin
    b.extend_from_slice(&10u64.to_le_bytes()); // end
    b.extend_from_slice(&9u32.to_le_bytes()); // blocks_count: 3 threads, 3 records each
    b.extend_from_slice(&(9 * 21u64).to_le_bytes()); // memory size
    b.extend_from_slice(&1u32.to_le_bytes()); // descriptors
    b.extend_from_slice(&(descriptor.len() as u64).to_le_bytes());
    b.extend_from_slice(&(descriptor.len() as u16).to_le_bytes());
    b.extend_from_slice(&descriptor);
    b.extend_from_slice(&threads);
    b
}

/// Files older than 2.1 have no thread count and no end signature: a cut between two threads is
/// caught by the header's `blocks_count`, after every thread before the cut. More records than
/// it states are accepted.
#[test]
fn old_files_cut_between_threads_are_faults() {
    let bytes = old_file();
    check_thread_cuts("built 1.2.0", &bytes);
    // A header that counts fewer records than the file holds.
    let mut fewer = bytes.clone();
    fewer[36..40].copy_from_slice(&5u32.to_le_bytes());
    assert_eq!(records(&fewer).1, None);
    for (name, bytes) in &cut_files() {
        let c = tracecap_easyprofiler::Capture::parse(bytes).unwrap();
        if !c.header().version.has_end_signature() {
            check_thread_cuts(name, bytes);
        }
    }
}

/// The same on files of every version before 2.1 written by the crate's writer, from the bundled
/// sample's threads.
#[cfg(feature = "write")]
#[test]
fn written_old_files_cut_between_threads_are_faults() {
    use tracecap_easyprofiler::write::CaptureModel;
    use tracecap_easyprofiler::Version;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
    let mut model =
        CaptureModel::from_bytes(&tracecap_testkit::read(std::path::Path::new(path))).unwrap();
    model.bookmarks.clear();
    model.pid &= 0xffff_ffff;
    for t in &mut model.threads {
        t.id &= 0xffff_ffff;
        for cs in &mut t.context_switches {
            cs.target_thread &= 0xffff_ffff;
        }
    }
    for v in [
        0x0100_0000,
        0x0102_0000,
        0x0103_0000,
        0x0200_0000,
        0x0200_0001,
    ] {
        model.version = Version(v);
        let bytes = model.to_bytes().unwrap();
        check_thread_cuts(&format!("written {}", model.version), &bytes);
    }
}

/// The bundled 2.1.0 sample: a 72-byte header, 25 descriptors, 4 threads.
fn sample() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
    std::fs::read(path).expect("the bundled sample")
}

fn parse_err(bytes: &[u8]) -> Error {
    Capture::parse(bytes).expect_err("the file is refused")
}

#[test]
fn a_version_older_than_0_1_0_is_unsupported() {
    let mut b = sample();
    b[4..8].copy_from_slice(&0xffffu32.to_le_bytes());
    let e = parse_err(&b);
    let want = Shared::UnsupportedVersion {
        found: 0xffff,
        expected: "0x00010000 (0.1.0) or newer",
    };
    assert_eq!(e, Error::new(ErrorKind::Shared(want), 4));
    assert_eq!(
        e.to_string(),
        "incompatible version 65535, expected 0x00010000 (0.1.0) or newer at offset 0x4"
    );
}

#[test]
fn non_zero_header_padding_names_the_field_it_follows() {
    let mut b = sample();
    b[70] = 1; // the u16 after the 2.1 header's bookmark count
    let e = parse_err(&b);
    let want = Shared::NonZeroPadding {
        what: "bookmark count",
    };
    assert_eq!(e, Error::new(ErrorKind::Shared(want), 70));
    assert_eq!(
        e.to_string(),
        "non-zero padding after bookmark count at offset 0x46"
    );
}

#[test]
fn a_cut_header_is_a_named_truncation() {
    let b = sample();
    let e = parse_err(&b[..10]);
    assert!(e.is_truncation());
    assert_eq!(
        e.to_string(),
        "truncated header (needs 56 bytes, 2 left) at offset 0x8"
    );
}

#[test]
fn a_thread_name_of_size_zero_has_no_nul() {
    let mut b = sample();
    let c = Capture::parse(&b).unwrap();
    let first = c.threads().next().unwrap().unwrap().offset;
    let size_at = first as usize + 8; // after the 2.1 thread's u64 id
    b[size_at..size_at + 2].fill(0);
    let c = Capture::parse(&b).unwrap();
    let e = c.threads().find_map(Result::err).expect("the thread fails");
    let want = Shared::MissingNul {
        what: "thread name",
    };
    assert_eq!(e, Error::new(ErrorKind::Shared(want), size_at as u64));
    assert_eq!(
        e.to_string(),
        format!("thread name without NUL terminator at offset {size_at:#x}")
    );
}

#[test]
fn a_fixed_kind_table_too_small_is_full_at_the_descriptor_past_it() {
    let b = sample();
    let c = Capture::parse(&b).unwrap();
    let ninth = c.descriptors().nth(8).unwrap().unwrap().offset;
    let e = FixedKindTable::<8>::new(&c).expect_err("25 descriptors do not fit 8");
    assert_eq!(e, Error::table_full("descriptor kind", 8, ninth));
    assert_eq!(
        e.to_string(),
        format!("descriptor kind table full (capacity 8) at offset {ninth:#x}")
    );
    assert!(FixedKindTable::<25>::new(&c).is_ok());
}

#[test]
fn nesting_slots_too_few_are_full_at_the_record_past_them() {
    let b = sample();
    let c = Capture::parse(&b).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let thread = c.threads().next().unwrap().unwrap();
    let third = thread.records(&kinds).nth(2).unwrap().unwrap().offset();
    let mut slots = vec![NestSlot::default(); 2];
    let e = c
        .nest(&thread, &kinds, &mut slots)
        .expect_err("2 slots are too few");
    assert_eq!(e, Error::table_full("nesting slot", 2, third));
    assert_eq!(
        e.shared(),
        Some(Shared::TableFull {
            what: "nesting slot",
            capacity: 2
        })
    );
    // The walk that keeps what it read: the tree of the two records, then the same fault.
    let nested = thread.nest(&kinds, c.header(), &mut slots, |_, _| {});
    assert_eq!((nested.tree.len(), nested.fault), (2, Some(e)));
    let mut slots = vec![NestSlot::default(); thread.records_count() as usize];
    assert!(c.nest(&thread, &kinds, &mut slots).is_ok());
}
