//! CaptureModel -> writer -> parser -> model, for every version, with proptest; plus the edge cases a
//! random model rarely hits (maximal strings, deep nesting, empty everything).

mod common;

use proptest::prelude::*;
use tracecap_easyprofiler::write::*;
use tracecap_easyprofiler::*;

const VERSIONS: [Version; 9] = [
    Version(0x0001_0000), // pre-1.0 (0.1.0): same layout as 1.0.0
    Version::V1_0_0,
    Version::V1_0_1,
    Version::V1_2_0,
    Version::V1_3_0,
    Version::V2_0_0,
    Version::V2_0_1,
    Version::V2_1_0,
    Version(0x0201_0005), // a later 2.1.x patch
];

fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(1u8..=255, 0..12)
}

fn data_type() -> impl Strategy<Value = DataType> {
    prop::sample::select(DataType::ALL.to_vec())
}

fn descriptor() -> impl Strategy<Value = DescriptorModel> {
    (
        any::<u32>(),
        any::<i32>(),
        any::<u32>(),
        0u8..=2,
        any::<u8>(),
        text(),
        text(),
    )
        .prop_map(
            |(id, line, color, kind, status, name, file)| DescriptorModel {
                id,
                line,
                color,
                kind: DescriptorKind::from_u8(kind),
                status,
                name,
                file,
            },
        )
}

fn record(kinds: Vec<DescriptorKind>) -> impl Strategy<Value = RecordModel> {
    let n = kinds.len() as u32;
    (
        any::<u64>(),
        any::<u64>(),
        0..n.max(1) + 1,
        text(),
        any::<u64>(),
        data_type(),
        any::<bool>(),
        prop::collection::vec(any::<u8>(), 0..40),
    )
        .prop_map(
            move |(begin, end, id, name, value_id, data_type, is_array, data)| {
                if kinds.get(id as usize) == Some(&DescriptorKind::Value) {
                    RecordModel::Value {
                        time: begin,
                        id,
                        value_id,
                        data_type,
                        is_array,
                        data,
                    }
                } else {
                    RecordModel::Block {
                        begin,
                        end,
                        id,
                        name,
                    }
                }
            },
        )
}

fn thread(wide: bool, kinds: Vec<DescriptorKind>) -> impl Strategy<Value = ThreadModel> {
    let id_max = if wide { u64::MAX } else { u64::from(u32::MAX) };
    (
        0..=id_max,
        text(),
        prop::collection::vec(
            (any::<u64>(), any::<u64>(), 0..=id_max, text()).prop_map(|(begin, end, t, name)| {
                ContextSwitchModel {
                    begin,
                    end,
                    target_thread: t,
                    name,
                }
            }),
            0..4,
        ),
        prop::collection::vec(record(kinds), 0..12),
    )
        .prop_map(|(id, name, context_switches, records)| ThreadModel {
            id,
            name,
            context_switches,
            records,
        })
}

