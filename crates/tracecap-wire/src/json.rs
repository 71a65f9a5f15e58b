//! The inside of a JSON string, for the format crates that write their records' JSON: `"` and `\`
//! escaped, backspace, form feed, newline, carriage return and tab as their short escapes, the
//! other control characters as `\u00xx` (lowercase hex), everything else (DEL and all of
//! Unicode) as it is: what serde_json writes. Text goes out in pieces (runs of `s` that need no
//! escape, and escapes), so the caller appends them to whatever it builds, allocating nothing
//! here.
//!
//! ```
//! let mut out = String::from("\"");
//! tracecap_wire::json::escaped("a\"b\n\u{1}é", |piece| out.push_str(piece));
//! out.push('"');
//! assert_eq!(out, r#""a\"b\n\u0001é""#);
//! ```

/// Gives `s`, escaped for the inside of a JSON string, to `put` in pieces (see the
/// [module docs](self)).
pub fn escaped(s: &str, mut put: impl FnMut(&str)) {
    // Bytes of `s` before `done` have been given.
    let mut done = 0;
    for (i, b) in s.bytes().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        // Every byte escaped is ASCII, so `i` is on a character boundary.
        put(s.get(done..i).unwrap_or_default());
        done = i + 1;
        if short.is_empty() {
            let mut u = *b"\\u0000";
            if let (Some(hi), Some(lo)) = (u.get_mut(4), HEX.get(usize::from(b >> 4))) {
                *hi = *lo;
            }
            if let (Some(lo), Some(digit)) = (u.get_mut(5), HEX.get(usize::from(b & 15))) {
                *lo = *digit;
            }
            put(core::str::from_utf8(&u).unwrap_or_default());
        } else {
            put(short);
        }
    }
    put(s.get(done..).unwrap_or_default());
}

/// Gives `s` as a JSON string (in quotes, escaped) to `put` in pieces.
pub fn string(s: &str, mut put: impl FnMut(&str)) {
    put("\"");
    escaped(s, &mut put);
    put("\"");
}

/// Gives bytes read from a file as a JSON string to `put` in pieces: each invalid UTF-8 sequence
/// as U+FFFD (as `String::from_utf8_lossy` replaces it), the rest escaped.
pub fn lossy(bytes: &[u8], mut put: impl FnMut(&str)) {
    put("\"");
    for chunk in bytes.utf8_chunks() {
        escaped(chunk.valid(), &mut put);
        if !chunk.invalid().is_empty() {
            put("\u{fffd}");
        }
    }
    put("\"");
}

/// Lowercase hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;

    fn escape(s: &str) -> String {
        let mut out = String::new();
        super::escaped(s, |p| out.push_str(p));
        out
    }

    #[test]
    fn every_ascii_character_is_escaped_as_the_json_spec_and_serde_json_write_it() {
        for b in 0u8..0x80 {
            let c = char::from(b);
            let want = match c {
                '"' => String::from("\\\""),
                '\\' => String::from("\\\\"),
                '\u{8}' => String::from("\\b"),
                '\u{c}' => String::from("\\f"),
                '\n' => String::from("\\n"),
                '\r' => String::from("\\r"),
                '\t' => String::from("\\t"),
                c if (c as u32) < 0x20 => std::format!("\\u{:04x}", c as u32),
                c => String::from(c),
            };
            assert_eq!(escape(&String::from(c)), want, "byte {b:#04x}");
        }
    }

    #[test]
    fn strings_are_quoted_and_invalid_utf8_replaced() {
        let mut out = String::new();
        super::string("a\"b", |p| out.push_str(p));
        assert_eq!(out, r#""a\"b""#);
        let bytes = b"ok\xff\n\xe2\x82";
        let mut out = String::new();
        super::lossy(bytes, |p| out.push_str(p));
        let mut want = String::new();
        super::string(&String::from_utf8_lossy(bytes), |p| want.push_str(p));
        assert_eq!(out, want);
        assert_eq!(out, "\"ok\u{fffd}\\n\u{fffd}\"");
    }

    #[test]
    fn unicode_and_runs_pass_whole() {
        assert_eq!(escape("héllo wörld ✓ \u{7f}"), "héllo wörld ✓ \u{7f}");
        assert_eq!(escape("a\u{1f}b\"c"), "a\\u001fb\\\"c");
        assert_eq!(escape(""), "");
    }
}
