//! Text and arguments the adapters hand to the sink without allocating per event.
// Each format's adapter uses some of these.
#![allow(dead_code)]

use alloc::string::String;

use crate::timeline::{Arg, Value};

/// Appends `b` to `out` as text, each invalid UTF-8 sequence as U+FFFD (what
/// `String::from_utf8_lossy` gives, without a temporary string).
pub(super) fn push_lossy(out: &mut String, b: &[u8]) {
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push(char::REPLACEMENT_CHARACTER);
        }
    }
}

/// `b` as text: itself when it is UTF-8, else written lossily into `buf` (reused from event to
/// event, so that an event allocates nothing).
pub(super) fn text<'b>(b: &'b [u8], buf: &'b mut String) -> &'b str {
    match core::str::from_utf8(b) {
        Ok(s) => s,
        Err(_) => {
            buf.clear();
            push_lossy(buf, b);
            buf
        }
    }
}

/// The filler of the stack buffers that hold an event's arguments.
pub(super) const NO_ARG: Arg<'static> = Arg {
    name: "",
    value: Value::Bool(false),
};

/// `s` cut to at most `max` bytes on a character boundary, and whether anything was cut (the
/// caller marks the cut in its own way).
pub(super) fn cut(s: &str, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (s.get(..end).unwrap_or(""), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_char_boundaries() {
        assert_eq!(cut("abc", 3), ("abc", false));
        assert_eq!(cut("abcd", 3), ("abc", true));
        // 'é' is two bytes: a cut inside it goes back to the boundary before it.
        assert_eq!(cut("aéb", 2), ("a", true));
        assert_eq!(cut("é", 0), ("", true));
    }

    #[test]
    fn lossy_text_borrows_utf8_and_replaces_the_rest() {
        let mut buf = String::new();
        assert_eq!(text(b"ok", &mut buf), "ok");
        assert_eq!(text(b"a\xffb", &mut buf), "a\u{fffd}b");
    }
}
