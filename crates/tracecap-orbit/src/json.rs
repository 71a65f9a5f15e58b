//! proto3 canonical JSON of any message of the schema, and the `dump --json` lines (feature
//! `alloc`).
//!
//! The printer is driven by the static tables of [`crate::schema`] and reads the message bytes
//! directly: fields in field-number order with their original names, implicit-presence scalars
//! left out when they hold their default, 64-bit integers as strings, `bytes` as base64, enums by
//! name (by number when the schema does not know the value), floats as numbers (`"NaN"`,
//! `"Infinity"`, `"-Infinity"` as strings). Protobuf's merge rules apply: the last value of a
//! singular scalar wins, pieces of a nested message are merged, packed and unpacked repeated
//! values are concatenated, the last oneof member wins. Fields the schema does not know, and
//! known fields with a wire type that does not fit, are left out (as protobuf keeps them as
//! unknown fields).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::capture::{Capture, UserData};
use crate::error::{Error, ErrorKind};
use crate::event::Event;
use crate::kind::EventKind;
use crate::schema::{
    ORBIT_CLIENT_PROTOS_USERDEFINEDCAPTUREINFO, ORBIT_GRPC_PROTOS_CLIENTCAPTUREEVENT,
};
use crate::schema_types::{FieldType, MessageDesc};
use crate::wire::{varint, Field, Fields, Value, WIRE_LEN};

/// How deep messages may nest before the printer gives up (protobuf's own default is 100).
const MAX_DEPTH: u32 = 64;

/// Appends the proto3 JSON of the message made of `pieces` (one piece, or several to merge).
pub fn message_json(
    desc: &MessageDesc,
    pieces: &[(&[u8], u64)],
    out: &mut String,
) -> Result<(), Error> {
    message(desc, pieces, out, 0)
}

fn message(
    desc: &MessageDesc,
    pieces: &[(&[u8], u64)],
    out: &mut String,
    depth: u32,
) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        let at = pieces.first().map(|p| p.1).unwrap_or(0);
        return Err(Error::new(ErrorKind::TooDeep, at));
    }
    let mut fields: Vec<Field<'_>> = Vec::new();
    for &(bytes, base) in pieces {
        for f in Fields::new(bytes, base) {
            fields.push(f?);
        }
    }
    // The oneof: the last member set wins; pieces of it after another member was set merge.
    let mut winner = 0u32;
    let mut winner_from = 0usize;
    for (i, f) in fields.iter().enumerate() {
        if let Some(fd) = desc.field(f.number) {
            if fd.oneof && fd.ty.wire_type() == f.value.wire_type() && f.number != winner {
                winner = f.number;
                winner_from = i;
            }
        }
    }
    out.push('{');
    let mut first = true;
    for fd in desc.fields {
        if fd.oneof && fd.number != winner {
            continue;
        }
        let skip = if fd.oneof { winner_from } else { 0 };
        let occ = || {
            fields
                .iter()
                .skip(skip)
                .filter(move |f| f.number == fd.number)
                .filter(move |f| {
                    let wt = f.value.wire_type();
                    wt == fd.ty.wire_type()
                        || (fd.repeated && fd.ty.is_packable() && wt == WIRE_LEN)
                })
        };
        let mut body = String::new();
        if fd.repeated {
            let mut n = 0usize;
            body.push('[');
            for f in occ() {
                match (f.value, fd.ty) {
                    (Value::Len(p), FieldType::Message(m)) => {
                        sep(&mut body, &mut n);
                        message(m, &[(p, f.value_offset)], &mut body, depth + 1)?;
                    }
                    (Value::Len(p), FieldType::String | FieldType::Bytes) => {
                        sep(&mut body, &mut n);
                        scalar(fd.ty, Value::Len(p), &mut body);
                    }
                    (Value::Len(p), ty) => {
                        // Packed.
                        let mut pos = 0usize;
                        while pos < p.len() {
                            let v = match ty.wire_type() {
                                crate::wire::WIRE_FIXED64 => {
                                    let Some(b) = p.get(pos..pos + 8) else { break };
                                    pos += 8;
                                    let mut a = [0u8; 8];
                                    a.copy_from_slice(b);
                                    Value::Fixed64(u64::from_le_bytes(a))
                                }
                                crate::wire::WIRE_FIXED32 => {
                                    let Some(b) = p.get(pos..pos + 4) else { break };
                                    pos += 4;
                                    let mut a = [0u8; 4];
                                    a.copy_from_slice(b);
                                    Value::Fixed32(u32::from_le_bytes(a))
                                }
                                _ => match varint(p, &mut pos) {
                                    Ok(v) => Value::Varint(v),
                                    Err(_) => break,
                                },
                            };
                            sep(&mut body, &mut n);
                            scalar(ty, v, &mut body);
                        }
                    }
                    (v, ty) => {
                        sep(&mut body, &mut n);
                        scalar(ty, v, &mut body);
                    }
                }
            }
            body.push(']');
            if n == 0 {
                continue;
            }
        } else if let FieldType::Message(m) = fd.ty {
            let parts: Vec<(&[u8], u64)> = occ()
                .filter_map(|f| match f.value {
                    Value::Len(p) => Some((p, f.value_offset)),
                    _ => None,
                })
                .collect();
            if parts.is_empty() {
                continue;
            }
            message(m, &parts, &mut body, depth + 1)?;
        } else {
            let Some(last) = occ().next_back() else {
                continue;
            };
            if is_default(last.value) {
                continue;
            }
            scalar(fd.ty, last.value, &mut body);
        }
        if !first {
            out.push(',');
        }
        first = false;
        string(fd.name.as_bytes(), out);
        out.push(':');
        out.push_str(&body);
    }
    out.push('}');
    Ok(())
}

