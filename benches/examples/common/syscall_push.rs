//! The syscall push walk of the bench: the bytes of a capture arrive in 64 KiB pieces and go
//! through a buffer the caller owns, as from a socket or a growing file. The caller appends a
//! piece, lets the push parser read every item it can in place, then drops the consumed bytes in
//! one move before the next piece. Every entry is folded as the full walk folds it.

use tracecap_syscall::push::{Item, PushParser, Pushed};

use crate::syscall_walks::fold;

/// Bytes per piece.
pub const PIECE: usize = 64 << 10;

/// Feeds `bytes` to a push parser in [`PIECE`]-sized pieces through `buffer` (cleared first; its
/// capacity is reused from call to call) and folds every entry.
pub fn push_walk(bytes: &[u8], buffer: &mut Vec<u8>) -> u64 {
    buffer.clear();
    let mut parser = PushParser::new();
    let mut pieces = bytes.chunks(PIECE);
    let mut start = 0;
    let mut eof = false;
    let mut acc = 0u64;
    loop {
        match parser.parse(&buffer[start..], eof).unwrap() {
            Pushed::Item { consumed, item } => {
                match item {
                    Item::Entry(e) => acc = fold(acc, &e),
                    // The full walk reads the first header apart from the entries.
                    Item::Header(_) | Item::GapPart(_) => {}
                }
                start += consumed;
            }
            Pushed::NeedMore { .. } => {
                buffer.drain(..start);
                start = 0;
                match pieces.next() {
                    Some(piece) => buffer.extend_from_slice(piece),
                    None => eof = true,
                }
            }
            Pushed::End => return acc,
        }
    }
}
