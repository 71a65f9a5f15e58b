//! `GUID` structs print as apitrace prints them: by name when apitrace knows the GUID, else as
//! `uuid(...)`; compared with the real `apitrace dump` when it is installed.

use std::process::Command;

use tracecap_apitrace::dump::dump_text;
use tracecap_apitrace::write::{self, WDetail, WValue, Writer};

fn guid(d1: WValue, d2: u64, d3: u64, d4: Vec<WValue>) -> WValue {
    WValue::Struct {
        sig: 1,
        members: vec![d1, WValue::UInt(d2), WValue::UInt(d3), WValue::Array(d4)],
    }
}

fn bytes(b: &[u64]) -> Vec<WValue> {
    b.iter().map(|&x| WValue::UInt(x)).collect()
}

/// A trace with one call `f(riid = v)`, as a snappy file.
fn trace(v: WValue) -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[]);
    w.function(1, b"f", &[b"riid"]);
    w.struct_sig(1, b"GUID", &[b"Data1", b"Data2", b"Data3", b"Data4"]);
    w.struct_sig(2, b"GUID", &[b"Data1", b"Data2", b"Data3"]);
    let c = w.enter(0, 1, &[WDetail::Arg(0, v)]);
    w.leave(c, &[]);
    write::snappy(&w.finish(), 1 << 20)
}

fn ours(file: &[u8]) -> String {
    let d = tracecap_apitrace::decompress(file).unwrap();
    let mut out = Vec::new();
    dump_text(&d.data, |b| out.extend_from_slice(b)).unwrap();
    String::from_utf8(out).unwrap()
}

/// `apitrace dump` of `file`, or `None` without the tool.
fn theirs(file: &[u8], name: &str) -> Option<String> {
    let path =
        std::env::temp_dir().join(format!("tracecap-guid-{}-{name}.trace", std::process::id()));
    std::fs::write(&path, file).unwrap();
    let out = Command::new("apitrace")
        .args(["dump", "--color=never", "-v", "--thread-ids=yes"])
        .arg(&path)
        .output();
    std::fs::remove_file(&path).ok();
    let out = out.ok().filter(|o| o.status.success())?;
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn guids_print_as_apitrace_prints_them() {
    let iunknown = bytes(&[0xc0, 0, 0, 0, 0, 0, 0, 0x46]);
    let cases = [
        (
            "known",
            guid(WValue::UInt(0), 0, 0, iunknown.clone()),
            "IID_IUnknown",
        ),
        (
            "d3d11",
            guid(
                WValue::UInt(0x6f15aaf2),
                0xd208,
                0x4e89,
                bytes(&[0x9a, 0xb4, 0x48, 0x95, 0x35, 0xd3, 0x4f, 0x9c]),
            ),
            "IID_ID3D11Texture2D",
        ),
        (
            "unknown",
            guid(
                WValue::UInt(0x01234567),
                0x89ab,
                0xcdef,
                bytes(&[1, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]),
            ),
            "uuid(01234567-89ab-cdef-0123-456789abcdef)",
        ),
        // Each part is cut to its C width.
        (
            "wide",
            guid(
                WValue::UInt(0x1_0000_0001),
                0x1_0002,
                3,
                bytes(&[0x104, 5, 6, 7, 8, 9, 10, 11]),
            ),
            "uuid(00000001-0002-0003-0405-060708090a0b)",
        ),
        // Read as C's unsigned conversion does.
        (
            "float",
            guid(WValue::Float(3.7), 0, 0, iunknown.clone()),
            "uuid(00000003-0000-0000-c000-000000000046)",
        ),
        (
            "pointer",
            guid(WValue::Pointer(5), 0, 0, iunknown),
            "uuid(00000005-0000-0000-c000-000000000046)",
        ),
        // Three members: a plain struct.
        (
            "three",
            WValue::Struct {
                sig: 2,
                members: vec![WValue::UInt(1), WValue::UInt(2), WValue::UInt(3)],
            },
            "{Data1 = 1, Data2 = 2, Data3 = 3}",
        ),
    ];
    for (name, v, want) in cases {
        let file = trace(v);
        let got = ours(&file);
        assert_eq!(got, format!("0 @0 f(riid = {want})\n"), "{name}");
        if let Some(t) = theirs(&file, name) {
            assert_eq!(got, t, "{name}: differs from apitrace dump");
        }
    }
}

/// Shapes that make apitrace 11.1 abort on an assertion print as plain structs.
#[test]
fn malformed_guids_print_as_structs() {
    let seven = guid(WValue::UInt(1), 2, 3, bytes(&[1, 2, 3, 4, 5, 6, 7]));
    assert_eq!(
        ours(&trace(seven)),
        "0 @0 f(riid = {Data1 = 1, Data2 = 2, Data3 = 3, Data4 = {1, 2, 3, 4, 5, 6, 7}})\n"
    );
    let negative = guid(WValue::SInt(-1), 0, 0, bytes(&[0; 8]));
    assert_eq!(
        ours(&trace(negative)),
        "0 @0 f(riid = {Data1 = -1, Data2 = 0, Data3 = 0, Data4 = {0, 0, 0, 0, 0, 0, 0, 0}})\n"
    );
    let flat = WValue::Struct {
        sig: 1,
        members: vec![
            WValue::UInt(1),
            WValue::UInt(2),
            WValue::UInt(3),
            WValue::UInt(4),
        ],
    };
    assert_eq!(
        ours(&trace(flat)),
        "0 @0 f(riid = {Data1 = 1, Data2 = 2, Data3 = 3, Data4 = 4})\n"
    );
}
