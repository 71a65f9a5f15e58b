//! EasyProfiler: walk every record (all fields, values decoded, nesting rebuilt) of two ~64 MB
//! captures, one synthetic (random trees) and one made of a real capture's records repeated,
//! three ways, against memcpy of the same bytes in the same group.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tracecap_easyprofiler::write::Model;
use tracecap_easyprofiler::{
    Capture, Element, Error, FixedKindTable, Forest, Item, Nest, NestSlot, Record, Visitor,
};

/// Touches every field of every record, decodes every value element and rebuilds the nesting
/// (levels per thread), in one pass over the bytes.
fn full_walk(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = Walker::new(&c, stack);
    for item in c.items(&kinds) {
        w.visit(item.unwrap());
    }
    w.finish()
}

/// The same work as [`full_walk`] through [`tracecap_easyprofiler::Items::try_for_each_item`].
fn full_walk_visit(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = Walker::new(&c, stack);
    c.items(&kinds)
        .try_for_each_item(|item| {
            w.visit(item);
            Ok(())
        })
        .unwrap();
    w.finish()
}

/// The same work as [`full_walk`] through [`tracecap_easyprofiler::Items::visit`], which reads
/// the records and rebuilds the nesting in one loop per thread.
fn full_walk_scan(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = ScanWalker::new(&c);
    c.items(&kinds).visit(stack, &mut w).unwrap();
    w.acc.wrapping_add(u64::from(w.levels))
}

/// [`Walker`] as a [`Visitor`]: the nesting comes with each record.
struct ScanWalker {
    acc: u64,
    /// Levels of the current thread so far.
    levels: u32,
}

impl ScanWalker {
    fn new(c: &Capture<'_>) -> Self {
        let mut acc = 0u64;
        for d in c.descriptors() {
            let d = d.unwrap();
            acc = acc.wrapping_add(d.name.len() as u64 + d.file.len() as u64);
        }
        ScanWalker { acc, levels: 0 }
    }
}

impl<'a> Visitor<'a> for ScanWalker {
    #[inline(always)]
    fn record(&mut self, r: Record<'a>, nest: Nest) -> Result<(), Error> {
        self.levels = self.levels.max(nest.height);
        match r {
            Record::Block(b) => {
                self.acc = self
                    .acc
                    .wrapping_add(b.begin ^ b.end ^ u64::from(b.id) ^ b.name.len() as u64)
            }
            Record::Value(v) => {
                let acc = self.acc.wrapping_add(v.time ^ v.value_id);
                self.acc = v.elements().fold(acc, |acc, e| acc.wrapping_add(bits(e)));
            }
        }
        Ok(())
    }

    fn item(&mut self, item: Item<'a>) -> Result<(), Error> {
        match item {
            Item::Thread(t) => {
                self.acc = self.acc.wrapping_add(u64::from(self.levels) ^ t.id);
                self.levels = 0;
            }
            Item::ContextSwitch(cs) => {
                self.acc = self.acc.wrapping_add(cs.begin ^ cs.end ^ cs.target_thread)
            }
            Item::Bookmark(b) => self.acc = self.acc.wrapping_add(b.position),
            Item::Record(_) => {}
        }
        Ok(())
    }
}

/// What the walks add for a value element.
#[inline(always)]
fn bits(e: Element) -> u64 {
    match e {
        Element::Int32(x) => x as u64,
        Element::Double(x) => x.to_bits(),
        Element::Uint8(x) => u64::from(x),
        _ => 1,
    }
}

/// Reads every field of every item (values decoded) and rebuilds the nesting.
struct Walker<'s> {
    forest: Forest<'s, Vec<NestSlot>>,
    acc: u64,
}

impl<'s> Walker<'s> {
    fn new(c: &Capture<'_>, stack: &'s mut Vec<NestSlot>) -> Self {
        let mut acc = 0u64;
        for d in c.descriptors() {
            let d = d.unwrap();
            acc = acc.wrapping_add(d.name.len() as u64 + d.file.len() as u64);
        }
        Walker {
            // Nesting compares times as their nanosecond values, as upstream does; the clock
            // converts only when two raw timestamps are close enough to round together.
            forest: Forest::with_clock(stack, c.header().clock()),
            acc,
        }
    }

    #[inline(always)]
    fn visit(&mut self, item: Item<'_>) {
        match item {
            Item::Thread(t) => {
                self.acc = self
                    .acc
                    .wrapping_add(u64::from(self.forest.levels()) ^ t.id);
                self.forest.clear();
            }
            Item::ContextSwitch(cs) => {
                self.acc = self.acc.wrapping_add(cs.begin ^ cs.end ^ cs.target_thread)
            }
            Item::Record(r) => {
                self.forest.push(r.begin(), r.end()).unwrap();
                match r {
                    Record::Block(b) => {
                        self.acc = self
                            .acc
                            .wrapping_add(b.begin ^ b.end ^ u64::from(b.id) ^ b.name.len() as u64)
                    }
                    Record::Value(v) => {
                        self.acc = self.acc.wrapping_add(v.time ^ v.value_id);
                        for e in v.elements() {
                            self.acc = self.acc.wrapping_add(bits(e));
                        }
                    }
                }
            }
            Item::Bookmark(b) => self.acc = self.acc.wrapping_add(b.position),
        }
    }

    fn finish(self) -> u64 {
        self.acc.wrapping_add(u64::from(self.forest.levels()))
    }
}

fn depth_walk(bytes: &[u8], slots: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut acc = 0u64;
    for t in c.threads() {
        let t = t.unwrap();
        slots.resize(t.records_count() as usize, NestSlot::default());
        let tree = c.nest(&t, &kinds, slots).unwrap();
        for (i, r) in t.records(&kinds).enumerate() {
            let r = r.unwrap();
            acc = acc.wrapping_add(r.begin() ^ u64::from(tree.depth(i).unwrap()));
        }
    }
    acc
}

/// The walks of one capture against memcpy, in one group.
fn walks(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let mut slots = Vec::new();
    // The walks do the same work: same result.
    let want = full_walk(bytes, &mut slots);
    assert_eq!(full_walk_visit(bytes, &mut slots), want);
    assert_eq!(full_walk_scan(bytes, &mut slots), want);
    let mut group = c.benchmark_group(name);
    tracecap_benches::memcpy_baseline(&mut group, bytes);
    group.bench_function("full_walk", |b| {
        b.iter(|| full_walk(black_box(bytes), &mut slots))
    });
    group.bench_function("full_walk_visit", |b| {
        b.iter(|| full_walk_visit(black_box(bytes), &mut slots))
    });
    group.bench_function("full_walk_scan", |b| {
        b.iter(|| full_walk_scan(black_box(bytes), &mut slots))
    });
    group.bench_function("depth_walk", |b| {
        b.iter(|| depth_walk(black_box(bytes), &mut slots))
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    // Random trees and record kinds: the worst case for the branch predictor.
    walks(
        c,
        "easyprofiler",
        &Model::synthetic(64 << 20).to_bytes().unwrap(),
    );
    // The records of a real capture (profiler_sample's, from the corpus) repeated to 64 MiB.
    match tracecap_testkit::corpus("easyprofiler") {
        Some(dir) => {
            let real = std::fs::read(dir.join("sample_medium.prof")).unwrap();
            let model = Model::read(&real).unwrap().repeated(64 << 20).unwrap();
            walks(c, "easyprofiler_real", &model.to_bytes().unwrap());
        }
        None => eprintln!("corpus not found: easyprofiler_real skipped"),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
