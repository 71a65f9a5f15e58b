//! Arbitrary bytes through the whole EasyProfiler reader: no panic, errors inside the input, and
//! counts bounded by the input's size (nothing is trusted from a count field); and a prefix of a
//! file that reads whole gives the file's records up to the cut.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracecap_easyprofiler::{
    parallel, Capture, Error, Item, KindTable, Nest, NestSlot, Record, Summary, Visitor,
};

/// A record in file order, as `tracecap dump` prints them, with the offset where it ends.
#[derive(Debug, PartialEq)]
enum Rec<'a> {
    Descriptor(tracecap_easyprofiler::Descriptor<'a>),
    Item(Item<'a>),
}

/// The descriptors, then everything [`Capture::events`] gives, and the fault that ended the walk.
fn records(data: &[u8]) -> (Vec<Rec<'_>>, Option<Error>) {
    let mut out = Vec::new();
    let walked = (|| {
        let c = Capture::parse(data)?;
        for d in c.descriptors() {
            out.push(Rec::Descriptor(d?));
        }
        let kinds = KindTable::new(&c)?;
        for item in c.events_with(&kinds) {
            out.push(Rec::Item(item?));
        }
        Ok(())
    })();
    (out, walked.err())
}

/// Where a record of `data` starts and ends: a size-prefixed record spans its size field and
/// payload; a thread's head its id, name size and name.
fn span(data: &[u8], r: &Rec<'_>, id_len: u64) -> (u64, u64) {
    let u16_at = |at: u64| {
        let at = at as usize;
        u64::from(u16::from_le_bytes([data[at], data[at + 1]]))
    };
    let at = match r {
        Rec::Descriptor(d) => d.offset,
        Rec::Item(Item::ContextSwitch(c)) => c.offset,
        Rec::Item(Item::Record(r)) => r.offset(),
        Rec::Item(Item::Bookmark(b)) => b.offset,
        Rec::Item(Item::Thread(t)) => {
            return (t.offset, t.offset + id_len + 2 + u16_at(t.offset + id_len));
        }
    };
    (at, at + 2 + u16_at(at))
}

/// `data` cut where its last two bytes say, when `data` reads whole: the cut file's records are
/// the whole file's, in order, every record whose next record starts at or before the cut among
/// them, and the fault (if any) lies within the cut file; before 2.1, a cut file without a fault
/// is cut between two threads and holds the header's count of records.
fn check_prefix(data: &[u8]) {
    let Some(&[a, b]) = data.last_chunk::<2>() else {
        return;
    };
    let (whole, err) = records(data);
    let Ok(c) = Capture::parse(data) else { return };
    if err.is_some() {
        return;
    }
    let id_len = if c.header().version.wide_ids() { 8 } else { 4 };
    let spans: Vec<(u64, u64)> = whole.iter().map(|r| span(data, r, id_len)).collect();
    let cut = usize::from(u16::from_le_bytes([a, b])) % data.len();
    let (got, fault) = records(&data[..cut]);
    let ends = spans
        .iter()
        .skip(1)
        .map(|s| s.0)
        .chain(spans.last().map(|s| s.1));
    let must = ends.take_while(|&e| e <= cut as u64).count();
    assert!(
        got.len() >= must,
        "cut at {cut}: {} of {must} records",
        got.len()
    );
    assert!(
        got.len() <= whole.len(),
        "cut at {cut}: more records than the whole"
    );
    assert_eq!(got[..], whole[..got.len()], "cut at {cut}");
    if let Some(e) = fault {
        assert!(
            e.offset <= cut as u64,
            "cut at {cut}: fault at {:#x}",
            e.offset
        );
    } else if !c.header().version.has_end_signature() {
        // Before 2.1 nothing follows the threads: a cut file reads without a fault only when
        // it is cut between two threads and still holds the header's count of records.
        let read = got
            .iter()
            .filter(|r| matches!(r, Rec::Item(Item::ContextSwitch(_) | Item::Record(_))))
            .count() as u64;
        assert!(
            read >= u64::from(c.header().blocks_count),
            "cut at {cut}: {read} of the header's {} records, no fault",
            c.header().blocks_count
        );
        assert!(
            whole[got.len()..]
                .first()
                .is_none_or(|r| matches!(r, Rec::Item(Item::Thread(t)) if t.offset == cut as u64)),
            "cut at {cut}: no fault inside a thread"
        );
    }
}

/// Offsets of the records and context switches [`tracecap_easyprofiler::Events::visit`] gives.
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
    check_prefix(data);
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
    for item in c.events_with(&kinds) {
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
        .events_with(&kinds)
        .try_for_each_event::<tracecap_easyprofiler::Error, _>(|item| {
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
    // The nesting walk (`Events::visit`) too.
    let mut nested = Offsets(Vec::new());
    let nest_err = c
        .events_with(&kinds)
        .visit(&mut Vec::new(), &mut nested)
        .err();
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
        let mut front = c.events_with(&kinds);
        parallel::stop_after(&mut front, i as u32);
        let mut back = parallel::events_from(&c, t, &kinds);
        let pieces = parallel::check_descriptors(&c).and_then(|d| {
            let f = parallel::check_events(&mut front, &mut Vec::new())?;
            let b = parallel::check_events(&mut back, &mut Vec::new())?;
            Ok(parallel::merge(parallel::merge(d, f), b))
        });
        match (err, pieces) {
            (None, Ok(p)) => assert_eq!(p, s),
            (Some(_), Err(_)) => {}
            (e, p) => panic!("split at thread {i}: serial {e:?}, pieces {p:?}"),
        }
    }
});
