//! The fast path against the precise one. `Events` (its iterator, `try_for_each_event` and
//! `visit`) reads whole, well-formed records straight from the bytes; `Thread::records` and
//! `Thread::record_at` read every record with the checked reader. On every corpus file and on
//! proptest input they give the same records, the same nesting (checked record by record against
//! upstream's rule in `common::walk_items`), the same summary as the slot-per-record rebuild, the
//! same fault when a fixed stack is too small, and a walk stopped by its visitor resumes where it
//! stopped.

mod common;

use tracecap_easyprofiler::*;

#[test]
fn every_corpus_file_visits_like_the_iterator() {
    let mut files = 0;
    for (name, bytes) in common::prof_files() {
        // Compares `Events::visit` with the iterator, and its nesting with upstream's rule.
        let (seen, err) = common::walk_items(&bytes);
        assert_eq!(err, None, "{name}");
        assert!(!seen.is_empty(), "{name}");

        // The summary (which goes through `Events::visit`) has the levels of `Capture::nest`.
        let c = Capture::parse(&bytes).unwrap();
        let kinds = KindTable::new(&c).unwrap();
        let mut slots = Vec::new();
        let mut levels = 0;
        let mut records = 0u64;
        for t in c.threads() {
            let t = t.unwrap();
            slots.resize(t.records_count() as usize, NestSlot::default());
            levels = levels.max(c.nest(&t, &kinds, &mut slots).unwrap().levels());
            records += u64::from(t.records_count() + t.context_switches_count());
        }
        let s = Summary::check(&c, &kinds, &mut Vec::new()).unwrap();
        assert_eq!((s.levels, s.records()), (levels, records), "{name}");
        files += 1;
    }
    println!("{files} files");
}

/// What `Events::visit` reports with the stack `stack`: the records it gave, and the error.
fn visit_with(c: &Capture<'_>, kinds: &KindTable, stack: &mut [NestSlot]) -> (u64, Option<Error>) {
    struct Count(u64);
    impl<'a> Visitor<'a> for Count {
        fn record(&mut self, _: Record<'a>, _: Nest) -> Result<(), Error> {
            self.0 += 1;
            Ok(())
        }
    }
    let mut n = Count(0);
    let err = c.events_with(kinds).visit(stack, &mut n).err();
    (n.0, err)
}

/// The same with a [`Forest`] over the same stack, pushed from `try_for_each_event`.
fn forest_with(c: &Capture<'_>, kinds: &KindTable, stack: &mut [NestSlot]) -> (u64, Option<Error>) {
    let mut forest = Forest::with_clock(stack, c.header().clock());
    let mut n = 0;
    let err = c
        .events_with(kinds)
        .try_for_each_event::<tracecap_easyprofiler::Error, _>(|item| {
            match item {
                Item::Thread(_) => forest.clear(),
                Item::Record(r) => {
                    if forest.push(r.begin(), r.end()).is_none() {
                        let roots = forest.roots() as u64;
                        return Err(Error::table_full("top-level node", roots, r.offset()));
                    }
                    n += 1;
                }
                _ => {}
            }
            Ok(())
        })
        .err();
    (n, err)
}

#[test]
fn a_fixed_stack_too_small_fails_where_the_forest_does() {
    let mut failures = 0;
    for (name, bytes) in common::prof_files() {
        let c = Capture::parse(&bytes).unwrap();
        let kinds = KindTable::new(&c).unwrap();
        for cap in [0, 1, 2, 3, 5, 8, 40, 300] {
            let mut a = vec![NestSlot::default(); cap];
            let mut b = vec![NestSlot::default(); cap];
            let got = visit_with(&c, &kinds, &mut a);
            assert_eq!(
                got,
                forest_with(&c, &kinds, &mut b),
                "{name}, stack of {cap}"
            );
            failures += usize::from(got.1.is_some());
        }
    }
    assert!(failures > 0, "no stack was too small");
}

/// Every item of `bytes` with its offset, as the plain iterator yields them (faults included).
fn all_items(bytes: &[u8]) -> Vec<Result<Item<'_>, Error>> {
    let Ok(c) = Capture::parse(bytes) else {
        return vec![];
    };
    let Ok(kinds) = KindTable::new(&c) else {
        return vec![];
    };
    c.events_with(&kinds).collect()
}

