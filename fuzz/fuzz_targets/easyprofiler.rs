//! Arbitrary bytes through the whole EasyProfiler reader: no panic, errors inside the input, and
//! counts bounded by the input's size (nothing is trusted from a count field).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap_easyprofiler::{
    Capture, Error, Item, KindTable, Nest, NestSlot, Record, Summary, Visitor,
};

/// Offsets of the records and context switches [`tracecap_easyprofiler::Items::visit`] gives.
struct Offsets(Vec<u64>);

impl<'a> Visitor<'a> for Offsets {
    fn record(&mut self, r: Record<'a>, _: Nest) -> Result<(), Error> {
        self.0.push(r.offset());
        Ok(())
    }
    fn item(&mut self, item: Item<'a>) -> Result<(), Error> {
        if let Item::ContextSwitch(cs) = item {
            self.0.push(cs.offset);
        }
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(c) = Capture::parse(data) else { return };
    let Ok(kinds) = KindTable::new(&c) else {
        return;
    };
    assert!(kinds.as_slice().len() <= data.len() / 2);
    let mut slots: Vec<NestSlot> = Vec::new();
    let (s, err) = Summary::check_partial(&c, &kinds, &mut slots);
    if let Some(e) = err {
        assert!(
            e.offset <= data.len() as u64,
            "error offset {:#x} past {}",
            e.offset,
            data.len()
        );
    }
    // Every record takes at least its 2-byte size field; the nesting stack grows by doubling from
    // 64 entries and never holds more entries than records.
    assert!(s.records() <= data.len() as u64 / 2);
    assert!(slots.len() <= (2 * s.records() as usize).max(64));
    // The single-pass stream and the per-thread API see the same records and the same fault.
    let mut streamed = Vec::new();
    let mut stream_err = None;
    for item in c.items(&kinds) {
        match item {
            Ok(Item::Record(r)) => streamed.push(r.offset()),
            Ok(Item::ContextSwitch(cs)) => streamed.push(cs.offset),
            Ok(_) => {}
            Err(e) => stream_err = Some(e),
        }
    }
    // The visitor walk (what `Summary::check` uses) sees the same records, whole, and the same
    // fault.
    let mut visited = Vec::new();
    let visit_err = c
        .items(&kinds)
        .try_for_each_item(|item| {
            match item {
                Item::Record(r) => visited.push(r.offset()),
                Item::ContextSwitch(cs) => visited.push(cs.offset),
                _ => {}
            }
            Ok(())
        })
        .err();
    assert_eq!(visited, streamed);
    assert_eq!(visit_err, stream_err);
    // The nesting walk (`Items::visit`) too.
    let mut nested = Offsets(Vec::new());
    let nest_err = c.items(&kinds).visit(&mut Vec::new(), &mut nested).err();
    assert_eq!(nested.0, streamed);
    assert_eq!(nest_err, stream_err);
    let mut threaded = Vec::new();
    let mut thread_err = None;
    'threads: for t in c.threads() {
        match t {
            Ok(t) => {
                for cs in t.context_switches() {
                    match cs {
                        Ok(cs) => threaded.push(cs.offset),
                        Err(e) => {
                            thread_err = Some(e);
                            break 'threads;
                        }
                    }
                }
                for r in t.records(&kinds) {
                    match r {
                        Ok(r) => threaded.push(r.offset()),
                        Err(e) => {
                            thread_err = Some(e);
                            break 'threads;
                        }
                    }
                }
            }
            Err(e) => {
                thread_err = Some(e);
                break;
            }
        }
    }
    assert_eq!(streamed, threaded);
    if thread_err.is_some() {
        assert_eq!(stream_err, thread_err);
    }
    // The per-thread API agrees with the summary on a good file.
    if err.is_none() {
        let mut n = 0u64;
        for t in c.threads() {
            let t = t.unwrap();
            n += u64::from(t.records_count()) + u64::from(t.context_switches_count());
        }
        assert_eq!(n, s.records());
    }
    // Checked in two pieces at every thread boundary (what `tracecap validate` does on two
    // cores), the merged summary is the serial one; on a bad file some piece fails.
    let threads: Vec<_> = c.threads().map_while(Result::ok).collect();
    for (i, t) in threads.iter().enumerate() {
        let mut front = c.items(&kinds);
        front.stop_after(i as u32);
        let mut back = c.items_from(t, &kinds);
        let pieces = Summary::check_descriptors(&c).and_then(|d| {
            let f = Summary::check_items(&mut front, &mut Vec::new())?;
            let b = Summary::check_items(&mut back, &mut Vec::new())?;
            Ok(d.merge(f).merge(b))
        });
        match (err, pieces) {
            (None, Ok(p)) => assert_eq!(p, s),
            (Some(_), Err(_)) => {}
            (e, p) => panic!("split at thread {i}: serial {e:?}, pieces {p:?}"),
        }
    }
});
