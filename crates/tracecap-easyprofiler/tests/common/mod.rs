//! Helpers shared by the integration tests: finding the corpus, walking a file completely.
#![allow(dead_code)]

use std::path::PathBuf;
use tracecap_easyprofiler::*;

/// Every `.prof` in the corpus, sorted; without the corpus (after the testkit's notice), the
/// crate's `samples/*.prof` (the repository's samples, packaged with the crate), so that the
/// tests still read real captures.
pub fn prof_files() -> Vec<(String, Vec<u8>)> {
    let dir = tracecap_testkit::corpus("easyprofiler")
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/samples")));
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "prof"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{} has no .prof files", dir.display());
    v
}

/// One item seen by [`walk`]: its absolute offset, what it is, and a digest of its content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub offset: u64,
    pub what: &'static str,
    pub digest: u64,
}

fn seen_descriptor(d: &Descriptor) -> Seen {
    Seen {
        offset: d.offset,
        what: "desc",
        digest: digest((
            d.id,
            d.name,
            d.file,
            d.line,
            d.color,
            d.kind.to_u8(),
            d.status,
        )),
    }
}

fn seen_cs(cs: &ContextSwitch) -> Seen {
    Seen {
        offset: cs.offset,
        what: "cs",
        digest: digest((cs.begin, cs.end, cs.target_thread, cs.name)),
    }
}

fn seen_record(r: &Record) -> Seen {
    let (what, d) = match r {
        Record::Block(b) => (
            "block",
            digest((b.begin, b.end, b.id, b.name, b.is_event())),
        ),
        Record::Value(v) => {
            let mut acc = digest((v.time, v.id, v.value_id, v.data_type.to_u8(), v.data));
            for e in v.elements() {
                acc = acc.rotate_left(5) ^ digest(format_args!("{e:?}").to_string());
            }
            ("value", acc)
        }
    };
    Seen {
        offset: r.offset(),
        what,
        digest: d,
    }
}

fn seen_bookmark(b: &Bookmark) -> Seen {
    Seen {
        offset: b.offset,
        what: "bookmark",
        digest: digest((b.position, b.color, b.text)),
    }
}

fn digest(h: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut s = std::collections::hash_map::DefaultHasher::new();
    h.hash(&mut s);
    s.finish()
}

/// Walks everything (descriptors, threads, context switches, records with values decoded,
/// nesting, bookmarks); returns what it saw in file order and the first error.
pub fn walk(bytes: &[u8]) -> (Vec<Seen>, Option<Error>) {
    let mut seen = Vec::new();
    let err = walk_into(bytes, &mut seen).err();
    (seen, err)
}

fn walk_into(bytes: &[u8], seen: &mut Vec<Seen>) -> Result<(), Error> {
    let c = Capture::parse(bytes)?;
    for d in c.descriptors() {
        seen.push(seen_descriptor(&d?));
    }
    let kinds = KindTable::new(&c)?;
    let mut slots = Vec::new();
    let mut threads = c.threads();
    for t in threads.by_ref() {
        let t = t?;
        for cs in t.context_switches() {
            seen.push(seen_cs(&cs?));
        }
        for r in t.records(&kinds) {
            seen.push(seen_record(&r?));
        }
        slots.resize(t.records_count() as usize, NestSlot::default());
        c.nest(&t, &kinds, &mut slots)?;
    }
    for b in threads.tail()? {
        seen.push(seen_bookmark(&b?));
    }
    Ok(())
}

/// The same walk through the single-pass [`Capture::events`] stream (no nesting). Also walks it
/// with [`Events::try_for_each_event`] and checks that both see the same items and the same fault.
pub fn walk_items(bytes: &[u8]) -> (Vec<Seen>, Option<Error>) {
    let mut seen = Vec::new();
    let err = items_into(bytes, &mut seen).err();
    let mut visited = Vec::new();
    let visit_err = visit_into(bytes, &mut visited).err();
    assert_eq!(
        (&visited, visit_err),
        (&seen, err),
        "try_for_each_event and the items iterator disagree"
    );
    let (nested, nested_err) = walk_nested(bytes);
    assert_eq!(
        (&nested, nested_err),
        (&seen, err),
        "Events::visit and the items iterator disagree"
    );
    (seen, err)
}

/// The same walk through [`Events::visit`], whose nesting of every record is checked against
/// [`naive_nesting`] of the thread's records.
pub fn walk_nested(bytes: &[u8]) -> (Vec<Seen>, Option<Error>) {
    let mut seen = Vec::new();
    let err = nested_into(bytes, &mut seen).err();
    (seen, err)
}

