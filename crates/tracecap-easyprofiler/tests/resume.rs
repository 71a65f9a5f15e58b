//! `Items::try_for_each_item` stopped by its visitor leaves the walk where it stopped: the items
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
    c.items(&kinds).collect()
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
    let mut items = c.items(&kinds);
    let mut out = Vec::new();
    // The visitor keeps the item it stops on (the walk has consumed it).
    let visited = items.try_for_each_item(|item| {
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
            // A cut file too: the fault comes after the same items.
            let cut = &bytes[..bytes.len() * 2 / 3];
            assert_eq!(
                stop_and_resume(cut, k),
                all_items(cut),
                "{name} cut: stopped after {k} items"
            );
        }
    }
}
