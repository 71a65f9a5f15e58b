//! The EasyProfiler walks the bench times, shared with `examples/easyprofiler_walk.rs` (included
//! with `#[path]`): each touches every field of every record, decodes every value element and
//! rebuilds the nesting (levels per thread), and all return the same digest.

use tracecap_easyprofiler::{
    Capture, Clock, Element, Error, FixedKindTable, Forest, Item, Nest, NestSlot, PushItem,
    PushParser, Pushed, Record, Visitor,
};

/// Touches every field of every record, decodes every value element and rebuilds the nesting
/// (levels per thread), in one pass over the bytes.
pub fn full_walk(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = Walker::new(&c, stack);
    for item in c.events_with(&kinds) {
        w.visit(item.unwrap());
    }
    w.finish()
}

/// The same work as [`full_walk`] through the push parser, fed the bytes in 64 KiB pieces through
/// `buffer`, as a caller reading a socket does: append a piece, parse until `NeedMore`, then drop
/// the consumed bytes in one drain.
#[allow(dead_code)] // timed by the bench only
pub fn push_walk(bytes: &[u8], stack: &mut Vec<NestSlot>, buffer: &mut Vec<u8>) -> u64 {
    const PIECE: usize = 64 << 10;
    let mut parser = PushParser::new();
    let mut stack = Some(stack);
    let mut walker: Option<Walker<'_>> = None;
    buffer.clear();
    let (mut start, mut fed) = (0, 0);
    loop {
        match parser.parse(&buffer[start..], fed == bytes.len()).unwrap() {
            Pushed::Item { consumed, item } => {
                start += consumed;
                match (item, walker.as_mut()) {
                    (PushItem::Item(item), Some(w)) => w.visit(item),
                    (PushItem::Descriptor(d), Some(w)) => {
                        w.acc = w
                            .acc
                            .wrapping_add(d.name.len() as u64 + d.file.len() as u64)
                    }
                    (PushItem::Header(h), None) => {
                        walker = stack.take().map(|s| Walker::with_clock(s, h.clock()))
                    }
                    _ => {}
                }
            }
            Pushed::NeedMore { .. } => {
                buffer.drain(..start);
                start = 0;
                let n = PIECE.min(bytes.len() - fed);
                buffer.extend_from_slice(&bytes[fed..fed + n]);
                fed += n;
            }
            Pushed::End => break,
        }
    }
    walker.map_or(0, Walker::finish)
}

/// [`push_walk`] with a caller that parses each 64 KiB piece where it lies and copies into
/// `carry` only the bytes of a part that straddles two pieces (the hint of `NeedMore` says how many
/// more it needs): what a caller handed owned pieces (a channel of buffers) can do.
#[allow(dead_code)] // timed by the bench only
pub fn push_walk_in_place(bytes: &[u8], stack: &mut Vec<NestSlot>, carry: &mut Vec<u8>) -> u64 {
    let mut parser = PushParser::new();
    let mut stack = Some(stack);
    let mut walker: Option<Walker<'_>> = None;
    let mut pieces = bytes.chunks(64 << 10);
    let mut piece: &[u8] = &[];
    carry.clear();
    loop {
        // `carry` then `piece` are the bytes from `parser.offset()` on.
        let eof = piece.is_empty() && pieces.len() == 0;
        let in_carry = !carry.is_empty();
        let data = if in_carry { &carry[..] } else { piece };
        match parser.parse(data, eof).unwrap() {
            Pushed::Item { consumed, item } => {
                match (item, walker.as_mut()) {
                    (PushItem::Item(item), Some(w)) => w.visit(item),
                    (PushItem::Descriptor(d), Some(w)) => {
                        w.acc = w
                            .acc
                            .wrapping_add(d.name.len() as u64 + d.file.len() as u64)
                    }
                    (PushItem::Header(h), None) => {
                        walker = stack.take().map(|s| Walker::with_clock(s, h.clock()))
                    }
                    _ => {}
                }
                if in_carry {
                    carry.drain(..consumed);
                } else {
                    piece = &piece[consumed..];
                }
            }
            Pushed::NeedMore { hint } if in_carry && !piece.is_empty() => {
                let n = (hint.unwrap_or(1) as usize).clamp(1, piece.len());
                carry.extend_from_slice(&piece[..n]);
                piece = &piece[n..];
            }
            Pushed::NeedMore { .. } => {
                carry.extend_from_slice(piece);
                piece = pieces.next().unwrap_or(&[]);
            }
            Pushed::End => break,
        }
    }
    walker.map_or(0, Walker::finish)
}

/// The same work as [`full_walk`] through [`tracecap_easyprofiler::Events::try_for_each_event`].
pub fn full_walk_visit(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = Walker::new(&c, stack);
    c.events_with(&kinds)
        .try_for_each_event::<tracecap_easyprofiler::Error, _>(|item| {
            w.visit(item);
            Ok(())
        })
        .unwrap();
    w.finish()
}

/// The same work as [`full_walk`] through [`tracecap_easyprofiler::Events::visit`], which reads
/// the records and rebuilds the nesting in one loop per thread.
pub fn full_walk_scan(bytes: &[u8], stack: &mut Vec<NestSlot>) -> u64 {
    let c = Capture::parse(bytes).unwrap();
    let kinds = FixedKindTable::<256>::new(&c).unwrap();
    let mut w = ScanWalker::new(&c);
    c.events_with(&kinds).visit(stack, &mut w).unwrap();
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
        self.acc = digest(self.acc, &r);
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

/// What the walks add for a record: every field, every value element.
#[inline(always)]
fn digest(acc: u64, r: &Record<'_>) -> u64 {
    match r {
        Record::Block(b) => {
            acc.wrapping_add(b.begin ^ b.end ^ u64::from(b.id) ^ b.name.len() as u64)
        }
        Record::Value(v) => v
            .elements()
            .fold(acc.wrapping_add(v.time ^ v.value_id), |acc, e| {
                acc.wrapping_add(bits(e))
            }),
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
        let mut w = Walker::with_clock(stack, c.header().clock());
        for d in c.descriptors() {
            let d = d.unwrap();
            w.acc = w
                .acc
                .wrapping_add(d.name.len() as u64 + d.file.len() as u64);
        }
        w
    }

    /// A walker before the descriptors, for a capture of this clock.
    fn with_clock(stack: &'s mut Vec<NestSlot>, clock: Clock) -> Self {
        Walker {
            // Nesting compares times as their nanosecond values, as upstream does; the clock
            // converts only when two raw timestamps are close enough to round together.
            forest: Forest::with_clock(stack, clock),
            acc: 0,
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
                self.acc = digest(self.acc, &r);
            }
            Item::Bookmark(b) => self.acc = self.acc.wrapping_add(b.position),
        }
    }

    fn finish(self) -> u64 {
        self.acc.wrapping_add(u64::from(self.forest.levels()))
    }
}

pub fn depth_walk(bytes: &[u8], slots: &mut Vec<NestSlot>) -> u64 {
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