fn model() -> impl Strategy<Value = CaptureModel> {
    (
        prop::sample::select(VERSIONS.to_vec()),
        prop::collection::vec(descriptor(), 0..6),
    )
        .prop_flat_map(|(version, descriptors)| {
            let kinds: Vec<_> = descriptors.iter().map(|d| d.kind).collect();
            let wide = version.wide_ids();
            let pid_max = if wide { u64::MAX } else { u64::from(u32::MAX) };
            let bookmarks = if version.has_end_signature() {
                0..4usize
            } else {
                0..1usize
            };
            (
                Just(version),
                0..=pid_max,
                any::<i64>(),
                any::<u64>(),
                any::<u64>(),
                Just(descriptors),
                prop::collection::vec(thread(wide, kinds), 0..4),
                prop::collection::vec(
                    (any::<u64>(), any::<u32>(), text()).prop_map(|(position, color, text)| {
                        BookmarkModel {
                            position,
                            color,
                            text,
                        }
                    }),
                    bookmarks,
                ),
            )
        })
        .prop_map(
            |(
                version,
                pid,
                cpu_frequency,
                begin_time,
                end_time,
                descriptors,
                threads,
                bookmarks,
            )| {
                CaptureModel {
                    version,
                    pid: if version.has_pid() { pid } else { 0 },
                    cpu_frequency,
                    begin_time,
                    end_time,
                    descriptors,
                    threads,
                    bookmarks,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn round_trip(m in model()) {
        let bytes = m.to_bytes().unwrap();
        let back = CaptureModel::from_bytes(&bytes).unwrap();
        prop_assert_eq!(back, m);
    }

    /// `Events::visit` gives what the iterator gives, nested by upstream's rule (checked in
    /// `walk_items`), whatever the times and the clock.
    #[test]
    fn visit_matches_the_iterator(m in model()) {
        let bytes = m.to_bytes().unwrap();
        let (_, err) = common::walk_items(&bytes);
        prop_assert_eq!(err, None);
    }

    /// The same with times packed close together (near 0, 2^52 and 2^60) and real clocks, so
    /// that timestamps often fall within a nanosecond of each other.
    #[test]
    fn visit_nests_close_times_exactly(
        m in model(),
        spread in 1u64..40,
        base in prop::sample::select(vec![0u64, (1 << 52) - 20, 1 << 60]),
        freq in prop::sample::select(vec![0i64, 2_599_958_000, 1_000_000_000, 3_000_000_001, 7, -5]),
    ) {
        let mut m = m;
        m.cpu_frequency = freq;
        let squash = |t: &mut u64| *t = base + *t % spread;
        for t in &mut m.threads {
            for r in &mut t.records {
                match r {
                    RecordModel::Block { begin, end, .. } => {
                        squash(begin);
                        squash(end);
                    }
                    RecordModel::Value { time, .. } => squash(time),
                }
            }
        }
        let bytes = m.to_bytes().unwrap();
        let (_, err) = common::walk_items(&bytes);
        prop_assert_eq!(err, None);
    }

    #[test]
    fn header_counts_match_content(m in model()) {
        let bytes = m.to_bytes().unwrap();
        let c = Capture::parse(&bytes).unwrap();
        let h = c.header();
        let records: usize = m.threads.iter().map(|t| t.records.len() + t.context_switches.len()).sum();
        prop_assert_eq!(h.blocks_count as usize, records);
        prop_assert_eq!(h.descriptors_count as usize, m.descriptors.len());
        prop_assert_eq!(h.pid.is_some(), m.version.has_pid());
    }
}

fn base(version: Version) -> CaptureModel {
    CaptureModel {
        version,
        pid: if version.has_pid() { 7 } else { 0 },
        cpu_frequency: 0,
        begin_time: 0,
        end_time: 10,
        descriptors: vec![],
        threads: vec![],
        bookmarks: vec![],
    }
}

#[test]
fn empty_capture_every_version() {
    for v in VERSIONS {
        let m = base(v);
        let bytes = m.to_bytes().unwrap();
        assert_eq!(CaptureModel::from_bytes(&bytes).unwrap(), m, "{v}");
    }
}

#[test]
fn maximal_strings() {
    let long = vec![b'x'; 65534]; // 65534 + NUL = the largest u16 name size
    let mut m = base(Version::V2_1_0);
    m.threads.push(ThreadModel {
        id: 1,
        name: long.clone(),
        context_switches: vec![],
        records: vec![RecordModel::Block {
            begin: 1,
            end: 2,
            id: 0,
            name: vec![b'n'; 65535 - 21],
        }],
    });
    m.bookmarks.push(BookmarkModel {
        position: 1,
        color: 2,
        text: vec![b'b'; 65535 - 13],
    });
    let bytes = m.to_bytes().unwrap();
    assert_eq!(CaptureModel::from_bytes(&bytes).unwrap(), m);
    // One byte more does not fit the size fields: the writer says so rather than wrap.
    m.threads[0].name.push(b'x');
    assert_eq!(m.to_bytes(), Err(WriteError::TooLarge("thread name")));
}

#[test]
fn deep_nesting_beyond_upstream_limit() {
    // 5000 nested blocks, innermost first (completion order).
    let n = 5000u64;
    let mut m = base(Version::V2_1_0);
    m.descriptors.push(DescriptorModel {
        id: 0,
        line: 1,
        color: 0,
        kind: DescriptorKind::Block,
        status: 1,
        name: b"recurse".to_vec(),
        file: b"f.cpp".to_vec(),
    });
    let records = (0..n)
        .map(|i| RecordModel::Block {
            begin: n - i,
            end: n + i + 1,
            id: 0,
            name: vec![],
        })
        .collect();
    m.threads.push(ThreadModel {
        id: 1,
        name: b"t".to_vec(),
        context_switches: vec![],
        records,
    });
    let bytes = m.to_bytes().unwrap();
    let c = Capture::parse(&bytes).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let t = c.threads().next().unwrap().unwrap();
    let mut slots = vec![NestSlot::default(); t.records_count() as usize];
    let tree = c.nest(&t, &kinds, &mut slots).unwrap();
    assert_eq!(tree.levels(), n as u32);
    assert_eq!(tree.roots(), 1);
    assert_eq!(tree.depth(0), Some(n as u32 - 1));
}

#[test]
fn writer_refuses_what_the_version_cannot_hold() {
    let mut m = base(Version::V1_2_0);
    m.bookmarks.push(BookmarkModel {
        position: 0,
        color: 0,
        text: vec![],
    });
    assert_eq!(m.to_bytes(), Err(WriteError::Unsupported("bookmarks")));
    let mut m = base(Version::V1_2_0);
    m.threads.push(ThreadModel {
        id: 1 << 40,
        name: vec![],
        context_switches: vec![],
        records: vec![],
    });
    assert_eq!(m.to_bytes(), Err(WriteError::NarrowId("thread id")));
    let mut m = base(Version::V2_1_0);
    m.descriptors.push(DescriptorModel {
        id: 0,
        line: 0,
        color: 0,
        kind: DescriptorKind::Block,
        status: 0,
        name: b"a\0b".to_vec(),
        file: vec![],
    });
    assert_eq!(m.to_bytes(), Err(WriteError::Nul("descriptor name")));
}

/// A real capture repeated (the bench's second input): every copy is there, after the one
/// before, and the whole reads back with the same nesting depth.
#[test]
fn repeated_capture_keeps_every_copy_in_order() {
    let Some(dir) = tracecap_testkit::corpus("easyprofiler") else {
        return;
    };
    let real = std::fs::read(dir.join("sample_small.prof")).unwrap();
    let model = CaptureModel::from_bytes(&real).unwrap();
    let one = model.to_bytes().unwrap().len();
    let big = model.repeated(3 * one + 1).unwrap();
    for (t, src) in big.threads.iter().zip(&model.threads) {
        assert_eq!(t.records.len(), 4 * src.records.len());
        assert_eq!(t.context_switches.len(), 4 * src.context_switches.len());
    }
    let bytes = big.to_bytes().unwrap();
    let c = Capture::parse(&bytes).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let s = Summary::check(&c, &kinds, &mut Vec::new()).unwrap();
    let c1 = Capture::parse(&real).unwrap();
    let s1 = Summary::check(&c1, KindTable::new(&c1).unwrap(), &mut Vec::new()).unwrap();
    assert_eq!(s.records(), 4 * s1.records());
    assert_eq!(s.levels, s1.levels);
    // Later copies come later in time; the first is the original.
    assert!(s.last > s1.last && s.first == s1.first);
    assert_eq!(CaptureModel::from_bytes(&bytes).unwrap(), big);
}