fn sep(s: &mut String, n: &mut usize) {
    if *n > 0 {
        s.push(',');
    }
    *n += 1;
}

fn is_default(v: Value<'_>) -> bool {
    match v {
        Value::Varint(x) | Value::Fixed64(x) => x == 0,
        Value::Fixed32(x) => x == 0,
        Value::Len(p) => p.is_empty(),
    }
}

fn float(x: f64, out: &mut String) {
    if x.is_nan() {
        out.push_str("\"NaN\"");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    } else {
        let _ = write!(out, "{x:?}");
    }
}

fn scalar(ty: FieldType, v: Value<'_>, out: &mut String) {
    let raw = match v {
        Value::Varint(x) | Value::Fixed64(x) => x,
        Value::Fixed32(x) => u64::from(x),
        Value::Len(_) => 0,
    };
    match ty {
        FieldType::Uint32 => {
            let _ = write!(out, "{}", raw as u32);
        }
        FieldType::Int32 => {
            let _ = write!(out, "{}", raw as i32);
        }
        FieldType::Uint64 | FieldType::Fixed64 => {
            let _ = write!(out, "\"{raw}\"");
        }
        FieldType::Int64 => {
            let _ = write!(out, "\"{}\"", raw as i64);
        }
        FieldType::Bool => out.push_str(if raw != 0 { "true" } else { "false" }),
        FieldType::Double => float(f64::from_bits(raw), out),
        FieldType::Float => {
            let f = f32::from_bits(raw as u32);
            if f.is_finite() {
                let _ = write!(out, "{f:?}");
            } else {
                float(f64::from(f), out);
            }
        }
        FieldType::Enum(e) => match e.value_name(raw as i32) {
            Some(name) => string(name.as_bytes(), out),
            None => {
                let _ = write!(out, "{}", raw as i32);
            }
        },
        FieldType::String => {
            if let Value::Len(p) = v {
                string(p, out);
            }
        }
        FieldType::Bytes => {
            if let Value::Len(p) = v {
                out.push('"');
                base64(p, out);
                out.push('"');
            }
        }
        FieldType::Message(_) => out.push_str("{}"),
    }
}