/// Collects what [`Events::visit`] gives.
struct Collect<'s> {
    seen: &'s mut Vec<Seen>,
    /// The current thread's records: begin, end (as the nesting sees them) and their `Nest`.
    thread: Vec<(u64, u64, Nest)>,
    clock_freq: i64,
}

impl Collect<'_> {
    /// Checks the current thread's nesting and starts a new one.
    fn end_thread(&mut self) {
        let times: Vec<(u64, u64)> = self.thread.iter().map(|&(b, e, _)| (b, e)).collect();
        let want = naive_nesting(&times, self.clock_freq);
        let got: Vec<Nest> = self.thread.iter().map(|&(_, _, n)| n).collect();
        assert_eq!(
            got, want,
            "Events::visit nests differently from upstream's rule"
        );
        self.thread.clear();
    }
}

impl<'a> Visitor<'a> for Collect<'_> {
    fn record(&mut self, r: Record<'a>, nest: Nest) -> Result<(), Error> {
        self.seen.push(seen_record(&r));
        self.thread.push((r.begin(), r.end(), nest));
        Ok(())
    }

    fn item(&mut self, item: Item<'a>) -> Result<(), Error> {
        match item {
            Item::Thread(_) => self.end_thread(),
            Item::ContextSwitch(cs) => self.seen.push(seen_cs(&cs)),
            Item::Record(_) => panic!("records come through Visitor::record"),
            Item::Bookmark(b) => self.seen.push(seen_bookmark(&b)),
        }
        Ok(())
    }
}

fn nested_into(bytes: &[u8], seen: &mut Vec<Seen>) -> Result<(), Error> {
    let c = Capture::parse(bytes)?;
    for d in c.descriptors() {
        seen.push(seen_descriptor(&d?));
    }
    let kinds = KindTable::new(&c)?;
    let mut stack = Vec::new();
    let mut collect = Collect {
        seen,
        thread: Vec::new(),
        clock_freq: c.header().cpu_frequency,
    };
    let walked = c.events_with(&kinds).visit(&mut stack, &mut collect);
    // The records before a fault are nested too.
    collect.end_thread();
    walked
}

/// Upstream's rebuild, written plainly: a list of top-level nodes (nanosecond times and the
/// height of their subtree); each record adopts the last node if it begins before that node ends,
/// then every earlier consecutive node that begins no earlier than it. Gives what each record
/// adopted and the height of its subtree.
pub fn naive_nesting(records: &[(u64, u64)], cpu_frequency: i64) -> Vec<Nest> {
    let ns = |t: u64| ticks_to_ns(t, cpu_frequency);
    let mut top: Vec<(u64, u64, u32)> = Vec::new();
    let mut out = Vec::new();
    for &(b, e) in records {
        let (b, e) = (ns(b), ns(e));
        let mut adopted = 0;
        let mut height = 1;
        if top.last().is_some_and(|&(_, last_end, _)| b < last_end) {
            while let Some(&(pb, _, h)) = top.last() {
                if adopted > 0 && pb < b {
                    break;
                }
                top.pop();
                adopted += 1;
                height = height.max(h + 1);
            }
        }
        top.push((b, e, height));
        out.push(Nest { adopted, height });
    }
    out
}

fn visit_into(bytes: &[u8], seen: &mut Vec<Seen>) -> Result<(), Error> {
    let c = Capture::parse(bytes)?;
    for d in c.descriptors() {
        seen.push(seen_descriptor(&d?));
    }
    let kinds = KindTable::new(&c)?;
    c.events_with(&kinds)
        .try_for_each_event::<tracecap_easyprofiler::Error, _>(|item| {
            match item {
                Item::Thread(_) => {}
                Item::ContextSwitch(cs) => seen.push(seen_cs(&cs)),
                Item::Record(r) => seen.push(seen_record(&r)),
                Item::Bookmark(b) => seen.push(seen_bookmark(&b)),
            }
            Ok(())
        })
}

fn items_into(bytes: &[u8], seen: &mut Vec<Seen>) -> Result<(), Error> {
    let c = Capture::parse(bytes)?;
    for d in c.descriptors() {
        seen.push(seen_descriptor(&d?));
    }
    let kinds = KindTable::new(&c)?;
    for item in c.events_with(&kinds) {
        seen.push(match item? {
            Item::Thread(_) => continue,
            Item::ContextSwitch(cs) => seen_cs(&cs),
            Item::Record(r) => seen_record(&r),
            Item::Bookmark(b) => seen_bookmark(&b),
        });
    }
    Ok(())
}
