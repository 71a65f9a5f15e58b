//! The syscall push walks of the bench: the bytes of a capture arrive in 64 KiB pieces, as from a
//! socket or a growing file, and every entry is folded as the full walk folds it.
//!
//! - [`push_walk`]: every piece is appended to a buffer the caller owns; the push parser reads
//!   every item it can from the buffer in place, then the consumed bytes are dropped in one move
//!   before the next piece;
//! - [`push_walk_in_place`]: the parser reads each piece where it arrived; only the bytes of an
//!   item that a piece's end cuts go to a small carry buffer, which takes from the next piece just
//!   the bytes that item still needs.

use tracecap_syscall::push::{PushItem, PushParser, Pushed};

use crate::syscall_walks::fold;

/// Bytes per piece.
pub const PIECE: usize = 64 << 10;

/// Folds what an item carries.
#[inline]
fn fold_item(acc: u64, item: PushItem<'_>) -> u64 {
    match item {
        PushItem::Entry(e) => fold(acc, &e),
        // The full walk reads the first header apart from the entries.
        PushItem::Header(_) | PushItem::GapPart(_) => acc,
    }
}

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
                acc = fold_item(acc, item);
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

/// Feeds `bytes` to a push parser in [`PIECE`]-sized pieces, read in place, with `carry` (cleared
/// first) for the items cut by a piece's end, and folds every entry.
pub fn push_walk_in_place(bytes: &[u8], carry: &mut Vec<u8>) -> u64 {
    carry.clear();
    let mut parser = PushParser::new();
    let mut acc = 0u64;
    for piece in bytes.chunks(PIECE) {
        // `carry` holds `own` bytes from before this piece, then the first bytes of the piece.
        let mut own = carry.len();
        let mut pos = 0;
        while own > 0 {
            match parser.parse(carry, false).unwrap() {
                Pushed::Item { consumed, item } => {
                    acc = fold_item(acc, item);
                    if consumed >= own {
                        pos = consumed - own;
                        carry.clear();
                        own = 0;
                    } else {
                        carry.drain(..consumed);
                        own -= consumed;
                    }
                }
                Pushed::NeedMore { hint } => {
                    let taken = carry.len() - own;
                    if taken == piece.len() {
                        break;
                    }
                    let n = hint.map_or(piece.len(), |h| h as usize);
                    let n = n.clamp(1, piece.len() - taken);
                    carry.extend_from_slice(&piece[taken..taken + n]);
                }
                Pushed::End => unreachable!("no end before eof"),
            }
        }
        if own > 0 {
            // The whole piece went to the carry.
            continue;
        }
        loop {
            match parser.parse(&piece[pos..], false).unwrap() {
                Pushed::Item { consumed, item } => {
                    acc = fold_item(acc, item);
                    pos += consumed;
                }
                Pushed::NeedMore { .. } => {
                    carry.extend_from_slice(&piece[pos..]);
                    break;
                }
                Pushed::End => unreachable!("no end before eof"),
            }
        }
    }
    loop {
        match parser.parse(carry, true).unwrap() {
            Pushed::Item { consumed, item } => {
                acc = fold_item(acc, item);
                carry.drain(..consumed);
            }
            Pushed::NeedMore { .. } => unreachable!("no need for more at eof"),
            Pushed::End => return acc,
        }
    }
}
