//! Walking every record of `sample_medium.prof` (descriptors, context switches, blocks, events,
//! values decoded element by element, nesting rebuilt, bookmarks) allocates nothing.
//!
//! The nesting scratch (one 24-byte slot per record of the largest thread) and the kind table are
//! provided up front on the stack/heap by the caller; the walk itself must not touch the allocator.
//!
//! A real capture's first bytes followed by zeros up to 16 MiB or 256 MiB: every reading API
//! fails at the same offset, just after the real bytes, and allocates the same small number of
//! times whatever the size (so nothing it allocates grows with the zeros). Also a file of many
//! sound but empty threads: the skim that keeps thread marks allocates once.

use tracecap_testkit::{allocs, CountingAlloc};

use tracecap_easyprofiler::*;

#[global_allocator]
static A: CountingAlloc = CountingAlloc;

#[test]
fn full_walk_allocates_nothing() {
    let Some(dir) = tracecap_testkit::corpus("easyprofiler") else {
        return;
    };
    let bytes = std::fs::read(dir.join("sample_medium.prof")).unwrap();
    let mut slots = vec![NestSlot::default(); 1 << 16];

    let before = allocs();
    let c = Capture::parse(&bytes).unwrap();
    let kinds = FixedKindTable::<64>::new(&c).unwrap();
    let s = Summary::check(&c, &kinds, &mut slots[..]).unwrap();
    // The nested visit directly, with a visitor that decodes every value.
    struct Elements(u64, u32);
    impl<'a> Visitor<'a> for Elements {
        fn record(&mut self, r: Record<'a>, nest: Nest) -> Result<(), Error> {
            if let Record::Value(v) = r {
                self.0 += v.elements().count() as u64;
            }
            self.1 = self.1.max(nest.height);
            Ok(())
        }
    }
    let mut visited = Elements(0, 0);
    c.events_with(&kinds)
        .visit(&mut slots[..], &mut visited)
        .unwrap();
    // And the per-record API directly, with element decoding.
    let mut elements = 0u64;
    for t in c.threads() {
        let t = t.unwrap();
        let tree = c.nest(&t, &kinds, &mut slots).unwrap();
        for (i, r) in t.records(&kinds).enumerate() {
            let _ = tree.depth(i).unwrap();
            if let Record::Value(v) = r.unwrap() {
                elements += v.elements().count() as u64;
            }
        }
    }
    // And checked in two pieces, split before the third thread.
    let mut front = c.events_with(&kinds);
    parallel::stop_after(&mut front, 2);
    let third = c.threads().nth(2).unwrap().unwrap();
    let descriptors = parallel::check_descriptors(&c).unwrap();
    let front = parallel::check_events(&mut front, &mut slots[..]).unwrap();
    let mut back = parallel::events_from(&c, &third, &kinds);
    let back = parallel::check_events(&mut back, &mut slots[..]).unwrap();
    let split = parallel::merge(parallel::merge(descriptors, front), back);
    let after = allocs();

    assert_eq!(s.records(), 55_594, "the corpus README's record count");
    assert!(s.values > 10_000 && elements > 0);
    assert_eq!((visited.0, visited.1), (elements, s.levels));
    assert_eq!(split, s);
    assert_eq!(after - before, 0, "allocations during the walk");
    // Control: the counter does see this thread's allocations.
    let v = std::hint::black_box(vec![1u8; 16]);
    assert!(
        allocs() > after && v.len() == 16,
        "the counting allocator counts"
    );
}

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");

/// `samples/sample_small.prof` (2.1.0), or the same made 2.0.1 when `v2_0`: the 2.1 header's
/// thread count, bookmark count and padding removed (the threads then run to the end of the
/// file).
fn sample(v2_0: bool) -> Vec<u8> {
    let mut b = std::fs::read(SAMPLE).unwrap();
    if v2_0 {
        b[4..8].copy_from_slice(&0x0200_0001u32.to_le_bytes());
        b.drain(64..72);
    }
    b
}

/// `buf` (all zeros) with the first `cut` bytes of `bytes` in front, for `f`; zeros again after.
fn padded<T>(buf: &mut [u8], bytes: &[u8], cut: usize, f: impl FnOnce(&[u8]) -> T) -> T {
    buf[..cut].copy_from_slice(&bytes[..cut]);
    let out = f(buf);
    buf[..cut].fill(0);
    out
}

/// The fault every API meets in `bytes` (its offset, or `None`), and the allocations made.
fn read_all(bytes: &[u8]) -> (Vec<Option<u64>>, usize) {
    let before = allocs();
    let mut faults = Vec::new();
    let Ok(c) = Capture::parse(bytes) else {
        return (vec![Capture::parse(bytes).err().map(|e| e.offset)], 0);
    };
    let kinds = match KindTable::new(&c) {
        Ok(k) => k,
        Err(e) => return (vec![Some(e.offset)], allocs() - before),
    };
    let mut slots: Vec<NestSlot> = Vec::new();
    faults.push(
        Summary::check(&c, &kinds, &mut slots)
            .err()
            .map(|e| e.offset),
    );
    faults.push(
        c.events_with(&kinds)
            .find_map(Result::err)
            .map(|e| e.offset),
    );
    // Per thread, as `dump` reads it: the framing, the context switches, the records nested.
    let mut fault = None;
    let mut threads = c.threads();
    for t in threads.by_ref() {
        let t = match t {
            Ok(t) => t,
            Err(e) => {
                fault = Some(e.offset);
                break;
            }
        };
        if let Some(e) = t.context_switches().find_map(Result::err) {
            fault = Some(e.offset);
            break;
        }
        // The nesting scratch is sized by records whose framing was checked: really there.
        slots.resize(t.records_count() as usize, NestSlot::default());
        if let Err(e) = c.nest(&t, &kinds, &mut slots) {
            fault = Some(e.offset);
            break;
        }
    }
    if fault.is_none() {
        fault = match threads.tail() {
            Ok(mut b) => b.find_map(Result::err).map(|e| e.offset),
            Err(e) => Some(e.offset),
        };
    }
    faults.push(fault);
    // The skim of the parallel check: stops at the first damaged thread, or keeps a few marks.
    let marks = parallel::thread_marks(&c, 256, |_| true);
    assert!(marks.is_none_or(|m| m.marks.len() <= 256));
    (faults, allocs() - before)
}

