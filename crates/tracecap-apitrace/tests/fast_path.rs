//! The one-pass readers (`Events::next_parsed`, `ChunkedReader::try_for_each_parsed`) on the
//! shapes their fast paths treat apart: events of up to and past `PARSED_DETAILS` details, the
//! short forms (one-byte argument index, float or one-byte integer, event heads of a few bytes)
//! next to their longer variants, varints of every length, events ending within the last eight
//! bytes of the stream or of a window, and damaged varints. Each must read as the two-pass
//! reader (`Events::next` then `Event::details`) reads it: same events, details and errors.
//! The same on every corpus trace and on random bytes (proptest), where `try_for_each_event`
//! (of `Events` and of `ChunkedReader`) must also give the events iterating gives.

use proptest::prelude::*;
use tracecap_apitrace::write::{WDetail, WValue, Writer};
use tracecap_apitrace::{decompress, ChunkedReader, SigTable, SliceSource, Stream};

mod common;
use common::{parsed_text, two_pass_text as two_pass};

/// Events and details as text, and the error that ended the stream.
type Text = (Vec<String>, Option<String>);

/// A value of each shape, cycling with `i`: short forms and their neighbours.
fn value(i: u64) -> WValue {
    match i % 14 {
        0 => WValue::Float(i as f32 * 0.25 - 3.0),
        1 => WValue::UInt(i % 0x80),
        2 => WValue::UInt(0x80 + i),
        3 => WValue::UInt(1 << (7 * (i % 10))),
        4 => WValue::SInt(-(i as i64)),
        5 => WValue::Null,
        6 => WValue::Bool(i % 2 == 0),
        7 => WValue::Double(i as f64 / 3.0),
        8 => WValue::Pointer(0x55d0_1234_5678 + i),
        9 => WValue::Pointer(u64::MAX - i),
        10 => WValue::Enum { sig: 1, value: 7 },
        11 => WValue::Array(vec![WValue::Float(1.5), WValue::UInt(i)]),
        12 => WValue::String(b"abc".to_vec()),
        _ => WValue::Float(f32::from_bits(0x8000_0001 + i as u32)),
    }
}

/// A version-6 stream: events of 0 to 40 details (arguments with small and large indexes,
/// return values, flags), call numbers and signature ids of one to four bytes, several threads.
fn stream() -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[]);
    w.enum_sig(1, &[(b"E", 7)]);
    for (k, id) in [3u64, 200, 5000, 20_000].into_iter().enumerate() {
        let args: Vec<Vec<u8>> = (0..40).map(|a| format!("a{a}").into_bytes()).collect();
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        w.function(id, format!("f{k}").as_bytes(), &args);
    }
    let mut open = Vec::new();
    let mut i = 0u64;
    for round in 0..300u64 {
        let n = [0, 1, 2, 3, 7, 15, 16, 17, 18, 40][(round % 10) as usize];
        let mut details: Vec<WDetail> = (0..n)
            .map(|a| {
                i += 1;
                // Mostly small indexes, some of two bytes.
                let index = if a % 9 == 8 { 130 + a } else { a };
                WDetail::Arg(index, value(i))
            })
            .collect();
        if round % 7 == 0 {
            details.push(WDetail::Flags(1));
        }
        let id = [3u64, 200, 5000, 20_000][(round % 4) as usize];
        let thread = if round % 5 == 4 { 300 } else { round % 3 };
        let call = w.enter(thread, id, &details);
        open.push(call);
        // Leaves lag behind (call numbers named out of order), with outputs and a return value.
        if round % 3 == 2 {
            while let Some(c) = open.pop() {
                i += 1;
                let mut d: Vec<WDetail> = (0..(c % 19))
                    .map(|a| WDetail::Arg(a, value(i + a)))
                    .collect();
                d.push(WDetail::Ret(value(i)));
                w.leave(c, &d);
            }
        }
    }
    // Many enters so that call numbers reach three bytes, then a last short event.
    for _ in 0..17_000 {
        let c = w.enter(0, 3, &[WDetail::Arg(0, WValue::Float(1.0))]);
        w.leave(c, &[]);
    }
    w.enter(0, 3, &[WDetail::Arg(1, WValue::UInt(2))]);
    w.finish()
}

/// Every event and its details as text, and the error: the one-pass reading over the whole
/// stream; also counts the events whose details were kept.
fn one_pass(stream: &[u8]) -> (Text, usize) {
    let mut out = Vec::new();
    let mut kept = 0;
    let trace = match Stream::parse(stream) {
        Ok(t) => t,
        Err(e) => return ((out, Some(e.to_string())), kept),
    };
    let mut events = trace.events();
    while let Some(p) = events.next_parsed() {
        match p {
            Ok(p) => {
                kept += usize::from(p.kept().is_some());
                out.extend(parsed_text(p));
            }
            Err(e) => return ((out, Some(e.to_string())), kept),
        }
    }
    ((out, None), kept)
}