/// The items seen when a visit stops at its `k`-th item and the iterator takes over.
fn stop_and_resume(bytes: &[u8], k: usize) -> Vec<Result<Item<'_>, Error>> {
    let Ok(c) = Capture::parse(bytes) else {
        return vec![];
    };
    let Ok(kinds) = KindTable::new(&c) else {
        return vec![];
    };
    let stop = Error::new(ErrorKind::TrailingBytes(u64::MAX), u64::MAX);
    let mut items = c.events_with(&kinds);
    let mut out = Vec::new();
    // The visitor keeps the item it stops on (the walk has consumed it).
    let visited = items.try_for_each_event::<tracecap_easyprofiler::Error, _>(|item| {
        out.push(Ok(item));
        if out.len() == k {
            return Err(stop);
        }
        Ok(())
    });
    match visited {
        Err(e) if e == stop => out.extend(items),
        Err(e) => out.push(Err(e)),
        Ok(()) => {}
    }
    out
}

/// The same when `Events::visit` stops at its `k`-th item (a record or anything else).
fn stop_nested_and_resume(bytes: &[u8], k: usize) -> Vec<Result<Item<'_>, Error>> {
    struct Stop<'a, 'o> {
        out: &'o mut Vec<Result<Item<'a>, Error>>,
        k: usize,
    }
    impl<'a> Stop<'a, '_> {
        fn keep(&mut self, item: Item<'a>) -> Result<(), Error> {
            self.out.push(Ok(item));
            if self.out.len() == self.k {
                return Err(Error::new(ErrorKind::TrailingBytes(u64::MAX), u64::MAX));
            }
            Ok(())
        }
    }
    impl<'a> Visitor<'a> for Stop<'a, '_> {
        fn record(&mut self, record: Record<'a>, _: Nest) -> Result<(), Error> {
            self.keep(Item::Record(record))
        }
        fn item(&mut self, item: Item<'a>) -> Result<(), Error> {
            self.keep(item)
        }
    }
    let Ok(c) = Capture::parse(bytes) else {
        return vec![];
    };
    let Ok(kinds) = KindTable::new(&c) else {
        return vec![];
    };
    let mut items = c.events_with(&kinds);
    let mut out = Vec::new();
    let visited = items.visit(&mut Vec::new(), &mut Stop { out: &mut out, k });
    match visited {
        Err(e) if e.offset == u64::MAX => out.extend(items),
        Err(e) => out.push(Err(e)),
        Ok(()) => {}
    }
    out
}

#[test]
fn a_stopped_visit_resumes_where_it_stopped() {
    for (name, bytes) in common::prof_files() {
        let full = all_items(&bytes);
        let n = full.len();
        let mut stops: Vec<usize> = (1..n.min(40)).collect();
        stops.extend((1..n).step_by((n / 50).max(1)));
        stops.push(n);
        for k in stops {
            assert_eq!(
                stop_and_resume(&bytes, k),
                full,
                "{name}: stopped after {k} items"
            );
            assert_eq!(
                stop_nested_and_resume(&bytes, k),
                full,
                "{name}: nested visit stopped after {k} items"
            );
            // A cut file too: the fault comes after the same items.
            let cut = &bytes[..bytes.len() * 2 / 3];
            assert_eq!(
                stop_and_resume(cut, k),
                all_items(cut),
                "{name} cut: stopped after {k} items"
            );
            assert_eq!(
                stop_nested_and_resume(cut, k),
                all_items(cut),
                "{name} cut: nested visit stopped after {k} items"
            );
        }
    }
}

/// The records of `bytes` as the fast path reads them (`Events`) and as the precise reader reads
/// them (`Thread::records`, and each again with `Thread::record_at`), with the first fault of each.
fn fast_and_precise(bytes: &[u8]) -> Option<(Vec<Record<'_>>, Vec<Record<'_>>)> {
    let c = Capture::parse(bytes).ok()?;
    let kinds = KindTable::new(&c).ok()?;
    let fast: Vec<Record<'_>> = c
        .events_with(&kinds)
        .map_while(Result::ok)
        .filter_map(|i| match i {
            Item::Record(r) => Some(r),
            _ => None,
        })
        .collect();
    let mut precise = Vec::new();
    for t in c.threads() {
        let Ok(t) = t else { break };
        for r in t.records(&kinds) {
            let Ok(r) = r else { break };
            assert_eq!(t.record_at(r.offset(), &kinds), Ok(r), "record_at");
            precise.push(r);
        }
    }
    Some((fast, precise))
}

