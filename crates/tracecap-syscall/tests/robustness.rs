//! Damaged corpus files: every prefix (or every record boundary plus a sample of offsets for the
//! big files) and many single-byte mutations. No panic, error offsets inside the file, and every
//! entry before the damage comes back unchanged.

use tracecap_syscall::{Capture, Entry, Error};

/// A tiny deterministic generator, so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A cheap summary of an entry, enough to tell a changed entry from the original.
type Print = (u64, u8, u16, Option<i64>, Option<i64>, usize, usize, u64);

/// What a walk saw: each entry's (offset, a fingerprint of its contents), then the error if any.
/// Every argument is decoded on the way.
fn walk(data: &[u8]) -> (Vec<(u64, Print)>, Option<Error>) {
    let cap = match Capture::parse(data) {
        Ok(c) => c,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut seen = Vec::new();
    for e in cap.entries() {
        match e {
            Ok(e) => {
                let print = match &e {
                    Entry::Syscall(s) => {
                        let args = s.args();
                        let arg_bytes = args.bytes().len();
                        let n = args.count();
                        assert_eq!(n, usize::from(s.arg_count));
                        let dur = s.duration_ns.map_or(0, |d| u64::from(d.to_bits()));
                        (
                            0,
                            s.flags,
                            s.number,
                            s.result,
                            s.timestamp_ns,
                            n,
                            arg_bytes,
                            dur,
                        )
                    }
                    Entry::Filler(f) => (1, 0, 0, None, None, 0, 0, f.len),
                    Entry::Gap(g) => (2, 0, 0, None, None, 0, 0, g.len),
                    Entry::Header(h) => (3, h.flags, 0, None, h.clock_reference_ns, 0, 0, h.len),
                };
                seen.push((e.offset(), print));
            }
            Err(err) => return (seen, Some(err)),
        }
    }
    (seen, None)
}

/// The offsets where each entry of a clean walk ends (the next one's start, or the end).
fn ends(full: &[(u64, Print)], err: Option<Error>, len: u64) -> Vec<u64> {
    let mut out: Vec<u64> = full.iter().skip(1).map(|(o, _)| *o).collect();
    out.push(err.map_or(len, |e| e.offset));
    out
}

fn check_prefix(data: &[u8], full: &[(u64, Print)], ends: &[u64], cut: usize) {
    let (seen, err) = walk(&data[..cut]);
    if let Some(e) = err {
        assert!(
            e.offset <= cut as u64,
            "cut {cut}: error {e} outside the prefix"
        );
    }
    let whole = ends.iter().filter(|&&end| end <= cut as u64).count();
    assert!(
        seen.len() >= whole,
        "cut {cut}: {} entries, expected at least {whole}",
        seen.len()
    );
    for (i, (a, b)) in seen.iter().zip(full).enumerate().take(whole) {
        assert_eq!(a, b, "cut {cut}: entry {i} differs");
    }
    if ends.contains(&(cut as u64)) && cut as u64 >= full.first().map_or(0, |f| f.0) {
        assert!(err.is_none(), "cut {cut} at an entry boundary: {err:?}");
        assert_eq!(seen.len(), whole);
    }
}

fn prefixes(name: &str, every_byte: bool, boundaries: usize, samples: usize) {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join(name)).unwrap();
    let (full, err) = walk(&data);
    let ends = ends(&full, err, data.len() as u64);
    let mut cuts: Vec<usize> = if every_byte {
        (0..=data.len()).collect()
    } else {
        let step = (ends.len() / boundaries.max(1)).max(1);
        let mut c: Vec<usize> = ends.iter().step_by(step).map(|&e| e as usize).collect();
        let mut rng = XorShift(0x5eed ^ data.len() as u64);
        c.extend((0..samples).map(|_| rng.below(data.len() + 1)));
        c.extend(0..200);
        c.extend(ends.iter().rev().take(50).map(|&e| e as usize));
        // Around the first 1 MiB flush: the filler, the record after it, the zero gap.
        let flush = 1usize << 20;
        c.extend(
            ends.iter()
                .map(|&e| e as usize)
                .filter(|e| (flush - 256..flush + 140_000).contains(e)),
        );
        c.extend(
            [flush + 100, flush + 4_000, flush + 131_000]
                .iter()
                .filter(|&&c| c <= data.len()),
        );
        c
    };
    cuts.sort_unstable();
    cuts.dedup();
    for cut in cuts {
        check_prefix(&data, &full, &ends, cut);
    }
}

