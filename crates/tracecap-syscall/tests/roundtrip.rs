//! proptest: model -> writer -> parser -> model, both byte orders, every argument kind, every flag
//! combination, both header sizes, fillers, gaps and forked headers.

use proptest::prelude::*;
use tracecap_syscall::write::{
    ArgModel, CaptureModel, EntryModel, HeaderModel, SigActionModel, SyscallModel, UnameModel,
};
use tracecap_syscall::{Capture, Entry, PollFd, Stat, Timespec};

fn no_nul(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(1u8..=255, 0..max)
}

fn uname() -> impl Strategy<Value = UnameModel> {
    (
        no_nul(12),
        no_nul(12),
        no_nul(20),
        no_nul(40),
        no_nul(8),
        no_nul(8),
    )
        .prop_map(
            |(sysname, nodename, release, version, machine, domainname)| UnameModel {
                sysname,
                nodename,
                release,
                version,
                machine,
                domainname,
            },
        )
}

fn header() -> impl Strategy<Value = HeaderModel> {
    (
        any::<bool>(),
        any::<i32>(),
        any::<i64>(),
        proptest::option::of(any::<i64>()),
        proptest::option::of(uname()),
    )
        .prop_map(
            |(big_endian, pid, epoch_seconds, clock_reference_ns, uname)| HeaderModel {
                big_endian,
                pid,
                epoch_seconds,
                clock_reference_ns,
                uname,
            },
        )
}

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        any::<i32>().prop_map(i64::from),
        Just(i64::from(i32::MAX) + 1),
        Just(i64::from(i32::MIN) - 1),
        Just(i64::from(u32::MAX)),
        Just(-1i64),
    ]
}

fn stat() -> impl Strategy<Value = Stat> {
    (
        (
            any::<u64>(),
            any::<u64>(),
            any::<u32>(),
            any::<u64>(),
            any::<u32>(),
        ),
        (
            any::<u32>(),
            any::<u64>(),
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
        ),
        proptest::array::uniform6(any::<i64>()),
    )
        .prop_map(
            |((dev, ino, mode, nlink, uid), (gid, rdev, size, blksize, blocks), t)| Stat {
                dev,
                ino,
                mode,
                nlink,
                uid,
                gid,
                rdev,
                size,
                blksize,
                blocks,
                atim: Timespec {
                    sec: t[0],
                    nsec: t[1],
                },
                mtim: Timespec {
                    sec: t[2],
                    nsec: t[3],
                },
                ctim: Timespec {
                    sec: t[4],
                    nsec: t[5],
                },
            },
        )
}

fn arg() -> impl Strategy<Value = ArgModel> {
    prop_oneof![
        int().prop_map(ArgModel::Int),
        proptest::collection::vec(any::<u8>(), 0..80).prop_map(ArgModel::Data),
        (any::<u32>(), proptest::collection::vec(any::<u8>(), 0..40))
            .prop_map(|(original_len, data)| ArgModel::Partial { original_len, data }),
        stat().prop_map(ArgModel::Stat),
        proptest::collection::vec(
            (any::<i32>(), any::<i16>(), any::<i16>()).prop_map(|(fd, events, revents)| PollFd {
                fd,
                events,
                revents
            }),
            0..5
        )
        .prop_map(ArgModel::PollFds),
        proptest::option::of(
            (
                any::<u64>(),
                any::<u64>(),
                prop_oneof![
                    proptest::collection::vec(any::<u8>(), 8..=8),
                    proptest::collection::vec(any::<u8>(), 0..16)
                ],
                any::<i32>(),
                any::<u64>()
            )
                .prop_map(|(handler, sigaction, mask, stale_flags, stale_restorer)| {
                    SigActionModel {
                        handler,
                        sigaction,
                        mask,
                        stale_flags,
                        stale_restorer,
                    }
                })
        )
        .prop_map(ArgModel::SigAction),
        (any::<u64>(), any::<u64>()).prop_map(|(pointer, value)| ArgModel::IntP { pointer, value }),
    ]
}