/// Each thread's records and fault as `Records::try_for_each_record` gives them, against the
/// iterator; and a walk whose closure refuses the `stop`-th record of a thread, finished by the
/// iterator, gives the same records (the refused one included) and fault.
fn each_record_like_the_iterator(bytes: &[u8], stop: usize) {
    let Ok(c) = Capture::parse(bytes) else { return };
    let Ok(kinds) = KindTable::new(&c) else {
        return;
    };
    for t in c.threads() {
        let Ok(t) = t else { break };
        let mut iterated = Vec::new();
        let mut fault = None;
        for r in t.records(&kinds) {
            match r {
                Ok(r) => iterated.push(Ok(r)),
                Err(e) => fault = Some(e),
            }
        }
        iterated.extend(fault.map(Err));

        let mut each = Vec::new();
        let end = t
            .records(&kinds)
            .try_for_each_record(|r| {
                each.push(Ok(r));
                Ok::<(), Error>(())
            })
            .err();
        each.extend(end.map(Err));
        assert_eq!(each, iterated, "whole walk, thread at {}", t.offset);

        let mut resumed = Vec::new();
        let mut records = t.records(&kinds);
        let refused = records
            .try_for_each_record(|r| {
                resumed.push(Ok(r));
                if resumed.len() == stop {
                    return Err(Stop::Refused);
                }
                Ok(())
            })
            .err();
        match refused {
            Some(Stop::Fault(e)) => resumed.push(Err(e)),
            Some(Stop::Refused) => resumed.extend(records),
            None => {}
        }
        assert_eq!(
            resumed, iterated,
            "stopped at {stop}, thread at {}",
            t.offset
        );
    }
}

/// Why a walk of `each_record_like_the_iterator` stopped.
enum Stop {
    Refused,
    Fault(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Fault(e)
    }
}

#[test]
fn every_corpus_file_reads_the_same_records_each_and_iterated() {
    for (name, bytes) in common::prof_files() {
        for stop in [1, 2, 3, 100, 1000] {
            each_record_like_the_iterator(&bytes, stop);
        }
        for cut in [bytes.len() / 2, bytes.len() * 3 / 4, bytes.len() - 1] {
            each_record_like_the_iterator(&bytes[..cut], 7);
        }
        println!("{name}");
    }
}

#[test]
fn every_corpus_file_reads_the_same_records_fast_and_precisely() {
    for (name, bytes) in common::prof_files() {
        let (fast, precise) = fast_and_precise(&bytes).unwrap();
        assert_eq!(fast, precise, "{name}");
        assert!(!fast.is_empty(), "{name}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// A sample with a few bytes changed: the fast and precise records agree up to the first
    /// fault, and the iterator, `try_for_each_event` and `visit` agree on everything.
    #[test]
    fn changed_bytes_read_the_same_fast_and_precisely(
        edits in proptest::collection::vec((0.0f64..1.0, proptest::prelude::any::<u8>()), 1..6),
        cut in 0.5f64..=1.0,
    ) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/sample_small.prof");
        let mut bytes = std::fs::read(path).unwrap();
        for (at, b) in edits {
            let i = ((bytes.len() - 1) as f64 * at) as usize;
            bytes[i] = b;
        }
        bytes.truncate((bytes.len() as f64 * cut) as usize);
        if let Some((fast, precise)) = fast_and_precise(&bytes) {
            // The per-thread walk stops at the first damaged thread, the stream at its first
            // fault: one is a prefix of the other.
            let n = fast.len().min(precise.len());
            proptest::prop_assert_eq!(&fast[..n], &precise[..n]);
        }
        let _ = common::walk_items(&bytes);
        each_record_like_the_iterator(&bytes, 5);
    }
}