/// Appends `bytes` as a JSON string (invalid UTF-8 replaced by U+FFFD).
pub fn string(bytes: &[u8], out: &mut String) {
    out.push('"');
    for c in String::from_utf8_lossy(bytes).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends standard base64 (with padding) of `bytes`.
pub fn base64(bytes: &[u8], out: &mut String) {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let ch = |i: u32| char::from(T.get((i & 63) as usize).copied().unwrap_or(b'A'));
    for c in bytes.chunks(3) {
        let b0 = u32::from(c.first().copied().unwrap_or(0));
        let b1 = u32::from(c.get(1).copied().unwrap_or(0));
        let b2 = u32::from(c.get(2).copied().unwrap_or(0));
        let n = (b0 << 16) | (b1 << 8) | b2;
        out.push(ch(n >> 18));
        out.push(ch(n >> 12));
        out.push(if c.len() > 1 { ch(n >> 6) } else { '=' });
        out.push(if c.len() > 2 { ch(n) } else { '=' });
    }
}

/// The `dump --json` header line (without newline).
pub fn header_line(capture: &Capture<'_>) -> String {
    let h = capture.header();
    let mut s = String::new();
    let _ = write!(
        s,
        "{{\"format\":\"orbit\",\"version\":{},\"capture_section_offset\":{},\"section_list_offset\":{},\"capture_section_end\":{},\"sections\":[",
        h.version,
        h.capture_section_offset,
        h.section_list_offset,
        capture.capture_section_bound()
    );
    for (i, sec) in capture.sections().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"type\":{},\"offset\":{},\"size\":{}}}",
            sec.section_type, sec.offset, sec.size
        );
    }
    s.push_str("]}");
    s
}

/// The proto3 JSON of one event's whole `ClientCaptureEvent` (`{}` for `EVENT_NOT_SET`).
pub fn event_message(event: &Event<'_>) -> Result<String, Error> {
    let mut s = String::new();
    if event.kind == EventKind::NotSet {
        s.push_str("{}");
    } else {
        message(
            &ORBIT_GRPC_PROTOS_CLIENTCAPTUREEVENT,
            &[(event.message, event.message_offset)],
            &mut s,
            0,
        )?;
    }
    Ok(s)
}

/// The `dump --json` line of one event (without newline).
pub fn event_line(event: &Event<'_>) -> Result<String, Error> {
    let mut s = String::new();
    let _ = write!(
        s,
        "{{\"offset\":{},\"length\":{},\"event\":\"{}\",\"message\":",
        event.offset,
        event.length,
        event.kind.name()
    );
    if event.kind == EventKind::NotSet {
        s.push_str("{}");
    } else {
        message(
            &ORBIT_GRPC_PROTOS_CLIENTCAPTUREEVENT,
            &[(event.message, event.message_offset)],
            &mut s,
            0,
        )?;
    }
    if let Some(name) = event.view().ok().and_then(|v| v.api_name()) {
        s.push_str(",\"decoded_name\":");
        let bytes: Vec<u8> = name.bytes().collect();
        string(&bytes, &mut s);
    }
    s.push('}');
    Ok(s)
}

/// The `dump --json` line of the USER_DATA section (without newline).
pub fn user_data_line(user_data: &UserData<'_>) -> Result<String, Error> {
    let mut s = String::from("{\"kind\":\"user_data\",\"message\":");
    message(
        &ORBIT_CLIENT_PROTOS_USERDEFINEDCAPTUREINFO,
        &[(user_data.message, user_data.message_offset)],
        &mut s,
        0,
    )?;
    let _ = write!(s, ",\"offset\":{}}}", user_data.section.offset);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known_values() {
        let mut s = String::new();
        base64(b"hello_orbit", &mut s);
        assert_eq!(s, "aGVsbG9fb3JiaXQ=");
        s.clear();
        base64(b"gfx", &mut s);
        assert_eq!(s, "Z2Z4");
        s.clear();
        base64(b"\xff\xfebad-utf8", &mut s);
        assert_eq!(s, "//5iYWQtdXRmOA==");
    }
}
