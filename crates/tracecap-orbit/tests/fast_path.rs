//! The event iterator's fast path (one-byte length, one member that fills the message) gives
//! exactly what the general path gives: the reference walk below frames with
//! `Events::next_raw` and classifies with `Event::classify`, and both walks must return the same
//! events, the same error at the same offset and end at the same position. Checked on the
//! corpus, its prefixes and mutations, and on generated sections full of near misses.
//! `Events::try_for_each_event` is checked against iterating on the same inputs.

use proptest::prelude::*;
use tracecap_orbit::{Capture, Error, Event, EventKind};
use tracecap_testkit::Rng;

#[derive(Debug, PartialEq)]
struct Walk<'a> {
    items: Vec<Result<Event<'a>, Error>>,
    position: u64,
    finished: bool,
}

/// The iterator as users call it.
fn iterated<'a>(capture: &Capture<'a>) -> Walk<'a> {
    let mut events = capture.events();
    let items = events.by_ref().collect();
    Walk {
        items,
        position: events.position(),
        finished: events.finished(),
    }
}

/// The general path alone.
fn reference<'a>(capture: &Capture<'a>) -> Walk<'a> {
    let mut events = capture.events();
    let mut items = Vec::new();
    let mut finished = false;
    while let Some(framed) = events.next_raw() {
        let item = framed.and_then(|f| Event::classify(f.message, f.offset, f.message_offset));
        let stop = match &item {
            Ok(ev) => ev.kind == EventKind::CaptureFinished,
            Err(_) => true,
        };
        finished = matches!(&item, Ok(ev) if ev.kind == EventKind::CaptureFinished);
        items.push(item);
        if stop {
            break;
        }
    }
    Walk {
        items,
        position: events.position(),
        finished,
    }
}

/// `Events::try_for_each_event`, which must give what iterating gives.
fn closure_walk<'a>(capture: &Capture<'a>) -> Walk<'a> {
    let mut events = capture.events();
    let mut items = Vec::new();
    if let Err(e) = events.try_for_each_event::<tracecap_orbit::Error, _>(|ev| {
        items.push(Ok(ev));
        Ok(())
    }) {
        items.push(Err(e));
    }
    Walk {
        items,
        position: events.position(),
        finished: events.finished(),
    }
}

fn same_walks(data: &[u8], what: &str) {
    if let Ok(capture) = Capture::parse(data) {
        let iterated = iterated(&capture);
        assert_eq!(iterated, reference(&capture), "{what}");
        assert_eq!(closure_walk(&capture), iterated, "{what}: closure walk");
    }
}

const HEADER: &[u8; 24] = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";

#[test]
fn corpus_prefixes_and_mutations() {
    let files = tracecap_testkit::corpus_files("orbit", &["real", "generated"]);
    let mut walked = 0usize;
    for (name, data) in &files {
        same_walks(data, name);
        let mut rng = Rng(0x0fa5 ^ data.len() as u64);
        // Prefixes: every length for small files, a sample for big ones.
        let cuts: Vec<usize> = if data.len() <= 20_000 {
            (0..=data.len()).collect()
        } else {
            (0..2000)
                .map(|_| (rng.next_u64() % data.len() as u64) as usize)
                .collect()
        };
        for cut in cuts {
            same_walks(&data[..cut], &format!("{name} cut at {cut}"));
        }
        // One to three bytes changed, mostly to values the fast path treats specially.
        let special = [
            0x00, 0x01, 0x02, 0x03, 0x0a, 0x7f, 0x80, 0x81, 0x82, 0xda, 0xff,
        ];
        for _ in 0..2000 {
            let mut m = data.clone();
            if m.is_empty() {
                break;
            }
            for _ in 0..1 + rng.next_u64() % 3 {
                let at = (rng.next_u64() % m.len() as u64) as usize;
                m[at] = if rng.next_u64() % 2 == 0 {
                    special[(rng.next_u64() % special.len() as u64) as usize]
                } else {
                    rng.next_u64() as u8
                };
            }
            same_walks(&m, &format!("{name} mutated"));
        }
        walked += 1;
    }
    eprintln!("fast path checked on {walked} corpus files");
}