fn duration() -> impl Strategy<Value = f32> {
    use proptest::num::f32::{INFINITE, NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO | INFINITE
}

fn syscall() -> impl Strategy<Value = SyscallModel> {
    (
        any::<u16>(),
        proptest::option::of(any::<i64>()),
        proptest::option::of(any::<i32>()),
        proptest::option::of(any::<i64>()),
        proptest::option::of(duration()),
        proptest::collection::vec(arg(), 0..6),
    )
        .prop_map(
            |(number, result, tid, timestamp_ns, duration_ns, args)| SyscallModel {
                number,
                result,
                tid,
                timestamp_ns,
                duration_ns,
                args,
            },
        )
}

fn entry() -> impl Strategy<Value = EntryModel> {
    prop_oneof![
        8 => syscall().prop_map(EntryModel::Syscall),
        1 => (0u32..64).prop_map(EntryModel::Filler),
        1 => (1u32..40).prop_map(|n| EntryModel::Gap(n * 4)),
        1 => header().prop_map(EntryModel::Header),
    ]
}

fn capture() -> impl Strategy<Value = CaptureModel> {
    (header(), proptest::collection::vec(entry(), 0..24)).prop_map(|(header, entries)| {
        // Two gaps in a row are one run of zero bytes: the reader reports them as one.
        let mut merged: Vec<EntryModel> = Vec::new();
        for e in entries {
            match (merged.last_mut(), &e) {
                (Some(EntryModel::Gap(a)), EntryModel::Gap(b)) => *a += b,
                _ => merged.push(e),
            }
        }
        CaptureModel {
            header,
            entries: merged,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn model_round_trips(model in capture()) {
        let bytes = model.to_bytes().unwrap();
        prop_assert_eq!(bytes.len() % 4, 0);
        let back = CaptureModel::from_bytes(&bytes).unwrap();
        prop_assert_eq!(back, model);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_prefix_is_safe_and_keeps_earlier_entries(model in capture()) {
        let bytes = model.to_bytes().unwrap();
        let full: Vec<u64> = Capture::parse(&bytes)
            .unwrap()
            .entries()
            .map(|e| e.unwrap().offset())
            .collect();
        for cut in 0..bytes.len() {
            let prefix = &bytes[..cut];
            let Ok(cap) = Capture::parse(prefix) else { continue };
            let mut offsets = Vec::new();
            let mut failed = false;
            for e in cap.entries() {
                match e {
                    Ok(e) => offsets.push(e.offset()),
                    Err(err) => {
                        prop_assert!(err.offset <= cut as u64);
                        failed = true;
                    }
                }
            }
            // Everything read from the prefix starts where the whole file's entries start.
            for o in &offsets {
                prop_assert!(full.contains(o), "offset {} not in the full walk", o);
            }
            // The entries wholly inside the prefix are all there.
            let inside = full.iter().filter(|&&o| o < cut as u64).count();
            prop_assert!(offsets.len() + usize::from(failed) >= inside);
        }
    }
}

#[test]
fn big_endian_file_parses() {
    let model = CaptureModel {
        header: HeaderModel {
            big_endian: true,
            pid: 77,
            epoch_seconds: 1_700_000_000,
            clock_reference_ns: Some(123_456_789),
            uname: Some(UnameModel {
                sysname: b"Linux".to_vec(),
                machine: b"s390x".to_vec(),
                ..UnameModel::default()
            }),
        },
        entries: vec![EntryModel::Syscall(SyscallModel {
            number: 257,
            result: Some(-2),
            timestamp_ns: Some(123_456_999),
            duration_ns: Some(1500.5),
            ..SyscallModel::default()
        })],
    };
    let bytes = model.to_bytes().unwrap();
    assert_eq!(&bytes[..6], &[0x78, 0x06, 0x17, 0xa5, 1, 1]);
    assert_eq!(&bytes[8..12], &77i32.to_be_bytes());
    let cap = Capture::parse(&bytes).unwrap();
    assert!(cap.header().is_big_endian());
    let Some(Ok(Entry::Syscall(s))) = cap.entries().next() else {
        panic!("no record")
    };
    assert_eq!(
        (s.name(), s.ret(), s.duration_ns),
        (Some("openat"), -2, Some(1500.5))
    );
}

#[test]
fn old_20_byte_header() {
    let model = CaptureModel {
        header: HeaderModel {
            clock_reference_ns: None,
            uname: Some(UnameModel::default()),
            ..HeaderModel::default()
        },
        entries: vec![EntryModel::Syscall(SyscallModel {
            number: 3,
            result: Some(0),
            args: vec![ArgModel::Int(3)],
            ..SyscallModel::default()
        })],
    };
    let bytes = model.to_bytes().unwrap();
    let cap = Capture::parse(&bytes).unwrap();
    assert_eq!(cap.header().fixed_len, 20);
    assert_eq!(cap.header().clock_reference_ns, None);
    assert_eq!(CaptureModel::from_bytes(&bytes).unwrap(), model);
}
