//! Hand-made Orbit captures: protobuf fields written byte by byte.

pub fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A message of varint fields, written as protobuf does: zero values are left out (Orbit's
/// size check rejects a message longer than its canonical encoding).
pub fn msg(fields: &[(u32, u64)]) -> Vec<u8> {
    let mut m = Vec::new();
    for &(n, v) in fields {
        if v == 0 {
            continue;
        }
        varint(&mut m, u64::from(n) << 3);
        varint(&mut m, v);
    }
    m
}

pub fn len_field(out: &mut Vec<u8>, n: u32, payload: &[u8]) {
    varint(out, (u64::from(n) << 3) | 2);
    varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// A capture of `events` (each a ClientCaptureEvent field number and its payload).
pub fn capture(events: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let mut file = b"ORBT\x01\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    let mut all = vec![(24, msg(&[(1, 42), (4, 1)]))];
    all.extend_from_slice(events);
    all.push((27, Vec::new()));
    for (n, payload) in &all {
        let mut m = Vec::new();
        len_field(&mut m, *n, payload);
        varint(&mut file, m.len() as u64);
        file.extend_from_slice(&m);
    }
    file
}
