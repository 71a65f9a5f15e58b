//! The WTF push walks the bench times, shared with `examples/wtf_walk.rs`: the bytes of a capture
//! handed to `PushParser` in 64 KiB pieces, and the full walk's work (see `wtf_walks::digest`)
//! done on every event.
//!
//! - [`push_walk`] and [`push_many`]: every piece appended to a buffer the caller owns, as a
//!   reader of a socket or a pipe does; `parse` one item a call, or `parse_many` every item that
//!   can be read at each call (the loop of `tracecap::push::pump`);
//! - [`push_walk_in_place`] and [`push_many_in_place`]: the same calls on the bytes where they
//!   arrived, as a reader of a growing file it maps does: the parser is given the bytes from
//!   the first one not yet consumed to the last one arrived, and nothing is copied. (A reader
//!   that carries over only the item a piece's end cuts, as the other formats' in-place walks
//!   do, would copy nearly every byte here: a chunk is read whole, and the chunks of the C++
//!   recorder are larger than a piece.)

use tracecap_wtf::push::{PushItem, PushParser, Pushed};

use crate::wtf_walks::digest;

/// How many bytes arrive at a time.
pub const PIECE: usize = 64 << 10;

/// Adds what an item carries to `acc`.
#[inline(always)]
fn fold(acc: &mut u64, item: PushItem<'_>) {
    if let PushItem::Event(ev) = item {
        *acc = acc.wrapping_add(digest(&ev));
    }
}

/// `parse` through the caller's buffer: each piece is appended to the buffer, the parser is
/// called until it needs more, and the bytes it consumed are dropped from the front of the
/// buffer then, in one move.
pub fn push_walk(bytes: &[u8]) -> u64 {
    let mut parser = PushParser::new();
    let mut pieces = bytes.chunks(PIECE);
    let (mut buffer, mut start) = (Vec::<u8>::new(), 0usize);
    let mut acc = 0u64;
    loop {
        let eof = pieces.len() == 0;
        match parser.parse(&buffer[start..], eof).unwrap() {
            Pushed::Item { consumed, item } => {
                fold(&mut acc, item);
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

/// [`push_walk`] with `parse_many`: each piece appended to the buffer, every item read then
/// handed over in one call, the bytes consumed dropped before the next piece.
pub fn push_many(bytes: &[u8]) -> u64 {
    let mut parser = PushParser::new();
    let mut pieces = bytes.chunks(PIECE);
    let (mut buffer, mut start) = (Vec::<u8>::new(), 0usize);
    let mut acc = 0u64;
    loop {
        let eof = pieces.len() == 0;
        match parser
            .parse_many(&buffer[start..], eof, |item| fold(&mut acc, item))
            .unwrap()
        {
            Pushed::Item { consumed, .. } => start += consumed,
            Pushed::NeedMore { .. } => {
                buffer.drain(..start);
                start = 0;
                buffer.extend_from_slice(pieces.next().unwrap());
            }
            Pushed::End => return acc,
        }
    }
}

/// [`push_walk`] on the bytes where they arrived: `parse` is given `bytes[start..arrived]`, and
/// each `NeedMore` lets one more piece arrive.
pub fn push_walk_in_place(bytes: &[u8]) -> u64 {
    let mut parser = PushParser::new();
    let (mut start, mut arrived) = (0usize, 0usize);
    let mut acc = 0u64;
    loop {
        let eof = arrived == bytes.len();
        match parser.parse(&bytes[start..arrived], eof).unwrap() {
            Pushed::Item { consumed, item } => {
                fold(&mut acc, item);
                start += consumed;
            }
            Pushed::NeedMore { .. } => arrived = bytes.len().min(arrived + PIECE),
            Pushed::End => return acc,
        }
    }
}

/// [`push_many`] on the bytes where they arrived, as [`push_walk_in_place`] reads them.
pub fn push_many_in_place(bytes: &[u8]) -> u64 {
    let mut parser = PushParser::new();
    let (mut start, mut arrived) = (0usize, 0usize);
    let mut acc = 0u64;
    loop {
        let eof = arrived == bytes.len();
        match parser
            .parse_many(&bytes[start..arrived], eof, |item| fold(&mut acc, item))
            .unwrap()
        {
            Pushed::Item { consumed, .. } => start += consumed,
            Pushed::NeedMore { .. } => arrived = bytes.len().min(arrived + PIECE),
            Pushed::End => return acc,
        }
    }
}
