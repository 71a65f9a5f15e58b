//! Walking every record of `sample_medium.prof` (descriptors, context switches, blocks, events,
//! values decoded element by element, nesting rebuilt, bookmarks) allocates nothing.
//!
//! The nesting scratch (one 24-byte slot per record of the largest thread) and the kind table are
//! provided up front on the stack/heap by the caller; the walk itself must not touch the allocator.

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
