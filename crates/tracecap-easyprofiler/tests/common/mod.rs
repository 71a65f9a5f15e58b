//! Helpers shared by the integration tests: finding the corpus, walking a file completely.
#![allow(dead_code)]

use std::path::PathBuf;
use tracecap_easyprofiler::*;

/// The EasyProfiler corpus directory, or `None` (with a loud message) when it is not there.
pub fn corpus() -> Option<PathBuf> {
    tracecap_testkit::corpus("easyprofiler")
}

/// Every `.prof` in the corpus, sorted.
pub fn prof_files() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = corpus() else { return vec![] };
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
    assert!(!v.is_empty(), "corpus directory has no .prof files");
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

/// The same walk through the single-pass [`Capture::items`] stream (no nesting). Also walks it
/// with [`Items::try_for_each_item`] and checks that both see the same items and the same fault.
pub fn walk_items(bytes: &[u8]) -> (Vec<Seen>, Option<Error>) {
    let mut seen = Vec::new();
    let err = items_into(bytes, &mut seen).err();
    let mut visited = Vec::new();
    let visit_err = visit_into(bytes, &mut visited).err();
    assert_eq!(
        (&visited, visit_err),
        (&seen, err),
        "try_for_each_item and the items iterator disagree"
    );
    (seen, err)
}

fn visit_into(bytes: &[u8], seen: &mut Vec<Seen>) -> Result<(), Error> {
    let c = Capture::parse(bytes)?;
    for d in c.descriptors() {
        seen.push(seen_descriptor(&d?));
    }
    let kinds = KindTable::new(&c)?;
    c.items(&kinds).try_for_each_item(|item| {
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
    for item in c.items(&kinds) {
        seen.push(match item? {
            Item::Thread(_) => continue,
            Item::ContextSwitch(cs) => seen_cs(&cs),
            Item::Record(r) => seen_record(&r),
            Item::Bookmark(b) => seen_bookmark(&b),
        });
    }
    Ok(())
}
