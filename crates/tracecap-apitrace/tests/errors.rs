//! The faults every format shares come out as `ErrorKind::Shared`, without loss, at their
//! stream offsets; container faults count in the file.

use tracecap_apitrace::{decompress, ErrorKind, FixedSigTable, SnappyChunks, Space, Stream};
use tracecap_wire::ErrorKind as Wire;

fn stream_error(stream: &[u8]) -> tracecap_apitrace::Error {
    let trace = match Stream::parse(stream) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let mut events = trace.events();
    loop {
        match events.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => return e,
            None => panic!("no fault in {stream:02x?}"),
        }
    }
}

#[test]
fn an_overlong_varint_is_not_reported_as_another_fault() {
    // Version 6, semantic version 6, no properties; then an ENTER whose thread number is an
    // overlong varint (`81 00`).
    let e = stream_error(&[6, 6, 0, 0, 0x81, 0x00]);
    assert_eq!(
        e.kind,
        ErrorKind::Shared(Wire::VarintOverlong {
            what: "thread number"
        })
    );
    assert_eq!(e.offset, 5);
    assert_eq!(e.kind.space(), Space::Stream);
    assert_eq!(
        e.to_string(),
        "overlong varint in thread number at offset 0x5"
    );
}

#[test]
fn an_overflowing_varint_says_so() {
    let mut s = vec![0xff; 10];
    s.push(0x7f);
    let e = stream_error(&s);
    assert_eq!(
        e.kind,
        ErrorKind::Shared(Wire::VarintOverflow {
            what: "version number",
            bits: 64
        })
    );
}

#[test]
fn a_version_above_6_is_the_shared_version_fault() {
    let e = stream_error(&[7]);
    assert_eq!(
        e.kind,
        ErrorKind::Shared(Wire::UnsupportedVersion {
            found: 7,
            expected: "0 to 6"
        })
    );
    assert_eq!(
        e.to_string(),
        "incompatible version 7, expected 0 to 6 at offset 0x0"
    );
}

#[test]
fn a_full_signature_table_names_its_kind_and_capacity() {
    let file = include_bytes!("data/es2tri.trace");
    let d = decompress(file).unwrap();
    let trace = Stream::parse(&d.data).unwrap();
    let mut events = trace.events_with(FixedSigTable::<1>::default());
    let e = loop {
        match events.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => break e,
            None => panic!("es2tri has more than one function signature"),
        }
    };
    assert_eq!(
        e.kind,
        ErrorKind::Shared(Wire::TableFull {
            what: "function signature",
            capacity: 1
        })
    );
    assert!(!e.is_truncation());
}

#[test]
fn a_snappy_chunk_cut_short_is_a_container_fault_in_the_file() {
    let file = include_bytes!("data/es2tri.trace");
    assert_eq!(&file[..2], b"at");
    let cut = &file[..file.len() - 1];
    let e = SnappyChunks::new(cut)
        .unwrap()
        .find_map(Result::err)
        .unwrap();
    assert_eq!(e.kind, ErrorKind::ContainerTruncated("snappy"));
    assert_eq!(e.kind.space(), Space::File);
    let d = decompress(cut).unwrap();
    let fault = d.fault.unwrap();
    assert_eq!(fault.kind, ErrorKind::ContainerTruncated("snappy"));
    assert_eq!(d.error_offset(&fault), cut.len() as u64);
}