/// The same through a window fed `piece` bytes at a time.
fn chunked(stream: &[u8], piece: usize) -> Text {
    let mut out = Vec::new();
    let mut r = ChunkedReader::new(SliceSource::new(stream, piece), SigTable::new());
    let err = r.try_for_each_parsed(|p| {
        out.extend(parsed_text(p));
        Ok(())
    });
    (out, err.err().map(|e| e.to_string()))
}

fn assert_same(what: &str, a: &Text, b: &Text) {
    let ((a, a_err), (b, b_err)) = (a, b);
    if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
        panic!("{what}: entry {i}: {} vs {}", a[i], b[i]);
    }
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    assert_eq!(a_err, b_err, "{what}: errors");
}

#[test]
fn one_pass_reads_every_shape_as_two_passes() {
    let s = stream();
    let two = two_pass(&s);
    let (one, kept) = one_pass(&s);
    assert_same("whole stream", &one, &two);
    // Most events went through the fast path with their details kept, but not those with
    // more details than the buffer holds.
    assert!(kept > 30_000, "only {kept} events kept their details");
    let total = two.0.iter().filter(|l| l.starts_with("Event")).count();
    assert!(kept < total);
    for piece in [1, 5, 8, 9, 64, 4096] {
        assert_same(&format!("pieces of {piece}"), &chunked(&s, piece), &two);
    }
}

#[test]
fn one_pass_agrees_on_every_prefix_and_on_damage() {
    let s = stream();
    // The first events hold every shape; their prefixes end anywhere, also inside the last
    // eight bytes the short forms read at once.
    let head = s.len().min(3000);
    for n in 0..head {
        let two = two_pass(&s[..n]);
        assert_same(&format!("prefix {n}"), &one_pass(&s[..n]).0, &two);
    }
    for n in s.len() - 64..=s.len() {
        let two = two_pass(&s[..n]);
        assert_same(&format!("prefix {n}"), &one_pass(&s[..n]).0, &two);
        assert_same(&format!("prefix {n}, pieces"), &chunked(&s[..n], 7), &two);
    }
    // Single bytes changed: overlong and overflowing varints, unknown tags, wrong lengths.
    let mut rng = tracecap_testkit::Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..800 {
        let x = rng.next_u64();
        let mut m = s[..head].to_vec();
        let at = (x as usize) % m.len();
        m[at] = match x >> 60 {
            0 => 0x00,
            1 => 0x80,
            2 => 0xff,
            _ => (x >> 32) as u8,
        };
        let two = two_pass(&m);
        assert_same(&format!("byte {at} changed"), &one_pass(&m).0, &two);
        assert_same(&format!("byte {at} changed, pieces"), &chunked(&m, 9), &two);
    }
}

/// The events (as debug text) and the error, given by `try_for_each_event` of the whole-stream
/// iterator and of the chunked reader (pieces of `piece` bytes).
fn closure_walks(stream: &[u8], piece: usize) -> [(Vec<String>, Option<String>); 2] {
    let mut whole = Vec::new();
    let whole_err = match Stream::parse(stream) {
        Ok(s) => s.events().try_for_each_event(|e| {
            whole.push(format!("{e:?}"));
            Ok(())
        }),
        Err(e) => Err(e),
    };
    let mut chunked = Vec::new();
    let mut r = ChunkedReader::new(SliceSource::new(stream, piece), SigTable::new());
    let chunked_err = r.try_for_each_event::<tracecap_apitrace::Error, _>(|e| {
        chunked.push(format!("{e:?}"));
        Ok(())
    });
    [
        (whole, whole_err.err().map(|e| e.to_string())),
        (chunked, chunked_err.err().map(|e| e.to_string())),
    ]
}

/// Every stream: one pass (whole and chunked) == two passes, closure walks == iterating.
fn agree(what: &str, stream: &[u8]) {
    let two = two_pass(stream);
    assert_same(what, &one_pass(stream).0, &two);
    assert_same(&format!("{what}, pieces"), &chunked(stream, 4096), &two);
    let events: Vec<String> = two
        .0
        .iter()
        .filter(|l| l.starts_with("Event"))
        .cloned()
        .collect();
    for (walk, err) in closure_walks(stream, 4096) {
        assert_eq!(walk, events, "{what}: closure walk");
        assert_eq!(err, two.1, "{what}: closure walk error");
    }
}

#[test]
fn fast_path_agrees_on_every_corpus_trace() {
    let files =
        tracecap_testkit::corpus_files("apitrace", &["apitrace-tests", "produced-apitrace-11.1"]);
    for (name, file) in files.iter().filter(|(n, _)| n.ends_with(".trace")) {
        let d = decompress(file).unwrap();
        agree(name, &d.data);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn fast_path_agrees_on_random_streams(head in 0usize..3000, bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        // A well-formed start (every shape), then anything.
        let mut s = stream();
        s.truncate(head);
        s.extend_from_slice(&bytes);
        agree("random", &s);
    }
}
