//! The WTF push walk the bench times: the bytes of a capture handed to `PushParser` in 64 KiB
//! pieces, through a buffer the caller owns, as a reader of a socket or a growing file would.

use tracecap_wtf::push::{PushItem, PushParser, Pushed};

use crate::wtf_walks::digest;

/// How many bytes arrive at a time.
pub const PIECE: usize = 64 << 10;

/// The full walk's work (every value decoded, arrays summed) on the events of the push parser:
/// each piece is appended to the buffer, the parser is called until it needs more, and the bytes
/// it consumed are dropped from the front of the buffer then, in one move.
pub fn push_walk(bytes: &[u8]) -> u64 {
    let mut parser = PushParser::new();
    let mut pieces = bytes.chunks(PIECE);
    let (mut buffer, mut start) = (Vec::<u8>::new(), 0usize);
    let mut acc = 0u64;
    loop {
        let eof = pieces.len() == 0;
        match parser.parse(&buffer[start..], eof).unwrap() {
            Pushed::Item { consumed, item } => {
                if let PushItem::Event(ev) = item {
                    acc = acc.wrapping_add(digest(&ev));
                }
                start += consumed;
            }
            Pushed::NeedMore { .. } => {
                buffer.drain(..start);
                start = 0;
                buffer.extend_from_slice(pieces.next().unwrap());
            }
            Pushed::End => return acc,
        }
    }
}