fn mutations(name: &str, count: usize) {
    let Some(dir) = tracecap_testkit::corpus("syscall") else {
        return;
    };
    let data = std::fs::read(dir.join(name)).unwrap();
    let (full, err) = walk(&data);
    let header_len = Capture::parse(&data).map_or(0, |c| c.header().len);
    let ends = ends(&full, err, data.len() as u64);
    let mut rng = XorShift(0xdead_beef ^ data.len() as u64);
    let mut copy = data.clone();
    let positions: Vec<usize> = if count >= data.len() {
        (0..data.len()).collect()
    } else {
        (0..count).map(|_| rng.below(data.len())).collect()
    };
    for pos in positions {
        let old = copy[pos];
        // Every chosen byte is inverted; every fourth also gets a random value.
        let random = (rng.next() & 0xff) as u8;
        let values: &[u8] = if pos % 4 == 0 {
            &[old ^ 0xff, random]
        } else {
            &[old ^ 0xff]
        };
        for &new in values {
            if new == old {
                continue;
            }
            copy[pos] = new;
            let (seen, err) = walk(&copy);
            if let Some(e) = err {
                assert!(e.offset <= data.len() as u64, "byte {pos}={new:#x}: {e}");
            }
            if pos as u64 >= header_len {
                let before = ends.iter().filter(|&&end| end <= pos as u64).count();
                assert!(seen.len() >= before, "byte {pos}={new:#x}: lost entries");
                for (a, b) in seen.iter().zip(&full).take(before) {
                    assert_eq!(a, b, "byte {pos}={new:#x}");
                }
            }
        }
        copy[pos] = old;
    }
}

#[test]
fn prefixes_small_files() {
    prefixes("ls_l.dat", true, 0, 0);
    prefixes("stale_tail_no_otrunc.dat", true, 0, 0);
}

#[test]
fn prefixes_py_args() {
    prefixes("py_args.dat", false, 600, 1000);
}

#[test]
fn prefixes_big_files() {
    // 30,000 near-identical records: a few dozen cuts cover every kind of boundary.
    prefixes("py_big_filler_zerogap.dat", false, 40, 30);
    prefixes("py_sigkill_after_flush.dat", false, 40, 30);
}

#[test]
fn mutations_small_files() {
    mutations("ls_l.dat", usize::MAX);
    mutations("stale_tail_no_otrunc.dat", usize::MAX);
}

#[test]
fn mutations_big_files() {
    mutations("py_args.dat", 1000);
    mutations("py_big_filler_zerogap.dat", 25);
    mutations("py_sigkill_after_flush.dat", 25);
}

/// A capture written by the crate's writer: calls with and without arguments on two threads, a
/// filler, a zero gap and a second header (what a fork leaves), in both byte orders.
#[cfg(feature = "write")]
fn written(big_endian: bool) -> Vec<u8> {
    use tracecap_syscall::write::{ArgModel, CaptureModel, EntryModel, HeaderModel, SyscallModel};
    let header = HeaderModel {
        big_endian,
        pid: 42,
        ..HeaderModel::default()
    };
    let mut entries = Vec::new();
    for i in 0..300u16 {
        let args = match i % 3 {
            0 => vec![
                ArgModel::Int(3),
                ArgModel::Data(vec![b'x'; usize::from(i % 40)]),
            ],
            1 => vec![ArgModel::Int(i64::from(i))],
            _ => Vec::new(),
        };
        entries.push(EntryModel::Syscall(SyscallModel {
            number: i % 60,
            result: Some(i64::from(i)),
            tid: Some(42 + i32::from(i % 2)),
            timestamp_ns: Some(1_000 * i64::from(i)),
            duration_ns: Some(250.0),
            args,
        }));
        match i {
            100 => entries.push(EntryModel::Filler(64)),
            200 => entries.push(EntryModel::Gap(128)),
            250 => entries.push(EntryModel::Header(HeaderModel {
                pid: 43,
                ..header.clone()
            })),
            _ => {}
        }
    }
    CaptureModel { header, entries }.to_bytes().unwrap()
}

/// The rule every format's cut test shares (`tracecap_testkit::cut_points` and `check_cut`), on
/// every corpus file and on written captures: a capture cut anywhere gives the whole file's
/// entries in order, every entry whose next entry starts at or before the cut among them.
#[test]
fn cuts_keep_every_record_before_them() {
    #[allow(unused_mut)] // written captures join only with the write feature
    let mut files: Vec<(String, Vec<u8>)> = tracecap_testkit::corpus_files("syscall", &["."])
        .into_iter()
        .filter(|(name, _)| name.ends_with(".dat"))
        .collect();
    #[cfg(feature = "write")]
    files.extend([
        ("written, little-endian".to_string(), written(false)),
        ("written, big-endian".to_string(), written(true)),
    ]);
    assert!(
        !files.is_empty(),
        "no capture to cut: enable the write feature"
    );
    let mut rng = tracecap_testkit::Rng(0x5EED_0017);
    for (name, bytes) in &files {
        let (whole, err) = walk(bytes);
        let len = bytes.len() as u64;
        let spans: Vec<(u64, u64)> = whole
            .iter()
            .zip(ends(&whole, err, len))
            .map(|(&(start, _), end)| (start, end))
            .collect();
        let mut cuts = tracecap_testkit::cut_points(&spans, bytes.len() + 1, &mut rng);
        cuts.retain(|&c| c <= len);
        for cut in cuts {
            let (mut got, fault) = walk(&bytes[..cut as usize]);
            // A zero gap the cut falls in is a gap to the end of the cut file: the same entry,
            // shorter. Every other entry must be the whole file's.
            let i = got.len().wrapping_sub(1);
            if let (Some(g), Some(w)) = (got.get(i), whole.get(i)) {
                if g.0 == w.0 && g.1 .0 == 2 && w.1 .0 == 2 && g.1 .7 < w.1 .7 {
                    got.pop();
                }
            }
            let at = fault.map(|e| e.offset);
            tracecap_testkit::check_cut(name, cut, &whole, &spans, &got, at);
        }
    }
}
