//! `Events::try_for_each_event` and `Events::visit` stopped by their visitor leaves the walk where it stopped: the items
//! after it come from the iterator (or another visit) exactly as in an uninterrupted walk.

mod common;

use tracecap_easyprofiler::*;

/// Every item of `bytes` with its offset, as the plain iterator yields them (faults included).
fn all_items(bytes: &[u8]) -> Vec<Result<Item<'_>, Error>> {
    let Ok(c) = Capture::parse(bytes) else {
        return vec![];
    };
    let Ok(kinds) = KindTable::new(&c) else {
        return vec![];
    };
    c.events_with(&kinds).collect()
}

/// The items seen when a visit stops at its `k`-th item and the iterator takes over.
fn stop_and_resume(bytes: &[u8], k: usize) -> Vec<Result<Item<'_>, Error>> {
    let Ok(c) = Capture::parse(bytes) else {
        return vec![];
    };
    let Ok(kinds) = KindTable::new(&c) else {
        return vec![];
    };
    let stop = Error::new(ErrorKind::TrailingBytes(u64::MAX), u64::MAX);
    let mut items = c.events_with(&kinds);
    let mut out = Vec::new();
    // The visitor keeps the item it stops on (the walk has consumed it).
    let visited = items.try_for_each_event(|item| {
        out.push(Ok(item));
        if out.len() == k {
            return Err(stop);
        }
        Ok(())
    });
    match visited {
        Err(e) if e == stop => out.extend(items),
        Err(e) => out.push(Err(e)),
        Ok(()) => {}
    }
    out
}

/// The same when `Events::visit` stops at its `k`-th item (a record or anything else).
fn stop_nested_and_resume(bytes: &[u8], k: usize) -> Vec<Result<Item<'_>, Error>> {
    struct Stop<'a, 'o> {
        out: &'o mut Vec<Result<Item<'a>, Error>>,
        k: usize,
    }
    impl<'a> Stop<'a, '_> {
        fn keep(&mut self, item: Item<'a>) -> Result<(), Error> {
            self.out.push(Ok(item));
            if self.out.len() == self.k {
                return Err(Error::new(ErrorKind::TrailingBytes(u64::MAX), u64::MAX));
            }
            Ok(())
        }
    }
    impl<'a> Visitor<'a> for Stop<'a, '_> {
        fn record(&mut self, record: Record<'a>, _: Nest) -> Result<(), Error> {
            self.keep(Item::Record(record))
        }
        fn item(&mut self, item: Item<'a>) -> Result<(), Error> {
            self.keep(item)
        }
    }
    let Ok(c) = Capture::parse(bytes) else {
        return vec![];
    };
    let Ok(kinds) = KindTable::new(&c) else {
        return vec![];
    };
    let mut items = c.events_with(&kinds);
    let mut out = Vec::new();
    let visited = items.visit(&mut Vec::new(), &mut Stop { out: &mut out, k });
    match visited {
        Err(e) if e.offset == u64::MAX => out.extend(items),
        Err(e) => out.push(Err(e)),
        Ok(()) => {}
    }
    out
}

#[test]
fn a_stopped_visit_resumes_where_it_stopped() {
    for (name, bytes) in common::prof_files() {
        let full = all_items(&bytes);
        let n = full.len();
        let mut stops: Vec<usize> = (1..n.min(40)).collect();
        stops.extend((1..n).step_by((n / 50).max(1)));
        stops.push(n);
        for k in stops {
            assert_eq!(
                stop_and_resume(&bytes, k),
                full,
                "{name}: stopped after {k} items"
            );
            assert_eq!(
                stop_nested_and_resume(&bytes, k),
                full,
                "{name}: nested visit stopped after {k} items"
            );
            // A cut file too: the fault comes after the same items.
            let cut = &bytes[..bytes.len() * 2 / 3];
            assert_eq!(
                stop_and_resume(cut, k),
                all_items(cut),
                "{name} cut: stopped after {k} items"
            );
            assert_eq!(
                stop_nested_and_resume(cut, k),
                all_items(cut),
                "{name} cut: nested visit stopped after {k} items"
            );
        }
    }
}
