//! Walks a capture one way, for instruction counts (`valgrind --tool=callgrind`):
//! `cargo run --release -p tracecap-easyprofiler --example walk -- FILE [check|visit|scan]`
//!
//! `check` is what `tracecap validate` does ([`Summary::check`]); `visit` is the bench's
//! `full_walk_visit` (every field, every value element, nesting levels per thread); `scan` is
//! the same work through [`tracecap_easyprofiler::Items::visit`] (the bench's `full_walk_scan`).
use tracecap_easyprofiler::{
    Capture, Element, Error, FixedKindTable, Forest, Item, KindTable, Nest, NestSlot, Record,
    Summary, Visitor,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: walk FILE [check|visit|scan]");
    let mode = args.next().unwrap_or_else(|| "check".into());
    let bytes = std::fs::read(&path).expect("read input");
    let reps: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut slots = Vec::new();
    let mut best = f64::MAX;
    let mut out = 0;
    for _ in 0..reps {
        let start = std::time::Instant::now();
        out = match mode.as_str() {
            "check" => run_check(&bytes, &mut slots),
            "visit" => run_visit(&bytes, &mut slots),
            "scan" => run_scan(&bytes, &mut slots),
            "memcpy" => run_memcpy(&bytes),
            "bare" => run_bare(&bytes, &mut slots),
            _ => panic!("unknown mode {mode}"),
        };
        best = best.min(start.elapsed().as_secs_f64());
    }
    let gib = bytes.len() as f64 / best / f64::from(1 << 30);
    println!(
        "{mode}: {out:#x}, best of {reps}: {:.2} ms, {gib:.2} GiB/s",
        best * 1e3
    );
}

#[inline(never)]
fn run_memcpy(bytes: &[u8]) -> u64 {
    let copy = std::hint::black_box(bytes.to_vec());
    copy.len() as u64
}

#[inline(never)]
fn run_check(bytes: &[u8], slots: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let s = Summary::check(&c, &kinds, slots).unwrap();
    s.records() ^ u64::from(s.levels)
}

/// The bench's `full_walk_visit`.
#[inline(never)]
fn run_visit(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut forest = Forest::with_clock(stack, c.header().clock());
    let mut acc = 0u64;
    c.items(&kinds)
        .try_for_each_item(|item| {
            match item {
                Item::Thread(t) => {
                    acc = acc.wrapping_add(u64::from(forest.levels()) ^ t.id);
                    forest.clear();
                }
                Item::ContextSwitch(cs) => {
                    acc = acc.wrapping_add(cs.begin ^ cs.end ^ cs.target_thread)
                }
                Item::Record(r) => {
                    forest.push(r.begin(), r.end()).unwrap();
                    match r {
                        Record::Block(b) => {
                            acc = acc.wrapping_add(
                                b.begin ^ b.end ^ u64::from(b.id) ^ b.name.len() as u64,
                            )
                        }
                        Record::Value(v) => {
                            acc = acc.wrapping_add(v.time ^ v.value_id);
                            for e in v.elements() {
                                acc = acc.wrapping_add(element_bits(e));
                            }
                        }
                    }
                }
                Item::Bookmark(b) => acc = acc.wrapping_add(b.position),
            }
            Ok(())
        })
        .unwrap();
    acc.wrapping_add(u64::from(forest.levels()))
}

#[inline(always)]
fn element_bits(e: Element) -> u64 {
    match e {
        Element::Int32(x) => x as u64,
        Element::Double(x) => x.to_bits(),
        Element::Uint8(x) => u64::from(x),
        _ => 1,
    }
}

/// The bench's `full_walk_scan`.
#[inline(never)]
fn run_scan(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = ScanWalker { acc: 0, levels: 0 };
    c.items(&kinds).visit(stack, &mut w).unwrap();
    w.acc.wrapping_add(u64::from(w.levels))
}

struct ScanWalker {
    acc: u64,
    levels: u32,
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
                self.acc = v
                    .elements()
                    .fold(acc, |acc, e| acc.wrapping_add(element_bits(e)));
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

/// The loop alone: a visitor that keeps only the levels.
#[inline(never)]
fn run_bare(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    struct Bare(u32);
    impl<'a> Visitor<'a> for Bare {
        #[inline(always)]
        fn record(&mut self, _: Record<'a>, nest: Nest) -> Result<(), Error> {
            self.0 = self.0.max(nest.height);
            Ok(())
        }
    }
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = Bare(0);
    c.items(&kinds).visit(stack, &mut w).unwrap();
    u64::from(w.0)
}
