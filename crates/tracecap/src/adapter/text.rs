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
