//! Each fault the crate shares with every format: its kind names what was read, and its message
//! ends with the absolute offset, in the one layout of `tracecap_wire::Error`.

use tracecap_easyprofiler::{Capture, Error, ErrorKind, FixedKindTable, KindTable, NestSlot};
use tracecap_wire::ErrorKind as Shared;

/// The bundled 2.1.0 sample: a 72-byte header, 25 descriptors, 4 threads.
fn sample() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/sample_small.prof"
    );
    std::fs::read(path).expect("the bundled sample")
}

fn parse_err(bytes: &[u8]) -> Error {
    Capture::parse(bytes).expect_err("the file is refused")
}

#[test]
fn a_version_older_than_0_1_0_is_unsupported() {
    let mut b = sample();
    b[4..8].copy_from_slice(&0xffffu32.to_le_bytes());
    let e = parse_err(&b);
    let want = Shared::UnsupportedVersion {
        found: 0xffff,
        expected: "0x00010000 (0.1.0) or newer",
    };
    assert_eq!(e, Error::new(ErrorKind::Shared(want), 4));
    assert_eq!(
        e.to_string(),
        "incompatible version 65535, expected 0x00010000 (0.1.0) or newer at offset 0x4"
    );
}

#[test]
fn non_zero_header_padding_names_the_field_it_follows() {
    let mut b = sample();
    b[70] = 1; // the u16 after the 2.1 header's bookmark count
    let e = parse_err(&b);
    let want = Shared::NonZeroPadding {
        what: "bookmark count",
    };
    assert_eq!(e, Error::new(ErrorKind::Shared(want), 70));
    assert_eq!(
        e.to_string(),
        "non-zero padding after bookmark count at offset 0x46"
    );
}

#[test]
fn a_cut_header_is_a_named_truncation() {
    let b = sample();
    let e = parse_err(&b[..10]);
    assert!(e.is_truncation());
    assert_eq!(
        e.to_string(),
        "truncated header (needs 56 bytes, 2 left) at offset 0x8"
    );
}

#[test]
fn a_thread_name_of_size_zero_has_no_nul() {
    let mut b = sample();
    let c = Capture::parse(&b).unwrap();
    let first = c.threads().next().unwrap().unwrap().offset;
    let size_at = first as usize + 8; // after the 2.1 thread's u64 id
    b[size_at..size_at + 2].fill(0);
    let c = Capture::parse(&b).unwrap();
    let e = c.threads().find_map(Result::err).expect("the thread fails");
    let want = Shared::MissingNul {
        what: "thread name",
    };
    assert_eq!(e, Error::new(ErrorKind::Shared(want), size_at as u64));
    assert_eq!(
        e.to_string(),
        format!("thread name without NUL terminator at offset {size_at:#x}")
    );
}

#[test]
fn a_fixed_kind_table_too_small_is_full_at_the_descriptor_past_it() {
    let b = sample();
    let c = Capture::parse(&b).unwrap();
    let ninth = c.descriptors().nth(8).unwrap().unwrap().offset;
    let e = FixedKindTable::<8>::new(&c).expect_err("25 descriptors do not fit 8");
    assert_eq!(e, Error::table_full("descriptor kind", 8, ninth));
    assert_eq!(
        e.to_string(),
        format!("descriptor kind table full (capacity 8) at offset {ninth:#x}")
    );
    assert!(FixedKindTable::<25>::new(&c).is_ok());
}

#[test]
fn nesting_slots_too_few_are_full_at_the_record_past_them() {
    let b = sample();
    let c = Capture::parse(&b).unwrap();
    let kinds = KindTable::new(&c).unwrap();
    let thread = c.threads().next().unwrap().unwrap();
    let third = thread.records(&kinds).nth(2).unwrap().unwrap().offset();
    let mut slots = vec![NestSlot::default(); 2];
    let e = c
        .nest(&thread, &kinds, &mut slots)
        .expect_err("2 slots are too few");
    assert_eq!(e, Error::table_full("nesting slot", 2, third));
    assert_eq!(
        e.shared(),
        Some(Shared::TableFull {
            what: "nesting slot",
            capacity: 2
        })
    );
    let mut slots = vec![NestSlot::default(); thread.records_count() as usize];
    assert!(c.nest(&thread, &kinds, &mut slots).is_ok());
}