#[test]
fn hand_picked_shapes() {
    // Each event alone, then CaptureFinished.
    let cases: &[&[u8]] = &[
        &[2, 0x0a, 0],                      // callstack_sample{}: one-byte key, empty payload
        &[3, 0x82, 0x01, 0],                // address_info{}: two-byte key, empty payload
        &[4, 0x0a, 2, 0x08, 1],             // callstack_sample{pid: 1}
        &[4, 0x8a, 0x00, 1, 0x08],          // callstack_sample, key written in two bytes
        &[3, 0x82, 0x00, 0],                // field 0 (invalid) in a two-byte key
        &[3, 0x4a, 1, 0x08],                // field 9 (removed kind): NotSet
        &[3, 0x08, 1, 0],                   // field 1 as a varint: wrong wire type
        &[4, 0x82, 0x81, 0x01, 0],          // a three-byte key
        &[4, 0x0a, 3, 0x08, 1],             // payload length past the message
        &[5, 0x0a, 1, 0x08, 0x10, 1],       // two fields: member then an unknown varint
        &[6, 0x0a, 1, 0x08, 0x0a, 1, 0x10], // the member twice (split)
        &[0x80, 0x01],                      // non-minimal length prefix of an empty message
        &[0],                               // empty message
        &[0x7f, 0x0a, 0x7d],                // payload length 125 but the message is cut short
        &[2, 0x0a, 0x80],                   // payload length varint cut by the message end
        &[0xff, 0xff, 0xff, 0xff, 0x0f],    // a length of 4 GiB - 1
        &[
            0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
        ], // 11-byte varint
    ];
    let finished: &[u8] = &[3, 0xda, 0x01, 0];
    for case in cases {
        for tail in [&[][..], finished, &[0, 0, 0, 0, 0, 0, 0, 0]] {
            let mut f = HEADER.to_vec();
            f.extend_from_slice(case);
            f.extend_from_slice(tail);
            for cut in HEADER.len()..=f.len() {
                same_walks(
                    &f[..cut],
                    &format!("{case:02x?} + {tail:02x?} cut at {cut}"),
                );
            }
        }
    }
}

/// One event-like frame with optional damage: a key (maybe non-minimal, maybe another wire
/// type), a payload length and a length prefix that may be off by a little.
fn frame(
    field: u32,
    wire: u32,
    long_key: bool,
    payload: &[u8],
    payload_len_delta: i8,
    len_delta: i8,
) -> Vec<u8> {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let mut message = Vec::new();
    varint(u64::from(field << 3 | wire), &mut message);
    if long_key {
        let last = message.len() - 1;
        message[last] |= 0x80;
        message.push(0);
    }
    let plen = (payload.len() as i64 + i64::from(payload_len_delta)).max(0) as u64;
    varint(plen, &mut message);
    message.extend_from_slice(payload);
    let mut out = Vec::new();
    let len = (message.len() as i64 + i64::from(len_delta)).max(0) as u64;
    varint(len, &mut out);
    out.extend_from_slice(&message);
    out
}

fn frame_strategy() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![0u32..=52, Just(27u32), 53u32..=200],
        prop_oneof![8 => Just(2u32), 1 => 0u32..=7],
        prop::bool::weighted(0.1),
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..8),
            prop::collection::vec(any::<u8>(), 120..140)
        ],
        prop_oneof![8 => Just(0i8), 1 => -2i8..=2],
        prop_oneof![8 => Just(0i8), 1 => -2i8..=2],
    )
        .prop_map(|(field, wire, long_key, payload, pd, ld)| {
            frame(field, wire, long_key, &payload, pd, ld)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn generated_sections(frames in prop::collection::vec(frame_strategy(), 0..12), cut in any::<u16>()) {
        let mut f = HEADER.to_vec();
        for fr in &frames {
            f.extend_from_slice(fr);
        }
        let whole = f.len();
        same_walks(&f, "whole");
        let cut = HEADER.len() + usize::from(cut) % (whole - HEADER.len() + 1);
        same_walks(&f[..cut], "cut");
    }
}
