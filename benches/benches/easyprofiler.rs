//! EasyProfiler: walk every record of a ~64 MB synthetic capture (all fields, values decoded,
//! nesting rebuilt), against memcpy of the same bytes in the same group.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tracecap_easyprofiler::write::Model;
use tracecap_easyprofiler::{Capture, Element, FixedKindTable, Forest, Item, NestSlot, Record};

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
                            self.acc = self.acc.wrapping_add(match e {
                                Element::Int32(x) => x as u64,
                                Element::Double(x) => x.to_bits(),
                                Element::Uint8(x) => u64::from(x),
                                _ => 1,
                            });
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

fn bench(c: &mut Criterion) {
    let bytes = Model::synthetic(64 << 20).to_bytes().unwrap();
    let mut slots = Vec::new();
    let mut group = c.benchmark_group("easyprofiler");
    tracecap_benches::memcpy_baseline(&mut group, &bytes);
    group.bench_function("full_walk", |b| {
        b.iter(|| full_walk(black_box(&bytes), &mut slots))
    });
    group.bench_function("full_walk_visit", |b| {
        b.iter(|| full_walk_visit(black_box(&bytes), &mut slots))
    });
    group.bench_function("depth_walk", |b| {
        b.iter(|| depth_walk(black_box(&bytes), &mut slots))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
