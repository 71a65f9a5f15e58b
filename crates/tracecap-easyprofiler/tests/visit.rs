//! `Events::visit` against the other walks on every corpus file: the same items, the same nesting
//! (checked record by record against upstream's rule in `common::walk_items`), the same summary
//! as the slot-per-record rebuild, and the same fault when a fixed stack is too small.

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
        .try_for_each_event(|item| {
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
