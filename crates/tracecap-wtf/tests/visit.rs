//! `Events::try_for_each_event` yields what the iterator yields, on every corpus file, on
//! prefixes of them and on single-byte mutations: the same events (header fields, definitions,
//! argument bytes, decoded values) and the same first error at the same offset.

mod common;

use common::{iterated, seen, visited};
use tracecap_testkit::Rng;
use tracecap_wtf::{Capture, Error, ErrorKind};

/// Both walks of `bytes` agree (nothing to compare when the header does not parse).
fn same(name: &str, bytes: &[u8]) {
    let Ok(trace) = Capture::parse(bytes) else {
        return;
    };
    let (a, ea) = iterated(&trace);
    let (b, eb) = visited(&trace);
    assert_eq!(a.len(), b.len(), "{name}: event counts");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "{name}");
    }
    assert_eq!(ea, eb, "{name}: errors");
}

#[test]
fn corpus_prefixes_and_mutations() {
    let files = common::traces();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for (name, bytes) in &files {
        same(name, bytes);
        let small = bytes.len() <= 8192;
        // Each walk formats every event: keep the multi-megabyte legacy traces to a few rounds.
        let (rounds, mutations) = match bytes.len() {
            0..=8192 => (0, 400),
            8193..=0xFFFFF => (12, 6),
            _ => (2, 1),
        };
        let cuts: Vec<usize> = if small {
            (0..bytes.len()).collect()
        } else {
            (0..rounds)
                .map(|_| (rng.next_u64() % bytes.len() as u64) as usize)
                .collect()
        };
        for cut in cuts {
            same(&format!("{name} cut at {cut:#x}"), &bytes[..cut]);
        }
        let mut m = bytes.clone();
        for _ in 0..mutations {
            let pos = (rng.next_u64() % bytes.len() as u64) as usize;
            let old = m[pos];
            m[pos] = match rng.next_u64() % 3 {
                0 => 0xFF,
                1 => 0,
                _ => old ^ (1 << (rng.next_u64() % 8)),
            };
            same(&format!("{name} byte {pos:#x} = {:#x}", m[pos]), &m);
            m[pos] = old;
        }
        eprintln!("{name}: both walks agree");
    }
}

/// An error returned by the closure stops the walk after that event; the walk then goes on from
/// the next event, whichever way it is driven.
#[test]
fn stopping_and_resuming() {
    for (name, bytes) in common::traces_where(|_, len| len < 1 << 20) {
        let trace = Capture::parse(&bytes).unwrap();
        let (all, _) = iterated(&trace);
        for stop in [0, 1, 7, all.len() / 2, all.len().saturating_sub(1)] {
            let mut walk = trace.events();
            let mut got = Vec::new();
            let stopped = Error::new(ErrorKind::BadSignature, 0);
            let r = walk.try_for_each_event(|ev| {
                got.push(seen(&ev));
                if got.len() > stop {
                    return Err(stopped);
                }
                Ok(())
            });
            assert_eq!(r.err(), (stop < all.len()).then_some(stopped), "{name}");
            got.extend(walk.map(|ev| seen(&ev.unwrap())));
            assert_eq!(got, all, "{name}: stop after {stop}");
        }
    }
}