#[test]
fn zero_padded_prefixes_fail_early_in_small_memory() {
    let mut cases = 0;
    // Zeroed once: the counting allocator zeroes by hand.
    let (mut small, mut big) = (vec![0u8; 16 << 20], vec![0u8; 256 << 20]);
    for v2_0 in [false, true] {
        let bytes = sample(v2_0);
        // Cuts inside the header, the descriptors, a thread's head, its records, and at 4 KiB.
        for cut in [12, 40, 70, 100, 700, 1500, 2222, 4096, 9000, 20000] {
            let small = padded(&mut small, &bytes, cut, read_all);
            let big = padded(&mut big, &bytes, cut, read_all);
            let what = format!("{} cut at {cut}", if v2_0 { "2.0.1" } else { "2.1.0" });
            assert_eq!(small, big, "{what}: faults and allocations");
            let (faults, n) = big;
            assert!(n <= 16, "{what}: {n} allocations");
            for f in &faults {
                let f = f.unwrap_or_else(|| panic!("{what}: no fault"));
                assert!(f <= cut as u64 + 1024, "{what}: fault at {f:#x}");
            }
            assert!(
                faults.windows(2).all(|w| w[0] == w[1]),
                "{what}: the APIs disagree: {faults:x?}"
            );
            cases += 1;
        }
    }
    assert_eq!(cases, 20);
}

/// A 2.0.1 capture of `n` empty threads (no records, named "t"), each 19 bytes.
fn empty_threads(n: usize) -> Vec<u8> {
    let sample = sample(true);
    let c = Capture::parse(&sample).unwrap();
    // The header and the descriptors of the sample, then the threads.
    let mut b = sample[..c.threads_offset() as usize].to_vec();
    // The header's count of records (`blocks_count` of the 2.0 layout): none.
    b[56..60].copy_from_slice(&0u32.to_le_bytes());
    for i in 0..n as u64 {
        b.extend_from_slice(&i.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(b"t\0");
        b.extend_from_slice(&[0; 8]); // no context switches, no records
    }
    b
}

#[test]
fn thread_marks_allocate_once_whatever_the_thread_count() {
    for n in [0, 1, 255, 256, 257, 100_000] {
        let bytes = empty_threads(n);
        let c = Capture::parse(&bytes).unwrap();
        let before = allocs();
        let marks = parallel::thread_marks(&c, 256, |_| true).unwrap();
        assert!(allocs() - before <= 1, "{n} threads");
        assert_eq!(marks.count as usize, n);
        assert!(marks.marks.len() <= 256);
        // Threads 0, stride, 2 * stride, ..., every one of them that exists.
        assert_eq!(marks.marks.len(), n.div_ceil(marks.stride as usize));
        for (k, t) in marks.marks.iter().enumerate() {
            assert_eq!(t.index() as usize, k * marks.stride as usize);
        }
        // `go_on` can stop the pass.
        assert!(parallel::thread_marks(&c, 256, |i| i < 10).is_none() == (n >= 10));
    }
}

/// The push parser, fed `sample_medium.prof` (or the bundled sample without the corpus) in 64 KiB
/// pieces through a buffer reserved up front, allocates only while the descriptors arrive (the
/// kind table, its one growing state); from the first thread on, nothing.
#[test]
fn push_parser_allocates_nothing_after_the_descriptors() {
    let bytes = match tracecap_testkit::corpus("easyprofiler") {
        Some(dir) => std::fs::read(dir.join("sample_medium.prof")).unwrap(),
        None => sample(false),
    };
    let mut buffer = Vec::with_capacity(256 << 10);
    let mut parser = PushParser::new();
    let (mut start, mut fed) = (0, 0);
    let (mut records, mut elements) = (0u64, 0u64);
    let mut warm = None;
    let before = allocs();
    loop {
        match parser.parse(&buffer[start..], fed == bytes.len()).unwrap() {
            Pushed::Item { consumed, item } => {
                match item {
                    PushItem::Item(Item::Thread(_)) if warm.is_none() => warm = Some(allocs()),
                    PushItem::Item(Item::Record(r)) => {
                        records += 1;
                        if let Record::Value(v) = r {
                            elements += v.elements().count() as u64;
                        }
                    }
                    _ => {}
                }
                start += consumed;
            }
            Pushed::NeedMore { .. } => {
                buffer.drain(..start);
                start = 0;
                let n = (64 << 10).min(bytes.len() - fed);
                buffer.extend_from_slice(&bytes[fed..fed + n]);
                fed += n;
            }
            Pushed::End => break,
        }
    }
    let after = allocs();
    let warm = warm.expect("the capture has threads");
    assert!(records > 0 && fed == bytes.len());
    assert_eq!(after - warm, 0, "allocations after the descriptors");
    let kinds = parser.kinds().len();
    assert!(
        warm - before <= 2 + kinds.max(1).ilog2() as usize,
        "the kind table grows by doubling: {} allocations for {kinds} kinds",
        warm - before
    );
    let _ = std::hint::black_box(elements);
}
