//! The entry walk's fast path (a whole syscall segment read in one pass) gives exactly what the
//! precise path gives: the reference walk below reads every segment the precise way (a checked
//! reader for tag, length, payload and padding, then `Syscall::parse`), and both walks must return
//! the same entries, the same first error at the same offset, and `Capture::events` with
//! `Events::try_for_each_event` the same records. Checked on every corpus file, its prefixes and
//! mutations, and on generated captures with damage.

use proptest::prelude::*;
use tracecap_syscall::write::{ArgModel, CaptureModel, EntryModel, HeaderModel, SyscallModel};
use tracecap_syscall::{
    detect, Capture, Entry, Error, ErrorKind, Filler, Gap, Header, SharedKind, Syscall,
    MAX_GAP_LEN, SEGMENT_FILLER, SEGMENT_HOST_INFO, SEGMENT_SYSCALL,
};
use tracecap_testkit::Rng;
use tracecap_wire::{padding_to, Endian, Reader};

/// One step of the precise path: the entry at the front of `r`.
fn precise_step<'a>(r: &mut Reader<'a>, endian: &mut Endian) -> Result<Entry<'a>, Error> {
    let rest = r.rest();
    let offset = r.offset();
    if detect(rest) {
        let h = Header::parse_at(rest, offset)?;
        r.skip(usize::try_from(h.len).unwrap())
            .map_err(|_| Error::truncated("file header", offset, h.len, rest.len() as u64))?;
        *endian = h.endian;
        return Ok(Entry::Header(h));
    }
    let zero_words = rest
        .chunks_exact(4)
        .take(MAX_GAP_LEN as usize / 4 + 1)
        .take_while(|w| w.iter().all(|&b| b == 0))
        .count();
    if zero_words > MAX_GAP_LEN as usize / 4 {
        return Err(Error::new(ErrorKind::LongZeroRun, offset));
    }
    if zero_words > 0 {
        r.skip(zero_words * 4).unwrap();
        return Ok(Entry::Gap(Gap {
            offset,
            len: zero_words as u64 * 4,
        }));
    }
    let available = rest.len() as u64;
    let mut cur = *r;
    let (Ok(tag), Ok(len)) = (cur.u32(*endian), cur.u32(*endian)) else {
        return Err(Error::truncated("segment", offset, 8, available));
    };
    let value_at = offset + 8;
    let pad = padding_to(value_at + u64::from(len), 4);
    let needed = 8 + u64::from(len) + pad;
    if needed > available {
        return Err(Error::truncated("segment", offset, needed, available));
    }
    let payload = cur.sub(u64::from(len)).unwrap();
    if cur.bytes_u64(pad).unwrap().iter().any(|&b| b != 0) {
        return Err(Error::new(
            SharedKind::NonZeroPadding { what: "segment" }.into(),
            value_at + u64::from(len),
        ));
    }
    *r = cur;
    match tag {
        SEGMENT_SYSCALL => Syscall::parse(offset, payload, *endian).map(Entry::Syscall),
        SEGMENT_FILLER => Ok(Entry::Filler(Filler {
            offset,
            len: u64::from(len),
        })),
        SEGMENT_HOST_INFO => Err(Error::new(ErrorKind::StrayHostInfo, offset)),
        tag => Err(Error::new(ErrorKind::UnknownSegment(tag), offset)),
    }
}

/// The precise path alone, as text (entries are compared by every field and argument).
fn reference(capture: &Capture<'_>, data: &[u8]) -> Vec<String> {
    let h = capture.header();
    let start = h.len as usize;
    let mut r = Reader::at(&data[start..], h.len);
    let mut endian = h.endian;
    let mut out = Vec::new();
    while !r.is_empty() {
        let e = precise_step(&mut r, &mut endian);
        let stop = e.is_err();
        out.push(print(e));
        if stop {
            break;
        }
    }
    out
}

fn print(e: Result<Entry<'_>, Error>) -> String {
    match e {
        Ok(Entry::Syscall(s)) => format!("{s:?} {:?}", s.args().collect::<Vec<_>>()),
        other => format!("{other:?}"),
    }
}

/// Both walks of `data` agree, and so do the record iterator and its closure walk.
fn same(data: &[u8], what: &str) {
    let Ok(capture) = Capture::parse(data) else {
        return;
    };
    let walked: Vec<String> = capture.entries().map(print).collect();
    assert_eq!(walked, reference(&capture, data), "{what}");

    let iterated: Vec<String> = capture
        .events()
        .map(|s| print(s.map(Entry::Syscall)))
        .collect();
    let mut visited = Vec::new();
    let end = capture.events().try_for_each_event(|s| {
        visited.push(print(Ok(Entry::Syscall(s))));
        Ok(())
    });
    if let Err(e) = end {
        visited.push(print(Err(e)));
    }
    assert_eq!(iterated, visited, "{what}: events");
}

#[test]
fn corpus_prefixes_and_mutations() {
    let files = tracecap_testkit::corpus_files("syscall", &["."]);
    let mut rng = Rng(0x5eed_fa57);
    for (name, data) in files.iter().filter(|(n, _)| n.ends_with(".dat")) {
        same(data, name);
        // Each walk of a big file in a debug build takes a while: fewer damaged copies of those.
        let copies = if data.len() > 100_000 { 4 } else { 40 };
        for _ in 0..copies {
            let cut = rng.below(data.len() + 1);
            same(&data[..cut], &format!("{name} cut at {cut}"));
        }
        let mut bad = data.clone();
        for _ in 0..copies {
            if bad.is_empty() {
                break;
            }
            let at = rng.below(bad.len());
            let old = bad[at];
            bad[at] = rng.next_u64() as u8;
            same(&bad, &format!("{name} byte {at}"));
            bad[at] = old;
        }
    }
}

fn capture() -> impl Strategy<Value = CaptureModel> {
    let call = (
        any::<u16>(),
        proptest::option::of(any::<i64>()),
        proptest::option::of(any::<i64>()),
        proptest::collection::vec(
            prop_oneof![
                any::<i64>().prop_map(ArgModel::Int),
                proptest::collection::vec(any::<u8>(), 0..12).prop_map(ArgModel::Data),
            ],
            0..4,
        ),
    )
        .prop_map(|(number, result, timestamp_ns, args)| {
            EntryModel::Syscall(SyscallModel {
                number,
                result,
                timestamp_ns,
                args,
                ..SyscallModel::default()
            })
        });
    (any::<bool>(), proptest::collection::vec(call, 0..12)).prop_map(|(big_endian, entries)| {
        CaptureModel {
            header: HeaderModel {
                big_endian,
                ..HeaderModel::default()
            },
            entries,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_captures_with_damage(
        model in capture(),
        cut in any::<usize>(),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
    ) {
        let mut bytes = model.to_bytes().unwrap();
        same(&bytes, "whole");
        for (at, b) in flips {
            if !bytes.is_empty() {
                let at = at % bytes.len();
                bytes[at] = b;
            }
        }
        same(&bytes, "mutated");
        let cut = cut % (bytes.len() + 1);
        same(&bytes[..cut], "cut");
    }
}
