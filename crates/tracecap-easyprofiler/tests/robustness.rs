//! Cut and mutated corpus files: never a panic, errors point inside the file, and every record
//! before the damage is still returned, unchanged.

mod common;

use common::{walk, walk_items, Seen};

/// Offsets where an item of the full file ends (its last byte + 1), for cutting right at and
/// around record boundaries.
fn boundaries(seen: &[Seen], len: usize) -> Vec<usize> {
    let mut b: Vec<usize> = seen.iter().map(|s| s.offset as usize).collect();
    b.push(len);
    b
}

/// Everything the full walk saw that starts before `cut` and is not the item straddling it.
fn expected_before(full: &[Seen], cut: usize) -> Vec<Seen> {
    // An item is complete in the prefix when the next item starts at or before the cut.
    let mut out = Vec::new();
    for (i, s) in full.iter().enumerate() {
        let end = full.get(i + 1).map_or(usize::MAX, |n| n.offset as usize);
        if end <= cut {
            out.push(s.clone());
        }
    }
    out
}

fn check_prefix(name: &str, bytes: &[u8], full: &[Seen], cut: usize) {
    let (seen, err) = walk(&bytes[..cut]);
    // The single-pass stream sees exactly the same records and the same fault.
    let (streamed, stream_err) = walk_items(&bytes[..cut]);
    assert_eq!(
        streamed, seen,
        "{name} cut at {cut}: items() and threads() disagree"
    );
    assert_eq!(
        stream_err, err,
        "{name} cut at {cut}: items() and threads() errors differ"
    );
    if let Some(e) = err {
        assert!(
            e.offset <= cut as u64,
            "{name} cut at {cut}: error offset {:#x} outside the file",
            e.offset
        );
    }
    // Everything fully inside the prefix, except possibly the last item (whose end we estimate
    // from the next item's start, which may include thread headers), must be there unchanged.
    let want = expected_before(full, cut);
    let n = want.len().saturating_sub(1);
    assert!(
        seen.len() >= n && seen[..n] == want[..n],
        "{name} cut at {cut}: lost records before the damage ({} seen, {} expected)",
        seen.len(),
        n
    );
}

#[test]
fn every_prefix_and_boundary() {
    for (name, bytes) in common::prof_files() {
        let (full, err) = walk(&bytes);
        if name != "gen_toodeep" {
            assert!(err.is_none(), "{name}: {err:?}");
        }
        let mut cuts: Vec<usize> = Vec::new();
        if bytes.len() <= 12 * 1024 {
            cuts.extend(0..bytes.len()); // every prefix
        } else {
            // big files: the first 4 KiB byte by byte, around a sample of record boundaries,
            // and a stride through the rest
            cuts.extend(0..2048);
            let b = boundaries(&full, bytes.len());
            let step = (b.len() / 200).max(1);
            for &x in b.iter().step_by(step) {
                cuts.extend([x.saturating_sub(1), x, x + 1, x + 2]);
            }
            cuts.extend((0..bytes.len()).step_by(bytes.len() / 200));
        }
        cuts.retain(|&c| c < bytes.len());
        for cut in cuts {
            check_prefix(&name, &bytes, &full, cut);
        }
    }
}

#[test]
fn single_byte_mutations() {
    let mut total = 0;
    for (name, bytes) in common::prof_files() {
        let (full, _) = walk(&bytes);
        let first_record = full
            .iter()
            .find(|s| s.what != "desc")
            .map_or(bytes.len(), |s| s.offset as usize);
        // ~15 MB of walking per file at most: every byte of small files, a stride through big ones.
        let positions = (15_000_000 / bytes.len()).clamp(60, 1000);
        let step = (bytes.len() / positions).max(1);
        let mut m = bytes.clone();
        for pos in (0..bytes.len()).step_by(step) {
            for x in [0xffu8, 0x80, 0x01] {
                m[pos] ^= x;
                let (seen, err) = walk(&m);
                let (streamed, stream_err) = walk_items(&m);
                assert_eq!(
                    (&streamed, &stream_err),
                    (&seen, &err),
                    "{name} @{pos} ^ {x:#x}"
                );
                if let Some(e) = err {
                    assert!(
                        e.offset <= bytes.len() as u64,
                        "{name} @{pos}: offset {:#x}",
                        e.offset
                    );
                }
                // Damage in the thread section leaves every earlier record intact.
                if pos > first_record {
                    let want: Vec<&Seen> = full
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| {
                            full.get(i + 1).map_or(usize::MAX, |n| n.offset as usize) <= pos
                        })
                        .map(|(_, s)| s)
                        .collect();
                    let n = want.len().saturating_sub(1);
                    assert!(
                        seen.len() >= n && seen.iter().take(n).eq(want.into_iter().take(n)),
                        "{name}: byte {pos} ^ {x:#x} lost records before it"
                    );
                }
                m[pos] ^= x;
                total += 1;
            }
        }
    }
    println!("{total} mutations checked");
}

#[test]
fn huge_counts_do_not_allocate_or_loop() {
    // A 2.1 header claiming 2^32-1 descriptors, threads and records, followed by a few bytes.
    let mut b = Vec::new();
    b.extend_from_slice(&tracecap_easyprofiler::MAGIC);
    b.extend_from_slice(&0x0201_0000u32.to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes()); // pid
    b.extend_from_slice(&0i64.to_le_bytes()); // cpu frequency
    b.extend_from_slice(&[0; 16]); // begin, end
    b.extend_from_slice(&u64::MAX.to_le_bytes()); // memory size
    b.extend_from_slice(&u64::MAX.to_le_bytes()); // descriptors memory size
    b.extend_from_slice(&u32::MAX.to_le_bytes()); // blocks
    b.extend_from_slice(&0u32.to_le_bytes()); // descriptors
    b.extend_from_slice(&u32::MAX.to_le_bytes()); // threads
    b.extend_from_slice(&[0, 0, 0, 0]); // bookmarks, padding
                                        // one thread claiming u32::MAX records, with three real ones
    b.extend_from_slice(&7u64.to_le_bytes());
    b.extend_from_slice(&[1, 0, 0]); // unnamed
    b.extend_from_slice(&0u32.to_le_bytes()); // no context switches
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    for i in 0..3u64 {
        b.extend_from_slice(&21u16.to_le_bytes());
        b.extend_from_slice(&i.to_le_bytes());
        b.extend_from_slice(&(i + 1).to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.push(0);
    }
    let start = std::time::Instant::now();
    let (seen, err) = walk(&b);
    assert_eq!(seen.len(), 3, "the three real records come out");
    let e = err.expect("the missing records are an error");
    assert_eq!(e.offset, b.len() as u64);
    assert!(start.elapsed().as_secs() < 2);
    // The same with descriptors claimed: parse stops at the real end.
    b[52..56].copy_from_slice(&u32::MAX.to_le_bytes());
    let (_, err) = walk(&b);
    assert!(err.is_some());
}
