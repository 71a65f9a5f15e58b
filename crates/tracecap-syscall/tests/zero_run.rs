//! Runs of zero bytes: the writer's zero gap is accepted up to `MAX_GAP_LEN` bytes; a longer run
//! (a file padded with zeros, a sparse tail) is a fault at the run's first byte, after every entry
//! before it, and the walk reads no more than the bound of it.

use std::time::{Duration, Instant};

use tracecap_syscall::write::{ArgModel, CaptureModel, EntryModel, HeaderModel, SyscallModel};
use tracecap_syscall::{Capture, Entry, Error, ErrorKind, MAX_GAP_LEN};

/// A capture as the writer leaves it around a mid-run flush: records, a filler, the record that
/// triggered the flush, then the zero gap is appended by the caller.
fn prefix() -> Vec<u8> {
    let write = |fd: i64, text: &[u8]| {
        EntryModel::Syscall(SyscallModel {
            number: 1,
            result: Some(text.len() as i64),
            timestamp_ns: Some(1_000),
            duration_ns: Some(250.0),
            args: vec![
                ArgModel::Int(fd),
                ArgModel::Data(text.to_vec()),
                ArgModel::Int(text.len() as i64),
            ],
            ..SyscallModel::default()
        })
    };
    CaptureModel {
        header: HeaderModel {
            pid: 77,
            epoch_seconds: 1_700_000_000,
            clock_reference_ns: Some(10),
            ..HeaderModel::default()
        },
        entries: vec![
            write(1, b"first"),
            write(2, b"second record"),
            EntryModel::Filler(40),
            write(1, b"after the flush"),
        ],
    }
    .to_bytes()
    .unwrap()
}

/// A record to put after the zero run.
fn close() -> Vec<u8> {
    let mut w = tracecap_syscall::write::CaptureWriter::new();
    w.header(&HeaderModel::default()).unwrap();
    let start = w.bytes().len();
    w.syscall(&SyscallModel {
        number: 3,
        args: vec![ArgModel::Int(3)],
        ..SyscallModel::default()
    })
    .unwrap();
    w.bytes()[start..].to_vec()
}

/// The offsets and kinds of the entries, then the error if any.
fn walk(data: &[u8]) -> (Vec<(u64, char)>, Option<Error>) {
    let cap = Capture::parse(data).unwrap();
    let mut seen = Vec::new();
    for e in cap.entries() {
        match e {
            Ok(e) => seen.push((
                e.offset(),
                match e {
                    Entry::Syscall(_) => 's',
                    Entry::Filler(_) => 'f',
                    Entry::Gap(_) => 'g',
                    Entry::Header(_) => 'h',
                },
            )),
            Err(err) => return (seen, Some(err)),
        }
    }
    (seen, None)
}

#[test]
fn a_zero_run_of_the_bound_is_a_gap() {
    let mut data = prefix();
    let (before, err) = walk(&data);
    assert!(err.is_none());
    let gap_at = data.len() as u64;
    data.resize(data.len() + MAX_GAP_LEN as usize, 0);
    data.extend_from_slice(&close());

    let cap = Capture::parse(&data).unwrap();
    let entries: Vec<Entry<'_>> = cap.entries().map(Result::unwrap).collect();
    assert_eq!(entries.len(), before.len() + 2);
    match entries[before.len()] {
        Entry::Gap(g) => {
            assert_eq!(g.offset, gap_at);
            assert_eq!(g.len, MAX_GAP_LEN);
        }
        other => panic!("expected the gap, got {other:?}"),
    }
    match entries[before.len() + 1] {
        Entry::Syscall(s) => {
            assert_eq!(s.offset, gap_at + MAX_GAP_LEN);
            assert_eq!(s.name(), Some("close"));
        }
        other => panic!("expected the record after the gap, got {other:?}"),
    }
}

#[test]
fn a_zero_run_over_the_bound_is_a_fault_at_its_start() {
    let mut data = prefix();
    let (before, _) = walk(&data);
    let gap_at = data.len() as u64;
    data.resize(data.len() + MAX_GAP_LEN as usize + 4, 0);
    data.extend_from_slice(&close());

    let (seen, err) = walk(&data);
    assert_eq!(seen, before, "the entries before the run are kept");
    let err = err.expect("a run longer than the writer's gap is a fault");
    assert_eq!(err.kind, ErrorKind::LongZeroRun);
    assert_eq!(err.offset, gap_at);
    assert_eq!(err.offset % 4, 0);
}

#[test]
fn a_sparse_tail_of_256_mib_fails_fast_at_its_start() {
    let head = prefix();
    let (before, _) = walk(&head);
    // Zero-filled memory from the allocator: pages the walk does not read are never touched.
    let mut data = vec![0u8; 256 << 20];
    data[..head.len()].copy_from_slice(&head);

    let start = Instant::now();
    let (seen, err) = walk(&data);
    let took = start.elapsed();
    assert_eq!(seen, before);
    let err = err.expect("a 256 MiB run of zeros is not a writer's gap");
    assert_eq!(err.kind, ErrorKind::LongZeroRun);
    assert_eq!(err.offset, head.len() as u64);
    assert!(
        took < Duration::from_secs(2),
        "the walk took {took:?} on a run of zeros it should stop reading after 1 MiB"
    );
    // The same run cut just after the bound: the walk reads that far and no further.
    let (_, err) = walk(&data[..head.len() + MAX_GAP_LEN as usize + 4]);
    assert_eq!(
        err.map(|e| (e.kind, e.offset)),
        Some((ErrorKind::LongZeroRun, head.len() as u64))
    );
}
